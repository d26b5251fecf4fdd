"""The calculator's JavaScript writes no sentence of its own: every sentence a reader sees on the
calculator page is a template of Python's (wording.py's, or calculator_messages.py's for the form's
own messages) that wording.mjs fills, and wiring.mjs only calls it and places what it returns.
Read from the source: each string and template literal of wiring.mjs and wording.mjs (a template's
substitutions left out) must not read as prose."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from core_support import learned_env
from source_support import HOLE, js_literals, reads_as_prose

CALC = Path(__file__).resolve().parent.parent / "docs" / "assets" / "calculator"
WIRING = CALC / "wiring.mjs"
WORDING = CALC / "wording.mjs"
LOADER = CALC / "calculator.mjs"

# Strings in wiring.mjs that look like prose but no reader sees: none yet. An entry needs a reason
# (a selector, an id, an attribute or class name, a file format's own text).
NOT_FOR_READERS: set[str] = set()


def test_wiring_writes_no_sentence_of_its_own():
    prose = [s for s in js_literals(WIRING.read_text(encoding="utf-8")) if reads_as_prose(s)]
    assert [s for s in prose if s not in NOT_FOR_READERS] == []


def test_wording_mjs_writes_no_sentence_of_its_own():
    assert [s for s in js_literals(WORDING.read_text(encoding="utf-8")) if reads_as_prose(s)] == []


def test_every_message_the_javascript_asks_for_is_in_the_table_and_each_is_asked_for():
    from generator.rendering.calculator.messages import MESSAGES

    asked = set(re.findall(r"""\bsay\.message\(\s*["'](\w+)["']""", WIRING.read_text(encoding="utf-8")))
    asked |= set(re.findall(r"""\btell\(\s*["'](\w+)["']""", WORDING.read_text(encoding="utf-8")))
    assert asked == set(MESSAGES), (asked - set(MESSAGES), set(MESSAGES) - asked)


def test_the_loader_says_only_that_the_calculator_could_not_load():
    # calculator.mjs runs on every page and loads nothing until a page has the form; its one message
    # is for when wording.mjs itself may be what failed to load, so it stays there (see its comment).
    prose = [s for s in js_literals(LOADER.read_text(encoding="utf-8")) if reads_as_prose(s)]
    assert prose == ["The calculator could not load, so there is no answer here. Reload the page to try again; ",
                     "every scenario page shows the same computation for a fixed case."]


@pytest.mark.parametrize("literal", [
    "Enter a number.", "Link copied.", "Must be at least ${min}.", "Fix ${fields}: the answer below is still the one.",
    "${show(value)} is below this range's low end (${show(low)}): lower the low end, or raise the ${what}.",
    "Loaded: ${p.label}", "<p class=\"guide-verdict__label\">Verdict: <strong>${x}</strong></p>",
    "<h3>Does the verdict hold?</h3>", "Trainium ${a}. GPU ${b}.", "is not one of the choices",
])
def test_the_check_finds_a_sentence_wherever_it_is_written(literal: str):
    for quote in ("`",) if "${" in literal else ('"', "'", "`"):
        src = f"const a = x / 2; const r = /[\"'`]/g;\nel.textContent = {quote}{literal}{quote}; // it's\n"
        found = [s for s in js_literals(src) if reads_as_prose(s)]
        assert len(found) == 1, (quote, found)


@pytest.mark.parametrize("literal", [
    "#guide-calc [name]", "calc-${prefix}-instance", "input[name=\"${mode.key}\"]:checked", "#${checks.id} input:checked",
    "application/yaml", "data-md-color-scheme", "${esc(it.label)}: <span data-key=\"${esc(it.key)}\">${esc(it.text)}</span>",
    "# yaml-language-server: $schema=../schemas/scenario.schema.json", "      ${k}: ${v}", "<td${named}>${esc(c.text)}</td>",
])
def test_the_check_passes_what_is_not_prose(literal: str):
    assert not reads_as_prose(js_literals(f"x = `{literal}`;")[0])


def test_the_tokenizer_reads_templates_inside_templates_and_skips_regexes_and_comments():
    src = ("// \"not a string\"\nconst a = `one ${b ? `two ${c}` : 'three'} four`;\n"
           "const d = e.replace(/[&<>\"']/g, (x) => x) / 2; /* 'nor this' */ f(\"five\");\n")
    assert js_literals(src) == [f"one {HOLE} four", f"two {HOLE}", "three", "five"]


def test_every_message_wiring_asks_for_is_in_the_wording_module():
    # wiring.mjs reads wording.mjs as a namespace, where a misspelt name is undefined rather than an error.
    asked = set(re.findall(r"\bsay\.([A-Za-z_$][\w$]*)", WIRING.read_text(encoding="utf-8")))
    script = "const m = await import(process.argv[1]); process.stdout.write(JSON.stringify(Object.keys(m)));"
    out = subprocess.run(["node", "--input-type=module", "-e", script, WORDING.as_uri()],
                         capture_output=True, text=True, check=True)
    assert asked and asked <= set(json.loads(out.stdout)), asked - set(json.loads(out.stdout))


MESSAGES = """
const say = await import(process.argv[1]);
say.learn(JSON.parse(process.env.GUIDE_WORDS), JSON.parse(process.env.GUIDE_MESSAGES));
const w = { trainium: { instance: "trn9.huge", option: "spot", region: "mars-1" }, gpu: { instance: "", option: "spot", region: "mars-1" } };
process.stdout.write(JSON.stringify([
  say.rangeReversed(say.rangeLabel("relative_throughput"), 1.2, 0.8),
  say.valueBelowRange(say.rangeLabel("port_weeks"), 0.5, 1),
  say.valueAboveRange("port effort", 9, 3),
  say.lowEndAboveValue("relative throughput", 1.1, 1),
  say.highEndBelowValue("relative throughput", 0.9, 1),
  say.staleAnswer(1), say.staleAnswer(3), say.noAnswerYet(2),
  say.referenceError(w, ["trainium.instance", "unknown"]), say.referenceError(w, ["gpu.instance", "unknown"]),
  say.referenceError(w, ["trainium.option", "no-price"]), say.referenceError(w, ["trainium.option", "not-offered"]),
  say.referenceError({ ...w, regions: ["eu-west-2", "sa-east-1"] }, ["regions", "offered-nowhere"]),
  say.referenceError({ ...w, regions: ["eu-west-2"] }, ["trainium.region", "not-allowed"]),
  say.linkFallBack("Runs", "n", "x\\"y", "10", say.message("link_not_a_choice")), say.linkFallBack("Regions", "rg", "", "", say.linkNotUsable("Enter a number.")),
  say.linkModeFallBack("m", "sideways"), say.linkNotice([]), say.linkNotice(["A.", "B."]),
  say.constraintChoice({ label: "Uses TensorFlow", effect: "excludes" }),
  say.constraintChoice({ label: "Custom kernels", effect: "adds", weeks: { value: 4 } }),
  say.pricesLine("$1.00/h, from A, 2025-01-01", "$2.00/h" + say.priceSource("B", "2025-02-02")),
]));
"""


def test_the_calculators_messages_say_what_the_page_said():
    out = subprocess.run(["node", "--input-type=module", "-e", MESSAGES, WORDING.as_uri()],
                         capture_output=True, text=True, check=True, env=learned_env())
    assert json.loads(out.stdout) == [
        "The low end (1.2) is above the high end (0.8) of the relative throughput range.",
        "0.5 is below this range's low end (1): lower the low end, or raise the port effort.",
        "9 is above this range's high end (3): raise the high end, or lower the port effort.",
        "The low end (1.1) is above the relative throughput itself (1): the range must contain it.",
        "The high end (0.9) is below the relative throughput itself (1): the range must contain it.",
        "Fix the field marked above: the answer below is still the one for the last valid inputs.",
        "Fix the 3 fields marked above: the answer below is still the one for the last valid inputs.",
        "Fix the 2 fields marked above to see the answer.",
        "trn9.huge is not a Trainium instance this guide knows.",
        "Choose a GPU instance.",
        "This guide has no spot price for trn9.huge in mars-1.",
        "trn9.huge is not sold spot in mars-1.",
        "Neither trn9.huge nor  is offered in eu-west-2, sa-east-1: there is nothing to compare.",
        "The workload may only use eu-west-2: choose one of them for trn9.huge.",
        'Runs (n="x\\"y") is not one of the choices; the default (10) is used instead.',
        'Regions (rg="") is not usable: enter a number; the default is used instead.',
        'The run-size mode (m="sideways") is neither hours nor flops; hours is used instead.',
        "",
        "This link could not be followed in full. A. B.",
        "Uses TensorFlow (rules Trainium out)",
        "Custom kernels (adds 4 engineer-weeks)",
        "Trainium $1.00/h, from A, 2025-01-01. GPU $2.00/h, from B, 2025-02-02.",
    ]


REFERENCES = """
import { readFileSync } from "node:fs";
const E = await import(process.argv[1]);
const say = await import(process.argv[2]);
E.learn(JSON.parse(process.env.GUIDE_ENGINE));
say.learn(JSON.parse(process.env.GUIDE_WORDS), JSON.parse(process.env.GUIDE_MESSAGES));
const { data, workloads } = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(workloads.map((w) => E.checkReferences(w, data).map((p) => [...p, say.referenceError(w, p)]))));
"""


def test_the_engine_names_each_reference_problem_by_a_code_that_wording_words(catalog):
    """checkReferences answers with a field and a code, no words; wording.mjs says each code its own way."""
    from generator.rendering.calculator.data import calculator_data

    def w(trainium: dict | None = None, gpu: dict | None = None, **more) -> dict:
        return {"trainium": {"instance": "trn1.32xlarge", "region": "us-east-1", "option": "on-demand", **(trainium or {})},
                "gpu": {"instance": "p5.48xlarge", "region": "us-east-1", "option": "on-demand", **(gpu or {})}, **more}

    workloads = [w({"instance": "trn9.huge"}), w(gpu={"instance": "trn1.32xlarge"}), w({"region": "mars-1"}),
                 w(gpu={"instance": "p5e.48xlarge"}), w(regions=["mars-1"]), w(regions=["us-east-1"], gpu={"region": "us-west-1"})]
    out = subprocess.run(["node", "--input-type=module", "-e", REFERENCES, (CALC / "engine.mjs").as_uri(), WORDING.as_uri()],
                         input=json.dumps({"data": calculator_data(catalog), "workloads": workloads}),
                         capture_output=True, text=True, check=True, env=learned_env())
    found = json.loads(out.stdout)
    assert [[p[:2] for p in problems] for problems in found] == [
        [["trainium.instance", "unknown"]], [["gpu.instance", "other-side"]], [["trainium.option", "no-price"]],
        [["gpu.option", "not-offered"]], [["regions", "offered-nowhere"]], [["gpu.region", "not-allowed"]]]
    said = [p[2] for problems in found for p in problems]
    assert len(set(said)) == len(said) and all(s.endswith(".") for s in said), said
