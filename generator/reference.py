"""The reference comparison the hand-written pages quote and the reference workload behind the home
page's decision map: the headline Trainium and GPU instances, on demand, and a mainstream port at
the default assumptions, evaluated like any scenario's workload."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator import catalog as cat
from generator.engine import Inputs, Span, evaluate, robustness, thresholds
from generator.results import ScenarioResult, WorkloadResult
from generator.schema import Workload

HEADLINE = {"trn": ("trn2.48xlarge", "us-east-2", "on-demand"), "gpu": ("p5.48xlarge", "us-east-1", "on-demand")}


def headline(catalog: cat.Catalog) -> dict[str, Any]:
    """The headline prices and their ratio: what the home page and the axes pages quote."""
    trn = catalog.price(*HEADLINE["trn"])
    gpu = catalog.price(*HEADLINE["gpu"])
    assert trn is not None and gpu is not None
    return {"trn": trn, "gpu": gpu, "ratio": trn.point / gpu.point, "ratio_high": (trn.high or trn.point) / gpu.point}


def reference_inputs(catalog: cat.Catalog) -> Inputs:
    h = headline(catalog)
    a = catalog.assumptions
    weeks = a.porting_classes["mainstream"].weeks
    return Inputs(
        gpu_hours=500, relative_throughput=Span(1.0, 0.8, 1.2),
        trainium_price=Span(h["trn"].point, h["trn"].low or h["trn"].point, h["trn"].high or h["trn"].point),
        gpu_price=Span(h["gpu"].point, h["gpu"].point, h["gpu"].point),
        trainium_spot=False, gpu_spot=False,
        spot_overhead=Span(a.spot_overhead.value, a.spot_overhead.low, a.spot_overhead.high),
        port_weeks=Span(weeks.value, weeks.low, weeks.high), engineer_week_usd=a.engineer_week_usd.value,
        port_extra_usd=0, runs=10, runs_per_architecture=None, trainium_count=1, gpu_count=1,
        trainium_availability="available", gpu_availability="available", needed_within_days=None,
        soon_days=a.soon_days.value, close_call_margin=a.close_call_margin.value,
    )


@dataclass(frozen=True)
class Reference:
    """The reference workload, evaluated once a build."""

    headline: dict[str, Any]
    inputs: Inputs
    result: ScenarioResult  # one workload, for the charts that explain the model

    def case(self) -> dict[str, Any]:
        """Its numbers, for the hand-written pages to quote."""
        w = self.result.workloads[0]
        return {"inputs": w.inputs, "outcome": w.outcome, "robustness": w.robustness, "thresholds": w.thresholds}


def reference(catalog: cat.Catalog) -> Reference:
    h = headline(catalog)
    x = reference_inputs(catalog)
    workload = Workload.model_validate({
        "name": "reference workload", "architecture": "mainstream",
        "run_size": {"gpu_instance_hours": float(x.gpu_hours)}, "runs": x.runs,
        "trainium": {"instance": h["trn"].instance, "region": h["trn"].region},
        "gpu": {"instance": h["gpu"].instance, "region": h["gpu"].region},
        "relative_throughput": {"value": x.relative_throughput.value, "low": x.relative_throughput.low,
                                "high": x.relative_throughput.high},
    })
    o = evaluate(x)
    w = WorkloadResult(workload, x, o, robustness(x, o), thresholds(x, o))
    return Reference(h, x, ScenarioResult("reference", "", None, (w,)))  # type: ignore[arg-type]
