"""What `guide refresh-prices` remembers outlives a pull request nobody merged (generator/commands/
refresh_memory.py), and a person's word on a held move names the figure they checked.

Each test lives the weekly workflow on the frozen project with AWS's answers served offline
(tests/refresh_support.py): a run starts from main (a copy of the project), writes its pull request's
files into a copy of main, and its memory into a file outside both, as the workflow keeps it on its
own branch; merging copies the pull request's data/ and scenarios/ back over main."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from core_support import copy_inputs, tree_hashes
from generator.commands import cli, refresh, refresh_memory
from generator.inputs.loader import load_catalog
from refresh_support import CALLED_AT, Stubbed, a_week_later, calls, cut_after, edit

# Each test runs several refreshes, each loading and checking the project (five to twenty seconds).
pytestmark = pytest.mark.slow

P5_SPOT = ("p5.48xlarge", "us-east-1", "spot")
P4D = ("p4d.24xlarge", "us-east-1", "on-demand")
TRN2_BLOCKS = ("trn2.48xlarge", "us-east-2", "capacity-block")


class Repo:
    """main, the pull request a run opens from it, and the memory kept on its own branch."""

    def __init__(self, tmp_path: Path):
        self.main = copy_inputs(tmp_path / "main", scenarios=True)
        self.memory = tmp_path / "refresh-memory" / "memory.yaml"
        self.pr = tmp_path / "pr"

    def week(self, day: dt.datetime, recorded: list[dict], accept=None, refuse=None) -> refresh.Outcome:
        """A run as the workflow makes it: its pull request branch made afresh from main."""
        if self.pr.exists():
            shutil.rmtree(self.pr)
        shutil.copytree(self.main, self.pr)
        stubbed = Stubbed(recorded)
        out = refresh.run(self.pr / "data", stubbed, day, accept=accept, refuse=refuse, memory_path=self.memory)
        stubbed.assert_all_called()
        return out

    def merge(self) -> None:
        for part in ("data", "scenarios"):
            shutil.rmtree(self.main / part)
            shutil.copytree(self.pr / part, self.main / part)


def _answers(day: dt.datetime, lack_trn2_blocks: bool = False, p5_spot: str | None = None, p4d: float | None = None) -> list[dict]:
    from refresh_support import set_on_demand

    recorded = a_week_later(calls(), day)
    if lack_trn2_blocks:  # trn2.48xlarge's, the fourth in us-east-2
        edit(recorded, "describe_capacity_block_offerings", "us-east-2", lambda r: r.__setitem__("CapacityBlockOfferings", []), nth=3)
    if p5_spot is not None:  # p5's Spot records, on both pages of us-east-1's history, become one price
        pages = [c["response"] for c in recorded if c["operation"] == "describe_spot_price_history" and c["region"] == "us-east-1"]
        pages[0]["SpotPriceHistory"] = [r for r in pages[0]["SpotPriceHistory"] if r["InstanceType"] != "p5.48xlarge"] + [
            {"AvailabilityZone": "us-east-1a", "InstanceType": "p5.48xlarge", "ProductDescription": "Linux/UNIX",
             "SpotPrice": p5_spot, "Timestamp": (day - dt.timedelta(days=5)).isoformat()}]
        pages[1]["SpotPriceHistory"] = []
    if p4d is not None:
        edit(recorded, "get_products", "us-east-1", set_on_demand("p4d.24xlarge", "us-east-1", p4d), nth=0)
    return recorded


def _held(out: refresh.Outcome) -> list[tuple[tuple[str, str, str], float, dt.date]]:
    return sorted((h.key, h.after, h.seen) for h in out.held)


def test_an_offering_lacked_by_two_answers_a_week_apart_is_withdrawn_though_the_first_pull_request_was_not_merged(tmp_path: Path):
    repo = Repo(tmp_path)
    first = CALLED_AT + dt.timedelta(days=7)
    out = repo.week(first, _answers(first, lack_trn2_blocks=True))
    assert f"{refresh.key_text(TRN2_BLOCKS)} (lacked since {first.date()})" in out.lacked
    # Not merged. A week later the run starts from main again, whose data/refresh.yaml never heard of it.
    assert load_catalog(repo.main / "data").refresh.missing == []
    second = first + dt.timedelta(days=7)
    out = repo.week(second, _answers(second, lack_trn2_blocks=True))
    assert (*TRN2_BLOCKS, "vanished") in [(m.instance, m.region, m.option, m.change) for m in out.moves]
    assert load_catalog(repo.pr / "data").price(*TRN2_BLOCKS).vanished == second.date()
    assert "### Withdrawn figures" in refresh.report_markdown(out)


def test_the_month_replayed_with_one_merge_skipped(tmp_path: Path, capsys):
    repo = Repo(tmp_path)
    weeks = [CALLED_AT + dt.timedelta(days=7 * n) for n in range(4)]

    # Week 0, first contact: the figures AWS gives as data/ holds them are re-cited, said apart from the moves.
    out = repo.week(weeks[0], _answers(weeks[0]))
    assert out.recited and len(out.recited) == sum(1 for line in refresh.report_markdown(out).splitlines()
                                                   if line.startswith("- `") and "(was `" in line)
    repo.merge()

    # Week 1: the trn2 blocks missing once, Spot for p5 at 1 % of its figure and p4d's on-demand rate doubled. Not merged.
    out = repo.week(weeks[1], _answers(weeks[1], lack_trn2_blocks=True, p5_spot="0.281100", p4d=43.915284))
    assert _held(out) == [(P4D, 43.915284, weeks[1].date()), (P5_SPOT, 0.2811, weeks[1].date())]
    assert load_catalog(repo.pr / "data").price(*TRN2_BLOCKS).vanished is None

    # A failure midweek (the token expired): nothing written, the memory included.
    shutil.rmtree(repo.pr)
    shutil.copytree(repo.main, repo.pr)
    before = (tree_hashes(repo.pr), repo.memory.read_bytes())
    expired = {"code": "ExpiredTokenException", "message": "The security token included in the request is expired", "status": 400}
    code = cli.main(["--root", str(repo.pr), "refresh-prices", "--memory", str(repo.memory)],
                    aws_client=Stubbed(cut_after(_answers(weeks[1] + dt.timedelta(days=3)), "get_products", "us-east-1", expired),
                                       exact_times=False))
    assert code == 1 and "have expired" in capsys.readouterr().err
    assert (tree_hashes(repo.pr), repo.memory.read_bytes()) == before

    # Week 2, from main as week 0 left it: the blocks lacked again a week on are withdrawn, and both held
    # moves are raised again, held since week 1.
    out = repo.week(weeks[2], _answers(weeks[2], lack_trn2_blocks=True, p5_spot="0.281100", p4d=43.915284))
    assert load_catalog(repo.pr / "data").price(*TRN2_BLOCKS).vanished == weeks[2].date()
    assert _held(out) == [(P4D, 43.915284, weeks[1].date()), (P5_SPOT, 0.2811, weeks[1].date())]
    body = refresh.report_markdown(out)
    assert "`guide refresh-prices --accept p4d.24xlarge/us-east-1/on-demand=43.915284`" in body
    assert "`guide refresh-prices --refuse p5.48xlarge/us-east-1/spot=0.2811`" in body

    # The next day a person checks both against AWS's pages: the doubled rate is real, the Spot price is not.
    day = weeks[2] + dt.timedelta(days=1)
    out = repo.week(day, _answers(day, lack_trn2_blocks=True, p5_spot="0.281100", p4d=43.915284),
                    accept={P4D: 43.915284}, refuse={P5_SPOT: 0.2811})
    assert out.held == [] and [h.key for h in out.refused] == [P5_SPOT]
    data = load_catalog(repo.pr / "data")
    assert data.price(*P4D).usd_per_hour == 43.915284 and data.price(*P5_SPOT).usd_per_hour == 28.11
    assert data.price(*TRN2_BLOCKS).vanished == day.date()  # week 2's pull request was not merged: confirmed again
    repo.merge()

    # Week 3, the same answers: nothing is raised again; the refused figure stays out of data/, said so in the report.
    out = repo.week(weeks[3], _answers(weeks[3], lack_trn2_blocks=True, p5_spot="0.281100", p4d=43.915284))
    assert out.held == [] and [h.key for h in out.refused] == [P5_SPOT] and out.moves == []
    assert any(line.startswith("  refused on ") and "p5.48xlarge/us-east-1/spot=0.2811" in line
               for line in refresh.report_lines(out, "data", False))
    kept = refresh_memory.read(repo.memory, "memory", load_catalog(repo.main / "data").refresh)
    assert kept.decided[P5_SPOT].said == "refused" and P4D not in kept.decided  # data/ now holds the accepted figure

    # Should AWS move the refused figure on, the move is held again for a person.
    later = weeks[3] + dt.timedelta(days=7)
    out = repo.week(later, _answers(later, lack_trn2_blocks=True, p5_spot="0.500000", p4d=43.915284))
    assert _held(out) == [(P5_SPOT, 0.5, later.date())] and out.refused == []
    assert out.moved_on and "held again" in out.moved_on[0]


def test_accept_writes_only_the_figure_a_person_checked(tmp_path: Path, capsys):
    repo = Repo(tmp_path)
    repo.week(CALLED_AT, _answers(CALLED_AT))
    repo.merge()
    week = CALLED_AT + dt.timedelta(days=7)
    out = repo.week(week, _answers(week, p5_spot="0.281100"))
    assert [h.key for h in out.held] == [P5_SPOT]
    repo.merge()
    # A person checked 0.2811; AWS gives 0.00001 by the time the refresh runs: nothing is written, and the
    # sentence says what AWS gives now.
    shutil.rmtree(repo.pr)
    shutil.copytree(repo.main, repo.pr)
    snapshot = (tree_hashes(repo.pr), repo.memory.read_bytes())
    code = cli.main(["--root", str(repo.pr), "refresh-prices", "--memory", str(repo.memory),
                     "--accept", "p5.48xlarge/us-east-1/spot=0.2811"],
                    aws_client=Stubbed(_answers(week, p5_spot="0.000010"), exact_times=False))
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and (tree_hashes(repo.pr), repo.memory.read_bytes()) == snapshot
    assert err.startswith("guide refresh-prices: AWS gives 0.00001 for p5.48xlarge/us-east-1/spot today, not the 0.2811 you checked "
                          "(more than 1 % apart), so nothing was accepted")
    assert "--accept p5.48xlarge/us-east-1/spot=0.00001" in err
    # Within the tolerance the accepted figure is AWS's own, and its move is recorded like any other.
    code = cli.main(["--root", str(repo.pr), "refresh-prices", "--memory", str(repo.memory),
                     "--accept", "p5.48xlarge/us-east-1/spot=0.2811"],
                    aws_client=Stubbed(_answers(week, p5_spot="0.281500"), exact_times=False))
    assert code == 0, capsys.readouterr().err
    assert load_catalog(repo.pr / "data").price(*P5_SPOT).usd_per_hour == 0.2815
    # The word outlives the pull request: unmerged, the next week's run from main writes it again.
    later = week + dt.timedelta(days=7)
    out = repo.week(later, _answers(later, p5_spot="0.281500"))
    assert out.held == [] and load_catalog(repo.pr / "data").price(*P5_SPOT).usd_per_hour == 0.2815


def test_without_a_memory_file_the_refresh_starts_from_what_main_published(tmp_path: Path):
    repo = Repo(tmp_path)
    first = CALLED_AT + dt.timedelta(days=7)
    repo.week(first, _answers(first, lack_trn2_blocks=True))
    repo.merge()
    repo.memory.unlink()  # a run outside CI, or the branch lost: main's data/refresh.yaml says lacked since the first week
    second = first + dt.timedelta(days=7)
    out = repo.week(second, _answers(second, lack_trn2_blocks=True))
    assert out.memory.origin.startswith("data/refresh.yaml")
    assert load_catalog(repo.pr / "data").price(*TRN2_BLOCKS).vanished == second.date()
    assert repo.memory.exists()


def test_a_memory_file_that_is_not_the_refreshs_is_a_located_problem_and_nothing_is_written(tmp_path: Path, capsys):
    root = copy_inputs(tmp_path / "project", scenarios=False)
    memory = tmp_path / "memory.yaml"
    memory.write_text("lacked:\n  - {instance: p5.48xlarge, region: us-east-1, option: spot, since: someday}\n", encoding="utf-8")
    snapshot = tree_hashes(root / "data")
    code = cli.main(["--root", str(root), "refresh-prices", "--memory", str(memory)], aws_client=Stubbed(calls(), exact_times=False))
    err = capsys.readouterr().err
    assert code == 1 and tree_hashes(root / "data") == snapshot
    assert f"{memory}:2:" in err and "lacked.0.since" in err and "Traceback" not in err


def test_the_memory_file_is_written_with_data_and_read_back_whole(tmp_path: Path):
    repo = Repo(tmp_path)
    week = CALLED_AT + dt.timedelta(days=7)
    repo.week(week, _answers(week, lack_trn2_blocks=True, p5_spot="0.281100"))
    text = repo.memory.read_text(encoding="utf-8")
    assert text.startswith("# What `guide refresh-prices` remembers between runs")
    kept = refresh_memory.read(repo.memory, "memory", load_catalog(repo.main / "data").refresh)
    assert kept.lacked[TRN2_BLOCKS] == week.date() and kept.held[(P5_SPOT, 0.2811)] == week.date()
    assert refresh_memory.text(kept) == text  # written as it reads: a quiet run rewrites nothing
