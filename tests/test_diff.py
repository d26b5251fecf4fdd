"""The comparison behind `guide diff`, without git: two projects loaded from folders, the report
that a reviewer reads, and the Markdown escaping of contributed text."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from core_support import SCENARIOS, copy_inputs
from generator.rendering.published.diff import cell, compare, markdown, relative_change
from generator.inputs.loader import load_project

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return load_project(copy_inputs(tmp_path_factory.mktemp("base")), check_expect=False)


def _edited(tmp_path: Path, edit) -> object:
    root = copy_inputs(tmp_path / "head")
    edit(root)
    return load_project(root, check_expect=False)


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_no_change_is_an_empty_report(base):
    report = compare(base, base)
    assert report.empty
    text = markdown(report, "main", SHA)
    assert text.startswith("## Verdict report: this change against main (`0123456789ab`)\n")
    assert "No scenario, verdict or price changed" in text


def test_a_price_that_flips_verdicts_is_reported_with_the_mismatch(tmp_path: Path, base):
    head = _edited(tmp_path, lambda root: _replace(
        root / "data" / "prices.yaml", "option: on-demand, usd_per_hour: 55.04,", "option: on-demand, usd_per_hour: 110,"))
    report = compare(base, head)
    flipped = {c.after.id: (c.before.verdict, c.after.verdict, c.after.matches_expectation) for c in report.verdicts}
    assert flipped["one-off-run"] == ("gpu", "trainium", False)
    assert all(before != after for before, after, _ in flipped.values())
    (price,) = report.prices
    assert (price.instance, price.region, price.option, price.before.usd_per_hour, price.after.usd_per_hour) == (
        "p5.48xlarge", "us-east-1", "on-demand", 55.04, 110)
    assert math.isclose(price.pct, (110 - 55.04) / 55.04 * 100)
    text = markdown(report, "main", SHA)
    assert "| `one-off-run` | gpu | **trainium** | ⚠️ no: expect is gpu | the run: trainium by cost |" in text
    # The value moved but still cites VAN-2026-01 as of 2026-01-21: flagged in the row and under the table.
    assert price.unsourced
    assert "| p5.48xlarge | us-east-1 | On-demand | $55.04/h | $110.00/h | +99.9 % | VAN-2026-01, 2026-01-21 ⚠️ unchanged |" in text
    assert "⚠️ 1 price changed while its `source` and `as_of` did not: cite where each new figure comes from" in text
    assert "`guide validate` fails until each flagged scenario's `expect` is updated" in text


def test_a_price_that_moves_with_a_new_source_and_date_is_not_flagged(tmp_path: Path, base):
    head = _edited(tmp_path, lambda root: _replace(
        root / "data" / "prices.yaml", "option: on-demand, usd_per_hour: 55.04, source: VAN-2026-01, as_of: 2026-01-21,",
        "option: on-demand, usd_per_hour: 55.59, source: SEED-001, as_of: 2026-01-01,"))
    (price,) = compare(base, head).prices
    assert (price.before.usd_per_hour, price.after.usd_per_hour, price.unsourced) == (55.04, 55.59, False)
    text = markdown(compare(base, head), "main", SHA)
    assert "| $55.04/h | $55.59/h | +1 % | SEED-001, 2026-01-01 |" in text
    assert "unchanged" not in text and "did not: cite" not in text


def test_savings_and_break_even_beyond_the_threshold_only(tmp_path: Path, base):
    # 1 % dearer GPU hours on p4de: repeated-fine-tuning's saving per run moves, but only a little.
    head = _edited(tmp_path, lambda root: _replace(
        root / "data" / "prices.yaml", "usd_per_hour: 27.44705,", "usd_per_hour: 27.72,"))
    moved = compare(base, head, threshold=0.5).numbers
    assert [(n.scenario, n.workload) for n in moved] == [("repeated-fine-tuning", "weekly fine-tune")]
    n = moved[0]
    assert n.saving_after > n.saving_before and abs(n.saving_pct) > 0.5
    assert compare(base, head, threshold=50).numbers == []
    assert compare(base, head).verdicts == []


def test_added_removed_and_renamed(tmp_path: Path, base):
    def edit(root: Path) -> None:
        shutil.copy(SCENARIOS / "one-off-run.yaml", root / "scenarios" / "zz-copy.yaml")
        (root / "scenarios" / "heavy-custom-cuda.yaml").unlink()
        _replace(root / "scenarios" / "one-off-run.yaml", "- name: the run\n", "- name: the only run\n")
        _replace(root / "scenarios" / "mainstream-pretraining.yaml", "expect: trainium\n", "expect: gpu\n")

    report = compare(base, _edited(tmp_path, edit))
    assert [r.id for r in report.added] == ["zz-copy"]
    assert [r.id for r in report.removed] == ["heavy-custom-cuda"]
    assert [(n.scenario, n.workload, n.note) for n in report.numbers] == [
        ("one-off-run", "the run", "workload removed"), ("one-off-run", "the only run", "workload added")]
    assert [r.id for r in report.mismatches] == ["mainstream-pretraining"]
    text = markdown(report, "main", SHA)
    assert "**0 verdicts changed**; 1 scenario added, 1 removed; 0 prices changed." in text
    assert "| `mainstream-pretraining` | trainium | ⚠️ gpu |" in text


def test_relative_change():
    assert relative_change(100, 110) == pytest.approx(10)
    assert relative_change(-100, -50) == pytest.approx(50)
    assert relative_change(None, None) is None
    assert relative_change(None, 3) == math.inf and relative_change(0, 3) == math.inf
    assert relative_change(2, 2) == 0


def test_contributed_text_cannot_break_the_table_or_mention_anyone():
    assert cell("a | b") == "a \\| b"
    assert cell("<script>x</script>") == "\\<script\\>x\\</script\\>"
    assert cell("@octocat [x](y) `z`\nnext") == "\\@octocat \\[x\\](y) \\`z\\` next"
