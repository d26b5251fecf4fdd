"""What `guide mcp` answers, without the protocol (generator/commands/answers.py), and the pure pieces
behind it and the published site: a workload handed in as data is validated as a scenario's is, the
calculator link carries a workload's state as the calculator's URL does, contributed text is escaped
in llms.txt, and a page's published Markdown keeps no build machinery. On the frozen project."""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import parse_qsl, urlsplit

import pytest
from core_support import FROZEN

from generator.commands.answers import STEP_RULES, Guide, Refused, Topic, find_topics
from generator.model.results import workload_dict
from generator.rendering.published import llms as published
from generator.rendering.calculator.data import workload_json
from generator.rendering.calculator.fields import FIELDS, link_query

URL = "https://example.org/guide/"


@pytest.fixture(scope="module")
def guide() -> Guide:
    return Guide(FROZEN, URL, dt.date(2026, 11, 21), [])


def _workload(guide: Guide, **changes) -> dict:
    return {**workload_json(guide.project.results[0].workloads[0].workload), **changes}


def test_a_workload_is_answered_from_the_engines_own_document(guide: Guide):
    w = guide.project.results[0].workloads[0]
    full = guide.evaluate_workload({**workload_json(w.workload), "detail": "full"})
    assert full["result"] == workload_dict(w, guide.fresh)
    answer = guide.evaluate_workload(workload_json(w.workload))
    assert "result" not in answer and answer["more"]
    assert {k: v for k, v in full.items() if k not in ("result", "more")} == {k: v for k, v in answer.items() if k != "more"}
    assert answer["verdict"] == w.outcome.verdict
    assert {side: answer["plans"][side]["total"] for side in ("trainium", "gpu")} == \
        {"trainium": w.outcome.trainium.total, "gpu": w.outcome.gpu.total}
    assert answer["decided_by"]["rule"] == w.outcome.decided_by
    # Each side's plan cites the price record it is bought at, with whether that price is stale.
    for side, bought in w.prices.items():
        price = answer["plans"][side]["price"]
        assert (price["instance"], price["point"], price["source"], price["as_of"]) == \
            (bought.instance, bought.point, bought.source, bought.as_of.isoformat())
        assert isinstance(price["stale"], bool)
    # The answer leads with what a decision needs; the trace waits for detail "full".
    assert list(answer)[:8] == ["name", "verdict", "verdict_label", "decided_by", "plans", "figures", "sources", "thresholds"]
    assert '"trace"' not in json.dumps(answer)


def test_every_source_an_answer_cites_is_given_once_and_none_it_does_not(guide: Guide):
    for r in guide.project.results:
        answer = guide.get_scenario({"id": r.id})
        cited = [answer["figures"][k]["source"] for k in answer["figures"]]
        cited += [wl["plans"][side]["price"]["source"] for wl in answer["workloads"] for side in ("trainium", "gpu")]
        assert set(answer["sources"]) == set(cited), r.id
        assert all(s["name"] and s["as_of"] for s in answer["sources"].values() if s["kind"] != "assumption")
        # Each figure used is one of data/assumptions.yaml's, by its key there, with its source and date.
        for key, figure in answer["figures"].items():
            assert key.split(".")[0] in type(guide.catalog.assumptions).model_fields or key.startswith("instances."), key
            assert figure["source"] in guide.catalog.sources and figure["as_of"], key


def test_answers_keep_to_their_budgets_on_every_shipped_workload(guide: Guide):
    """Sized for a model's context: the default answer of each tool under its budget in characters,
    as the server sends it (compact JSON)."""
    def size(answer: dict) -> int:
        return len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False, default=str))

    for r in guide.project.results:
        assert size(guide.get_scenario({"id": r.id})) < 8000, r.id
        for w in r.workloads:
            assert size(guide.evaluate_workload(workload_json(w.workload))) < 6000, (r.id, w.workload.name)
    assert size(guide.list_scenarios({})) < 10000
    assert size(guide.find_prices({"instance": "p5.48xlarge"})) < 9000
    assert size(guide.explain({})) < 6000
    assert size(guide.throughput({"trainium": "trn2.48xlarge", "gpu": "p5.48xlarge"})) < 6000


@pytest.mark.parametrize(("changes", "says"), [
    ({"runs": 0}, "runs: input should be greater than or equal to 1 (got 0)"),
    ({"runs": "12"}, "runs: input should be a valid integer; remove the quotes to make it a number (got '12')"),
    ({"gpu": {"instance": "p5.48xlarg", "region": "us-east-1"}}, "gpu.instance: "),
    ({"relative_throughput": {"value": 2, "low": 3, "high": 4}}, "relative_throughput: needs low <= value <= high"),
    ({"notes": "x"}, "notes: unknown field"),
    ({"description": "a\u202eb"}, "description: bidirectional control characters"),
    # Bounds no real team reaches, from the schema (`guide validate` and the calculator read the same).
    ({"run_size": {"gpu_instance_hours": 1e300}}, "run_size.gpu_instance_hours: input should be less than or equal to 10000000"),
    ({"relative_throughput": {"value": 1e-300, "low": 1e-300, "high": 1}},
     "relative_throughput.value: input should be greater than or equal to 0.01"),
    ({"detail": "everything"}, "detail: expected summary or full"),
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
    with pytest.raises(Refused, match=r"^verdict: not in data/; did you mean 'neither'\? \(got 'nether'\)$"):
        guide.list_scenarios({"verdict": "nether"})
    with pytest.raises(Refused, match=r"^gpu: not in data/; did you mean 'p5\.48xlarge'\?"):
        guide.throughput({"trainium": "trn2.48xlarge", "gpu": "p5.48xlarg"})
    with pytest.raises(Refused, match=r"^trainium: not in data/"):  # a GPU instance is no Trainium one
        guide.throughput({"trainium": "p5.48xlarge", "gpu": "p5.48xlarge"})


@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("explain", {"topic": "x" * 100_000}, "topic"),
    ("find_prices", {"instance": "p" * 100_000}, "instance"),
    ("get_scenario", {"id": "i" * 100_000}, "id"),
    ("list_scenarios", {"k" * 100_000: 1}, "kkk"),
    ("evaluate_workload", {"k" * 100_000: 1}, "kkk"),
])
def test_what_an_error_echoes_is_a_short_excerpt(guide: Guide, tool, arguments, field):
    call = {"explain": guide.explain, "find_prices": guide.find_prices, "get_scenario": guide.get_scenario,
            "list_scenarios": guide.list_scenarios, "evaluate_workload": guide.evaluate_workload}[tool]
    if tool == "evaluate_workload":
        arguments = {**_workload(guide), **arguments}
    with pytest.raises(Refused) as e:
        call(arguments)
    assert str(e.value).startswith(field) and len(str(e.value)) < 400, str(e.value)[:500]


def test_scenarios_are_listed_a_page_at_a_time_and_filtered(guide: Guide):
    ids = [r.id for r in guide.project.results]
    page = guide.list_scenarios({"offset": 1, "limit": 2})
    assert [s["id"] for s in page["scenarios"]] == ids[1:3] and page["count"] == len(ids)
    gpu = guide.list_scenarios({"verdict": "gpu"})
    assert [s["id"] for s in gpu["scenarios"]] == [r.id for r in guide.project.results if r.verdict == "gpu"]
    trn1 = guide.list_scenarios({"instance": "trn1.32xlarge"})
    assert trn1["count"] == sum(any(w.workload.trainium.instance == "trn1.32xlarge" for w in r.workloads)
                                for r in guide.project.results) > 0
    cited = {k for s in guide.list_scenarios({})["scenarios"] for w in s["workloads"] for k in w["price_sources"]}
    assert set(guide.list_scenarios({})["sources"]) == cited
    with pytest.raises(Refused, match=r"^limit: expected a whole number from 1 to 100 \(got 1000\)$"):
        guide.list_scenarios({"limit": 1000})


def test_throughput_evidence_is_each_chips_own_with_sources_and_what_the_scenarios_assume(guide: Guide):
    found = guide.throughput({"trainium": "trn1.32xlarge", "gpu": "p4d.24xlarge"})
    known = guide.catalog.throughput
    trn1, a100 = (guide.catalog.instances[i].chip for i in ("trn1.32xlarge", "p4d.24xlarge"))
    assert [(m["model"], m["tokens_per_second"]) for m in found["measured"]["trainium"]] == \
        [(m.model, m.tokens_per_second) for m in known.measured if m.chip == trn1] != []
    assert [c["says"] for c in found["claims"]["claims"]] == [c.says for c in known.claims if c.trainium == trn1]
    # Every figure it cites has its source among the answer's sources, given once.
    cited = [m["source"] for side in found["measured"].values() for m in side]
    cited += [u["source"] for side in found["utilisation"].values() for u in side]
    cited += [c["source"] for c in found["claims"]["claims"]] + found["peak"]["sources"]
    assert set(found["sources"]) == set(cited)
    # The peak ratio is per instance: chips times the dense BF16 peak of each.
    chips = {i: guide.catalog.instances[i].chips.value for i in ("trn1.32xlarge", "p4d.24xlarge")}
    bf16 = {i: guide.catalog.chips[guide.catalog.instances[i].chip].bf16_tflops.value for i in chips}
    assert found["peak"]["bf16"]["ratio"] == pytest.approx(chips["trn1.32xlarge"] * bf16["trn1.32xlarge"]
                                                            / (chips["p4d.24xlarge"] * bf16["p4d.24xlarge"]))
    # What each scenario of the pair assumes, with its reasons.
    pair = [(r.id, w.workload.relative_throughput.value) for r in guide.project.results for w in r.workloads
            if (w.workload.trainium.instance, w.workload.gpu.instance) == ("trn1.32xlarge", "p4d.24xlarge")]
    assert [(a["scenario"], a["value"]) for a in found["scenarios"]["assume"]] == pair != []
    assert found["advice"] and found["page_url"] == URL + "throughput/"
    # Asked for another class of model, the measurements of mainstream models are left out, and it says so.
    custom = guide.throughput({"trainium": "trn1.32xlarge", "gpu": "p4d.24xlarge", "architecture": "heavy-custom-cuda"})
    assert "measured" not in custom or not any(custom["measured"].values())
    assert "Heavy custom CUDA" in custom["class_note"]


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


def test_explain_finds_a_topic_by_its_name_its_words_then_its_text():
    topics = [Topic("ports-and-break-even", "section", "Ports and break-even", "u#p", "## Ports and break-even\nA port ..."),
              Topic("the-decision", "section", "The decision", "u#d", "## The decision\nThe deadline rule ...", ("deadline",)),
              Topic("stale-price", "term", "Stale price, freshness", "g", "Older than stale_days.", ("Stale price", "freshness")),
              Topic("neither", "term", "Neither", "g", "Neither side can run.", ("Neither",), ("the-decision",)),
              Topic("neither-can-run", "step", "Feasibility: neither-can-run", "u#d", "Neither side can run."),
              Topic("limits", "section", "Limits", "u#l", "## Limits\nbreak-even, break-even")]
    assert [t.id for t in find_topics(topics, "deadline")] == ["the-decision"]
    assert [t.id for t in find_topics(topics, "freshness")] == ["stale-price"]
    assert [t.id for t in find_topics(topics, "staleness")][0] == "stale-price"  # a word on the same stem
    # A question's own words name no topic: a term comes before a code of the same name.
    assert [t.id for t in find_topics(topics, "why neither")][:2] == ["neither", "the-decision"]
    assert [t.id for t in find_topics(topics, "break even")] == ["ports-and-break-even", "limits"]
    assert find_topics(topics, "quantum") == []


def test_every_step_and_reason_code_of_the_engine_is_a_topic_with_its_meaning(guide: Guide):
    from generator.model.engine import REASON_CODES, STEP_CODES

    assert {c for codes in STEP_RULES.values() for c in codes} == STEP_CODES
    listed = {t["id"]: t["kind"] for t in guide.explain({})["topics"]}
    assert {c for c, kind in listed.items() if kind == "step"} == STEP_CODES
    assert {c for c, kind in listed.items() if kind == "reason"} == REASON_CODES
    for code in STEP_CODES | REASON_CODES:
        answer = guide.explain({"topic": code})
        assert answer["id"] == code and f"`{code}`" in answer["markdown"] and answer["url"] == URL + "methodology/#the-decision"
        assert "{" not in answer["markdown"]


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
    body = {k: v for k, v in _bought_on_spot(guide).items() if v is not None}
    answer = guide.evaluate_workload(body)
    gpu = answer["plans"]["gpu"]["price"]
    assert (gpu["option"], gpu["point"], gpu["source"], gpu["as_of"]) == ("spot", 28.11, "VAN", "2025-11-30")
    assert (gpu["stale"], gpu["age_days"]) == (True, 183)
    # The pool it buys from is among the figures used: the guide's default, since the frozen data rates none.
    assert "spot_interruptions_per_instance_hour" in answer["figures"]
    # The whole document says the same, and the on-demand price it was named with is not cited.
    full = guide.evaluate_workload({**body, "detail": "full"})
    assert full["result"]["prices"]["gpu"]["option"] == "spot" and full["result"]["prices"]["gpu"]["stale"] is True
    assert "VAN-2026-01" not in answer["sources"]


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
    gpu = answer["plans"]["gpu"]["price"]
    assert (gpu["region"], gpu["point"]) == ("eu-north-1", 58.8928)
