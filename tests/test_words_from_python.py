"""The calculator's words are wording.py's and its constants engine.py's: both travel in the
calculator's data, and the JavaScript holds only the logic of what is said and computed, none of the
sentences and none of the numbers it computes with. Read from the sources: no JavaScript module writes
out what any module of generator/ says (resolve.py's messages to a scenario's author among them), and
no module of the layers that make the pages (model/, rendering/) says a sentence outside wording.py."""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
from pathlib import Path

import pytest

from core_support import FROZEN, learned_env
from source_support import HOLE, js_literals, reads_as_prose

from generator.model import engine, wording
from generator.model.engine import BlockLimits, Inputs, Span, block_hours, cost_curve, evaluate, robustness, thresholds
from generator.model.results import plain
from generator.rendering.calculator.data import calculator_data
from generator.rendering.embeds.folders import compact_json

ROOT = Path(__file__).resolve().parent.parent
CALCULATOR = ROOT / "docs" / "assets" / "calculator"
PACKAGE = ROOT / "generator"
LONG = 40


def _literals(path: Path) -> list[str]:
    """Every string written in a Python module, the fixed parts of f-strings included; docstrings,
    which the JavaScript's comments may well echo, left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def _sentences() -> list[str]:
    found = _literals(ROOT / "generator" / "model" / "wording.py") + _literals(ROOT / "generator" / "model" / "formatting.py")
    found += _literals(ROOT / "generator" / "rendering" / "calculator" / "messages.py")
    return sorted({s.strip() for s in found if len(s.strip()) > LONG and " " in s.strip()})


def _copied(js: str) -> list[str]:
    """The sentences of wording.py and formatting.py a piece of JavaScript writes out."""
    return [s for s in _sentences() if s in js]


def test_no_sentence_of_wording_py_is_written_again_in_the_calculators_javascript():
    assert len(_sentences()) > 50  # the templates themselves: the check has something to find
    for mjs in sorted(CALCULATOR.glob("*.mjs")):
        copied = _copied(mjs.read_text(encoding="utf-8"))
        assert copied == [], f"{mjs.name} writes out wording.py's words: {copied[:3]}"


def test_the_check_finds_a_sentence_copied_into_javascript():
    robust = wording.TEMPLATES["robust"]
    assert _copied(f'  if (state === "robust") first = "{robust}";\n') == [robust]
    assert _copied('  if (state === "robust") first = T.robust;\n') == []


def _said(source: str) -> list[str]:
    """Every string a Python module writes, an f-string whole with HOLE for each value it puts in;
    left out: docstrings and other bare strings (which comments may echo), an assertion's or an
    exception's message, a logger's, and a field's `description` or an option's `help` (a schema's
    and a command's own text, for a scenario's author or an assistant)."""
    tree = ast.parse(source)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        quiet = (isinstance(node, (ast.Raise, ast.Assert))
                 or isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.JoinedStr))
                 or isinstance(node, ast.keyword) and node.arg in ("description", "help")
                 or isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and isinstance(node.func.value, ast.Name) and node.func.value.id in ("log", "logging", "warnings"))
        if quiet:
            skipped |= {id(n) for n in ast.walk(node)}
    parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    out = []
    for node in ast.walk(tree):
        if id(node) in skipped or id(node) in parts:
            continue
        if isinstance(node, ast.JoinedStr):
            out.append("".join(v.value if isinstance(v, ast.Constant) else HOLE for v in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _words(text: str) -> tuple[str, ...]:
    """A string as the run of what it says: its words (lower-cased), HOLE for each value put in (a
    template's `{name}` too), and "" for anything else (a path, a number, an identifier)."""
    text = re.sub(r"\{[^{}]*\}", HOLE, re.sub(r"<[^>]*>", " ", text))
    out = []
    for token in text.replace(HOLE, f" {HOLE} ").split():
        token = token.strip(".,;:!?()[]\"'`")
        if token:
            out.append(HOLE if token == HOLE else token.lower() if _WORD.fullmatch(token) else "")
    return tuple(out)


def _counted(run: tuple[str, ...]) -> int:
    return sum(1 for t in run if t not in (HOLE, ""))


def _within(run: tuple[str, ...], said: tuple[str, ...]) -> bool:
    return any(said[i:i + len(run)] == run for i in range(len(said) - len(run) + 1))


def _runs_of_four(run: tuple[str, ...]) -> set[tuple[str, ...]]:
    """Each shortest stretch of a run that holds four words, from a word to a word: a run shares four
    words or more in a row with another exactly where it shares one of these."""
    out = set()
    for i, token in enumerate(run):
        words = 0
        for j in range(i, len(run)) if token not in (HOLE, "") else ():
            words += run[j] not in (HOLE, "")
            if words == 4:
                out.add(run[i:j + 1])
                break
    return out


@functools.cache
def _python_says() -> tuple[dict[tuple[str, ...], str], dict[tuple[str, ...], str]]:
    """What every module of generator/ says in two words or more, by where it says it; and each four
    words in a row of it, by where."""
    found: dict[tuple[str, ...], str] = {}
    fours: dict[tuple[str, ...], str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for text in _said(path.read_text(encoding="utf-8")):
            run = _words(text)
            if _counted(run) >= 2:
                where = f"{path.relative_to(ROOT)}: {text!r}"
                found.setdefault(run, where)
                for four in _runs_of_four(run):
                    fours.setdefault(four, where)
    return found, fours


def _copies(js_source: str) -> list[str]:
    """What a JavaScript module writes out of what a Python string says: the whole of it, where it is
    two words or more, or four words or more of it in a row, the values put in standing where they stand."""
    said, fours = _python_says()
    out = []
    for literal in js_literals(js_source):
        run = _words(literal)
        if _counted(run) < 2:
            continue
        wheres = [where for words, where in said.items() if _within(run, words)]
        wheres += [fours[four] for four in _runs_of_four(run) if four in fours]
        out += [f"{literal!r} copies {where}" for where in dict.fromkeys(wheres)]
    return out


def test_no_javascript_module_writes_out_what_a_python_module_says():
    assert any(path.name == "resolve.py" for path in PACKAGE.rglob("*.py"))
    assert len(_python_says()[0]) > 500  # the check reads every module, each with something to find
    for js in sorted((ROOT / "docs" / "assets").rglob("*.mjs")):
        assert _copies(js.read_text(encoding="utf-8")) == [], js.name


@pytest.mark.parametrize("js", [
    # resolve.py's messages to a scenario's author, as the calculator's engine once wrote them out.
    "if (!p) problems.push([`${side}.option`, `no ${c.option} price for ${c.instance} in ${c.region}`]);",
    "else if (!p.offered) problems.push([`${side}.option`, `${c.instance} is not sold ${c.option} in ${c.region}`]);",
    "if (!inst) { problems.push([`${side}.instance`, `unknown instance '${c.instance}'`]); continue; }",
    "problems.push([\"regions\", `neither instance is offered in ${allowed.join(\", \")}`]);",
    # A chart's summary, and a wording template with its figures in other places.
    "s = `At the stated values Trainium's plan is ${standing} than the GPU's.`;",
    "t = 'Fix the field marked above: the answer below is still the one for the last valid inputs.';",
])
def test_the_check_finds_what_a_python_module_says_written_out_in_javascript(js: str):
    assert _copies(js) != []


@pytest.mark.parametrize("js", [
    'problems.push([`${side}.option`, "no-price"]);', 'tell("no_price", sale)', 'el.setAttribute("aria-invalid", "true");',
    "const key = `${side}.instance`;", '"on-demand", "capacity-block"', "`${esc(label)}: ${value}`",
])
def test_the_check_passes_codes_keys_and_markup(js: str):
    assert _copies(js) == []


# The one sentence a JavaScript module writes itself: calculator.mjs's, for when wording.mjs may be
# what failed to load (tests/test_calculator_wording.py).
OWN_SENTENCES = {"calculator.mjs": 2}


def test_no_javascript_module_writes_a_sentence_of_its_own():
    for js in sorted((ROOT / "docs" / "assets").rglob("*.mjs")):
        prose = [s for s in js_literals(js.read_text(encoding="utf-8")) if reads_as_prose(s)]
        assert len(prose) == OWN_SENTENCES.get(js.name, 0), (js.name, prose)


def _reads_as_a_sentence(text: str) -> bool:
    """Three words in a row and a full stop, question or exclamation mark after a word or a value (an
    abbreviation's stop is no sentence's end)."""
    text = re.sub(r"<[^>]*>", " ", text).replace("e.g.", "eg").replace("i.e.", "ie")
    return bool(re.search(r"[A-Za-z'-]+ [A-Za-z'-]+ [A-Za-z'-]+", text) and re.search(rf"[\w)'{HOLE}][.?!](\s|$)", text))


# Where a sentence is not the site's: what each layer or module says instead, and to whom.
SAID_ELSEWHERE = {
    "generator/model/wording.py": "every sentence a reader of the site is told",
    "generator/rendering/calculator/messages.py": "the calculator page's own messages, in its data for wording.mjs",
    "generator/commands/": "what `guide` tells whoever runs it: its output, reports, pull request bodies and tools",
    "generator/inputs/": "located problems, told to a scenario's or data file's author",
    "generator/model/suggest.py": "the hint a located problem about an unknown name ends with",
    "generator/plugin/": "what a build tells whoever runs MkDocs, under `mkdocs serve` over the page it serves",
}


def _sentences_outside_wording(package: Path) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package.parent).as_posix()
        if any(where.startswith(prefix) for prefix in SAID_ELSEWHERE):
            continue
        found += [f"{where}: {text!r}" for text in _said(path.read_text(encoding="utf-8")) if _reads_as_a_sentence(text)]
    return found


def test_no_module_of_the_layers_that_make_pages_says_a_sentence_outside_wording():
    assert {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py")} >= {
        "generator/model/resolve.py", "generator/rendering/charts/specs.py", "generator/model/results.py"}
    assert _sentences_outside_wording(PACKAGE) == []


def test_the_check_finds_a_sentence_a_module_makes(tmp_path: Path):
    module = tmp_path / "generator" / "rendering" / "charts" / "specs.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        '"""Charts. A docstring says what it likes."""\n'
        'def summary(base, flips):\n'
        '    assert base, "an assertion is for whoever reads the traceback."\n'
        '    return f"At the stated values Trainium\'s plan is {base} than the GPU\'s. Flips: {flips}."\n'
        'TITLE = "Cost per run"\n'
        'HELP = dict(help="An option\'s help is for whoever runs the command.")\n')
    assert _sentences_outside_wording(tmp_path / "generator") == [
        "generator/rendering/charts/specs.py: \"At the stated values Trainium's plan is \u2026 than the GPU's. Flips: \u2026.\""]


def test_the_calculator_data_carries_the_calculator_pages_own_messages():
    from generator.inputs.loader import load_catalog
    from generator.rendering.calculator import messages as calculator_messages

    messages = calculator_data(load_catalog(FROZEN / "data"))["messages"]
    assert messages == calculator_messages.tables()
    assert messages["MESSAGES"]["link_copied"] == "Link copied." and messages["FORM_SIDES"]["gpu"] == "GPU"


def test_the_calculator_data_carries_wording_pys_tables():
    from generator.inputs.loader import load_catalog

    words = calculator_data(load_catalog(FROZEN / "data"))["words"]
    assert words == wording.tables()
    assert words["TEMPLATES"] is wording.TEMPLATES and words["STEPS"] == wording.STEPS
    assert json.loads(json.dumps(words))["SMALL_COUNTS"]["2"] == "two"
    assert words["FORMATS"]["UNITS"]["per_hour"] == "/h" and words["FORMATS"]["CALENDAR"][0] == [1.0, 48.0, "hour"]


def test_wording_mjs_reads_every_table_it_is_given():
    js = (CALCULATOR / "wording.mjs").read_text(encoding="utf-8")
    read = set(re.findall(r"\bW\.([A-Z_]+)", js)) | ({"TEMPLATES"} if "words.TEMPLATES" in js else set())
    read |= {"FORMATS"} if "words.FORMATS" in js else set()
    assert read == set(wording.tables())


def test_format_mjs_holds_the_rounding_and_none_of_the_units_or_limits():
    from generator.model import formatting

    text = (CALCULATOR / "format.mjs").read_text(encoding="utf-8")
    written = [u for u in formatting.UNITS.values() if f'"{u}"' in text]
    written += [w for w in (formatting.NONE, formatting.FIRST_RUN, formatting.NO_CROSSING) if f'"{w}"' in text]
    written += [str(n) for n in (formatting.DAYS_FROM_HOURS, formatting.YEAR_HOURS, 1460, 17520) if re.search(rf"\b{int(n)}\b", text)]
    assert written == []


def test_every_template_either_language_fills_is_in_the_table_and_each_is_used_by_both():
    py = (ROOT / "generator" / "model" / "wording.py").read_text(encoding="utf-8")
    py = py[py.index("\nSUMMARY_LABELS = "):]  # the code past the table itself
    js = (CALCULATOR / "wording.mjs").read_text(encoding="utf-8")
    keys = set(wording.TEMPLATES)
    filled = set(re.findall(r"""\bsay\(\s*["'](\w+)["']""", js)) | set(re.findall(r"""\bT\.(\w+)""", js))
    assert filled <= keys, filled - keys  # no template the data does not carry
    # Every template is said by both languages, but for what only a scenario page says: a withdrawn
    # price, and a Trainium side pinned to an older Neuron release (with the list joining its names).
    assert [k for k in sorted(keys) if f'"{k}"' not in py] == []
    assert [k for k in sorted(keys) if f'"{k}"' not in js and f"T.{k}" not in js] == [
        "beta_path", "comma", "neuron_pin", "neuron_pin_lead", "neuron_pin_others", "neuron_pin_report"]


RUNNER = """
import { readFileSync } from "node:fs";
const w = await import(process.argv[1]);
const c = JSON.parse(readFileSync(0, "utf8"));
w.learn(c.words);
process.stdout.write(JSON.stringify(w.present(c.result, c.curve, c.prices)));
"""


def test_the_calculator_says_what_its_data_says():
    """A word changed in the tables the calculator is given is what it says: it has no copy of its own."""
    x = Inputs(gpu_hours=500.0, relative_throughput=Span(1.0, 0.8, 1.2), trainium_price=Span(35.76, 35.76, 35.76),
               gpu_price=Span(55.04, 55.04, 55.04), trainium_spot=False, gpu_spot=False,
               interruption_rate=Span(0.0005, 0.0001, 0.002), lost_hours=Span(1.5, 0.5, 4.0), port_weeks=Span(2.0, 1.0, 3.0),
               engineer_week_usd=6000.0, port_extra_usd=0.0, runs=10, runs_per_architecture=None, trainium_count=1,
               gpu_count=1, trainium_availability="available", gpu_availability="available", needed_within_days=None,
               soon_days=30, close_call_margin=0.1)
    o = evaluate(x)
    case = {"result": {"inputs": plain(x), "outcome": plain(o), "robustness": plain(robustness(x, o)),
                       "thresholds": plain(thresholds(x, o))},
            "curve": plain(cost_curve(x, o)), "prices": [
                {"side": side, "instance": "i", "region": "r", "option": "on-demand", "usd_per_hour": 1.0, "source": src,
                 "as_of": day, "name": src, "vanished": None, "stale": False, "age_days": 1}
                for side, src, day in (("trainium", "A", "2025-01-01"), ("gpu", "B", "2025-01-02"))]}
    words = json.loads(json.dumps(wording.tables()))
    words["TEMPLATES"]["live"] = "Answer: {verdict} ({words})."
    words["STEPS"]["both-can-run"] = "Nothing rules either side out."
    out = subprocess.run(["node", "--input-type=module", "-e", RUNNER, (CALCULATOR / "wording.mjs").as_uri()],
                         input=json.dumps({**case, "words": words}), capture_output=True, text=True, check=True, env=learned_env())
    shown = json.loads(out.stdout)
    python = wording.present(case["result"], case["curve"], case["prices"])
    assert python["live"].startswith("Verdict: ") and shown["live"] == "Answer: " + python["live"][len("Verdict: "):-1].replace(", ", " (", 1) + ")."
    assert shown["trace"][0]["text"] == "Nothing rules either side out."
    assert shown["summary"] == python["summary"]  # what was not changed reads as in Python


def _learned_names(js: str) -> set[str]:
    """The names engine.mjs's `learn` sets from the constants it is given."""
    body = js[js.index("export function learn(constants)"):]
    return set(re.findall(r"\b([A-Z][A-Z_]+)\b", body[:body.index("\n}\n")]))


def test_the_calculator_data_carries_engine_pys_constants_and_engine_mjs_writes_none_of_them():
    from generator.inputs.loader import load_catalog

    constants = calculator_data(load_catalog(FROZEN / "data"))["engine"]
    assert constants == json.loads(json.dumps(engine.constants()))
    assert constants["HOURS_PER_MONTH"] == 730.0 and ["port_weeks", "high", "low"] in constants["RANGE_INPUTS"]
    # As the page carries it (keys sorted), the ranged inputs keep the order flips are named in.
    assert [r[0] for r in json.loads(compact_json(constants))["RANGE_INPUTS"]] == list(engine.RANGE_INPUTS)
    js = (CALCULATOR / "engine.mjs").read_text(encoding="utf-8")
    assert _learned_names(js) == set(constants)
    # No constant is set in the JavaScript itself, by name (other than from what it is given) or by value.
    assert [n for n in constants if re.search(rf"\b{n}\s*=(?!=)(?![^;\n]*\bconstants\b)", js)] == []
    assert [v for v in ("730", "1000000", "1e-6", '"on-demand", "capacity-block"') if v in js] == []


ENGINE_RUNNER = """
const E = await import(process.argv[1]);
E.learn(JSON.parse(process.env.GUIDE_ENGINE));
process.stdout.write(JSON.stringify(E.blockHours(30, JSON.parse(process.env.BLOCKS))));
"""


def test_the_calculators_engine_computes_with_the_constants_its_data_gives():
    """A constant changed in the data is what the JavaScript engine computes with: it has no copy of its own."""
    limits = BlockLimits(per_block=64, across_blocks=256, daily_up_to=14, weekly_step=7, longest=182)
    env = learned_env() | {"BLOCKS": json.dumps(limits.__dict__)}

    def js(constants: dict) -> float:
        out = subprocess.run(["node", "--input-type=module", "-e", ENGINE_RUNNER, (CALCULATOR / "engine.mjs").as_uri()],
                             capture_output=True, text=True, check=True, env=env | {"GUIDE_ENGINE": json.dumps(constants)})
        return json.loads(out.stdout)

    assert js(engine.constants()) == block_hours(30, limits) == 48.0  # a 30-hour run books two whole days
    assert js(engine.constants() | {"HOURS_PER_DAY": 12.0}) == 36.0  # three "days" of 12 hours
