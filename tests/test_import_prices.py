"""`guide import-prices FILE` on small files in the two formats of the AWS Price List API
(tests/fixtures/aws-price-list/): exactly the tracked on-demand Linux prices change, each keeps its
previous figure, and every other entry and line of data/ stays as it was. The tests marked slow
run the guide command."""

from __future__ import annotations

import datetime as dt
import difflib
from pathlib import Path

import pytest

from contrib_support import guide
from core_support import DATA, copy_inputs, tree_hashes
from generator.commands.import_prices import OfferError, parse_offer
from generator.inputs.loader import load_catalog, read

FIXTURES = Path(__file__).parent / "fixtures" / "aws-price-list"
OFFER = FIXTURES / "ec2-offer.json"
GET_PRODUCTS = FIXTURES / "get-products.json"


def _entry_lines(data: Path) -> list[range]:
    """The lines of data/prices.yaml each price entry spans, by index."""
    doc = read(data / "prices.yaml", "data/prices.yaml")
    starts = [doc.where(("prices", i))[0] for i in range(len(doc.data["prices"]))]
    total = len(doc.text.splitlines())
    return [range(s, (starts[i + 1] if i + 1 < len(starts) else total + 1)) for i, s in enumerate(starts)]


def _changed_lines(before: str, after: str) -> set[int]:
    """1-based lines of `before` that the edit replaced or removed."""
    out = set()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, before.splitlines(), after.splitlines()).get_opcodes():
        if tag != "equal":
            out.update(range(i1 + 1, max(i2, i1 + 1) + 1))
    return out


def _import(tmp_path: Path, fixture: Path, *extra: str):
    root = copy_inputs(tmp_path / "project", scenarios=False)
    data = root / "data"
    before = {n: (data / n).read_text(encoding="utf-8") for n in ("prices.yaml", "sources.yaml")}
    catalog = load_catalog(data)
    r = guide("import-prices", str(fixture), *extra, cwd=root)
    return root, data, before, catalog, r


# (instance, region) -> (old, new) for each fixture; everything else must stay.
OFFER_CHANGES = {
    ("trn1.32xlarge", "us-east-1"): (21.5, 21.5),
    ("trn2.48xlarge", "us-east-2"): (35.76, 30.0),
    ("p5.48xlarge", "us-east-1"): (55.04, 49.536),
    ("p5.48xlarge", "eu-west-2"): (71.552, 70.0),
}


@pytest.mark.slow
def test_the_offer_file_updates_exactly_the_tracked_on_demand_prices(tmp_path: Path):
    root, data, before, old, r = _import(tmp_path, OFFER)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines()[:6] == [
        "data/prices.yaml: updated 4 on-demand price(s), now cited as AWS-PRICE-LIST-2026-11, as of 2026-11-01:",
        "  trn1.32xlarge us-east-1: 21.5 -> 21.5 (unchanged; as_of 2026-01-21 -> 2026-11-01)",
        "  trn2.48xlarge us-east-2: 35.76 -> 30 (-16.1 %); low/high widened to hold it: review them and the entry's reason",
        "  p5.48xlarge us-east-1: 55.04 -> 49.536 (-10.0 %)",
        "  p5.48xlarge eu-west-2: 71.552 -> 70 (-2.2 %)",
        "data/sources.yaml: added or re-dated AWS-PRICE-LIST-2026-11",
    ]
    assert "review: p5e.48xlarge us-east-1: recorded as not offered, but the file has 70; edit the entry by hand" in r.stdout
    new = load_catalog(data)  # the edited files still validate
    assert len(new.prices) == len(old.prices)
    changed = []
    for a, b in zip(old.prices, new.prices):
        key = (a.instance, a.region)
        if a.option != "on-demand" or key not in OFFER_CHANGES:
            assert b == a, key
            continue
        changed.append(key)
        was, now = OFFER_CHANGES[key]
        assert (a.usd_per_hour, b.usd_per_hour) == (was, now)
        assert (b.source, b.as_of) == ("AWS-PRICE-LIST-2026-11", dt.date(2026, 11, 1))
        previous = b.alternatives[0]
        assert (previous.usd_per_hour, previous.source, previous.as_of) == (was, a.source, a.as_of)
        assert b.alternatives[1:] == a.alternatives
        assert (b.note, b.reason, b.offered) == (a.note, a.reason, a.offered)
        if key == ("trn2.48xlarge", "us-east-2"):
            assert (b.low, b.high) == (30.0, a.high)
        else:
            assert (b.low, b.high) == (a.low, a.high)
    assert sorted(changed) == sorted(OFFER_CHANGES)
    # Every line outside the changed entries is as it was, comments and flow mappings included.
    before_dir = tmp_path / "before"
    before_dir.mkdir()
    (before_dir / "prices.yaml").write_text(before["prices.yaml"], encoding="utf-8")
    entries = _entry_lines(before_dir)
    allowed = set().union(*(entries[i] for i, p in enumerate(old.prices)
                            if p.option == "on-demand" and (p.instance, p.region) in OFFER_CHANGES))
    after_prices = (data / "prices.yaml").read_text(encoding="utf-8")
    assert _changed_lines(before["prices.yaml"], after_prices) <= allowed
    # The new source is added at the end of sources.yaml; the rest is untouched.
    after_sources = (data / "sources.yaml").read_text(encoding="utf-8")
    assert after_sources.startswith(before["sources.yaml"])
    assert set(new.sources) - set(old.sources) == {"AWS-PRICE-LIST-2026-11"}
    src = new.sources["AWS-PRICE-LIST-2026-11"]
    assert (src.kind, src.as_of) == ("primary", dt.date(2026, 11, 1))
    # The other data files are not touched at all.
    for name in ("chips.yaml", "instances.yaml", "assumptions.yaml"):
        assert (data / name).read_bytes() == (DATA / name).read_bytes(), name


@pytest.mark.slow
def test_get_products_output_and_an_explicit_date(tmp_path: Path):
    root, data, before, old, r = _import(tmp_path, GET_PRODUCTS, "--as-of", "2026-10-20", "--source", "AWS-PRICE-LIST")
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines()[:4] == [
        "data/prices.yaml: updated 2 on-demand price(s), now cited as AWS-PRICE-LIST, as of 2026-10-20:",
        "  p4d.24xlarge us-east-1: 21.957642 -> 20 (-8.9 %)",
        "  p4d.24xlarge eu-west-1: 23.71569 -> 23.716 (+0.0 %)",
        "data/sources.yaml: added or re-dated AWS-PRICE-LIST",
    ]
    new = load_catalog(data)
    diffs = [(a.instance, a.region, a.option) for a, b in zip(old.prices, new.prices) if a != b]
    assert diffs == [("p4d.24xlarge", "us-east-1", "on-demand"), ("p4d.24xlarge", "eu-west-1", "on-demand")]
    assert {(p.usd_per_hour, p.source, p.as_of) for p in new.prices if (p.instance, p.option) == ("p4d.24xlarge", "on-demand")
            and p.region in ("us-east-1", "eu-west-1")} == {(20.0, "AWS-PRICE-LIST", dt.date(2026, 10, 20)),
                                                            (23.716, "AWS-PRICE-LIST", dt.date(2026, 10, 20))}


@pytest.mark.slow
def test_a_second_import_of_the_same_file_changes_nothing(tmp_path: Path):
    root, data, _before, _old, first = _import(tmp_path, OFFER)
    assert first.returncode == 0
    snapshot = tree_hashes(data)
    again = guide("import-prices", str(OFFER), cwd=root)
    assert again.returncode == 0
    assert again.stdout.splitlines()[0] == "data/prices.yaml: nothing to update from a file dated 2026-11-01"
    assert tree_hashes(data) == snapshot


@pytest.mark.slow
def test_dry_run_and_bad_files_write_nothing(tmp_path: Path):
    root = copy_inputs(tmp_path / "project", scenarios=False)
    snapshot = tree_hashes(root / "data")
    dry = guide("import-prices", str(OFFER), "--dry-run", cwd=root)
    assert dry.returncode == 0
    assert dry.stdout.startswith("data/prices.yaml: would update 4 on-demand price(s)")
    (tmp_path / "not-an-offer.json").write_text('{"hello": "world"}', encoding="utf-8")
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    cases = {
        "not-an-offer.json": "expected an AWS Price List offer file (with products and terms) or the output of "
                             "`aws pricing get-products` (with PriceList)",
        "broken.json": "not JSON: ",
        "missing.json": "cannot read it",
    }
    for name, says in cases.items():
        r = guide("import-prices", str(tmp_path / name), cwd=root)
        assert r.returncode == 1 and r.stdout == "", name
        assert r.stderr.startswith(f"{tmp_path / name}: {says}"), r.stderr
    undated = tmp_path / "undated.json"
    undated.write_text(OFFER.read_text(encoding="utf-8").replace('"publicationDate"', '"published"'), encoding="utf-8")
    r = guide("import-prices", str(undated), cwd=root)
    assert r.returncode == 1 and "give the date it was published with --as-of YYYY-MM-DD" in r.stderr
    assert guide("import-prices", str(OFFER), "--as-of", "yesterday", cwd=root).returncode == 2
    assert tree_hashes(root / "data") == snapshot


@pytest.mark.slow
def test_standard_input_is_read_like_a_file(tmp_path: Path):
    root = copy_inputs(tmp_path / "project", scenarios=False)
    r = guide("import-prices", "-", "--dry-run", cwd=root, stdin=GET_PRODUCTS.read_text(encoding="utf-8"))
    assert r.returncode == 0 and "would update 2 on-demand price(s)" in r.stdout


def test_only_linux_shared_no_software_used_on_demand_products_are_read():
    offer = parse_offer(OFFER.read_text(encoding="utf-8"))
    assert offer.published == dt.date(2026, 11, 1)
    # Windows, dedicated, SQL, reservation and Capacity Block products of p5 us-east-1 are all skipped.
    assert offer.prices[("p5.48xlarge", "us-east-1")] == 49.536
    assert offer.prices[("p5.48xlarge", "eu-west-2")] == 70.0  # from `location` alone
    assert ("m5.large", "us-east-1") in offer.prices  # read, though no entry tracks it


def test_two_prices_for_one_product_are_refused():
    text = OFFER.read_text(encoding="utf-8").replace('"operatingSystem": "Windows"', '"operatingSystem": "Linux"')
    with pytest.raises(OfferError, match=r"more than one on-demand Linux price for p5\.48xlarge us-east-1 \(49\.536, 61\.2\)"):
        parse_offer(text)


@pytest.mark.slow
def test_a_date_after_today_is_refused_and_nothing_is_written(tmp_path: Path):
    root = copy_inputs(tmp_path / "project", scenarios=False)
    snapshot = tree_hashes(root / "data")
    day = {"GUIDE_TODAY": "2026-11-05"}  # the offer file says it was published 2026-11-01
    later = guide("import-prices", str(OFFER), "--as-of", "2026-11-06", cwd=root, env=day)
    assert (later.returncode, later.stdout) == (1, "")
    assert later.stderr == (f"{OFFER}: the prices would be dated 2026-11-06, later than today (2026-11-05); "
                            "give the date the file was published\n")
    next_year = (dt.date.today() + dt.timedelta(days=366)).isoformat()
    far = guide("import-prices", str(OFFER), "--as-of", next_year, cwd=root)  # the machine's date, unfixed
    assert far.returncode == 1 and f"would be dated {next_year}, later than today" in far.stderr
    assert tree_hashes(root / "data") == snapshot
    # The file's own date, on or before today, is accepted.
    assert guide("import-prices", str(OFFER), "--dry-run", cwd=root, env=day).returncode == 0


@pytest.mark.slow
def test_a_write_that_fails_half_way_leaves_both_files_as_they_were(tmp_path: Path, monkeypatch):
    from generator.commands import import_prices

    root = copy_inputs(tmp_path / "project", scenarios=False)
    data = root / "data"
    snapshot = tree_hashes(data)
    real_replace = import_prices.os.replace
    calls: list[str] = []

    def second_rename_fails(src, dst):
        calls.append(Path(dst).name)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(import_prices.os, "replace", second_rename_fails)
    with pytest.raises(OSError):
        import_prices.run(data, OFFER.read_text(encoding="utf-8"), on=dt.date(2026, 11, 23))
    assert calls == ["prices.yaml", "sources.yaml"]  # the first file had been replaced when the second failed
    assert tree_hashes(data) == snapshot  # ...and got its old bytes back; no temporary file is left


@pytest.mark.slow
def test_an_unwritable_data_folder_is_a_clear_error(tmp_path: Path, monkeypatch):
    from generator.commands import import_prices

    root = copy_inputs(tmp_path / "project", scenarios=False)
    data = root / "data"
    snapshot = tree_hashes(data)
    real_open = open

    def no_room(path, *args, **kwargs):
        if str(path).endswith(".tmp"):
            raise OSError(28, "No space left on device", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(import_prices, "open", no_room, raising=False)
    with pytest.raises(OSError, match="No space left on device"):
        import_prices.run(data, OFFER.read_text(encoding="utf-8"), on=dt.date(2026, 11, 23))
    assert tree_hashes(data) == snapshot


@pytest.mark.slow
def test_each_changed_price_is_recorded_as_a_move_in_the_history(tmp_path: Path):
    root, data, before, old, r = _import(tmp_path, OFFER)
    assert (r.returncode, r.stderr) == (0, "")
    assert "data/history.yaml: recorded 3 price move(s)" in r.stdout.splitlines()
    moves = {(m.instance, m.region): m for m in load_catalog(data).history.prices}
    # The unchanged trn1.32xlarge price is re-dated, not moved.
    assert set(moves) == {k for k, (was, now) in OFFER_CHANGES.items() if was != now}
    p5 = moves[("p5.48xlarge", "us-east-1")]
    assert (p5.date, p5.option, p5.change, p5.source) == (dt.date(2026, 11, 1), "on-demand", "changed", "AWS-PRICE-LIST-2026-11")
    assert (p5.before.usd_per_hour, p5.before.source, p5.before.as_of) == (55.04, "VAN-2026-01", dt.date(2026, 1, 21))
    assert (p5.after.usd_per_hour, p5.after.as_of) == (49.536, dt.date(2026, 11, 1))
