"""``search:scopa`` (cavallo_env/bots/search.py over core/scopa_search.c): Scopa's network-guided search.

What the bot promises for Scopa: legal moves through whole single deals and
matches, the same move for the same view without a time budget, root visits
that add up (sequential halving at the root, Scopa's default, or PUCT), and every bound kept
on the costliest Scopa positions (tests/fixtures/worst/): the iterations, the
tree's node cap, the CPU-time budget, the wall-clock cap and the caller's
deadline.  Its network is checked in tests/test_core_search_scopa_net.py; its
strength is the duplicate match of docs/bots.md.
"""

from __future__ import annotations

import random
import time

import pytest

from cavallo_env import budget, core, games, levels
from cavallo_env.bots import BotSpecError, make
from core_harness import require_core

require_core()

from cavallo_env.bots.policy import shipped_model  # noqa: E402
from cavallo_env.bots.search import load_network  # noqa: E402
from cavallo_env.scopa.engine import score_deal  # noqa: E402
from test_worst_positions import positions  # noqa: E402

GAME = games.get("scopa")
FIXED = "search:scopa,ms=0,iterations=200"


def _play(bot, seed: int, match: bool) -> int:
    """One deal (or match) with ``bot`` in both seats; the decisions it made."""
    state = GAME.new_state(seed=seed, match=match)
    n = 0
    while not state.done:
        view = GAME.make_view(state, state.current)
        move = bot.choose(view)
        assert move in view["legal_moves"]
        GAME.play(state, GAME.move_from_dict(move, GAME.deck_of(view)))
        n += 1
    return n


def test_it_plays_whole_deals_and_matches_legally():
    bot = make(FIXED, seed=5, game="scopa")
    assert _play(bot, 3, match=False) == 36
    assert _play(bot, 4, match=True) >= 36


def test_the_same_view_gets_the_same_move_without_a_time_budget():
    state = GAME.new_state(seed=9, match=False)
    views = []
    rng = random.Random(1)
    while not state.done:
        views.append(GAME.make_view(state, state.current))
        GAME.play(state, rng.choice(state.legal_moves()))
    a, b = make(FIXED, seed=2, game="scopa"), make(FIXED, seed=2, game="scopa")
    assert [a.choose(v) for v in views[::4]] == [b.choose(v) for v in views[::4]]


def _worst():
    """The costliest Scopa views, replayed (with their legal moves), and those moves."""
    for pos in positions("scopa"):
        state = GAME.new_state(seed=pos["seed"])
        for m in pos["moves"]:
            GAME.play(state, GAME.move_from_dict(m, GAME.deck_of(pos["view"])))
        yield GAME.make_view(state, state.current), state.legal_moves()


@pytest.mark.parametrize("options, total", [(",root=puct", 300), ("", None), (",root=halving", None),
                                            (",root=puct,leaf=value", 300), (",root=puct,leaf=rollout,opponent=0", 300),
                                            (",leaf=value", None)])
def test_the_root_visits_add_up_to_the_iterations(options, total):
    bot = make(f"search:scopa,ms=0,iterations=300{options}", seed=1, game="scopa")
    for view, legal in _worst():
        move, visits = bot.move_and_visits(view, legal)
        assert move in legal and set(visits) == set(legal)
        if total:  # PUCT at the root: the move visited most
            assert sum(visits.values()) == total and visits[move] == max(visits.values())
        else:  # halving: every move in the first round, no more than the iterations
            assert min(visits.values()) > 0 and sum(visits.values()) <= 300


def test_the_node_cap_stops_the_search_with_its_best_move_so_far():
    net, scale, _ = load_network(shipped_model("scopa"), "scopa")
    hooks = GAME.search()
    options = {"iterations": 5000, "reward": "points", "scale": hooks.scale, "depth": hooks.depth, "root": "ucb",
               "c_puct": 2.0, "temp": 1.0, "fpu": 0.0, "lambda": 0.5, "value_scale": scale,
               "epsilon": hooks.epsilon, "lookahead": hooks.lookahead, "model": hooks.model}
    for view, legal in _worst():
        base = GAME.state_from_view(view)
        deals = hooks.core_deals(base, random.Random(0))
        ext = core.extension("scopa")
        full = sum(ext.net_search(base, net, options, deals, 1)[1])
        capped_move, capped = ext.net_search(base, net, dict(options, max_nodes=60), deals, 1)
        assert full == 5000 and 0 < sum(capped) < 60 and capped_move is not None


def test_the_time_budget_and_the_wall_cap_bound_a_decision():
    bot = make("search:scopa,ms=20,iterations=100000", seed=1, game="scopa")
    capped = make("search:scopa,ms=60000,wall_ms=30,iterations=100000", seed=1, game="scopa")
    for view, legal in _worst():
        start, cpu = time.perf_counter(), time.thread_time()
        move, visits = bot.move_and_visits(view, legal)
        assert time.thread_time() - cpu < 0.2  # 20 ms of this thread's CPU time, and the view's checks
        assert time.perf_counter() - start < 1.5
        assert 10 < sum(visits.values()) < 100000 and move in legal
        start = time.perf_counter()
        assert capped.choose(view) in view["legal_moves"]
        assert time.perf_counter() - start < 1.5


def test_the_callers_deadline_abandons_the_search():
    bot = make("search:scopa,ms=0,iterations=100000", seed=1, game="scopa")
    view = next(_worst())[0]
    with pytest.raises(budget.OverBudget), budget.deadline(0.02):
        bot.choose(view)


def test_scopas_own_options_reach_the_search():
    state = GAME.new_state(seed=21, match=False)
    view = GAME.make_view(state, state.current)
    legal = GAME.legal_moves_of(view)
    # PUCT's root visits show what the search saw (sequential halving's follow its schedule whatever it saw)
    runs = {spec: make(f"{FIXED},root=puct{spec}", seed=3, game="scopa").move_and_visits(view, legal)[1]
            for spec in ("", ",opponent=0", ",epsilon=0.5", ",infer=0,lookahead=0")}
    assert len({tuple(v.values()) for v in runs.values()}) > 1
    assert make(f"{FIXED},opponent=0", game="scopa").hooks.model == 0  # Scopa's ismcts model=, renamed
    with pytest.raises(BotSpecError, match="epsilon must be in 0..1"):
        make("search:scopa,epsilon=2", game="scopa")


def _minimax(deal) -> int:
    """Seat 0's final point difference of the rest of ``deal``, both seats at their best."""
    if deal.done:
        points = score_deal(deal.final_piles(), deal.scope, deal.money)["points"]
        return points[0] - points[1]
    values = []
    for move in deal.legal_moves():
        child = deal.copy()
        child.play(*move)
        values.append(_minimax(child))
    return max(values) if deal.current == 0 else min(values)


def test_the_last_round_is_solved_exactly():
    """search:scopa values a new position of the last round (the stock empty: nothing hidden) by its
    exact solve, seat 0's point difference with both seats at their best."""
    rng = random.Random(5)
    ext = core.extension("scopa")
    solved = 0
    for k in range(15):
        state = GAME.new_state(seed=k, match=False)
        with pytest.raises(ValueError, match="last round"):
            ext.exact_value(state)
        while state.deal.stock_size:
            GAME.play(state, rng.choice(state.legal_moves()))
        while not state.done:
            assert ext.exact_value(state) == _minimax(state.deal), state.deal.moves
            solved += 1
            GAME.play(state, rng.choice(state.legal_moves()))
    assert solved == 15 * 6


def test_the_strong_level_is_offered_for_scopa():
    assert levels.offered("scopa") == ["strong", "fast"]
    assert levels.resolve("strong", "scopa") == "search:scopa"
