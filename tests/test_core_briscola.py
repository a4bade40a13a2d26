"""The compiled core's Briscola against the Python engine, bit for bit (docs/core.md, "Proven identical").

Thousands of random deals of each deck are played through both at once: at
every step the legal set, the seat to play, the whole transition (hands in
order, stock, trump holder, trick, piles, points, tricks, moves), the trick
winner, the rewards, the result, both seats' ``briscola-obs/1`` vectors and
the ``briscola-state/1`` vector must be equal; every record in
tests/vectors-briscola/ is replayed by the core with the same results.  The module skips, saying how to build the core,
only when the extension is not built (and fails instead with
``CAVALLO_REQUIRE_CORE=1``).
"""

from __future__ import annotations

import json
import pathlib
import random

import numpy as np
import pytest

from core_harness import DEALS, fast_deals, require_core, seeds as _seeds

require_core()

from cavallo_env.briscola.cards import DECKS, NAMES, NUM_CARDS  # noqa: E402
from cavallo_env.briscola.encoding import (  # noqa: E402
    Features, encode_observation, encode_state,
)
from cavallo_env.briscola.engine import BriscolaState, parse_deal, random_deal, trick_winner  # noqa: E402
from cavallo_env.core import _briscola  # noqa: E402
from cavallo_env.core.briscola import BriscolaTables, deal_ids, seeded_deals_agree  # noqa: E402

VECTORS = sorted((pathlib.Path(__file__).parent / "vectors-briscola").glob("*.json"))
CHUNK = 2000  # tables at once (memory stays small for big runs)


def _python_view(state: BriscolaState) -> dict:
    """The engine's state in the core's snapshot form."""
    return {
        "hands": [state.hands[0][:], state.hands[1][:]], "stock": state.stock, "trump": state.trump,
        "trump_suit": state.trump_suit, "trump_holder": state.trump_holder, "leader": state.leader,
        "current": state.current, "trick": state.trick, "piles": [sorted(p) for p in state.piles],
        "points": state.points[:], "tricks": state.tricks[:], "moves": state.moves[:], "done": state.done,
        "deck": DECKS.index(state.deck),
    }


def _core_view(tables: BriscolaTables, i: int) -> dict:
    snap = tables.snapshot(i)
    snap.pop("last_winner")
    return snap


def _observations(features: list[Features], seat: int) -> np.ndarray:
    return np.stack([f.observation(seat) for f in features])


def _check_tables(tables, states, features, where: str) -> None:
    """Everything the core shows equals the engine's, at every table."""
    n = len(states)
    for i in range(n):
        assert _core_view(tables, i) == _python_view(states[i]), f"{where}, table {i}"
    masks = np.frombuffer(b"".join(s.legal_mask() for s in states), np.uint8).reshape(n, NUM_CARDS)
    np.testing.assert_array_equal(tables.mask, masks, err_msg=f"{where}: legal masks")
    np.testing.assert_array_equal(tables.current, [s.current for s in states], err_msg=f"{where}: seat to play")
    np.testing.assert_array_equal(tables.done, [s.done for s in states], err_msg=f"{where}: done")
    for seat in (0, 1):
        got = tables.observe(np.full(n, seat, np.int8))
        assert got.tobytes() == _observations(features, seat).tobytes(), f"{where}: observations of seat {seat}"
    assert tables.state().tobytes() == np.stack([f.s for f in features]).tobytes(), f"{where}: state vectors"


def _step_both(tables, states, features, actions, reward: str, where: str) -> None:
    """One step at every table through both; the trick winner and the rewards compared on the way."""
    tricks_before = [s.trick for s in states]
    rewards, _ = tables.step(actions)
    for i, (state, f, a) in enumerate(zip(states, features, actions.tolist())):
        if a < 0:
            continue
        state.play(a)
        f.after_move(state)
        winner = tables.snapshot(i)["last_winner"]
        if tricks_before[i]:  # the card completed a trick
            lead, leader = tricks_before[i][0], 1 - state.moves[-1][0]
            assert winner == state.leader == trick_winner(lead, a, state.trump_suit, leader), f"{where}, table {i}"
        else:
            assert winner is None, f"{where}, table {i}"
        expected = state.returns(reward) if state.done else [0.0, 0.0]
        assert rewards[i].tolist() == expected, f"{where}, table {i}: rewards"


def _engine_states(tables: BriscolaTables, deck: str) -> list[BriscolaState]:
    """The engine's states for the deals the tables hold (read from the core)."""
    out = []
    for i in range(tables.n):
        snap = tables.snapshot(i)
        assert snap["moves"] == []
        out.append(BriscolaState(snap["hands"], snap["trump"], snap["stock"], snap["leader"], deck))
    return out


def _play_out(tables, states, reward: str, rngs=None) -> None:
    """Both play the core's random cards to the end, compared after every step; with ``rngs``
    (the deals' random.Random), each card must be random_playout's."""
    features = [Features() for _ in states]
    for f, s in zip(features, states):
        f.reset(s)
    _check_tables(tables, states, features, "after the deal")
    for turn in range(40):
        actions = tables.random_actions().copy()
        for i, state in enumerate(states if rngs else ()):  # random_playout's choice, from the same rng
            hand = state.hands[state.current]
            assert actions[i] == hand[int(rngs[i].random() * len(hand))], f"turn {turn}, table {i}: random move"
        _step_both(tables, states, features, actions, reward, f"turn {turn}")
        _check_tables(tables, states, features, f"after turn {turn}")
    assert tables.done.all() and (tables.random_actions() == -1).all()


@pytest.mark.parametrize("deck,reward", [("milanesi", "points"), ("bresciane", "win")])
def test_random_deals_identical_to_the_engine(deck, reward):
    """DEALS seeded deals (dealt as random_deal) played by random_playout's moves, compared at every step."""
    all_seeds = _seeds(DEALS, salt=DECKS.index(deck))
    winners = []
    for start in range(0, DEALS, CHUNK):
        seeds = all_seeds[start:start + CHUNK]
        tables = BriscolaTables(len(seeds), reward=reward)
        tables.reset(seeds, deck)
        rngs = [random.Random(s) for s in seeds]
        states = [random_deal(rng, deck) for rng in rngs]
        _play_out(tables, states, reward, rngs)
        assert [tables.snapshot(i)["points"] for i in range(len(seeds))] == [s.points for s in states]
        winners += [s.result()["winner"] for s in states]
    assert len(winners) == DEALS and winners.count(None) < DEALS  # some deals are won (a sanity check)


@pytest.mark.parametrize("deck,reward", [("milanesi", "win"), ("bresciane", "points")])
def test_fast_rng_deals_identical_to_the_engine(deck, reward):
    """The fast generator's deals and random cards, played through both, compared at every step."""
    all_seeds = _seeds(DEALS // 2, salt=10 + DECKS.index(deck))
    for start in range(0, len(all_seeds), CHUNK):
        seeds = all_seeds[start:start + CHUNK]
        tables = BriscolaTables(len(seeds), reward=reward, rng="fast")
        tables.reset(seeds, deck)
        _play_out(tables, _engine_states(tables, deck), reward)


def test_fast_rng_is_reproducible_and_uniform():
    deals = fast_deals(BriscolaTables, 20000, "trump", "leader")
    stocks = fast_deals(BriscolaTables, 200, "stock")
    trumps = np.bincount([t for t, _ in deals], minlength=NUM_CARDS)  # 500 expected each
    assert trumps.min() > 380 and trumps.max() < 620, trumps
    leaders = sum(ld for _, ld in deals)
    assert 9600 < leaders < 10400
    assert len(set(stocks)) == 200


def test_deals_from_ids_and_numpy_choice_identical():
    """reset_deals from numpy-dealt decks (the env's dealer), actions chosen from the mask by numpy."""
    n = 500
    gen = np.random.default_rng(7)
    ids = np.stack([gen.permutation(NUM_CARDS) for _ in range(n)]).astype(np.int8)
    leaders = gen.integers(2, size=n).astype(np.int8)
    decks = [DECKS[i % 2] for i in range(n)]
    tables = BriscolaTables(n)
    tables.reset_deals(ids, leaders, decks)
    states = [BriscolaState((r[0:3], r[3:6]), r[6], r[7:], int(ld), d)
              for r, ld, d in zip(ids.tolist(), leaders.tolist(), decks)]
    features = [Features() for _ in states]
    for f, s in zip(features, states):
        f.reset(s)
    for turn in range(40):
        scores = gen.random((n, NUM_CARDS)) * tables.mask
        actions = scores.argmax(axis=1).astype(np.int32)
        _step_both(tables, states, features, actions, "points", f"turn {turn}")
        _check_tables(tables, states, features, f"after turn {turn}")
    for i, s in enumerate(states[:50]):  # the encoders from scratch agree too
        for seat in (0, 1):
            assert encode_observation(s, seat).tobytes() == tables.observe(np.full(n, seat, np.int8))[i].tobytes()
        assert encode_state(s).tobytes() == tables.state()[i].tobytes()


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vectors_replayed_by_the_core(path):
    v = json.loads(path.read_text())
    state = BriscolaState(*parse_deal(v, v["deck"], extra_keys_ok=True), deck=v["deck"])
    ids, leader = deal_ids(state)
    tables = BriscolaTables(1, reward="points")
    tables.reset_deals(ids[None], [leader], v["deck"])
    features = [Features()]
    features[0].reset(state)
    names = {name: c for c, name in enumerate(NAMES[v["deck"]])}
    for k, mv in enumerate(v["moves"]):
        assert tables.current[0] == mv["seat"], f"move {k + 1}: seat"
        _step_both(tables, [state], features, np.array([names[mv["play"]]], np.int32), "points", f"move {k + 1}")
        _check_tables(tables, [state], features, f"after move {k + 1}")
    snap = tables.snapshot(0)
    p0, p1 = snap["points"]
    winner = None if p0 == p1 else int(p1 > p0)
    assert {"points": snap["points"], "tricks": snap["tricks"], "winner": winner} == v["result"]
    assert tables.rewards[0].tolist() == [float(p0 - p1), float(p1 - p0)]


def test_vectors_present():
    assert len(VECTORS) == 10


def test_seeded_deals_agree_with_this_python():
    assert seeded_deals_agree()
    seeds = [0, 1, -1, 2**63, 2**64 - 1, 99]
    tables = BriscolaTables(len(seeds))
    tables.reset(seeds, "bresciane")
    for i, s in enumerate(seeds):
        state = random_deal(s, "bresciane")
        assert _core_view(tables, i) == _python_view(state)


def test_trick_winner_every_pair():
    for trump_suit in range(4):
        for lead in range(NUM_CARDS):
            for card in range(NUM_CARDS):
                if card != lead:
                    for leader in (0, 1):
                        assert _briscola.trick_winner(lead, card, trump_suit, leader) == \
                            trick_winner(lead, card, trump_suit, leader)


@pytest.mark.parametrize("call,match", [
    (lambda t: t.reset([1, 2], "napoletane"), r"unknown deck 'napoletane'"),
    (lambda t: t.reset_deals(np.zeros((2, 40)), [0, 0]), r"table 0: the deal must use each card id"),
    (lambda t: t.reset_deals(np.tile(np.arange(40), (2, 1)), [0, 2]), r"table 1: the leader must be"),
])
def test_bad_input_is_named(call, match):
    tables = BriscolaTables(2)
    with pytest.raises(ValueError, match=match):
        call(tables)


