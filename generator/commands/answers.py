"""What `guide mcp` answers, without the protocol: each tool's answer as plain data, from the project
loaded once, the engine's numbers exactly as `guide evaluate --format json` writes them
(`results.to_dict`, `results.workload_dict`), and the source and date of every figure they use.

A bad argument raises `Refused` with one line per problem, `field: what is wrong (got X)`, as
`guide validate` words it; the server hands that back as the tool's error.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.inputs.freshness import Freshness
from generator.inputs.loader import InputError, Project, load_project, validate_workload, workload_document
from generator.model.catalog import OPTIONS, Catalog
from generator.model.results import ScenarioResult, WorkloadResult, evaluate_workload, to_dict, workload_dict
from generator.model.schema import Workload
from generator.model.suggest import did_you_mean
from generator.model.wording import RULE_LABELS, VERDICT_LABELS
from generator.rendering import downloads
from generator.rendering.calculator import workload_json
from generator.rendering.calculator_fields import link_query
from generator.rendering.embeds import page_url
from generator.rendering.published import markdown_path, result_path

METHODOLOGY = "methodology.md"


class Refused(Exception):
    """A tool's argument the guide cannot take: the message names the field and the reason."""


@dataclass(frozen=True)
class Section:
    title: str
    anchor: str
    markdown: str


def _problems(e: InputError) -> Refused:
    return Refused("\n".join(f"{p.field}: {p.message}" for p in e.problems))


class Guide:
    """The project as the tools read it: loaded and evaluated once, as a build loads it."""

    def __init__(self, root: Path, site_url: str, today: dt.date, methodology: list[Section]):
        self.root = root
        self.site_url = site_url
        self.project: Project = load_project(root)
        self.catalog: Catalog = self.project.catalog
        self.fresh = Freshness.of(self.catalog, today)
        self.methodology = methodology
        self.by_id = {r.id: r for r in self.project.results}

    # Sources and dates.

    def _source(self, key: str, as_of: dt.date | None, what: str, **more: Any) -> dict[str, Any]:
        s = self.catalog.sources.get(key)
        return {"figure": what, "source": key, "title": s.title if s else None, "url": s.url if s else None,
                "as_of": None if as_of is None else as_of.isoformat(), **more}

    def sources_of(self, w: WorkloadResult) -> list[dict[str, Any]]:
        """The source and date of every figure the engine used for this workload: each price the
        plans buy at (the way and region chosen, with whether it is stale or withdrawn), the spot
        pools they buy from, then the assumptions from data/assumptions.yaml it used."""
        out = []
        for side, p in w.used_prices:
            out.append(self._source(p.source, p.as_of, f"{side} price: {p.instance} {p.region} {p.option}",
                                    side=side, stale=self.fresh.is_stale(p), age_days=self.fresh.age(p),
                                    withdrawn=None if p.vanished is None else p.vanished.isoformat()))
        for side, risk in w.spot_risks.items():
            pool = f"{side} spot pool: {w.prices[side].instance} {w.prices[side].region}"
            out.append(self._source(risk.source, risk.as_of, pool + (f", the Advisor's band {risk.bucket}" if risk.bucket else
                                                                      ", the guide's default (the Advisor rates no such pool)")))
        a, wl = self.catalog.assumptions, w.workload
        used: list[tuple[str, Any]] = []
        if wl.porting.engineer_week_usd is None:
            used.append(("engineer-week cost", a.engineer_week_usd))
        if wl.porting.weeks is None and wl.architecture in a.porting_classes:
            used.append((f"port effort of a {wl.architecture} architecture", a.porting_classes[wl.architecture].weeks))
        if wl.neuron_experience in a.neuron_experience:
            used.append((f"Neuron experience: {wl.neuron_experience}", a.neuron_experience[wl.neuron_experience]))
        if wl.porting.engineers is None:
            used.append(("engineers on a port", a.port_engineers))
        for name in wl.constraints:
            if name in a.constraints:
                used.append((f"constraint: {name}", a.constraints[name]))
        if w.spot_risks:
            used.append(("spot hours lost per interruption", a.spot_hours_lost_per_interruption))
        used.append(("close-call margin", a.close_call_margin))
        if wl.availability.needed_within_days is not None:
            used.append(("days that count as soon", a.soon_days))
        out += [self._source(f.source, f.as_of, what) for what, f in used]
        return out

    # Addresses.

    def calculator_url(self, workload: Workload) -> str:
        query = link_query(workload_json(workload), workload_json(self.project.reference.workload),
                           self.catalog.assumptions.engineer_week_usd.value)
        return f"{self.site_url}calculator/" + (f"?{query}" if query else "")

    def addresses(self, r: ScenarioResult) -> dict[str, str]:
        page = f"scenarios/{r.id}.md"
        return {"page_url": self.site_url + page_url(page), "markdown_url": self.site_url + markdown_path(page),
                "result_url": self.site_url + result_path(r.id)}

    # The tools.

    def evaluate_workload(self, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            workload = validate_workload(workload_document(arguments, "workload"), self.catalog)
        except InputError as e:
            raise _problems(e) from None
        return self.workload_answer(evaluate_workload(workload, self.catalog))

    def workload_answer(self, w: WorkloadResult) -> dict[str, Any]:
        """The answer about one evaluated workload: its verdict and the figures that make it, read out
        of the engine's own document (`result`, as `guide evaluate --format json` writes it)."""
        result = workload_dict(w, self.fresh)
        o, t = result["outcome"], result["thresholds"]
        deciding = [s for s in o["trace"] if s["verdict"] is not None][-1]
        return {
            "name": result["name"],
            "verdict": o["verdict"],
            "verdict_label": VERDICT_LABELS[o["verdict"]],
            "totals": {"trainium": o["trainium"]["total"], "gpu": o["gpu"]["total"]},
            "total_difference": o["total_difference"],
            "saving_per_run": o["saving_per_run"],
            "deciding_step": {**deciding, "label": RULE_LABELS.get(deciding["rule"], deciding["rule"])},
            "reasons": {"trainium": o["trainium"]["reasons"], "gpu": o["gpu"]["reasons"],
                        "steps": [s["text"] for s in o["trace"]]},
            "thresholds": {k: v for k, v in t.items() if k != "break_even" and v is not None},
            "break_even_runs": o["break_even_runs"],
            "break_even": t["break_even"],
            "robustness": result["robustness"],
            "calculator_url": self.calculator_url(w.workload),
            "sources": self.sources_of(w),
            "result": result,
        }

    def find_prices(self, arguments: dict[str, Any]) -> dict[str, Any]:
        instance, region, option = (arguments.get(k) for k in ("instance", "region", "option"))
        self._known("instance", instance, self.catalog.instances, required=True)
        self._known("region", region, sorted({p.region for p in self.catalog.prices}))
        self._known("option", option, OPTIONS)
        rows = []
        for row, dated in zip(downloads.price_rows(self.catalog), self._dated_prices(), strict=True):
            if row["instance"] != instance or region not in (None, row["region"]) or option not in (None, row["option"]):
                continue
            rows.append({**row, "stale": self.fresh.is_stale(dated), "age_days": self.fresh.age(dated)})
            for alt in getattr(dated, "alternatives", ()):
                rows.append({"instance": row["instance"], "region": row["region"], "option": row["option"],
                             "status": "older or other figure", "usd_per_hour": alt.usd_per_hour,
                             **self._cited(alt.source, alt.as_of), "note": alt.note})
        figures = [row for row in downloads.instance_rows(self.catalog) if row["instance"] == instance]
        return {"instance": instance, "region": region, "option": option, "today": self.fresh.today.isoformat(),
                "stale_days": self.fresh.max_days, "prices": rows, "instance_figures": figures,
                "downloads": [self.site_url + p for p in sorted(downloads.PATHS)]}

    def _cited(self, key: str, as_of: dt.date | None) -> dict[str, Any]:
        s = self.catalog.sources.get(key)
        return {"source": key, "as_of": None if as_of is None else as_of.isoformat(),
                "source_title": s.title if s else None, "source_url": s.url if s else None}

    def _dated_prices(self) -> list[Any]:
        """The catalog's entries in the order `downloads.price_rows` lists them."""
        return [*self.catalog.prices, *self.catalog.unpublished]

    @staticmethod
    def _known(name: str, value: Any, known: Any, *, required: bool = False) -> None:
        if value is None and not required:
            return
        if not isinstance(value, str) or not value:
            raise Refused(f"{name}: expected a name as text (got {value!r})")
        if value not in known:
            raise Refused(f"{name}: not in data/{did_you_mean(value, known)} (got '{value}')")

    def list_scenarios(self) -> dict[str, Any]:
        out = []
        for r in self.project.results:
            out.append({"id": r.id, "title": r.scenario.title, "summary": r.scenario.summary, "verdict": r.verdict,
                        "expect": r.scenario.expect, "saving_per_run": r.saving_per_run,
                        "workloads": [{"name": w.workload.name, "verdict": w.outcome.verdict,
                                       "totals": {"trainium": w.outcome.trainium.total, "gpu": w.outcome.gpu.total},
                                       "sources": [s for s in self.sources_of(w) if "side" in s]}
                                      for w in r.workloads],
                        **self.addresses(r)})
        return {"scenarios": out, "data_as_of": self.catalog.latest_as_of().isoformat()}

    def get_scenario(self, arguments: dict[str, Any]) -> dict[str, Any]:
        sid = arguments.get("id")
        self._known("id", sid, self.by_id, required=True)
        r = self.by_id[sid]
        return {"result": to_dict(r, self.fresh), "workloads": [self.workload_answer(w) for w in r.workloads], **self.addresses(r)}

    def explain(self, arguments: dict[str, Any]) -> dict[str, Any]:
        topic = arguments.get("topic")
        if not isinstance(topic, str) or not topic.strip():
            raise Refused(f"topic: expected a step of the decision or a term, as text (got {topic!r})")
        found = find_sections(self.methodology, topic)
        if not found:
            titles = [s.title for s in self.methodology]
            raise Refused(f"topic: no section of the methodology covers it{did_you_mean(topic, titles)} (got '{topic}')")
        best, *others = found
        base = self.site_url + page_url(METHODOLOGY)
        # The section names each figure's source key and date where it quotes one; the sources page
        # gives each key's title and address.
        return {"topic": topic, "title": best.title, "url": f"{base}#{best.anchor}", "markdown": best.markdown,
                "see_also": [{"title": s.title, "url": f"{base}#{s.anchor}"} for s in others[:4]],
                "sources_url": self.site_url + page_url("sources.md"), "data_as_of": self.catalog.latest_as_of().isoformat()}


# The decision's steps (engine rules) and the section that sets each out.
_RULE_SECTIONS = {rule: "the-decision" for rule in RULE_LABELS}


def _words(text: str) -> str:
    return re.sub(r"[-_\s]+", " ", text.lower()).strip()


def find_sections(sections: list[Section], topic: str) -> list[Section]:
    """The sections behind a step of the decision or a term, best first: a rule's own section, then
    those whose heading names the term, then those whose text names it most often."""
    key = _words(topic)
    by_anchor = {s.anchor: s for s in sections}
    first = [by_anchor[_RULE_SECTIONS[key]]] if key in _RULE_SECTIONS and _RULE_SECTIONS[key] in by_anchor else []
    headed = [s for s in sections if key in _words(s.title) and s not in first]
    counted = sorted(((_words(s.markdown).count(key), i) for i, s in enumerate(sections)
                      if s not in first and s not in headed), key=lambda c: (-c[0], c[1]))
    return first + headed + [sections[i] for n, i in counted if n > 0]


def guide_for(root: Path) -> Guide:
    """The project at `root` with the site URL and day a build of it would use, and its methodology
    page with the figures filled in."""
    from generator.commands import siteconfig
    from generator.rendering.methodology import methodology_sections

    config = siteconfig.read(root)
    today = siteconfig.today(config.today)
    guide = Guide(root, config.site_url, today, [])
    page = root / "docs" / METHODOLOGY
    if page.is_file():  # a project of scenarios and data alone has no pages to explain from
        guide.methodology = [Section(*s) for s in methodology_sections(guide.project, page, config.site_url, today)]
    return guide
