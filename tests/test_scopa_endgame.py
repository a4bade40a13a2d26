"""Scopa's exact last round (``scopa.endgame``) and the policy runtime's ``endgame`` option."""

from __future__ import annotations

import random

import pytest

from cavallo_env import games
from cavallo_env.games import checked_view
from cavallo_env.bots import BotSpecError, make
from cavallo_env.games.learning import decide_move
from cavallo_env.scopa import endgame
from cavallo_env.scopa.engine import random_state
from cavallo_env.scopa.learning import LEARNING


def _last_round(seed: int, match: bool = False):
    """A state at the first decision with an empty stock and a choice, reached by random play."""
    rng = random.Random(seed)
    state = random_state(seed, match=match)
    while not endgame.solvable(state):
        if state.done:
            return None
        state.play(*rng.choice(state.legal_moves()))
    return state


def _reference(deal, seat, totals, target, slip) -> float:
    """The reference the solver must agree with, written another way: the other seat's play as a
    distribution over its moves (``slip / n`` each, plus ``1 - slip`` on its first worst one)."""
    if deal.done:
        return endgame.outcome_value(deal, seat, totals, target)
    values = []
    for move in deal.legal_moves():
        child = deal.copy()
        child.play(*move)
        values.append(_reference(child, seat, totals, target, slip))
    if deal.current == seat:
        return max(values)
    worst = values.index(min(values))
    chance = [slip / len(values) + (1 - slip) * (i == worst) for i in range(len(values))]
    return sum(p * v for p, v in zip(chance, values))


def _move_values(state, slip=endgame.SLIP) -> dict:
    deal, seat = state.deal, state.current
    target = state.target if state.match else None
    out = {}
    for move in deal.legal_moves():
        child = deal.copy()
        child.play(*move)
        out[move] = _reference(child, seat, state.totals, target, slip)
    return out


def _is_best(values, move) -> bool:
    return values[move] >= max(values.values()) - 1e-9


#: deals whose last round has moves of values equal but for rounding (1e-14 apart)
ROUNDING_TIES = (1082, 2587, 2672)


@pytest.mark.parametrize("slip", [endgame.SLIP, 0.0])
def test_the_solver_plays_a_move_of_the_best_value(slip):
    """slip 0 is plain minimax: the best guaranteed outcome."""
    checked = 0
    for seed in (*range(60), *ROUNDING_TIES):
        state = _last_round(seed, match=seed % 2 == 1)
        if state is None:
            continue
        values = _move_values(state, slip)
        assert _is_best(values, endgame.solve(state, slip=slip))
        # among equals the preferred move is kept; a worse preferred move is not played
        for move in values:
            chosen = endgame.solve(state, prefer=move, slip=slip)
            assert chosen == move if _is_best(values, move) else _is_best(values, chosen)
        checked += 1
    assert checked >= 40


def test_moves_equal_but_for_rounding_are_equal():
    for seed in ROUNDING_TIES:
        state = _last_round(seed)
        deal, seat = state.deal, state.current
        values = []
        for move in deal.legal_moves():
            child = deal.copy()
            child.play(*move)
            values.append(endgame.value(child, seat, state.totals, None))
        values.sort()
        assert any(0 < b - a < 1e-12 for a, b in zip(values, values[1:]))


def test_a_sure_deal_win_comes_first_also_for_the_runtime():
    """At deal 11158's last round two moves win the deal whatever the other seat does and one
    only draws it, with a better chance of points; the solver and the runtime (which reads the
    deal as a match's first) both play a sure win."""
    g = games.get("scopa")
    state = _last_round(11158)
    guaranteed = _move_values(state, 0.0)
    assert sorted(guaranteed.values()) == [0.0, 101.0, 101.0]
    assert guaranteed[endgame.solve(state)] > 100
    as_view = checked_view(g.make_view(state, state.current), "scopa")[1]
    assert as_view.match and guaranteed[endgame.solve(as_view)] > 100
    move = g.move_from_dict(make("policy:scopa").choose(g.make_view(state, state.current)), "milanesi")
    assert guaranteed[move] > 100


def test_a_fallible_other_seat_changes_some_moves_and_never_the_sure_ones():
    """Against an other seat that may slip the solver sometimes gives up some guarantee for a
    better chance; where a move wins against every answer it still plays one."""
    changed = won = 0
    for seed in range(200):
        state = _last_round(seed)
        if state is None:
            continue
        fallible, sure = endgame.solve(state), endgame.solve(state, slip=0.0)
        guaranteed = _move_values(state, 0.0)
        if fallible != sure:
            changed += 1
            values = _move_values(state)
            assert values[fallible] > values[sure] + 1e-9
        if max(guaranteed.values()) > 0:  # a deal won whatever the other seat answers
            assert guaranteed[fallible] > 0
            won += 1
    assert changed > 0 and won > 0


def test_the_solver_leaves_the_state_as_it_was():
    state = _last_round(3)
    before = (state.deal.hands[0][:], state.deal.hands[1][:], state.deal.table[:], state.deal.turn)
    endgame.solve(state)
    assert (state.deal.hands[0], state.deal.hands[1], state.deal.table, state.deal.turn) == before


def test_only_the_last_round_is_solvable():
    state = random_state(5, match=False)
    rng = random.Random(5)
    seen = []
    while not state.done:
        seen.append(endgame.solvable(state))
        assert not seen[-1] or state.deal.stock_size == 0
        state.play(*rng.choice(state.legal_moves()))
    assert any(seen) and not all(seen)


def test_a_match_deciding_deal_counts_the_match_first():
    deal = _last_round(8).deal
    while not deal.done:
        deal.play(*deal.legal_moves()[0])
    pts = deal.points()
    seat = 0 if pts[0] >= pts[1] else 1
    diff = pts[seat] - pts[1 - seat]
    # 10-10 before the deal: the deal's winner wins the match (when it scored more)
    won = 100 if diff > 0 else 0
    v = endgame.outcome_value(deal, seat, [10, 10], 11)
    assert v == (1000 + diff if diff > 0 else 0)
    assert endgame.outcome_value(deal, 1 - seat, [10, 10], 11) == -v  # the loser's side
    # a single deal, or 0-0 totals (what a view of a single deal shows): the deal's result first
    for target in (None, 11):
        assert endgame.outcome_value(deal, seat, [0, 0], target) == won + diff
        assert endgame.outcome_value(deal, 1 - seat, [0, 0], target) == -(won + diff)
    # later in a match, the points only
    behind = [0, 0]
    behind[seat] = 1
    behind[1 - seat] = 4  # the other seat 3 points ahead before the deal
    assert endgame.outcome_value(deal, seat, behind, 11) == diff - 3
    if diff > 0:  # the match won on the totals while this deal is lost
        ahead = [0, 0]
        ahead[1 - seat] = 15
        assert endgame.outcome_value(deal, 1 - seat, ahead, 11) == 1000 + 15 - diff


def _policy_move(bot_endgame: bool, state):
    """The move decide_move picks with a 'first legal action' policy."""
    pick = lambda obs, mask, prior, acts: acts[0]  # noqa: E731
    table = LEARNING.table(state.copy())
    return decide_move(table, pick, False, LEARNING, bot_endgame)


def test_decide_move_solves_only_where_it_is_asked_and_can():
    for seed in range(30):
        state = _last_round(seed)
        if state is None:
            continue
        own = _policy_move(False, state)
        solved = _policy_move(True, state)
        values = _move_values(state)
        assert _is_best(values, solved)
        assert solved == own or values[own] < values[solved] - 1e-9
    early = random_state(1, match=False)
    assert _policy_move(True, early) == _policy_move(False, early)


def test_the_policy_runtime_plays_the_exact_endgame_unless_told_not_to():
    g = games.get("scopa")
    on, off = make("policy:scopa"), make("policy:scopa@endgame=0")
    assert on.endgame and not off.endgame and off.name.endswith("@endgame=0")
    differs = 0
    for seed in range(40):
        state = _last_round(seed)
        if state is None:
            continue
        view = g.make_view(state, state.current)
        # a view does not say whether its deal is a single one: the bot values it as a match's
        values = _move_values(checked_view(view, "scopa")[1])
        move_on = g.move_from_dict(on.choose(view), "milanesi")
        move_off = g.move_from_dict(off.choose(view), "milanesi")
        assert _is_best(values, move_on)
        differs += move_on != move_off
    assert differs > 0  # the shipped model's own move is not always the solver's


@pytest.mark.parametrize("spec, why", [
    ("policy:scopa@endgame=maybe", "must be 1 or 0"),
    ("policy:scopa@endgames=1", "unknown policy option"),
])
def test_a_bad_endgame_option_names_the_problem(spec, why):
    with pytest.raises(BotSpecError, match=why):
        make(spec)


def test_the_checkpoint_bot_has_the_same_endgame_option():
    pytest.importorskip("torch")
    from training import policy_bot  # noqa: F401  (registers checkpoint:)

    on = make("checkpoint:checkpoints/scopa.json", game="scopa")
    off = make("checkpoint:checkpoints/scopa.json@endgame=0", game="scopa")
    assert on.endgame and not off.endgame
    with pytest.raises(BotSpecError, match="unknown checkpoint option"):
        make("checkpoint:checkpoints/scopa.json@t=1", game="scopa")
    g = games.get("scopa")
    state = _last_round(11)
    view = g.make_view(state, state.current)
    values = _move_values(checked_view(view, "scopa")[1])
    assert _is_best(values, g.move_from_dict(on.choose(view), "milanesi"))
