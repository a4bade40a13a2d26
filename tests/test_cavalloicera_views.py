"""Views: nothing hidden, exact round trip through state_from_view, clear errors."""

from __future__ import annotations

import copy
import json
import random

import pytest

from cavallo_env.cavalloicera.cards import NAMES
from cavallo_env.cavalloicera.engine import NUM_TURNS, CavalloiceraState
from cavallo_env.errors import ViewError
from cavallo_env.cavalloicera.views import legal_moves_of, make_view, move_from_dict, move_to_dict, state_from_view
from positions import random_position


def redealt(state: CavalloiceraState, seat: int, rng: random.Random) -> CavalloiceraState:
    """The same deal so far with the other seats' unplayed cards dealt differently."""
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in state.hands[s]]
    rng.shuffle(pool)
    hands = []
    for s in range(4):
        played = [c for m_seat, c, _ in state.moves if m_seat == s]
        if s == seat:
            hands.append(played + state.hands[s])
        else:
            n = len(state.hands[s])
            hands.append(played + pool[:n])
            pool = pool[n:]
    other = CavalloiceraState(hands, list(state.initial_table), state.dealer)
    for _, card, cap in state.moves:
        other.play(card, cap)
    return other


def test_view_never_shows_hidden_cards():
    rng = random.Random(1)
    for _ in range(1500):
        state = random_position(rng)
        for seat in range(4):
            view = make_view(state, seat)
            hidden = {NAMES[c] for s in range(4) if s != seat for c in state.hands[s]}
            assert not hidden & set(json.dumps(view).replace('"', " ").split()) - {",", ":"}
            assert set(view["hand"]) == {NAMES[c] for c in state.hands[seat]}
            json.dumps(view)  # JSON-serialisable
            # dealing the unseen cards differently changes nothing in the view
            assert make_view(redealt(state, seat, rng), seat) == view


def test_state_from_view_round_trip():
    rng = random.Random(2)
    for _ in range(600):
        state = random_position(rng)
        seat = state.current
        view = make_view(state, seat)
        rebuilt = state_from_view(view, random.Random(rng.random()))
        assert make_view(rebuilt, seat) == view
        assert rebuilt.hands[seat] == state.hands[seat]
        assert rebuilt.table == state.table
        assert rebuilt.piles == state.piles
        assert rebuilt.bonuses == state.bonuses
        assert rebuilt.moves == state.moves
        assert rebuilt.prev_placed == state.prev_placed
        assert rebuilt.last_capturer == state.last_capturer
        assert [len(h) for h in rebuilt.hands] == [len(h) for h in state.hands]
        # the other seats hold exactly the unseen cards
        others = sorted(c for s in range(4) if s != seat for c in rebuilt.hands[s])
        assert others == sorted(c for s in range(4) if s != seat for c in state.hands[s])
        assert legal_moves_of(view) == state.legal_moves()


def test_moves_convert_both_ways():
    state = CavalloiceraState.new(5)
    for move in state.legal_moves():
        assert move_from_dict(move_to_dict(move)) == move


def _view(turn=10, seed=3):
    state = random_position(random.Random(seed), turn=turn)
    return state, make_view(state, state.current)


@pytest.mark.parametrize("mutate,message", [
    (lambda v: v.__setitem__("seat", 7), "'seat' must be an int in 0..3"),
    (lambda v: v.__setitem__("seat", True), "'seat' must be an int"),
    (lambda v: v.__setitem__("dealer", "x"), "'dealer' must be an int"),
    (lambda v: v.pop("history"), "the view has no 'history'"),
    (lambda v: v.__setitem__("hand", "7-coins"), "'hand' must be a list"),
    (lambda v: v.__setitem__("table", [1, 2]), "'table': unknown card"),
    (lambda v: v["hand"].__setitem__(0, "11-coins"), "'hand': unknown card '11-coins'"),
    (lambda v: v["hand"].__setitem__(1, v["hand"][0]), "appears twice"),
    (lambda v: v.__setitem__("history", {}), "'history' must be a list"),
    (lambda v: v["history"].__setitem__(0, "7-coins"), "history move 1 must be an object"),
    (lambda v: v["history"][0].__setitem__("play", "Z-cups"), "history move 1: 'play': unknown card"),
    (lambda v: v["history"][0].__setitem__("capture", "none"), "history move 1"),
    (lambda v: v.__setitem__("hand_sizes", [12, 12, 12, 12]), "hand_sizes"),
    (lambda v: v["hand"].pop(), "the hand has"),
    (lambda v: v.__setitem__("piles", [[], []]), "pile of team"),
    (lambda v: v.__setitem__("piles", "none"), "'piles' must be a list"),
])
def test_malformed_views_raise_clear_errors(mutate, message):
    _, view = _view()
    bad = copy.deepcopy(view)
    mutate(bad)
    with pytest.raises(ViewError, match=message.replace("(", r"\(").replace(")", r"\)")):
        state_from_view(bad)


def test_view_must_be_an_object():
    with pytest.raises(ViewError, match="must be a JSON object"):
        state_from_view(["seat", 0])


def test_wrong_seat_is_reported():
    state, view = _view()
    bad = dict(view, seat=(view["seat"] + 1) % 4)
    with pytest.raises(ViewError, match=f"it is seat {view['seat']}'s turn"):
        state_from_view(bad)


def test_hand_contradicting_history_is_reported():
    state, view = _view(turn=12)
    played = view["history"][0]["play"]
    bad = copy.deepcopy(view)
    bad["hand"][0] = played
    with pytest.raises(ViewError, match=f"the hand holds {played}, which the history says was already played"):
        state_from_view(bad)


def test_hand_card_on_table_is_reported():
    state, view = _view(turn=0)
    bad = copy.deepcopy(view)
    bad["hand"][0] = bad["table"][0]
    with pytest.raises(ViewError, match=f"{bad['table'][0]} is both in the hand and on the table"):
        state_from_view(bad)


def test_illegal_history_is_reported():
    state = CavalloiceraState.new(11)
    view = make_view(state, state.current)
    # the first player "captures" a card of another rank
    card = state.hands[state.current][0]
    target = next(t for t in state.table if NAMES[t].split("-")[0] != NAMES[card].split("-")[0])
    state2 = state.copy()
    state2.play(card, ())
    v2 = make_view(state2, state2.current)
    v2["history"][0]["capture"] = [NAMES[target]]
    v2["table"] = sorted(set(v2["table"]) - {NAMES[target], NAMES[card]}, key=lambda n: NAMES.index(n))
    v2["piles"][state.current % 2] = [NAMES[card], NAMES[target]]
    with pytest.raises(ViewError, match="history move 1 .* is illegal"):
        state_from_view(v2)
    assert view["legal_moves"]


def test_finished_deal_is_refused():
    rng = random.Random(4)
    state = random_position(rng, turn=NUM_TURNS)
    view = make_view(state, 0)
    with pytest.raises(ViewError, match="the deal is over"):
        state_from_view(view)
