"""Move generation against a brute force written straight from docs/rules/cavalloicera.md, and the action space.

The brute force reads ranks and values from the card *names* (not from the
engine's tables) and tries every subset of the table.  The action-space tests
walk every capture-building path of ``CavalloiceraActions`` and check docs/contract.md's
promises: every legal move reachable by exactly one action sequence, nothing
illegal reachable, the mask exactly the meaningful actions.
"""

from __future__ import annotations

import itertools
import random

import pytest

from cavallo_env.cavalloicera.actions import CAPTURE, NUM_ACTIONS, PLACE, TAKE, CavalloiceraActions, action_name, move_to_actions
from cavallo_env.cavalloicera.cards import NAMES
from cavallo_env.cavalloicera.engine import CavalloiceraState

MAX_FULL_SUBSETS = 16  # tables up to this size: literally every one of the 2**n subsets
MAX_TABLE_CHECKED = 30  # bigger tables (rare, only with place-biased play) are skipped


def rank_of(card: int) -> str:
    return NAMES[card].split("-")[0]


def value_of(card: int) -> int:
    """docs/rules/cavalloicera.md: A..10 are worth 1..10; courts (F, C, R) have no value."""
    r = rank_of(card)
    return 1 if r == "A" else int(r) if r.isdigit() else 0


def _table_subsets(table):
    """Subsets of the table that could be a sum capture, as (sum, sorted cards).

    Only subsets of >= 2 numerals summing to at most 10 are yielded, but for tables up to ``MAX_FULL_SUBSETS`` every one of the 2**n
    subsets is looked at (sums built incrementally over the bit masks).
    """
    table = sorted(table)
    vals = [value_of(t) for t in table]
    n = len(table)
    if n <= MAX_FULL_SUBSETS:
        sums = [0] * (1 << n)
        numerals = [True] * (1 << n)
        for mask in range(1, 1 << n):
            low = mask & -mask
            i = low.bit_length() - 1
            rest = mask ^ low
            sums[mask] = sums[rest] + vals[i]
            numerals[mask] = numerals[rest] and vals[i] > 0
            if rest and numerals[mask] and sums[mask] <= 10:
                yield sums[mask], tuple(t for j, t in enumerate(table) if mask >> j & 1)
        return
    # Bigger tables: a sum set holds numerals only, so take subsets of the numerals,
    # by size, stopping once even the r smallest values exceed 10, the largest card value.
    nums = [t for t, v in zip(table, vals) if v]
    small = sorted(value_of(t) for t in nums)
    for r in range(2, len(nums) + 1):
        if sum(small[:r]) > 10:
            break
        for sub in itertools.combinations(nums, r):
            yield sum(value_of(t) for t in sub), sub


def brute_force_moves(state: CavalloiceraState) -> set:
    """Every legal (card, capture) of the seat to play, straight from docs/rules/cavalloicera.md."""
    hand = state.hands[state.current]
    moves = {(card, ()) for card in hand}  # place only: always legal
    for card in hand:  # capture by rank: exactly one table card of the same rank
        for t in state.table:
            if rank_of(t) == rank_of(card):
                moves.add((card, (t,)))
    for total, sub in _table_subsets(state.table):  # capture by sum: two or more numerals
        for card in hand:
            if value_of(card) == total:
                moves.add((card, sub))
    return moves


def random_positions(n_deals: int, seed: int, place_bias: float = 0.0):
    """Positions reached by random play; ``place_bias`` places more to grow the table."""
    rng = random.Random(seed)
    for d in range(n_deals):
        state = CavalloiceraState.new(rng.randrange(2**32))
        while not state.done:
            yield state
            if rng.random() < place_bias:
                move = (rng.choice(state.hands[state.current]), ())
            else:
                move = rng.choice(state.legal_moves())
            state.play(*move)


@pytest.mark.parametrize("seed,place_bias", [(1, 0.0), (2, 0.0), (3, 0.4)])
def test_legal_moves_equal_brute_force(seed, place_bias):
    checked = skipped = 0
    for state in random_positions(100 if place_bias == 0 else 50, seed, place_bias):
        if len(state.table) > MAX_TABLE_CHECKED:
            skipped += 1
            continue
        legal = state.legal_moves()
        assert len(legal) == len(set(legal)), "a move is listed twice"
        for card, cap in legal:
            assert list(cap) == sorted(cap)
        assert set(legal) == brute_force_moves(state), (state.table, state.hands[state.current])
        checked += 1
    assert checked >= 2000 and skipped < checked // 20


def test_brute_force_agrees_on_rules_example():
    # Guard the brute force itself with docs/rules/cavalloicera.md's example.
    s = CavalloiceraState([[card(n) for n in ("7-coins",)], [], [], []], [card(n) for n in ("7-cups", "3-swords", "4-clubs")], 3)
    assert brute_force_moves(s) == {(card("7-coins"), ()), (card("7-coins"), (card("7-cups"),)),
                                    (card("7-coins"), tuple(sorted((card("3-swords"), card("4-clubs")))))}


def card(name):
    return NAMES.index(name)


# ------------------------------------------------------------------ the action space


def meaningful_actions(game: CavalloiceraActions, legal: set) -> set:
    """The actions docs/contract.md allows at this decision, from the legal moves alone."""
    st = game.state
    if game.building is None:
        hand = st.hands[st.current]
        with_capture = {c for c, cap in legal if cap}
        return {PLACE + c for c in hand} | {CAPTURE + c for c in with_capture}
    card_, taken, _ = game.building
    k = len(taken)
    return {TAKE + cap[k] for c, cap in legal if c == card_ and cap and cap[:k] == taken and len(cap) > k}


def explore(game: CavalloiceraActions, legal: set, prefix: tuple, found: dict) -> None:
    """DFS over every action sequence from a decision point; records the move each completes."""
    seat = game.current
    actions = game.legal_actions()
    assert actions == sorted(actions) and actions, "legal actions must be non-empty and increasing"
    assert set(actions) == meaningful_actions(game, legal), "the mask is not exact"
    assert all(0 <= a < NUM_ACTIONS for a in actions)
    for a in actions:
        g = game.copy()
        move = g.step(a)
        if move is None:
            assert g.current == seat, "the same agent keeps choosing while a capture is built"
            assert g.state.turn == game.state.turn
            explore(g, legal, prefix + (a,), found)
        else:
            assert g.state.moves[-1] == (seat, move[0], move[1])
            found.setdefault(move, []).append(prefix + (a,))


def test_action_space_reaches_each_legal_move_exactly_once():
    positions = 0
    for state in random_positions(40, 11, place_bias=0.2):
        if len(state.table) > MAX_TABLE_CHECKED:
            continue
        legal = brute_force_moves(state)
        found: dict = {}
        explore(CavalloiceraActions(state.copy()), legal, (), found)
        assert set(found) == legal, "reachable moves differ from the legal moves"
        for move, seqs in found.items():
            assert len(seqs) == 1, f"{move} reached by {len(seqs)} action sequences"
            assert move_to_actions(state, *move) == list(seqs[0])
        positions += 1
    assert positions > 1500


def test_move_to_actions_round_trip():
    for state in random_positions(30, 12, place_bias=0.3):
        for move in state.legal_moves():
            acts = move_to_actions(state, *move)
            g = CavalloiceraActions(state.copy())
            for i, a in enumerate(acts):
                assert a in g.legal_actions(), action_name(a)
                done = g.step(a)
                assert (done is None) == (i < len(acts) - 1)
            assert done == move


def test_single_capture_set_executes_at_once():
    # One legal set: "capture with" executes it without asking for takes.
    s = CavalloiceraState([[card("7-coins")], [], [], []], [card("7-cups"), card("9-clubs")], 3)
    g = CavalloiceraActions(s)
    assert g.legal_actions() == [PLACE + card("7-coins"), CAPTURE + card("7-coins")]
    assert g.step(CAPTURE + card("7-coins")) == (card("7-coins"), (card("7-cups"),))


def test_take_order_is_by_increasing_id():
    # 10-coins on 4-coins(3) A-cups(13) 5-cups(17) 6-swords(31) 9-clubs(47) has three sets:
    # (3, 13, 17), (3, 31), (13, 47).  Takes come in increasing id; a set runs once it is unique.
    table = [card(n) for n in ("4-coins", "A-cups", "5-cups", "6-swords", "9-clubs")]
    s = CavalloiceraState([[card("10-coins")], [], [], []], table, 3)
    g = CavalloiceraActions(s)
    assert g.step(CAPTURE + card("10-coins")) is None
    assert g.legal_actions() == [TAKE + 3, TAKE + 13]
    assert g.step(TAKE + 3) is None
    assert g.legal_actions() == [TAKE + 13, TAKE + 31]
    assert g.step(TAKE + 31) == (card("10-coins"), (3, 31))
    assert s.moves[-1] == (0, card("10-coins"), (3, 31))
