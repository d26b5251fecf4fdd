"""The generator's HTML said in Markdown (generator/rendering/published/html_markdown.py), for the Markdown
published beside each page and llms-full.txt."""

from __future__ import annotations

from generator.rendering.published.html_markdown import inline_markdown, to_markdown

BASE = "https://example.org/guide/scenarios/x/"


def test_lists_nest_and_keep_their_numbers():
    html = "<ol class='guide-trace'><li><strong>Feasibility.</strong> Both run.</li><li>Cost<ul><li>a</li><li>b</li></ul></li></ol>"
    assert to_markdown(html) == "1. **Feasibility.** Both run.\n2. Cost\n\n   - a\n   - b"


def test_a_chart_is_its_text_alternative_once_and_its_code_stays_code():
    html = ('<figure class="guide-chart"><div class="guide-chart__view" role="img" aria-label="Cost: GPU $1, Trainium $2.">'
            '</div><figcaption>GPU $1, Trainium $2.</figcaption></figure>\n'
            '<details class="guide-embed"><summary>Embed this chart</summary>'
            '<pre class="no-copy"><code>&lt;iframe src=&#34;x&#34;&gt;&lt;/iframe&gt;</code></pre></details>')
    assert to_markdown(html, BASE) == ("Cost: GPU $1, Trainium $2.\n\n**Embed this chart**\n\n"
                                       "```\n<iframe src=\"x\"></iframe>\n```")


def test_what_only_a_browser_needs_goes():
    html = ('<form><fieldset><legend>Start from</legend><label for="a">Runs</label>'
            '<input id="a" value="3"><select><option>x</option></select><button>Go</button></fieldset></form>'
            '<script>alert(1)</script><template>{"a":1}</template>')
    assert to_markdown(html) == "**Start from**\n\nRuns"


def test_links_become_absolute_and_text_stays_text():
    html = ('<p>See <a href="../../sources/#k">K</a> and <a href="#top">top</a>; '
            '[click](javascript:x) &lt;script&gt; *not bold* 1 &amp; 2</p>')
    assert to_markdown(html, BASE) == (
        "See [K](https://example.org/guide/sources/#k) and [top](https://example.org/guide/scenarios/x/#top); "
        "\\[click\\](javascript:x) \\<script\\> \\*not bold\\* 1 \\& 2")
    # A line of a paragraph that would open a block in Markdown is escaped.
    assert to_markdown("<p>- not a list<br>2. nor this</p>") == "\\- not a list  \n2\\. nor this"


def test_a_table_without_a_head_gets_an_empty_one_and_cells_keep_their_bars_escaped():
    html = "<table><tbody><tr><td>a | b</td><td><code>x|y</code></td></tr></tbody></table>"
    assert to_markdown(html) == "|  |  |\n|---|---|\n| a \\| b | `x\\|y` |"


def test_inline_html_in_a_line_of_markdown():
    assert inline_markdown('<span class="guide-note">(<em>range</em> <a href="../x/">x</a>)</span>', BASE) == \
        "(*range* [x](https://example.org/guide/scenarios/x/))"


def test_a_memo_says_again_only_what_changed():
    sections = "".join(f'<section id="s{i}"><h2>Chart {i}</h2><p>Its text.</p></section>\n' for i in range(3))
    memo: dict = {}
    first = to_markdown(sections, BASE, memo)
    assert first == to_markdown(sections, BASE) and len(memo) == 3
    # What the memo holds for a section is what is said for it: an unchanged one is not said again.
    key = next(k for k in memo if 'id="s1"' in k[0])
    memo[key] = ["(from the memo)"]
    again = to_markdown(sections.replace("Chart 2", "Chart two"), BASE, memo)
    assert again == "## Chart 0\n\nIts text.\n\n(from the memo)\n\n## Chart two\n\nIts text."
    assert len(memo) == 3  # what the last call used, no more
