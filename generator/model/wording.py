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

Every sentence a reader is told: the engine's step and reason codes in words (`worded`, which every
output publishing them goes through), and for one evaluated workload its trace, summary cells,
robustness and threshold sentences and chart rows as plain data; each sentence with figures is one
template (`TEMPLATES`); the answer's headings and column names (`ANSWER_LABELS`) are those of a
scenario page and of the calculator alike; and `tables()` is every table and template, which the
calculator's data carries for `calculator/wording.mjs`, its mirror in logic only; what `guide mcp`
alone says (each code's meaning, `ASSISTANT`) sits apart from those tables. Imports `formatting`
alone: what it words is handed to it.
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
    "step_finish": " To be done within {finish}; Trainium's plan ends in {trainium}, the GPU's in {gpu}.",
    "step_finish_late": " Trainium {trainium} past it, the GPU {gpu} past it.",
    "decides": "Decides: {verdict}.",
    "withdrawn": "no longer listed by AWS since {date}",
    # How a plan is bought.
    "by_the_hour": "by the hour {way}{where}{booked}",
    "booked_as": ", each run booked as {booking}",
    "block": "a {days}-day block",
    "extended": "{block} and a {days}-day extension (sold only if AWS has the capacity then)",
    "longest_first": "{count} × {days}-day blocks back to back, then {rest}",
    "no_extension": "each run one block of the next length AWS sells",
    "flips_on_extension": "Flips on a Capacity Block extension being sold: with none to be had and each run booked as one block, the verdict changes.",
    "single_blocks": "If no extension can be had and each run is booked as one block of the next length AWS sells ({booking}), Trainium's plan costs {trainium} against the GPU's {gpu}: the verdict would be {verdict}.",
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
    "committed_first": "{first}: the first plan that costs less on Trainium; a commitment is paid by the term, so no single run repays the port{lengths}",
    "repay_beyond": "takes longer than {time} at this pace",
    "repay_needs": "needs {runs}",
    "never_repaid": "never: one port {repay} to repay, and each architecture lasts {runs}",
    "never_saves": "{none}: Trainium never saves per run",
    "no_break_even_cannot_run": "{none}: a side that cannot run has no break-even",
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
    "no_break_even_within": "does not break even within {time} at this pace",
    "never": "never",
    "first_run_repays": "pays the port back in the first run",
    "breaks_even_after": "breaks even after {runs}",
    "chart_summary": "Over {runs} the GPU side costs {gpu} and the Trainium side {trainium}, including {ports} at {port_cost}{each}. Trainium {be}.",
    "each": " each",
    "subtitle": "Source: {source}. Figures as of {as_of}.",
    # The prices an answer used: the way and region each plan buys at, not the ones it was named with.
    "price_used": "{side}: {instance} in {region}, {way}, at {price} ({source}, {date})",
    "used_stale": "; {days} days old, older than the guide trusts unchecked",
    "used_withdrawn": "; {withdrawn}",
    "stale_verdict": "This verdict rests on {prices}, older than the guide trusts unchecked: check against the source before acting.",
    "stale_price": "{instance} in {region}, {way}, as of {date} ({days} days old)",
    "source": "{name} ({date})",
    "prices_from": "prices from {sources}",
    "and": " and ",
    "comma": ", ",
    # A Trainium generation whose PyTorch training stays on an older Neuron release (data/neuron.yaml).
    "neuron_pin_lead": "Pinned to Neuron {release}.",
    "neuron_pin": "PyTorch training on {instance} ({chip}) runs on Neuron {release} at the newest, released {released}, the last release with {paths}. The current release, {current} of {current_released}, trains PyTorch only on {pytorch_chips}, through {pytorch_paths}{others}.",
    "neuron_pin_others": "; on this generation it offers {paths}",
    "beta_path": "{label} (beta)",
    "neuron_pin_report": " Moving the model to TorchNeuron later is a port of its own: {weeks} engineer-weeks ({low} to {high}) by the guide's own figure (the constraint {name}).",
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
    "finish_days": "Whole plan done",
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
    "block_extension": "a Capacity Block extension being sold",
}
STEPS = {
    "both-can-run": "Both sides can run: no constraint, region or availability rules either out.",
    "trainium-late": "Trainium cannot start by the deadline: the port and any lead time take longer.",
    "gpu-late": "The GPU option cannot start by the deadline; Trainium can.",
    "trainium-finishes-late": "Trainium cannot be done by the finish date: the wait, the port and its runs take longer.",
    "gpu-finishes-late": "The GPU option cannot be done by the finish date; Trainium can.",
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


def booking_text(booking: Any, x: dict[str, Any]) -> str:
    """How each run is booked on Capacity Blocks (`engine.block_booking`): "a 14-day block and a
    3-day extension", after any longest blocks booked back to back."""
    full, block, extra = booking
    text = _say("block", days=f.count(block))
    if extra:
        text = _say("extended", block=text, days=f.count(extra))
    if full:
        text = _say("longest_first", count=f.count(full), days=f.count(x["block_limits"]["longest"]), rest=text)
    return text


def _booked(sd: dict[str, Any], x: dict[str, Any]) -> str:
    booking = sd.get("booking")
    return _say("booked_as", booking=booking_text(booking, x)) if booking else ""


def plan_bought(x: dict[str, Any], sd: dict[str, Any], side: str) -> str:
    """How one side's plan is bought: held hours first, whole terms, then what is bought by the hour."""
    option, region = sd["plan_option"], sd["plan_region"]
    where = _say("in_region", region=region) if region and region != x.get(side + "_region") else ""
    if option not in TERM_WORDS:
        return _say("by_the_hour", way=HOURLY_WORDS.get(option, option), where=where, booked=_booked(sd, x))
    held, terms, hourly = x[side + "_held_hours"], sd["committed_terms"], sd["hourly_hours"]
    by_hour = HOURLY_WORDS.get(sd["hourly_option"], sd["hourly_option"]) + _booked(sd, x)
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
    "prices_used": "Prices the plans buy at:",
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
    if name == "block_extension":
        return TEMPLATES["no_extension"]
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
        if n.get("needed_within_days") is not None:
            text += _say("step_deadline", needed=f.days(n["needed_within_days"]), trainium=f.days(n["trainium_ready_days"]),
                         gpu=f.days(n["gpu_ready_days"]))
            if n.get("trainium_late_days") and n.get("gpu_late_days"):
                text += _say("step_late", trainium=f.days(n["trainium_late_days"]), gpu=f.days(n["gpu_late_days"]))
        if n.get("finish_within_days") is not None:
            text += _say("step_finish", finish=f.days(n["finish_within_days"]), trainium=f.days(n["trainium_finish_days"]),
                         gpu=f.days(n["gpu_finish_days"]))
            if n.get("trainium_finish_late_days") and n.get("gpu_finish_late_days"):
                text += _say("step_finish_late", trainium=f.days(n["trainium_finish_late_days"]),
                             gpu=f.days(n["gpu_finish_late_days"]))
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
    ranges = [range_label(n) for n in rob["flips_on"] if n != "block_extension"]
    if state in ("robust", "joint"):
        first = TEMPLATES[state]
    elif not ranges:
        first = TEMPLATES["flips_on_extension"]
    elif len(ranges) == 1:
        first = _say("flips_on_one", name=ranges[0])
    else:
        first = _say("flips_on_many", names=", ".join(ranges))
    if state == "flips" and ranges and "block_extension" in rob["flips_on"]:
        first += " " + TEMPLATES["flips_on_extension"]
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


def _horizon(x: dict[str, Any], o: dict[str, Any]) -> float | None:
    """Calendar hours within which a break-even is told as runs: the horizon data/ sets, and never
    shorter than the plan being judged (a 4-year plan that repays its port in month 40 says so)."""
    horizon, pace = x.get("horizon_hours"), o.get("pace_hours")
    if horizon is None or pace is None:
        return horizon
    return max(horizon, x["runs"] * pace)


def _beyond(n: float, x: dict[str, Any], o: dict[str, Any]) -> bool:
    """Whether n runs at the plan's pace take longer than the horizon (`_horizon`)."""
    pace, horizon = o.get("pace_hours"), _horizon(x, o)
    return pace is not None and horizon is not None and n * pace > horizon


def _not_within(x: dict[str, Any], o: dict[str, Any]) -> str:
    return _say("not_within", time=f.calendar(_horizon(x, o)))


def _at_pace(text: str, n: float, x: dict[str, Any], o: dict[str, Any]) -> str:
    """A count of runs (`text`, as it reads) with the calendar time the runs take at the plan's pace;
    past the horizon, that it is not within it instead of the count."""
    if _beyond(n, x, o):
        return _not_within(x, o)
    pace = o.get("pace_hours")
    if pace is None or n <= 1:
        return text
    return _say("at_pace", runs=text, time=f.calendar(n * pace))


def _whole(n: float, x: dict[str, Any], o: dict[str, Any]) -> float:
    """The first whole plan at which Trainium costs less, from where the cost lines cross: a crossing
    between plan lengths is the next plan length (at exactly n runs the plans tie). Under a commitment
    or recurring ports the engine's count is already a plan length."""
    if _committed(o) or x.get("runs_per_architecture") is not None:
        return n
    return float(math.floor(n) + 1)


def break_even_phrase(n: float | None, x: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    """The one statement of a break-even where the cost lines cross at n runs: the first whole plan
    that costs less on Trainium with the time it takes, or that none does within the horizon. `short`
    is the scenarios index's cell, `sentence` the chart's caption and its text alternative."""
    if n is None:
        return {"runs": None, "short": TEMPLATES["never"], "sentence": TEMPLATES["never_breaks_even"]}
    whole = _whole(n, x, o)
    if _beyond(whole, x, o):
        return {"runs": whole, "short": _not_within(x, o),
                "sentence": _say("no_break_even_within", time=f.calendar(_horizon(x, o)))}
    if whole <= 1:
        return {"runs": whole, "short": f.FIRST_RUN, "sentence": TEMPLATES["first_run_repays"]}
    counted = _at_pace(_plural(whole, "run"), whole, x, o)
    return {"runs": whole, "short": _plural(whole, "run"), "sentence": _say("breaks_even_after", runs=counted)}


def _thresholds(t: dict[str, Any], x: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    items = []
    # The break-even statement is told in the summary's break-even row, not as a value here.
    names = [n for n in THRESHOLD_LABELS if n in t] + [n for n in t if n not in THRESHOLD_LABELS and n != "break_even"]
    for name in names:
        v = t[name]
        if v is None:
            text = f.NO_CROSSING
        elif name == "runs":
            w = _whole(v, x, o)
            text = f.FIRST_RUN if w <= 1 and not _beyond(w, x, o) else _at_pace(_plural(w, "run"), w, x, o)
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
    """Whether a side's plan is bought on spot (it then has the rate of the pool it buys)."""
    return o[side].get("spot_rate") is not None


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
        return _say("only_between", first=_plural(b["first"], "run"), last=_at_pace(_plural(b["last"], "run"), b["last"], x, o))
    if b["kind"] == "from" and b["first_for_good"] != b["first"]:
        if _beyond(b["first_for_good"], x, o):
            return _say("longer_beyond", time=f.calendar(_horizon(x, o)))
        return _say("every_longer", first=_at_pace(_plural(b["first_for_good"], "run"), b["first_for_good"], x, o))
    return ""


def break_even_statement(x: dict[str, Any], o: dict[str, Any], t: dict[str, Any]) -> dict[str, Any]:
    """The break-even as every output states it (the summary, the index, the calculator, JSON): the
    first whole plan that costs less on Trainium (None: none does), its cell's text and its short form."""
    said = break_even_phrase(_break_even_value(x, o, t), x, o)
    return {"runs": said["runs"], "short": said["short"], "text": _break_even(x, o, t)}


def _break_even(x: dict[str, Any], o: dict[str, Any], t: dict[str, Any]) -> str:
    """The summary's break-even cell: `break_even_phrase` with what each case adds to it."""
    be = o["break_even_runs"]
    if be is not None:
        said = break_even_phrase(be, x, o)
        if _beyond(said["runs"], x, o):
            return said["short"]
        counted = f.FIRST_RUN if said["runs"] <= 1 else _at_pace(_plural(said["runs"], "run"), said["runs"], x, o)
        if x.get("runs_per_architecture") is not None:
            return _say("recurring_break_even", runs=counted)
        return counted
    if not (o["trainium"]["feasible"] and o["gpu"]["feasible"]):
        return _say("no_break_even_cannot_run", none=f.NONE)
    if _committed(o):
        first = t.get("runs")
        if first is None:
            return _say("committed_never", none=f.NO_CROSSING)
        if _beyond(first, x, o):
            return _not_within(x, o)
        return _say("committed_first", first=_at_pace(_plural(first, "run"), first, x, o),
                    lengths=_plan_lengths(t.get("break_even"), x, o))
    if o["saving_per_run"] > 0 and x.get("runs_per_architecture") is not None:
        # Recurring ports that no architecture repays: how many runs one port would need, as a whole plan.
        needs = float(math.floor(o["port_cost"] / o["saving_per_run"]) + 1)
        repay = (_say("repay_beyond", time=f.calendar(_horizon(x, o))) if _beyond(needs, x, o)
                 else _say("repay_needs", runs=_at_pace(_plural(needs, "run"), needs, x, o)))
        return _say("never_repaid", repay=repay, runs=_plural(x["runs_per_architecture"], "run"))
    return _say("never_saves", none=f.NO_CROSSING)


def _price_notes(o: dict[str, Any]) -> list[dict[str, str]]:
    """When a side's price is one end of the range its sources give and cost decided, say so by the verdict."""
    if o["decided_by"] not in ("cost", "capacity"):
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


def _booking_notes(x: dict[str, Any], o: dict[str, Any], single: dict[str, Any] | None) -> list[str]:
    """Beside the verdict, where it rests on an extension AWS sells only if it has the capacity: what
    booking each run as one block instead would cost, when that would change the verdict."""
    if not single or single["verdict"] == o["verdict"]:
        return []
    bookings = [booking_text(b, x) for b in (single["booking"]["trainium"], single["booking"]["gpu"]) if b]
    return [_say("single_blocks", booking=TEMPLATES["and"].join(bookings), trainium=f.money(single["trainium_total"]),
                 gpu=f.money(single["gpu_total"]), verdict=VERDICT_LABELS[single["verdict"]])]


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
                rate=f.rate(o[side]["spot_rate"]), basis=_spot_basis(o[side]), hours=f.hours(x["lost_hours"]["value"])) if _on_spot(x, o, side)
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
    if x.get("finish_within_days") is not None:
        # Against a finish date, when each side's last run ends: the wait, the port and every run.
        sides.append({"label": L["finish_days"], **{side: _cell(f"{side}.finish_days", o[side]["finish_days"],
                                                                _say("in_days", days=f.days(o[side]["finish_days"])))
                                                    for side in ("trainium", "gpu")}})
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


def _spot_basis(sd: dict[str, Any]) -> str:
    """Where the rate of the pool a side buys comes from: the Advisor's band, or the guide's own default."""
    return TEMPLATES["spot_pool" if sd.get("spot_rated") else "spot_default"]


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


def _prices_used(prices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each price record the plans buy at, as a line of the answer's sources."""
    out = []
    for p in prices:
        text = _say("price_used", side=VERDICT_LABELS[p["side"]], instance=p["instance"], region=p["region"],
                    way=_option(p["option"]), price=f.hourly(p["usd_per_hour"]), source=p.get("name") or p["source"],
                    date=f.date(p["as_of"]))
        if p.get("vanished"):
            text += _say("used_withdrawn", withdrawn=withdrawn(p["vanished"]))
        if p.get("stale"):
            text += _say("used_stale", days=f.count(p["age_days"]))
        out.append({"side": p["side"], "stale": bool(p.get("stale")), "text": text})
    return out


def _stale_verdict(o: dict[str, Any], prices: list[dict[str, Any]]) -> str | None:
    """Beside a verdict the plans' costs decide, the stale prices it rests on."""
    old = [p for p in prices if p.get("stale")]
    if not old or o["decided_by"] not in ("cost", "capacity"):
        return None
    return _say("stale_verdict", prices=TEMPLATES["and"].join(_say(
        "stale_price", instance=p["instance"], region=p["region"], way=_option(p["option"]), date=f.date(p["as_of"]),
        days=f.count(p["age_days"])) for p in old))



def _chart(x: dict[str, Any], o: dict[str, Any], curve: dict[str, Any], prices: list[dict[str, Any]]) -> dict[str, Any]:
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
    said = break_even_phrase(crossing, x, o)
    if crossing is not None:
        whole = said["runs"]
        marks.append(mark(crossing, _say("break_even_mark", runs=f.FIRST_RUN if whole <= 1 else _plural(whole, "run")), 26))
    as_of = max(f.date(p["as_of"]) for p in prices)
    source = source_line(prices)
    ports = o["ports"]
    be = said["sentence"]
    summary = _say("chart_summary", runs=_plural(x["runs"], "run"), gpu=f.money(o["gpu"]["total"]),
                   trainium=f.money(o["trainium"]["total"]), ports=_plural(ports, "port"), port_cost=f.money(o["port_cost"]),
                   each="" if ports == 1 else TEMPLATES["each"], be=be)
    return {
        "rows": rows, "marks": marks, "source": source, "as_of": as_of,
        "subtitle": _say("subtitle", source=source, as_of=as_of),
        "interp": "step-after" if x.get("runs_per_architecture") or _committed(o) else "linear",
        "summary": summary,
    }


def source_line(prices: list[dict[str, Any]]) -> str:
    """Where the prices a workload's plans buy at come from, each source by its name and date (a
    chart copied into a post has no sources page to decode a key on), each once."""
    named: list[str] = []
    for p in prices:
        text = _say("source", name=p.get("name") or p["source"], date=f.date(p["as_of"]))
        if text not in named:
            named.append(text)
    return _say("prices_from", sources=TEMPLATES["and"].join(named))


def present(result: dict[str, Any], curve: dict[str, Any], prices: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything a reader is told about one evaluated workload, as plain data. `prices`: the records
    the plans buy at (`price_refs`), which its sources name."""
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
        "booking_notes": _booking_notes(x, o, result.get("single_blocks")),
        "prices_used": _prices_used(prices),
        "stale_verdict": _stale_verdict(o, prices),
        "price_marks": _price_marks(o, rob),
        "robustness": robustness,
        "thresholds": _thresholds(t, x, o),
        "break_even": break_even_statement(x, o, t),
        "chart": _chart(x, o, curve, prices),
    }


# --- From the Python side's objects ----------------------------------------------------------------

def listed(names: list[str]) -> str:
    """Names in a sentence: "A", "A and B", "A, B and C"."""
    if len(names) < 2:
        return "".join(names)
    return TEMPLATES["comma"].join(names[:-1]) + TEMPLATES["and"] + names[-1]


def neuron_pin(pin: dict[str, Any]) -> dict[str, str]:
    """What a page says of a Trainium side pinned to an older Neuron release (`resolve.NeuronPin` as
    plain data): a lead and the sentences after it."""
    def named(paths: list[dict[str, str]]) -> str:
        return listed([_say("beta_path", label=p["label"]) if p["status"] == "beta" else p["label"] for p in paths])

    others = _say("neuron_pin_others", paths=named(pin["others"])) if pin["others"] else ""
    text = _say("neuron_pin", release=pin["release"], instance=pin["instance"], chip=pin["chip"], released=f.date(pin["released"]),
                paths=listed(pin["paths"]), current=pin["current"], current_released=f.date(pin["current_released"]),
                pytorch_chips=listed(pin["pytorch_chips"]), pytorch_paths=named(pin["pytorch_paths"]), others=others)
    weeks = pin["report_weeks"]
    if weeks is not None:
        text += _say("neuron_pin_report", weeks=f.weeks(weeks["value"]), low=f.weeks(weeks["low"]), high=f.weeks(weeks["high"]),
                     name=pin["report"])
    return {"lead": _say("neuron_pin_lead", release=pin["release"]), "text": text}


def price_refs(w: Any, names: dict[str, str] | None = None, fresh: Any = None) -> list[dict[str, Any]]:
    """Each price record a `WorkloadResult`'s plans buy at (`used_prices`), with its source's name
    (`Source.name`, by key in `names`) where the caller has the catalog, and with `fresh` (the day's
    `Freshness`) whether it is stale."""
    out = []
    for side, p in w.used_prices:
        out.append({"side": side, "instance": p.instance, "region": p.region, "option": p.option,
                    "usd_per_hour": p.point, "source": p.source, "as_of": p.as_of.isoformat(),
                    "name": (names or {}).get(p.source, p.source),
                    "vanished": None if p.vanished is None else p.vanished.isoformat(),
                    "stale": False if fresh is None else fresh.is_stale(p), "age_days": None if fresh is None else fresh.age(p)})
    return out


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
        # The index has room for the short form only; the scenario page says why.
        "break_even": [p["break_even"]["short"] for p in shown],
        # Sorted as the reader sees them: "none" and "never" after every count.
        "break_even_sort": min((c["value"] for c in be_cells if c["value"] is not None), default=1e18),
    }



# --- What the pages' charts say ----------------------------------------------------------------------
# Each chart's title, the titles of its axes and legends, the labels its data shows and the summary its
# text alternative leads with, for rendering/charts/specs.py to place. The cumulative cost's rows, marks and
# summary are `present`'s (the calculator's chart says them too); these only the pages draw.
CHART_WORDS = {
    "cumulative": "Cumulative cost",
    "breakdown": "Cost per run",
    "sensitivity": "Sensitivity",
    "titled": "{kind}: {name}",
    "of_workload": "{title} ({workload})",
    "your_case": "your case",
    "calculator_source": "prices from data/prices.yaml",
    "runs_axis": "Training runs",
    "cost_axis": "Cumulative cost (USD)",
    # A run's cost: each side's compute, and Trainium's porting spread over the plan.
    "compute": "Compute",
    "porting_spread": "Porting, spread over the plan",
    "usd_per_run": "USD per run",
    "breakdown_summary": "One run costs {gpu} on the GPU side and {trainium} on Trainium, plus {port_share} of porting per "
                         "run when the plan's {ports} {spread} spread over {runs}.",
    "is": "is",
    "are": "are",
    # The decision maps: the verdict over runs and one input, this case marked.
    "runs_planned_axis": "Training runs planned",
    "map_axis_relative_throughput": "Relative throughput (Trainium / GPU)",
    "map_axis_port_weeks": "Port effort (engineer-weeks)",
    "map_legend": "Verdict",
    "weeks_here": "{weeks} engineer-weeks",
    "this_case": "this case: {runs} at {value}",
    "map_trainium": "Trainium in {trainium} of them",
    "map_three": "Trainium in {trainium} of them, GPU in {gpu}, and neither in {neither}, where neither side can run",
    "map_summary": "Across {cells} combinations of runs (1 to {runs_max}) and {axis}, the verdict is {verdicts}. "
                   "The marked point is this case: {runs} at {value}.",
    # The sensitivity chart: the difference at each end of each range.
    "difference_axis": "GPU total minus Trainium total (USD); right of 0 favours Trainium",
    "end_legend": "End of range",
    "cheaper": "{amount} cheaper",
    "dearer": "{amount} dearer",
    "no_flips": "none",
    "sensitivity_summary": "At the stated values Trainium's plan is {standing} than the GPU's. Inputs whose range flips "
                           "the verdict: {flips}.",
    # Price per peak FLOP, every instance and way of buying.
    "price_performance": "Price per peak BF16 PFLOP-hour, by instance and purchase option",
    "pflop_axis": "USD per peak dense BF16 PFLOP-hour (lower is better)",
    "option_legend": "Purchase option",
    "chip_sources": "prices and chip figures from {names}",
    "price_performance_summary": "Peak-FLOP price of {count} instance and purchase-option pairs in {regions}. Cheapest per "
                                 "peak PFLOP-hour: {instance} ({option}) at {usd}. Peak is not delivered throughput.",
    # The reference workload's maps on the home and porting pages.
    "pair": "{trainium} vs {gpu}",
    "bought": "{trainium} against {gpu}",
    "hours_a_run": "{hours} GPU instance-hours a run",
    "map_title": "When does Trainium pay? {pair}, {bought}, {run}",
    "port_map_title": "Porting effort against runs: {pair}, {run}",
    "reference_source": "prices from {name} ({date}); {architecture} port of {weeks} engineer-weeks at {usd}",
}
# What each data column of a chart counts, for its metadata file; a column not named holds words.
CHART_UNITS = {
    "runs": "training runs", "cost": "USD", "usd": "USD", "difference": "USD (GPU total minus Trainium total)",
    "usd_per_hour": "USD per instance-hour", "relative_throughput": "ratio, Trainium instance over GPU instance",
    "port_weeks": "engineer-weeks", "usd_per_pflop_hour": "USD per PFLOP-hour", "value": "the input's own unit",
}


def _chart_say(key: str, **values: str) -> str:
    return CHART_WORDS[key].format(**values)


def chart_title(kind: str, name: str, workload: str | None = None) -> str:
    """A chart's title: what it draws (a key of CHART_WORDS) and whose case, with the workload where a
    scenario has several."""
    title = _chart_say("titled", kind=CHART_WORDS[kind], name=name)
    return title if workload is None else _chart_say("of_workload", title=title, workload=workload)


def chart_subtitle(source: str, as_of: Any) -> str:
    return _say("subtitle", source=source, as_of=f.date(as_of))


def breakdown_summary(gpu: float, trainium: float, port_share: float, ports: int, runs: int) -> str:
    return _chart_say("breakdown_summary", gpu=f.money(gpu), trainium=f.money(trainium), port_share=f.money(port_share),
                      ports=_plural(ports, "port"), spread=CHART_WORDS["is" if ports == 1 else "are"], runs=_plural(runs, "run"))


def map_axis(axis: str) -> str:
    return CHART_WORDS["map_axis_" + axis]


def map_value(axis: str, value: float) -> str:
    """Where this case sits on a decision map's input axis, with its unit."""
    return f.ratio(value) if axis == "relative_throughput" else _chart_say("weeks_here", weeks=f.weeks(value))


def this_case(runs: int, axis: str, value: float) -> str:
    return _chart_say("this_case", runs=_plural(runs, "run"), value=map_value(axis, value))


def map_summary(cells: int, runs_max: int, axis: str, shares: dict[str, float], runs: int, value: float) -> str:
    """A decision map in words: how its cells split between the verdicts (`shares` by verdict), and
    where this case sits."""
    if shares["neither"]:
        verdicts = _chart_say("map_three", trainium=f.pct(shares["trainium"]), gpu=f.pct(shares["gpu"]),
                              neither=f.pct(shares["neither"]))
    else:
        verdicts = _chart_say("map_trainium", trainium=f.pct(shares["trainium"]))
    label = map_axis(axis)
    return _chart_say("map_summary", cells=str(cells), runs_max=str(runs_max), axis=label[0].lower() + label[1:],
                      verdicts=verdicts, runs=_plural(runs, "run"), value=map_value(axis, value))


def sensitivity_summary(base: float, flips: list[str]) -> str:
    """The difference at the stated values, and the inputs whose range alone flips the verdict."""
    standing = _chart_say("cheaper", amount=f.money(base)) if base >= 0 else _chart_say("dearer", amount=f.money(-base))
    return _chart_say("sensitivity_summary", standing=standing,
                      flips=", ".join(range_label(n) for n in flips) or CHART_WORDS["no_flips"])


def chip_sources(names: list[str]) -> str:
    return _chart_say("chip_sources", names=", ".join(names))


def price_performance_summary(count: int, regions: list[str], instance: str, option: str, usd: float) -> str:
    return _chart_say("price_performance_summary", count=f.count(count), regions=listed(regions), instance=instance,
                      option=option, usd=f.usd(usd, 2))


def reference_map_titles(trainium: Any, gpu: Any, options: dict[str, str], gpu_hours: float) -> tuple[str, str]:
    """The titles of the reference workload's two decision maps: its instances, the ways each is bought
    (`options`: their labels) and its run's size."""
    pair = _chart_say("pair", trainium=trainium.instance, gpu=gpu.instance)
    bought = _chart_say("bought", trainium=options[trainium.option], gpu=options[gpu.option]).lower()
    run = _chart_say("hours_a_run", hours=f.count(gpu_hours))
    return (_chart_say("map_title", pair=pair, bought=bought, run=run), _chart_say("port_map_title", pair=pair, run=run))


def reference_source(name: str, as_of: Any, architecture: str, weeks: float, usd: float) -> str:
    return _chart_say("reference_source", name=name, date=f.date(as_of), architecture=architecture, weeks=f.weeks(weeks),
                      usd=f.money(usd))


# --- What the site's other files say --------------------------------------------------------------
# The sentences of a link's card, the price moves' feed, the files for language models and a chart's
# metadata, which rendering/ fills where it writes each file (the calculator says none of them).
SITE_WORDS = {
    # A link's card: the site's question and answer (docs/index.md's), a scenario's verdict and cost.
    "question": "Should we train this model on AWS Trainium or on Nvidia GPUs?",
    "answer": "It depends on how many runs you make on one architecture: many runs of a stable model favour Trainium.",
    "site_card_alt": "The guide's question, {question} Its answer: {answer} Under them, its decision map: the verdict "
                     "for the reference workload across training runs planned and Trainium's throughput relative to the GPU.",
    "card_verdict": "Verdict: {label}",
    "card_cost": "Trainium costs {than} than the GPU over the plan",
    "card_cost_hybrid": "The workloads sent to Trainium cost {than} than the GPU over the plan",
    "card_holds": "{holds}. {cost}",
    "chart_alt": "{title}. {summary}",
    "less": "{amount} less",
    "more": "{amount} more",
    "a_run": "{amount} a run",
    "a_run_more": "{amount} more a run",
    "over_the_plan": "{amount} over the plan",
    "over_the_plan_more": "{amount} more over the plan",
    "amounts": "{first} {per_run} {joint} {plan}, porting included",
    "and": "and",
    "but": "but {verb}",
    "saving": "saving",
    "costing": "costing",
    "save": "save",
    "cost": "cost",
    "plan_saving": "Over the plan, Trainium costs {total} than the GPU, port included; {per_run} a run.",
    "plan_saving_hybrid": "Over the plan, the workloads sent to Trainium cost {total} there than on the GPU, ports "
                          "included; {per_run} a run.",
    "verdict_sentence": "Verdict: {label}, with Trainium {amounts}, at prices as of {as_of}.",
    "verdict_sentence_hybrid": "Verdict: {label}, with the workloads that go to Trainium {amounts}, at prices as of {as_of}.",
    "verdict_sentence_other_rule": "Verdict: {label}{rule}, although Trainium would {amounts}, at prices as of {as_of}.",
    "on_rule": " on {rule}",
    # The price moves (data/history.yaml) on the "What changed" page and in its feed.
    "changed": "changed",
    "added": "newly listed",
    "vanished": "no longer listed",
    "returned": "listed again",
    "none": "none",
    "not_offered": "not offered",
    "span": "{value} ({low} to {high})",
    "move_title": "{instance}, {region}, {option}: {move}",
    "moved": "{before} → {after}",
    "moved_vanished": "no longer listed, last at {before}",
    "moved_added": "newly listed at {after}",
    "moved_returned": "listed again at {after} (last at {before})",
    "verdict_moved": "verdict {before} → {after}",
    "saving_moved": "saving per run {before} → {after}",
    "effect": "{title} ({workload}): {parts}",
    "effects_between": "; ",
    "feed_title": "Trainium or GPU? Price moves",
    "feed_subtitle": "Each price of the guide that changed, appeared or vanished, and the scenarios it moved.",
    "feed_author": "Trainium or GPU? guide",
    "feed_entry": "{instance} in {region}, {option}: {move} on {date}. Seen in {source}.",
    "feed_no_effect": "No scenario's verdict or saving per run moved with it.",
    # The files for language models (llms.txt, llms-full.txt).
    "scenario_note": "verdict {verdict}{saving}. {summary}",
    "saving_a_run": ", saving {amount} a run",
    "result_link": "{title}: result as JSON",
    "result_note": "the engine's whole result, as `guide evaluate --format json` writes it",
    "chart_link": "Chart: {title}",
    "chart_note": "its title, sources and dates, units, page and a citation; its data as CSV beside it",
    "full_workload": "- {name}: {verdict}; total over the plan Trainium {trainium}, GPU {gpu}",
    "full_scenario": "\n## {title}\n\nVerdict: {verdict}. {summary}\n\n{rows}\n\nPage: {page} · result: {result}\n",
    "llms_about": "Every figure carries its source and the date that source shows; prices as of {as_of} at the latest. "
                  "Each page's Markdown is at its address followed by `{suffix}`. The engine is also served to assistants "
                  "by `guide mcp`, an MCP server.",
    "scenarios_heading": "Scenarios",
    "optional_heading": "Optional",
    "data_link": "Data: {path}",
    "data_note": "every figure of data/, one row each, with its source and date",
    "full_link": "The whole guide in one file",
    "full_note": "every page's Markdown",
    "per_scenario": "{description} A part for each scenario; its Markdown: {markdown}",
    "chart_named": "(A chart, {name}, is on the page.)",
    # A chart away from its page: the last line of its exported subtitle, and its citation.
    "address_line": "From the guide: ",
    "the_guide": "the guide",
    "citation": "{title}. {site}, {page} (figures as of {as_of}; {source}).",
    # The downloads (downloads/): what each file holds.
    "download_about": "{what} from the guide's data/, one row per figure, each with its source and the date the source shows",
    "prices_download": "Prices (USD per instance-hour, Linux)",
    "instances_download": "Instances",
}


def site_say(key: str, **values: str) -> str:
    return SITE_WORDS[key].format(**values)


# Why a scenario's `expect` is not the engine's verdict, with the figures that decided each workload.
MISMATCH = {
    "mismatch": "the engine's verdict is {verdict} but expect says {expect}: {workloads}",
    "workload": "{name}: {verdict} by rule {rule} (GPU {gpu} vs Trainium {trainium} over {runs} runs, {ports} port(s) at "
                "{port_cost}, saving per run {saving}, break-even runs {break_even})",
    "between": "; ",
}


def mismatch(verdict: str, expect: str, workloads: list[dict[str, Any]]) -> str:
    """The engine's verdict against the author's `expect`; each workload as plain figures (name, verdict,
    deciding rule, both totals, runs, ports, port cost, saving per run, break-even runs)."""
    said = [MISMATCH["workload"].format(
        name=w["name"], verdict=w["verdict"], rule=w["rule"], gpu=f.money(w["gpu"]), trainium=f.money(w["trainium"]),
        runs=w["runs"], ports=w["ports"], port_cost=f.money(w["port_cost"]), saving=f.money(w["saving"]),
        break_even=f.runs(w["break_even"])) for w in workloads]
    return MISMATCH["mismatch"].format(verdict=verdict, expect=expect, workloads=MISMATCH["between"].join(said))


# --- For an assistant (`guide mcp`) ------------------------------------------------------------------

# What each of the engine's codes means on its own, where neither STEPS nor REASONS has a sentence
# that needs no figures (`explain` lists every code as a topic).
CODE_MEANINGS = {
    "neither-can-run": "Neither side can run: a hard constraint, the regions allowed, capacity, or a way of buying that "
                       "cannot carry the plan rules each of them out, so the verdict is Neither.",
    "trainium-cannot-run": "Trainium cannot run (a hard constraint, the regions allowed, capacity or a way of buying rules "
                           "it out), so the GPU option is chosen.",
    "gpu-cannot-run": "The GPU option cannot run (the regions allowed, capacity or a way of buying rules it out), so "
                      "Trainium is chosen.",
    "neither-on-time": "Neither side can meet the deadline; the one that finishes soonest (against a finish date) or "
                       "starts soonest (against a start date) is chosen.",
    "ruled-out": "A hard constraint the workload names rules the side out whatever it costs.",
    "not-offered": "The side's instance is not offered in any region the workload may use.",
    "blocks-cannot-hold": "The side is bought on Capacity Blocks, and they cannot hold as many instances as it runs at once.",
}


def code_meaning(code: str) -> str:
    """What one step or reason code means, in a sentence without figures."""
    if code in CODE_MEANINGS:
        return CODE_MEANINGS[code]
    if code in STEPS:
        return STEPS[code]
    text = REASONS[code]
    return text[:1].upper() + text[1:] + "."


ASSISTANT = {
    "step": "**{label}**, a step of the decision (`{code}`): {meaning}",
    "reason": "A reason a side cannot run (`{code}`): {meaning}",
    "more": "Call again with detail \"full\" for the decision step by step, each ranged input at its ends and the "
            "engine's whole document, as `guide evaluate --format json` gives it.",
    "measure": "A measurement of your own model beats every figure here: train one representative job on one instance "
               "of each side and set relative_throughput to the ratio, with a range for what the measurement leaves open.",
    "no_pair": "No source has measured {trainium} against {gpu} like for like. Each row below is one chip on its own "
               "setup (model, precision, scale, software): dividing one by another gives a number, not a measurement.",
    "peak": "Peak dense FLOPS per instance, Trainium over GPU: a ceiling neither side reaches, and each reaches a "
            "different share of it.",
    "claims": "Claims about chosen workloads, by a vendor or an adviser: where to start looking, not where to end.",
    "other_class": "Every measurement here is of a mainstream model; none is of a {label} model, so they say least "
                   "about yours.",
    "scenarios": "What the guide's scenarios assume for this pair, each with its reasons: choices, not measurements.",
    "topics": "Ask explain for one of these ids, or for a term in your own words.",
    "addresses": "A scenario's page_url followed by index.html.md is its page as Markdown, and followed by "
                 "result.json its whole result as `guide evaluate --format json` gives it.",
}


def assistant(key: str, **values: str) -> str:
    return ASSISTANT[key].format(**values)


# --- For the calculator ----------------------------------------------------------------------------

def tables() -> dict[str, Any]:
    """Every table and template this module words with, as the calculator's data carries them
    (generator/rendering/calculator/data.py): wording.mjs says nothing it does not find here."""
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
