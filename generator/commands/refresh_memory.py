"""What `guide refresh-prices` remembers from one run to the next, kept apart from data/ so that it
outlives a pull request nobody merged.

data/refresh.yaml travels with the refresh's pull request: a week whose pull request waits unmerged
would leave the next run, which starts from main, with nothing of what that week saw. So the refresh
keeps its memory in a file of its own (`--memory FILE`, `.refresh/memory.yaml` under the project by
default; the weekly workflow keeps it on the branch `refresh-memory`), read before each run and
written with data/ after it, all or nothing:

- lacked: each figure (with option `region`, a region of an instance) an answer lacked, and the
  first day one did;
- held: each move beyond refresh_bounds waiting for a person, and the day it was first held;
- decided: what a person said of a held move (`--accept` or `--refuse`, with the figure they
  checked) and when; a decision stands while AWS gives that figure, within ACCEPT_TOLERANCE.

Where the file does not exist yet, the refresh starts from data/refresh.yaml's `missing` and `held`
(what main last published). The day each API last answered is not kept here: it is a figure's
confirmation, which pages and the freshness check read from data/refresh.yaml.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from ruamel.yaml.comments import CommentedSeq

from generator.commands.import_prices import flow_map, round_trip, yaml_text
from generator.inputs.validation import validate_doc
from generator.inputs.yamlread import parse, read_bytes
from generator.model.catalog import Missing, Option, RefreshState

Key = tuple[str, str, str]
# Where the memory is kept when no --memory is given, under the project's root.
DEFAULT_PATH = Path(".refresh") / "memory.yaml"
# How far AWS's figure may be from the one a person checked for their word to stand (ours): 1 %.
ACCEPT_TOLERANCE = 0.01
HEADER = """\
# What `guide refresh-prices` remembers between runs, whatever was merged (generator/commands/refresh_memory.py).
# Written by the refresh; the weekly workflow keeps it on the branch refresh-memory.
# lacked: figures (option `region`: a region of an instance) an answer lacked, since the day one first did.
# held: moves beyond refresh_bounds waiting for a person, since the day each was first held.
# decided: what a person said of a held move (--accept or --refuse with the figure they checked), and when.
"""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _Held(_Strict):
    instance: str
    region: str
    option: Option
    after: float = Field(allow_inf_nan=False)
    seen: dt.date


class _Decided(_Strict):
    instance: str
    region: str
    option: Option
    said: Literal["accepted", "refused"]
    figure: float = Field(gt=0, allow_inf_nan=False)
    on: dt.date


class MemoryFile(_Strict):
    lacked: list[Missing] = []
    held: list[_Held] = []
    decided: list[_Decided] = []


@dataclass(frozen=True)
class Decision:
    said: str  # accepted or refused
    figure: float
    on: dt.date


@dataclass
class Memory:
    lacked: dict[Key, dt.date] = field(default_factory=dict)
    held: dict[tuple[Key, float], dt.date] = field(default_factory=dict)  # (key, figure AWS gave) -> first held
    decided: dict[Key, Decision] = field(default_factory=dict)
    origin: str = ""  # where it was read from, for the report


def within(checked: float, given: float) -> bool:
    """True when AWS's figure is the one a person checked, within ACCEPT_TOLERANCE of it."""
    return abs(given - checked) <= ACCEPT_TOLERANCE * checked


def read(path: Path, shown: str, published: RefreshState) -> Memory:
    """The memory in path; where there is none yet, what data/refresh.yaml published. Raises InputError
    (located) when the file is not the refresh's memory."""
    if not path.exists():
        return from_published(published)
    kept = validate_doc(parse(read_bytes(path, shown), shown), MemoryFile)
    return Memory(lacked={(m.instance, m.region, m.option): m.since for m in kept.lacked},
                  held={((h.instance, h.region, h.option), h.after): h.seen for h in kept.held},
                  decided={(d.instance, d.region, d.option): Decision(d.said, d.figure, d.on) for d in kept.decided},
                  origin=shown)


def from_published(published: RefreshState) -> Memory:
    """What data/refresh.yaml published, as the memory a refresh starts from when none was kept."""
    return Memory(lacked={(m.instance, m.region, m.option): m.since for m in published.missing},
                  held={((h.instance, h.region, h.option), h.after): h.seen for h in published.held},
                  origin="data/refresh.yaml, as no memory was kept yet")


def text(memory: Memory) -> str:
    y = round_trip()
    doc = y.load(HEADER + "lacked: []\nheld: []\ndecided: []\n")
    doc["lacked"] = block_list([flow_map(("instance", k[0]), ("region", k[1]), ("option", k[2]), ("since", since))
                           for k, since in sorted(memory.lacked.items())])
    doc["held"] = block_list([flow_map(("instance", k[0]), ("region", k[1]), ("option", k[2]), ("after", after), ("seen", seen))
                         for (k, after), seen in sorted(memory.held.items())])
    doc["decided"] = block_list([flow_map(("instance", k[0]), ("region", k[1]), ("option", k[2]), ("said", d.said),
                                     ("figure", d.figure), ("on", d.on))
                            for k, d in sorted(memory.decided.items())])
    return yaml_text(y, doc)


def block_list(rows: list) -> CommentedSeq:
    """A YAML list of one flow mapping a line; `[]` when empty."""
    s = CommentedSeq(rows)
    if not rows:
        s.fa.set_flow_style()
    return s
