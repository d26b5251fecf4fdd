"""What the calculator page says of its own form, links and buttons: the messages no scenario page
says (a scenario page has no form), as templates with `{name}` parts. The calculator's data carries
them (`messages`, generator/rendering/calculator/data.py); wording.mjs fills them and wiring.mjs places
them, escaped. The words a workload's answer is told in are wording.py's, not these.

What the calculator page says of its own form, links and buttons, which no scenario page says: field
checks and range errors, unknown instances and prices, the stale-answer note, shared-link fallbacks,
button status, the chart's accessible name and the downloaded scenario file's placeholders;
templates with `{name}` parts that `wording.mjs` fills."""

from __future__ import annotations

from typing import Any

from generator.model.wording import VERDICT_LABELS

MESSAGES: dict[str, str] = {
    # A number field's checks; the bounds come from the field table (calculator_fields.py).
    "enter_a_number": "Enter a number.",
    "enter_a_finite_number": "Enter a finite number.",
    "enter_a_whole_number": "Enter a whole number.",
    "more_than": "Must be more than {bound}.",
    "at_least": "Must be at least {bound}.",
    "at_most": "Must be at most {bound}.",
    # A value and the range the reader gives it, saying which way to move what.
    "range_reversed": "The low end ({low}) is above the high end ({high}) of the {what} range.",
    "below_range": "{value} is below this range's low end ({low}): lower the low end, or raise the {what}.",
    "above_range": "{value} is above this range's high end ({high}): raise the high end, or lower the {what}.",
    "low_end_above": "The low end ({low}) is above the {what} itself ({value}): the range must contain it.",
    "high_end_below": "The high end ({high}) is below the {what} itself ({value}): the range must contain it.",
    # The form's other checks. schema.py refuses such a scenario file in its own (validation) words.
    "both_unavailable": "Both sides are unavailable: there is nothing to compare.",
    "held_needs_commitment": "Only for a 1- or 3-year commitment.",
    "finish_before_start": "Sooner than the start deadline: a plan cannot be done before its run may start.",
    "plan_past_finish": "The plan's calendar span runs past this finish date.",
    # What the engine's checkReferences finds about one side's instance or purchase option, in a
    # reader's words; resolve.py tells a scenario's author the same in its own.
    "offered_nowhere": "Neither {trainium} nor {gpu} is offered in {regions}: there is nothing to compare.",
    "unknown_instance": "{instance} is not a {side} instance this guide knows.",
    "choose_instance": "Choose a {side} instance.",
    "region_not_allowed": "The workload may only use {regions}: choose one of them for {instance}.",
    "no_price": "This guide has no {option} price for {instance} in {region}.",
    "not_sold": "{instance} is not sold {option} in {region}.",
    # While a field is wrong: the answer kept for the last valid inputs, or none yet.
    "one_marked": "the field marked above",
    "many_marked": "the {count} fields marked above",
    "stale_answer": "Fix {fields}: the answer below is still the one for the last valid inputs.",
    "no_answer_yet": "Fix {fields} to see the answer.",
    # A field the reader has not typed in yet is not marked wrong for being empty: it shows an example
    # instead, and until it is filled the answer is the one for the last complete inputs.
    "example": "e.g. {value}",
    "one_empty": "the empty field above",
    "many_empty": "the {count} empty fields above",
    "incomplete_answer": "Fill in {fields}: the answer below is still the one for the last complete inputs.",
    "no_answer_until_filled": "Fill in {fields} to see the answer.",
    # The same said in the answer at a glance, which stays in view (pinned on a phone).
    "glance_fix": "Out of date: fix the marked fields in the form.",
    "glance_fill": "Out of date: fill in the empty fields in the form.",
    # Beside a way to buy the workload cannot be bought in where the reader stands.
    "way_unpriced": "Changes nothing here: the guide has no {way} price for {sides}{elsewhere}.",
    "way_side": "{instance} in {regions}",
    "way_elsewhere": " (it has one for {sides})",
    "list_or": " or ",
    "list_comma": ", ",
    # The prices line under the form; each side's part is given, a source's tail made here.
    "price_source": ", from {name}, {as_of}",
    "price_checked": ", from {name}, {as_of}, last checked {checked}",
    "prices_line": "Trainium {trainium}. GPU {gpu}.",
    # The form's choices: an architecture class with its port effort, a hard constraint with its effect.
    "architecture_choice": "{label} ({low} to {high} engineer-weeks)",
    "constraint_excludes": "{label} (rules Trainium out)",
    "constraint_adds": "{label} (adds {weeks} engineer-weeks)",
    # ... where it applies to some Trainium generations only ({on}: their names, as wording.py lists them).
    "constraint_excludes_on": "{label} (rules out {on})",
    "constraint_adds_on": "{label} (adds {weeks} engineer-weeks on {on})",
    "constraint_reports": "{label} (a port of {weeks} engineer-weeks on {on}, none on the others)",
    # A shared link the page cannot follow in full: each parameter that falls back, and why.
    "link_not_a_choice": "is not one of the choices",
    "link_not_usable": "is not usable: {error}",
    "link_fall_back": "{label} ({key}={given}) {why}; the default{fallback} is used instead.",
    "link_fallback_value": " ({value})",
    "link_mode_fall_back": "The run-size mode ({key}={given}) is neither hours nor flops; hours is used instead.",
    "link_notice": "This link could not be followed in full. {notes}",
    # The buttons' status line.
    "loaded_preset": "Loaded: {label}",
    "link_copied": "Link copied.",
    "copy_from_address_bar": "Copy this link from the address bar: {href}",
    "fix_first": "Fix the marked fields first.",
    # The chart's accessible name: what it shows, then the summary the answer gives it. The page's
    # own markup (docs/calculator.md) carries the first sentence until the chart is drawn.
    "chart_name": "Cumulative cost against runs for both options. {summary}",
    # The scenario file the calculator offers for download: placeholders its author replaces.
    "scenario_title": "My case, from the calculator",
    "scenario_summary": "Describe the team and the workload here.",
    "scenario_workload": "your workload",
    "scenario_source": "Calculator: {href}",
}

# The sides as the form names them.
FORM_SIDES = {side: VERDICT_LABELS[side] for side in ("trainium", "gpu")}


def tables() -> dict[str, Any]:
    """The messages and labels as the calculator's data carries them: wording.mjs says none of its own."""
    return {"MESSAGES": MESSAGES, "FORM_SIDES": FORM_SIDES}
