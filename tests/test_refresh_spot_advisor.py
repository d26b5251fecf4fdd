"""`guide refresh-prices` reading the Spot Instance Advisor's public object (tests/refresh_support.py
serves it last, stubbed, or from a real server on 127.0.0.1): buckets updated in the regions each
instance lists and cited to the object's own date, a region or an instance the data stops rating
kept, ranges the guide does not know refused, a second identical answer writing nothing, and an
HTML page or a refusal in one sentence with data/ byte-identical.

The frozen project rates no instance, so each test reads a copy of it with three instances rated
as below (and the Advisor's 2025 snapshot among the sources)."""

from __future__ import annotations

import copy
import datetime as dt
import re
from pathlib import Path

import pytest

from core_support import copy_inputs, tree_hashes
from generator.commands import cli, refresh
from generator.inputs.loader import load_catalog
from refresh_support import ADVISOR, CALLED_AT, HTML, HTML_PAGE, XML, AnswerServer, Stubbed, advisor_call, calls, served

# Each test loads and checks a copy of data/ two or three times, like tests/test_refresh_prices.py.
pytestmark = pytest.mark.slow

ADVISED = dt.date(2026, 11, 24)  # the LastModified of the recorded object
NEW = f"SPOT-ADV-{ADVISED}"
RATED = {
    # Listed in us-east-1 only; the refresh's offerings add us-east-2 and us-west-2 in the same run.
    "trn1.32xlarge": '{us-east-1: "<5%"}',
    # ap-northeast-1 is one of its regions the Advisor's answer does not rate.
    "p5.48xlarge": '{ap-northeast-1: "5-10%", us-east-1: "<5%"}',
    # Exactly as the answer rates it.
    "p4d.24xlarge": '{eu-west-1: ">20%", us-east-1: "5-10%"}',
}
HAND = "  # A hand-written comment on the 2025 snapshot, which the refresh leaves alone.\n"
OLD_SOURCE = HAND + """  SPOT-ADV-2025-06:
    title: "AWS's Spot Instance Advisor data as a public repository kept it on 2025-06-28"
    url: https://github.com/alexei-led/spotinfo
    kind: primary
    as_of: 2025-06-28
"""


def _project(tmp_path: Path) -> Path:
    root = copy_inputs(tmp_path / "project", scenarios=False)
    path = root / "data" / "instances.yaml"
    text = path.read_text(encoding="utf-8")
    for name, value in RATED.items():
        text = re.sub(rf"(\n  {re.escape(name)}:\n(?:    .*\n)*?    regions: .*\n)",
                      rf"\1    spot_interruption: {{value: {value}, source: SPOT-ADV-2025-06, as_of: 2025-06-28}}\n", text, count=1)
    assert text.count("spot_interruption:") == len(RATED)
    path.write_text(text, encoding="utf-8")
    sources = root / "data" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8").replace("sources:\n", "sources:\n" + OLD_SOURCE, 1), encoding="utf-8")
    load_catalog(root / "data")  # the copy is valid data/
    return root


def _refresh(root: Path, advisor: dict | None = None) -> refresh.Outcome:
    stubbed = Stubbed(calls(advisor))
    out = refresh.run(root / "data", stubbed, CALLED_AT)
    stubbed.assert_all_called()
    return out


def _rating(root: Path, instance: str):
    return load_catalog(root / "data").instances[instance].spot_interruption


def _line(root: Path, instance: str) -> str:
    text = (root / "data" / "instances.yaml").read_text(encoding="utf-8")
    block = text[text.index(f"\n  {instance}:\n"):]
    return next(ln for ln in block.splitlines() if ln.startswith("    spot_interruption:"))


def test_buckets_follow_the_advisor_in_the_listed_regions_cited_to_the_objects_date(tmp_path: Path):
    root = _project(tmp_path)
    p4d_before = _line(root, "p4d.24xlarge")
    out = _refresh(root)

    trn1 = _rating(root, "trn1.32xlarge")
    # us-east-2 and us-west-2 joined its regions in this run; Windows (">20%" everywhere) is not read.
    assert trn1.value == {"us-east-1": "<5%", "us-east-2": "10-15%", "us-west-2": "5-10%"}
    assert (trn1.source, trn1.as_of, trn1.note) == (NEW, ADVISED, None)
    p5 = _rating(root, "p5.48xlarge")
    # us-west-2 is rated ">20%" but p5.48xlarge does not list it; ap-northeast-1 is not in the answer.
    assert p5.value == {"ap-northeast-1": "5-10%", "us-east-1": "10-15%"}
    assert p5.source == NEW and p5.note.startswith(refresh.KEPT)
    assert "ap-northeast-1 as SPOT-ADV-2025-06 (2025-06-28) rated it." in p5.note
    # Unchanged: not rewritten, not re-dated. Unrated: left for a person, though the Advisor rates them.
    assert _line(root, "p4d.24xlarge") == p4d_before
    assert _rating(root, "trn2.48xlarge") is None and _rating(root, "trn1.2xlarge") is None
    assert out.spot == ["p5.48xlarge us-east-1: <5% -> 10-15%", "trn1.32xlarge us-east-2: none -> 10-15%",
                        "trn1.32xlarge us-west-2: none -> 5-10%"]

    src = load_catalog(root / "data").sources[NEW]
    assert src.as_of == ADVISED and src.kind == "primary" and str(src.url) == "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
    assert "last modified 2026-11-24" in src.title
    assert HAND + "  SPOT-ADV-2025-06:\n" in (root / "data" / "sources.yaml").read_text(encoding="utf-8")
    # The hand-cited rating the Advisor's data replaces stays, first among the alternatives (a source that disagrees is kept).
    assert '    spot_interruption: {value: {us-east-1: "<5%", us-east-2: "10-15%", us-west-2: "5-10%"}, source: SPOT-ADV-2026-11-24, ' \
        'as_of: 2026-11-24, alternatives: [{value: {us-east-1: "<5%"}, source: SPOT-ADV-2025-06, as_of: 2025-06-28}]}' \
        == _line(root, "trn1.32xlarge")
    assert [(a.source, a.value) for a in p5.alternatives] == [("SPOT-ADV-2025-06", {"ap-northeast-1": "5-10%", "us-east-1": "<5%"})]


def test_an_identical_second_answer_writes_nothing(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    snapshot = tree_hashes(root / "data")
    out = _refresh(root)
    assert out.texts == {} and out.spot == []
    assert tree_hashes(root / "data") == snapshot


def test_a_region_or_an_instance_the_next_answer_lacks_keeps_its_bucket(tmp_path: Path):
    root = _project(tmp_path)
    _refresh(root)
    later = copy.deepcopy(ADVISOR)
    del later["spot_advisor"]["us-east-2"]["Linux"]["trn1.32xlarge"]  # one region of one answer
    later["spot_advisor"]["us-west-2"]["Linux"]["trn1.32xlarge"]["r"] = 3
    del later["spot_advisor"]["us-east-1"]["Linux"]["p4d.24xlarge"]
    del later["spot_advisor"]["eu-west-1"]["Linux"]["p4d.24xlarge"]  # the whole instance
    p4d_before = _line(root, "p4d.24xlarge")
    out = _refresh(root, advisor_call(later, modified="2026-11-30T05:00:00+00:00"))

    trn1 = _rating(root, "trn1.32xlarge")
    assert trn1.value == {"us-east-1": "<5%", "us-east-2": "10-15%", "us-west-2": "15-20%"}
    assert trn1.source == "SPOT-ADV-2026-11-30" and trn1.as_of == dt.date(2026, 11, 30)
    assert trn1.note == (f"{refresh.KEPT} us-east-2 as {NEW} ({ADVISED}) rated it. The data of 2026-11-30 does not rate "
                         "the instance there.")
    assert _line(root, "p4d.24xlarge") == p4d_before
    assert out.spot == ["trn1.32xlarge us-west-2: 5-10% -> 15-20%"]

    # A later answer that still lacks us-east-2 and moves us-east-1: us-east-2 is still cited to the
    # answer that last rated it, not to the one of 2026-11-30 that lacked it.
    last = copy.deepcopy(later)
    last["spot_advisor"]["us-east-1"]["Linux"]["trn1.32xlarge"]["r"] = 1
    _refresh(root, advisor_call(last, modified="2026-12-07T05:00:00+00:00"))
    trn1 = _rating(root, "trn1.32xlarge")
    assert trn1.value == {"us-east-1": "5-10%", "us-east-2": "10-15%", "us-west-2": "15-20%"}
    assert trn1.source == "SPOT-ADV-2026-12-07"
    assert trn1.note == (f"{refresh.KEPT} us-east-2 as {NEW} ({ADVISED}) rated it. The data of 2026-12-07 does not rate "
                         "the instance there.")


def test_ranges_the_assumptions_do_not_know_are_refused_and_nothing_is_written(tmp_path: Path, capsys):
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    renamed = copy.deepcopy(ADVISOR)
    renamed["ranges"][0]["label"] = "0-5%"
    code = cli.main(["--root", str(root), "refresh-prices"], aws_client=Stubbed(calls(advisor_call(renamed)), exact_times=False))
    err = capsys.readouterr()
    assert code == 1 and err.out == "" and err.err.count("\n") == 1 and "Traceback" not in err.err
    assert err.err.startswith("guide refresh-prices: the Spot Instance Advisor's data of 2026-11-24 names the ranges 0-5%, 5-10%,")
    assert err.err.rstrip().endswith("data/ was left as it was.")
    assert tree_hashes(root / "data") == snapshot


def _fails_through(tmp_path: Path, capsys, *answers) -> tuple[str, AnswerServer]:
    root = _project(tmp_path)
    snapshot = tree_hashes(root / "data")
    with AnswerServer(*answers) as server:
        code = cli.main(["--root", str(root), "refresh-prices"], aws_client=served(server, "s3"))
    err = capsys.readouterr()
    assert code == 1 and err.out == "" and tree_hashes(root / "data") == snapshot
    assert "Traceback" not in err.err and "<" not in err.err.replace("<5%", "") and err.err.count("\n") == 1, err.err
    assert err.err.startswith("guide refresh-prices: s3:GetObject of s3://spot-bid-advisor/spot-advisor-data.json ")
    return err.err, server


def test_an_html_page_for_the_advisors_object_is_one_sentence(tmp_path: Path, capsys):
    err, server = _fails_through(tmp_path, capsys, (200, HTML, HTML_PAGE))
    assert "answered with something that is not the Spot Instance Advisor's data (an HTML page," in err
    assert server.requests == ["/spot-bid-advisor/spot-advisor-data.json"]


def test_broken_json_for_the_advisors_object_is_one_sentence(tmp_path: Path, capsys):
    err, _ = _fails_through(tmp_path, capsys, (200, {"Content-Type": "application/json"}, '{"ranges": ['))
    assert "is not the Spot Instance Advisor's data (not JSON," in err


def test_the_object_no_longer_public_is_one_sentence(tmp_path: Path, capsys):
    denied = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message>'
              "<RequestId>EXAMPLE</RequestId></Error>")
    err, _ = _fails_through(tmp_path, capsys, (403, XML, denied))
    assert "answered AccessDenied: AWS no longer serves the Spot Instance Advisor's data there without credentials" in err
