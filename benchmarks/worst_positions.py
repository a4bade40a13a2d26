"""The most expensive legal decisions of every game, found by search, and every shipped bot timed on them.

    python benchmarks/worst_positions.py search [--games G ...] [--seconds 200] [--seed 0] [--keep 4]
    python benchmarks/worst_positions.py time [--games G ...] [--deadline 10] [--out benchmarks/results/worst_positions.txt]

``search`` looks, for each game, for the positions whose decision costs most:
cost = the wall time of the ``heuristic`` bot's decision (in ms, through the
path the service uses: ``games.checked_view``, the legal moves filled in, then
``bot.choose``) plus the number of legal moves (``--cost-bots`` sums the
decision times of other bots instead, e.g. ``heuristic ismcts:200`` where the
heuristic is quick everywhere).  Every position is reached by
real play from a seeded deal (``game.new_state(seed=...)`` and a list of legal
moves), never by editing a state, so each one is a legal view.  The search has
two phases sharing ``--seconds`` per game:

1. *explore* (``--explore``, half the time by default): many seeds, each deal
   played to its end by one of several biased policies (uniform; always place
   when possible; place numerals only; place the lowest numerals; capture the
   fewest cards; mostly place), stopping at every turn.  Every position's
   legal moves are counted; the heuristic is timed where the count is near the
   most seen at that turn (and on a few others) while timing takes under a
   quarter of the time spent (so in Cavalloìcera, where one decision can take
   seconds, mostly the legal moves are counted).
2. *climb*: per band of turns (Cavalloìcera: turns 0-39, 40-43 and the exact
   endgame 44-47; the other games: the whole deal) a beam of the costliest
   positions (at most two of a turn; it starts from the timed positions and
   those with the most legal moves, timed then) is mutated -- one move of the sequence
   changed (mostly among the last dozen), the later moves replayed where still
   legal and filled in by a biased policy where not, stopping up to two turns
   either side within the band -- and a child with nearly as many legal moves
   as its parent (or as the beam's fewest) is timed, and takes the place of
   the cheapest of its beam when it costs more.

The best positions are timed again (the least of the timings) and the
``--keep`` costliest, the best of every band first, then others at least two
turns apart and at most two from one deal, are written to
``tests/fixtures/worst/<game>.json``: the view (without its legal moves, which
the service computes), the seed and the moves that reach it, and what was
measured.

``time`` feeds every stored position to every shipped bot (``random``,
``greedy``, ``heuristic`` -- also the service's fallback --, the shipped
policies, ``ismcts:1000``) inside ``budget.deadline(--deadline)``, through the
service's path, with the engines' caches emptied before each decision (cold:
the worst case), and prints the worst decision per bot and game; decisions
over ``--profile-over`` seconds are profiled (cProfile, top 5 by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import math
import os
import pstats
import random
import sys
import time
from pathlib import Path

from cavallo_env import budget, games
from cavallo_env.bots import make

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "worst"
RESULTS = ROOT / "benchmarks" / "results" / "worst_positions.txt"

#: positions are looked for in one deal: the moves of a deal (Scopa: its first deal of a match)
PLIES = {"cavalloicera": 48, "briscola": 40, "scopa": 36}


def shipped_bots(game: str) -> list[str]:
    """Every bot the project ships for ``game`` (the service's fallback is ``heuristic``)."""
    specs = ["random", "greedy", "heuristic", "policy:default"]
    if game != "cavalloicera":
        specs.append(f"policy:{game}")
    specs.append("ismcts:1000")
    return specs


# ----------------------------------------------------------------- the service's path
def serve_choose(bot, view: dict, deadline: float | None = None) -> dict:
    """The move of ``bot`` for ``view`` exactly as ``cavallo serve`` asks for it (POST /v1/move): the view
    checked and its legal moves filled in (unless the bot checks views itself), then ``bot.choose`` inside
    ``budget.deadline(deadline)`` (``serve.BotRunner``); ``budget.OverBudget`` past it."""
    data = json.loads(json.dumps(view))
    if data.get("legal_moves") is None:
        data.pop("legal_moves", None)
    if getattr(bot, "validates_views", False):
        with budget.deadline(deadline):
            return bot.choose(data)
    game, state, legal, by_move = games.checked_view(data)
    deck = game.deck_of(data)
    if by_move is None:
        data["legal_moves"] = [game.move_to_dict(m, deck) for m in legal]
    with budget.deadline(deadline):
        answer = bot.choose(data)
    if by_move is not None:
        answer = by_move.get(game.move_from_dict(answer, deck), answer)
    return answer


def is_legal_answer(game, view: dict, answer) -> bool:
    """Whether ``answer`` (a move dict) is a legal move of ``view``'s position."""
    state = game.state_from_view(view)
    try:
        return game.move_from_dict(answer, game.deck_of(view)) in set(state.legal_moves())
    except Exception:
        return False


def clear_caches() -> None:
    """Empty the engines' memo caches (``budget.ByteCache``), so a decision is timed cold."""
    for name, mod in list(sys.modules.items()):
        if not name.startswith("cavallo_env.") or mod is None:
            continue
        for value in list(vars(mod).values()):
            if isinstance(value, budget.ByteCache):
                value.clear()


def timed(bot, view: dict, deadline: float | None, cpu: list | None = None) -> tuple[float, object]:
    """``(seconds, answer)`` of one decision through the service's path; the answer is
    ``budget.OverBudget`` (the class) when the deadline stopped it.  ``cpu`` receives the
    thread's CPU seconds (less disturbed by other work on the machine than the wall time)."""
    t0 = time.perf_counter()
    c0 = time.thread_time()
    try:
        answer = serve_choose(bot, view, deadline)
    except budget.OverBudget:
        answer = budget.OverBudget
    if cpu is not None:
        cpu.append(time.thread_time() - c0)
    return time.perf_counter() - t0, answer


# ----------------------------------------------------------------- positions
def replay(game, seed: int, moves) -> object:
    """The state reached from ``game.new_state(seed=seed)`` by ``moves`` (each checked legal)."""
    state = game.new_state(seed=seed)
    for m in moves:
        why = game.check_move(state, m)
        if why:
            raise ValueError(f"move {m!r} is not legal: {why}")
        game.play(state, m)
    return state


def view_of(game, state) -> dict:
    """The view of the seat to play, without ``legal_moves`` (the service computes them)."""
    view = game.make_view(state, state.current)
    view.pop("legal_moves", None)
    return view


def _parts(move):
    """``(card, capture)`` of a move of any game (Briscola's moves are cards)."""
    if isinstance(move, tuple):
        return move[0], move[1]
    return move, ()


def _values(game_name: str):
    if game_name == "cavalloicera":
        from cavallo_env.cavalloicera.cards import VALUE
        return VALUE
    if game_name == "scopa":
        from cavallo_env.scopa.engine import VALUE
        return VALUE
    return tuple(c % 10 + 1 for c in range(40))


class Policies:
    """Biased ways to play a move, each ``policy(legal, rng) -> move``."""

    names = ("uniform", "place", "place_numerals", "place_low", "fewest", "mostly_place")

    def __init__(self, game_name: str):
        self.value = _values(game_name)

    def _pick(self, moves, rng):
        return moves[rng.randrange(len(moves))]

    def choose(self, name: str, legal, rng: random.Random):
        value = self.value
        if name == "uniform" or len(legal) == 1:
            return self._pick(legal, rng)
        places = [m for m in legal if not _parts(m)[1]]
        if name == "mostly_place":
            return self._pick(places if places and rng.random() < 0.85 else legal, rng)
        if name == "place" and places:
            return self._pick(places, rng)
        if name == "place_numerals" and places:
            nums = [m for m in places if value[_parts(m)[0]] > 0]
            return self._pick(nums or places, rng)
        if name == "place_low" and places:
            nums = [m for m in places if value[_parts(m)[0]] > 0] or places
            low = min(value[_parts(m)[0]] or 99 for m in nums)
            return self._pick([m for m in nums if (value[_parts(m)[0]] or 99) == low], rng)
        # fewest (and the others without a place move): the capture of the fewest cards
        least = min(len(_parts(m)[1]) for m in legal)
        return self._pick([m for m in legal if len(_parts(m)[1]) == least], rng)


class Candidate:
    __slots__ = ("seed", "moves", "policy", "turn", "legal", "table", "heur_s", "cost")

    def __init__(self, seed, moves, policy, legal, table):
        self.seed = seed
        self.moves = tuple(moves)
        self.policy = policy
        self.turn = len(moves)
        self.legal = legal
        self.table = table
        self.heur_s = None
        self.cost = float(legal)

    @property
    def key(self):
        return (self.seed, self.moves)


#: the turn ranges searched and kept apart (Cavalloìcera: before the last rounds, turns 40-43, the exact endgame)
BANDS = {"cavalloicera": ((0, 40), (40, 44), (44, 48))}


def bands(game_name: str) -> tuple:
    return BANDS.get(game_name, ((0, PLIES[game_name]),))


class _TimeUp(Exception):
    pass


class Searcher:
    def __init__(self, game_name: str, seed: int, cap_s: float, cost_bots=("heuristic",)):
        self.game = games.get(game_name)
        self.name = game_name
        self.rng = random.Random(seed)
        self.policies = Policies(game_name)
        self.cost_bots = [make(spec, seed=0) for spec in cost_bots]
        self.cap_s = cap_s  # a deadline on each timed decision (the exact endgame stops there)
        self.bands = bands(game_name)
        self.seen: dict = {}
        self.best_legal_at: dict = {}  # turn -> the most legal moves seen there
        self.timings = 0
        self.timing_s = 0.0
        self.positions = 0
        self.t0 = time.monotonic()

    def band_of(self, turn: int) -> int:
        return next(k for k, (lo, hi) in enumerate(self.bands) if lo <= turn < hi)

    # -- measuring
    def measure(self, cand: Candidate, state=None, repeats: int = 1) -> Candidate:
        if state is None:
            state = replay(self.game, cand.seed, cand.moves)
        view = view_of(self.game, state)
        best = None
        k = 0
        while k < repeats or (k < repeats + 1 and best < 1.0):  # a quick decision once more: noise
            dt = 0.0
            for bot in self.cost_bots:
                clear_caches()
                dt += timed(bot, view, self.cap_s)[0]
            best = dt if best is None else min(best, dt)
            self.timing_s += dt
            k += 1
        self.timings += k
        cand.heur_s = best
        cand.cost = 1000.0 * best + cand.legal
        return cand

    def consider(self, cand: Candidate, state, time_it: bool = False) -> Candidate:
        """Count a position (its legal moves); time the heuristic on it when ``time_it`` or,
        while timing takes under a quarter of the time spent, when its legal moves are at
        least 60% of the most seen at its turn (and on 3% of the others)."""
        self.positions += 1
        if cand.key in self.seen:
            return self.seen[cand.key]
        top = self.best_legal_at.get(cand.turn, 0)
        if cand.legal > top:
            self.best_legal_at[cand.turn] = cand.legal
        cheap = self.timing_s < 0.25 * (time.monotonic() - self.t0)
        if cand.legal <= 1:  # a forced move: the bots answer it without thinking
            cand.cost = 0.0
        elif time_it or (cheap and (cand.legal >= 0.6 * top or self.rng.random() < 0.03)):
            self.measure(cand, state)
        self.seen[cand.key] = cand
        return cand

    # -- play
    def playout(self, seed: int, policy: str, visit) -> None:
        """Play a deal from ``new_state(seed)`` by ``policy``; ``visit(moves, state, legal)`` at every position."""
        game = self.game
        state = game.new_state(seed=seed)
        moves = []
        while len(moves) < PLIES[self.name] and not state.done:
            legal = state.legal_moves()
            visit(moves, state, legal)
            m = self.policies.choose(policy, legal, self.rng)
            game.play(state, m)
            moves.append(m)

    def table_size(self, state) -> int:
        view = self.game.make_view(state, state.current)
        return len(view.get("table", view.get("trick", [])))

    def explore(self, seconds: float, bar) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            seed = self.rng.randrange(1 << 30)
            policy = self.rng.choice(Policies.names)

            def visit(moves, state, legal, seed=seed, policy=policy):
                if time.monotonic() > end:
                    raise _TimeUp()
                cand = Candidate(seed, moves, policy, len(legal), self.table_size(state))
                self.consider(cand, state)
                bar.update_to(time.monotonic())

            try:
                self.playout(seed, policy, visit)
            except _TimeUp:
                break

    def mutate(self, parent: Candidate, floor: int) -> Candidate | None:
        """A child of ``parent``: one move changed, the later ones kept where legal, the stop moved by
        up to two turns within the parent's band; timed when it has at least ``floor`` legal moves."""
        rng = self.rng
        n = len(parent.moves)
        if n == 0:
            return None
        i = rng.randrange(max(0, n - 12), n) if rng.random() < 0.8 else rng.randrange(n)
        lo, hi = self.bands[self.band_of(n)]
        stop = max(lo, 1, min(hi - 1, n + rng.choice((-2, -1, 0, 0, 0, 0, 1, 2))))
        game = self.game
        state = replay(game, parent.seed, parent.moves[:i])
        legal = state.legal_moves()
        if len(legal) < 2:
            return None
        policy = parent.policy if rng.random() < 0.7 else rng.choice(Policies.names)
        alt = self.policies.choose(rng.choice(("uniform", policy)), legal, rng)
        if alt == parent.moves[i]:
            alt = legal[rng.randrange(len(legal))]
        moves = list(parent.moves[:i]) + [alt]
        game.play(state, alt)
        for m in parent.moves[i + 1:]:
            if len(moves) >= stop or state.done:
                break
            if game.check_move(state, m):
                m = self.policies.choose(policy, state.legal_moves(), rng)
            game.play(state, m)
            moves.append(m)
        while len(moves) < stop and not state.done:
            m = self.policies.choose(policy, state.legal_moves(), rng)
            game.play(state, m)
            moves.append(m)
        if state.done:
            return None
        cand = Candidate(parent.seed, moves, policy, len(state.legal_moves()), self.table_size(state))
        return self.consider(cand, state, time_it=cand.legal >= floor)

    def beam(self, size: int, band: int | None = None, per_turn: int = 2, timed_only: bool = True) -> list:
        """The costliest positions (of one band), at most ``per_turn`` of a turn (untimed ones cost their
        legal moves)."""
        out, count = [], {}
        for c in sorted(self.seen.values(), key=lambda c: -c.cost):
            if (timed_only and c.heur_s is None) or (band is not None and self.band_of(c.turn) != band):
                continue
            if count.get(c.turn, 0) >= per_turn:
                continue
            count[c.turn] = count.get(c.turn, 0) + 1
            out.append(c)
            if len(out) >= size:
                break
        return out

    def climb(self, seconds: float, bar, size: int = 5) -> None:
        end = time.monotonic() + seconds
        # the beams start from the costliest positions of the exploration, timed or not (those with the
        # most legal moves): the two costliest of every band are timed now
        for b in range(len(self.bands)):
            for c in self.beam(2, b, timed_only=False):
                if c.heur_s is None:
                    self.measure(c)
        beams = [self.beam(size, b) for b in range(len(self.bands))]
        k = 0
        while time.monotonic() < end and any(beams):
            b = k % len(beams)
            k += 1
            beam = beams[b]
            if not beam:
                continue
            # the costlier parents are mutated more often
            parent = self.rng.choices(beam, [1.0 / (j + 1) for j in range(len(beam))])[0]
            floor = min(int(0.9 * parent.legal), min(c.legal for c in beam)) if len(beam) >= size else 0
            child = self.mutate(parent, floor)
            if child is not None and child.heur_s is not None and child not in beam:
                if len(beam) < size or child.cost > beam[-1].cost:
                    beams[b] = self.beam(size, b)
            bar.update_to(time.monotonic())

    def pick(self, keep: int) -> list[Candidate]:
        """The ``keep`` costliest positions (re-timed: the least of the timings), the best of every band first,
        then the rest two turns apart at least and at most two of a deal."""
        pool = []
        for b in range(len(self.bands)):
            pool += self.beam(keep + 2, b, per_turn=1)
            if all(c.heur_s < 0.05 for c in pool):  # quick decisions: a wider pool against the noise
                pool += [c for c in self.beam(40, b, per_turn=3) if c not in pool]
        for c in pool:
            first = c.heur_s
            self.measure(c, repeats=2 if first < 0.5 else 1)
            if first < c.heur_s:  # the least of the timings: the least disturbed by other work
                c.heur_s, c.cost = first, 1000.0 * first + c.legal
        pool.sort(key=lambda c: -c.cost)
        chosen = []
        for b in range(len(self.bands)):
            hit = next((c for c in pool if self.band_of(c.turn) == b), None)
            if hit is not None:
                chosen.append(hit)
        for c in pool:
            if len(chosen) >= keep:
                break
            if (c not in chosen and all(abs(c.turn - o.turn) >= 2 for o in chosen)
                    and sum(o.seed == c.seed for o in chosen) < 2):
                chosen.append(c)
        return sorted(chosen[:keep], key=lambda c: -c.cost)


class _Bar:
    """A tqdm bar over wall seconds (or a quiet stand-in without a terminal)."""

    def __init__(self, total: float, desc: str, searcher: Searcher):
        from tqdm import tqdm

        self.t0 = time.monotonic()
        self.searcher = searcher
        self.bar = tqdm(total=round(total), desc=desc, unit="s", file=sys.stderr,
                        bar_format="{desc}: {percentage:3.0f}%|{bar:20}| {n:.0f}/{total:.0f}s {postfix}")
        self.last = 0.0

    def update_to(self, now: float) -> None:
        done = min(now - self.t0, self.bar.total)
        if done - self.last >= 1.0:
            s = self.searcher
            best = max((c.cost for c in s.seen.values()), default=0.0)
            self.bar.set_postfix_str(f"{s.positions} positions, {s.timings} timed, best cost {best:.0f}",
                                     refresh=False)
            self.bar.update(done - self.last)
            self.last = done

    def close(self):
        self.bar.close()


def record_of(game, searcher: Searcher, cand: Candidate) -> dict:
    deck = None
    state = replay(game, cand.seed, cand.moves)
    view = view_of(game, state)
    return {
        "game": game.name,
        "seed": cand.seed,
        "turn": cand.turn,
        "moves": [game.move_to_dict(m, deck) for m in cand.moves],
        "policy": cand.policy,
        "table": cand.table,
        "legal_moves": cand.legal,
        "decision_ms": round(1000 * cand.heur_s, 1),
        "cost": round(cand.cost, 1),
        "view": view,
    }


def search(args) -> int:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.games:
        game = games.get(name)
        s = Searcher(name, args.seed, args.cap, args.cost_bots)
        t0 = time.monotonic()
        bar = _Bar(args.seconds, f"{name} search", s)
        s.explore(args.seconds * args.explore, bar)
        s.climb(args.seconds - (time.monotonic() - t0), bar)
        bar.close()
        chosen = s.pick(args.keep)
        records = [record_of(game, s, c) for c in chosen]
        out = FIXTURES / f"{name}.json"
        doc = {
            "about": ("the costliest legal decisions found by benchmarks/worst_positions.py search "
                      f"(--seconds {args.seconds:g} --seed {args.seed} --cost-bots {' '.join(args.cost_bots)}); "
                      "cost = decision_ms (the cost bots' decisions, summed) + legal moves; "
                      "each view is reached from game.new_state(seed=seed) by moves"),
            "positions": records,
        }
        out.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"{name}: {s.positions} positions, {s.timings} timings of {'+'.join(args.cost_bots)}, "
              f"{len(s.seen)} distinct; wrote {out.relative_to(ROOT)}", flush=True)
        for r in records:
            rows.append((name, r["turn"], r["seed"], r["policy"], r["table"], r["legal_moves"], r["decision_ms"],
                         r["cost"]))
    print()
    print(f"{'game':<13}{'turn':>5}{'seed':>12}  {'policy':<15}{'table':>6}{'legal':>7}{'decision ms':>14}{'cost':>9}")
    for row in rows:
        print(f"{row[0]:<13}{row[1]:>5}{row[2]:>12}  {row[3]:<15}{row[4]:>6}{row[5]:>7}{row[6]:>14.1f}{row[7]:>9.0f}")
    return 0


# ----------------------------------------------------------------- timing the bots
def load_positions(name: str) -> list[dict]:
    path = FIXTURES / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))["positions"]


def profile_top(bot, view: dict, n: int = 5) -> str:
    prof = cProfile.Profile()
    clear_caches()
    prof.enable()
    try:
        serve_choose(bot, view)
    finally:
        prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(n)
    lines = [ln.replace(str(ROOT) + "/", "").replace(sys.prefix + "/", "")
             for ln in out.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls"))
    total = next((ln.strip() for ln in lines if "function calls" in ln), "")
    return "\n".join(["    " + total] + ["    " + ln for ln in lines[start:start + 1 + n]])


def time_bots(args) -> int:
    lines, slow, bots = [], [], {}
    load = os.getloadavg()[0]
    header = (f"{'game':<13}{'bot':<17}{'worst s':>9}{'cpu s':>8}{'turn':>6}{'legal':>7}{'table':>7}  "
              f"{'median s':>9}  {'over budget':>11}")
    print(header, flush=True)
    lines.append(header)
    for name in args.games:
        game = games.get(name)
        positions = load_positions(name)
        specs = args.bots or shipped_bots(name)
        for spec in specs:
            bot = bots[spec] = bots.get(spec) or make(spec, seed=0)
            serve_choose(bot, positions[0]["view"])  # load the model, import what the bot needs
            times, over, cpus = [], 0, []
            for k, pos in enumerate(positions):
                clear_caches()
                dt, answer = timed(bot, pos["view"], args.deadline, cpus)
                if answer is budget.OverBudget:
                    over += 1
                elif not is_legal_answer(game, pos["view"], answer):
                    raise SystemExit(f"{spec} answered an illegal move on {name} position {k}: {answer}")
                times.append((dt, k))
                if dt > args.profile_over:
                    slow.append((name, spec, k, pos, dt))
            worst, k = max(times)
            pos = positions[k]
            med = sorted(t for t, _ in times)[len(times) // 2]
            row = (f"{name:<13}{spec:<17}{worst:>9.3f}{cpus[k]:>8.3f}{pos['turn']:>6}{pos['legal_moves']:>7}{pos['table']:>7}  "
                   f"{med:>9.3f}  {over:>5} of {len(times)}")
            print(row, flush=True)
            lines.append(row)
    if slow:
        lines.append("")
        lines.append(f"decisions over {args.profile_over:g} s (position = index in tests/fixtures/worst/<game>.json), "
                     "cProfile top 5 by own time:")
        for name, spec, k, pos, dt in slow:
            bot = bots[spec]
            lines.append(f"  {name} position {k} (turn {pos['turn']}, seed {pos['seed']}, {pos['legal_moves']} legal, "
                         f"table {pos['table']}): {spec} {dt:.3f} s")
            lines.append(profile_top(bot, pos["view"]))
        print("\n".join(lines[lines.index(""):]), flush=True)
    if args.out:
        cmd = "$ python benchmarks/worst_positions.py " + " ".join(args.argv)
        note = (f"   # {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs shared with other jobs (load average "
                f"{load:.1f} before, {os.getloadavg()[0]:.1f} after), one decision each, cold caches, "
                f"inside budget.deadline({args.deadline:g}); wall s (worst, median), the worst's CPU s")
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(cmd + note + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    ps = sub.add_parser("search", help="look for the costliest positions, write tests/fixtures/worst/<game>.json")
    ps.add_argument("--games", nargs="+", default=games.names(), choices=games.names())
    ps.add_argument("--seconds", type=float, default=200.0, help="search time per game (default 200)")
    ps.add_argument("--seed", type=int, default=0)
    ps.add_argument("--keep", type=int, default=4, help="positions kept per game (default 4)")
    ps.add_argument("--explore", type=float, default=0.5, help="share of the time spent exploring seeds")
    ps.add_argument("--cap", type=float, default=20.0, help="deadline on one timed decision (s)")
    ps.add_argument("--cost-bots", nargs="+", default=["heuristic"],
                    help="the bots whose decision times (summed) make the cost (default: heuristic)")
    pt = sub.add_parser("time", help="time every shipped bot on the stored positions")
    pt.add_argument("--games", nargs="+", default=games.names(), choices=games.names())
    pt.add_argument("--bots", nargs="+", default=None, help="bot specs (default: every shipped bot of the game)")
    pt.add_argument("--deadline", type=float, default=10.0)
    pt.add_argument("--profile-over", type=float, default=1.0)
    pt.add_argument("--out", default=str(RESULTS.relative_to(ROOT)))
    args = p.parse_args(argv)
    args.argv = argv
    if args.mode == "search":
        return search(args)
    return time_bots(args)


if __name__ == "__main__":
    sys.exit(main())
