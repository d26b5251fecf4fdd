"""data/ read into a Catalog (generator/inputs/datafiles.py): the throughput evidence in
data/throughput.yaml checked against the chips and porting classes the other files hold."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from core_support import FROZEN

from generator.inputs.datafiles import load_catalog
from generator.inputs.problems import InputError


def _data(tmp_path: Path, throughput: str | None) -> Path:
    data = tmp_path / "data"
    shutil.copytree(FROZEN / "data", data)
    if throughput is None:
        (data / "throughput.yaml").unlink()
    else:
        (data / "throughput.yaml").write_text(throughput, encoding="utf-8")
    return data


def test_the_evidence_is_read_with_its_sources():
    known = load_catalog(FROZEN / "data").throughput
    assert known.measured and known.claims and known.utilisation
    assert all(m.source and m.as_of for m in [*known.measured, *known.utilisation, *known.claims])


def test_without_the_file_the_guide_holds_no_evidence(tmp_path: Path):
    known = load_catalog(_data(tmp_path, None)).throughput
    assert (known.measured, known.utilisation, known.claims) == ([], [], [])


def test_evidence_naming_an_unknown_chip_or_class_is_refused_where_it_is(tmp_path: Path):
    bad = ("measured:\n"
           "  - {chip: trainium9, system: s, model: m, architecture: mainstreem, precision: bf16, accelerators: 8,\n"
           "     tokens_per_second: 10, software: x, source: NRN, as_of: 2025-10-01}\n"
           "utilisation:\n"
           "  - {chip: h100, what: w, low: 0.5, high: 0.4, source: LLAMA3, as_of: 2024-07-31}\n"
           "claims:\n"
           "  - {trainium: trainium1, gpu: a100, says: s, low: 1.0, source: AMZN-SCI, as_of: 2024-01-01}\n")
    with pytest.raises(InputError) as e:
        load_catalog(_data(tmp_path, bad))
    said = [str(p) for p in e.value.problems]
    assert said == [
        "data/throughput.yaml:2:12: measured.0.chip: unknown chip; did you mean 'trainium3'? (got 'trainium9')",
        "data/throughput.yaml:2:58: measured.0.architecture: unknown porting class; did you mean 'mainstream'? (got 'mainstreem')",
        "data/throughput.yaml:5:5: utilisation.0: needs low <= high (got low 0.5, high 0.4)",
        "data/throughput.yaml:7:5: claims.0: needs both low and high, low <= high (got low 1.0, high None)",
        "data/throughput.yaml:7:32: claims.0.gpu: unknown chip; did you mean 'h100'? (got 'a100')",
    ]
