"""`data/history.yaml`, the record of price moves: its header, and the file's own layout of a recorded move (one
flow mapping a line), for the two commands that append moves, `guide refresh-prices` and `guide import-prices`."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

NAME = "history.yaml"
HEADER = """\
# Every move of a price that data/ recorded: found by `guide refresh-prices` from AWS's APIs, or added
# by hand with a price change. Newest last. `before` is the figure data/ held until `date`, `after` the
# one it holds from then on; a figure AWS no longer lists has no `after` and stays in prices.yaml,
# marked `vanished`. The site's "What changed" page and Atom feed are made from this file.
prices: []
regions: []
"""


def flow(*pairs: tuple[str, Any]) -> CommentedMap:
    m = CommentedMap(pairs)
    m.fa.set_flow_style()
    return m


def load(y: YAML, text: str | None) -> Any:
    """The file's data for round-trip editing; the header's empty lists when there is no file yet."""
    return y.load(text or HEADER)


def price_move(day: dt.date, key: tuple[str, str, str], change: str, source: str,
               before: CommentedMap | None, after: CommentedMap | None) -> CommentedMap:
    pairs: list[tuple[str, Any]] = [("date", day), ("instance", key[0]), ("region", key[1]), ("option", key[2]),
                                    ("change", change), ("source", source)]
    if before is not None:
        pairs.append(("before", before))
    if after is not None:
        pairs.append(("after", after))
    return flow(*pairs)
