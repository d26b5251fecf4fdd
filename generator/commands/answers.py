"""What `guide mcp` answers, without the protocol: each tool's answer as plain data, from the project
loaded once, sized for a model's context.

An answer leads with what a model acts on: the verdict, each side's plan and the price record it is
bought at, the figures used (each once, by its key in data/), their sources (each once, by key), the
thresholds that would flip the verdict, the calculator link, and until when it holds (the next
weekly price refresh, `lifetimes`). Everything in it is read out of the engine's one document
(`results.workload_dict`, cut by `results.workload_summary`), and `detail: "full"` adds that
document whole, as `guide evaluate --format json` writes it.

A bad argument raises `Refused` with one line per problem, `field: what is wrong (got X)`, as
`guide validate` words it; what it got is echoed as a short excerpt (`problems.describe`).

What `guide mcp` answers, without the protocol, sized for a model's context: the project loaded
once; each answer leads with the verdict, each side's plan and the price record it is bought at, the
figures used and their sources (each once, by key), the thresholds and a calculator link, read out
of the engine's one document (`results.workload_summary`), which `detail: "full"` adds whole; the
throughput evidence for an instance pair; `explain`'s listed topics (methodology sections, glossary
terms, the throughput page, every step and reason code); a bad argument refused with the field, the
reason and a short excerpt of what it got.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.commands import lifetimes
from generator.inputs.freshness import Freshness
from generator.inputs.loader import InputError, Project, load_project, validate_workload, workload_document
from generator.inputs.problems import describe, excerpt
from generator.model import wording
from generator.model.catalog import OPTIONS, Catalog
from generator.model.engine import REASON_CODES, STEP_RULES
from generator.model.results import (
    ScenarioResult,
    WorkloadResult,
    evaluate_workload,
    to_dict,
    workload_dict,
    workload_summary,
)
from generator.model.schema import Architecture, Workload
from generator.model.suggest import did_you_mean
from generator.model.wording import VERDICT_LABELS
from generator.rendering.published import downloads
from generator.rendering.calculator.data import workload_json
from generator.rendering.calculator.fields import link_query
from generator.rendering.embeds.folders import page_url
from generator.rendering.published.llms import markdown_path, result_path

METHODOLOGY = "methodology.md"
GLOSSARY = "glossary.md"
THROUGHPUT = "throughput.md"
DETAIL = ("summary", "full")
ARCHITECTURES: tuple[str, ...] = Architecture.__args__  # type: ignore[attr-defined]
THE_DECISION = "the-decision"  # the methodology's section that sets the steps out
LIST_LIMIT = (1, 100, 25)  # list_scenarios: the fewest, the most and by default the scenarios a page holds
MAX_OFFSET = 1_000_000


class Refused(Exception):
    """A tool's argument the guide cannot take: the message names the field and the reason."""


@dataclass(frozen=True)
class Topic:
    """Something `explain` answers about: a methodology section, a glossary term, a page, or one of the
    engine's step and reason codes."""

    id: str
    kind: str  # section, term, page, step or reason
    title: str
    url: str
    markdown: str
    aliases: tuple[str, ...] = ()
    see_also: tuple[str, ...] = ()


def _problems(e: InputError) -> Refused:
    return Refused("\n".join(f"{p.field}: {p.message}" for p in e.problems))


def _words(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _compact(row: dict[str, Any]) -> dict[str, Any]:
    """A row without the fields it leaves empty."""
    return {k: v for k, v in row.items() if v is not None and v != ""}


def code_topics(site_url: str) -> list[Topic]:
    """A topic for each step and reason code of the engine, pointing at the decision's section."""
    url = f"{site_url}{page_url(METHODOLOGY)}#{THE_DECISION}"
    topics = []
    for rule, codes in STEP_RULES.items():
        label = wording.rule_label(rule)
        topics += [Topic(code, "step", f"{label}: {code}", url,
                         wording.assistant("step", label=label, code=code, meaning=wording.code_meaning(code)),
                         see_also=(THE_DECISION,)) for code in codes]
    topics += [Topic(code, "reason", f"Cannot run: {code}", url,
                     wording.assistant("reason", code=code, meaning=wording.code_meaning(code)), see_also=(THE_DECISION,))
               for code in sorted(REASON_CODES)]
    return topics


class Guide:
    """The project as the tools read it: loaded and evaluated once, as a build loads it. topics: what
    `explain` answers about from the pages (sections, terms, pages); the engine's codes are added."""

    def __init__(self, root: Path, site_url: str, today: dt.date, topics: Iterable[Topic] = ()):
        self.root = root
        self.site_url = site_url
        self.project: Project = load_project(root)
        self.catalog: Catalog = self.project.catalog
        self.fresh = Freshness.of(self.catalog, today)
        self.topics = [*topics, *code_topics(site_url)]
        self.by_topic = {t.id: t for t in self.topics}
        self.by_id = {r.id: r for r in self.project.results}
        self.schedule = lifetimes.weekly_schedule(root)

    def holds_until(self) -> str | None:
        """When the answers stop holding: the next weekly price refresh (UTC), or None."""
        at = lifetimes.next_refresh(self.schedule, dt.datetime.now(dt.timezone.utc))
        return None if at is None else at.isoformat(timespec="minutes")

    def _dated(self) -> dict[str, Any]:
        return {"data_as_of": self.catalog.latest_as_of().isoformat(), "holds_until": self.holds_until()}

    # Sources, figures and addresses.

    def sources(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Each source once, by key: its short name, address, kind and the date it shows (null where it
        shows none)."""
        out = {}
        for key in dict.fromkeys(keys):
            s = self.catalog.sources.get(key)
            if s is not None:
                # as_of stays when null: the source shows no date (its title says so).
                out[key] = {**_compact({"name": s.name, "url": s.url, "kind": s.kind}),
                            "as_of": None if s.as_of is None else s.as_of.isoformat()}
        return out

    @staticmethod
    def _cited(f: Any, **more: Any) -> dict[str, Any]:
        """A sourced figure of data/ as plain data: its value (and range), source and date."""
        values = {k: getattr(f, k, None) for k in ("value", "low", "high")}
        return _compact({**more, **values, "source": f.source, "as_of": f.as_of.isoformat(), "note": f.note})

    def figures_used(self, w: WorkloadResult) -> dict[str, dict[str, Any]]:
        """The figures of data/assumptions.yaml the engine read for this workload, by their key there
        (the two prices are in the plans, with the record each side is bought at)."""
        a, wl = self.catalog.assumptions, w.workload
        used: dict[str, dict[str, Any]] = {}
        if wl.porting.engineer_week_usd is None:
            used["engineer_week_usd"] = self._cited(a.engineer_week_usd)
        if wl.porting.weeks is None and wl.architecture in a.porting_classes:
            used[f"porting_classes.{wl.architecture}.weeks"] = self._cited(a.porting_classes[wl.architecture].weeks)
        if wl.neuron_experience in a.neuron_experience:
            used[f"neuron_experience.{wl.neuron_experience}"] = self._cited(a.neuron_experience[wl.neuron_experience])
        if wl.porting.engineers is None:
            used["port_engineers"] = self._cited(a.port_engineers)
        for name in wl.constraints:
            if name in a.constraints:
                c = a.constraints[name]
                weeks = {} if c.weeks is None else {"weeks": [c.weeks.low, c.weeks.value, c.weeks.high]}
                used[f"constraints.{name}"] = self._cited(c, effect=c.effect, **weeks)
        # The spot pool each plan buys from, in the region it buys in: the Advisor's band, or the default.
        for side, risk in w.spot_risks.items():
            bought = w.prices[side]
            if risk.bucket is not None:
                used[f"instances.{bought.instance}.spot_interruption.{bought.region}"] = _compact({
                    "value": risk.bucket, "source": risk.source, "as_of": risk.as_of.isoformat()})
            else:
                used["spot_interruptions_per_instance_hour"] = self._cited(a.spot_interruptions_per_instance_hour)
        if w.spot_risks:
            used["spot_hours_lost_per_interruption"] = self._cited(a.spot_hours_lost_per_interruption)
        used["close_call_margin"] = self._cited(a.close_call_margin)
        if wl.availability.needed_within_days is not None:
            used["soon_days"] = self._cited(a.soon_days)
        return used

    def calculator_url(self, workload: Workload) -> str:
        query = link_query(workload_json(workload), workload_json(self.project.reference.workload),
                           self.catalog.assumptions.engineer_week_usd.value)
        return f"{self.site_url}calculator/" + (f"?{query}" if query else "")

    def addresses(self, r: ScenarioResult) -> dict[str, str]:
        page = f"scenarios/{r.id}.md"
        return {"page_url": self.site_url + page_url(page), "markdown_url": self.site_url + markdown_path(page),
                "result_url": self.site_url + result_path(r.id)}

    # Arguments.

    @staticmethod
    def _arguments(arguments: Any, known: Iterable[str]) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            raise Refused(f"(arguments): expected a mapping (got {describe(arguments)})")
        unknown = [k for k in arguments if k not in known]
        if unknown:
            key = str(unknown[0])
            raise Refused(f"{excerpt(key)}: unknown argument{did_you_mean(key[:100], list(known))} (got {describe(key)})")
        return arguments

    @staticmethod
    def _known(name: str, value: Any, known: Any, *, required: bool = False) -> None:
        if value is None and not required:
            return
        if not isinstance(value, str) or not value:
            raise Refused(f"{name}: expected a name as text (got {describe(value)})")
        if value not in known:
            raise Refused(f"{name}: not in data/{did_you_mean(value[:100], known)} (got {describe(value)})")

    @staticmethod
    def _number(name: str, value: Any, low: int, high: int, default: int) -> int:
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise Refused(f"{name}: expected a whole number from {low} to {high} (got {describe(value)})")
        return value

    def _detail(self, arguments: dict[str, Any]) -> str:
        detail = arguments.get("detail", "summary")
        if detail not in DETAIL:
            raise Refused(f"detail: expected {' or '.join(DETAIL)}{did_you_mean(str(detail)[:100], DETAIL)} (got {describe(detail)})")
        return detail

    # The tools.

    def evaluate_workload(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            raise Refused(f"(arguments): expected a mapping (got {describe(arguments)})")
        detail = self._detail(arguments)
        workload = {k: v for k, v in arguments.items() if k != "detail"}
        try:
            checked = validate_workload(workload_document(workload, "workload"), self.catalog)
        except InputError as e:
            raise _problems(e) from None
        return self.workload_answer(evaluate_workload(checked, self.catalog), detail)

    def _workload_part(self, w: WorkloadResult) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """One workload's summary with its calculator link, the figures it used, and the whole document."""
        document = workload_dict(w, self.fresh)
        part = workload_summary(document)
        for plan in part["plans"].values():
            for key in ("price", "hourly_price"):
                if key in plan:
                    plan[key] = _compact(plan[key])
        # The code of the step that decided, which `explain` takes: the document words it.
        part["decided_by"]["code"] = [step for step in w.outcome.trace if step.verdict is not None][-1].code
        part["verdict_label"] = VERDICT_LABELS[part["verdict"]]
        part["calculator_url"] = self.calculator_url(w.workload)
        return part, self.figures_used(w), document

    def _source_keys(self, parts: Iterable[dict[str, Any]], figures: dict[str, dict[str, Any]]) -> list[str]:
        keys = [plan[key]["source"] for p in parts for plan in p["plans"].values() for key in ("price", "hourly_price")
                if key in plan]
        return keys + [f["source"] for f in figures.values()]

    def workload_answer(self, w: WorkloadResult, detail: str = "summary") -> dict[str, Any]:
        """The answer about one evaluated workload: its verdict and plans first, then the figures used
        and their sources, the thresholds, the calculator link; the engine's whole document on request."""
        part, figures, document = self._workload_part(w)
        first = ("name", "verdict", "verdict_label", "decided_by", "plans")
        then = ("thresholds", "break_even", "calculator_url")
        answer = {**{k: part[k] for k in first}, "figures": figures,
                  "sources": self.sources(self._source_keys([part], figures)), **{k: part[k] for k in then},
                  **{k: v for k, v in part.items() if k not in first + then}, **self._dated()}
        if detail == "full":
            answer["result"] = document
        else:
            answer["more"] = wording.assistant("more")
        return answer

    def find_prices(self, arguments: dict[str, Any]) -> dict[str, Any]:
        arguments = self._arguments(arguments, ("instance", "region", "option"))
        instance, region, option = (arguments.get(k) for k in ("instance", "region", "option"))
        self._known("instance", instance, self.catalog.instances, required=True)
        self._known("region", region, self.catalog.regions())
        self._known("option", option, OPTIONS)
        rows, others, keys = [], [], []
        for row, dated in zip(downloads.price_rows(self.catalog), self._dated_prices(), strict=True):
            if row["instance"] != instance or region not in (None, row["region"]) or option not in (None, row["option"]):
                continue
            keys.append(row["source"])
            rows.append(_compact({**{k: v for k, v in row.items() if k not in ("instance", "source_title", "source_url")},
                                  "stale": self.fresh.is_stale(dated), "age_days": self.fresh.age(dated)}))
            # Older and other sources' figures only for one region: across every region they would crowd
            # out the current prices a model asked for.
            for alt in getattr(dated, "alternatives", ()) if region is not None else ():
                keys.append(alt.source)
                others.append(_compact({"region": row["region"], "option": row["option"], "usd_per_hour": alt.usd_per_hour,
                                        "source": alt.source, "as_of": None if alt.as_of is None else alt.as_of.isoformat(),
                                        "note": alt.note}))
        figures = []
        for row in downloads.instance_rows(self.catalog):
            if row["instance"] == instance:
                keys.append(row["source"])
                figures.append(_compact({k: v for k, v in row.items() if k not in ("instance", "source_title", "source_url")}))
        return {"instance": instance, "region": region, "option": option, "today": self.fresh.today.isoformat(),
                "stale_days": self.fresh.max_days, "prices": rows, "other_figures": others, "instance_figures": figures,
                "sources": self.sources(keys), "downloads": [self.site_url + p for p in sorted(downloads.PATHS)],
                **self._dated()}

    def _dated_prices(self) -> list[Any]:
        """The catalog's entries in the order `downloads.price_rows` lists them."""
        return [*self.catalog.prices, *self.catalog.unpublished]

    def list_scenarios(self, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        arguments = self._arguments(arguments or {}, ("verdict", "instance", "offset", "limit"))
        verdict, instance = arguments.get("verdict"), arguments.get("instance")
        self._known("verdict", verdict, VERDICT_LABELS)
        self._known("instance", instance, self.catalog.instances)
        low, high, default = LIST_LIMIT
        limit = self._number("limit", arguments.get("limit"), low, high, default)
        offset = self._number("offset", arguments.get("offset"), 0, MAX_OFFSET, 0)
        chosen = [r for r in self.project.results if verdict in (None, r.verdict)
                  and (instance is None or any(instance in (w.workload.trainium.instance, w.workload.gpu.instance) for w in r.workloads))]
        out, keys = [], []
        for r in chosen[offset:offset + limit]:
            workloads = []
            for w in r.workloads:
                price_sources = w.price_sources
                keys += price_sources
                workloads.append({"name": w.workload.name, "verdict": w.outcome.verdict,
                                  "pair": f"{w.workload.trainium.instance} / {w.workload.gpu.instance}",
                                  "totals": {"trainium": w.outcome.trainium.total, "gpu": w.outcome.gpu.total},
                                  "price_sources": price_sources})
            out.append({"id": r.id, "title": r.scenario.title, "verdict": r.verdict, "saving_per_run": r.saving_per_run,
                        "workloads": workloads, "page_url": self.addresses(r)["page_url"]})
        return {"count": len(chosen), "offset": offset, "scenarios": out, "sources": self.sources(keys),
                "addresses": wording.assistant("addresses"), **self._dated()}

    def get_scenario(self, arguments: dict[str, Any]) -> dict[str, Any]:
        arguments = self._arguments(arguments, ("id", "detail"))
        sid = arguments.get("id")
        self._known("id", sid, self.by_id, required=True)
        detail = self._detail(arguments)
        r = self.by_id[sid]
        parts, figures = [], {}
        for w in r.workloads:
            part, used, _ = self._workload_part(w)
            parts.append(part)
            figures.update(used)
        s = r.scenario
        answer = {"id": r.id, "title": s.title, "summary": s.summary, "verdict": r.verdict,
                  "verdict_label": VERDICT_LABELS[r.verdict], "expect": s.expect, "robust": r.robust,
                  "saving_per_run": r.saving_per_run, "total_difference": r.total_difference, "workloads": parts,
                  "figures": figures, "sources": self.sources(self._source_keys(parts, figures)), **self.addresses(r),
                  **self._dated()}
        if detail == "full":
            answer["result"] = to_dict(r, self.fresh)
        else:
            answer["more"] = wording.assistant("more")
        return answer

    def throughput(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """What the guide knows about the relative throughput of one instance pair: each chip's own
        measurements and utilisation, the claims that touch them, the ratio of their peaks, and what
        the scenarios assume for the pair; each figure with its source and date."""
        arguments = self._arguments(arguments, ("trainium", "gpu", "architecture"))
        sides = {side: arguments.get(side) for side in ("trainium", "gpu")}
        for side, name in sides.items():
            self._known(side, name, [i for i, inst in self.catalog.instances.items() if inst.side == side], required=True)
        architecture = arguments.get("architecture")
        if architecture is not None and architecture not in ARCHITECTURES:
            raise Refused(f"architecture: expected one of {', '.join(ARCHITECTURES)}"
                          f"{did_you_mean(str(architecture)[:100], ARCHITECTURES)} (got {describe(architecture)})")
        inst = {side: self.catalog.instances[name] for side, name in sides.items()}
        chips = {side: i.chip for side, i in inst.items()}
        known = self.catalog.throughput
        keys: list[str] = []

        def cited(rows: Iterable[Any], *fields: str) -> list[dict[str, Any]]:
            out = []
            for f in rows:
                keys.append(f.source)
                out.append(self._cited(f, **{k: getattr(f, k) for k in fields}))
            return out

        measured = {side: cited([m for m in known.measured if m.chip == chip and architecture in (None, m.architecture)],
                                "model", "system", "precision", "accelerators", "sequence_length", "tokens_per_second",
                                "derived", "software") for side, chip in chips.items()}
        utilisation = {side: cited([u for u in known.utilisation if u.chip == chip], "what") for side, chip in chips.items()}
        claims = cited([c for c in known.claims if c.trainium == chips["trainium"] and c.gpu in (None, chips["gpu"])],
                       "says", "gpu")
        peak: dict[str, Any] = {}
        for precision in ("bf16", "fp8"):
            each = {side: i.chips.value * self.catalog.peak_tflops(sides[side], precision) for side, i in inst.items()}
            peak[precision] = {"ratio": each["trainium"] / each["gpu"],
                               **{f"{side}_tflops": v for side, v in each.items()}}
        peak_sources = []
        for side, i in inst.items():
            chip = self.catalog.chips[i.chip]
            peak_sources += [i.chips.source, chip.bf16_tflops.source] + ([chip.fp8_tflops.source] if chip.fp8_tflops else [])
        peak["sources"] = list(dict.fromkeys(peak_sources))
        keys += peak["sources"]
        assumed = []
        for r in self.project.results:
            for w in r.workloads:
                if (w.workload.trainium.instance, w.workload.gpu.instance) == (sides["trainium"], sides["gpu"]):
                    e = w.workload.relative_throughput
                    why = w.workload.rationale.relative_throughput
                    assumed.append(_compact({"scenario": r.id, "workload": w.workload.name, "value": e.value, "low": e.low,
                                             "high": e.high, "why": why}))
        ref = self.project.reference.workload
        reference = None
        if (ref.trainium.instance, ref.gpu.instance) == (sides["trainium"], sides["gpu"]):
            e = ref.relative_throughput
            reference = _compact({"value": e.value, "low": e.low, "high": e.high, "why": ref.rationale.relative_throughput})
        pair = {side: {"instance": sides[side], "chip": chips[side], "chips": inst[side].chips.value} for side in sides}
        answer = {
            "pair": pair,
            "architecture": architecture,
            "advice": wording.assistant("measure"),
            "like_for_like": wording.assistant("no_pair", trainium=sides["trainium"], gpu=sides["gpu"]),
            "measured": measured,
            "utilisation": utilisation,
            "peak": {**peak, "what": wording.assistant("peak")},
            "claims": {"what": wording.assistant("claims"), "claims": claims} if claims else None,
            "scenarios": {"what": wording.assistant("scenarios"), "assume": assumed} if assumed else None,
            "reference": reference,
            "class_note": (wording.assistant("other_class", label=self.catalog.assumptions.porting_classes[architecture].label)
                           if architecture not in (None, "mainstream") else None),
            "page_url": self.site_url + page_url(THROUGHPUT),
            "sources": self.sources(keys),
            **self._dated(),
        }
        return _compact(answer)

    def explain(self, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        arguments = self._arguments(arguments or {}, ("topic",))
        topic = arguments.get("topic")
        if topic is None or (isinstance(topic, str) and not topic.strip()):
            return {"topics": [{"id": t.id, "kind": t.kind, "title": t.title} for t in self.topics],
                    "how": wording.assistant("topics"), **self._dated()}
        if not isinstance(topic, str):
            raise Refused(f"topic: expected a topic's id or a term, as text (got {describe(topic)})")
        found = find_topics(self.topics, topic)
        if not found:
            names = [t.id for t in self.topics] + [t.title for t in self.topics]
            raise Refused(f"topic: no topic matches it{did_you_mean(topic[:100], names)}; leave topic out for the list "
                          f"(got {describe(topic)})")
        best, *others = found
        also = [self.by_topic[i] for i in best.see_also if i in self.by_topic]
        also += [t for t in others if t not in also and t is not best][: max(0, 4 - len(also))]
        return {"id": best.id, "kind": best.kind, "title": best.title, "url": best.url, "markdown": best.markdown,
                "see_also": [{"id": t.id, "title": t.title, "url": t.url} for t in also],
                "sources_url": self.site_url + page_url("sources.md"), **self._dated()}


# Words a question carries that name no topic ("why neither", "what is staleness").
_FILLER = frozenset({"why", "what", "whats", "is", "are", "a", "an", "the", "does", "do", "mean", "means", "meaning",
                     "how", "of", "about", "explain", "when", "which"})
_KIND_ORDER = {"term": 0, "section": 1, "page": 2, "step": 3, "reason": 4}


def _same_word(a: str, b: str) -> bool:
    """One word the other's stem: 'staleness' and 'stale', 'runs' and 'run'."""
    short, long_ = sorted((a, b), key=len)
    return a == b or (len(short) >= 4 and long_.startswith(short))


def find_topics(topics: list[Topic], asked: str) -> list[Topic]:
    """The topics behind a question, best first: one whose id, title or alias is what was asked;
    then those whose names share the most of its words (terms before sections, sections before
    codes); then those whose text names it most often."""
    key = _words(asked)
    words = [w for w in key.split() if w not in _FILLER] or key.split()
    names = {t.id: {_words(t.id), _words(t.title), *(_words(a) for a in t.aliases)} for t in topics}
    exact = [t for t in topics if key in names[t.id] or " ".join(words) in names[t.id]]
    if exact:
        return exact + [t for t in topics if t not in exact and t.id in exact[0].see_also]

    def shared(t: Topic) -> int:
        said = {w for name in names[t.id] for w in name.split()}
        return sum(any(_same_word(w, s) for s in said) for w in words)

    scored = sorted(((shared(t), t) for t in topics), key=lambda c: (-c[0], _KIND_ORDER.get(c[1].kind, 9)))
    named = [t for n, t in scored if n == scored[0][0] and n > 0] if scored else []
    phrase = " ".join(words)
    counted = sorted(((_words(t.markdown).count(phrase), i) for i, t in enumerate(topics) if t not in named),
                     key=lambda c: (-c[0], c[1]))
    return named + [topics[i] for n, i in counted if n > 0]


def guide_for(root: Path) -> Guide:
    """The project at `root` with the site URL and day a build of it would use, and the topics its
    pages give `explain`: the methodology's sections, the glossary's terms, the throughput page."""
    from generator.commands import siteconfig
    from generator.rendering.published.methodology import Pages

    config = siteconfig.read(root)
    today = siteconfig.today(config.today)
    guide = Guide(root, config.site_url, today)
    pages = Pages(guide.project, root / "docs", config.site_url, today)
    # A step of the decision by its rule's name is the section that sets the steps out.
    rules = tuple(name for rule in STEP_RULES for name in (rule, wording.rule_label(rule)))
    topics = [Topic(q.anchor, "section", q.title, q.url, q.markdown, rules if q.anchor == THE_DECISION else ())
              for q in pages.sections(METHODOLOGY)]
    for q in pages.terms(GLOSSARY):
        names = [n.strip() for n in q.title.split(",")]
        topics.append(Topic(_words(names[0]).replace(" ", "-"), "term", q.title, q.url, q.markdown, tuple(names),
                            tuple(_linked_sections(q.markdown, guide.site_url))))
    whole = pages.whole(THROUGHPUT)
    if whole is not None:
        topics.append(Topic("measured-throughput", "page", whole.title, whole.url, whole.markdown, ("throughput evidence",)))
    guide.topics = [*topics, *guide.topics]
    guide.by_topic = {t.id: t for t in guide.topics}
    return guide


def _linked_sections(markdown: str, site_url: str) -> list[str]:
    """The methodology sections a term's definition links to, by anchor."""
    return re.findall(rf"\]\({re.escape(site_url + page_url(METHODOLOGY))}#([\w-]+)\)", markdown)
