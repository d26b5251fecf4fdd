"""data/ read into a Catalog: each file validated, then the references between them checked (sources,
chips, instances, one price per instance, region and option, the named classes every scenario may
use). All problems in all files at once.

`data/` into a `Catalog`: each file validated (`history.yaml`, `refresh.yaml` and `neuron.yaml`
optional), then the references between files. A file's bytes are parsed and validated once per
process (`_checked_file`), so a price refresh, which loads `data/` before and after its edit, parses
again only what it changed."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from generator.inputs.limits import character_problems
from generator.inputs.problems import InputError, Problem
from generator.inputs.validation import validate_doc
from generator.inputs.yamlread import Document, parse, read_bytes, strings
from generator.model import catalog as cat
from generator.model.suggest import did_you_mean

DATA_FILES: dict[str, type[BaseModel]] = {
    "sources.yaml": cat.SourcesFile,
    "chips.yaml": cat.ChipsFile,
    "instances.yaml": cat.InstancesFile,
    "prices.yaml": cat.PricesFile,
    "assumptions.yaml": cat.Assumptions,
}
# Files data/ may do without: history.yaml exists from the first recorded price move on, refresh.yaml
# from the first `guide refresh-prices`; without neuron.yaml no workload is marked as pinned to a
# Neuron release; without throughput.yaml the guide holds no throughput evidence.
OPTIONAL_FILES: dict[str, type[BaseModel]] = {
    "history.yaml": cat.HistoryFile,
    "refresh.yaml": cat.RefreshState,
    "neuron.yaml": cat.Neuron,
    "throughput.yaml": cat.ThroughputFile,
}


def load_catalog(data_dir: Path, shown_dir: str = "data") -> cat.Catalog:
    return read_catalog(data_dir, shown_dir)[0]


def read_data(data_dir: Path) -> dict[str, bytes | None]:
    """The bytes of each file data/ may hold, None where one cannot be read (reported where it is
    parsed)."""
    raws: dict[str, bytes | None] = {}
    for name in {**DATA_FILES, **OPTIONAL_FILES}:
        try:
            raws[name] = (data_dir / name).read_bytes()
        except OSError:
            raws[name] = None
    return raws


def read_catalog(data_dir: Path, shown_dir: str = "data", raws: dict[str, bytes | None] | None = None
                 ) -> tuple[cat.Catalog, dict[str, str]]:
    """The catalog, and the sha256 of the bytes each file was parsed from, by its shown path; raws:
    what `read_data` read, when the caller has it."""
    return _read_catalog(data_dir, shown_dir, read_data(data_dir) if raws is None else raws)


def _read_catalog(data_dir: Path, shown_dir: str, raws: dict[str, bytes | None]) -> tuple[cat.Catalog, dict[str, str]]:
    """Each file parsed and validated on its own, then the references between them checked; every
    problem of a stage reported together, and a stage's problems stop the build before the next."""
    docs, parsed = _parse_files(data_dir, shown_dir, raws)
    sources = parsed["sources.yaml"].sources
    chips = parsed["chips.yaml"].chips
    instances = parsed["instances.yaml"].instances
    prices_file = parsed["prices.yaml"]
    assumptions = parsed["assumptions.yaml"]
    trainium = _trainium_chips(chips, instances)
    problems = [
        *_source_problems(docs, sources),
        *_chip_problems(docs["chips.yaml"], chips, sources),
        *_instance_problems(docs["instances.yaml"], instances, chips),
        *_price_problems(docs["prices.yaml"], prices_file, instances),
        *_assumption_problems(docs["assumptions.yaml"], assumptions, sources, trainium),
        *(_neuron_problems(docs["neuron.yaml"], parsed["neuron.yaml"], trainium) if "neuron.yaml" in parsed else []),
        *_throughput_problems(docs.get("throughput.yaml"), parsed.get("throughput.yaml"), chips, assumptions),
    ]
    if problems:
        raise InputError(problems)
    catalog = cat.Catalog(sources=sources, chips=chips, instances=instances, prices=prices_file.prices, assumptions=assumptions,
                          unpublished=prices_file.unpublished,
                          history=parsed.get("history.yaml") or cat.HistoryFile(),
                          refresh=parsed.get("refresh.yaml") or cat.RefreshState(),
                          neuron=parsed.get("neuron.yaml"),
                          throughput=parsed.get("throughput.yaml") or cat.ThroughputFile())
    return catalog, {doc.path: doc.digest for doc in docs.values()}


def _parse_files(data_dir: Path, shown_dir: str, raws: dict[str, bytes | None]) -> tuple[dict[str, Document], dict[str, Any]]:
    """Every data file as a positioned document and as its validated model, by file name; raises
    InputError with the problems of every file (a required one missing, bad characters, invalid
    fields). An optional file that is not there is left out."""
    problems: list[Problem] = []
    docs: dict[str, Document] = {}
    parsed: dict[str, Any] = {}
    for name, model in {**DATA_FILES, **OPTIONAL_FILES}.items():
        shown = f"{shown_dir}/{name}"
        path = data_dir / name
        raw = raws.get(name)
        if raw is None and not path.exists():
            if name not in OPTIONAL_FILES:
                problems.append(Problem(shown, 1, 1, "(file)", f"required data file is missing (got no {name} in {shown_dir}/)"))
            continue
        try:
            docs[name], parsed[name], bad = _checked_file(shown, raw if raw is not None else read_bytes(path, shown), model)
            problems.extend(bad)
        except InputError as e:
            problems.extend(e.problems)
    if problems:
        raise InputError(problems)
    return docs, parsed


# Keyed by the file's bytes: a refresh loads data/ before and after its edit, and the second load
# parses only the files the edit changed. Two versions of each data file fit.
@functools.lru_cache(maxsize=2 * (len(DATA_FILES) + len(OPTIONAL_FILES)))
def _checked_file(shown: str, raw: bytes, model: type[BaseModel]) -> tuple[Document, Any, tuple[Problem, ...]]:
    """A data file parsed, with the characters no page may show and validated against its model;
    InputError with both kinds of problem when it does not validate. The document and model are
    shared by every load of the same bytes, so nothing may change them."""
    doc = parse(raw, shown)
    bad = tuple(character_problems(doc))
    try:
        return doc, validate_doc(doc, model), bad
    except InputError as e:
        raise InputError([*bad, *e.problems]) from None


def _source_problems(docs: dict[str, Document], sources: dict[str, cat.Source]) -> list[Problem]:
    """Every `source` field, in any file, that names no entry of data/sources.yaml."""
    return [doc.problem(loc, f"unknown source key, add it to data/sources.yaml{did_you_mean(key, sources)} (got '{key}')")
            for doc in docs.values() for loc, key in strings(doc.data) if loc[-1] == "source" and key not in sources]


def _undated(doc: Document, loc: tuple, f, sources: dict[str, cat.Source]) -> list[Problem]:
    """A figure left undated although its source shows a date: only a source without one excuses it."""
    src = sources.get(f.source)
    if f.as_of is None and src is not None and src.as_of is not None:
        return [doc.problem((*loc, "as_of"), (
            f"as_of is null but source {f.source} shows a date; give that date (got null, the source shows {src.as_of})"))]
    return []


def _chip_problems(cdoc: Document, chips: dict[str, cat.Chip], sources: dict[str, cat.Source]) -> list[Problem]:
    """Chip figures left undated although their source shows a date."""
    problems = []
    for cid, chip in chips.items():
        for name in ("bf16_tflops", "fp8_tflops", "memory_gib", "memory_bandwidth_tbps"):
            fig = getattr(chip, name)
            if fig is None:
                continue
            for loc, f in [((name,), fig)] + [((name, "alternatives", j), a) for j, a in enumerate(fig.alternatives)]:
                problems += _undated(cdoc, ("chips", cid, *loc), f, sources)
    return problems


def _instance_problems(idoc: Document, instances: dict[str, cat.Instance], chips: dict[str, cat.Chip]) -> list[Problem]:
    """Instances whose chip data/chips.yaml does not hold, and spot ratings in regions an instance does not list."""
    problems = [idoc.problem(("instances", iid, "chip"), f"unknown chip{did_you_mean(inst.chip, chips)} (got '{inst.chip}')")
                for iid, inst in instances.items() if inst.chip not in chips]
    for iid, inst in instances.items():
        s = inst.spot_interruption
        ratings = [(("spot_interruption",), s), *((("spot_interruption", "alternatives", i), a) for i, a in enumerate(s.alternatives))] \
            if s is not None else []
        problems += [idoc.problem(("instances", iid, *where, "value", region),
                                  f"{iid} has a spot rating in {region} but its regions do not list it (got '{region}')")
                     for where, rating in ratings for region in rating.value if region not in inst.regions.value]
    return problems


def _price_problems(pdoc: Document, prices_file: cat.PricesFile, instances: dict[str, cat.Instance]) -> list[Problem]:
    """Prices and unpublished ways of buying against the instances, in the file's order of checks."""
    seen, problems = _price_entry_problems(pdoc, prices_file.prices, instances)
    problems += _price_region_problems(pdoc, prices_file.prices, instances)
    problems += _unpublished_problems(pdoc, prices_file.unpublished, instances, seen)
    return problems


def _price_entry_problems(pdoc: Document, prices: list[cat.Price], instances: dict[str, cat.Instance]
                          ) -> tuple[dict[tuple[str, str, str], int], list[Problem]]:
    """Each price names a known instance, and one entry prices an instance, region and option; with
    the index of the entry that prices each (instance, region, option)."""
    problems = []
    seen: dict[tuple[str, str, str], int] = {}
    for i, p in enumerate(prices):
        if p.instance not in instances:
            problems.append(pdoc.problem(("prices", i, "instance"), f"unknown instance{did_you_mean(p.instance, instances)} (got '{p.instance}')"))
        key3 = (p.instance, p.region, p.option)
        if key3 in seen:
            first_line = pdoc.where(("prices", seen[key3]))[0]
            problems.append(pdoc.problem(
                ("prices", i),
                f"a second price for {p.instance} in {p.region}, {p.option}; keep one entry and list the others "
                f"as alternatives (got prices.{seen[key3]} at line {first_line} as well)",
            ))
        else:
            seen[key3] = i
    return seen, problems


def _price_region_problems(pdoc: Document, prices: list[cat.Price], instances: dict[str, cat.Instance]) -> list[Problem]:
    """A price offered now is in a region its instance lists; a review date only on a figure no API gives."""
    problems = []
    for i, p in enumerate(prices):
        if p.review_by is not None and cat.refreshable(p):
            problems.append(pdoc.problem(
                ("prices", i, "review_by"),
                f"{p.instance} {p.region} {p.option} is a figure AWS's APIs give, which `guide refresh-prices` confirms: "
                f"review_by is for figures no API gives; remove it (got {p.review_by})",
            ))
        inst = instances.get(p.instance)
        # A vanished figure is kept as the last one seen, where AWS may no longer sell the instance.
        if inst is not None and p.offered and p.vanished is None and p.region not in inst.regions.value:
            problems.append(pdoc.problem(
                ("prices", i, "region"),
                f"{p.instance} is priced in {p.region} but its regions in data/instances.yaml do not list it (got '{p.region}')",
            ))
    return problems


def _unpublished_problems(pdoc: Document, unpublished: list[cat.Unpublished], instances: dict[str, cat.Instance],
                          priced: dict[tuple[str, str, str], int]) -> list[Problem]:
    """A way of buying recorded as not published names a known instance and has no price."""
    problems = []
    for i, u in enumerate(unpublished):
        if u.instance not in instances:
            problems.append(pdoc.problem(("unpublished", i, "instance"), f"unknown instance{did_you_mean(u.instance, instances)} (got '{u.instance}')"))
        if (u.instance, u.region, u.option) in priced:
            problems.append(pdoc.problem(("unpublished", i), (
                f"{u.instance} {u.region} {u.option} has a price in prices; an option is either priced or "
                f"recorded as not published (got both)")))
    return problems


def _throughput_problems(tdoc: Document | None, throughput: cat.ThroughputFile | None, chips: dict[str, cat.Chip],
                         assumptions: cat.Assumptions) -> list[Problem]:
    """Throughput evidence naming chips chips.yaml holds and porting classes assumptions.yaml holds,
    each utilisation range in order."""
    if tdoc is None or throughput is None:
        return []
    problems = []

    def known(loc: tuple, name: str | None, names: Any, what: str) -> None:
        if name is not None and name not in names:
            problems.append(tdoc.problem(loc, f"unknown {what}{did_you_mean(name, names)} (got '{name}')"))

    for i, m in enumerate(throughput.measured):
        known(("measured", i, "chip"), m.chip, chips, "chip")
        known(("measured", i, "architecture"), m.architecture, assumptions.porting_classes, "porting class")
    for i, u in enumerate(throughput.utilisation):
        known(("utilisation", i, "chip"), u.chip, chips, "chip")
        if u.low > u.high:
            problems.append(tdoc.problem(("utilisation", i), f"needs low <= high (got low {u.low}, high {u.high})"))
    for i, c in enumerate(throughput.claims):
        known(("claims", i, "trainium"), c.trainium, chips, "chip")
        known(("claims", i, "gpu"), c.gpu, chips, "chip")
        if (c.low is None) != (c.high is None) or (c.low is not None and c.low > c.high):
            problems.append(tdoc.problem(("claims", i), f"needs both low and high, low <= high (got low {c.low}, high {c.high})"))
    return problems


def _trainium_chips(chips: dict[str, cat.Chip], instances: dict[str, cat.Instance]) -> list[str]:
    """The chips of data/chips.yaml that a Trainium instance has: the generations a constraint or a
    training path may name."""
    return [c for c in chips if any(i.side == "trainium" and i.chip == c for i in instances.values())]


def _neuron_problems(ndoc: Document, neuron: cat.Neuron, trainium: list[str]) -> list[Problem]:
    """Releases data/neuron.yaml names but does not list, and generations that are not Trainium's."""
    problems = []
    if neuron.current not in neuron.releases:
        problems.append(ndoc.problem(("current",), f"unknown release, list it under releases{did_you_mean(neuron.current, neuron.releases)} (got '{neuron.current}')"))
    for name, path in neuron.paths.items():
        for field in ("since", "last"):
            version = getattr(path, field)
            if version is not None and version not in neuron.releases:
                problems.append(ndoc.problem(("paths", name, field), f"unknown release, list it under releases{did_you_mean(version, neuron.releases)} (got '{version}')"))
        problems += [ndoc.problem(("paths", name, "chips", j), f"not a Trainium chip{did_you_mean(chip, trainium)} (got '{chip}')")
                     for j, chip in enumerate(path.chips) if chip not in trainium]
    return problems


def _assumption_problems(adoc: Document, assumptions: cat.Assumptions, sources: dict[str, cat.Source],
                         trainium: list[str]) -> list[Problem]:
    """The porting classes, constraints and experience levels the engine and every scenario may
    name: each present, each class including known constraints only, and each constraint applying
    to Trainium chips only."""
    problems = []
    for name, c in assumptions.constraints.items():
        problems += [adoc.problem(("constraints", name, "chips", j), f"not a Trainium chip{did_you_mean(chip, trainium)} (got '{chip}')")
                     for j, chip in enumerate(c.chips or []) if chip not in trainium]
    for cname, pc in assumptions.porting_classes.items():
        for inc in pc.includes:
            if inc not in assumptions.constraints:
                problems.append(adoc.problem(("porting_classes", cname, "includes"), f"unknown constraint{did_you_mean(inc, assumptions.constraints)} (got '{inc}')"))
    for name in ("mainstream", "moderate-custom", "heavy-custom-cuda", "novel"):
        if name not in assumptions.porting_classes:
            problems.append(adoc.problem(("porting_classes",), f"missing porting class '{name}' (got {', '.join(assumptions.porting_classes)})"))
    for name in ("none", "some", "experienced"):
        if name not in assumptions.neuron_experience:
            problems.append(adoc.problem(("neuron_experience",), f"missing experience level '{name}' (got {', '.join(assumptions.neuron_experience)})"))
    if assumptions.capacity_blocks is not None:
        problems.extend(_capacity_block_problems(adoc, assumptions.capacity_blocks, sources))
    return problems


def _capacity_block_problems(adoc: Document, b: cat.CapacityBlockTerms, sources: dict[str, cat.Source]) -> list[Problem]:
    """Capacity Block terms the engine can book by: whole numbers, dated as their sources are, a block
    within what blocks hold in all, and lengths that step by whole weeks from the last daily length
    to the longest."""
    problems = []
    for name in cat.CapacityBlockTerms.model_fields:
        fig = getattr(b, name)
        if fig is None:
            continue
        problems += _undated(adoc, ("capacity_blocks", name), fig, sources)
        if fig.value != int(fig.value):
            problems.append(adoc.problem(("capacity_blocks", name, "value"), f"must be a whole number (got {fig.value})"))
    if b.instances_per_block.value > b.instances_across_blocks.value:
        problems.append(adoc.problem(("capacity_blocks", "instances_per_block", "value"), (
            f"a block cannot hold more instances than all blocks together (got {b.instances_per_block.value:g} "
            f"against {b.instances_across_blocks.value:g})")))
    daily, step, longest = b.daily_steps_up_to_days.value, b.weekly_step_days.value, b.longest_days.value
    if longest < daily or (longest - daily) % step != 0:
        problems.append(adoc.problem(("capacity_blocks", "longest_days", "value"), (
            f"must be the last daily length plus whole steps of {step:g} days (got {longest:g}, daily up to {daily:g})")))
    return problems
