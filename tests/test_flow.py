"""Data flows one way: what resolve found and the engine computed is handed on, never looked up or
worked out again. Each test changes or blocks the source a later stage could wrongly go back to
(the catalog's prices, the engine) and checks that what pages and charts show did not move."""

from __future__ import annotations

import datetime as dt
import json
import sys
from dataclasses import replace

import pytest

from core_support import FROZEN
from generator.model import engine
from generator.model import formatting as fmt
from generator.model import results
from generator.rendering.charts import specs as ch
from generator.model.catalog import Catalog
from generator.model.results import to_dict
from generator.rendering.pages.renderer import Renderer
from core_support import BASE

DAY = dt.date(2026, 11, 23)


def _every_workload(project):
    yield project.reference
    for r in project.results:
        yield from r.workloads


def test_resolve_hands_on_the_price_records_it_found(project):
    catalog = project.catalog
    seen = 0
    for w in _every_workload(project):
        for side, bought in w.named_prices.items():
            c = getattr(w.workload, side)
            p = catalog.price(c.instance, c.region, c.option)
            assert (bought.instance, bought.region, bought.option) == (c.instance, c.region, c.option)
            assert (bought.point, bought.low, bought.high, bought.source, bought.as_of, bought.reason) == (p.point, p.low, p.high, p.source, p.as_of, p.reason)
            assert getattr(w.inputs, side + "_price") == bought.span
            seen += 1
    assert seen >= 2 * 10


def test_results_serialise_the_resolved_prices_as_json(project):
    r = project.results[0]
    d = json.loads(json.dumps(to_dict(r), allow_nan=False))  # no default=: every value is JSON already
    for w, out in zip(r.workloads, d["workloads"], strict=True):
        assert out["prices"]["gpu"]["source"] == w.prices["gpu"].source
        assert out["prices"]["trainium"]["as_of"] == w.prices["trainium"].as_of.isoformat()
        assert out["prices"]["trainium"]["point"] == w.prices["trainium"].point


def test_an_answer_cites_the_records_its_plans_buy_at(project):
    """Each side's cited price is the record of the way and region its plan buys at, as resolve found
    it, whatever the workload named; a plan that buys hours past its terms another way cites that too."""
    catalog = project.catalog
    other = 0
    for w in _every_workload(project):
        for side, bought in w.used_prices:
            sd = getattr(w.outcome, side)
            assert bought.instance == getattr(w.workload, side).instance and bought.region == sd.plan_region
            assert bought.option in (sd.plan_option, sd.hourly_option)
            assert (bought.point, bought.source, bought.as_of) == (lambda p: (p.point, p.source, p.as_of))(
                catalog.price(bought.instance, bought.region, bought.option))
        for side, sd in (("trainium", w.outcome.trainium), ("gpu", w.outcome.gpu)):
            assert (w.prices[side].region, w.prices[side].option) == (sd.plan_region, sd.plan_option)
            other += (sd.plan_option, sd.plan_region) != (getattr(w.workload, side).option, getattr(w.workload, side).region)
    assert other > 0, "no shipped plan is bought another way than named: the test would not tell them apart"


def test_pages_and_charts_show_the_prices_resolve_found_after_the_catalog_changes(own_project, monkeypatch):
    """Rendering after every price in the catalog changed (and `Catalog.price` refuses to answer):
    scenario pages, their charts and the reference's charts still show what resolve found; the
    prices page, which lists the catalog itself, shows the change."""
    catalog = own_project.catalog
    catalog.sources["CHANGED"] = next(iter(catalog.sources.values()))
    catalog.prices[:] = [p.model_copy(update={"source": "CHANGED", "as_of": dt.date(2001, 2, 3),
                                              "usd_per_hour": None if p.usd_per_hour is None else p.usd_per_hour * 7.77})
                         for p in catalog.prices]

    def refuse(*args, **kwargs):
        raise AssertionError("a price was looked up in the catalog after resolve")

    monkeypatch.setattr(Catalog, "price", refuse)
    renderer = Renderer(own_project, today=DAY)
    charts = []
    real = Renderer.register
    monkeypatch.setattr(Renderer, "register", lambda self, c, page, *rest: charts.append(drawn := real(self, c, page, *rest)) or drawn)
    site = renderer.render()
    assert "CHANGED" in site.pages["prices.md"]
    for r in own_project.results:
        page = site.pages[f"scenarios/{r.id}.md"]
        assert "CHANGED" not in page and "2001-02-03" not in page
        for w in r.workloads:
            for side, bought in w.named_prices.items():
                assert (f'data-key="{side}_price" data-value="{bought.point}" title="{fmt.hourly_exact(bought.point)}">'
                        f'{fmt.hourly(bought.point)}<') in page
                assert f", as of {bought.as_of}." in page
    drawn = [c for c in charts if c.kind != "price-performance"]
    assert len(drawn) >= len(own_project.results) + 3
    for c in drawn:
        assert "CHANGED" not in c.source and "CHANGED" not in json.dumps(c.spec)
        assert c.as_of != dt.date(2001, 2, 3)
    ref = own_project.reference
    headline = renderer.headline()  # what the hand-written pages quote of the reference pair
    assert (headline["trn"], headline["gpu"]) == (ref.trainium_price, ref.gpu_price)
    assert headline["ratio"] == ref.trainium_price.point / ref.gpu_price.point
    home = {c.id: c for c in drawn}
    assert home["decision-map"].as_of == ref.prices_as_of
    named = own_project.catalog.sources[ref.trainium_price.source].name
    assert f"{named} ({ref.trainium_price.as_of.isoformat()})" in home["decision-map"].source


def _block_the_engine(monkeypatch):
    """Every generator module's handle on the engine's evaluate and robustness raises."""
    def refuse(*args, **kwargs):
        raise AssertionError("the engine ran while drawing")

    real = {attr: getattr(engine, attr) for attr in ("evaluate", "robustness")}
    blocked = 0
    for name, module in list(sys.modules.items()):
        if name == "generator" or name.startswith("generator."):
            for attr, function in real.items():
                if getattr(module, attr, None) is function:
                    monkeypatch.setattr(module, attr, refuse)
                    blocked += 1
    assert blocked >= 3  # engine and results at least


def test_drawing_the_reference_charts_runs_no_engine(project, monkeypatch):
    renderer = Renderer(project, today=DAY)
    maps = renderer.reference.maps  # the results stage: the maps are computed here, once
    assert set(maps) == {"relative_throughput", "port_weeks"}
    _block_the_engine(monkeypatch)
    charts = renderer.home_charts()
    assert {"decision_map", "port_map", "breakdown", "sensitivity"} <= set(charts)
    for axis, name in (("relative_throughput", "decision_map"), ("port_weeks", "port_map")):
        m = maps[axis]
        rows = charts[name][1].rows
        assert len(rows) == len(m.runs) * len(m.values)
        assert [row["verdict"] for row in rows] == ["Trainium" if v == "trainium" else "GPU" for line in m.verdicts for v in line]


def test_sensitivity_draws_the_robustness_stored_on_the_result(project):
    """A result whose stored robustness differs from what the engine would say: the chart shows
    the stored one, so it cannot have worked its own out."""
    w = project.reference
    assert w.robustness.ends
    stored = replace(w.robustness, flips_on=("port_weeks",),
                     ends=tuple(replace(e, total_difference=e.total_difference + 1234.5) for e in w.robustness.ends))
    assert stored != engine.robustness(w.inputs, w.outcome)
    kept = replace(w)
    kept.__dict__["robustness"] = stored  # where functools.cached_property keeps what it worked out
    r = results.ScenarioResult("t", "", None, (kept,))  # type: ignore[arg-type]
    chart = ch.sensitivity(r, 0)
    assert chart is not None
    assert [row["difference"] for row in chart.rows] == [e.total_difference for e in stored.ends]
    assert chart.summary.endswith("Inputs whose range flips the verdict: port effort.")


def _cell_by_cell(x: engine.Inputs, m: results.DecisionMap) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(engine.evaluate(replace(x, runs=n, **{m.axis: engine.Span(v, v, v)})).verdict for v in m.values)
                 for n in m.runs)


def _cases(project):
    cases = [w.inputs for w in _every_workload(project)]
    # Cases where the capacity rule decides, in both directions, and one with nothing to decide.
    cases.append(replace(BASE, needed_within_days=10, gpu_availability="constrained"))
    cases.append(replace(BASE, needed_within_days=10, trainium_availability="constrained"))
    cases.append(replace(BASE, excluded_by=("tensorflow",)))
    return cases


@pytest.mark.parametrize("axis", ["relative_throughput", "port_weeks"])
def test_a_map_found_by_bisection_is_the_map_evaluated_cell_by_cell(project, axis):
    """The map evaluates a column's ends and bisects between them; evaluating every cell must give
    the very same verdicts, for every frozen workload and a few cases the capacity rule decides."""
    turning = 0
    for x in _cases(project):
        m = results.decision_map(x, axis)
        assert m.verdicts == _cell_by_cell(x, m)
        columns = list(zip(*m.verdicts, strict=True))
        turning += sum(1 for col in columns if len(set(col)) == 2)
    assert turning >= 20  # columns where the verdict turns: the bisection had work to do


def test_a_map_evaluates_fewer_cells_than_it_has(project, monkeypatch):
    calls = []
    real = results.evaluate
    monkeypatch.setattr(results, "evaluate", lambda x: calls.append(1) or real(x))
    m = results.decision_map(project.reference.inputs, "relative_throughput")
    assert 0 < len(calls) < len(m.runs) * len(m.values) / 3


def test_data_that_describes_fewer_constraints_loads_and_a_scenario_naming_one_is_told_where(tmp_path):
    """data/ from an older guide (as `guide diff` reads a base) lacks a constraint the schema knows:
    the data still loads, and only a scenario that names the constraint is refused, at that name."""
    import shutil

    import yaml

    from generator.inputs.loader import load_catalog, load_scenario
    from generator.inputs.problems import InputError
    from generator.model.schema import MODELINE

    data = tmp_path / "data"
    shutil.copytree(FROZEN / "data", data)
    assumptions = yaml.safe_load((data / "assumptions.yaml").read_text(encoding="utf-8"))
    del assumptions["constraints"]["multi-cloud"]
    (data / "assumptions.yaml").write_text(yaml.safe_dump(assumptions, sort_keys=False), encoding="utf-8")
    catalog = load_catalog(data)
    w = {"name": "w", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 100.0}, "runs": 2,
         "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1"}, "gpu": {"instance": "p4d.24xlarge", "region": "us-east-1"},
         "relative_throughput": {"value": 1.0, "low": 1.0, "high": 1.0}, "constraints": ["dynamic-shapes", "multi-cloud"]}
    path = tmp_path / "c.yaml"
    path.write_text(MODELINE + "\n" + yaml.safe_dump({"title": "t", "summary": "s", "expect": "gpu", "sources": ["ours"],
                                                      "workloads": [w]}, sort_keys=False), encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_scenario(path, "scenarios/c.yaml", catalog)
    (problem,) = e.value.problems
    assert problem.field == "workloads.0.constraints.1"
    assert "data/assumptions.yaml describes no such constraint" in problem.message and "(got 'multi-cloud')" in problem.message
