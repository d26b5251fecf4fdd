"""Spot interruptions by instance and region, from AWS's Spot Instance Advisor buckets (issue 45,
point 7). The golden case: one 64-instance job on spot, Trainium on trn1.32xlarge and the GPU on
p5.48xlarge, both in us-east-1, where the Advisor snapshot rates trn1.32xlarge "<5%" and p5.48xlarge
">20%" of instances interrupted in a month. A bucket's monthly share s is taken as a steady rate r an
instance-hour with 1 - exp(-730 r) = s (our conversion), so r = -ln(1 - s) / 730."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from core_support import DATA
from generator.model.engine import evaluate, robustness
from generator.model.resolve import resolve, spot_risk
from generator.model.schema import Workload

BUCKETS = '''spot_interruption_buckets:
  "<5%": {value: 0.025, low: 0.0, high: 0.05, source: SPOT-ADV-2025-06, as_of: 2025-06-28}
  "5-10%": {value: 0.075, low: 0.05, high: 0.10, source: SPOT-ADV-2025-06, as_of: 2025-06-28}
  "10-15%": {value: 0.125, low: 0.10, high: 0.15, source: SPOT-ADV-2025-06, as_of: 2025-06-28}
  "15-20%": {value: 0.175, low: 0.15, high: 0.20, source: SPOT-ADV-2025-06, as_of: 2025-06-28}
  ">20%": {value: 0.306, low: 0.20, high: 0.768, source: GUIDE, as_of: 2026-11-27}
'''
SOURCE = '''  SPOT-ADV-2025-06:
    title: Spot Instance Advisor data, a snapshot committed 2025-06-28
    url: https://example.org/spot-advisor-data.json
    kind: primary
    as_of: 2025-06-28
'''


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory):
    """The frozen data with the Advisor's buckets, and ratings for trn1.32xlarge and p5.48xlarge."""
    from generator.inputs.loader import load_catalog

    data = Path(shutil.copytree(DATA, tmp_path_factory.mktemp("spot") / "data"))
    (data / "assumptions.yaml").write_text((data / "assumptions.yaml").read_text() + BUCKETS)
    sources = (data / "sources.yaml").read_text()
    (data / "sources.yaml").write_text(sources.replace("sources:\n", "sources:\n" + SOURCE, 1))
    inst = (data / "instances.yaml").read_text()
    for name, bucket in (("trn1.32xlarge", "<5%"), ("p5.48xlarge", ">20%")):
        head = f"  {name}:\n    side: "
        assert head in inst
        side = "trainium" if name.startswith("trn") else "gpu"
        inst = inst.replace(head + side + "\n", head + side + "\n" +
                            f'    spot_interruption: {{value: {{us-east-1: "{bucket}"}}, source: SPOT-ADV-2025-06, as_of: 2025-06-28}}\n', 1)
    (data / "instances.yaml").write_text(inst)
    return load_catalog(data)


def job(trainium: dict) -> Workload:
    return Workload.model_validate({
        "name": "spot job", "architecture": "mainstream", "run_size": {"gpu_instance_hours": 6400.0}, "runs": 10,
        "trainium": trainium,
        "gpu": {"instance": "p5.48xlarge", "region": "us-east-1", "option": "spot", "count": 64},
        "relative_throughput": {"value": 0.95, "low": 0.8, "high": 1.1},
    })


def test_each_side_takes_its_own_pools_bucket(catalog):
    r = resolve(job({"instance": "trn1.32xlarge", "region": "us-east-1", "option": "spot", "count": 64}), catalog)
    x = r.inputs
    # trn1.32xlarge "<5%": the midpoint 2.5 % a month is -ln(0.975) / 730 = 0.0000347 an instance-hour,
    # from 0 to -ln(0.95) / 730 = 0.0000703.
    assert x.trainium_interruption_rate.value == pytest.approx(3.4681929e-5, rel=1e-7)
    assert (x.trainium_interruption_rate.low, x.trainium_interruption_rate.high) == pytest.approx((0.0, 7.0264787e-5), rel=1e-7)
    # p5.48xlarge ">20%": 30.6 % a month is -ln(0.694) / 730 = 0.000500, from 0.000306 (20 %) to 0.00200 (76.8 %).
    assert x.gpu_interruption_rate.value == pytest.approx(5.0038811e-4, rel=1e-7)
    assert (x.gpu_interruption_rate.low, x.gpu_interruption_rate.high) == pytest.approx((3.0567610e-4, 2.0013944e-3), rel=1e-7)
    assert (r.trainium_spot_risk.bucket, r.trainium_spot_risk.source, str(r.trainium_spot_risk.as_of)) == (
        "<5%", "SPOT-ADV-2025-06", "2025-06-28")
    o = evaluate(x)
    # 64 instances x 0.0000347 x 1.5 hours lost = 0.333 % of each hour lost on Trainium: 0.334 % more hours;
    # 64 x 0.000500 x 1.5 = 4.80 % on the GPU: 5.05 % more hours. The shared default would have given both 5.04 %.
    load_trn = 64 * (-math.log(0.975) / 730) * 1.5
    load_gpu = 64 * (-math.log(1 - 0.306) / 730) * 1.5
    assert o.trainium.spot_overhead == pytest.approx(1 / (1 - load_trn) - 1, rel=1e-9)
    assert o.trainium.spot_overhead == pytest.approx(0.003341, abs=1e-6)
    assert o.gpu.spot_overhead == pytest.approx(1 / (1 - load_gpu) - 1, rel=1e-9)
    assert o.gpu.spot_overhead == pytest.approx(0.05046, abs=1e-5)
    # Each side's own range is what robustness moves, and only on the side on spot that has one.
    names = [e.input for e in robustness(x, o).ends]
    assert "trainium_interruption_rate" in names and "gpu_interruption_rate" in names and "interruption_rate" not in names


def test_a_pool_the_advisor_does_not_rate_takes_the_shared_default_labelled_ours(catalog):
    risk = spot_risk(catalog, "trn2.48xlarge", "us-east-2")
    assert risk.bucket is None and risk.source == "GUIDE"
    assert (risk.rate.value, risk.rate.low, risk.rate.high) == (0.0005, 0.0001, 0.002)
    r = resolve(job({"instance": "trn2.48xlarge", "region": "us-east-2", "count": 64}), catalog)
    assert r.inputs.trainium_interruption_rate is None  # not on spot, and not rated: the shared figure
    assert r.inputs.gpu_interruption_rate is not None
    # A region the Advisor does not rate for a rated instance also takes the default.
    assert spot_risk(catalog, "p5.48xlarge", "eu-north-1").bucket is None
