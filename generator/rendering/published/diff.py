"""What a change does to the guide: two evaluated projects in, a Markdown report out.

Pure comparison: no git and no files here (generator/commands/gitbase.py fetches the base side). Both
projects are loaded with check_expect=False, so a verdict that no longer matches its `expect` is
a row in the report, flagged, rather than an error that hides the rest.

`guide diff`'s comparison of two evaluated projects and its Markdown report (also the pull request
body of a price refresh). Pure: no git, no files.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import jinja2

from generator import TEMPLATES
from generator.inputs.loader import Project
from generator.inputs.provenance import changed_without_provenance
from generator.model import formatting as fmt
from generator.model.catalog import OPTION_LABELS, Price
from generator.model.wording import withdrawn
from generator.model.results import ScenarioResult, WorkloadResult

DEFAULT_THRESHOLD = 5.0  # percent


@dataclass(frozen=True)
class VerdictChange:
    before: ScenarioResult
    after: ScenarioResult


@dataclass(frozen=True)
class NumberChange:
    """One workload whose saving per run or break-even runs moved by more than the threshold."""

    scenario: str
    workload: str
    saving_before: float | None  # None: the workload is new or gone
    saving_after: float | None
    break_even_before: float | None  # None also means "Trainium never saves per run"
    break_even_after: float | None
    saving_pct: float | None  # relative change in percent; inf when it comes from or goes to 0 or none
    break_even_pct: float | None
    note: str = ""


@dataclass(frozen=True)
class PriceChange:
    instance: str
    region: str
    option: str
    before: Price | None
    after: Price | None

    @property
    def pct(self) -> float | None:
        a, b = self.before, self.after
        if a is None or b is None or a.usd_per_hour is None or b.usd_per_hour is None:
            return None
        return relative_change(a.usd_per_hour, b.usd_per_hour)

    @property
    def unsourced(self) -> bool:
        """The value moved while the source and as_of stayed: the new figure cites nothing new."""
        return self.before is not None and self.after is not None and changed_without_provenance(self.before, self.after)


@dataclass
class Report:
    threshold: float
    added: list[ScenarioResult] = field(default_factory=list)
    removed: list[ScenarioResult] = field(default_factory=list)
    verdicts: list[VerdictChange] = field(default_factory=list)
    # Scenarios whose verdict did not change but differs from their `expect` (an edited expect).
    mismatches: list[ScenarioResult] = field(default_factory=list)
    numbers: list[NumberChange] = field(default_factory=list)
    prices: list[PriceChange] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.verdicts or self.mismatches or self.numbers or self.prices)


def relative_change(before: float | None, after: float | None) -> float | None:
    """Percent change; None when both are missing, inf when one side is missing or zero."""
    if before is None and after is None:
        return None
    if before is None or after is None:
        return math.inf
    if before == after:
        return 0.0
    if before == 0:
        return math.inf
    return (after - before) / abs(before) * 100


def _beyond(pct: float | None, threshold: float) -> bool:
    return pct is not None and abs(pct) > threshold


def _workload_changes(sid: str, before: ScenarioResult, after: ScenarioResult, threshold: float) -> list[NumberChange]:
    old = {w.workload.name: w for w in before.workloads}
    new = {w.workload.name: w for w in after.workloads}
    out = []
    for name in [*old, *(n for n in new if n not in old)]:
        a: WorkloadResult | None = old.get(name)
        b: WorkloadResult | None = new.get(name)
        sa = a.outcome.saving_per_run if a else None
        sb = b.outcome.saving_per_run if b else None
        ba = a.outcome.break_even_runs if a else None
        bb = b.outcome.break_even_runs if b else None
        sp, bp = relative_change(sa, sb), relative_change(ba, bb)
        note = "workload added" if a is None else "workload removed" if b is None else ""
        if note or _beyond(sp, threshold) or _beyond(bp, threshold):
            out.append(NumberChange(sid, name, sa, sb, ba, bb, sp, bp, note))
    return out


def _price_key(p: Price) -> tuple[str, str, str]:
    return (p.instance, p.region, p.option)


def _price_changed(a: Price, b: Price) -> bool:
    return (a.offered, a.usd_per_hour, a.low, a.high, a.vanished) != (b.offered, b.usd_per_hour, b.low, b.high, b.vanished)


def compare(base: Project, head: Project, threshold: float = DEFAULT_THRESHOLD) -> Report:
    """Everything that differs between base and head, in the order a reviewer reads it."""
    report = Report(threshold)
    old = {r.id: r for r in base.results}
    new = {r.id: r for r in head.results}
    report.added = [new[i] for i in sorted(set(new) - set(old))]
    report.removed = [old[i] for i in sorted(set(old) - set(new))]
    for sid in sorted(set(old) & set(new)):
        a, b = old[sid], new[sid]
        if a.verdict != b.verdict:
            report.verdicts.append(VerdictChange(a, b))
        elif not b.matches_expectation:
            report.mismatches.append(b)
        report.numbers.extend(_workload_changes(sid, a, b, threshold))
    before = {_price_key(p): p for p in base.catalog.prices}
    after = {_price_key(p): p for p in head.catalog.prices}
    for key in sorted(set(before) | set(after)):
        a_p, b_p = before.get(key), after.get(key)
        if a_p is None or b_p is None or _price_changed(a_p, b_p):
            report.prices.append(PriceChange(*key, a_p, b_p))
    return report


# --- Markdown ------------------------------------------------------------------------------------

# What can form markup inside a table cell; "-", "." or "+" start a list only at the start of a line.
_PUNCT = re.compile(r"([\\`*_{}\[\]<>|~@&])")


def cell(text: object) -> str:
    """Contributed text made inert in a GitHub Markdown table cell: one line, punctuation escaped."""
    return _PUNCT.sub(r"\\\1", " ".join(str(text).split()))


def pct(x: float | None) -> str:
    """A relative change given in percent, signed."""
    if x is None:
        return ""
    if math.isinf(x):
        return "n/a"  # from or to none or zero: the two values say it
    return fmt.pct(x / 100, signed=True)


def price_text(p: Price | None) -> str:
    if p is None:
        return "no entry"
    if not p.offered:
        return "not offered"
    # A reviewer compares a price with its last figure: the rate as the source gives it, not cents.
    text = fmt.hourly_exact(p.usd_per_hour)
    if p.low is not None:
        text += f" (range {fmt.hourly_exact(p.low)} to {fmt.hourly_exact(p.high)})"
    if p.vanished is not None:
        text += f", {withdrawn(p.vanished)}"
    return text


def markdown(report: Report, base_label: str, base_sha: str) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    env.filters.update(cell=cell, money=fmt.money, runs=fmt.runs, pct=pct, threshold=fmt.threshold, price=price_text)
    return env.get_template("diff_report.md.j2").render(
        r=report, base_label=base_label, base_sha=base_sha, OPTION_LABELS=OPTION_LABELS
    )
