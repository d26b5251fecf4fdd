"""Scenario-level results: every workload evaluated, combined into one verdict, ready to serialise.

Evaluates each resolved workload once (its robustness and thresholds when first read: a scenario
whose page is stored never needs them), combines workloads into a scenario verdict (hybrid only when
some go to Trainium and others to the GPU; robust only when no input alone or jointly flips one),
serialises results (`to_dict`, a workload alone `workload_dict`: the one serialiser of `guide
evaluate --format json`, `result.json` and `guide mcp`, through `plain`, its codes said in words by
`wording.worded`; `workload_summary` cuts that document to what an answer leads with), computes
decision maps, and hands one workload with its cost curve to `wording.present` (`present_workload`),
and its Neuron pin to `wording.neuron_pin` (`pin_sentence`)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import math
from dataclasses import dataclass
from typing import Any, Protocol

from generator.model import wording
from generator.model.catalog import Catalog
from generator.model.engine import (
    Inputs,
    Outcome,
    Robustness,
    Span,
    Thresholds,
    Verdict,
    cost_curve,
    evaluate,
    robustness,
    single_blocks,
    thresholds,
)
from generator.model.resolve import Bought, NeuronPin, SpotRisk, resolve
from generator.model.schema import Scenario, Workload


@dataclass(frozen=True)
class WorkloadResult:
    workload: Workload
    inputs: Inputs
    outcome: Outcome
    trainium_price: Bought  # the prices the workload names
    gpu_price: Bought
    # Every record each side's plan may buy at, and its spot pools' ratings (resolve.Resolved).
    records: dict[str, dict[tuple[str, str], Bought]] = dataclasses.field(default_factory=dict)
    pools: dict[str, dict[str, SpotRisk]] = dataclasses.field(default_factory=dict)
    # PyTorch training on the Trainium side's generation stays on an older Neuron release (None: it does not).
    neuron_pin: NeuronPin | None = None

    # Robustness and thresholds are most of what evaluating a workload costs, and a build reads them
    # only for a page it renders afresh: a scenario whose page an earlier build stored never asks.
    # They are worked out from the outcome on first use, once (`evaluate_workload(..., now=True)`
    # works them out at once, where the evaluation runs in a worker process).
    @functools.cached_property
    def robustness(self) -> Robustness:
        return robustness(self.inputs, self.outcome)

    @functools.cached_property
    def thresholds(self) -> Thresholds:
        return thresholds(self.inputs, self.outcome)

    @functools.cached_property
    def single_blocks(self) -> dict[str, Any] | None:
        """What the plan costs with every run booked as one block, where it counts on an extension."""
        return single_blocks_summary(single_blocks(self.inputs, self.outcome))

    @property
    def named_prices(self) -> dict[str, Bought]:
        """The price each side is named to be bought at, by side: what the scenario's inputs say."""
        return {"trainium": self.trainium_price, "gpu": self.gpu_price}

    def _record(self, side: str, region: str, option: str) -> Bought:
        named = self.named_prices[side]
        return self.records.get(side, {}).get((region, option), named) if (region, option) != (named.region, named.option) else named

    @property
    def prices(self) -> dict[str, Bought]:
        """The price each side's plan is bought at, by side: the way and region the engine chose,
        which an answer cites (where the plan buys terms and hours another way, the terms' price)."""
        return {side: self._record(side, sd.plan_region, sd.plan_option)
                for side, sd in (("trainium", self.outcome.trainium), ("gpu", self.outcome.gpu))}

    @property
    def used_prices(self) -> tuple[tuple[str, Bought], ...]:
        """Every price record the plans use, by side: each plan's way, then the way it buys the hours
        past its terms, where that is another."""
        out = []
        for side, sd in (("trainium", self.outcome.trainium), ("gpu", self.outcome.gpu)):
            out.append((side, self._record(side, sd.plan_region, sd.plan_option)))
            if sd.hourly_hours > 0 and sd.hourly_option and sd.hourly_option != sd.plan_option:
                out.append((side, self._record(side, sd.plan_region, sd.hourly_option)))
        return tuple(out)

    @property
    def spot_risks(self) -> dict[str, SpotRisk]:
        """The rating of the spot pool each side's plan buys, by side, where it buys spot."""
        return {side: self.pools[side][sd.plan_region] for side, sd in (("trainium", self.outcome.trainium), ("gpu", self.outcome.gpu))
                if sd.spot_rate is not None and sd.plan_region in self.pools.get(side, {})}

    @property
    def price_sources(self) -> list[str]:
        """The sources of the prices the plans use, each once, Trainium's first."""
        return list(dict.fromkeys(p.source for _, p in self.used_prices))

    @property
    def prices_as_of(self) -> dt.date:
        """The date of the newest price the plans use: what a chart of this workload is as of."""
        return max(p.as_of for _, p in self.used_prices)


@dataclass(frozen=True)
class ScenarioResult:
    id: str
    path: str
    scenario: Scenario
    workloads: tuple[WorkloadResult, ...]

    @property
    def verdict(self) -> str:
        # Hybrid only when some workloads go to Trainium and others to the GPU; a workload neither side
        # can run sends nothing anywhere, so it does not make the others' lean a hybrid.
        verdicts = {w.outcome.verdict for w in self.workloads}
        if {"trainium", "gpu"} <= verdicts:
            return "hybrid"
        chosen = verdicts - {"neither"}
        return chosen.pop() if chosen else "neither"

    @property
    def robust(self) -> bool:
        """As the page says it: no input alone, nor all of them at their worst or best at once,
        changes any workload's verdict."""
        return all(w.robustness.holds and not w.robustness.joint_flip for w in self.workloads)

    @property
    def matches_expectation(self) -> bool:
        return self.verdict == self.scenario.expect

    def _counted(self) -> tuple[WorkloadResult, ...]:
        # A hybrid moves only some workloads to Trainium; what it saves is theirs, not the others'.
        if self.verdict == "hybrid":
            return tuple(w for w in self.workloads if w.outcome.verdict == "trainium")
        return self.workloads

    @property
    def saving_per_run(self) -> float:
        return sum(w.outcome.saving_per_run for w in self._counted())

    @property
    def total_difference(self) -> float:
        return sum(w.outcome.total_difference for w in self._counted())


def evaluate_workload(w: Workload, catalog: Catalog, *, now: bool = True) -> WorkloadResult:
    """now=False leaves robustness and thresholds to be worked out when first read."""
    r = resolve(w, catalog)
    x = r.inputs
    result = WorkloadResult(w, x, evaluate(x), r.trainium, r.gpu, r.records or {}, r.pools or {}, r.neuron_pin)
    if now:
        result.robustness, result.thresholds, result.single_blocks  # noqa: B018 (worked out here, kept on the result)
    return result


def single_blocks_summary(o: Outcome | None) -> dict[str, Any] | None:
    """The one-block reading of a plan as results publish it: its verdict, totals and bookings."""
    if o is None:
        return None
    return {"verdict": o.verdict, "trainium_total": o.trainium.total, "gpu_total": o.gpu.total,
            "total_difference": o.total_difference,
            "booking": {"trainium": o.trainium.booking, "gpu": o.gpu.booking}}


def evaluate_scenario(sid: str, path: str, s: Scenario, catalog: Catalog, *, now: bool = True) -> ScenarioResult:
    return ScenarioResult(sid, path, s, tuple(evaluate_workload(w, catalog, now=now) for w in s.workloads))


@dataclass(frozen=True)
class DecisionMap:
    """The engine's verdict (every rule, not cost alone) over a grid of runs against one other input
    (`relative_throughput` or `port_weeks`), everything else as in the case it is drawn for."""

    axis: str
    runs_max: int
    runs: tuple[int, ...]  # ascending, and holding the case's own runs
    values: tuple[float, ...]  # ascending, rounded to 4 places, and holding the case's own value
    verdicts: tuple[tuple[Verdict, ...], ...]  # verdicts[i][j]: at runs[i] and values[j]


def nice_step(span: float, n: int) -> float:
    """The smallest of 1, 2, 2.5 and 5 times a power of ten that cuts span into at most n - 1 steps:
    a map's cells then sit on round values (0.1 apart, not 0.0696), and so do its axis labels."""
    raw = span / (n - 1)
    power = 10 ** math.floor(math.log10(raw))
    return min(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw * (1 - 1e-9))


def _grid(lo: float, hi: float, n: int) -> list[float]:
    """lo, then every multiple of a round step up to hi (see nice_step): at most n values, and one
    more where lo is not itself a multiple."""
    step = nice_step(hi - lo, n)
    first = math.ceil(lo / step - 1e-9)
    return [lo, *(k * step for k in range(first, math.floor(hi / step + 1e-9) + 1) if k * step > lo + 1e-9)]


def _at(x: Inputs, axis: str, runs: int, v: float) -> Inputs:
    return Inputs(**{**x.__dict__, "runs": runs, axis: Span(v, v, v)})


def _column(x: Inputs, axis: str, v: float, runs: tuple[int, ...]) -> list[Verdict]:
    """The verdicts down one column of the map (one value, every number of runs).

    Bought by the hour with one port for the whole plan, both totals are straight lines in the
    runs, and every rule that does not compare them (constraints, availability, deadline) ignores
    the runs: so along a column the verdict changes at most once, from GPU to Trainium, and the
    runs where it turns are found by bisection. Commitments (totals that step with each term) and
    recurring ports (a saw-tooth) have no such shape: their columns are evaluated cell by cell."""
    def verdict(n: int) -> Verdict:
        return evaluate(_at(x, axis, n, v)).verdict

    stepped = x.gpu_term_hours is not None or x.trainium_term_hours is not None or x.runs_per_architecture is not None
    if stepped or len(runs) < 3:
        return [verdict(n) for n in runs]
    first, last = verdict(runs[0]), verdict(runs[-1])
    if first == last:
        return [first] * len(runs)
    if (first, last) != ("gpu", "trainium"):
        return [verdict(n) for n in runs]
    lo, hi = 0, len(runs) - 1  # runs[lo] is GPU, runs[hi] Trainium
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if verdict(runs[mid]) == "trainium":
            hi = mid
        else:
            lo = mid
    return ["gpu"] * hi + ["trainium"] * (len(runs) - hi)


def decision_map(x: Inputs, axis: str, n: int = 24) -> DecisionMap:
    """The map of a case over runs (1 to twice its plan, at least 40) and `axis`, on an n-step grid
    to which the case's own runs and value are added, so it has a cell of its own."""
    runs_max = max(40, x.runs * 2)
    runs = tuple(sorted({max(1, round(v)) for v in _grid(1, runs_max, n)} | {x.runs}))
    if axis == "relative_throughput":
        grid, here = _grid(0.4, 2.0, n), x.relative_throughput.value
    else:
        grid, here = _grid(0.5, max(4.0, x.port_weeks.high * 2), n), x.port_weeks.value
    values = tuple(sorted({round(v, 4) for v in grid} | {round(here, 4)}))
    columns = [_column(x, axis, v, runs) for v in values]
    verdicts = tuple(tuple(column[i] for column in columns) for i in range(len(runs)))
    return DecisionMap(axis, runs_max, runs, values, verdicts)


# Values plain() hands back as they are: most of a result is text, whole numbers and flags.
_AS_THEY_ARE = frozenset({str, int, bool, type(None)})


def plain(value: Any) -> Any:
    """Dataclasses to plain data, as results are serialised (nan and inf become None, dates ISO text)."""
    kind = type(value)
    if kind in _AS_THEY_ARE:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    names = _field_names(kind)
    if names is not None:
        return {n: v if type(v) in _AS_THEY_ARE else plain(v) for n in names for v in (getattr(value, n),)}
    # Subclasses of text and numbers (enums among them) are not those exact types: asked about here.
    if isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


@functools.cache
def _field_names(kind: type) -> tuple[str, ...] | None:
    """A dataclass's field names, once per class (`dataclasses.fields` works them out on every call,
    and a workload's result holds some seventy dataclass instances); None for any other type."""
    return tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else None


def present_workload(w: WorkloadResult, names: dict[str, str] | None = None, fresh: Judge | None = None) -> dict[str, Any]:
    """`wording.present` for one evaluated workload; `names` are the sources' names by key, `fresh`
    the day's judge of which prices are stale."""
    result = {"inputs": plain(w.inputs), "outcome": plain(w.outcome), "robustness": plain(w.robustness),
              "thresholds": plain(w.thresholds), "single_blocks": plain(w.single_blocks)}
    curve = plain(cost_curve(w.inputs, w.outcome, w.thresholds.break_even))
    return wording.present(result, curve, wording.price_refs(w, names, fresh))


class Judge(Protocol):
    """How old a price record is on the day an output is written (`inputs.freshness.Freshness`)."""

    def is_stale(self, p: Any) -> bool: ...
    def age(self, p: Any) -> int: ...


def pin_sentence(w: WorkloadResult) -> dict[str, str] | None:
    """What a page says of a Trainium side pinned to an older Neuron release (its lead and text);
    None where it is not."""
    return None if w.neuron_pin is None else wording.neuron_pin(plain(w.neuron_pin))


def to_dict(r: ScenarioResult, fresh: Judge | None = None) -> dict[str, Any]:
    return {
        "id": r.id,
        "path": r.path,
        "title": r.scenario.title,
        "expect": r.scenario.expect,
        "verdict": r.verdict,
        "matches_expectation": r.matches_expectation,
        "robust": r.robust,
        "scenario": r.scenario.model_dump(mode="json", exclude_none=True),
        "workloads": [workload_dict(w, fresh) for w in r.workloads],
    }


def price_record(p: Bought, fresh: Judge | None = None) -> dict[str, Any]:
    """A price record as results publish it; with `fresh`, whether it is stale and how old it is."""
    out = plain(p)
    if fresh is not None:
        out |= {"stale": fresh.is_stale(p), "age_days": fresh.age(p)}
    return out


def workload_dict(w: WorkloadResult, fresh: Judge | None = None) -> dict[str, Any]:
    """One evaluated workload as `guide evaluate --format json` writes it inside its scenario: `prices`
    are the records each side's plan buys at (the way and region the engine chose, which may not be
    the ones named), and `hourly_prices` the way a plan buys the hours past its terms, where another."""
    main = w.prices
    inputs, outcome, thresholds = plain(w.inputs), wording.worded(plain(w.outcome)), plain(w.thresholds)
    return {
        "name": w.workload.name,
        "inputs": inputs,
        "outcome": outcome,
        "robustness": plain(w.robustness),
        "thresholds": thresholds,
        # The break-even as the pages state it: the first whole plan that costs less on Trainium, in words.
        "break_even_statement": wording.break_even_statement(inputs, outcome, thresholds),
        "single_blocks": plain(w.single_blocks),
        "prices": {side: price_record(p, fresh) for side, p in main.items()},
        "hourly_prices": {side: price_record(p, fresh) for side, p in w.used_prices if p is not main[side]},
        "spot_pools": {side: plain(risk) for side, risk in w.spot_risks.items()},
        "neuron_pin": plain(w.neuron_pin),
    }


# Of each side's figures in `workload_dict`'s outcome, those an answer leads with.
SUMMARY_SIDE = ("total", "cost_per_run", "hours_per_run", "wall_clock_hours", "ready_days", "feasible", "reasons")


def workload_summary(d: dict[str, Any]) -> dict[str, Any]:
    """`workload_dict`'s document cut to what an answer leads with, read out of it and never worked
    out again: the verdict and the step that decided it, each side's plan (the price record it is
    bought at, how, and what it comes to), the saving, the thresholds that would flip the verdict,
    and whether it holds across the ranges. The trace, the ranges' ends and the inputs stay in the
    document."""
    o, t, rob = d["outcome"], d["thresholds"], d["robustness"]
    deciding = [s for s in o["trace"] if s["verdict"] is not None][-1]
    plans = {side: {"price": d["prices"][side], "count": d["inputs"][side + "_count"],
                    "bought": wording.plan_bought(d["inputs"], o[side], side),
                    **{k: o[side][k] for k in SUMMARY_SIDE},
                    **({"hourly_price": d["hourly_prices"][side]} if side in d["hourly_prices"] else {})}
             for side in ("trainium", "gpu")}
    return {
        "name": d["name"],
        "verdict": o["verdict"],
        "decided_by": {"rule": deciding["rule"], "label": wording.rule_label(deciding["rule"]), "text": deciding["text"]},
        "plans": plans,
        **{k: o[k] for k in ("saving_per_run", "total_difference", "ports", "port_cost", "break_even_runs")},
        "thresholds": {k: v for k, v in t.items() if k != "break_even" and v is not None},
        "break_even": t["break_even"],
        "robust": {"holds": rob["holds"], "flips_on": rob["flips_on"], "joint_flip": rob["joint_flip"]},
    }


def mismatch_message(r: ScenarioResult) -> str:
    """Why the engine disagrees with the author's `expect`, with the numbers that decided it."""
    workloads = []
    for w in r.workloads:
        o = w.outcome
        deciding = [s for s in o.trace if s.verdict is not None][-1]
        workloads.append({"name": w.workload.name, "verdict": o.verdict, "rule": deciding.rule, "gpu": o.gpu.total,
                          "trainium": o.trainium.total, "runs": w.inputs.runs, "ports": o.ports, "port_cost": o.port_cost,
                          "saving": o.saving_per_run, "break_even": o.break_even_runs})
    return wording.mismatch(r.verdict, r.scenario.expect, workloads)
