"""Helpers for the core tests (engine, scenarios, loader, CLI, schema): where the repository is,
how to run the real `guide` CLI, and how to make a scratch copy of data/ and scenarios/.

Imported by the test modules; conftest.py holds only fixtures.
"""

from __future__ import annotations

import functools

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from generator.model.engine import Inputs, Span
from generator.model.schema import Workload

REPO = Path(__file__).resolve().parent.parent
# Tests of behaviour read a frozen copy of data/ and scenarios/, so that refreshing a price or adding
# a scenario never changes what they expect. Only tests of the live files' structure and sourcing
# (tests/test_live_data.py) read LIVE_DATA and LIVE_SCENARIOS.
FROZEN = REPO / "tests" / "fixtures" / "project"
DATA = FROZEN / "data"
SCENARIOS = FROZEN / "scenarios"
LIVE_DATA = REPO / "data"
LIVE_SCENARIOS = REPO / "scenarios"


def run_guide(*args: str, cwd: Path, root: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m generator [--root ROOT] ARGS...` as a user runs it, output captured."""
    cmd = [sys.executable, "-m", "generator"]
    if root is not None:
        cmd += ["--root", str(root)]
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(cmd + list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def copy_inputs(dest: Path, *, scenarios: bool = True) -> Path:
    """A scratch project holding a copy of data/ (and of scenarios/, or an empty scenarios/)."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(DATA, dest / "data")
    if scenarios:
        shutil.copytree(SCENARIOS, dest / "scenarios")
    else:
        (dest / "scenarios").mkdir()
    return dest


def tree_hashes(*folders: Path) -> dict[str, str]:
    """sha256 of every file under the folders, by path: equal before and after means nothing was
    written, added or removed."""
    out = {}
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                out[p.relative_to(folder.parent).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


ENGINE_MJS = REPO / "docs" / "assets" / "calculator" / "engine.mjs"
# Node runs the very engine file the site ships: evaluates each Inputs record (the Python engine's
# Inputs as plain JSON) and returns what the Python side's evaluate/robustness/thresholds/cost_curve give.
INPUTS_RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const E = await import(pathToFileURL(process.argv[1]).href);
E.learn(JSON.parse(process.env.GUIDE_ENGINE));
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((x) => {
  const o = E.evaluate(x);
  return { outcome: o, robustness: E.robustness(x, o), thresholds: E.thresholds(x, o), curve: E.costCurve(x, o) };
})));
"""


def run_js_on_inputs(cases: list) -> list[dict]:
    """Each engine.Inputs through the JavaScript engine; the results as plain JSON, one per case."""
    import json

    from generator.model.results import plain

    out = subprocess.run(
        ["node", "--input-type=module", "-e", INPUTS_RUNNER, str(ENGINE_MJS)],
        input=json.dumps([plain(x) for x in cases]), capture_output=True, text=True, check=True, timeout=300, env=learned_env(),
    )
    results = json.loads(out.stdout)
    assert len(results) == len(cases), f"Node returned {len(results)} results for {len(cases)} cases"
    return results


WORKLOAD_RUNNER = """
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { evaluateWorkload, checkReferences, learn } = await import(pathToFileURL(process.argv[1]).href);
const payload = JSON.parse(readFileSync(0, "utf8"));
learn(payload.data.engine);
process.stdout.write(JSON.stringify(payload.workloads.map((w) => ({ ...evaluateWorkload(w, payload.data), problems: checkReferences(w, payload.data) }))));
"""


def run_js_on_workloads(workloads: list[dict], data: dict) -> list[dict]:
    """Scenario-shaped workloads through the JavaScript resolve and engine, against a baked catalog."""
    import json

    out = subprocess.run(
        ["node", "--input-type=module", "-e", WORKLOAD_RUNNER, str(ENGINE_MJS)],
        input=json.dumps({"data": data, "workloads": workloads}), capture_output=True, text=True, check=True, timeout=300,
    )
    results = json.loads(out.stdout)
    assert len(results) == len(workloads), f"Node returned {len(results)} results for {len(workloads)} workloads"
    return results


STOCKHOLM_BLOCKS = (
    "  - {instance: trn1.32xlarge, region: eu-north-1, option: capacity-block, usd_per_hour: 9.532, source: CB-2026-07, as_of: 2026-07-22}\n"
    "  - {instance: p5.48xlarge, region: eu-north-1, option: capacity-block, usd_per_hour: 37.76, source: CB-2026-07, as_of: 2026-07-22}\n"
)


@functools.cache
def catalog_with_stockholm_blocks():
    """The frozen catalog with the Capacity Block rates CB-2026-07 lists in Stockholm (eu-north-1) for
    trn1.32xlarge and p5.48xlarge, and trn1.32xlarge sold there. Made in a folder of its own, so the
    frozen data stays what the price refresh's recorded answers were made for."""
    import tempfile

    from generator.inputs.loader import load_catalog

    data = Path(tempfile.mkdtemp(prefix="stockholm-")) / "data"
    shutil.copytree(DATA, data)
    prices = (data / "prices.yaml").read_text(encoding="utf-8")
    anchor = "  - {instance: trn2.48xlarge, region: us-east-2, option: capacity-block,"
    assert anchor in prices
    (data / "prices.yaml").write_text(prices.replace(anchor, STOCKHOLM_BLOCKS + anchor, 1), encoding="utf-8")
    instances = (data / "instances.yaml").read_text(encoding="utf-8")
    sold = "    regions: {value: [us-east-1], source: VAN, as_of: 2025-11-30}\n    chip: trainium1\n    chips: {value: 16,"
    assert sold in instances
    (data / "instances.yaml").write_text(instances.replace(
        sold, sold.replace("[us-east-1]", "[us-east-1, eu-north-1]"), 1), encoding="utf-8")
    return load_catalog(data)


def learned_env() -> dict[str, str]:
    """The environment of a Node runner given no calculator data: what that data carries for the
    calculator's modules to `learn`: wording.py's tables and templates in GUIDE_WORDS and the calculator
    page's own messages in GUIDE_MESSAGES (wording.mjs), engine.py's constants in GUIDE_ENGINE (engine.mjs)."""
    import json
    import os

    from generator.model.engine import constants
    from generator.model.wording import tables
    from generator.rendering.calculator import messages as calculator_messages

    return {**os.environ, "GUIDE_WORDS": json.dumps(tables()), "GUIDE_ENGINE": json.dumps(constants()),
            "GUIDE_MESSAGES": json.dumps(calculator_messages.tables())}


# --- engine inputs --------------------------------------------------------------------------------


def point(v: float) -> Span:
    """A range that is one value."""
    return Span(v, v, v)


def engine_inputs(**fields) -> Inputs:
    """Engine inputs for a test: the fields it names, and for the rest a plain case's (no spot, both
    sides available, no deadline, engineer-weeks at $6,000 with two engineers on the port)."""
    plain = dict(trainium_spot=False, gpu_spot=False, engineer_week_usd=6000.0, port_extra_usd=0.0,
                 runs_per_architecture=None, trainium_availability="available", gpu_availability="available",
                 needed_within_days=None, soon_days=30, close_call_margin=0.10, port_engineers=point(2.0))
    return Inputs(**{**plain, **fields})


# The engine tests' round-number workload, which tests/test_engine.py works through by hand:
# GPU 100 h at $40, Trainium 1.25x as fast at $20, a 2-week port at $6,000 a week, 10 runs.
BASE = engine_inputs(
    gpu_hours=100.0,
    relative_throughput=Span(1.25, 1.0, 1.5),
    trainium_price=point(20.0),
    gpu_price=point(40.0),
    # On spot, 8 instances x 0.0125 interruptions per instance-hour x 1 hour lost = 10 % extra hours.
    interruption_rate=Span(0.0125, 0.00625, 0.025),
    lost_hours=point(1.0),
    port_weeks=Span(2.0, 1.0, 3.0),
    runs=10,
    trainium_count=8,
    gpu_count=8,
    port_engineers=point(2.0),  # a 2-week port is 7 calendar days
)


def side(instance: str, option: str, count: int, region: str = "us-east-1") -> dict:
    """One side of a scenario's workload: its instance, region, way of buying and instances at once."""
    return {"instance": instance, "region": region, "option": option, "count": count}


def workload_of(trainium: dict, gpu: dict, hours: float, runs: int, throughput: float | Span = 1.0, *, name: str = "case",
                **more) -> Workload:
    """A mainstream workload as a scenario writes it: its two sides, its GPU instance-hours a run, its
    runs and its relative throughput (a point, or a Span with its range), and any other field."""
    span = throughput if isinstance(throughput, Span) else Span(throughput, throughput, throughput)
    w = {"name": name, "architecture": "mainstream", "run_size": {"gpu_instance_hours": hours}, "runs": runs,
         "trainium": trainium, "gpu": gpu, "relative_throughput": {"value": span.value, "low": span.low, "high": span.high}}
    return Workload.model_validate(w | more)
