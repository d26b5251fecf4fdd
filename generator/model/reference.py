"""The reference comparison the hand-written pages quote and the reference workload behind the home
page's decision map: data/reference.yaml, loaded and evaluated like any scenario's workload."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.model.engine import Inputs
from generator.model.results import DecisionMap, ScenarioResult, WorkloadResult, decision_map

MAP_AXES = ("relative_throughput", "port_weeks")


@dataclass(frozen=True)
class Reference:
    """The reference workload, evaluated once while data/ is the same."""

    headline: dict[str, Any]  # its two prices, with their sources, and their ratio
    inputs: Inputs
    result: ScenarioResult  # one workload, for the charts that explain the model
    maps: dict[str, DecisionMap]  # its decision maps, by the axis set against runs

    def case(self) -> dict[str, Any]:
        """Its numbers, for the hand-written pages to quote."""
        w = self.result.workloads[0]
        return {"inputs": w.inputs, "outcome": w.outcome, "robustness": w.robustness, "thresholds": w.thresholds}


def reference(w: WorkloadResult) -> Reference:
    trn, gpu = w.trainium_price, w.gpu_price
    headline = {"trn": trn, "gpu": gpu, "ratio": trn.point / gpu.point, "ratio_high": (trn.high or trn.point) / gpu.point}
    maps = {axis: decision_map(w.inputs, axis) for axis in MAP_AXES}
    return Reference(headline, w.inputs, ScenarioResult("reference", "", None, (w,)), maps)  # type: ignore[arg-type]
