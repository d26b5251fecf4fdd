"""A scenario's notes may quote a price by name, `{price:INSTANCE/REGION/OPTION}`, so that the
figure follows data/: the page shows the price data/ gives today, a name data/ does not price is a
located problem, and a price refresh asks nobody to reread such a note. On the frozen project."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from core_support import copy_inputs
from generator.commands.import_prices import checked
from generator.commands.refresh_scenarios import follow
from generator.inputs.loader import InputError, load_catalog, load_project
from generator.rendering.pages.renderer import Renderer

DAY = dt.date(2026, 11, 23)
SCENARIO = "run-needed-before-the-port-is-done.yaml"
TYPED = "the GPU Capacity Block costs 6,000 h x $41.528 = $249,168"
QUOTED = "the GPU Capacity Block costs 6,000 h x {price:p5.48xlarge/us-east-1/capacity-block} <b>&"


def _quoting(tmp_path: Path, quoted: str = QUOTED) -> Path:
    root = copy_inputs(tmp_path / "project", scenarios=True)
    path = root / "scenarios" / SCENARIO
    text = path.read_text(encoding="utf-8")
    assert TYPED in text
    path.write_text(text.replace(TYPED, quoted, 1), encoding="utf-8")
    return root


def _set_price(root: Path, usd: str) -> None:
    path = root / "data" / "prices.yaml"
    text = path.read_text(encoding="utf-8")
    new, n = re.subn(r"(instance: p5\.48xlarge, region: us-east-1, option: capacity-block, usd_per_hour: )41\.528", rf"\g<1>{usd}", text)
    assert n == 1
    path.write_text(new, encoding="utf-8")


def _note(root: Path) -> str:
    page = Renderer(load_project(root, check_expect=False), today=DAY).render().pages[f"scenarios/{SCENARIO[:-5]}.md"]
    return page.split("Contributor's note</p><p>", 1)[1].split("</p>", 1)[0]


def test_a_quoted_price_is_the_one_data_gives_and_follows_it(tmp_path: Path):
    root = _quoting(tmp_path)
    assert "costs 6,000 h x $41.528/h &lt;b&gt;&amp;;" in _note(root)  # the rest of the note escaped as ever
    _set_price(root, "35.0")
    assert "costs 6,000 h x $35.00/h &lt;b&gt;&amp;;" in _note(root)


def test_a_quoted_price_data_does_not_have_is_a_located_problem(tmp_path: Path):
    root = _quoting(tmp_path, QUOTED.replace("capacity-block}", "capacity-blok}"))
    with pytest.raises(InputError) as e:
        load_project(root)
    (problem,) = [str(p) for p in e.value.problems]
    assert re.match(rf"scenarios/{SCENARIO}:\d+:\d+: notes: \{{price:...\}} names no offered price in data/prices\.yaml", problem)
    assert "did you mean 'p5.48xlarge/us-east-1/capacity-block'?" in problem


def test_a_refresh_asks_to_reread_a_typed_figure_but_not_a_quoted_one(tmp_path: Path):
    typed = copy_inputs(tmp_path / "typed", scenarios=True)
    quoted = _quoting(tmp_path)
    for root, expected in ((typed, [SCENARIO]), (quoted, [])):
        new_prices = (root / "data" / "prices.yaml").read_text(encoding="utf-8").replace(
            "option: capacity-block, usd_per_hour: 41.528,", "option: capacity-block, usd_per_hour: 40.0,", 1)
        data = root / "data"
        followed = follow(root, data, load_catalog(data), checked(data, {"prices.yaml": new_prices}), [41.528])
        assert [Path(q.path).name for q in followed.quotes if q.figure == "41.528"] == expected
