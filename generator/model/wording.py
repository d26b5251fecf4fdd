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

# Every sentence with figures in it, as one template each: `{name}` is filled with a figure or phrase
# already formatted. The calculator fills the same templates (`tables`, shipped in its data), so
# wording.mjs holds the logic of what is said and none of the words.
TEMPLATES = {
    # Why a side cannot run, and what each step of the decision found.
    "ruled_out": "a hard constraint rules it out ({names})",
    "not_offered": "it is not offered in any region the workload may use ({regions})",
    "blocks_cannot_hold": "Capacity Blocks hold at most {count} instances across an organisation's blocks, fewer than it runs at once",
    "neither_can_run": "Neither side can run. Trainium: {trainium}. The GPU option: {gpu}.",
    "cannot_run": "{side} cannot run: {reasons}.",
    "neither_on_time": "Neither side can start by the deadline; {soonest}",
    "step_cost": " GPU {gpu} against Trainium {trainium} ({ports} at {port_cost} plus {runs}).",
    "step_capacity": " The other side's plan costs {ratio} as much; the margin is {margin}.",
    "step_deadline": " Needed within {needed}; Trainium can start in {trainium}, the GPU in {gpu}.",
    "step_late": " Trainium {trainium} late, the GPU {gpu} late.",
    "decides": "Decides: {verdict}.",
    "withdrawn": "no longer listed by AWS since {date}",
    # How a plan is bought.
    "by_the_hour": "by the hour {way}{where}{whole}",
    "whole_days": ", each run booked as whole days",
    "in_region": " in {region}",
    "no_term": "no {term}: the whole plan {way}{where}",
    "held_hours": "the {count} hours still held",
    "last_hours": "the plan's last {count} hours {way}",
    "then": ", then ",
    "nothing_to_buy": "nothing more to buy",
    # Units beside a ranged input's value.
    "engineer_week": "{weeks} engineer-week",
    "engineer_weeks": "{weeks} engineer-weeks",
    "per_instance_hour": "{rate} per instance-hour",
    "engineer": "{count} engineer",
    "engineers": "{count} engineers",
    # Whether the verdict holds.
    "flips_on": "flips on {names}",
    "robust": "Robust: no single input moved across its range changes the verdict, and neither do all of them at their worst or best at once.",
    "joint": "No single input moved across its range changes the verdict; it changes only when several inputs are at their worst at once.",
    "flips_on_one": "Flips on {name}: moving it to one end of its range changes the verdict.",
    "flips_on_many": "Flips on {names}: moving any one of them to one end of its range changes the verdict.",
    "robustness": "{first} With every range at the end least favourable to Trainium the verdict is {worst}; at the most favourable end it is {best}.",
    # Break-even, thresholds and the lead.
    "not_within": "not within {time} at this pace",
    "at_pace": "{runs} ({time} at the plan's pace)",
    "thresholds": "Where both sides cost the same over the plan, other inputs held:",
    "lead": "Trainium wins if it reaches at least {at} the GPU's throughput. This case puts it at {value}, within a range of {low} to {high}.",
    "only_between": "; Trainium costs less only for plans of {first} to {last}",
    "longer_beyond": "; every longer plan costs less on Trainium only beyond {time} at this pace",
    "every_longer": "; Trainium costs less for every plan of {first} or more",
    "recurring_break_even": "{runs}: Trainium costs less for every plan this long or longer",
    "committed_never": "{none}: Trainium's plan never costs less, and a commitment is paid by the term",
    "committed_pace": ", {time} at its pace",
    "committed_first": "{first} (plan{when}): the first run at which Trainium's plan costs less; a commitment is paid by the term, so no single run repays the port{lengths}",
    "repay_beyond": "takes longer than {time} at this pace",
    "repay_needs": "needs {runs}",
    "runs": "{count} runs",
    "never_repaid": "never: one port {repay} to repay, and each architecture lasts {runs}",
    "never_saves": "{none}: Trainium never saves per run",
    # A price at one end of its sources' range.
    "price_note": "The {side} price used, {price}, is the {end} figure the sources give ({low} to {high}): the end most favourable to {favours}. Both ends are evaluated under \"{holds}\".",
    "span": "{low} to {high}",
    "inside_range": "inside the sources' range, {span}",
    "end_of_range": "the {end} of the sources' figures, {span}",
    "at_end": "at the {end} end: {verdict}",
    # Beside relative throughput.
    "guess_capacity": "Both sides cost the same at {at}; near it, capacity and urgency decide the verdict.",
    "guess_not_cost": "No value flips the verdict, which is decided by {label}, not by cost.",
    "guess_rules": "the rules",
    "guess_no_crossing": "Where the verdict flips: {none}; no value makes the two sides cost the same over the plan.",
    "guess_flip": "The verdict flips at {at}: above it Trainium costs less over the plan, below it the GPU.",
    # The answer at a glance.
    "glance_no_cost": "A side that cannot run has no cost over the plan",
    "glance_same": "Both sides cost the same over the plan",
    "glance_less": "{side} costs {amount} less over the plan",
    "ports_included": ", ports included.",
    "not_compared": ", so cost is not compared.",
    "decided_by": "Decided by {rule}{detail}; {words}.",
    "detail": ": {reason}",
    "live": "Verdict: {verdict}, {words}.",
    # The summary table's cells.
    "terms_paid": "{count}, paid whether used or not",
    "terms_none": "none: paid by the hour used",
    "no_commitment": "no commitment",
    "spot_overhead": "{share}: {instances} × {rate} interruptions an instance-hour ({basis}) × {hours} lost each",
    "not_on_spot": "none: not on spot",
    "spot_pool": "the Spot Instance Advisor's band for this pool",
    "spot_default": "the guide's default",
    "lead_overlap": " or the wait for capacity, whichever is longer (ported while waiting)",
    "lead_serial": " and the wait for capacity, one after the other",
    "at_once": "at once",
    "in_days": "in {days}",
    "waiting_capacity": "in {days}, the wait for capacity",
    "after_port": "in {days}, after the port{lead}",
    "total_over": "Total over {runs}",
    "saving_paid": "{saving} (the GPU plan costs nothing more: its reservation is already paid)",
    "saving_share": "{saving} ({share} of the GPU plan's cost)",
    "not_accepted": "not accepted, but {way} in {region} could run it for {cost}",
    "cannot_compare": "not compared: this side cannot run",
    "as_named": "{way}, as named",
    "cheapest_accepted": "{way}, the cheapest way accepted",
    "less_than": "{amount} less than {way}",
    "cheaper_elsewhere": "{way} in {there}, {gain} in {here}, if the team would buy it so",
    "cheaper_here": "{way}, {gain}, if the team would buy it so",
    # The chart.
    "plan_mark": "plan: {runs}",
    "break_even_mark": "break-even: {runs}",
    "never_breaks_even": "never breaks even",
    "first_run_repays": "pays the port back in the first run",
    "breaks_even_after": "breaks even after {runs}",
    "chart_summary": "Over {runs} the GPU side costs {gpu} and the Trainium side {trainium}, including {ports} at {port_cost}{each}. Trainium {be}.",
    "each": " each",
    "subtitle": "Source: {source}. Figures as of {as_of}.",
    "source": "{name} ({date})",
    "prices_from": "prices from {sources}",
    "and": " and ",
}
# The summary table's row labels.
SUMMARY_LABELS = {
    "hours_per_run": "Instance-hours per run",
    "cost_per_run": "Cost per run",
    "wall_clock_hours": "Wall-clock per run",
    "committed_terms": "Commitment terms bought",
    "utilisation": "Share of the reserved hours the plan uses",
    "spot_overhead": "Extra hours for spot interruptions",
    "ready_days": "First run can start",
    "plan_option": "How the plan is bought",
    "cheaper_by": "Cheapest way to buy this plan's compute",
    "saving_per_run": "Saving per run on Trainium",
    "port_cost": "Cost of one port",
    "ports": "Ports over the plan",
    "break_even_runs": "Break-even runs",
    "total_difference": "GPU total minus Trainium total",
}
# The glance's subject for the side that costs less, and what it says when a side cannot run.
CHEAPER_SIDE = {"trainium": "Trainium", "gpu": "The GPU"}
CANNOT_RUN = {"neither": "Neither side can run", "trainium": "The GPU option cannot run", "gpu": "Trainium cannot run",
              "other": "One side cannot run"}
END_WORDS = {"low": "lowest", "high": "highest"}


def _say(key: str, **values: str) -> str:
    return TEMPLATES[key].format(**values)


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
    return _say("ruled_out", names=", ".join(constraints))


def not_offered_in(regions: tuple[str, ...]) -> str:
    return _say("not_offered", regions=", ".join(regions))


def blocks_cannot_hold(across: float) -> str:
    return _say("blocks_cannot_hold", count=f.count(across))


# How a plan's parts are bought, as a buyer says it.
TERM_WORDS = {"commit-1y": "1-year term", "commit-3y": "3-year term"}
HOURLY_WORDS = {"on-demand": "on demand", "capacity-block": "on Capacity Blocks", "spot": "on spot"}
SMALL_COUNTS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _terms(n: int, option: str) -> str:
    return f"{SMALL_COUNTS.get(n) or f.count(n)} {TERM_WORDS[option]}{'' if n == 1 else 's'}"


def plan_bought(x: dict[str, Any], sd: dict[str, Any], side: str) -> str:
    """How one side's plan is bought: held hours first, whole terms, then what is bought by the hour."""
    option, region = sd["plan_option"], sd["plan_region"]
    where = _say("in_region", region=region) if region and region != x.get(side + "_region") else ""
    if option not in TERM_WORDS:
        whole = TEMPLATES["whole_days"] if option == "capacity-block" and x.get("block_limits") else ""
        return _say("by_the_hour", way=HOURLY_WORDS.get(option, option), where=where, whole=whole)
    held, terms, hourly = x[side + "_held_hours"], sd["committed_terms"], sd["hourly_hours"]
    by_hour = HOURLY_WORDS.get(sd["hourly_option"], sd["hourly_option"])
    if hourly and not (held or terms):
        return _say("no_term", term=TERM_WORDS[option], way=by_hour, where=where)
    parts = []
    if held:
        parts.append(_say("held_hours", count=f.count(held)))
    if terms:
        parts.append(_terms(terms, option))
    if hourly:
        parts.append(_say("last_hours", count=f.count(hourly), way=by_hour))
    return (TEMPLATES["then"].join(parts) or TEMPLATES["nothing_to_buy"]) + where


def withdrawn(day: Any) -> str:
    """A figure AWS's APIs stopped listing, as every page and report says it."""
    return _say("withdrawn", date=f.date(day))


def neither_can_run(trainium_reasons: str, gpu_reasons: str) -> str:
    return _say("neither_can_run", trainium=trainium_reasons, gpu=gpu_reasons)


def cannot_run(side: str, reasons: str) -> str:
    return _say("cannot_run", side=SIDE_LABELS[side], reasons=reasons)


def neither_on_time(soonest: str) -> str:
    return _say("neither_on_time", soonest=SOONEST[soonest])


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
# The answer's headings and column names, on a scenario page (generator/templates/scenario.md.j2) and
# in the calculator alike (tests/test_browser.py reads the columns by these names).
ANSWER_LABELS = {
    "verdict": "Verdict:",
    "figure": "Figure",
    "trainium": VERDICT_LABELS["trainium"],
    "gpu": VERDICT_LABELS["gpu"],
    "holds": "Does the verdict hold?",
    "input": "Input",
    "end": "End",
    "value": "Value",
    "verdict_column": "Verdict",
    "difference": SUMMARY_LABELS["total_difference"],
    # Beside every verdict: what it does not count (the methodology lists it all).
    "leaves_out": "Not counted: moving and storing data, keeping both a CUDA and a Neuron version working, "
                  "serving the trained model.",
    "leaves_out_more": "All that is left out",
}
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
        return f.NONE if v is None else _say("engineer_week" if v == 1 else "engineer_weeks", weeks=f.weeks(v))
    if name in ("trainium_price", "gpu_price"):
        return f.hourly(v)
    if v is None:
        return f.NONE
    if name in ("interruption_rate", "trainium_interruption_rate", "gpu_interruption_rate"):
        return _say("per_instance_hour", rate=f.rate(v))
    if name == "lost_hours":
        return f.hours(v)
    if name == "port_engineers":
        return _say("engineer" if v == 1 else "engineers", count=f.weeks(v))
    return f.num(v, 2)


def _cell(key: str | None, value: Any, text: str) -> dict[str, Any]:
    return {"key": key, "value": value, "text": text}


def _step(s: dict[str, Any], runs: int) -> dict[str, Any]:
    n = s.get("numbers") or {}
    text = s["text"]
    if s["rule"] == "cost" and "gpu_total" in n:
        plan_runs = n.get("runs", runs)
        text += _say("step_cost", gpu=f.money(n["gpu_total"]), trainium=f.money(n["trainium_total"]),
                     ports=_plural(n["ports"], "port"), port_cost=f.money(n["port_cost"]), runs=_plural(plan_runs, "run"))
    elif s["rule"] == "capacity" and s["verdict"] and "ratio" in n:
        text += _say("step_capacity", ratio=f.ratio(n["ratio"]), margin=f.pct(n["margin"]))
    elif s["rule"] == "deadline" and "trainium_ready_days" in n:
        text += _say("step_deadline", needed=f.days(n["needed_within_days"]), trainium=f.days(n["trainium_ready_days"]),
                     gpu=f.days(n["gpu_ready_days"]))
        if n.get("trainium_late_days") and n.get("gpu_late_days"):
            text += _say("step_late", trainium=f.days(n["trainium_late_days"]), gpu=f.days(n["gpu_late_days"]))
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
        "decides_text": _say("decides", verdict=VERDICT_LABELS[decides]) if decides else "",
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
        return _say("flips_on", names=", ".join(range_label(n) for n in flips_on))
    return ROBUST_WORDS[state]


def _robustness(rob: dict[str, Any], verdict: str) -> dict[str, Any]:
    state = robust_state(rob)
    names = [range_label(n) for n in rob["flips_on"]]
    if state in ("robust", "joint"):
        first = TEMPLATES[state]
    elif len(names) == 1:
        first = _say("flips_on_one", name=names[0])
    else:
        first = _say("flips_on_many", names=", ".join(names))
    worst, best = rob["worst_case"]["verdict"], rob["best_case"]["verdict"]
    sentence = _say("robustness", first=first, worst=VERDICT_LABELS[worst], best=VERDICT_LABELS[best])
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
    return _say("not_within", time=f.calendar(x["horizon_hours"]))


def _at_pace(text: str, n: float, x: dict[str, Any], o: dict[str, Any]) -> str:
    """A count of runs (`text`, as it reads) with the calendar time the runs take at the plan's pace;
    past the horizon, that it is not within it instead of the count."""
    if _beyond(n, x, o):
        return _not_within(x)
    pace = o.get("pace_hours")
    if pace is None or n <= 1:
        return text
    return _say("at_pace", runs=text, time=f.calendar(n * pace))


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
    return {"intro": TEMPLATES["thresholds"], "parts": items}


def _lead(x: dict[str, Any], rob: dict[str, Any], t: dict[str, Any]) -> str | None:
    """When the verdict turns inside the relative-throughput range, the threshold says more than the verdict."""
    at = t.get("relative_throughput")
    if "relative_throughput" not in rob["flips_on"] or at is None:
        return None
    r = x["relative_throughput"]
    return _say("lead", at=f.ratio(at), value=f.ratio(r["value"]), low=f.ratio(r["low"]), high=f.ratio(r["high"]))


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
        return _say("only_between", first=f.runs(b["first"]), last=_at_pace(_plural(b["last"], "run"), b["last"], x, o))
    if b["kind"] == "from" and b["first_for_good"] != b["first"]:
        if _beyond(b["first_for_good"], x, o):
            return _say("longer_beyond", time=f.calendar(x["horizon_hours"]))
        return _say("every_longer", first=_at_pace(_plural(b["first_for_good"], "run"), b["first_for_good"], x, o))
    return ""


def _break_even(x: dict[str, Any], o: dict[str, Any], t: dict[str, Any]) -> str:
    be = o["break_even_runs"]
    if be is not None:
        if _beyond(be, x, o):
            return _not_within(x)
        if x.get("runs_per_architecture") is not None:
            return _say("recurring_break_even", runs=_at_pace(f.break_even(be), be, x, o))
        return _at_pace(f.break_even(be), be, x, o)
    if _committed(o):
        first = t.get("runs")
        if first is None:
            return _say("committed_never", none=f.NO_CROSSING)
        if _beyond(first, x, o):
            return _not_within(x)
        pace = o.get("pace_hours")
        when = _say("committed_pace", time=f.calendar(first * pace)) if pace is not None and first > 1 else ""
        return _say("committed_first", first=f.runs(first), when=when, lengths=_plan_lengths(t.get("break_even"), x, o))
    if o["saving_per_run"] > 0:
        needs = o["port_cost"] / o["saving_per_run"]
        repay = (_say("repay_beyond", time=f.calendar(x["horizon_hours"])) if _beyond(needs, x, o)
                 else _say("repay_needs", runs=_at_pace(_say("runs", count=f.runs(needs)), needs, x, o)))
        return _say("never_repaid", repay=repay, runs=_plural(x["runs_per_architecture"], "run"))
    return _say("never_saves", none=f.NO_CROSSING)


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
        notes.append({"side": side, "basis": basis, "text": _say(
            "price_note", side=VERDICT_LABELS[side], price=f.hourly(sd["usd_per_hour"]), end=END_WORDS[basis],
            low=f.hourly(sd["price_low"]), high=f.hourly(sd["price_high"]), favours=VERDICT_LABELS[favours],
            holds=ANSWER_LABELS["holds"])})
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
        span = _say("span", low=f.hourly(sd["price_low"]), high=f.hourly(sd["price_high"]))
        if basis == "inside":
            text = _say("inside_range", span=span)
            others = [_say("at_end", end=end, verdict=at[end]) for end in ("low", "high") if end in at]
        else:
            text = _say("end_of_range", end=END_WORDS[basis], span=span)
            other = "high" if basis == "low" else "low"
            others = [_say("at_end", end=other, verdict=at[other])] if other in at else []
        marks[side] = {"basis": basis, "text": "; ".join([text, *others])}
    return marks


def _guess(x: dict[str, Any], t: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """What to say beside relative throughput, the input no public benchmark measures: where the
    verdict flips, when cost over the plan decides it."""
    at = t.get("relative_throughput")
    decided = [s for s in steps if s["decides"]]
    rule = decided[-1]["rule"] if decided else None
    if rule == "capacity" and at is not None:
        return {"flip": at, "text": _say("guess_capacity", at=f.ratio(at))}
    if rule not in ("cost", "capacity"):
        label = decided[-1]["label"].lower() if decided else TEMPLATES["guess_rules"]
        return {"flip": None, "text": _say("guess_not_cost", label=label)}
    if at is None:
        return {"flip": None, "text": _say("guess_no_crossing", none=f.NO_CROSSING)}
    return {"flip": at, "text": _say("guess_flip", at=f.ratio(at))}


def _glance(o: dict[str, Any], steps: list[dict[str, Any]], words: str) -> dict[str, str]:
    """The answer in three lines, for the summary that stays in view while the reader edits; `why`
    is the deciding rule's own sentence, for a row of the scenarios index."""
    d = o["total_difference"]
    if d is None or not math.isfinite(d):
        saving = TEMPLATES["glance_no_cost"]
    elif d == 0:
        saving = TEMPLATES["glance_same"]
    else:
        saving = _say("glance_less", side=CHEAPER_SIDE["trainium" if d > 0 else "gpu"], amount=f.money(abs(d)))
    decided = [s for s in steps if s["decides"]]
    if not decided:
        return {"saving": saving + TEMPLATES["ports_included"], "reason": "", "why": ""}
    last = decided[-1]
    saving += TEMPLATES["ports_included"]
    if last["rule"] == "feasibility":
        # A side that cannot run has no cost worth setting against the other's.
        saving = CANNOT_RUN.get(o["verdict"], CANNOT_RUN["other"]) + TEMPLATES["not_compared"]
    # Under cost the saving line already says why; under any other rule the rule's sentence does.
    detail = "" if last["rule"] == "cost" else _say("detail", reason=last["reason"].rstrip("."))
    return {"saving": saving, "reason": _say("decided_by", rule=last["label"].lower(), detail=detail, words=words),
            "why": last["reason"]}


def _summary(x: dict[str, Any], o: dict[str, Any], t: dict[str, Any]) -> dict[str, Any]:
    def pair(label: str, name: str, fmt) -> dict[str, Any]:
        return {"label": label, **{side: _cell(f"{side}.{name}", o[side][name], fmt(o[side][name])) for side in ("trainium", "gpu")}}

    n = x["runs"]
    L = SUMMARY_LABELS
    sides = [
        pair(L["hours_per_run"], "hours_per_run", lambda v: f.num(v, 1)),
        pair(L["cost_per_run"], "cost_per_run", f.money),
        pair(L["wall_clock_hours"], "wall_clock_hours", f.hours),
    ]
    # A plan bought by the hour has no terms to report.
    if _committed(o):
        terms, used = {}, {}
        for side in ("trainium", "gpu"):
            sd = o[side]
            paid = sd.get("utilisation") is not None
            terms[side] = _cell(f"{side}.committed_terms", sd["committed_terms"],
                                _say("terms_paid", count=f.count(sd["committed_terms"])) if paid else TEMPLATES["terms_none"])
            used[side] = (_cell(f"{side}.utilisation", sd["utilisation"], f.pct(sd["utilisation"])) if paid
                          else _cell(None, None, TEMPLATES["no_commitment"]))
        sides.append({"label": L["committed_terms"], **terms})
        sides.append({"label": L["utilisation"], **used})
    if _on_spot(x, o, "trainium") or _on_spot(x, o, "gpu"):
        spot = {}
        for side in ("trainium", "gpu"):
            count = x[f"{side}_count"]
            spot[side] = _cell(f"{side}.spot_overhead", o[side]["spot_overhead"], _say(
                "spot_overhead", share=f.pct(o[side]["spot_overhead"]), instances=_plural(count, "instance"),
                rate=f.rate((x.get(side + "_interruption_rate") or x["interruption_rate"])["value"]),
                basis=_spot_basis(x, side), hours=f.hours(x["lost_hours"]["value"])) if _on_spot(x, o, side)
                else TEMPLATES["not_on_spot"])
        sides.append({"label": L["spot_overhead"], **spot})
    lead = ""
    if x.get("trainium_lead_days"):
        # Whether the port waits for capacity or runs beside it is an assumption the reader can change.
        lead = TEMPLATES["lead_overlap" if x.get("port_during_lead") else "lead_serial"]
    gpu_days, trn_days = o["gpu"]["ready_days"], o["trainium"]["ready_days"]
    # A team already on Neuron has no port to wait for.
    trn_text = (TEMPLATES["at_once"] if not trn_days else _say("waiting_capacity", days=f.days(trn_days)) if not o["port_calendar_days"]
                else _say("after_port", days=f.days(trn_days), lead=lead))
    sides.append({
        "label": L["ready_days"],
        "trainium": _cell("trainium.ready_days", trn_days, trn_text),
        "gpu": _cell("gpu.ready_days", gpu_days, _say("in_days", days=f.days(gpu_days)) if gpu_days else TEMPLATES["at_once"]),
    })
    # Said wherever a plan is not simply the named way by the hour: a term, another way or region, blocks.
    if _committed(o) or any(o[side]["plan_option"] != x[side + "_option"] or o[side]["plan_region"] != x[side + "_region"]
                            or o[side]["plan_option"] == "capacity-block" for side in ("trainium", "gpu")):
        sides.append({"label": L["plan_option"], **{
            side: _cell(f"{side}.plan_option", o[side]["plan_option"], plan_bought(x, o[side], side)) for side in ("trainium", "gpu")}})
    sides.append(pair(_say("total_over", runs=_plural(n, "run")), "total", f.money))
    # The verdict buys each side the cheapest way it accepts; a cheaper way it does not accept is advice.
    if any(o[side].get("options") for side in ("trainium", "gpu")):
        sides.append({"label": L["cheaper_by"], **{
            side: _cell(f"{side}.cheaper_by", o[side]["cheaper_by"], _cheapest(x, o[side], side)) for side in ("trainium", "gpu")}})
    return {
        "sides": sides,
        "rows": [
            {"label": L["saving_per_run"],
             **_cell("saving_per_run", o["saving_per_run"], saving_text(o["saving_per_run"], o["saving_pct"], o))},
            {"label": L["port_cost"], **_cell("port_cost", o["port_cost"], f.money(o["port_cost"]))},
            {"label": L["ports"], **_cell("ports", o["ports"], f.count(o["ports"]))},
            {"label": L["break_even_runs"], **_cell("break_even_runs", _break_even_value(x, o, t), _break_even(x, o, t))},
            {"label": L["total_difference"], **_cell("total_difference", o["total_difference"], f.money(o["total_difference"]))},
        ],
    }


def _side_that_cannot_run(o: dict[str, Any]) -> str | None:
    """Which side cannot run, in words ("Trainium cannot run"), or None when both can."""
    trn, gpu = o["trainium"]["feasible"], o["gpu"]["feasible"]
    if trn and gpu:
        return None
    return CANNOT_RUN["neither" if not (trn or gpu) else "gpu" if not trn else "trainium"]


def saving_text(saving: float, share: float | None, o: dict[str, Any]) -> str:
    # A saving per run on a side that cannot run is no saving a buyer can have.
    cannot = _side_that_cannot_run(o)
    if cannot is not None:
        return cannot + TEMPLATES["not_compared"]
    if share is None:
        return _say("saving_paid", saving=f.money(saving))
    return _say("saving_share", saving=f.money(saving), share=f.pct(share))


def _spot_basis(x: dict[str, Any], side: str) -> str:
    """Where a side's interruption rate comes from: its pool's rating, or the guide's own default."""
    return TEMPLATES["spot_pool" if x.get(side + "_interruption_rate") else "spot_default"]


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
            return _say("not_accepted", way=_option(sd["cheapest_option"]), region=there, cost=f.money(cost))
        return TEMPLATES["cannot_compare"]  # ways to buy matter only to a side that can run
    if not sd["cheaper_by"] > 0:
        return _say("as_named" if sd["plan_option"] == x[side + "_option"] else "cheapest_accepted", way=planned)
    against = planned
    if sd["plan_option"] in TERM_WORDS and sd["hourly_hours"] and not (sd["committed_terms"] or x[side + "_held_hours"]):
        against = _option(sd["hourly_option"])  # a plan that buys no term pays what it buys by the hour
    gain = _say("less_than", amount=f.money(sd["cheaper_by"]), way=against)
    if there and there != here:
        return _say("cheaper_elsewhere", way=_option(sd["cheapest_option"]), there=there, gain=gain, here=here)
    return _say("cheaper_here", way=_option(sd["cheapest_option"]), gain=gain)


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

    marks = [mark(x["runs"], _say("plan_mark", runs=_plural(x["runs"], "run")), 10)]
    crossing = curve["crossing"]
    if crossing is not None:
        marks.append(mark(crossing, _say("break_even_mark", runs=f.FIRST_RUN if crossing <= 1 else _plural(crossing, "run")), 26))
    as_of = max(f.date(prices["trainium"]["as_of"]), f.date(prices["gpu"]["as_of"]))
    source = source_line(prices)
    ports = o["ports"]
    be = (TEMPLATES["never_breaks_even"] if crossing is None else TEMPLATES["first_run_repays"] if crossing <= 1
          else _say("breaks_even_after", runs=_plural(crossing, "run")))
    summary = _say("chart_summary", runs=_plural(x["runs"], "run"), gpu=f.money(o["gpu"]["total"]),
                   trainium=f.money(o["trainium"]["total"]), ports=_plural(ports, "port"), port_cost=f.money(o["port_cost"]),
                   each="" if ports == 1 else TEMPLATES["each"], be=be)
    return {
        "rows": rows, "marks": marks, "source": source, "as_of": as_of,
        "subtitle": _say("subtitle", source=source, as_of=as_of),
        "interp": "step-after" if x.get("runs_per_architecture") or _committed(o) else "linear",
        "summary": summary,
    }


def source_line(prices: dict[str, Any]) -> str:
    """Where a workload's two prices come from, each source by its name and date (a chart copied
    into a post has no sources page to decode a key on), each once."""
    named: list[str] = []
    for side in ("trainium", "gpu"):
        p = prices[side]
        text = _say("source", name=p.get("name") or p["source"], date=f.date(p["as_of"]))
        if text not in named:
            named.append(text)
    return _say("prices_from", sources=TEMPLATES["and"].join(named))


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
        "live": _say("live", verdict=VERDICT_LABELS[verdict], words=robustness["words"]),
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


# The scenarios index's saving cell, which names whose saving it is (only the index says these).
INDEX_SAVING = {"saves": "Trainium saves {amount}", "costs_more": "Trainium costs {amount} more"}


def _index_saving(r: Any, saving: float) -> str:
    """The index's saving cell: whose saving it is, or that Trainium cannot run any of the workloads."""
    if not any(w.outcome.trainium.feasible for w in r.workloads):
        return CANNOT_RUN["gpu"]
    if saving < 0:
        return INDEX_SAVING["costs_more"].format(amount=f.money(-saving))
    return INDEX_SAVING["saves"].format(amount=f.money(saving))


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
        "saving_text": _index_saving(r, saving),
        # The index has room for the word only; the scenario page says why.
        "break_even": [text.split(":")[0] for text in be_texts],
        # Sorted as the reader sees them: "none" and "never" after every count.
        "break_even_sort": min((c["value"] for c in be_cells if c["value"] is not None), default=1e18),
    }



# --- For the calculator ----------------------------------------------------------------------------

def tables() -> dict[str, Any]:
    """Every table and template this module words with, as the calculator's data carries them
    (generator/rendering/calculator.py): wording.mjs says nothing it does not find here."""
    return {
        "TEMPLATES": TEMPLATES, "SUMMARY_LABELS": SUMMARY_LABELS, "CHEAPER_SIDE": CHEAPER_SIDE, "CANNOT_RUN": CANNOT_RUN,
        "END_WORDS": END_WORDS, "SIDE_LABELS": SIDE_LABELS, "RANGE_LABELS": RANGE_LABELS, "STEPS": STEPS,
        "OPTION_WORDS": OPTION_WORDS, "SOONEST": SOONEST, "REASONS": REASONS, "TERM_WORDS": TERM_WORDS,
        "HOURLY_WORDS": HOURLY_WORDS, "SMALL_COUNTS": {str(n): word for n, word in SMALL_COUNTS.items()},
        "RULE_LABELS": RULE_LABELS, "VERDICT_LABELS": VERDICT_LABELS, "ANSWER_LABELS": ANSWER_LABELS,
        "ROBUST_WORDS": ROBUST_WORDS, "THRESHOLD_LABELS": THRESHOLD_LABELS,
        # How figures read (format.mjs learns these with the rest).
        "FORMATS": f.formats(),
    }
