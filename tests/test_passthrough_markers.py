"""Where a held block starts and ends (generator/rendering/passthrough.split): a line that is START to
the first line after it that is END, each marker a whole line."""

from __future__ import annotations

import pytest

from generator.rendering.pages.passthrough import END, START, split

S, E = START, END


@pytest.mark.parametrize(("markdown", "held", "blocks"), [
    (f"a\n{S}\n<p>1</p>\n{E}\nb", "a\n<!-- guide:html 0 -->\nb", ["<p>1</p>"]),
    (f"{S}\n<p>1</p>\n{E}", "<!-- guide:html 0 -->", ["<p>1</p>"]),
    (f"{S}\n\n{E}\n", "<!-- guide:html 0 -->\n", [""]),  # an empty block
    (f"{S}\n{E}", f"{S}\n{E}", []),  # END on the line START ends is not a line of its own
    (f"{S}\n\n<p>1</p>\n\n{E}", "<!-- guide:html 0 -->", ["<p>1</p>"]),  # blank lines at its edges go
    (f"{S}\n1\n{E}x\n2\n{E}", "<!-- guide:html 0 -->", [f"1\n{E}x\n2"]),  # END must end its line
    (f"x{S}\n1\n{E}", f"x{S}\n1\n{E}", []),  # START must start its line
    (f"{S}\n1\n", f"{S}\n1\n", []),  # never closed
    (f"{S}\n1\n{E}\n{S}\n2\n{E}", "<!-- guide:html 0 -->\n<!-- guide:html 1 -->", ["1", "2"]),
    (f"{S}\n1\n{S}\n2\n{E}\n{E}", f"<!-- guide:html 0 -->\n{E}", [f"1\n{S}\n2"]),  # the first END closes
    ("no markers", "no markers", []),
])
def test_a_block_runs_from_a_start_line_to_the_first_end_line(markdown, held, blocks):
    assert split(markdown) == (held, blocks)
