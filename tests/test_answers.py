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
    assert answer["result"] == workload_dict(w, guide.fresh)
    assert answer["verdict"] == w.outcome.verdict
    assert answer["totals"] == {"trainium": w.outcome.trainium.total, "gpu": w.outcome.gpu.total}
    assert answer["deciding_step"]["rule"] == w.outcome.decided_by
    assert [s["side"] for s in answer["sources"][:2]] == ["trainium", "gpu"]
    assert answer["sources"][0]["as_of"] == w.prices["trainium"].as_of.isoformat()


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


def test_published_markdown_has_no_front_matter_specs_or_markers():
    page = ('---\n{"title": "T"}\n---\n\n# T\n\n<!-- guide:html -->\n<figure><template class="guide-chart__spec" '
            'data-chart="c">{"a":1}</template>\n<figcaption>Caption</figcaption></figure>\n<!-- /guide:html -->\nText\n')
    assert published.page_markdown(page) == "# T\n\n<figure><figcaption>Caption</figcaption></figure>\nText\n"
    # A blank line a contributor wrote inside a raw HTML block would end it, and what follows would be
    # Markdown: published, the block keeps none.
    held = "<!-- guide:html -->\n<p>Notes &lt;b&gt;\n\n[click](javascript:x)</p>\n<!-- /guide:html -->\n\n## Next\n"
    assert published.page_markdown(held) == "<p>Notes &lt;b&gt;\n[click](javascript:x)</p>\n\n## Next\n"
    # Markers are lines of their own, one after another too; the same text within a line is text.
    assert published.page_markdown("<!-- guide:a -->\n<!-- /guide:b-c -->\nx <!-- guide:d -->\n<!-- guide:e -->\n") == "x <!-- guide:d -->\n"
    assert published.markdown_path("scenarios/x.md") == "scenarios/x/index.html.md"
    assert published.markdown_path("index.md") == "index.html.md"
    assert published.markdown_path("axes/index.md") == "axes/index.html.md"


def test_published_markdown_links_other_pages_by_their_addresses_from_beside_it():
    text = ("[s](../sources.md#aws), [h](../index.md), [p](porting.md), [out](https://example.org/x.md), [here](#top), "
            "[feed](../changes/atom.xml)")
    assert published.page_markdown(text, "axes/price-performance.md") == (
        "[s](../../sources/#aws), [h](../../), [p](../porting/), [out](https://example.org/x.md), [here](#top), "
        "[feed](../../changes/atom.xml)")


def test_guide_mcp_without_the_sdk_says_how_to_install_it(monkeypatch, capsys):
    import sys

    from generator.commands import cli

    monkeypatch.setitem(sys.modules, "mcp", None)  # as where the extra is not installed
    assert cli.main(["--root", str(FROZEN), "mcp"]) == 1
    assert capsys.readouterr().err == "guide mcp: the MCP SDK is not installed; run `pip install -e '.[mcp]'` and try again\n"


# --- Every answer cites what it used -----------------------------------------------------------------
# Eight p5.48xlarge named on demand in us-east-1 ($55.04, VAN-2026-01, 2026-01-21), accepting spot
# ($28.11, VAN, 2025-11-30): 8 x 0.0005 x 1.5 = 0.006 of each hour lost, 1,000 x 28.11 / 0.994 =
# $28,279.68 a run against $55,040 on demand, so the plan is bought on spot; so is Trainium's, on
# trn1.32xlarge spot ($3.505, VAN, 2025-11-30). On 2026-06-01 both spot figures are 183 days old, past
# the 180 days the guide trusts unchecked; the on-demand ones (2026-01-21) are 131.
SPOT_DAY = dt.date(2026, 6, 1)


def _bought_on_spot(guide: Guide) -> dict:
    return _workload(guide, runs=10, run_size={"gpu_instance_hours": 1000.0}, buy=["on-demand", "spot"],
                     trainium={"instance": "trn1.32xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
                     gpu={"instance": "p5.48xlarge", "region": "us-east-1", "option": "on-demand", "count": 8},
                     regions=None, constraints=[], availability={"trainium": "available", "gpu": "available"})


def test_an_answer_cites_the_spot_price_its_plan_buys_at_and_that_it_is_stale():
    guide = Guide(FROZEN, URL, SPOT_DAY, [])
    answer = guide.evaluate_workload({k: v for k, v in _bought_on_spot(guide).items() if v is not None})
    gpu = answer["result"]["prices"]["gpu"]
    assert answer["result"]["outcome"]["gpu"]["plan_option"] == "spot"
    assert (gpu["option"], gpu["point"], gpu["source"], gpu["as_of"]) == ("spot", 28.11, "VAN", "2025-11-30")
    assert (gpu["stale"], gpu["age_days"]) == (True, 183)
    cited = [s for s in answer["sources"] if s.get("side") == "gpu"]
    assert [(s["figure"], s["stale"]) for s in cited] == [("gpu price: p5.48xlarge us-east-1 spot", True)]
    # The pool it buys from is cited as well: the guide's default, since the frozen data rates none.
    assert any(s["figure"].startswith("gpu spot pool: p5.48xlarge us-east-1, the guide's default") for s in answer["sources"])
    # The on-demand price it was named with is not what it used, and is not cited.
    assert not any("on-demand" in s["figure"] for s in cited)


def test_a_stale_price_that_decides_the_verdict_is_marked_at_the_verdict():
    from generator.inputs.freshness import Freshness
    from generator.model.results import evaluate_workload, present_workload
    from generator.model.schema import Workload

    guide = Guide(FROZEN, URL, SPOT_DAY, [])
    body = {k: v for k, v in _bought_on_spot(guide).items() if v is not None}
    w = evaluate_workload(Workload.model_validate(body), guide.catalog)
    shown = present_workload(w, None, Freshness.of(guide.catalog, SPOT_DAY))
    assert [u["stale"] for u in shown["prices_used"]] == [True, True]
    assert shown["prices_used"][1]["text"] == ("GPU: p5.48xlarge in us-east-1, spot, at $28.11/h (VAN, 2025-11-30); "
                                               "183 days old, older than the guide trusts unchecked")
    assert shown["stale_verdict"] == (
        "This verdict rests on trn1.32xlarge in us-east-1, spot, as of 2025-11-30 (183 days old) and p5.48xlarge in "
        "us-east-1, spot, as of 2025-11-30 (183 days old), older than the guide trusts unchecked: check against the "
        "source before acting.")
    assert shown["chart"]["subtitle"] == "Source: prices from VAN (2025-11-30). Figures as of 2025-11-30."
    # Named on demand, the same workload on 2026-06-01 would have cited figures of 2026-01-21, not stale.
    assert {p.as_of for p in w.named_prices.values()} == {dt.date(2026, 1, 21)}


def test_a_plan_bought_in_another_region_cites_that_regions_price():
    # Named on demand in eu-west-2 ($71.552), allowed eu-north-1 ($58.8928): bought in eu-north-1.
    guide = Guide(FROZEN, URL, dt.date(2026, 11, 21), [])
    body = _workload(guide, regions=["eu-west-2", "eu-north-1"],
                     gpu={"instance": "p5.48xlarge", "region": "eu-west-2", "option": "on-demand", "count": 8},
                     trainium={"instance": "trn1.32xlarge", "region": "us-east-1", "option": "on-demand", "count": 8})
    answer = guide.evaluate_workload(body)
    gpu = answer["result"]["prices"]["gpu"]
    assert (gpu["region"], gpu["point"]) == ("eu-north-1", 58.8928)
    assert [s["figure"] for s in answer["sources"] if s.get("side") == "gpu"] == ["gpu price: p5.48xlarge eu-north-1 on-demand"]
