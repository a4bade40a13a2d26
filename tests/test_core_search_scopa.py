"""Scopa's compiled ISMCTS decision (core/scopa_search.c) against the Python search it mirrors.

Given the Python search's random numbers the core makes the same decision bit
for bit (the move and every root visit count) for every option, with and
without a prior, on positions rebuilt from views as the bot sees them; the
rollout and evaluation, and the determinizations, are checked on their own;
the deadline stops the search at the costliest position.  What the bot
promises in every game (options, visits, deadline, the Python switch) is
test_core_search_games.py; the play strength of the whole is the duplicate
match of docs/bots.md.
"""

from __future__ import annotations

import random
import time
from array import array

import pytest

from cavallo_env import budget, core, games
from cavallo_env.bots import make
from cavallo_env.bots.ismcts import ISMCTSBot
from core_harness import require_core

require_core()

GAME = games.get("scopa")
EXT = core.extension("scopa")


def _states(n: int, seed: int, match: bool = False, min_turn: int = 0):
    """States of random play with a choice to make (each after a random number of moves)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        state = GAME.new_state(rng.randrange(10**9), match=match)
        stop = rng.randrange(min_turn, 36)
        while not state.done and state.deal.turn < stop:
            GAME.play(state, rng.choice(state.legal_moves()))
        if not state.done and len(state.legal_moves()) > 1:
            out.append(state)
    return out


def _bases(n: int, seed: int):
    """The states the bot searches: rebuilt from the seat's view (the hidden cards made up)."""
    out = []
    for k, state in enumerate(_states(n, seed, match=bool(seed % 2))):
        out.append(GAME.state_from_view(GAME.make_view(state, state.current), random.Random(k)))
    return out


def _options(hooks, **settings) -> dict:
    return dict({"iterations": 1, "c": 0.4, "expand": "greedy", "reward": "points", "scale": hooks.scale,
                 "depth": hooks.depth, "root": "halving"}, epsilon=hooks.epsilon, lookahead=hooks.lookahead,
                model=hooks.model, **settings)


@pytest.mark.parametrize("hooks_options", [{}, {"epsilon": 0.3}, {"model": 0, "lookahead": 0.2}])
def test_rollout_and_evaluation_are_pythons(hooks_options):
    """Below the tree: the rollout of a determinization (its other seat of its kind of player) and
    the evaluation, on the same random numbers, to the bit."""
    hooks = GAME.search(**hooks_options)
    checked = 0
    for k, state in enumerate(_bases(40, 3)):
        world = hooks.determinizer(state, state.current)(random.Random(k))
        for depth in (0, 3, 36):
            copy = world.copy()
            if depth:
                hooks.rollout(copy, random.Random(k + depth), depth)
            want = hooks.evaluate(copy)
            got = EXT.rollout_value(world, _options(hooks, depth=depth), {"other": world.other}, world.kind,
                                    mt=random.Random(k + depth).getstate()[1])
            assert got == want, (world.deal.moves, depth)
            checked += 1
    assert checked == 120


@pytest.mark.parametrize("infer", [1.0, 0.5])
def test_the_weighed_hands_are_pythons(infer):
    """The inference's weights (the kinds of player by the rounds over, every hand's weight and of the
    kinds of player holding it), computed by the core's bots, are _Determinizer._weigh's to the bit,
    on the same hands drawn from the same numbers."""
    hooks = GAME.search(infer=infer)
    weighed = 0
    for k, state in enumerate(_bases(40, 7)):
        deals = hooks.core_deals(state, random.Random(k))
        det = hooks.determinizer(state, state.current)
        assert deals["model"] == det.model
        assert EXT.player_model(det.past, det.other, state.money) == det.player_model()
        if not det.plays:
            assert deals["hands"] == []
            continue
        det._weigh(random.Random(k))
        assert (deals["hands"], deals["cum"], deals["kinds"]) == (det.hands, det.cum, det.kinds)
        weighed += 1
    assert weighed >= 10


def _python_and_core(spec: str, state, bias, seed: int) -> tuple:
    """The Python search's (move, visits) of ``state`` for the bot ``spec`` and the core's with the
    same settings (those the bot hands ``core_search``), given the same Python random numbers; the
    root moves' mean rewards checked equal on the way."""
    bot = make(f"{spec},engine=python", seed=0, game="scopa")
    hooks = bot.hooks()
    python, python_means = {}, {}
    python_move = bot.search(state.copy(), random.Random(seed), None, bias, python, game=GAME, means=python_means)
    rng = random.Random(seed)
    deals = hooks.core_deals(state, rng)
    legal = state.legal_moves()
    means = array("d", bytes(8 * len(legal)))
    index, counts = EXT.search(state, _options(hooks, **bot._settings(hooks)), deals,
                               None if bias is None else array("d", map(bias.get, legal)), 0, 0.0,
                               rng.getstate()[1], means)
    assert dict(zip(legal, means)) == pytest.approx(python_means, abs=1e-12)
    return (python_move, python), (legal[index], dict(zip(legal, counts)))


@pytest.mark.parametrize("spec", [
    "ismcts:200",
    "ismcts:200,root=ucb",
    "ismcts:200,root=ucb,c=1.3,reward=mixed,expand=random,epsilon=0.3,lookahead=0",
    "ismcts:200,reward=win,depth=0,infer=0",
    "ismcts:200,root=ucb,depth=3,infer=0.5,model=0",
    "ismcts:37,model=0,epsilon=0",
])
def test_given_pythons_numbers_the_core_search_is_the_python_search(spec):
    """The whole decision, bit for bit: the move and every root visit count, with and without a prior."""
    rng = random.Random(17)
    inferred = 0
    for k, state in enumerate(_bases(12, 31 + len(spec))):
        legal = state.legal_moves()
        bias = {m: -rng.random() for m in legal} if k % 2 else None
        python, core_search = _python_and_core(spec, state, bias, k)
        assert core_search == python, (state.deal.moves, python, core_search)
        inferred += bool(make(spec, game="scopa").hooks().core_deals(state, random.Random(0))["hands"])
    assert "infer=0" in spec.split(",") or inferred >= 3  # the weighed hands were part of it


def _sample_draws(hooks, state, draws: int):
    """The Python determinizer's other hands and kinds over ``draws`` draws."""
    determinize = hooks.determinizer(state, state.current)
    rng = random.Random(4)
    out = []
    for _ in range(draws):
        world = determinize(rng)
        out.append((world.deal.hands[1 - state.current], world.kind))
    return out


@pytest.mark.parametrize("infer", [0.0, 1.0])
def test_the_determinizations_deal_as_pythons(infer):
    """Every core determinization is consistent with what the seat knows (its hand, the table, the
    piles, the stock so far: the hidden cards dealt again, the other hand of its size); per card and
    per kind of player, the core's frequencies and the Python determinizer's agree (within 5
    standard errors of the difference, over 2,000 draws each)."""
    hooks = GAME.search(infer=infer)
    draws = 2000
    for state in _bases(8, 21):
        deals = hooks.core_deals(state, random.Random(1))
        deal, other = state.deal, 1 - state.current
        core_draws = EXT.determinizations(state, deals, 99, draws)
        hidden = sorted(deals["hidden"])
        for hand, stock, kind in core_draws:
            assert len(hand) == len(deal.hands[other]) and sorted(hand + stock) == hidden and kind in (0, 1, 2)
            assert not set(hand) & (set(deal.hands[state.current]) | set(deal.table))
        py_draws = _sample_draws(hooks, state, draws)
        for key in [("card", c) for c in range(40)] + [("kind", k) for k in range(3)]:
            def count(sample):
                return sum((key[1] in hand) if key[0] == "card" else (kind == key[1]) for hand, *_, kind in sample)
            a, b = count(core_draws), count(py_draws)
            p = (a + b) / (2 * draws)
            se = (2 * p * (1 - p) / draws) ** 0.5
            assert abs(a - b) / draws <= 5 * se + 1e-9, (deal.moves, key, a, b)


def _worst_view() -> dict:
    """The costliest Scopa position of tests/fixtures/worst (the most legal moves), with its legal moves."""
    import json
    from pathlib import Path
    path = Path(__file__).resolve().parent / "fixtures" / "worst" / "scopa.json"
    view = json.loads(path.read_text(encoding="utf-8"))["positions"][0]["view"]
    view.pop("legal_moves", None)
    _, _, legal, _ = games.checked_view(dict(view))
    return dict(view, legal_moves=[GAME.move_to_dict(m) for m in legal])


def test_the_core_search_respects_the_deadline_at_the_costliest_position(monkeypatch):
    monkeypatch.delenv("CAVALLO_CORE", raising=False)
    for root in ("ucb", "halving"):
        bot = ISMCTSBot(5_000_000, seed=1, game="scopa", root=root)
        t0 = time.perf_counter()
        with pytest.raises(budget.OverBudget), budget.deadline(0.05):
            bot.choose(_worst_view())
        assert time.perf_counter() - t0 < 2.0


def test_bad_input_is_refused():
    state = _states(1, 2)[0]
    hooks = GAME.search()
    deals = hooks.core_deals(state, random.Random(0))
    options = _options(hooks, iterations=10)
    with pytest.raises(ValueError, match="bias"):
        EXT.search(state, options, deals, array("d", [0.0]))
    with pytest.raises(ValueError, match="625"):
        EXT.search(state, options, deals, None, 0, 0.0, [1, 2, 3])
    with pytest.raises(ValueError, match="n_other"):
        EXT.search(state, options, dict(deals, n_other=7))
    done = state.copy()
    while not done.done:
        GAME.play(done, done.legal_moves()[0])
    with pytest.raises(ValueError, match="over"):
        EXT.search(done, options, deals)


def test_search_speed_benchmark_runs(capsys):
    """benchmarks/search_speed.py times Scopa's two searches on the same positions in one run."""
    import runpy
    from pathlib import Path
    bench = runpy.run_path(str(Path(__file__).resolve().parents[1] / "benchmarks" / "search_speed.py"))
    assert bench["main"](["ismcts:20", "--game", "scopa", "--deals", "1"]) == 0
    printed = capsys.readouterr().out
    assert "(scopa, " in printed and "core mean" in printed and "same move" in printed
