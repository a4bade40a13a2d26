"""``search:cavalloicera``: Cavalloìcera's network-guided search (bots/search.py over core/cavalloicera_search.c).

It answers every position with a legal move and the root visits of every
legal move; with ``ms=0`` a view always gets the same move; the worst
positions of tests/fixtures/worst/ (up to 4,532 legal moves, each a node of
the tree, and a heuristic prior over all of them for the network) are
answered under 1 s with the default budget, and the node cap ends a search
of many iterations there, so its memory is bounded; bad options are refused
naming the problem.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cavallo_env import games
from cavallo_env.bots import make
from cavallo_env.bots.search import CAVALLOICERA_MAX_NODES
from cavallo_env.errors import BotSpecError
from core_harness import require_core

require_core()

pytest.importorskip("onnxruntime")

GAME = games.get("cavalloicera")
WORST = Path(__file__).resolve().parent / "fixtures" / "worst" / "cavalloicera.json"


def _worst():
    """The stored worst positions as ``(state, view)``, replayed from their deals."""
    out = []
    for pos in json.loads(WORST.read_text(encoding="utf-8"))["positions"]:
        state = GAME.new_state(seed=pos["seed"])
        for m in pos["moves"]:
            GAME.play(state, GAME.move_from_dict(m, GAME.deck_of(pos["view"])))
        out.append((state, GAME.make_view(state, state.current)))
    return out


def _views(deals: int, seed: int = 0):
    """The views of the seats to play along ``deals`` greedy deals, where there is a choice."""
    bot = make("greedy", seed=seed)
    out = []
    for k in range(deals):
        state = GAME.new_state(seed=seed + k)
        while not state.done:
            view = GAME.make_view(state, state.current)
            if len(state.legal_moves()) > 1:
                out.append((state.copy(), view))
            GAME.play(state, GAME.move_from_dict(bot.choose(view), GAME.deck_of(view)))
    return out


def test_it_answers_legal_moves_with_the_root_visits():
    bot = make("search:cavalloicera,ms=0,iterations=60", seed=3)
    for state, view in _views(1)[::3]:
        legal = state.legal_moves()
        move, visits = bot.move_and_visits(view, legal)
        assert move in legal and set(visits) == set(legal)
        assert sum(visits.values()) >= 1 and visits[move] == max(visits.values())


def test_without_a_time_budget_a_view_always_gets_the_same_move():
    views = _views(1, seed=5)[::4]
    a, b = (make("search:cavalloicera,ms=0,iterations=100", seed=1) for _ in range(2))
    assert [a.choose(v) for _, v in views] == [b.choose(v) for _, v in views]


def test_the_worst_positions_are_answered_within_a_second():
    """Within a second of this thread's CPU time, the whole decision (the view's checks included): what one
    idle core takes (a machine shared by other work stretches the wall clock; 5 s guards against hangs).
    The best of three tries: a virtual machine under load can count a stolen core as the thread's CPU time
    (once 1.008 s on CI beside an evaluation, for a decision of 0.17 s alone); a slow search is slow every time."""
    bot = make("search:cavalloicera", seed=0)
    for state, view in _worst():
        tries = []
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.thread_time()
            move = GAME.move_from_dict(bot.choose(view), GAME.deck_of(view))
            tries.append((time.thread_time() - c0, time.perf_counter() - t0))
            assert move in state.legal_moves()
            if tries[-1][0] < 1.0:
                break
        cpu, wall = min(tries)
        where = f"turn {state.turn}, {len(state.legal_moves())} legal moves: {cpu:.3f} s CPU, {wall:.3f} s wall"
        assert cpu < 1.0 and wall < 5.0, where


def test_the_node_cap_ends_a_long_search_of_a_huge_position():
    """Thousands of moves a position: the tree's nodes run out long before 100000 iterations."""
    state, view = _worst()[0]
    bot = make("search:cavalloicera,ms=0,wall_ms=60000,iterations=100000", seed=0)
    move, visits = bot.move_and_visits(view, state.legal_moves())
    assert move in visits and 0 < sum(visits.values()) < 100_000
    assert CAVALLOICERA_MAX_NODES <= 1_000_000


@pytest.mark.parametrize("spec, match", [
    ("search:cavalloicera,rollout=smart", "unknown ismcts rollout"),
    ("search:cavalloicera,epsilon=2", "epsilon must be in 0..1"),
    ("search:cavalloicera,win=1", "unknown search option 'win'"),
])
def test_bad_options_are_refused_naming_the_problem(spec, match):
    with pytest.raises(BotSpecError, match=match):
        make(spec)


def test_search_default_plays_cavalloicera_with_its_search():
    bot = make("search:default,ms=0,iterations=30", seed=0)
    state, view = _views(1)[0]
    assert GAME.move_from_dict(bot.choose(view), GAME.deck_of(view)) in state.legal_moves()
    assert bot.for_game("cavalloicera").game == "cavalloicera"


def test_the_strong_level_is_offered_for_cavalloicera():
    from cavallo_env import levels

    assert levels.offered("cavalloicera") == ["strong", "fast"]
    assert levels.resolve("strong", "cavalloicera") == "search:cavalloicera"
    assert levels.default_spec("cavalloicera") == "search:cavalloicera"


def test_its_prior_is_flattened_by_default_and_the_option_overrides_it():
    assert make("search:cavalloicera").options["temp"] == 3.0  # Cavalloìcera's own default (docs/bots.md)
    assert make("search:cavalloicera,temp=1").options["temp"] == 1.0
    assert make("search:briscola").options["temp"] == 1.0
