"""The compiled ISMCTS decision (core/briscola_search.c) against the Python search it mirrors.

The pieces that use no random numbers are checked exactly (the endgame solve,
the rollout and evaluation without random moves); given Python's numbers the
decision is the Python search's, bit for bit.  What the bot promises in every
game (options, visits, deadline, the Python switch) is
test_core_search_games.py; the play strength of the whole is the duplicate
match of docs/bots.md.
"""

from __future__ import annotations

import random

import pytest

from cavallo_env import core, games
from cavallo_env.bots import make
from cavallo_env.bots.ismcts import ISMCTSBot
from cavallo_env.briscola.endgame import solve_state
from core_harness import require_core

require_core()

GAME = games.get("briscola")
EXT = core.extension("briscola")


def _positions(n: int, seed: int, min_turn: int = 0, max_stock: int = 33):
    """States of random play (each after a random number of moves)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        state = GAME.new_state(rng.randrange(10**9))
        stop = rng.randrange(min_turn, 40)
        while not state.done and len(state.moves) < stop:
            GAME.play(state, rng.choice(state.legal_moves()))
        if not state.done and len(state.stock) <= max_stock:
            out.append(state)
    return out


@pytest.mark.parametrize("bonus", [0.0, 20.0])
def test_the_endgame_solve_is_pythons(bonus):
    for state in _positions(150, 1, min_turn=30, max_stock=1):
        assert EXT.solve(state, bonus) == solve_state(state, bonus)


@pytest.mark.parametrize("options", [{}, {"rollout": "greedy"}, {"win": 0.0}, {"rollout": "greedy", "win": 5.0}])
def test_rollout_and_evaluation_without_random_moves_are_pythons(options):
    hooks = GAME.search(**options)
    core_options = {"depth": hooks.depth, "epsilon": 0.0, "rollout": hooks.policy, "win": hooks.win}
    for depth in (40, 3, 0):
        for state in _positions(60, depth + 2):
            copy = state.copy()
            if depth:
                hooks.rollout(copy, random.Random(0), depth)
            want = hooks.evaluate(copy)
            got = EXT.rollout_value(state, dict(core_options, depth=depth), 7)
            assert got == pytest.approx(want, abs=1e-9), (state, depth)


SETTINGS = {"iterations": 200, "c": 0.4, "expand": "greedy", "reward": "points", "root": "halving"}


def _searches(spec: dict, hooks_options: dict, state, bias, seed: int) -> tuple:
    """The Python search's (move, visits) of ``state`` and the core's, given Python's random numbers."""
    from array import array
    hooks = GAME.search(**hooks_options)
    bot = ISMCTSBot(spec["iterations"], seed=0, game="briscola", exploration=spec["c"], reward=spec["reward"],
                    expand=spec["expand"], root=spec["root"], depth=spec.get("depth"), engine="python",
                    **hooks_options)
    visits = {}
    py_move = bot.search(state.copy(), random.Random(seed), None, bias, visits, game=GAME)
    options = dict(spec, scale=hooks.scale, depth=spec.get("depth", hooks.depth), epsilon=hooks.epsilon,
                   rollout=hooks.policy, win=hooks.win)
    by_card = None
    if bias is not None:
        by_card = array("d", [bias.get(c, 0.0) for c in range(40)])
    inferred = hooks._inference(state, 1 - state.current)
    weights = array("d", inferred[0]) if inferred is not None else None
    move, counts = EXT.search(state, options, by_card, weights, 0, 0.0, random.Random(seed).getstate()[1])
    return (py_move, visits), (move, {m: counts[m] for m in visits})


@pytest.mark.parametrize("spec, hooks_options", [
    ({}, {}),
    ({"root": "ucb"}, {}),
    ({"root": "ucb", "c": 1.3, "reward": "mixed", "expand": "random"}, {"rollout": "greedy", "epsilon": 0.3}),
    ({"reward": "win", "depth": 0}, {"infer": 0.0, "win": 0.0}),
    ({"root": "ucb", "depth": 5}, {"infer": 0.5, "epsilon": 0.1}),
])
def test_given_pythons_numbers_the_core_search_is_the_python_search(spec, hooks_options):
    """The whole decision, bit for bit: the move and every root visit count, with and without a prior."""
    spec = dict(SETTINGS, **spec)
    rng = random.Random(17)
    for k, state in enumerate(_positions(10, 31 + len(hooks_options))):
        legal = state.legal_moves()
        if len(legal) < 2:
            continue
        bias = {m: -rng.random() for m in legal} if k % 2 else None
        py, got = _searches(spec, hooks_options, state, bias, k)
        assert got == py, (state, py, got)


def _decide(spec: str, view, seed: int = 3):
    bot = make(spec, seed=seed, game="briscola")
    return bot.move_and_visits(view, GAME.legal_moves_of(view))


@pytest.mark.parametrize("spec", ["ismcts:60", "ismcts:60,root=ucb"])
def test_the_core_search_plays_the_solved_endgame(monkeypatch, spec):
    """With the stock empty nothing is hidden and every evaluation is exact: the move has the best minimax value."""
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    checked = 0
    for state in _positions(40, 11, min_turn=34, max_stock=0):
        legal = state.legal_moves()
        if len(legal) < 2:
            continue
        sign = 1 if state.current == 0 else -1
        values = {}
        for m in legal:
            after = state.copy()
            GAME.play(after, m)
            values[m] = sign * solve_state(after, 20)
        move, _ = _decide(spec, GAME.make_view(state, state.current))
        assert values[move] == max(values.values()), (state, values, move)
        checked += 1
    assert checked >= 10


def test_an_unknown_engine_is_refused():
    from cavallo_env.bots.base import BotSpecError
    with pytest.raises(BotSpecError, match="engine"):
        make("ismcts:10,engine=gpu", game="briscola")


def test_search_speed_benchmark_runs(capsys):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "search_speed.py"
    spec = importlib.util.spec_from_file_location("search_speed", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["ismcts:20", "--deals", "1", "--game", "briscola"]) == 0
    out = capsys.readouterr().out
    assert "(briscola, " in out and "core mean" in out


@pytest.mark.parametrize("infer", [0.0, 1.0])
def test_the_determinizations_deal_as_pythons(infer):
    """Per card, how often the other hand gets it: the core's draws and the Python determinizer's agree
    (within 5 standard errors of the difference, over 3,000 draws each)."""
    from array import array
    hooks = GAME.search(infer=infer)
    draws = 3000
    checked = 0
    for state in _positions(12, 21, min_turn=4, max_stock=31):
        other = 1 - state.current
        if not state.stock:
            continue
        inferred = hooks._inference(state, other)
        weights = array("d", inferred[0]) if inferred is not None else None
        core_counts = EXT.hidden_counts(state, weights, 99, draws)
        determinize = hooks.determinizer(state, state.current)
        rng = random.Random(4)
        py_counts = [0] * 40
        for _ in range(draws):
            for c in determinize(rng).hands[other]:
                py_counts[c] += 1
        n = len(state.hands[other])
        assert sum(core_counts) == sum(py_counts) == n * draws
        for c in range(40):
            p = (core_counts[c] + py_counts[c]) / (2 * draws)
            se = (2 * p * (1 - p) / draws) ** 0.5
            assert abs(core_counts[c] - py_counts[c]) / draws <= 5 * se + 1e-9, (state, c, core_counts[c], py_counts[c])
        checked += 1
    assert checked >= 8
