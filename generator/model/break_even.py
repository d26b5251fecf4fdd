"""The break-even solver: for which plan lengths, up to a limit, Trainium's plan costs less.

Plain arithmetic over a function the engine gives (`totals`): it knows nothing of sides, prices or
ways of buying beyond what that function returns. docs/assets/calculator/engine.mjs mirrors it in
`planLengths`.

The break-even search: over a function giving both plan totals at n runs and how each side buys
there, the shortest plan of 1..limit that costs less on Trainium, the longest, and the longest that
does not, solved piece by piece (a stretch where each side buys the same terms the same way) by
bisection. Imports nothing of ours; `calculator/engine.mjs` mirrors it in `planLengths`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

# What `totals` returns for a plan of n runs: the GPU's total, Trainium's (ports included), the
# difference of compute alone (ports left out), and for each side (GPU, Trainium) its piece: the
# terms it needs beyond held hours and whether it buys them by the hour (None without a term).
Totals = tuple[float, float, float, "tuple[int, bool] | None", "tuple[int, bool] | None"]
# Each side's (held hours, term hours or None, calendar hours one run spans), for where a piece ends.
Terms = tuple[float, "float | None", float]


def plan_lengths(totals: Callable[[int], Totals], sides: tuple[Terms, Terms], k: int | None,
                 limit: int) -> tuple[int | None, int | None, int | None]:
    """Over plan lengths 1..limit: the shortest plan that costs less on Trainium, the longest, and
    the longest that does not (None where there is none), exactly as `totals` compares them.

    Not plan by plan: the shortest is sought from 1 up, the others from limit down, each stopping
    at the first it finds. Both totals grow with the plan's length. A stretch of lengths over which each
    side buys the same number of terms the same way (a piece) has each total a line in n, Trainium's
    plus a port every k runs: within one architecture the difference is a line, and from one
    architecture to the next, at the same run within it, it moves by the same amount. So a piece is
    solved by bisecting over architectures and then over runs, and stretches the totals alone
    settle are passed over whole: the work grows with the terms bought between where a search
    starts and where it stops, not with the plan's length."""
    seen: dict[int, Totals] = {}

    def at(n: int) -> Totals:
        r = seen.get(n)
        if r is None:
            r = seen[n] = totals(n)
        return r

    def ahead(n: int) -> bool:
        gpu, trn = at(n)[:2]
        return trn < gpu

    def gap(n: int) -> float:
        gpu, trn = at(n)[:2]
        return gpu - trn

    def piece_edge(p: int, bound: int, down: bool) -> int:
        """The farthest plan length from p toward bound (up, or down when `down`) at which each side
        buys as it does at p."""
        def last(holds, guess: int, far: int) -> int:
            # The last n from p toward far for which `holds`, which holds at p.
            return _first_true(holds, far, p, guess) if down else _last_true(holds, p, far, guess)

        edge = bound
        for i, (held, term, span) in enumerate(sides):
            key = at(p)[3 + i]
            if key is None:
                continue
            need, by_hour = key
            # Where the plan needs `need` terms begins (down) or ends (up).
            assert term is not None  # a side without a term has no piece
            guess = math.floor((held + (need - 1) * term) / span) + 1 if down else math.floor((held + need * term) / span)
            edge = last(lambda n: at(n)[3 + i][0] == need, guess, edge)
            if by_hour != down:
                # With the terms fixed the hourly cost grows and the committed one does not: hourly
                # buying, where there is any, comes first in the stretch and ends once.
                edge = last(lambda n: at(n)[3 + i][1] == by_hour, p, edge)
        return edge

    def line(a: int, b: int) -> tuple[int | None, int | None, int | None]:
        """(first, last, behind) over a..b, where the difference is a line: it changes sign at most once."""
        if ahead(a) == ahead(b):
            return (a, b, None) if ahead(a) else (None, None, b)
        s = _last_true(lambda n: ahead(n) == ahead(a), a, b, _zero_guess(a, b, gap(a), gap(b)))
        return (a, s, b) if ahead(a) else (s + 1, b, s)

    def piece(a: int, b: int) -> tuple[int | None, int | None, int | None]:
        """(first, last, behind) over a piece a..b."""
        if k is None or (a - 1) // k == (b - 1) // k:
            return line(a, b)
        ma, mb = (a - 1) // k + 1, (b - 1) // k + 1  # the architectures a and b fall in
        parts = [line(a, ma * k)]
        if mb - ma >= 2:
            parts.append(architectures(ma + 1, mb - 1, at(b)[2] > at(a)[2]))
        parts.append(line((mb - 1) * k + 1, b))
        return _merged(parts)

    def architectures(m1: int, m2: int, rising: bool) -> tuple[int | None, int | None, int | None]:
        """(first, last, behind) over whole architectures m1..m2 of a piece. Within each the difference
        is a line, highest at its last run when it rises and at its first otherwise; at the same run
        of successive architectures it moves by one amount, so whether an architecture has a run
        ahead (or one not ahead) changes at most once from m1 to m2."""
        top, low = (k, 1) if rising else (1, k)

        def run(m: int, r: int) -> int:
            return (m - 1) * k + r

        def where(holds, r: int) -> tuple[int | None, int | None]:
            """The first and the last architecture in m1..m2 with `holds` at run r of it."""
            a, b = holds(run(m1, r)), holds(run(m2, r))
            if not (a or b):
                return None, None
            if a and b:
                return m1, m2
            turn = _last_true(lambda m: holds(run(m, r)) == a, m1, m2,
                              _zero_guess(m1, m2, gap(run(m1, r)), gap(run(m2, r))))
            return (m1, turn) if a else (turn + 1, m2)

        up_first, up_last = where(ahead, top)
        _, down_last = where(lambda n: not ahead(n), low)
        first = None if up_first is None else line(run(up_first, 1), run(up_first, k))[0]
        last = None if up_last is None else line(run(up_last, 1), run(up_last, k))[1]
        behind = None if down_last is None else line(run(down_last, 1), run(down_last, k))[2]
        return first, last, behind

    def scan(want: bool, down: bool) -> int | None:
        """The first plan length (the last, going down from limit) at which Trainium is ahead, or
        (want False) is not. Stretches the totals alone settle are passed over in growing strides:
        where Trainium's dearest point lies below the GPU's cheapest, or the reverse."""
        p, stride = (limit if down else 1), 1
        while 1 <= p <= limit:
            q = max(1, p - stride + 1) if down else min(limit, p + stride - 1)
            lo, hi = min(p, q), max(p, q)
            settled = True if at(hi)[1] < at(lo)[0] else False if at(hi)[0] <= at(lo)[1] else None
            if settled is not None:
                if settled == want:
                    return p
                p, stride = (q - 1 if down else q + 1), stride * 2
                continue
            a, b = (piece_edge(p, 1, True), p) if down else (p, piece_edge(p, limit, False))
            first, last, behind = piece(a, b)
            found = (last if want else behind) if down else first
            if found is not None:
                return found
            p, stride = (a - 1 if down else b + 1), max(1, stride // 2)
        return None

    first = scan(True, False)
    if first is None:
        return None, None, limit  # no plan is ahead, so the longest is not
    return first, scan(True, True), scan(False, True)



def _merged(parts: list[tuple[int | None, int | None, int | None]]) -> tuple[int | None, int | None, int | None]:
    """(first, last, behind) over consecutive stretches, each given as its own (first, last, behind)."""
    first = next((f for f, _, _ in parts if f is not None), None)
    last = next((la for _, la, _ in reversed(parts) if la is not None), None)
    behind = next((b for _, _, b in reversed(parts) if b is not None), None)
    return first, last, behind


def _last_true(holds, lo: int, hi: int, guess: int) -> int:
    """The last n in lo..hi for which `holds`, given that it holds from lo up to some point and not
    after. `guess` is where that point is thought to be: a good guess costs two calls, a wrong one a
    bisection, never a wrong answer."""
    g = min(max(guess, lo), hi)
    if holds(g):
        if g == hi or not holds(g + 1):
            return g
        lo = g + 1
    else:
        hi = g - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if holds(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _first_true(holds, lo: int, hi: int, guess: int) -> int:
    """The first n in lo..hi for which `holds`, given that it does not hold up to some point and
    holds from there to hi; `guess`, as for `_last_true`."""
    g = min(max(guess, lo), hi)
    if holds(g):
        if g == lo or not holds(g - 1):
            return g
        hi = g - 1
    else:
        lo = g + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _zero_guess(lo: int, hi: int, at_lo: float, at_hi: float) -> int:
    """The last whole number on lo's side of where the line through (lo, at_lo) and (hi, at_hi) is 0."""
    return lo + math.floor((hi - lo) * (at_lo / (at_lo - at_hi)))
