"""Duplicate evaluation of one bot against another, for any game, and the round robin behind it.

Every deal is played **twice with the same cards**: once with bot A on one
side (Cavalloìcera: seats 0 and 2; a two-player game: seat 0) and bot B on
the other, once with the sides swapped.  Whatever luck the cards bring to one
side in the first game it brings to the other side in the second, so most of
the luck cancels and far fewer deals are needed than in plain play.  A Scopa
match (``match=True``) is played twice the same way: every deal of the match
is drawn from the same seeded generator in both games.

Everything is derived from one seed: deal ``i`` is the game's random start
from a seed hashed from ``(seed, i)``, and the bot in each seat of each game
gets its own seed hashed from ``(seed, i, game, seat)``.  Deals are
independent tasks spread over a ``multiprocessing`` pool and collected in
deal order, so the result is the same for any number of workers.

Statistics (``DuplicateResult``):

- win/draw/loss of A, counted per game (two games per deal);
- the score rate ``(W + D/2) / games`` with a 95 % Wilson score interval;
- the mean point difference per game (A minus B) with a 95 % normal interval
  whose standard error comes from the per-deal means (the two games of a deal
  are not independent: that is the point of duplicate play);
- per-item figures of the game's breakdown (Cavalloìcera's bonuses and
  awards, Briscola's points and tricks, Scopa's scope and awards) for A and
  B: points per game and the share of games in which it was scored.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing as mp
import os
import time
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Callable, Iterable, Sequence

from . import games as _games
from .bots import make
from .cavalloicera.engine import random_deal

Z95 = 1.959963984540054
DEFAULT_GAME = _games.DEFAULT_GAME  # a game's default where none is named


# ---------------------------------------------------------------- seeds


def derive_seed(*parts) -> int:
    """A 63-bit seed from any printable parts (stable across runs and machines)."""
    text = "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def deal_for(seed, index: int):
    """Cavalloìcera deal number ``index`` of a run with ``seed``: ``(hands, table, dealer)``."""

    return random_deal(derive_seed("deal", seed, index))


def start_for(seed, index: int, game: str = DEFAULT_GAME, **options):
    """The start of deal number ``index`` of a run with ``seed``: a state of ``game``
    (for Cavalloìcera, the deal of ``deal_for``)."""
    return _games.get(game).new_state(derive_seed("deal", seed, index), **options)


# ---------------------------------------------------------------- one game


def play_game(bots: Sequence, state, timings: list | None = None, game=None, before: Callable | None = None):
    """Play ``state`` to the end; ``bots[s]`` plays seat ``s`` through its view.

    Each bot gets the game's view of its seat and must answer one of the
    view's legal moves; anything else raises ``ValueError`` naming the bot
    and seat.  With ``timings`` (a list of ``[seconds, decisions]`` pairs, one
    per seat), the time spent in each seat's ``choose`` is added to it.
    ``before(state)``, if given, sees each decision's state before its seat
    is asked.  ``game`` defaults to Cavalloìcera.  Returns the final state
    (``state`` itself, played on).
    """
    game = _games.get(game or DEFAULT_GAME) if not hasattr(game, "make_view") else game
    if len(bots) != game.num_seats:
        raise ValueError(f"play_game needs {game.num_seats} bots (one per seat), got {len(bots)}")
    clock = time.perf_counter
    make_view, move_from_dict, play = game.make_view, game.move_from_dict, game.play
    while not state.done:
        if before is not None:
            before(state)
        seat = state.current
        view = make_view(state, seat)
        t0 = clock()
        answer = bots[seat].choose(view)
        if timings is not None:
            timings[seat][0] += clock() - t0
            timings[seat][1] += 1
        try:
            move = move_from_dict(answer, game.deck_of(state))
        except ValueError as e:
            raise ValueError(f"bot {bots[seat]!r} in seat {seat} answered a malformed move: {e}") from None
        if move not in state.legal_moves():
            raise ValueError(f"bot {bots[seat]!r} in seat {seat} answered an illegal move {answer!r}")
        play(state, move)
    return state


def self_play(spec: str, deals: int, seed, before: Callable, game: str = DEFAULT_GAME, **options) -> None:
    """Play ``deals`` games of ``spec`` in every seat, on the deals and bot seeds of the first
    game of each pair of ``cavallo eval --game GAME --seed SEED``; ``before(index, state)``
    sees each decision of deal ``index`` before its seat is asked (``play_game``)."""
    g = _games.get(game)
    for index in range(deals):
        bots = [make(spec, seed=derive_seed("bot", seed, index, 0, seat), game=game) for seat in range(g.num_seats)]
        play_game(bots, start_for(seed, index, game, **options), game=g, before=partial(before, index))


# ---------------------------------------------------------------- one duplicate deal


@dataclass
class GameRecord:
    """One game of a duplicate pair, from the point of view of A and B."""

    a_team: int  # the side (0 or 1) bot A played in this game
    points: tuple  # (A's points, B's points)
    breakdown: tuple  # (A's breakdown dict, B's breakdown dict)
    cards: tuple | None = None  # (A's cards, B's cards) where the game counts them

    @property
    def diff(self) -> int:
        return self.points[0] - self.points[1]


def play_duplicate_deal(spec_a: str, spec_b: str, seed, index: int, game: str = DEFAULT_GAME,
                        options: dict | None = None) -> tuple[list[GameRecord], dict]:
    """Deal ``index`` played twice (A as side 0, then A as side 1).

    Returns the two ``GameRecord``s and the decision timings
    ``{"a": [seconds, decisions], "b": [...]}``.
    """

    g = _games.get(game)
    options = options or {}
    games = []
    timing = {"a": [0.0, 0], "b": [0.0, 0]}
    n = g.num_seats
    for round_, a_team in enumerate((0, 1)):
        bots = []
        for seat in range(n):
            spec = spec_a if g.team_of(seat) == a_team else spec_b
            bots.append(make(spec, seed=derive_seed("bot", seed, index, round_, seat), game=game))
        seat_timings = [[0.0, 0] for _ in range(n)]
        state = play_game(bots, start_for(seed, index, game, **options), seat_timings, g)
        res = g.outcome(state)
        a, b = a_team, 1 - a_team
        cards = res.get("cards")
        games.append(GameRecord(
            a_team=a_team,
            points=(res["points"][a], res["points"][b]),
            breakdown=(res["breakdown"][a], res["breakdown"][b]),
            cards=(cards[a], cards[b]) if cards is not None else None,
        ))
        for seat in range(n):
            who = "a" if g.team_of(seat) == a_team else "b"
            timing[who][0] += seat_timings[seat][0]
            timing[who][1] += seat_timings[seat][1]
    return games, timing


def _task(args):
    spec_a, spec_b, seed, index, *rest = args
    game = rest[0] if rest else DEFAULT_GAME
    options = rest[1] if len(rest) > 1 else None
    return play_duplicate_deal(spec_a, spec_b, seed, index, game, options)


def run_deals(tasks: Sequence[tuple], jobs: int | None = None, progress: Callable[[int], None] | None = None) -> list:
    """Run ``(spec_a, spec_b, seed, index[, game[, options]])`` tasks, results in task order.

    ``jobs`` workers (default: every core); ``jobs=1`` runs in this process.
    ``progress(n)`` is called as results arrive.
    """
    jobs = check_jobs(jobs)
    tasks = list(tasks)
    if not tasks:
        return []
    # Fail fast, in this process, on a bad spec rather than inside a worker.

    for spec, game in {(spec, t[4] if len(t) > 4 else DEFAULT_GAME) for t in tasks for spec in t[:2]}:
        make(spec, seed=0, game=game)
    out = []
    if jobs == 1 or len(tasks) == 1:
        for t in tasks:
            out.append(_task(t))
            if progress:
                progress(1)
        return out

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


def score_of(wins: int, draws: int, games: int) -> tuple[float, tuple[float, float]]:
    """A's score rate ``(W + D/2) / games`` (a draw half a win) and its 95 % Wilson interval."""
    points = wins + draws / 2
    return (points / games if games else 0.0), wilson_interval(points, games)


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
    mean_cards: tuple | None  # (A, B) cards per game, where the game counts them
    breakdown: dict  # key -> {"a_points", "b_points", "a_rate", "b_rate"}
    timing: dict = field(default_factory=dict)  # wall-clock, not deterministic
    game: str = DEFAULT_GAME
    options: dict = field(default_factory=dict)  # the game's options (deck, match)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["score_ci"] = list(self.score_ci)
        d["mean_diff_ci"] = list(self.mean_diff_ci)
        d["mean_points"] = list(self.mean_points)
        d["mean_cards"] = list(self.mean_cards) if self.mean_cards is not None else None
        return d


def summarize(spec_a: str, spec_b: str, seed, deal_results: Iterable, game: str = DEFAULT_GAME,
              options: dict | None = None) -> DuplicateResult:
    """Statistics of ``play_duplicate_deal`` results (A's point of view)."""
    deal_results = list(deal_results)
    keys = _games.get(game).breakdown_keys
    games = [g for gs, _ in deal_results for g in gs]
    n = len(games)
    wins = sum(1 for g in games if g.diff > 0)
    draws = sum(1 for g in games if g.diff == 0)
    losses = n - wins - draws
    score, score_ci = score_of(wins, draws, n)
    per_deal = [sum(g.diff for g in gs) / len(gs) for gs, _ in deal_results]
    mean, lo, hi = mean_interval(per_deal)
    breakdown = {}
    for key in keys:
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
        score=score, score_ci=score_ci,
        mean_diff=mean, mean_diff_ci=(lo, hi),
        mean_points=(sum(g.points[0] for g in games) / n, sum(g.points[1] for g in games) / n),
        mean_cards=((sum(g.cards[0] for g in games) / n, sum(g.cards[1] for g in games) / n)
                    if games and games[0].cards is not None else None),
        breakdown=breakdown, timing=timing, game=game, options=dict(options or {}),
    )


def duplicate_eval(spec_a: str, spec_b: str, deals: int, seed=0, jobs: int | None = None,
                   progress: Callable[[int], None] | None = None, game: str = DEFAULT_GAME,
                   **options) -> DuplicateResult:
    """Duplicate evaluation of bot ``spec_a`` against ``spec_b`` over ``deals`` deals of ``game``.

    ``options`` are the game's (``deck``; Scopa's ``match``).  Deterministic
    for a seed (apart from ``timing``) whatever ``jobs`` is.
    """
    deals = check_deals(deals)
    options = _games.get(game).check_options(options)
    tasks = [(spec_a, spec_b, seed, i, game, options) for i in range(deals)]
    started = time.perf_counter()
    results = run_deals(tasks, jobs, progress)
    out = summarize(spec_a, spec_b, seed, results, game, options)
    out.timing["wall_s"] = time.perf_counter() - started
    out.timing["jobs"] = min(check_jobs(jobs), deals)  # the processes that actually ran
    return out


# ---------------------------------------------------------------- pooling runs

#: the keys of a ``DuplicateResult``'s JSON form that pooling reads, and their types
_REPORT_KEYS = {"bot_a": str, "bot_b": str, "deals": int, "games": int, "wins": int, "draws": int,
                "losses": int, "mean_diff": (int, float), "mean_diff_ci": list, "mean_points": list,
                "breakdown": dict, "game": str, "options": dict}


def result_from_dict(d, name: str = "report") -> DuplicateResult:
    """A ``DuplicateResult`` from its JSON form (``--json`` of ``cavallo eval``), checked: a
    ``ValueError`` naming ``name`` and the first problem otherwise."""
    if not isinstance(d, dict):
        raise ValueError(f"{name}: not a duplicate evaluation report (a JSON object is expected)")
    for key, kind in _REPORT_KEYS.items():
        if key not in d:
            raise ValueError(f"{name}: not a duplicate evaluation report: no {key!r}")
        if not isinstance(d[key], kind) or isinstance(d[key], bool):
            raise ValueError(f"{name}: {key!r} has the wrong type ({type(d[key]).__name__})")
    if d["deals"] < 1 or d["games"] < d["deals"] or min(d["wins"], d["draws"], d["losses"]) < 0 \
            or d["wins"] + d["draws"] + d["losses"] != d["games"]:
        raise ValueError(f"{name}: its counts do not add up (wins + draws + losses must be the games, "
                         "at least one a deal, deals >= 1)")
    for key in ("mean_diff_ci", "mean_points"):
        if len(d[key]) != 2 or not all(isinstance(x, (int, float)) for x in d[key]):
            raise ValueError(f"{name}: {key!r} must be two numbers")
    if "seed" not in d:
        raise ValueError(f"{name}: not a duplicate evaluation report: no 'seed'")
    for key, row in d["breakdown"].items():
        if not isinstance(row, dict) or not all(isinstance(x, (int, float)) for x in row.values()):
            raise ValueError(f"{name}: the breakdown's {key!r} must map names to numbers")
    score, score_ci = score_of(d["wins"], d["draws"], d["games"])
    return DuplicateResult(
        bot_a=d["bot_a"], bot_b=d["bot_b"], seed=d["seed"], deals=d["deals"], games=d["games"], wins=d["wins"],
        draws=d["draws"], losses=d["losses"], score=score, score_ci=score_ci, mean_diff=float(d["mean_diff"]),
        mean_diff_ci=tuple(d["mean_diff_ci"]), mean_points=tuple(d["mean_points"]),
        mean_cards=tuple(d["mean_cards"]) if d.get("mean_cards") else None, breakdown=d["breakdown"],
        timing=dict(d.get("timing") or {}), game=d["game"], options=d["options"])


def pool_results(results: Sequence[DuplicateResult], same_bots: bool = False) -> DuplicateResult:
    """Duplicate evaluations of the same two bots in the same game on different seeds (so on
    different deals) as one: the games counted together with their Wilson interval, and the
    mean point difference with the normal interval of all the per-deal means (each run's
    variance recovered from its interval, exact up to the rounding of the JSON).

    The bots' specs must be written alike unless ``same_bots`` (the caller knows that specs
    written differently, e.g. with an option at its default, name the same bots); the pooled
    result carries the first report's."""
    if len(results) < 2:
        raise ValueError("pooling needs at least two reports")
    first = results[0]
    seeds = []
    for r in results:
        same = (r.game, r.options) == (first.game, first.options) and \
            (same_bots or (r.bot_a, r.bot_b) == (first.bot_a, first.bot_b))
        if not same:
            raise ValueError(f"only runs of the same bots, game and options pool: {r.bot_a} vs {r.bot_b} "
                             f"({r.game}, {r.options}) is not {first.bot_a} vs {first.bot_b} ({first.game}, {first.options})")
        if set(r.breakdown) != set(first.breakdown) or any(set(r.breakdown[k]) != set(first.breakdown[k])
                                                           for k in first.breakdown):
            raise ValueError(f"the reports of seeds {first.seed!r} and {r.seed!r} break their points down differently")
        own = r.seed if isinstance(r.seed, list) else [r.seed]  # a pooled report holds its seeds' list
        for seed in own:
            if seed in seeds:
                raise ValueError(f"seed {seed!r} twice: the same deals would count twice")
        seeds.extend(own)
    deals = sum(r.deals for r in results)
    games = sum(r.games for r in results)
    wins, draws = sum(r.wins for r in results), sum(r.draws for r in results)
    score, score_ci = score_of(wins, draws, games)
    mean = sum(r.deals * r.mean_diff for r in results) / deals
    # each run's sample variance of its per-deal means, from its interval's half-width
    within = sum((r.deals - 1) * r.deals * ((r.mean_diff_ci[1] - r.mean_diff_ci[0]) / (2 * Z95)) ** 2
                 for r in results)
    between = sum(r.deals * (r.mean_diff - mean) ** 2 for r in results)
    half = Z95 * math.sqrt((within + between) / (deals - 1) / deals)
    share = [r.games / games for r in results]
    breakdown = {key: {k: sum(w * r.breakdown[key][k] for w, r in zip(share, results)) for k in first.breakdown[key]}
                 for key in first.breakdown}
    decisions = [sum(r.timing.get(f"{s}_decisions", 0) for r in results) for s in "ab"]
    timing = {f"{s}_ms_per_decision": sum(r.timing.get(f"{s}_ms_per_decision", 0.0) * r.timing.get(f"{s}_decisions", 0)
                                          for r in results) / n if n else 0.0
              for s, n in zip("ab", decisions)}
    timing.update(a_decisions=decisions[0], b_decisions=decisions[1])
    return DuplicateResult(
        bot_a=first.bot_a, bot_b=first.bot_b, seed=seeds, deals=deals, games=games, wins=wins, draws=draws,
        losses=games - wins - draws, score=score, score_ci=score_ci,
        mean_diff=mean, mean_diff_ci=(mean - half, mean + half),
        mean_points=tuple(sum(w * r.mean_points[i] for w, r in zip(share, results)) for i in range(2)),
        mean_cards=(tuple(sum(w * r.mean_cards[i] for w, r in zip(share, results)) for i in range(2))
                    if all(r.mean_cards for r in results) else None),
        breakdown=breakdown, timing=timing, game=first.game, options=dict(first.options))


def format_result(r: DuplicateResult) -> str:
    """A plain-text table of a duplicate result."""
    lo, hi = r.score_ci
    dlo, dhi = r.mean_diff_ci
    lines = [
        f"duplicate evaluation: A = {r.bot_a}  vs  B = {r.bot_b}",
        f"{_games.label(r.game, r.options)}: {_games.counted_as(r.game, r.options)} {r.deals} "
        f"(x2 games = {r.games}), seed {r.seed}",
        "",
        f"  A wins / draws / losses   {r.wins} / {r.draws} / {r.losses}",
        f"  A score (draws = 1/2)     {100 * r.score:.1f}%   95% Wilson [{100 * lo:.1f}%, {100 * hi:.1f}%]",
        f"  points per game A - B     {r.mean_diff:+.3f}   95% CI [{dlo:+.3f}, {dhi:+.3f}]",
        f"  points per game A, B      {r.mean_points[0]:.3f}, {r.mean_points[1]:.3f}",
    ]
    if r.mean_cards is not None:
        lines.append(f"  cards per game A, B       {r.mean_cards[0]:.2f}, {r.mean_cards[1]:.2f}")
    lines += [
        "",
        f"  {'breakdown':<14}{'A pts/game':>11}{'B pts/game':>11}{'A % games':>11}{'B % games':>11}",
    ]
    for key, b in r.breakdown.items():
        lines.append(f"  {key:<14}{b['a_points']:>11.3f}{b['b_points']:>11.3f}"
                     f"{100 * b['a_rate']:>10.1f}%{100 * b['b_rate']:>10.1f}%")
    t = r.timing
    if t.get("a_decisions"):
        lines.append("")
        lines.append(f"  ms per decision (wall clock, noisy): A {t['a_ms_per_decision']:.2f}, B {t['b_ms_per_decision']:.2f}"
                     + (f"; {t['wall_s']:.1f} s with {t['jobs']} job{'s' if t['jobs'] != 1 else ''}"
                        if "wall_s" in t else ""))
    return "\n".join(lines)
