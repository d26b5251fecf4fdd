"""data/ read into a Catalog: each file validated, then the references between them checked (sources,
chips, instances, one price per instance, region and option, the named classes every scenario may
use). All problems in all files at once."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from generator.inputs.limits import character_problems
from generator.inputs.problems import InputError, Problem
from generator.inputs.validation import validate_doc
from generator.inputs.yamlread import Document, parse, read, strings
from generator.model import catalog as cat
from generator.model.schema import ConstraintName
from generator.model.suggest import did_you_mean
from generator.store.validation_cache import KnownScenarios

DATA_FILES: dict[str, type[BaseModel]] = {
    "sources.yaml": cat.SourcesFile,
    "chips.yaml": cat.ChipsFile,
    "instances.yaml": cat.InstancesFile,
    "prices.yaml": cat.PricesFile,
    "assumptions.yaml": cat.Assumptions,
}
# Files data/ may do without: history.yaml exists from the first recorded price move on.
OPTIONAL_FILES: dict[str, type[BaseModel]] = {
    "history.yaml": cat.HistoryFile,
}


def load_catalog(data_dir: Path, shown_dir: str = "data") -> cat.Catalog:
    return read_catalog(data_dir, shown_dir)[0]


def read_catalog(data_dir: Path, shown_dir: str = "data", known: KnownScenarios | None = None) -> tuple[cat.Catalog, dict[str, str]]:
    """The catalog, and the sha256 of the bytes each file was parsed from, by its shown path. With
    `known`, data/ as it validated in an earlier build from the same bytes is taken from there, and
    the catalog last read in this process from the same bytes is kept in its memo (`mkdocs serve`
    loads the project again on every save, and parsing data/ with positions takes about a second)."""
    raws: dict[str, bytes | None] = {}
    for name in {**DATA_FILES, **OPTIONAL_FILES}:
        try:
            raws[name] = (data_dir / name).read_bytes()
        except OSError:
            raws[name] = None  # reported where it is parsed
    key = (str(data_dir), shown_dir, tuple((n, None if r is None else hashlib.sha256(r).hexdigest()) for n, r in raws.items()))
    last: dict[tuple, tuple[cat.Catalog, dict[str, str]]] = known.memo("catalog") if known is not None else {}
    read = last.get(key)
    if read is None and known is not None:
        # A catalog is only stored once every file parsed: its digests are those of the key.
        catalog = known.catalog(repr(key[1:]))
        if catalog is not None:
            read = catalog, {f"{shown_dir}/{name}": digest for name, digest in key[2] if digest is not None}
    if read is None:
        read = _read_catalog(data_dir, shown_dir, raws)
        if known is not None:
            known.put_catalog(repr(key[1:]), read[0])
    last.clear()
    last[key] = read
    return read[0], dict(read[1])


def _read_catalog(data_dir: Path, shown_dir: str, raws: dict[str, bytes | None]) -> tuple[cat.Catalog, dict[str, str]]:
    problems: list[Problem] = []
    docs: dict[str, Document] = {}
    parsed: dict[str, Any] = {}
    for name, model in {**DATA_FILES, **OPTIONAL_FILES}.items():
        shown = f"{shown_dir}/{name}"
        path = data_dir / name
        if name in OPTIONAL_FILES and raws[name] is None and not path.exists():
            continue
        if not path.exists():
            problems.append(Problem(shown, 1, 1, "(file)", f"required data file is missing (got no {name} in {shown_dir}/)"))
            continue
        try:
            raw = raws[name]
            doc = parse(raw, shown) if raw is not None else read(path, shown)
            docs[name] = doc
            problems.extend(character_problems(doc))
            parsed[name] = validate_doc(doc, model)
        except InputError as e:
            problems.extend(e.problems)
    if problems:
        raise InputError(problems)

    sources = parsed["sources.yaml"].sources
    chips = parsed["chips.yaml"].chips
    instances = parsed["instances.yaml"].instances
    prices = parsed["prices.yaml"].prices
    assumptions = parsed["assumptions.yaml"]
    for name, doc in docs.items():
        for loc, key in strings(doc.data):
            if loc[-1] == "source" and key not in sources:
                problems.append(doc.problem(loc, f"unknown source key, add it to data/sources.yaml{did_you_mean(key, sources)} (got '{key}')"))
    cdoc = docs["chips.yaml"]
    for cid, chip in chips.items():
        for name in ("bf16_tflops", "fp8_tflops", "memory_gib", "memory_bandwidth_tbps"):
            fig = getattr(chip, name)
            if fig is None:
                continue
            for loc, f in [((name,), fig)] + [((name, "alternatives", j), a) for j, a in enumerate(fig.alternatives)]:
                src = sources.get(f.source)
                if f.as_of is None and src is not None and src.as_of is not None:
                    problems.append(cdoc.problem(("chips", cid, *loc, "as_of"), (
                        f"as_of is null but source {f.source} shows a date; give that date (got null, "
                        f"the source shows {src.as_of})")))
    idoc = docs["instances.yaml"]
    for iid, inst in instances.items():
        if inst.chip not in chips:
            problems.append(idoc.problem(("instances", iid, "chip"), f"unknown chip{did_you_mean(inst.chip, chips)} (got '{inst.chip}')"))
    pdoc = docs["prices.yaml"]
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
    for i, p in enumerate(prices):
        inst = instances.get(p.instance)
        # A vanished figure is kept as the last one seen, where AWS may no longer sell the instance.
        if inst is not None and p.offered and p.vanished is None and p.region not in inst.regions.value:
            problems.append(pdoc.problem(
                ("prices", i, "region"),
                f"{p.instance} is priced in {p.region} but its regions in data/instances.yaml do not list it (got '{p.region}')",
            ))
    for i, u in enumerate(parsed["prices.yaml"].unpublished):
        if u.instance not in instances:
            problems.append(pdoc.problem(("unpublished", i, "instance"), f"unknown instance{did_you_mean(u.instance, instances)} (got '{u.instance}')"))
        if (u.instance, u.region, u.option) in seen:
            problems.append(pdoc.problem(("unpublished", i), (
                f"{u.instance} {u.region} {u.option} has a price in prices; an option is either priced or "
                f"recorded as not published (got both)")))
    adoc = docs["assumptions.yaml"]
    for cname, pc in assumptions.porting_classes.items():
        for inc in pc.includes:
            if inc not in assumptions.constraints:
                problems.append(adoc.problem(("porting_classes", cname, "includes"), f"unknown constraint{did_you_mean(inc, assumptions.constraints)} (got '{inc}')"))
    for name in ("mainstream", "moderate-custom", "heavy-custom-cuda", "novel"):
        if name not in assumptions.porting_classes:
            problems.append(adoc.problem(("porting_classes",), f"missing porting class '{name}' (got {', '.join(assumptions.porting_classes)})"))
    for name in ConstraintName.__args__:  # type: ignore[attr-defined]
        if name not in assumptions.constraints:
            problems.append(adoc.problem(("constraints",), f"missing constraint '{name}' (got {', '.join(assumptions.constraints)})"))
    for name in ("none", "some", "experienced"):
        if name not in assumptions.neuron_experience:
            problems.append(adoc.problem(("neuron_experience",), f"missing experience level '{name}' (got {', '.join(assumptions.neuron_experience)})"))
    if problems:
        raise InputError(problems)
    catalog = cat.Catalog(sources=sources, chips=chips, instances=instances, prices=prices, assumptions=assumptions,
                          unpublished=parsed["prices.yaml"].unpublished,
                          history=parsed.get("history.yaml") or cat.HistoryFile())
    return catalog, {doc.path: doc.digest for doc in docs.values()}


