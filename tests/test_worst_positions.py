"""The costliest legal positions of every game (tests/fixtures/worst/, found by
``benchmarks/worst_positions.py search``): each is a legal view reached by real
play, and every shipped bot -- and the service's fallback, ``heuristic`` --
answers it with a legal move, through the path ``cavallo serve`` uses, well
within a generous bound (a guard against hangs, not a benchmark).  A search
under a short ``budget.deadline`` stops promptly on the worst view.
"""

from __future__ import annotations

import json
import signal
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from cavallo_env import budget, games
from cavallo_env.bots import make

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "worst"
#: seconds one decision may take here (machines are noisy: this only catches hangs)
BOUND_S = 5.0
#: the service's fallback when a table's AI is late or fails (serve/service.py, build_service: make("heuristic", seed=seed))
FALLBACK = "heuristic"


def shipped_bots(game: str) -> list[str]:
    specs = ["random", "greedy", "heuristic", "policy:default"]
    if game != "cavalloicera":
        specs.append(f"policy:{game}")
    return specs + ["ismcts:1000"]


def positions(name: str) -> list[dict]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))["positions"]


def serve_choose(bot, view: dict) -> dict:
    """As ``POST /v1/move`` does: check the view and fill in its legal moves (unless the bot
    validates views itself), then ``bot.choose``."""
    data = json.loads(json.dumps(view))
    if data.get("legal_moves") is None:
        data.pop("legal_moves", None)
    if getattr(bot, "validates_views", False):
        return bot.choose(data)
    game, state, legal, by_move = games.checked_view(data)
    deck = game.deck_of(data)
    if by_move is None:
        data["legal_moves"] = [game.move_to_dict(m, deck) for m in legal]
    answer = bot.choose(data)
    if by_move is not None:
        answer = by_move.get(game.move_from_dict(answer, deck), answer)
    return answer


class Hung(Exception):
    pass


@contextmanager
def stopped_after(seconds: float):
    """Raise ``Hung`` in this (the main) thread once ``seconds`` have passed, so a decision that
    hangs fails its test instead of holding up the run."""
    def _alarm(signum, frame):
        raise Hung()

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _legal_set(game, view):
    return set(game.state_from_view(view).legal_moves())


@pytest.mark.parametrize("name", games.names())
def test_positions_are_legal_views_reached_by_play(name):
    game = games.get(name)
    stored = positions(name)
    assert stored, f"no positions stored for {name}"
    for k, pos in enumerate(stored):
        state = game.new_state(seed=pos["seed"])
        for i, m in enumerate(pos["moves"]):
            move = game.move_from_dict(m, game.deck_of(pos["view"]))
            assert game.check_move(state, move) is None, f"{name} position {k}: move {i} {m} is not legal"
            game.play(state, move)
        view = game.make_view(state, state.current)
        view.pop("legal_moves", None)
        assert view == pos["view"], f"{name} position {k}: the stored view is not the replayed one"
        g, st, legal, by_move = games.checked_view(json.loads(json.dumps(pos["view"])))
        assert g is game and by_move is None
        assert len(legal) == pos["legal_moves"] == len(state.legal_moves())


CASES = [(name, spec) for name in games.names() for spec in dict.fromkeys(shipped_bots(name) + [FALLBACK])]


@pytest.mark.parametrize("name,spec", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_every_bot_answers_the_worst_positions_in_time(name, spec):
    game = games.get(name)
    bot = make(spec, seed=0)
    slow = []
    for k, pos in enumerate(positions(name)):
        view = pos["view"]
        t0 = time.perf_counter()
        try:
            with stopped_after(BOUND_S):
                answer = serve_choose(bot, view)
        except Hung:
            slow.append(f"position {k} (turn {pos['turn']}, {pos['legal_moves']} legal): stopped after {BOUND_S:g} s")
            continue
        dt = time.perf_counter() - t0
        move = game.move_from_dict(answer, game.deck_of(view))
        assert move in _legal_set(game, view), f"{spec} on {name} position {k}: illegal answer {answer}"
        if dt > BOUND_S:
            slow.append(f"position {k} (turn {pos['turn']}, {pos['legal_moves']} legal): {dt:.2f} s")
    assert not slow, f"{spec} on {name} took longer than {BOUND_S:g} s: " + "; ".join(slow)


def test_search_stops_promptly_past_its_deadline():
    view = positions("cavalloicera")[0]["view"]  # the costliest
    game, state, legal, _ = games.checked_view(json.loads(json.dumps(view)))
    data = dict(view, legal_moves=[game.move_to_dict(m) for m in legal])
    bot = make("ismcts:5000", seed=0)
    t0 = time.perf_counter()
    try:
        with stopped_after(10.0):
            with budget.deadline(0.05):
                bot.choose(data)
        stopped = "answered"
    except budget.OverBudget:
        stopped = "OverBudget"
    except Hung:
        stopped = "still running after 10 s"
    dt = time.perf_counter() - t0
    assert stopped == "OverBudget", f"ismcts:5000 under a 0.05 s deadline: {stopped} ({dt:.2f} s)"
    assert dt < 2.0, f"ismcts:5000 went on for {dt:.2f} s past a 0.05 s deadline"
