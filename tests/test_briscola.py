"""Briscola: rules, vectors, records, views, encoder and the AEC env (docs/contract.md, "Briscola")."""

from __future__ import annotations

import copy
import json
import pathlib
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import cavallo_env.briscola as briscola
from cavallo_env.briscola import GAME
from cavallo_env.briscola.cards import (
    DECKS, IDS, NAMES, NUM_CARDS, POINTS, RANK, RANKS, STRENGTH, SUIT, SUITS, card_id, card_name,
)
from cavallo_env.briscola.encoding import (
    OBS_LAYOUT, OBS_SIZE, OBS_VERSION, STATE_LAYOUT, STATE_SIZE, STATE_VERSION, Features, encode_observation,
)
from cavallo_env.briscola.engine import BriscolaState, deal_to_dict, parse_deal, random_deal, random_playout
from cavallo_env.briscola.records import FORMAT, replay, to_record
from cavallo_env.briscola.views import make_view, state_from_view
from cavallo_env.records import RecordError
from cavallo_env.errors import ViewError

VECTORS = sorted((pathlib.Path(__file__).parent / "vectors-briscola").glob("*.json"))


@pytest.fixture(autouse=True)
def _quiet():
    # api_test warns about dict observations and passes an unknown reset option on purpose
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def played_out(seed, deck="milanesi", upto=None) -> BriscolaState:
    """A random deal played at random for ``upto`` cards (to the end without)."""
    rng = random.Random(seed)
    state = random_deal(seed, deck)
    while not state.done and (upto is None or len(state.moves) < upto):
        state.play(rng.choice(state.legal_moves()))
    return state


# ---------------------------------------------------------------- cards


def test_decks_and_ids():
    assert NAMES["milanesi"][0] == "A-hearts" and NAMES["milanesi"][17] == "J-diamonds"
    assert NAMES["milanesi"][39] == "K-spades" and NAMES["bresciane"][38] == "C-clubs"
    assert NAMES["bresciane"][7] == "F-coins" and NAMES["bresciane"][29] == "R-swords"
    for deck in DECKS:
        assert len(set(NAMES[deck])) == NUM_CARDS
        for c in range(NUM_CARDS):
            assert NAMES[deck][c] == f"{RANKS[deck][RANK[c]]}-{SUITS[deck][SUIT[c]]}"
            assert card_id(card_name(c, deck), deck) == c == IDS[deck][NAMES[deck][c]]
    assert sum(POINTS) == 120
    # A > 3 > K > Q > J > 7 > 6 > 5 > 4 > 2 ; points A 11, 3 10, K 4, Q 3, J 2
    order = [0, 2, 9, 8, 7, 6, 5, 4, 3, 1]
    assert [STRENGTH[r] for r in order] == sorted(STRENGTH[:10], reverse=True)
    assert [POINTS[r] for r in range(10)] == [11, 0, 10, 0, 0, 0, 0, 2, 3, 4]


def test_card_id_errors_name_value_and_deck():
    with pytest.raises(ValueError, match=r"'C-swords' is a card of the bresciane deck, not of the milanesi"):
        card_id("C-swords", "milanesi")
    with pytest.raises(ValueError, match=r"'Q-hearts' is a card of the milanesi deck, not of the bresciane"):
        card_id("Q-hearts", "bresciane")
    with pytest.raises(ValueError, match=r"unknown card '8-hearts' in the milanesi deck"):
        card_id("8-hearts", "milanesi")
    with pytest.raises(ValueError, match="unknown deck 'napoletane'"):
        card_id("A-coins", "napoletane")
    with pytest.raises(ValueError, match="must be a name"):
        card_id(7, "milanesi")
    with pytest.raises(ValueError):
        card_name(40, "milanesi")


# ---------------------------------------------------------------- rules


def test_trick_resolution_rules():
    ids = IDS["milanesi"]
    # trump hearts
    st_ = BriscolaState([[ids["2-hearts"], ids["A-clubs"], ids["3-spades"]],
                         [ids["A-spades"], ids["K-spades"], ids["5-clubs"]]],
                        ids["7-hearts"], [c for c in range(40) if c not in
                                          {ids[n] for n in ("2-hearts", "A-clubs", "3-spades", "A-spades",
                                                            "K-spades", "5-clubs", "7-hearts")}], 1)
    st_.play(ids["A-spades"])  # seat 1 leads A-spades
    st_.play(ids["2-hearts"])  # the lowest trump beats it
    assert st_.tricks == [1, 0] and st_.points == [11, 0] and st_.leader == 0 and st_.current == 0
    st_.play(ids["A-clubs"])  # seat 0 leads A-clubs; seat 1's 5-clubs is lower
    st_.play(ids["5-clubs"])
    assert st_.tricks == [2, 0] and st_.points == [22, 0]
    st_.play(ids["3-spades"])  # 3 beats K of its suit (strength, not points)
    st_.play(ids["K-spades"])
    assert st_.tricks == [3, 0] and st_.points == [36, 0]


def test_offsuit_never_wins_and_winner_draws_first():
    ids = IDS["milanesi"]
    state = random_deal(7)
    # rebuild a known deal: seat 0 leads 2-clubs, seat 1 answers A-spades (off suit, no trump) -> seat 0
    d = deal_to_dict(state)
    names = [n for n in NAMES["milanesi"] if n not in ("2-clubs", "A-spades", "7-hearts")]
    deal = {"hands": [["2-clubs"] + names[0:2], ["A-spades"] + names[2:4]], "trump": "7-hearts",
            "stock": names[4:37], "leader": 0}
    assert len(deal["stock"]) == 33 and d  # sanity
    s = BriscolaState.from_deal(deal)
    s.play(ids["2-clubs"])
    s.play(ids["A-spades"])
    assert s.points == [11, 0] and s.current == 0
    # the winner (seat 0) drew the top of the stock, seat 1 the next
    assert s.hands[0][-1] == ids[names[4]] and s.hands[1][-1] == ids[names[5]]
    assert len(s.stock) == 31


def test_trump_card_drawn_last_by_the_loser_of_trick_17():
    for seed in range(30):
        s = random_deal(seed)
        rng = random.Random(seed)
        while len(s.moves) < 34:
            s.play(rng.choice(s.legal_moves()))
            if len(s.moves) < 34:
                assert s.trump_holder is None and s.trump not in s.hands[0] + s.hands[1]
        loser = 1 - s.leader
        assert s.stock == () and s.trump_holder == loser and s.hands[loser][-1] == s.trump
        assert len(s.hands[0]) == len(s.hands[1]) == 3


def test_legal_moves_are_the_hand_and_check_move():
    s = random_deal(3)
    rng = random.Random(3)
    while not s.done:
        hand = s.hands[s.current]
        assert s.legal_moves() == sorted(hand)
        mask = s.legal_mask()
        assert len(mask) == 40 and [c for c in range(40) if mask[c]] == sorted(hand)
        other = s.hands[1 - s.current][0] if s.hands[1 - s.current] else None
        if other is not None:
            assert "hand of seat" in s.check_move(other)
        assert s.check_move(hand[0]) is None
        assert s.check_move(40) is not None and s.check_move("x") is not None
        s.play(rng.choice(s.legal_moves()))
    assert s.legal_moves() == [] and s.check_move(0) == "the deal is over"


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), deck=st.sampled_from(DECKS), choices=st.lists(st.integers(0, 2), min_size=40,
                                                                                   max_size=40))
def test_cards_conserved_points_120_tricks_20(seed, deck, choices):
    s = random_deal(seed, deck)
    for i in range(40):
        where = s.hands[0] + s.hands[1] + list(s.stock) + list(s.trick) + s.piles[0] + s.piles[1]
        if s.trump_holder is None:
            where.append(s.trump)
        assert sorted(where) == list(range(40))
        assert len(s.hands[s.current]) >= 1
        assert s.points == [sum(POINTS[c] for c in p) for p in s.piles]
        hand = s.hands[s.current]
        s.play(hand[choices[i] % len(hand)])
    assert s.done and sum(s.points) == 120 and sum(s.tricks) == 20
    assert len(s.piles[0]) + len(s.piles[1]) == 40 and s.hands == [[], []]
    res = s.result()
    assert res["winner"] == (None if s.points[0] == 60 else 0 if s.points[0] > 60 else 1)
    assert s.returns()[0] == -s.returns()[1] == s.points[0] - s.points[1]


def test_copy_is_independent():
    s = played_out(5, upto=11)
    c = s.copy()
    rng = random.Random(0)
    random_playout(c, rng)
    assert c.done and not s.done and len(s.moves) == 11
    assert copy.deepcopy(s).moves == s.moves


def test_random_deal_matches_the_seeded_vectors():
    for path in VECTORS[:4]:
        v = json.loads(path.read_text())
        seed = int(path.stem.rsplit("seed", 1)[1])
        d = deal_to_dict(random_deal(seed, v["deck"]))
        assert d == {k: v[k] for k in ("hands", "trump", "stock", "leader")}


# ---------------------------------------------------------------- vectors and records


def test_vectors_present():
    assert len(VECTORS) == 10


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_replays_exactly(path):
    v = json.loads(path.read_text())
    state = replay(v)
    assert state.done and state.result() == v["result"]
    rec = to_record(state)
    assert rec == v
    assert list(rec) == list(v)  # key order too
    assert json.dumps(rec, indent=1) == json.dumps(v, indent=1)
    assert GAME.replay(v).result() == v["result"] and GAME.to_record(state) == v


def test_vector_draw_has_null_winner():
    v = json.loads(next(p for p in VECTORS if "draw_60_60" in p.stem).read_text())
    assert replay(v).result() == {"points": [60, 60], "tricks": v["result"]["tricks"], "winner": None}


def test_record_of_partial_deal_has_no_result_and_replays():
    s = played_out(11, "bresciane", upto=17)
    rec = to_record(s)
    assert "result" not in rec and len(rec["moves"]) == 17 and rec["deck"] == "bresciane"
    r = replay(rec)
    assert r.moves == s.moves and r.hands == s.hands


def _vector():
    return json.loads(VECTORS[0].read_text())


def _bad(mutate):
    rec = _vector()
    mutate(rec)
    return rec


@pytest.mark.parametrize("mutate, match", [
    (lambda r: r.update(format="briscola-record/2"), "unknown format"),
    (lambda r: r.update(deck="napoletane"), "'deck' must be one of"),
    (lambda r: r.update(deck="bresciane"), "is a card of the milanesi deck"),
    (lambda r: r.pop("trump"), "no 'trump'"),
    (lambda r: r["hands"][0].pop(), "must have 3 cards"),
    (lambda r: r.update(leader=2), "'leader' must be the seat 0 or 1"),
    (lambda r: r.update(leader=True), "'leader' must be the seat 0 or 1"),
    (lambda r: r.update(moves={"seat": 0}), "'moves' must be a list"),
    (lambda r: r["moves"].__setitem__(3, "A-hearts"), "move 4: a move must be an object"),
    (lambda r: r["moves"].__setitem__(3, ["seat", 1]), "move 4: a move must be an object"),
    (lambda r: r["moves"][0].update(seat=10**5000), "move 1: wrong seat order: seat <an int of"),
    (lambda r: r["moves"][0].update(seat=-(10**5000)), "move 1: wrong seat order"),
    (lambda r: r["moves"][0].update(seat=True), "move 1: 'seat' must be an int"),
    (lambda r: r["moves"][0].update(seat=1.0), "move 1: 'seat' must be an int"),
    (lambda r: r["moves"][5].update(seat=1 - r["moves"][5]["seat"]), "move 6, seat .: wrong seat order"),
    (lambda r: r["moves"][0].update(play="Z-hearts"), "move 1, seat 0: unknown card 'Z-hearts'"),
    (lambda r: r["moves"][0].update(play=None), "move 1, seat 0: a card must be a name"),
    (lambda r: r["moves"][0].pop("play"), "move 1, seat 0: the move has no 'play'"),
    (lambda r: r["moves"][0].update(play=r["hands"][1][0]), "move 1, seat 0: illegal move .*hand of seat 1"),
    (lambda r: r["moves"][0].update(play=r["trump"]), "illegal move .*trump card, still under the stock"),
    (lambda r: r["moves"].append({"seat": 0, "play": "A-hearts"}), "41 moves, but a deal has only 40"),
    (lambda r: r["result"].update(points=[74, 46]), "wrong result: points"),
    (lambda r: r["result"].update(tricks=[9.0, 11]), "wrong result: tricks"),
    (lambda r: r["result"].update(winner=True), "wrong result: winner"),
    (lambda r: r["result"].pop("winner"), "wrong result: no 'winner'"),
    (lambda r: r.update(result="1-0"), "'result' must be an object"),
    (lambda r: r["moves"].pop(), "states a result but has only 39 of 40 moves"),
    (lambda r: r.pop("result"), r"the deal is complete \(40 moves\) but has no 'result'"),
])
def test_corrupted_records_raise_record_error(mutate, match):
    with pytest.raises(RecordError, match=match):
        replay(_bad(mutate))


def test_record_error_fields_and_non_dict():
    rec = _bad(lambda r: r["moves"][6].update(seat=1 - r["moves"][6]["seat"]))
    with pytest.raises(RecordError) as e:
        replay(rec, line=12)
    assert e.value.move == 7 and e.value.line == 12 and e.value.seat in (0, 1)
    for junk in (None, [], "x", 5, {"format": FORMAT}):
        with pytest.raises(RecordError):
            replay(junk)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fuzzed_records_only_raise_record_error(data):
    rec = _vector()
    junk = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5),
                     st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(),
                                                                           max_size=2))
    kind = data.draw(st.sampled_from(["top", "move", "movefield", "hand", "stock", "result"]))
    if kind == "top":
        rec[data.draw(st.sampled_from(list(rec)))] = data.draw(junk)
    elif kind == "move":
        rec["moves"][data.draw(st.integers(0, 39))] = data.draw(junk)
    elif kind == "movefield":
        rec["moves"][data.draw(st.integers(0, 39))][data.draw(st.sampled_from(["seat", "play"]))] = data.draw(junk)
    elif kind == "hand":
        rec["hands"][data.draw(st.integers(0, 1))][data.draw(st.integers(0, 2))] = data.draw(junk)
    elif kind == "stock":
        rec["stock"][data.draw(st.integers(0, 32))] = data.draw(junk)
    else:
        rec["result"][data.draw(st.sampled_from(["points", "tricks", "winner"]))] = data.draw(junk)
    try:
        replay(rec)
    except RecordError:
        pass


# ---------------------------------------------------------------- deals


def _deal():
    return deal_to_dict(random_deal(21))


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.pop("stock"), "the deal has no 'stock'"),
    (lambda d: d.update(dealer=0), "unknown key.*'dealer'"),
    (lambda d: d.update(hands=[d["hands"][0]]), "'hands' must be a list of 2 hands"),
    (lambda d: d["hands"][1].append(d["stock"].pop()), "the hand of seat 1 must have 3 cards, got 4"),
    (lambda d: d.update(stock=d["stock"][:-1]), "the stock must have 33 cards, got 32"),
    (lambda d: d["stock"].__setitem__(0, d["hands"][0][0]), "dealt twice.*exactly once.*missing"),
    (lambda d: d.update(trump=d["hands"][1][2]), "dealt twice"),
    (lambda d: d["hands"][0].__setitem__(1, "8-hearts"), "the hand of seat 0: unknown card '8-hearts'"),
    (lambda d: d["stock"].__setitem__(4, "F-coins"), "the stock: 'F-coins' is a card of the bresciane deck"),
    (lambda d: d.update(trump=["A-hearts"]), "'trump' must be one card name"),
    (lambda d: d.update(leader=2), "'leader' must be the seat 0 or 1"),
    (lambda d: d.update(leader="0"), "'leader' must be the seat 0 or 1"),
])
def test_malformed_deals_rejected(mutate, match):
    d = _deal()
    mutate(d)
    with pytest.raises(ValueError, match=match):
        parse_deal(d, "milanesi")
    e = briscola.raw_env()
    with pytest.raises(ValueError, match=match):
        e.reset(options={"deal": d})


def test_deal_not_a_dict():
    with pytest.raises(ValueError, match="a deal must be a dict"):
        parse_deal([1, 2], "milanesi")


# ---------------------------------------------------------------- views


def test_view_fields_and_round_trip():
    s = played_out(4, "bresciane", upto=25)
    v = make_view(s, s.current)
    assert list(v) == ["game", "deck", "seat", "leader", "hand", "trump", "stock_size", "hand_sizes", "trick",
                       "piles", "points", "history", "legal_moves"]
    assert v["game"] == "briscola" and v["deck"] == "bresciane" and v["stock_size"] == 33 - 24
    assert v["trick"] == [NAMES["bresciane"][s.trick[0]]] and v["leader"] == s.leader
    assert [m["play"] for m in v["legal_moves"]] == [NAMES["bresciane"][c] for c in sorted(s.hands[s.current])]
    assert make_view(s, 1 - s.current)["legal_moves"] == []
    json.dumps(v)
    for rng in (None, random.Random(1)):
        r = state_from_view(v, rng)
        assert make_view(r, s.current) == v
        replay(to_record(r))  # the rebuilt deal is a real deal that reaches the view


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), upto=st.integers(0, 40), deck=st.sampled_from(DECKS))
def test_state_from_view_reproduces_every_view(seed, upto, deck):
    s = played_out(seed, deck, upto=upto)
    for seat in (0, 1):
        v = make_view(s, seat)
        for rng in (None, random.Random(seed)):
            r = state_from_view(v, rng)
            assert make_view(r, seat) == v
            assert r.trump_holder == s.trump_holder
            assert (encode_observation(r, seat) == encode_observation(s, seat)).all()


def _view_at(upto=20, seed=8):
    s = played_out(seed, upto=upto)
    return s, make_view(s, s.current)


@pytest.mark.parametrize("mutate, match", [
    (lambda v: v.update(game="scopa"), "not a Briscola view"),
    (lambda v: v.pop("hand"), "no 'hand'"),
    (lambda v: v.update(seat=2), "'seat' must be an int in 0..1"),
    (lambda v: v.update(deck="piacentine"), "'deck' must be one of"),
    (lambda v: v.update(leader=1 - v["leader"]), "'leader' is"),
    (lambda v: v["hand"].pop(), "the hand has 2 cards"),
    (lambda v: v["hand"].__setitem__(0, v["history"][0]["play"]), "was played at history move 1"),
    (lambda v: v["hand"].__setitem__(0, v["hand"][1]), "appears twice"),
    (lambda v: v["hand"].__setitem__(0, "R-coins"), "is a card of the bresciane deck"),
    (lambda v: v["hand"].__setitem__(0, v["trump"]), "trump card"),
    (lambda v: v.update(stock_size=v["stock_size"] + 2), "'stock_size' is"),
    (lambda v: v["hand_sizes"].reverse(), "'hand_sizes'"),
    (lambda v: v.update(trick=[]), "'trick' is"),
    (lambda v: v.update(points=[v["points"][1] + 1, v["points"][0]]), "'points'"),
    (lambda v: v["piles"].reverse(), "pile of seat"),
    (lambda v: v.update(legal_moves=[]), "'legal_moves' must be"),
    (lambda v: v["history"].__setitem__(4, "x"), "history move 5 must be an object"),
    (lambda v: v["history"][4].update(seat=1 - v["history"][4]["seat"]), "history move 5: seat"),
    (lambda v: v["history"][4].update(seat=7 * 10**5000), "history move 5: 'seat' must be 0 or 1"),
    (lambda v: v["history"][2].update(play=v["history"][1]["play"]), "already played"),
    (lambda v: v["history"][2].update(play=v["trump"]), "cannot play the trump card"),
    (lambda v: v.update(history=v["history"] * 3), "has 57 moves|history move"),
    (lambda v: v.update(history={}), "'history' must be a list"),
])
def test_bad_views_rejected(mutate, match):
    _, v = _view_at(upto=19)
    mutate(v)
    with pytest.raises(ViewError, match=match):
        state_from_view(v)


def test_view_of_trump_drawer_must_hold_it():
    s = next(t for t in (played_out(seed, upto=35) for seed in range(50)) if t.trump in t.hands[t.trump_holder])
    holder = s.trump_holder
    v = make_view(s, holder)
    state_from_view(v)
    name = NAMES["milanesi"][s.trump]
    gone = {m["play"] for m in v["history"]}
    other = next(n for n in NAMES["milanesi"] if n not in v["hand"] and n not in gone and n != name)
    v["hand"][v["hand"].index(name)] = other
    v.pop("legal_moves")
    with pytest.raises(ViewError, match="must be in the hand"):
        state_from_view(v)
    w = make_view(s, 1 - holder)  # the other seat cannot hold it
    w["hand"][0] = name
    w.pop("legal_moves")
    with pytest.raises(ViewError, match=f"the hand holds the trump card {name}, but seat {holder} drew it"):
        state_from_view(w)


def test_non_dict_view():
    with pytest.raises(ViewError):
        state_from_view(["seat", 0])


# ---------------------------------------------------------------- observation


def test_layouts():
    assert OBS_VERSION == "briscola-obs/1" and STATE_VERSION == "briscola-state/1"
    assert sum(n for _, n in OBS_LAYOUT.values()) == OBS_SIZE == 376
    assert sum(n for _, n in STATE_LAYOUT.values()) == STATE_SIZE == 578


def _hidden_twin(s: BriscolaState, seat: int, rng) -> BriscolaState:
    """A state that agrees with ``s`` on everything ``seat`` sees, hidden cards dealt anew."""
    t = s.copy()
    t.redeal_hidden(seat, rng)
    return t


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10**9), upto=st.integers(0, 39), deck=st.sampled_from(DECKS))
def test_observation_hides_the_hidden_cards(seed, upto, deck):
    s = played_out(seed, deck, upto=upto)
    rng = random.Random(seed)
    changed = False
    for seat in (0, 1):
        obs = encode_observation(s, seat)
        for _ in range(4):
            t = _hidden_twin(s, seat, rng)
            changed |= t.hands[1 - seat] != s.hands[1 - seat] or t.stock != s.stock
            assert make_view(t, seat) == make_view(s, seat)
            assert (encode_observation(t, seat) == obs).all()
    if len(s.stock) >= 2:
        assert changed  # the twins really differ in the hidden cards


def test_observation_sees_own_hand_and_the_state_sees_both():
    s = played_out(9, upto=6)
    t = _hidden_twin(s, 0, random.Random(3))
    while t.hands[1] == s.hands[1]:
        t = _hidden_twin(s, 0, random.Random())
    assert (encode_observation(t, 1) != encode_observation(s, 1)).any()  # seat 1 sees its own hand
    f, g = Features(), Features()
    f.reset(s)
    g.reset(t)
    assert (f.state() != g.state()).any()


def test_observation_content():
    s = played_out(13, upto=35)
    seat = s.current
    obs = encode_observation(s, seat)
    o = {k: obs[a:a + n] for k, (a, n) in OBS_LAYOUT.items()}
    assert set(np.flatnonzero(o["hand"])) == set(s.hands[seat])
    assert np.flatnonzero(o["trump_card"]).tolist() == [s.trump]
    assert np.flatnonzero(o["trump_suit"]).tolist() == [SUIT[s.trump]]
    holder = s.trump_holder
    known = s.trump if holder == 1 - seat and s.trump in s.hands[holder] else None
    assert np.flatnonzero(o["known_theirs"]).tolist() == ([] if known is None else [known])
    assert o["stock_size"][0] == 0.0 and o["trump_under_stock"][0] == 0.0 and o["my_turn"][0] == 1.0
    assert o["points"].tolist() == pytest.approx([s.points[seat] / 120, s.points[1 - seat] / 120])
    assert set(np.flatnonzero(o["unseen"])) == set(s.hands[1 - seat]) - {s.trump}
    assert obs.dtype == np.float32 and obs.min() >= 0.0 and obs.max() <= 1.0


def test_incremental_features_equal_scratch():
    for seed in range(20):
        s = random_deal(seed, DECKS[seed % 2])
        f = Features()
        f.reset(s)
        rng = random.Random(seed)
        while not s.done:
            s.play(rng.choice(s.legal_moves()))
            f.after_move(s)
            g = Features()
            g.reset(s)
            assert (f.s == g.s).all(), len(s.moves)


# ---------------------------------------------------------------- the AEC env


@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("make", [briscola.raw_env, briscola.env], ids=["raw", "wrapped"])
def test_pettingzoo_api_and_seed_tests(make, deck):
    api_test(make(deck=deck), num_cycles=300)
    seed_test(lambda: make(deck=deck), num_cycles=200)


def test_metadata_and_spaces():
    e = briscola.raw_env()
    assert e.metadata["name"] == "briscola_v1"
    assert e.metadata["observation_version"] == "briscola-obs/1"
    assert e.metadata["state_version"] == "briscola-state/1"
    assert e.possible_agents == ["player_0", "player_1"]
    assert e.action_space("player_0").n == 40
    assert e.observation_space("player_1")["observation"].shape == (OBS_SIZE,)
    with pytest.raises(ValueError, match="deck"):
        briscola.raw_env(deck="piacentine")
    with pytest.raises(ValueError, match="reward"):
        briscola.raw_env(reward="money")


def run_random(e, seed=0):
    rng = np.random.default_rng(seed)
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("reward", ["points", "win"])
def test_rewards_sum_to_zero_and_match_result(reward):
    for seed in range(10):
        e = briscola.raw_env(reward=reward)
        e.reset(seed=seed)
        totals = {a: 0.0 for a in e.possible_agents}
        rng = np.random.default_rng(seed)
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            totals[agent] += rew
            if term or trunc:
                e.step(None)
            else:
                e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        res = e.core.result()
        diff = res["points"][0] - res["points"][1]
        want = diff if reward == "points" else (diff > 0) - (diff < 0)
        assert totals == {"player_0": want, "player_1": -want}
        assert sum(totals.values()) == 0
        replay(e.record())


def test_reset_with_deal_and_record():
    v = json.loads(VECTORS[5].read_text())
    e = briscola.env(deck=v["deck"])
    e.reset(options={"deal": {k: v[k] for k in ("hands", "trump", "stock", "leader")}})
    ids = IDS[v["deck"]]
    for mv in v["moves"]:
        assert e.agent_selection == f"player_{mv['seat']}"
        e.step(ids[mv["play"]])
    assert e.unwrapped.record() == v
    assert e.infos["player_0"]["result"] == v["result"]
    assert all(e.terminations.values())


def test_illegal_action_raw_and_wrapped():
    e = briscola.raw_env()
    e.reset(seed=3)
    core = e.core
    agent = e.agent_selection
    bad = core.hands[1 - core.current][0]
    with pytest.raises(ValueError) as err:
        e.step(bad)
    msg = str(err.value)
    assert f"illegal action {bad}" in msg and agent in msg and "legal actions" in msg
    for c in core.legal_moves():
        assert f"{c} ({NAMES['milanesi'][c]})" in msg
    w = briscola.env()
    w.reset(seed=3)
    agent = w.agent_selection
    w.step(w.unwrapped.core.hands[1 - w.unwrapped.core.current][0])
    assert all(w.terminations.values())
    assert w.rewards[agent] == -1
    obs, rew, term, trunc, info = w.last()
    assert term


def test_observe_obs_and_state():
    e = briscola.raw_env(deck="bresciane")
    e.reset(seed=5)
    a = e.agent_selection
    o = e.observe(a)
    assert o["action_mask"].dtype == np.int8 and o["action_mask"].sum() == 3
    other = "player_1" if a == "player_0" else "player_0"
    assert e.observe(other)["action_mask"].sum() == 0
    assert e.state().shape == (STATE_SIZE,)
    assert o["observation"][OBS_LAYOUT["deck"][0]] == 1.0
    with pytest.raises(KeyError):
        e.observe("player_9")


def test_deepcopy_independent_and_render():
    e = briscola.raw_env(render_mode="ansi")
    e.reset(seed=1)
    e.step(e.legal_actions()[0])
    c = copy.deepcopy(e)
    run_random(c)
    assert len(e.core.moves) == 1 and c.core.done
    assert "Trump:" in e.render() and "Briscola" in c.render()
    assert e.action_name(0) == "A-hearts"


def test_import_is_light():
    code = ("import sys, cavallo_env.briscola as b; b.GAME.new_state(1); "
            "assert 'numpy' not in sys.modules and 'pettingzoo' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- the Game interface


def test_game_interface():
    g = GAME
    assert (g.name, g.title, g.decks, g.record_format) == ("briscola", "Briscola", ("milanesi", "bresciane"),
                                                           "briscola-record/1")
    assert g.env_id == "cavallo/Briscola-v1" and g.env_entry_point == "cavallo_env.briscola:env"
    s = g.new_state(1, deck="bresciane")
    assert s.deck == "bresciane" and deal_to_dict(s) == deal_to_dict(random_deal(1, "bresciane"))
    with pytest.raises(ValueError, match="unknown option"):
        g.new_state(1, dealer=0)
    with pytest.raises(ValueError, match="unknown deck"):
        g.new_state(1, deck="x")
    t = g.state_from_deal(deal_to_dict(s), deck="bresciane")
    assert t.hands == s.hands
    m = s.legal_moves()[0]
    assert g.check_move(s, m) is None and g.check_move(s, s.hands[1 - s.current][0])
    assert g.move_to_dict(m, "bresciane") == {"play": NAMES["bresciane"][m]}
    v = g.make_view(s, s.current)
    assert g.legal_moves_of(v) == s.legal_moves()
    assert g.deck_of(v) == "bresciane" and g.move_to_dict(m, g.deck_of(v)) == {"play": NAMES["bresciane"][m]}
    assert g.move_from_dict({"play": NAMES["bresciane"][m]}, "bresciane") == m
    random_playout(s, random.Random(0))
    out = g.outcome(s)
    assert out["points"] == s.points and out["breakdown"][1] == {"points": s.points[1], "tricks": s.tricks[1]}
    assert g.returns(s) == s.returns() and g.team_of(1) == 1
    assert g.state_from_view(g.make_view(s, 0)).done
    assert "Result" in g.render(s)
    assert g.env().unwrapped.metadata["name"] == "briscola_v1"
