"""The maps of the house. ARCHITECTURE.md fits one printed page and names only what exists: every
module, folder and file it names is in the repository, and every name it gives a module holds is
defined there; what each module does is said in its own docstring. Every test file is named after
the module it tests or listed in CONTRIBUTING.md's index of suites, none after an issue, and no code
or test says when something was done (an issue, a session) where it should say why."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "ARCHITECTURE.md"
# A printed page: some 60 to 70 lines of at most about 100 characters.
PAGE_LINES = 70
LINE_CHARS = 105
# Where a name the map gives without its folder is found: the package, its templates, the calculator.
PLACES = (ROOT, ROOT / "generator", ROOT / "generator" / "templates", ROOT / "docs" / "assets" / "calculator",
          ROOT / "docs" / "assets")


def _named_files(text: str) -> list[str]:
    """Every file or folder the map names in code spans: what ends in a known suffix or a slash."""
    spans = re.findall(r"`([^`\s]+)`", text)
    return [s for s in spans if re.fullmatch(r"[\w./<>-]+(\.(py|mjs|js|j2|md|yaml|yml)|/)", s)]


def _exists(name: str) -> bool:
    if "<" in name:  # a pattern (embed/<id>/), which names no single file
        return True
    if any((place / name).exists() for place in PLACES):
        return True
    # A name within a group the sentence names (`pages/` ... `renderer.py`): somewhere under generator/.
    return any(p.as_posix().endswith("/" + name.rstrip("/")) for p in (ROOT / "generator").rglob("*"))


def test_the_map_fits_one_printed_page():
    lines = MAP.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= PAGE_LINES, len(lines)
    assert [line for line in lines if len(line) > LINE_CHARS] == []


def test_every_module_file_and_folder_the_map_names_exists():
    names = _named_files(MAP.read_text(encoding="utf-8"))
    assert len(names) > 30  # the check has something to find
    assert [n for n in names if not _exists(n)] == []


def test_every_name_the_map_gives_a_module_is_defined_there():
    text = MAP.read_text(encoding="utf-8")
    pairs = re.findall(r"`([\w/]+\.py)`'s `(\w+)`", text)
    assert pairs  # `renderer.py`'s `Renderer`
    for module, name in pairs:
        (path,) = [p for p in (ROOT / "generator").rglob("*.py") if p.as_posix().endswith("/" + module)]
        defined = {n.name for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        assert name in defined, (module, name)


def test_the_check_finds_a_module_that_is_not_there():
    assert _named_files("the page is `rendering/site.py`'s, kept in `store/` and `rendering/pages/`") == [
        "rendering/site.py", "store/", "rendering/pages/"]
    assert not _exists("rendering/site.py") and _exists("rendering/pages/renderer.py") and _exists("renderer.py")


def _module_names() -> set[str]:
    """What a test file may be named after: each module and package of generator/ (`engine`,
    `incremental`, and `calculator_fields` for `rendering/calculator/fields.py`), each module of the
    calculator (`calculator_wording`) and each script."""
    names = {p.stem for p in (ROOT / "scripts").glob("*.py")}
    for path in (ROOT / "generator").rglob("*.py"):
        parts = path.relative_to(ROOT / "generator").with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        names |= {parts[-1], "_".join(parts[-2:])} if parts else set()
    return names | {f"calculator_{p.stem}" for p in (ROOT / "docs" / "assets" / "calculator").glob("*.mjs")}


def _unnamed(tests: list[str], modules: set[str], index: str) -> list[str]:
    listed = set(re.findall(r"`(test_\w+\.py)`", index))
    stems = {t: t[len("test_"):-len(".py")] for t in tests}
    return [t for t in tests if t not in listed and not any(stems[t] == m or stems[t].startswith(m + "_") for m in modules)]


def test_every_test_file_is_named_after_its_module_or_listed_in_contributing():
    tests = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    index = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert _unnamed(tests, _module_names(), index) == []
    assert [t for t in re.findall(r"`(test_\w+\.py)`", index) if not (ROOT / "tests" / t).is_file()] == []


def test_the_check_finds_a_test_file_named_after_nothing():
    modules = {"engine", "template_cache"}
    assert _unnamed(["test_engine.py", "test_engine_codes.py", "test_compiled.py", "test_flow.py"], modules,
                    "the suites: `test_flow.py`") == ["test_compiled.py"]


WHEN = re.compile(r"\b(issue|session)s? #?\d+|\bthe issue\b", re.IGNORECASE)


def _says_when(paths: list[Path]) -> list[str]:
    return [f"{p.name}:{i}: {line.strip()}" for p in paths
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if WHEN.search(line)]


def test_no_file_is_named_after_an_issue_and_no_code_says_when():
    files = [p for p in (ROOT / "generator").rglob("*") if p.suffix in (".py", ".j2", ".html")]
    files += [p for p in (ROOT / "tests").rglob("*.py")] + list((ROOT / "docs" / "assets").rglob("*.*js"))
    files += list((ROOT / "scripts").glob("*"))
    files = [p for p in files if p.is_file() and p.name != Path(__file__).name]
    assert [p for p in (ROOT / "tests").rglob("*") if re.search(r"issue", p.name, re.IGNORECASE)] == []
    assert _says_when(files) == []


def test_the_check_finds_a_comment_that_says_when(tmp_path: Path):
    code = tmp_path / "x.py"
    code.write_text("x = 1  # as session 9 measured\n# why: the poll waits half a second\n# see issue 45\n")
    assert len(_says_when([code])) == 2
