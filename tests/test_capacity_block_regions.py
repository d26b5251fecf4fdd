"""Capacity Blocks are priced in every region the Capacity Blocks page lists, not only us-east-1.

The golden case: a team that must train in Stockholm (eu-north-1) on p5.48xlarge Capacity Blocks.
The page (CB-2026-07) sells p5.48xlarge blocks there at $37.76 an hour, and trn1.32xlarge blocks at
$9.532; the guide used to refuse the workload as "not priced there"."""

from __future__ import annotations

import pytest

from core_support import catalog_with_stockholm_blocks
from generator.model.resolve import check_references
from generator.model.results import evaluate_workload
from generator.model.schema import Workload


@pytest.fixture(scope="module")
def stockholm_catalog():
    return catalog_with_stockholm_blocks()


def stockholm() -> Workload:
    return Workload.model_validate({
        "name": "Stockholm pretraining",
        "architecture": "mainstream",
        "neuron_experience": "experienced",
        "run_size": {"gpu_instance_hours": 1000.0},
        "runs": 10,
        "regions": ["eu-north-1"],
        "trainium": {"instance": "trn1.32xlarge", "region": "eu-north-1", "option": "capacity-block"},
        "gpu": {"instance": "p5.48xlarge", "region": "eu-north-1", "option": "capacity-block"},
        "relative_throughput": {"value": 0.5, "low": 0.5, "high": 0.5},
    })


def test_a_stockholm_workload_on_p5_capacity_blocks_is_priced(stockholm_catalog):
    assert list(check_references((stockholm(),), stockholm_catalog)) == []
    r = evaluate_workload(stockholm(), stockholm_catalog)
    assert (r.gpu_price.region, r.gpu_price.option, r.gpu_price.point, r.gpu_price.source) == ("eu-north-1", "capacity-block", 37.76, "CB-2026-07")
    o = r.outcome
    # One instance a side, each run booked as its own block of whole days in the lengths AWS sells
    # (daily to 14 days, then weekly). GPU: a 1,000-hour run (41.7 days) books 42 days, 1,008 hours:
    # 10 runs x 1,008 x $37.76 = $380,620.80.
    assert o.gpu.total == pytest.approx(380_620.80)
    # Trainium at half the throughput: a 2,000-hour run (83.3 days) books 14 days and ten weeks, 84
    # days or 2,016 hours: 10 x 2,016 x $9.532 = $192,165.12, plus one port of 2 engineer-weeks
    # (mainstream, an experienced team) at $6,000 = $12,000: $204,165.12.
    assert o.trainium.total == pytest.approx(204_165.12)
    assert o.verdict == "trainium"
    assert o.total_difference == pytest.approx(380_620.80 - 204_165.12)
