"""Stale prices: measured from one "today" (fixed here), noted on the pages that use them and once
by `guide validate`, and refused by `guide validate --strict` at their as_of field. Every date in these tests is fixed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from contrib_support import guide, problems
from core_support import copy_inputs
from generator.model.catalog import Price, refreshable
from generator.commands import siteconfig
from generator.inputs.options import TODAY_ENV
from generator.inputs.freshness import DEFAULT_STALE_DAYS, Freshness, stale_problems
from generator.inputs.loader import load_catalog
from generator.rendering.pages.renderer import Renderer

BUILD_DAY = dt.date(2026, 11, 23)  # the day the fixture was frozen: every on-demand price in it is older than 180 days
EARLY_DAY = dt.date(2026, 1, 1)  # when none was stale yet


def _env(day: str) -> dict[str, str]:
    return {TODAY_ENV: day}


def _price(as_of: dt.date) -> Price:
    return Price(instance="p5.48xlarge", region="us-east-1", option="on-demand", usd_per_hour=1.0, source="VAN", as_of=as_of)


def test_a_price_is_stale_one_day_past_the_limit_not_on_it():
    f = Freshness(BUILD_DAY, 180)
    assert not f.is_stale(_price(BUILD_DAY - dt.timedelta(days=180)))
    assert f.is_stale(_price(BUILD_DAY - dt.timedelta(days=181)))
    assert f.age(_price(dt.date(2025, 11, 30))) == 358


def test_a_price_an_api_gave_again_is_checked_on_the_day_it_last_answered_and_no_other_figure_is():
    asked = dt.date(2026, 11, 20)
    f = Freshness(BUILD_DAY, 180, asked=(("AWS-PRICE-LIST-API", asked),),
                  lacked=frozenset({("p4d.24xlarge", "us-east-1", "on-demand")}))
    cited = Price(instance="p5.48xlarge", region="us-east-1", option="on-demand", usd_per_hour=1.0,
                  source="AWS-PRICE-LIST-API-2026-01-21", as_of=dt.date(2026, 1, 21))
    assert f.checked(cited) == asked
    assert f.checked(_price(dt.date(2026, 1, 21))) is None  # cited to no API
    assert f.checked(cited.model_copy(update={"instance": "p4d.24xlarge"})) is None  # the last answer lacked it
    assert f.checked(cited.model_copy(update={"as_of": asked})) is None  # its own date already says so
    assert f.checked(object()) is None  # a chip's or an instance's figure has no API behind it


def test_stale_days_comes_from_assumptions_with_a_default(tmp_path: Path, project):
    assert Freshness.of(project.catalog, BUILD_DAY).max_days == project.catalog.assumptions.stale_days.value == 180
    root = copy_inputs(tmp_path, scenarios=False)
    path = root / "data" / "assumptions.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.split("stale_days:")[0], encoding="utf-8")  # the setting is the file's last block
    assert Freshness.of(load_catalog(root / "data"), BUILD_DAY).max_days == DEFAULT_STALE_DAYS
    path.write_text(text.replace("  value: 180\n", "  value: 400\n"), encoding="utf-8")
    assert stale_problems(load_catalog(root / "data"), root / "data", on=BUILD_DAY) == []


def test_today_is_the_machine_date_unless_fixed(monkeypatch):
    monkeypatch.delenv(TODAY_ENV, raising=False)
    assert siteconfig.today() == dt.date.today()
    assert siteconfig.today("2031-01-02") == dt.date(2031, 1, 2)
    monkeypatch.setenv(TODAY_ENV, "2030-02-03")
    assert siteconfig.today() == siteconfig.today("2031-01-02") == dt.date(2030, 2, 3)
    monkeypatch.setenv(TODAY_ENV, "next tuesday")
    with pytest.raises(ValueError, match="GUIDE_TODAY must be a date written YYYY-MM-DD"):
        siteconfig.today("2031-01-02")


def test_validate_strict_refuses_each_stale_price_at_its_as_of(tmp_path: Path, project):
    root = copy_inputs(tmp_path)
    # Only what a refresh could fix: the "not offered" row no API can confirm is stale by the calendar too, but not refused.
    expected = [p for p in project.catalog.prices if (BUILD_DAY - p.as_of).days > 180 and refreshable(p)]
    assert expected, "the committed data should have stale prices on this fixed day"
    r = guide("validate", "--strict", cwd=root, env=_env(BUILD_DAY.isoformat()))
    assert r.returncode == 1 and r.stdout == ""
    found = problems(r.stderr)
    assert len(found) == len(expected)
    assert r.stderr.splitlines()[-1] == f"{len(expected)} problem(s) found."
    lines = (root / "data" / "prices.yaml").read_text(encoding="utf-8").splitlines()
    for p, price in zip(found, expected):
        assert p["path"] == "data/prices.yaml"
        assert p["field"].endswith(".as_of")
        # The column is the as_of value itself.
        assert lines[p["line"] - 1][p["col"] - 1:].startswith(price.as_of.isoformat())
        assert f"{price.instance} {price.region}" in p["message"]
        assert "older than 180 days (stale_days in data/assumptions.yaml)" in p["message"]
        assert p["message"].endswith(f"(got {price.as_of})")


def test_validate_without_strict_passes_and_sums_the_stale_prices_up_once(tmp_path: Path, project):
    from generator.inputs.freshness import stale_summary

    root = copy_inputs(tmp_path)
    plain = guide("validate", cwd=root, env=_env(BUILD_DAY.isoformat()))
    assert (plain.returncode, plain.stderr) == (0, "")
    ok, note = plain.stdout.splitlines()
    assert ok.startswith("ok: data/ and ")
    assert note == f"note: {stale_summary(project.catalog, on=BUILD_DAY)}"
    # A longer limit than the oldest price's age (358 days on BUILD_DAY): no price is stale, so there is
    # no note at all, and --strict passes.
    path = root / "data" / "assumptions.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("  value: 180\n", "  value: 400\n"), encoding="utf-8")
    for args in ((), ("--strict",)):
        fresh = guide("validate", *args, cwd=root, env=_env(BUILD_DAY.isoformat()))
        assert (fresh.returncode, fresh.stderr, fresh.stdout.splitlines()) == (0, "", [ok]), args


def test_a_bad_fixed_date_is_a_usage_error(tmp_path: Path):
    root = copy_inputs(tmp_path)
    r = guide("validate", "--strict", cwd=root, env=_env("21/11/2026"))
    assert r.returncode == 2
    assert r.stderr == "guide validate: GUIDE_TODAY must be a date written YYYY-MM-DD (got '21/11/2026')\n"


NOTE = "Prices as of {dates}, older than 180 days when this page was built ({day})."


def test_pages_that_use_stale_prices_say_so(project):
    r = Renderer(project, today=BUILD_DAY)
    stale = f", older than 180 days when this page was built ({BUILD_DAY})."
    for result in project.results:
        assert stale in r.scenario_page(result), result.id
    by_id = {x.id: x for x in project.results}
    # Each page names the dates of the prices it uses, and only those.
    assert NOTE.format(dates="2026-01-21", day=BUILD_DAY) in r.scenario_page(by_id["repeated-fine-tuning"])
    assert NOTE.format(dates="2025-11-30, 2026-01-21", day=BUILD_DAY) in r.scenario_page(by_id["mainstream-pretraining"])
    site = r.render()
    assert NOTE.format(dates="2025-11-30, 2026-01-21", day=BUILD_DAY) in site.pages["prices.md"]
    later = dt.date(2027, 2, 1)  # the Capacity Block figures of 2026-07-22 have aged too by then
    page = Renderer(project, today=later).scenario_page(by_id["large-run-gpus-constrained"])
    assert NOTE.format(dates="2025-11-30, 2026-07-22", day=later) in page


def test_no_note_while_prices_are_fresh(project):
    r = Renderer(project, today=EARLY_DAY)
    for result in project.results:
        assert "guide-stale" not in r.scenario_page(result), result.id
    assert "guide-stale" not in r.render().pages["prices.md"]


def test_the_summary_counts_the_stale_prices_and_names_the_oldest(project):
    from generator.inputs.freshness import stale_summary

    assert stale_summary(project.catalog, on=EARLY_DAY) is None
    fresh = Freshness.of(project.catalog, BUILD_DAY)
    stale = fresh.stale(p for p in project.catalog.prices if refreshable(p))
    overdue = [p for p in project.catalog.prices if not refreshable(p) and fresh.is_stale(p)]
    assert len(stale) > 1 and [(p.instance, p.offered) for p in overdue] == [("p5e.48xlarge", False)]
    # The figures a refresh could fix apart from the one no API gives, whose review date has passed.
    assert stale_summary(project.catalog, on=BUILD_DAY) == (
        f"{len(stale)} of {len(project.catalog.prices)} prices are older than 180 days on {BUILD_DAY} (the oldest is from "
        f"{min(p.as_of for p in stale)}); `guide validate --strict` lists them; 1 figure(s) no AWS API gives are past "
        "their review date (review_by in data/prices.yaml)"
    )
    one = project.catalog.model_copy(update={"prices": [_price(dt.date(2025, 1, 2)), _price(BUILD_DAY)]})
    assert stale_summary(one, on=BUILD_DAY) == (
        f"1 of 2 prices is older than 180 days on {BUILD_DAY} (the oldest is from 2025-01-02); `guide validate --strict` lists them"
    )


P5E = "  - {instance: p5e.48xlarge, region: us-east-1, option: on-demand, offered: false, source: VAN, as_of: 2025-11-30, "
ULTRA = "  - {instance: u-p6e-gb200x72, region: us-east-1, option: capacity-block, usd_per_hour: 761.904, source: CB-2026-07, as_of: 2026-07-22, "


def test_strict_refuses_only_what_a_refresh_could_fix_and_a_figure_no_api_gives_waits_for_its_review_date(tmp_path: Path):
    root = copy_inputs(tmp_path, scenarios=False)
    path = root / "data" / "prices.yaml"
    text = path.read_text(encoding="utf-8")
    assert P5E in text and ULTRA in text
    # After 2027-01-18 the UltraServer's block rate (as_of 2026-07-22) is older than 180 days, and the row
    # recorded as not offered has been since 2026-05-29: no refresh can confirm either.
    late = "2027-02-01"
    r = guide("validate", "--strict", cwd=root, env=_env(late))
    fields = {p["line"] for p in problems(r.stderr)}
    lines = text.splitlines()
    assert fields and all(P5E.strip() not in lines[n - 1] and "u-p6e-gb200" not in lines[n - 1] for n in fields)
    # Each carries its own review date instead: past it, the pages and the build's note count it, --strict does not.
    path.write_text(text.replace(P5E, P5E + "review_by: 2027-06-01, ").replace(ULTRA, ULTRA + "review_by: 2027-01-25, "),
                    encoding="utf-8")
    catalog = load_catalog(root / "data")
    fresh = Freshness.of(catalog, dt.date(2027, 2, 1))
    p5e, ultra = catalog.price("p5e.48xlarge", "us-east-1", "on-demand"), catalog.price("u-p6e-gb200x72", "us-east-1", "capacity-block")
    assert not fresh.is_stale(p5e) and fresh.is_stale(ultra)
    assert not Freshness.of(catalog, dt.date(2027, 1, 25)).is_stale(ultra)
    assert [p for p in stale_problems(catalog, root / "data", on=dt.date(2027, 2, 1)) if "u-p6e" in p.message or "p5e.48xlarge us-east-1 on-demand" in p.message] == []
    # A review date on a figure an API gives is refused: the refresh confirms that one.
    path.write_text(text.replace("source: VAN-2026-01, as_of: 2026-01-21, alternatives", "source: VAN-2026-01, as_of: 2026-01-21, "
                                 "review_by: 2027-01-01, alternatives", 1), encoding="utf-8")
    r = guide("validate", cwd=root)
    (found,) = problems(r.stderr)
    assert r.returncode == 1 and found["field"].endswith(".review_by") and "review_by is for figures no API gives" in found["message"]
