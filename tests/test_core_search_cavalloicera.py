"""Cavalloìcera's compiled ISMCTS decision (core/cavalloicera_search.c) against the Python search it mirrors.

Given Python's random numbers (``random.Random.getstate()``) the core draws
them in the same order as the Python search, so everything is checked
exactly: the evaluation, the rollouts, the determinizations (uniform and
inferred) and the whole decision (the move and every root visit count) over
many positions and option sets.  The bot uses the core by default and stays
the Python search bit for bit; the deadline stops it.
"""

from __future__ import annotations

import random
import time
from array import array

import pytest

from cavallo_env import budget, core, games
from cavallo_env.bots import make
from cavallo_env.bots.ismcts import ISMCTSBot
from cavallo_env.cavalloicera.search import greedy_rollout, random_rollout, static_eval
from core_harness import require_core

require_core()

GAME = games.get("cavalloicera")
EXT = core.extension("cavalloicera")


def _positions(n: int, seed: int, min_turn: int = 0, max_turn: int = 48):
    """States of random play (each after a random number of moves in min_turn..max_turn)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        state = GAME.new_state(rng.randrange(10**9))
        stop = rng.randrange(min_turn, max_turn + 1)
        while not state.done and len(state.moves) < stop:
            GAME.play(state, rng.choice(state.legal_moves()))
        out.append(state)
    return out


def _masks(hooks, state):
    """What core_search passes for the inferred deals: None, or the ranks each seat likely lacks."""
    missing = hooks._missing(state, state.current)
    return None if missing is None else [sum(1 << r for r in missing.get(s, ())) for s in range(4)]


@pytest.mark.parametrize("hand_p", [0.5, 0.65, 1.0])
def test_the_evaluation_is_pythons(hand_p):
    for state in _positions(200, 1):
        assert EXT.static_eval(state, hand_p) == static_eval(state, 1.5, hand_p), state.moves


@pytest.mark.parametrize("rollout, epsilon", [("greedy", 0.0), ("greedy", 0.1), ("greedy", 0.6), ("random", 0.0)])
def test_rollout_and_evaluation_are_pythons_on_pythons_numbers(rollout, epsilon):
    play = {"greedy": greedy_rollout, "random": random_rollout}[rollout]
    for k, state in enumerate(_positions(60, 2)):
        for depth in (48, 4, 0):
            copy = state.copy()
            if depth and not copy.done:
                play(copy, random.Random(k), epsilon, depth)
            want = static_eval(copy, 1.5, 0.65)
            options = {"depth": depth, "rollout": rollout, "epsilon": epsilon, "hand": 0.65}
            assert EXT.rollout_value(state, options, 0, random.Random(k).getstate()[1]) == want, (state.moves, depth)


@pytest.mark.parametrize("infer", [0.0, 0.5, 0.9, 1.0])
def test_the_determinizations_are_pythons(infer):
    """The same deals, one after the other (the pool is shuffled in place from deal to deal), each
    consistent with what the seat knows: its own hand and every other hand's size kept."""
    hooks = GAME.search(infer=infer)
    inferred = 0
    for k, state in enumerate(_positions(40, 3, max_turn=44)):
        masks = _masks(hooks, state)
        inferred += masks is not None
        determinize = hooks.determinizer(state, state.current)
        rng = random.Random(k)
        want = [determinize(rng).hands for _ in range(6)]
        got = EXT.determinizations(state, 6, masks, infer, 0, random.Random(k).getstate()[1])
        assert got == want, state.moves
        unseen = sorted(c for s in range(4) if s != state.current for c in state.hands[s])
        for hands in got:
            assert hands[state.current] == state.hands[state.current]
            assert [len(h) for h in hands] == [len(h) for h in state.hands]
            assert sorted(c for s in range(4) if s != state.current for c in hands[s]) == unseen
    assert infer == 0.0 or inferred >= 5


SETTINGS = {"iterations": 150, "c": 0.4, "expand": "greedy", "reward": "points", "root": "halving"}


def _searches(spec: dict, hooks_options: dict, state, bias, seed: int) -> tuple:
    """The Python search's (move, visits) of ``state`` and the core's, given the same Python numbers;
    the root moves' mean rewards checked equal on the way."""
    hooks = GAME.search(**hooks_options)
    bot = ISMCTSBot(spec["iterations"], seed=0, game="cavalloicera", exploration=spec["c"], reward=spec["reward"],
                    expand=spec["expand"], root=spec["root"], depth=spec.get("depth"), engine="python",
                    **hooks_options)
    visits, py_means = {}, {}
    py_move = bot.search(state.copy(), random.Random(seed), None, bias, visits, game=GAME, means=py_means)
    legal = state.legal_moves()
    options = dict(spec, scale=hooks.scale, depth=spec.get("depth", hooks.depth), rollout=hooks.rollout_name,
                   epsilon=hooks.epsilon, hand=hooks.hand_p, infer=hooks.infer)
    by_move = array("d", [bias[m] for m in legal]) if bias is not None else None
    means = array("d", bytes(8 * len(legal)))
    index, counts = EXT.search(state, options, by_move, _masks(hooks, state), 0, 0.0,
                               random.Random(seed).getstate()[1], means)
    assert dict(zip(legal, means)) == pytest.approx(py_means, abs=1e-12)
    return (py_move, visits), (legal[index], dict(zip(legal, counts)))


@pytest.mark.parametrize("spec, hooks_options", [
    ({}, {}),
    ({"root": "ucb"}, {}),
    ({"root": "ucb", "c": 1.3, "reward": "mixed", "expand": "random"}, {"rollout": "random"}),
    ({"reward": "win", "depth": 0}, {"infer": 0.0, "hand_p": 0.5}),
    ({"root": "ucb", "depth": 8}, {"infer": 0.5, "epsilon": 0.3}),
    ({"depth": 48, "iterations": 60}, {"epsilon": 0.0, "infer": 1.0}),
])
def test_given_pythons_numbers_the_core_search_is_the_python_search(spec, hooks_options):
    """The whole decision, bit for bit: the move and every root visit count, with and without a prior."""
    spec = dict(SETTINGS, **spec)
    rng = random.Random(17)
    checked = 0
    for k, state in enumerate(_positions(14, 31 + len(hooks_options), max_turn=46)):
        legal = state.legal_moves()
        if state.done or len(legal) < 2:
            continue
        bias = {m: -rng.random() for m in legal} if k % 2 else None
        py, got = _searches(spec, hooks_options, state, bias, k)
        assert got == py, state.moves
        checked += 1
    assert checked >= 10


def _view(seed: int = 5, moves: int = 9):
    state = GAME.new_state(seed)
    for _ in range(moves):
        GAME.play(state, state.legal_moves()[0])
    return GAME.make_view(state, state.current)


def _decide(spec: str, view, seed: int = 3):
    bot = make(spec, seed=seed, game="cavalloicera")
    return bot.move_and_visits(view, GAME.legal_moves_of(view))


@pytest.mark.parametrize("spec", ["ismcts:200", "ismcts:200,root=ucb,prior=0", "ismcts:200,expand=random,c=2",
                                  "ismcts:200,reward=win,depth=0", "ismcts:200,rollout=random,reward=mixed",
                                  "ismcts:200,infer=0,hand=0.5,eps=0.3", "ismcts:2"])
def test_the_bot_in_the_core_plays_the_python_search(monkeypatch, spec):
    """Through the bot (view, prior, core_search): the core's decision is the Python search's, with
    every option; CAVALLO_CORE=python and engine=python give that same Python search."""
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    for seed, moves in ((5, 9), (8, 22), (11, 40)):
        view = _view(seed, moves)
        got = _decide(spec, view)
        assert got == _decide(f"{spec},engine=python", view)
        assert got[0] in GAME.legal_moves_of(view)
    monkeypatch.setenv("CAVALLO_CORE", "python")
    assert _decide(spec, view) == got


def test_the_core_search_is_used_and_quick(monkeypatch):
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    view = _view()
    _decide("ismcts:10", view)  # the first call imports the extension
    t0 = time.perf_counter()
    move, visits = _decide("ismcts:1000,root=ucb", view)
    core_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    assert _decide("ismcts:1000,root=ucb,engine=python", view) == (move, visits)
    assert core_s < time.perf_counter() - t0  # the same search, in C (about 15x faster: docs/core.md)
    assert sum(visits.values()) == 1000 and move == max(visits, key=visits.get)


def test_bad_input_is_refused_in_words():
    state = _positions(1, 4, min_turn=5, max_turn=5)[0]
    options = dict(SETTINGS, scale=10.0, depth=4, rollout="greedy", epsilon=0.1, hand=0.65, infer=0.9)
    with pytest.raises(ValueError, match="bias has 1 values"):
        EXT.search(state, options, array("d", [0.0]))
    with pytest.raises(ValueError, match="missing must be 4 rank masks"):
        EXT.search(state, options, None, [1, 2])
    with pytest.raises(ValueError, match="625 ints"):
        EXT.search(state, options, None, None, 0, 0.0, [1, 2, 3])
    with pytest.raises(ValueError, match="iterations must be in"):
        EXT.search(state, dict(options, iterations=0))
    with pytest.raises(ValueError, match="draws must be in"):
        EXT.determinizations(state, 10**9)
    broken = state.copy()
    broken.table = broken.table + [broken.hands[0][0]]
    with pytest.raises(ValueError, match="met twice"):
        EXT.search(broken, options)
    over = _positions(1, 4, min_turn=48)[0]
    with pytest.raises(ValueError, match="a choice"):
        EXT.search(over, options)


def test_the_prior_from_the_core_is_the_heuristics():
    """Where a position has many moves the prior's scores come from the core: the Python heuristic's, exactly."""
    import json
    from pathlib import Path
    from cavallo_env.cavalloicera.bots import HeuristicBot
    from cavallo_env.cavalloicera.search import CORE_PRIOR_MOVES
    worst = Path(__file__).resolve().parent / "fixtures" / "worst" / "cavalloicera.json"
    views = [p["view"] for p in json.loads(worst.read_text(encoding="utf-8"))["positions"]]
    views += [GAME.make_view(s, s.current) for s in _positions(60, 6, max_turn=47) if not s.done]
    hooks = GAME.search()
    large = 0
    for view in views:
        state = GAME.state_from_view(view)
        legal = state.legal_moves()
        want = HeuristicBot().move_scores(view, legal)
        assert EXT.move_scores(state) == want
        assert hooks.prior_scores(view, legal[::-1]) == want[::-1]
        large += len(legal) >= CORE_PRIOR_MOVES
    assert large >= 4
    worst_state = GAME.state_from_view(views[0])  # 4,532 moves: the scores stop at a deadline as Python's do
    assert EXT.move_scores(worst_state, 1e-6) is None
    with pytest.raises(budget.OverBudget), budget.deadline(1e-6):
        hooks.prior_scores(views[0], worst_state.legal_moves())
