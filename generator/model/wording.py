"""Every sentence, label and formatted figure a reader is told, in one module.

The engine says what each step of the decision found and why a side cannot run as codes with their
numbers (`engine.STEP_CODES`, `engine.REASON_CODES`); `worded` says them here, for `present` and for
every output that publishes the sentences. `present` takes one evaluated workload as
`generator.model.results` serialises it (inputs, outcome, robustness, thresholds as plain data), the
engine's cost curve and the two prices' source and date, and returns plain data: the trace items,
the summary table's cells, the robustness and threshold sentences and the chart's rows, marks and
subtitle. docs/assets/calculator/wording.mjs is this module in JavaScript; tests/test_parity.py and
tests/test_wording.py hold the two to identical strings. The scenario page and the calculator both
only place what comes out of here.

Rules, inputs and thresholds this layer does not know (the engine may grow new ones) get a generic
label made from their name and their figures in plain numbers.
"""

from __future__ import annotations

import math
from typing import Any

from generator.model import formatting as f

# The words for the engine's codes: each step of the decision and each reason a side cannot run
# (`worded` places them where `guide evaluate` and the downloads publish them).
SIDE_LABELS = {"trainium": "Trainium", "gpu": "The GPU option"}
RANGE_LABELS = {
    "relative_throughput": "relative throughput",
    "port_weeks": "port effort",
    "trainium_price": "Trainium price",
    "gpu_price": "GPU price",
    "interruption_rate": "spot interruptions per instance-hour",
    "trainium_interruption_rate": "spot interruptions per instance-hour on Trainium",
    "gpu_interruption_rate": "spot interruptions per instance-hour on the GPU",
    "lost_hours": "hours of work lost per spot interruption",
    "port_engineers": "engineers on the port",
}
STEPS = {
    "both-can-run": "Both sides can run: no constraint, region or availability rules either out.",
    "trainium-late": "Trainium cannot start by the deadline: the port and any lead time take longer.",
    "gpu-late": "The GPU option cannot start by the deadline; Trainium can.",
    "both-on-time": "Both sides can start by the deadline.",
    "both-late-same-day": "Neither side can start by the deadline, and both start on the same day.",
    "cost-trainium": "Over the plan, Trainium costs less, ports included.",
    "cost-committed": "Over the plan, with each commitment paid for its whole term, Trainium does not cost less.",
    "cost-no-saving": "Trainium does not cost less per run, so no number of runs repays the port.",
    "cost-no-architecture-repays": "No architecture lasts enough runs to repay its own port.",
    "cost-not-repaid": "Over the plan, the per-run saving does not repay the port cost.",
    "capacity-trainium": "GPUs are constrained, the run is needed soon, and Trainium is within the close-call margin.",
    "capacity-gpu": "Trainium is constrained, the run is needed soon, and the GPU is within the close-call margin.",
    "capacity-unchanged": "Capacity does not change the cost verdict.",
}
# Ways to buy as a sentence names them.
OPTION_WORDS = {"on-demand": "on-demand", "spot": "spot", "commit-1y": "1-year commitment", "commit-3y": "3-year commitment",
                "capacity-block": "Capacity Block"}
SOONEST = {"trainium": "Trainium starts soonest.", "gpu": "the GPU option starts soonest."}
REASONS = {
    "unavailable": "it cannot be had in the region and window needed",
    "spot-cannot-finish": "on spot at this scale a run cannot be expected to finish: interruptions cost as many hours "
                          "of progress as it runs, or more",
}


def ruled_out_by(constraints: tuple[str, ...]) -> str:
    return "a hard constraint rules it out (" + ", ".join(constraints) + ")"


def not_offered_in(regions: tuple[str, ...]) -> str:
    return "it is not offered in any region the workload may use (" + ", ".join(regions) + ")"


def blocks_cannot_hold(across: float) -> str:
    return f"Capacity Blocks hold at most {f.count(across)} instances across an organisation's blocks, fewer than it runs at once"


# How a plan's parts are bought, as a buyer says it.
TERM_WORDS = {"commit-1y": "1-year term", "commit-3y": "3-year term"}
HOURLY_WORDS = {"on-demand": "on demand", "capacity-block": "on Capacity Blocks", "spot": "on spot"}
SMALL_COUNTS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _terms(n: int, option: str) -> str:
    return f"{SMALL_COUNTS.get(n) or f.count(n)} {TERM_WORDS[option]}{'' if n == 1 else 's'}"


def plan_bought(x: dict[str, Any], sd: dict[str, Any], side: str) -> str:
    """How one side's plan is bought: held hours first, whole terms, then what is bought by the hour."""
    option, region = sd["plan_option"], sd["plan_region"]
    where = f" in {region}" if region and region != x.get(side + "_region") else ""
    if option not in TERM_WORDS:
        whole = ", each run booked as whole days" if option == "capacity-block" and x.get("block_limits") else ""
        return f"by the hour {HOURLY_WORDS.get(option, option)}{where}{whole}"
    held, terms, hourly = x[side + "_held_hours"], sd["committed_terms"], sd["hourly_hours"]
    by_hour = HOURLY_WORDS.get(sd["hourly_option"], sd["hourly_option"])
    if hourly and not (held or terms):
        return f"no {TERM_WORDS[option]}: the whole plan {by_hour}{where}"
    parts = []
    if held:
        parts.append(f"the {f.count(held)} hours still held")
    if terms:
        parts.append(_terms(terms, option))
    if hourly:
        parts.append(f"the plan's last {f.count(hourly)} hours {by_hour}")
    return (", then ".join(parts) or "nothing more to buy") + where


def withdrawn(day: Any) -> str:
    """A figure AWS's APIs stopped listing, as every page and report says it."""
    return f"no longer listed by AWS since {f.date(day)}"


def neither_can_run(trainium_reasons: str, gpu_reasons: str) -> str:
    return f"Neither side can run. Trainium: {trainium_reasons}. The GPU option: {gpu_reasons}."


def cannot_run(side: str, reasons: str) -> str:
    return f"{SIDE_LABELS[side]} cannot run: {reasons}."


def neither_on_time(soonest: str) -> str:
    return "Neither side can start by the deadline; " + SOONEST[soonest]


def reason_text(reason: Any) -> str:
    """One reason a side cannot run (`engine.infeasibility`'s code and detail), as a sentence part."""
    code, detail = reason
    if code == "ruled-out":
        return ruled_out_by(tuple(detail))
    if code == "not-offered":
        return not_offered_in(tuple(detail))
    if code == "blocks-cannot-hold":
        return blocks_cannot_hold(detail)
    return REASONS.get(code, _generic(code))


def reasons_text(reasons: Any) -> str:
    return "; ".join(reason_text(r) for r in reasons)


def step_text(s: dict[str, Any]) -> str:
    """The sentence for what one step of the decision found (a step of the engine's trace, as plain data)."""
    code, n = s["code"], s.get("numbers") or {}
    if code == "neither-can-run":
        return neither_can_run(reasons_text(n["trainium_reasons"]), reasons_text(n["gpu_reasons"]))
    if code in ("trainium-cannot-run", "gpu-cannot-run"):
        side = code.split("-")[0]
        return cannot_run(side, reasons_text(n[side + "_reasons"]))
    if code == "neither-on-time":
        return neither_on_time(s["verdict"])
    text = _generic(code)
    return STEPS.get(code, text[:1].upper() + text[1:] + ".")


def worded(outcome: dict[str, Any]) -> dict[str, Any]:
    """An outcome as plain data (`results.plain`) with its codes said in words, in the places and
    order its sentences are published in (`guide evaluate --format json`, result.json, `guide mcp`):
    each step's `text` where its code was, each side's reasons as sentences."""
    out = dict(outcome)
    for side in ("trainium", "gpu"):
        out[side] = {**outcome[side], "reasons": [reason_text(r) for r in outcome[side]["reasons"]]}
    steps = []
    for s in outcome["trace"]:
        numbers = {k: reasons_text(v) if k.endswith("_reasons") else v for k, v in (s.get("numbers") or {}).items()}
        steps.append({("text" if k == "code" else k): (step_text(s) if k == "code" else numbers if k == "numbers" else v)
                      for k, v in s.items()})
    out["trace"] = steps
    return out


RULE_LABELS = {
    "feasibility": "Feasibility",
    "cost": "Cost over the plan",
    "deadline": "Deadline",
    "capacity": "Capacity and urgency",
}
VERDICT_LABELS = {"trainium": "Trainium", "gpu": "GPU", "hybrid": "Hybrid", "neither": "Neither"}
# A team's Neuron experience (schema.Experience), as the scenario page and the calculator's form name it.
EXPERIENCE_LABELS = {"none": "None", "some": "Some", "experienced": "Experienced, or a partner"}
ROBUST_WORDS = {
    "robust": "robust",
    "joint": "changes only when several inputs are at their worst at once",
}
THRESHOLD_LABELS = {
    "relative_throughput": "relative throughput",
    "runs": "runs",
    "port_weeks": "port effort",
    "trainium_price": "Trainium price",
}


def _generic(name: str) -> str:
    return name.replace("_", " ").replace("-", " ")


def rule_label(rule: str) -> str:
    text = _generic(rule)
    return RULE_LABELS.get(rule, text[:1].upper() + text[1:])


def range_label(name: str) -> str:
    return RANGE_LABELS.get(name, _generic(name))


def _plural(n: float, word: str) -> str:
    return f"{f.runs(n) if word == 'run' else f.count(n)} {word}{'' if n == 1 else 's'}"


def range_value(name: str, v: float | None) -> str:
    """A ranged input's value with its unit."""
    if name == "relative_throughput":
        return f.ratio(v)
    if name == "port_weeks":
        return f.NONE if v is None else f.weeks(v) + (" engineer-week" if v == 1 else " engineer-weeks")
    if name in ("trainium_price", "gpu_price"):
        return f.hourly(v)
    if v is None:
        return f.NONE
    if name in ("interruption_rate", "trainium_interruption_rate", "gpu_interruption_rate"):
        return f.rate(v) + " per instance-hour"
    if name == "lost_hours":
        return f.hours(v)
    if name == "port_engineers":
        return f.weeks(v) + (" engineer" if v == 1 else " engineers")
    return f.num(v, 2)


def _cell(key: str | None, value: Any, text: str) -> dict[str, Any]:
    return {"key": key, "value": value, "text": text}


def _step(s: dict[str, Any], runs: int) -> dict[str, Any]:
    n = s.get("numbers") or {}
    text = s["text"]
    if s["rule"] == "cost" and "gpu_total" in n:
        plan_runs = n.get("runs", runs)
        text += (f" GPU {f.money(n['gpu_total'])} against Trainium {f.money(n['trainium_total'])} "
                 f"({_plural(n['ports'], 'port')} at {f.money(n['port_cost'])} plus {_plural(plan_runs, 'run')}).")
    elif s["rule"] == "capacity" and s["verdict"] and "ratio" in n:
        text += f" The other side's plan costs {f.ratio(n['ratio'])} as much; the margin is {f.pct(n['margin'])}."
    elif s["rule"] == "deadline" and "trainium_ready_days" in n:
        text += (f" Needed within {f.days(n['needed_within_days'])}; Trainium can start in "
                 f"{f.days(n['trainium_ready_days'])}, the GPU in {f.days(n['gpu_ready_days'])}.")
        if n.get("trainium_late_days") and n.get("gpu_late_days"):
            text += f" Trainium {f.days(n['trainium_late_days'])} late, the GPU {f.days(n['gpu_late_days'])} late."
    decides = s["verdict"]
    # The rule's own sentence without the figures: short enough for a row of the scenarios index and
    # the calculator's summary.
    reason = s["text"]
    return {
        "rule": s["rule"],
        "label": rule_label(s["rule"]),
        "text": text,
        "reason": reason,
        "decides": decides,
        "decides_text": f"Decides: {VERDICT_LABELS[decides]}." if decides else "",
    }


def robust_state(rob: dict[str, Any]) -> str:
    """robust: no single input across its range changes the verdict, nor all of them at once;
    joint: only several inputs at their worst at once do; flips: one input alone does."""
    if rob["flips_on"]:
        return "flips"
    if rob.get("joint_flip", False) or not rob["holds"]:
        return "joint"
    return "robust"


def robust_words(state: str, flips_on: list[str]) -> str:
    if state == "flips":
        return "flips on " + ", ".join(range_label(n) for n in flips_on)
    return ROBUST_WORDS[state]


def _robustness(rob: dict[str, Any], verdict: str) -> dict[str, Any]:
    state = robust_state(rob)
    names = [range_label(n) for n in rob["flips_on"]]
    if state == "robust":
        first = ("Robust: no single input moved across its range changes the verdict, "
                 "and neither do all of them at their worst or best at once.")
    elif state == "joint":
        first = ("No single input moved across its range changes the verdict; "
                 "it changes only when several inputs are at their worst at once.")
    elif len(names) == 1:
        first = f"Flips on {names[0]}: moving it to one end of its range changes the verdict."
    else:
        first = f"Flips on {', '.join(names)}: moving any one of them to one end of its range changes the verdict."
    worst, best = rob["worst_case"]["verdict"], rob["best_case"]["verdict"]
    sentence = (f"{first} With every range at the end least favourable to Trainium the verdict is "
                f"{VERDICT_LABELS[worst]}; at the most favourable end it is {VERDICT_LABELS[best]}.")
    ends = [
        {
            "input": e["input"], "label": range_label(e["input"]), "end": e["end"],
            "value": e["value"], "value_text": range_value(e["input"], e["value"]),
            "verdict": e["verdict"], "verdict_label": VERDICT_LABELS[e["verdict"]],
            "difference": e["total_difference"], "difference_text": f.money(e["total_difference"]),
        }
        for e in rob["ends"]
    ]
    return {"state": state, "words": robust_words(state, rob["flips_on"]), "sentence": sentence, "ends": ends,
            "verdict_label": VERDICT_LABELS[verdict]}


def _beyond(n: float, x: dict[str, Any], o: dict[str, Any]) -> bool:
    """Whether n runs at the plan's pace take longer than the horizon data/ sets for a break-even."""
    pace, horizon = o.get("pace_hours"), x.get("horizon_hours")
    return pace is not None and horizon is not None and n * pace > horizon


def _not_within(x: dict[str, Any]) -> str:
    return f"not within {f.calendar(x['horizon_hours'])} at this pace"


def _at_pace(text: str, n: float, x: dict[str, Any], o: dict[str, Any]) -> str:
    """A count of runs (`text`, as it reads) with the calendar time the runs take at the plan's pace;
    past the horizon, that it is not within it instead of the count."""
    if _beyond(n, x, o):
        return _not_within(x)
    pace = o.get("pace_hours")
    if pace is None or n <= 1:
        return text
    return f"{text} ({f.calendar(n * pace)} at the plan's pace)"


def _thresholds(t: dict[str, Any], x: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    items = []
    # The break-even statement is told in the summary's break-even row, not as a value here.
    names = [n for n in THRESHOLD_LABELS if n in t] + [n for n in t if n not in THRESHOLD_LABELS and n != "break_even"]
    for name in names:
        v = t[name]
        if v is None:
            text = f.NO_CROSSING
        elif name == "runs":
            text = _at_pace(f.break_even(v), v, x, o)
        else:
            text = range_value(name, v)
        items.append({"key": f"threshold.{name}", "label": THRESHOLD_LABELS.get(name, _generic(name)), "value": v, "text": text})
    return {"intro": "Where both sides cost the same over the plan, other inputs held:", "parts": items}


def _lead(x: dict[str, Any], rob: dict[str, Any], t: dict[str, Any]) -> str | None:
    """When the verdict turns inside the relative-throughput range, the threshold says more than the verdict."""
    at = t.get("relative_throughput")
    if "relative_throughput" not in rob["flips_on"] or at is None:
        return None
    r = x["relative_throughput"]
    return (f"Trainium wins if it reaches at least {f.ratio(at)} the GPU's throughput. "
            f"This case puts it at {f.ratio(r['value'])}, within a range of {f.ratio(r['low'])} to {f.ratio(r['high'])}.")


def _on_spot(x: dict[str, Any], o: dict[str, Any], side: str) -> bool:
    """Whether a side's plan is bought on spot: another way chosen, or the named way kept."""
    plan = o[side]["plan_option"]
    return plan == "spot" or (plan == x.get(side + "_option", "") and bool(x[side + "_spot"]))


def _committed(o: dict[str, Any]) -> bool:
    """Whether either side's plan is bought on a commitment (whatever way it was named)."""
    return o["trainium"].get("term_hours") is not None or o["gpu"].get("term_hours") is not None


def _break_even_value(x: dict[str, Any], o: dict[str, Any], t: dict[str, Any]) -> float | None:
    """Runs at which Trainium starts to cost less: per run, or under a commitment the plan's crossing."""
    if o["break_even_runs"] is not None:
        return o["break_even_runs"]
    return t.get("runs") if _committed(o) else None


def _plan_lengths(b: dict[str, Any] | None, x: dict[str, Any], o: dict[str, Any]) -> str:
    """The break-even statement over plan lengths, when it says more than one number."""
    if not b:
        return ""
    if b["kind"] == "between":
        return f"; Trainium costs less only for plans of {f.runs(b['first'])} to {_at_pace(_plural(b['last'], 'run'), b['last'], x, o)}"
    if b["kind"] == "from" and b["first_for_good"] != b["first"]:
        if _beyond(b["first_for_good"], x, o):
            return f"; every longer plan costs less on Trainium only beyond {f.calendar(x['horizon_hours'])} at this pace"
        return f"; Trainium costs less for every plan of {_at_pace(_plural(b['first_for_good'], 'run'), b['first_for_good'], x, o)} or more"
    return ""


def _break_even(x: dict[str, Any], o: dict[str, Any], t: dict[str, Any]) -> str:
    be = o["break_even_runs"]
    if be is not None:
        if _beyond(be, x, o):
            return _not_within(x)
        if x.get("runs_per_architecture") is not None:
            return f"{_at_pace(f.break_even(be), be, x, o)}: Trainium costs less for every plan this long or longer"
        return _at_pace(f.break_even(be), be, x, o)
    if _committed(o):
        first = t.get("runs")
        if first is None:
            return f"{f.NO_CROSSING}: Trainium's plan never costs less, and a commitment is paid by the term"
        if _beyond(first, x, o):
            return _not_within(x)
        pace = o.get("pace_hours")
        when = f", {f.calendar(first * pace)} at its pace" if pace is not None and first > 1 else ""
        return (f"{f.runs(first)} (plan{when}): the first run at which Trainium's plan costs less; "
                "a commitment is paid by the term, so no single run repays the port" + _plan_lengths(t.get("break_even"), x, o))
    if o["saving_per_run"] > 0:
        needs = o["port_cost"] / o["saving_per_run"]
        repay = (f"takes longer than {f.calendar(x['horizon_hours'])} at this pace" if _beyond(needs, x, o)
                 else f"needs {_at_pace(f.runs(needs) + ' runs', needs, x, o)}")
        return f"never: one port {repay} to repay, and each architecture lasts {_plural(x['runs_per_architecture'], 'run')}"
    return f"{f.NO_CROSSING}: Trainium never saves per run"


def _price_notes(o: dict[str, Any]) -> list[dict[str, str]]:
    """When a side's price is one end of the range its sources give and cost decided, say so by the verdict."""
    decided = [s["rule"] for s in o["trace"] if s["verdict"]]
    if not decided or decided[-1] not in ("cost", "capacity"):
        return []
    notes = []
    for side in ("trainium", "gpu"):
        sd = o[side]
        basis = sd.get("price_basis")
        if basis not in ("low", "high"):
            continue
        favours = side if basis == "low" else ("gpu" if side == "trainium" else "trainium")
        notes.append({"side": side, "basis": basis, "text":
            f"The {VERDICT_LABELS[side]} price used, {f.hourly(sd['usd_per_hour'])}, is the "
            f"{'lowest' if basis == 'low' else 'highest'} figure the sources give ({f.hourly(sd['price_low'])} to "
            f"{f.hourly(sd['price_high'])}): the end most favourable to {VERDICT_LABELS[favours]}. "
            f"Both ends are evaluated under \"Does the verdict hold?\"."})
    return notes


def _price_marks(o: dict[str, Any], rob: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Beside a price that is one end of (or inside) the range its sources give: which end, and the
    verdict at the other end, from the robustness ends the engine evaluated."""
    marks = {}
    for side in ("trainium", "gpu"):
        sd = o[side]
        basis = sd.get("price_basis")
        if basis not in ("low", "high", "inside"):
            continue
        at = {e["end"]: VERDICT_LABELS[e["verdict"]] for e in rob["ends"] if e["input"] == f"{side}_price"}
        span = f"{f.hourly(sd['price_low'])} to {f.hourly(sd['price_high'])}"
        if basis == "inside":
            text = f"inside the sources' range, {span}"
            others = [f"at the {word} end: {at[end]}" for end, word in (("low", "low"), ("high", "high")) if end in at]
        else:
            text = f"the {'lowest' if basis == 'low' else 'highest'} of the sources' figures, {span}"
            other = "high" if basis == "low" else "low"
            others = [f"at the {other} end: {at[other]}"] if other in at else []
        marks[side] = {"basis": basis, "text": "; ".join([text, *others])}
    return marks


def _guess(x: dict[str, Any], t: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """What to say beside relative throughput, the input no public benchmark measures: where the
    verdict flips, when cost over the plan decides it."""
    at = t.get("relative_throughput")
    decided = [s for s in steps if s["decides"]]
    rule = decided[-1]["rule"] if decided else None
    if rule == "capacity" and at is not None:
        return {"flip": at, "text": f"Both sides cost the same at {f.ratio(at)}; near it, capacity and urgency decide the verdict."}
    if rule not in ("cost", "capacity"):
        label = decided[-1]["label"].lower() if decided else "the rules"
        return {"flip": None, "text": f"No value flips the verdict, which is decided by {label}, not by cost."}
    if at is None:
        return {"flip": None, "text": f"Where the verdict flips: {f.NO_CROSSING}; no value makes the two sides cost the same over the plan."}
    return {"flip": at, "text": f"The verdict flips at {f.ratio(at)}: above it Trainium costs less over the plan, below it the GPU."}


def _glance(o: dict[str, Any], steps: list[dict[str, Any]], words: str) -> dict[str, str]:
    """The answer in three lines, for the summary that stays in view while the reader edits; `why`
    is the deciding rule's own sentence, for a row of the scenarios index."""
    d = o["total_difference"]
    if d is None or not math.isfinite(d):
        saving = "A side that cannot run has no cost over the plan"
    elif d == 0:
        saving = "Both sides cost the same over the plan"
    else:
        saving = f"{'Trainium' if d > 0 else 'The GPU'} costs {f.money(abs(d))} less over the plan"
    decided = [s for s in steps if s["decides"]]
    if not decided:
        return {"saving": saving + ", ports included.", "reason": "", "why": ""}
    last = decided[-1]
    saving += ", ports included."
    if last["rule"] == "feasibility":
        # A side that cannot run has no cost worth setting against the other's.
        saving = {"neither": "Neither side can run", "trainium": "The GPU option cannot run",
                  "gpu": "Trainium cannot run"}.get(o["verdict"], "One side cannot run") + ", so cost is not compared."
    # Under cost the saving line already says why; under any other rule the rule's sentence does.
    detail = "" if last["rule"] == "cost" else f": {last['reason'].rstrip('.')}"
    return {"saving": saving, "reason": f"Decided by {last['label'].lower()}{detail}; {words}.", "why": last["reason"]}


def _summary(x: dict[str, Any], o: dict[str, Any], t: dict[str, Any]) -> dict[str, Any]:
    def pair(label: str, name: str, fmt) -> dict[str, Any]:
        return {"label": label, **{side: _cell(f"{side}.{name}", o[side][name], fmt(o[side][name])) for side in ("trainium", "gpu")}}

    n = x["runs"]
    sides = [
        pair("Instance-hours per run", "hours_per_run", lambda v: f.num(v, 1)),
        pair("Cost per run", "cost_per_run", f.money),
        pair("Wall-clock per run", "wall_clock_hours", f.hours),
    ]
    # A plan bought by the hour has no terms to report.
    if _committed(o):
        terms, used = {}, {}
        for side in ("trainium", "gpu"):
            sd = o[side]
            paid = sd.get("utilisation") is not None
            terms[side] = _cell(f"{side}.committed_terms", sd["committed_terms"],
                                f"{f.count(sd['committed_terms'])}, paid whether used or not" if paid else "none: paid by the hour used")
            used[side] = (_cell(f"{side}.utilisation", sd["utilisation"], f.pct(sd["utilisation"])) if paid
                          else _cell(None, None, "no commitment"))
        sides.append({"label": "Commitment terms bought", **terms})
        sides.append({"label": "Share of the reserved hours the plan uses", **used})
    if _on_spot(x, o, "trainium") or _on_spot(x, o, "gpu"):
        spot = {}
        for side in ("trainium", "gpu"):
            count = x[f"{side}_count"]
            spot[side] = _cell(f"{side}.spot_overhead", o[side]["spot_overhead"], (
                f"{f.pct(o[side]['spot_overhead'])}: {_plural(count, 'instance')} × {f.rate((x.get(side + '_interruption_rate') or x['interruption_rate'])['value'])} "
                f"interruptions an instance-hour ({_spot_basis(x, side)}) × {f.hours(x['lost_hours']['value'])} lost each") if _on_spot(x, o, side)
                else "none: not on spot")
        sides.append({"label": "Extra hours for spot interruptions", **spot})
    lead = ""
    if x.get("trainium_lead_days"):
        # Whether the port waits for capacity or runs beside it is an assumption the reader can change.
        lead = (" or the wait for capacity, whichever is longer (ported while waiting)" if x.get("port_during_lead")
                else " and the wait for capacity, one after the other")
    gpu_days, trn_days = o["gpu"]["ready_days"], o["trainium"]["ready_days"]
    # A team already on Neuron has no port to wait for.
    trn_text = ("at once" if not trn_days else f"in {f.days(trn_days)}, the wait for capacity" if not o["port_calendar_days"]
                else f"in {f.days(trn_days)}, after the port{lead}")
    sides.append({
        "label": "First run can start",
        "trainium": _cell("trainium.ready_days", trn_days, trn_text),
        "gpu": _cell("gpu.ready_days", gpu_days, f"in {f.days(gpu_days)}" if gpu_days else "at once"),
    })
    # Said wherever a plan is not simply the named way by the hour: a term, another way or region, blocks.
    if _committed(o) or any(o[side]["plan_option"] != x[side + "_option"] or o[side]["plan_region"] != x[side + "_region"]
                            or o[side]["plan_option"] == "capacity-block" for side in ("trainium", "gpu")):
        sides.append({"label": "How the plan is bought", **{
            side: _cell(f"{side}.plan_option", o[side]["plan_option"], plan_bought(x, o[side], side)) for side in ("trainium", "gpu")}})
    sides.append(pair(f"Total over {_plural(n, 'run')}", "total", f.money))
    # The verdict buys each side the cheapest way it accepts; a cheaper way it does not accept is advice.
    if any(o[side].get("options") for side in ("trainium", "gpu")):
        sides.append({"label": "Cheapest way to buy this plan's compute", **{
            side: _cell(f"{side}.cheaper_by", o[side]["cheaper_by"], _cheapest(x, o[side], side)) for side in ("trainium", "gpu")}})
    return {
        "sides": sides,
        "rows": [
            {"label": "Saving per run on Trainium",
             **_cell("saving_per_run", o["saving_per_run"], saving_text(o["saving_per_run"], o["saving_pct"]))},
            {"label": "Cost of one port", **_cell("port_cost", o["port_cost"], f.money(o["port_cost"]))},
            {"label": "Ports over the plan", **_cell("ports", o["ports"], f.count(o["ports"]))},
            {"label": "Break-even runs", **_cell("break_even_runs", _break_even_value(x, o, t), _break_even(x, o, t))},
            {"label": "GPU total minus Trainium total", **_cell("total_difference", o["total_difference"], f.money(o["total_difference"]))},
        ],
    }


def saving_text(saving: float, share: float | None) -> str:
    if share is None:
        return f"{f.money(saving)} (the GPU plan costs nothing more: its reservation is already paid)"
    return f"{f.money(saving)} ({f.pct(share)} of the GPU plan's cost)"


def _spot_basis(x: dict[str, Any], side: str) -> str:
    """Where a side's interruption rate comes from: its pool's rating, or the guide's own default."""
    return "the Spot Instance Advisor's band for this pool" if x.get(side + "_interruption_rate") else "the guide's default"


def _option(option: str) -> str:
    return OPTION_WORDS.get(option, option)


def _cheapest(x: dict[str, Any], sd: dict[str, Any], side: str) -> str:
    """The cheapest way to buy one side's compute against the named way; a region is named only when
    the cheaper way is in another region than the named one."""
    planned = _option(sd["plan_option"])
    here, there = sd.get("plan_region") or "", sd.get("cheapest_region") or ""
    if not sd["feasible"]:
        if sd["compute_total"] is None and sd.get("options"):
            # No way the side accepts can run the plan; one it does not accept can.
            cost = min(c for _, c, _ in sd["options"])
            return f"not accepted, but {_option(sd['cheapest_option'])} in {there} could run it for {f.money(cost)}"
        return "not compared: this side cannot run"  # ways to buy matter only to a side that can run
    if not sd["cheaper_by"] > 0:
        return f"{planned}, as named" if sd["plan_option"] == x[side + "_option"] else f"{planned}, the cheapest way accepted"
    against = planned
    if sd["plan_option"] in TERM_WORDS and sd["hourly_hours"] and not (sd["committed_terms"] or x[side + "_held_hours"]):
        against = _option(sd["hourly_option"])  # a plan that buys no term pays what it buys by the hour
    gain = f"{f.money(sd['cheaper_by'])} less than {against}"
    if there and there != here:
        return f"{_option(sd['cheapest_option'])} in {there}, {gain} in {here}, if the team would buy it so"
    return f"{_option(sd['cheapest_option'])}, {gain}, if the team would buy it so"


def _chart(x: dict[str, Any], o: dict[str, Any], curve: dict[str, Any], prices: dict[str, Any]) -> dict[str, Any]:
    rows = []
    for p in curve["rows"]:
        rows.append({"runs": p["runs"], "side": "GPU", "cost": p["gpu"]})
        rows.append({"runs": p["runs"], "side": "Trainium", "cost": p["trainium"]})
    horizon = curve["rows"][-1]["runs"] if curve["rows"] else x["runs"]

    # Labels sit on two rows so they stay readable when the plan and the break-even are close, and
    # turn to the left of their line near the right edge so they never run into the legend.
    def mark(runs: float, label: str, row: int) -> dict[str, Any]:
        return {"runs": runs, "label": label, "row": row, "end": "right" if runs > 0.6 * horizon else "left"}

    marks = [mark(x["runs"], f"plan: {_plural(x['runs'], 'run')}", 10)]
    crossing = curve["crossing"]
    if crossing is not None:
        marks.append(mark(crossing, f"break-even: {f.FIRST_RUN if crossing <= 1 else _plural(crossing, 'run')}", 26))
    as_of = max(f.date(prices["trainium"]["as_of"]), f.date(prices["gpu"]["as_of"]))
    source = source_line(prices)
    ports = o["ports"]
    be = ("never breaks even" if crossing is None else "pays the port back in the first run" if crossing <= 1
          else f"breaks even after {_plural(crossing, 'run')}")
    summary = (f"Over {_plural(x['runs'], 'run')} the GPU side costs {f.money(o['gpu']['total'])} and the Trainium side "
               f"{f.money(o['trainium']['total'])}, including {_plural(ports, 'port')} at {f.money(o['port_cost'])}"
               f"{'' if ports == 1 else ' each'}. Trainium {be}.")
    return {
        "rows": rows, "marks": marks, "source": source, "as_of": as_of,
        "subtitle": f"Source: {source}. Figures as of {as_of}.",
        "interp": "step-after" if x.get("runs_per_architecture") or _committed(o) else "linear",
        "summary": summary,
    }


def source_line(prices: dict[str, Any]) -> str:
    """Where a workload's two prices come from, each source by its name and date (a chart copied
    into a post has no sources page to decode a key on), each once."""
    named: list[str] = []
    for side in ("trainium", "gpu"):
        p = prices[side]
        text = f"{p.get('name') or p['source']} ({f.date(p['as_of'])})"
        if text not in named:
            named.append(text)
    return "prices from " + " and ".join(named)


def present(result: dict[str, Any], curve: dict[str, Any], prices: dict[str, Any]) -> dict[str, Any]:
    """Everything a reader is told about one evaluated workload, as plain data."""
    x, o, rob, t = result["inputs"], worded(result["outcome"]), result["robustness"], result["thresholds"]
    verdict = o["verdict"]
    robustness = _robustness(rob, verdict)
    steps = [_step(s, x["runs"]) for s in o["trace"]]
    return {
        "verdict": verdict,
        "verdict_label": VERDICT_LABELS[verdict],
        "lead": _lead(x, rob, t),
        "live": f"Verdict: {VERDICT_LABELS[verdict]}, {robustness['words']}.",
        "trace": steps,
        "glance": _glance(o, steps, robustness["words"]),
        "guess": _guess(x, t, steps),
        "summary": _summary(x, o, t),
        "price_notes": _price_notes(o),
        "price_marks": _price_marks(o, rob),
        "robustness": robustness,
        "thresholds": _thresholds(t, x, o),
        "chart": _chart(x, o, curve, prices),
    }


# --- From the Python side's objects ----------------------------------------------------------------

def price_refs(w: Any, names: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    """The source and date of the price each side of a `WorkloadResult` was resolved at, with the
    source's name (`Source.name`, by key in `names`) where the caller has the catalog."""
    return {side: {"source": p.source, "as_of": p.as_of.isoformat(), "name": (names or {}).get(p.source, p.source)}
            for side, p in w.prices.items()}


def scenario_state(states: list[str]) -> str:
    """A scenario is as fragile as its most fragile workload."""
    return "flips" if "flips" in states else "joint" if "joint" in states else "robust"


def scenario_row(r: Any, shown: list[dict[str, Any]]) -> dict[str, Any]:
    """What the scenarios index says about a whole scenario, from its workloads' `present` output."""
    states = [p["robustness"]["state"] for p in shown]
    flips: list[str] = []
    for w in r.workloads:
        for name in w.robustness.flips_on:
            if name not in flips:
                flips.append(name)
    state = scenario_state(states)
    saving = r.saving_per_run
    be_cells = [next(c for c in p["summary"]["rows"] if c["key"] == "break_even_runs") for p in shown]
    be_texts = [c["text"] for c in be_cells]
    # Why, in the row itself: a GPU verdict beside a large Trainium saving needs its reason there.
    reasons = [p["glance"]["why"] for p in shown]
    if len(shown) > 1:
        reasons = [f"{w.workload.name}: {why}" for w, why in zip(r.workloads, reasons, strict=True)]
    return {
        "reason": " ".join(dict.fromkeys(reasons)),
        "state": state,
        "words": robust_words(state, flips),
        "saving": saving,
        "saving_text": f.money(saving),
        # The index has room for the word only; the scenario page says why.
        "break_even": [text.split(":")[0] for text in be_texts],
        # Sorted as the reader sees them: "none" and "never" after every count.
        "break_even_sort": min((c["value"] for c in be_cells if c["value"] is not None), default=1e18),
    }

