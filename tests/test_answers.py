"""What `guide mcp` answers, without the protocol (generator/commands/answers.py), and the pure pieces
behind it and the published site: a workload handed in as data is validated as a scenario's is, the
calculator link carries a workload's state as the calculator's URL does, contributed text is escaped
in llms.txt, and a page's published Markdown keeps no build machinery. On the frozen project."""

from __future__ import annotations

import datetime as dt
from urllib.parse import parse_qsl, urlsplit

import pytest
from core_support import FROZEN

from generator.commands.answers import Guide, Refused, Section, find_sections
from generator.model.results import workload_dict
from generator.rendering import published
from generator.rendering.calculator import workload_json
from generator.rendering.calculator_fields import FIELDS, link_query

URL = "https://example.org/guide/"


@pytest.fixture(scope="module")
def guide() -> Guide:
    return Guide(FROZEN, URL, dt.date(2026, 11, 21), [])


def _workload(guide: Guide, **changes) -> dict:
    return {**workload_json(guide.project.results[0].workloads[0].workload), **changes}


def test_a_workload_is_answered_with_the_engines_own_document(guide: Guide):
    w = guide.project.results[0].workloads[0]
    answer = guide.evaluate_workload(workload_json(w.workload))
    assert answer["result"] == workload_dict(w)
    assert answer["verdict"] == w.outcome.verdict
    assert answer["totals"] == {"trainium": w.outcome.trainium.total, "gpu": w.outcome.gpu.total}
    assert answer["deciding_step"]["rule"] == w.outcome.decided_by
    assert [s["side"] for s in answer["sources"][:2]] == ["trainium", "gpu"]
    assert answer["sources"][0]["as_of"] == w.trainium_price.as_of.isoformat()


@pytest.mark.parametrize(("changes", "says"), [
    ({"runs": 0}, "runs: input should be greater than or equal to 1 (got 0)"),
    ({"runs": "12"}, "runs: input should be a valid integer; remove the quotes to make it a number (got '12')"),
    ({"gpu": {"instance": "p5.48xlarg", "region": "us-east-1"}}, "gpu.instance: "),
    ({"relative_throughput": {"value": 2, "low": 3, "high": 4}}, "relative_throughput: needs low <= value <= high"),
    ({"notes": "x"}, "notes: unknown field"),
    ({"description": "a\u202eb"}, "description: bidirectional control characters"),
])
def test_a_bad_workload_is_refused_naming_the_field_and_the_reason(guide: Guide, changes, says):
    with pytest.raises(Refused) as e:
        guide.evaluate_workload(_workload(guide, **changes))
    assert says in str(e.value)
    assert "Traceback" not in str(e.value) and ":1:1" not in str(e.value)


def test_unknown_names_are_refused_with_a_hint(guide: Guide):
    with pytest.raises(Refused, match=r"^instance: not in data/; did you mean 'p5\.48xlarge'\? \(got 'p5\.48xlarg'\)$"):
        guide.find_prices({"instance": "p5.48xlarg"})
    with pytest.raises(Refused, match=r"^region: "):
        guide.find_prices({"instance": "p5.48xlarge", "region": "mars-1"})
    with pytest.raises(Refused, match=r"^id: not in data/"):
        guide.get_scenario({"id": "nope"})


def _state(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def test_the_calculator_link_is_empty_for_the_reference_and_carries_only_what_differs(guide: Guide):
    reference = workload_json(guide.project.reference.workload)
    week = guide.catalog.assumptions.engineer_week_usd.value
    assert link_query(reference, reference, week) == ""
    assert dict(parse_qsl(link_query({**reference, "runs": 37}, reference, week))) == {"n": "37"}
    # A value the reference gives and the workload leaves out is sent empty, so the page does not keep it.
    with_months = {**reference, "plan_months": 12.5}
    assert dict(parse_qsl(link_query(reference, with_months, week), keep_blank_values=True)) == {"pm": ""}
    # The other way of giving the run size switches the mode and carries its three fields.
    flops = {**reference, "run_size": {"params_billion": 8, "tokens_billion": 2000, "mfu": 0.4}}
    assert dict(parse_qsl(link_query(flops, reference, week))) == {"rm": "flops", "p": "8", "k": "2000", "u": "0.4"}


def test_the_calculator_link_holds_every_field_of_the_workload(guide: Guide):
    for r in guide.project.results:
        for w in r.workloads:
            state = _state(guide.calculator_url(w.workload))
            data = workload_json(w.workload)
            for f in FIELDS:
                if f.key not in state or not f.path:
                    continue
                value = data
                for part in f.path.split("."):
                    value = value.get(part) if isinstance(value, dict) else None
                if isinstance(value, list):
                    # An empty list (`buy: []`) is the parameter sent empty.
                    assert [v for v in state[f.key].replace(" ", "").split(",") if v] == value, f.key
                elif isinstance(value, (int, float)) and not isinstance(value, bool):
                    assert float(state[f.key]) == value, f.key
                elif value is not None:
                    assert state[f.key] == value, f.key


def test_explain_finds_a_steps_section_first_then_headings_then_text():
    sections = [Section("Ports and break-even", "ports", "## Ports and break-even\nA port ..."),
                Section("The decision", "the-decision", "## The decision\nThe deadline rule ..."),
                Section("Limits", "limits", "## Limits\nbreak-even, break-even")]
    assert [s.anchor for s in find_sections(sections, "deadline")] == ["the-decision"]
    assert [s.anchor for s in find_sections(sections, "break even")] == ["ports", "limits"]
    assert find_sections(sections, "quantum") == []


def test_contributed_text_in_llms_txt_cannot_form_links_or_html():
    text = published.md_text("Fine [click](https://evil.example) <script>alert(1)</script>\n# not a heading")
    assert "[click]" not in text and "<script>" not in text and "\n" not in text
    assert text == ("Fine \\[click\\](https://evil.example) \\<script\\>alert(1)\\</script\\> \\# not a heading")


def test_published_markdown_has_no_front_matter_specs_markers_or_html():
    page = ('---\n{"title": "T"}\n---\n\n# T\n\n<!-- guide:html -->\n<figure><template class="guide-chart__spec" '
            'data-chart="c">{"a":1}</template>\n<figcaption>Caption</figcaption></figure>\n<!-- /guide:html -->\nText\n')
    assert published.page_markdown(page, "p.md", URL) == "# T\n\nCaption\n\nText\n"
    # A contributor's text inside a raw HTML block stays text: no link, no tag forms from it, even
    # past a blank line the contributor wrote.
    held = "<!-- guide:html -->\n<p>Notes &lt;b&gt;\n\n[click](javascript:x)</p>\n<!-- /guide:html -->\n\n## Next\n"
    assert published.page_markdown(held, "p.md", URL) == "Notes \\<b\\> \\[click\\](javascript:x)\n\n## Next\n"
    # Markers are lines of their own, one after another too.
    assert published.page_markdown("<!-- guide:a -->\n<!-- /guide:b-c -->\nx\n", "p.md", URL) == "x\n"
    assert published.markdown_path("scenarios/x.md") == "scenarios/x/index.html.md"
    assert published.markdown_path("index.md") == "index.html.md"
    assert published.markdown_path("axes/index.md") == "axes/index.html.md"


def test_published_markdown_says_tables_as_tables_and_titles_as_text():
    page = ("# One&#45;off run&#44; then &#42;done&#42;\n\n<!-- guide:html -->\n<table data-table=\"x\">\n"
            "<thead><tr><th>Input</th><th>Value</th></tr></thead>\n<tbody>\n"
            "<tr><td>Runs</td><td data-key=\"runs\"><strong>3</strong> a | b</td></tr>\n"
            "<tr><td>Price</td><td><a href=\"../../sources/#k\">K</a>, as of 2026-07-20</td></tr>\n</tbody>\n</table>\n"
            "<!-- /guide:html -->\n")
    assert published.page_markdown(page, "scenarios/x.md", URL) == (
        "# One-off run, then \\*done\\*\n\n"
        "| Input | Value |\n|---|---|\n| Runs | **3** a \\| b |\n| Price | [K](https://example.org/guide/sources/#k), as of 2026-07-20 |\n")
    # Hand-written HTML too, and a `markdown` wrapper keeps its Markdown; fenced code stays as written.
    page = ('<div class="lead" markdown>\n\n**Bold** [c](calculator.md)\n\n</div>\n\n<table>\n<tr><td>a</td></tr>\n</table>\n\n'
            '```\n<b>kept</b>\n```\nSee <a href="../llms.txt">llms.txt</a>.\n')
    assert published.page_markdown(page, "faq.md", URL) == (
        "**Bold** [c](https://example.org/guide/calculator/)\n\n|  |\n|---|\n| a |\n\n"
        "```\n<b>kept</b>\n```\nSee [llms.txt](https://example.org/guide/llms.txt).\n")


def test_published_markdown_links_by_absolute_addresses():
    text = ("[s](../sources.md#aws), [h](../index.md), [p](porting.md), [out](https://example.org/x.md), [here](#top), "
            "[feed](../changes/atom.xml)")
    assert published.page_markdown(text, "axes/price-performance.md", URL) == (
        f"[s]({URL}sources/#aws), [h]({URL}), [p]({URL}axes/porting/), [out](https://example.org/x.md), "
        f"[here]({URL}axes/price-performance/#top), [feed]({URL}changes/atom.xml)\n")


def test_guide_mcp_without_the_sdk_says_how_to_install_it(monkeypatch, capsys):
    import sys

    from generator.commands import cli

    monkeypatch.setitem(sys.modules, "mcp", None)  # as where the extra is not installed
    assert cli.main(["--root", str(FROZEN), "mcp"]) == 1
    assert capsys.readouterr().err == "guide mcp: the MCP SDK is not installed; run `pip install -e '.[mcp]'` and try again\n"
