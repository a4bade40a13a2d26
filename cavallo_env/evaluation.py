"""Duplicate evaluation of one bot against another, and the round robin behind it.

Every deal is played **twice with the same cards**: once with bot A in seats 0
and 2 and bot B in seats 1 and 3, once with the teams swapped.  Whatever luck
the cards bring to one side in the first game it brings to the other side in
the second, so most of the luck cancels and far fewer deals are needed than in
plain play.

Everything is derived from one seed: deal ``i`` is ``random_deal`` of a seed
hashed from ``(seed, i)``, and the bot in each seat of each game gets its own
seed hashed from ``(seed, i, game, seat)``.  Deals are independent tasks spread
over a ``multiprocessing`` pool and collected in deal order, so the result is
the same for any number of workers.

Statistics (``DuplicateResult``):

- win/draw/loss of A, counted per game (two games per deal);
- the score rate ``(W + D/2) / games`` with a 95 % Wilson score interval;
- the mean point difference per game (A minus B) with a 95 % normal interval
  whose standard error comes from the per-deal means (the two games of a deal
  are not independent: that is the point of duplicate play);
- per-bonus and per-award figures for A and B: points per game and the share
  of games in which it was scored.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable, Sequence

from .engine import BREAKDOWN_KEYS, NUM_SEATS, GameState, random_deal
from .views import make_view, move_from_dict

Z95 = 1.959963984540054


# ---------------------------------------------------------------- seeds


def derive_seed(*parts) -> int:
    """A 63-bit seed from any printable parts (stable across runs and machines)."""
    text = "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def deal_for(seed, index: int):
    """Deal number ``index`` of a run with ``seed``: ``(hands, table, dealer)``."""
    return random_deal(derive_seed("deal", seed, index))


# ---------------------------------------------------------------- one game


def play_game(bots: Sequence, hands, table, dealer: int, timings: list | None = None) -> GameState:
    """Play one deal to the end; ``bots[s]`` plays seat ``s`` through its view.

    Each bot gets ``make_view(state, seat)`` and must answer one of the view's
    legal moves; anything else raises ``ValueError`` naming the bot and seat.
    With ``timings`` (a list of 4 ``[seconds, decisions]`` pairs), the time
    spent in each seat's ``choose`` is added to it.  Returns the final state.
    """
    if len(bots) != NUM_SEATS:
        raise ValueError(f"play_game needs 4 bots (one per seat), got {len(bots)}")
    state = GameState(hands, table, dealer)
    clock = time.perf_counter
    while not state.done:
        seat = state.current
        view = make_view(state, seat)
        t0 = clock()
        answer = bots[seat].choose(view)
        if timings is not None:
            timings[seat][0] += clock() - t0
            timings[seat][1] += 1
        try:
            card, capture = move_from_dict(answer)
        except ValueError as e:
            raise ValueError(f"bot {bots[seat]!r} in seat {seat} answered a malformed move: {e}") from None
        if (card, capture) not in state.legal_moves():
            raise ValueError(f"bot {bots[seat]!r} in seat {seat} answered an illegal move {answer!r} at turn {state.turn}")
        state.play(card, capture)
    return state


# ---------------------------------------------------------------- one duplicate deal


@dataclass
class GameRecord:
    """One game of a duplicate pair, from the point of view of A and B."""

    a_team: int  # the team (0 or 1) bot A played in this game
    points: tuple  # (A's points, B's points)
    breakdown: tuple  # (A's breakdown dict, B's breakdown dict)
    cards: tuple  # (A's cards, B's cards)

    @property
    def diff(self) -> int:
        return self.points[0] - self.points[1]


def play_duplicate_deal(spec_a: str, spec_b: str, seed, index: int) -> tuple[list[GameRecord], dict]:
    """Deal ``index`` played twice (A as team 0, then A as team 1).

    Returns the two ``GameRecord``s and the decision timings
    ``{"a": [seconds, decisions], "b": [...]}``.
    """
    from .bots import make

    hands, table, dealer = deal_for(seed, index)
    games = []
    timing = {"a": [0.0, 0], "b": [0.0, 0]}
    for game, a_team in enumerate((0, 1)):
        bots = []
        for seat in range(NUM_SEATS):
            spec = spec_a if seat % 2 == a_team else spec_b
            bots.append(make(spec, seed=derive_seed("bot", seed, index, game, seat)))
        seat_timings = [[0.0, 0] for _ in range(NUM_SEATS)]
        state = play_game(bots, hands, table, dealer, seat_timings)
        res = state.result()
        a, b = a_team, 1 - a_team
        games.append(GameRecord(
            a_team=a_team,
            points=(res["team_points"][a], res["team_points"][b]),
            breakdown=(res["breakdown"][a], res["breakdown"][b]),
            cards=(res["cards"][a], res["cards"][b]),
        ))
        for seat in range(NUM_SEATS):
            who = "a" if seat % 2 == a_team else "b"
            timing[who][0] += seat_timings[seat][0]
            timing[who][1] += seat_timings[seat][1]
    return games, timing


def _task(args):
    spec_a, spec_b, seed, index = args
    return play_duplicate_deal(spec_a, spec_b, seed, index)


def run_deals(tasks: Sequence[tuple], jobs: int | None = None, progress: Callable[[int], None] | None = None) -> list:
    """Run ``(spec_a, spec_b, seed, index)`` tasks, results in task order.

    ``jobs`` workers (default: every core); ``jobs=1`` runs in this process.
    ``progress(n)`` is called as results arrive.
    """
    jobs = check_jobs(jobs)
    tasks = list(tasks)
    if not tasks:
        return []
    # Fail fast, in this process, on a bad spec rather than inside a worker.
    from .bots import make

    for spec in {t[0] for t in tasks} | {t[1] for t in tasks}:
        make(spec, seed=0)
    out = []
    if jobs == 1 or len(tasks) == 1:
        for t in tasks:
            out.append(_task(t))
            if progress:
                progress(1)
        return out
    import multiprocessing as mp

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    with ctx.Pool(min(jobs, len(tasks))) as pool:
        for r in pool.imap(_task, tasks, chunksize=1):
            out.append(r)
            if progress:
                progress(1)
    return out


def check_jobs(jobs) -> int:
    if jobs is None:
        return os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    return jobs


def check_deals(deals) -> int:
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    return deals


# ---------------------------------------------------------------- statistics


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (``successes`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The interval always contains p; clamp so float rounding at p = 0 or 1
    # cannot put a bound on the wrong side of it.
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal ``z`` interval ``(mean, lo, hi)`` of independent values."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0, 0.0)
    m = sum(values) / n
    if n == 1:
        return (m, m, m)
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return (m, m - half, m + half)


@dataclass
class DuplicateResult:
    """Summary of a duplicate match; ``to_dict()`` is its JSON form."""

    bot_a: str
    bot_b: str
    seed: object
    deals: int
    games: int
    wins: int
    draws: int
    losses: int
    score: float  # (W + D/2) / games for A
    score_ci: tuple  # 95 % Wilson interval
    mean_diff: float  # points per game, A minus B
    mean_diff_ci: tuple  # 95 % normal interval over the per-deal means
    mean_points: tuple  # (A, B) points per game
    mean_cards: tuple  # (A, B) cards per game
    breakdown: dict  # key -> {"a_points", "b_points", "a_rate", "b_rate"}
    timing: dict = field(default_factory=dict)  # wall-clock, not deterministic

    def to_dict(self) -> dict:
        d = asdict(self)
        d["score_ci"] = list(self.score_ci)
        d["mean_diff_ci"] = list(self.mean_diff_ci)
        d["mean_points"] = list(self.mean_points)
        d["mean_cards"] = list(self.mean_cards)
        return d


def summarize(spec_a: str, spec_b: str, seed, deal_results: Iterable) -> DuplicateResult:
    """Statistics of ``play_duplicate_deal`` results (A's point of view)."""
    deal_results = list(deal_results)
    games = [g for gs, _ in deal_results for g in gs]
    n = len(games)
    wins = sum(1 for g in games if g.diff > 0)
    draws = sum(1 for g in games if g.diff == 0)
    losses = n - wins - draws
    score = (wins + draws / 2) / n if n else 0.0
    per_deal = [sum(g.diff for g in gs) / len(gs) for gs, _ in deal_results]
    mean, lo, hi = mean_interval(per_deal)
    breakdown = {}
    for key in BREAKDOWN_KEYS:
        pa = sum(g.breakdown[0][key] for g in games)
        pb = sum(g.breakdown[1][key] for g in games)
        ra = sum(1 for g in games if g.breakdown[0][key] > 0)
        rb = sum(1 for g in games if g.breakdown[1][key] > 0)
        breakdown[key] = {"a_points": pa / n, "b_points": pb / n, "a_rate": ra / n, "b_rate": rb / n}
    ta = [sum(t["a"][0] for _, t in deal_results), sum(t["a"][1] for _, t in deal_results)]
    tb = [sum(t["b"][0] for _, t in deal_results), sum(t["b"][1] for _, t in deal_results)]
    timing = {
        "a_ms_per_decision": 1000 * ta[0] / ta[1] if ta[1] else 0.0,
        "b_ms_per_decision": 1000 * tb[0] / tb[1] if tb[1] else 0.0,
        "a_decisions": ta[1],
        "b_decisions": tb[1],
    }
    return DuplicateResult(
        bot_a=spec_a, bot_b=spec_b, seed=seed, deals=len(deal_results), games=n,
        wins=wins, draws=draws, losses=losses,
        score=score, score_ci=wilson_interval(wins + draws / 2, n),
        mean_diff=mean, mean_diff_ci=(lo, hi),
        mean_points=(sum(g.points[0] for g in games) / n, sum(g.points[1] for g in games) / n),
        mean_cards=(sum(g.cards[0] for g in games) / n, sum(g.cards[1] for g in games) / n),
        breakdown=breakdown, timing=timing,
    )


def duplicate_eval(spec_a: str, spec_b: str, deals: int, seed=0, jobs: int | None = None,
                   progress: Callable[[int], None] | None = None) -> DuplicateResult:
    """Duplicate evaluation of bot ``spec_a`` against ``spec_b`` over ``deals`` deals.

    Deterministic for a seed (apart from ``timing``) whatever ``jobs`` is.
    """
    deals = check_deals(deals)
    tasks = [(spec_a, spec_b, seed, i) for i in range(deals)]
    started = time.perf_counter()
    results = run_deals(tasks, jobs, progress)
    out = summarize(spec_a, spec_b, seed, results)
    out.timing["wall_s"] = time.perf_counter() - started
    out.timing["jobs"] = check_jobs(jobs)
    return out


def format_result(r: DuplicateResult) -> str:
    """A plain-text table of a duplicate result."""
    lo, hi = r.score_ci
    dlo, dhi = r.mean_diff_ci
    lines = [
        f"duplicate evaluation: A = {r.bot_a}  vs  B = {r.bot_b}",
        f"deals {r.deals} (x2 games = {r.games}), seed {r.seed}",
        "",
        f"  A wins / draws / losses   {r.wins} / {r.draws} / {r.losses}",
        f"  A score (draws = 1/2)     {100 * r.score:.1f}%   95% Wilson [{100 * lo:.1f}%, {100 * hi:.1f}%]",
        f"  points per game A - B     {r.mean_diff:+.3f}   95% CI [{dlo:+.3f}, {dhi:+.3f}]",
        f"  points per game A, B      {r.mean_points[0]:.3f}, {r.mean_points[1]:.3f}",
        f"  cards per game A, B       {r.mean_cards[0]:.2f}, {r.mean_cards[1]:.2f}",
        "",
        f"  {'bonus / award':<14}{'A pts/game':>11}{'B pts/game':>11}{'A % games':>11}{'B % games':>11}",
    ]
    for key, b in r.breakdown.items():
        lines.append(f"  {key:<14}{b['a_points']:>11.3f}{b['b_points']:>11.3f}"
                     f"{100 * b['a_rate']:>10.1f}%{100 * b['b_rate']:>10.1f}%")
    t = r.timing
    if t.get("a_decisions"):
        lines.append("")
        lines.append(f"  ms per decision (wall clock, noisy): A {t['a_ms_per_decision']:.2f}, B {t['b_ms_per_decision']:.2f}"
                     + (f"; {t['wall_s']:.1f} s with {t['jobs']} jobs" if "wall_s" in t else ""))
    return "\n".join(lines)
