"""Time the calculator's JavaScript engine on workloads chosen to make it work hardest (target: each
update within 50 ms): every region a p5 is sold in, every way of buying accepted, commitments on both
sides (the committed throughput threshold is found by halving, each step buying each side the way its
plan then costs least), a port every three runs (the saw-tooth break-even) and up to 10,000 runs.

Runs resolve, the engine, robustness, thresholds and the cost curve, as one calculator update does,
in Node against the calculator's data built from data/; the DOM is not counted.

    python benchmarks/calculator_worst_case.py [--repeat 100]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from generator.inputs.loader import load_catalog  # noqa: E402
from generator.rendering.calculator.data import calculator_data  # noqa: E402

ENGINE = ROOT / "docs" / "assets" / "calculator" / "engine.mjs"
REGIONS = ["us-east-1", "us-east-2", "us-west-1", "us-west-2", "ap-northeast-1", "ap-south-1", "ap-southeast-2",
           "ap-southeast-3", "eu-north-1", "eu-west-2", "sa-east-1"]
RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { evaluateWorkload, learn } = await import(pathToFileURL(process.argv[1]).href);
const { data, workloads, repeat } = JSON.parse(readFileSync(0, "utf8"));
learn(data.engine);
for (const w of workloads) {
  evaluateWorkload(w, data);
  const t = [];
  for (let i = 0; i < repeat; i++) { const s = performance.now(); evaluateWorkload(w, data); t.push(performance.now() - s); }
  t.sort((a, b) => a - b);
  console.log(JSON.stringify([w.name, t[Math.floor(repeat / 2)], t[Math.ceil(repeat * 0.95) - 1], t[repeat - 1]]));
}
"""


def workload(name: str, **changes) -> dict:
    w = {
        "name": name, "architecture": "mainstream", "neuron_experience": "experienced",
        "run_size": {"gpu_instance_hours": 730.0 * 64}, "runs": 10000, "plan_months": 36, "regions": REGIONS,
        "buy": ["on-demand", "spot", "capacity-block", "commit-1y", "commit-3y"],
        "trainium": {"instance": "trn1.32xlarge", "region": "us-east-1", "option": "commit-1y", "count": 64},
        "gpu": {"instance": "p5.48xlarge", "region": "us-east-1", "option": "commit-3y", "count": 64},
        "relative_throughput": {"value": 0.9, "low": 0.5, "high": 1.5}, "runs_per_architecture": 3,
    }
    w.update(changes)
    return {k: v for k, v in w.items() if v is not None}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    workloads = [
        workload("10,000 runs, terms on both sides, a port every 3 runs"),
        workload("37 runs", runs=37),
        workload("one run", runs=1, plan_months=None),
        workload("Trainium on 3-year terms, 500 runs", runs=500,
                 trainium={"instance": "trn1.32xlarge", "region": "us-east-1", "option": "commit-3y", "count": 64}),
    ]
    payload = {"data": calculator_data(load_catalog(ROOT / "data")), "workloads": workloads, "repeat": args.repeat}
    out = subprocess.run(["node", "--input-type=module", "-e", RUNNER, str(ENGINE)], input=json.dumps(payload),
                         capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        name, median, p95, worst = json.loads(line)
        print(f"{name}: median {median:.2f} ms, p95 {p95:.2f}, max {worst:.2f}  (target: within 50 ms)")


if __name__ == "__main__":
    main()
