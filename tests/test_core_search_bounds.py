"""The generic tree's bounds (core/ismcts_tree.c), through Briscola's network-guided search on the
costliest Briscola positions (tests/fixtures/worst/briscola.json): the node cap and the CPU budget
stop the search and it plays its best move so far; the wall cap bounds a decision of
search:briscola however large its CPU budget.  Timing bounds are generous (a shared machine): they
catch a bound that does not work, not a slow search.
"""

from __future__ import annotations

import json
import time
from array import array
from pathlib import Path

import pytest

from cavallo_env import core, games
from cavallo_env.bots import make
from core_harness import require_core

require_core()

GAME = games.get("briscola")
EXT = core.extension("briscola")
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "worst" / "briscola.json"
WORST = [p["view"] for p in json.loads(FIXTURE.read_text(encoding="utf-8"))["positions"]]


@pytest.fixture(scope="module")
def network():
    from cavallo_env.bots.policy import shipped_model
    from cavallo_env.bots.search import load_network
    net, value_scale, _ = load_network(shipped_model("briscola"), "briscola")
    return net, value_scale


def _search(network, state, iterations: int, budget: float = 0.0, wall: float = 0.0, **extra):
    net, value_scale = network
    hooks = GAME.search()
    options = {"iterations": iterations, "c": 0.0, "reward": "points", "scale": hooks.scale, "depth": hooks.depth,
               "root": "ucb", "c_puct": 2.0, "temp": 1.0, "lambda": 0.5, "fpu": 0.0, "value_scale": value_scale,
               "epsilon": hooks.epsilon, "rollout": hooks.policy, "win": hooks.win, **extra}
    inferred = hooks._inference(state, 1 - state.current)
    weights = array("d", inferred[0]) if inferred is not None else None
    t0 = time.perf_counter()
    move, visits = EXT.net_search(state, net, options, weights, 7, 0.0, budget, wall)
    return move, visits, time.perf_counter() - t0


def _states():
    return [GAME.state_from_view(json.loads(json.dumps(view))) for view in WORST]


@pytest.mark.parametrize("root", ["ucb", "halving"])
def test_the_node_cap_stops_the_search_with_its_best_move(network, root):
    for state in _states():
        legal = state.legal_moves()
        full = _search(network, state, 2000, root=root)
        capped = _search(network, state, 2000, root=root, max_nodes=200)
        assert capped[0] in legal and full[0] in legal
        # 200 nodes hold far fewer than 2000 iterations: it stopped early and still played
        assert 0 < sum(capped[1]) < 200 < sum(full[1])
        # the capped search is the first part of the uncapped one: never more visits on a card
        if root == "ucb":
            assert all(c <= f for c, f in zip(capped[1], full[1]))


def test_a_halving_root_stopped_in_its_first_round_plays_a_move_it_tried(network):
    # the cap ends the first round before every card was played once: a card never tried ranks
    # last, not as a mean reward of 0 above the tried cards that lose points
    for state in _states():
        for cap in range(5, 40, 3):
            move, visits, _ = _search(network, state, 2000, root="halving", max_nodes=cap)
            if any(visits[c] for c in state.legal_moves()):
                assert visits[move] > 0, (cap, move, visits)


def test_a_node_cap_below_the_roots_moves_still_plays(network):
    state = _states()[0]
    move, visits, _ = _search(network, state, 500, max_nodes=1)
    assert move in state.legal_moves() and sum(visits) <= 1


def test_a_bad_node_cap_is_refused(network):
    with pytest.raises(ValueError, match="max_nodes"):
        _search(network, _states()[0], 10, max_nodes=-1)


def test_the_cpu_budget_stops_the_search_with_its_best_move(network):
    for state in _states():
        move, visits, dt = _search(network, state, 100_000, budget=0.02, wall=2.0)
        assert move in state.legal_moves()
        assert 0 < sum(visits) < 100_000
        assert dt < 1.0, f"a 0.02 s CPU budget took {dt:.2f} s"


def test_the_wall_cap_stops_the_search_before_its_cpu_budget(network):
    state = _states()[0]
    move, visits, dt = _search(network, state, 100_000, budget=30.0, wall=0.05)
    assert move in state.legal_moves() and 0 < sum(visits) < 100_000
    assert dt < 1.0, f"a 0.05 s wall cap took {dt:.2f} s"


@pytest.mark.parametrize("root", ["puct", "halving"])
def test_a_search_briscola_decision_stays_within_its_wall_cap(root):
    """ms (CPU) far above wall_ms: every decision on the worst positions ends at its wall cap, plus
    the decision's Python around the search (the inference, the view), well under a second."""
    bot = make(f"search:briscola,ms=20000,wall_ms=80,iterations=100000,root={root}", seed=0)
    for view in WORST:
        _, _, legal, _ = games.checked_view(json.loads(json.dumps(view)))
        data = dict(view, legal_moves=[GAME.move_to_dict(m) for m in legal])
        t0 = time.perf_counter()
        move, visits = bot.move_and_visits(data, legal)
        dt = time.perf_counter() - t0
        assert move in legal and 0 < sum(visits.values()) < 100_000
        assert dt < 0.08 + 0.5, f"search:briscola with wall_ms=80 took {dt:.2f} s"
