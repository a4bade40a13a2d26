"""The compiled core's Scopa against the Python engine, bit for bit (docs/core.md, "Proven identical").

Thousands of random deals of each deck, single deals and matches to 11, are
played through both at once, action by action (the env's ``Discrete(120)``
ids, capture building included): at every step the legal mask, the seat to
act, the whole transition (hands, table, piles, scopas, moves with their
captures, the capture being built, leftovers and who took them, the totals,
the completed deals and the last deal's result with its breakdown), the
rewards and the final result must be equal; between turns every hand card's
capture sets are compared too; every record in tests/vectors-scopa/ is
replayed by the core with the same results.  The module skips, saying how to
build the core, only when the extension is not built (and fails instead with
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

from cavallo_env.core import _scopa  # noqa: E402
from cavallo_env.core.scopa import NUM_ACTIONS, ScopaTables, deal_ids, seeded_deals_agree  # noqa: E402
from cavallo_env.scopa.actions import ScopaActions, move_to_actions  # noqa: E402
from cavallo_env.scopa.cards import DECKS, IDS, NUM_CARDS  # noqa: E402
from cavallo_env.scopa.encoding import Features, encode_observation, state_vector  # noqa: E402
from cavallo_env.scopa.engine import (  # noqa: E402
    MONEY_SUIT, ScopaDeal, ScopaState, parse_deal, primiera_value, random_state,
)

VECTORS = sorted((pathlib.Path(__file__).parent / "vectors-scopa").glob("*.json"))
CHUNK = 1000  # tables at once
MAX_STEPS = 100000


def _python_view(acts: ScopaActions) -> dict:
    """The engine's state in the core's snapshot form."""
    state = acts.state
    deal = state.deal
    h0, h1 = deal.initial_hands
    b = acts.building
    return {
        "initial": [*h0, *h1, *deal.initial_table, *deal.initial_stock], "dealer": deal.dealer,
        "hands": [sorted(deal.hands[0]), sorted(deal.hands[1])], "table": sorted(deal.table),
        "stock_pos": deal.stock_pos, "piles": [sorted(p) for p in deal.piles], "scope": deal.scope[:],
        "turn": deal.turn, "last_capturer": deal.last_capturer,
        "moves": [(s, c, tuple(cap)) for s, c, cap in deal.moves], "deal_done": deal.done,
        "leftovers": sorted(deal.leftovers), "leftovers_to": deal.leftovers_to,
        "building": None if b is None else (b[0], tuple(b[1])),
        "match": state.match, "deck": DECKS.index(state.deck), "money": state.money, "current": acts.current,
        "done": acts.done, "winner": state.winner, "base": list(state.base), "totals": state.totals[:],
        "deals": len(state.results), "last_result": state.results[-1] if state.results else None,
    }


def _expected_rewards(acts: ScopaActions, moved, reward: str) -> list[float]:
    """The env's rewards for the action just applied (cavallo_env/scopa/aec.py, ``_act``)."""
    pts = acts.last_points
    if moved is None or pts is None:
        return [0.0, 0.0]
    if reward == "points":
        d = pts[0] - pts[1]
        return [float(d), float(-d)]
    if acts.state.done:
        return acts.state.returns("win")
    return [0.0, 0.0]


def _features(games: list) -> list:
    out = [Features() for _ in games]
    for f, acts in zip(out, games):
        f.reset(acts.state, acts.building)
    return out


def _check(tables: ScopaTables, games: list, where: str, captures: bool = False, ignore=(), features=None,
           scratch: bool = False) -> None:
    """Everything the core shows equals the engine's; the observations of both seats against the env's
    ``Features`` (``features``) and, with ``scratch``, ``encode_observation``."""
    n = len(games)
    for seat in (0, 1):
        got = tables.observe(np.full(n, seat, np.int8))
        if features is not None:
            want = np.stack([f.obs[seat] for f in features])
            assert got.tobytes() == want.tobytes(), f"{where}: observations of seat {seat} (Features)"
        if scratch:
            want = np.stack([encode_observation(a.state, seat, a.building) for a in games])
            assert got.tobytes() == want.tobytes(), f"{where}: observations of seat {seat} (from scratch)"
    if scratch:  # the env's state(): state_vector(state, building)
        want = np.stack([state_vector(a.state, a.building) for a in games])
        assert tables.state().tobytes() == want.tobytes(), f"{where}: state vectors"
    for i, acts in enumerate(games):
        got, expected = tables.snapshot(i), _python_view(acts)
        for key in ignore:
            got.pop(key), expected.pop(key)
        assert got == expected, f"{where}, table {i}"
        if captures and acts.building is None and not acts.done:
            deal = acts.state.deal
            caps = deal.captures()
            for c in deal.hands[deal.current]:
                assert tables.captures(i, c) == list(caps.get(c, [])), f"{where}, table {i}: captures of {c}"
    masks = np.frombuffer(b"".join(a.legal_mask() for a in games), np.uint8).reshape(n, NUM_ACTIONS)
    np.testing.assert_array_equal(tables.mask, masks, err_msg=f"{where}: legal masks")
    np.testing.assert_array_equal(tables.current, [a.current for a in games], err_msg=f"{where}: seat to act")
    np.testing.assert_array_equal(tables.done, [a.done for a in games], err_msg=f"{where}: done")


def _step_both(tables, games, actions, reward: str, where: str, after_deal=None, features=None) -> None:
    rewards, _ = tables.step(actions)
    for i, (acts, a) in enumerate(zip(games, actions.tolist())):
        if a < 0:
            continue
        deals_before = len(acts.state.results)
        moved = acts.step(a)
        if features is not None:
            features[i].after_action(acts, moved)
        assert rewards[i].tolist() == _expected_rewards(acts, moved, reward), f"{where}, table {i}: rewards"
        if after_deal and len(acts.state.results) > deals_before and not acts.done:
            if after_deal(i, acts) and features is not None:
                features[i].reset(acts.state)


def _play_out(tables, games, reward: str, python_moves: bool, after_deal=None) -> int:
    """Both play the core's random actions to the end, compared after every step; with
    ``python_moves`` each action must be random_playout(state, state.rng)'s.  Returns the deals played."""
    plans = [[] for _ in games]
    features = _features(games)
    _check(tables, games, "after the deal", captures=True, features=features, scratch=True)
    step = 0
    while not tables.done.all():
        actions = tables.random_actions().copy()
        if python_moves:
            for i, acts in enumerate(games):
                if acts.done:
                    assert actions[i] == -1
                    continue
                if not plans[i]:
                    assert acts.building is None
                    state = acts.state
                    plans[i] = move_to_actions(state, state.rng.choice(state.legal_moves()))
                assert actions[i] == plans[i].pop(0), f"step {step}, table {i}: random action"
        _step_both(tables, games, actions, reward, f"step {step}", after_deal, features)
        _check(tables, games, f"after step {step}", captures=step % 7 == 0, features=features,
               scratch=step % 5 == 0)
        step += 1
        assert step < MAX_STEPS
    assert (tables.random_actions() == -1).all()
    return sum(len(a.state.results) for a in games)


OPTIONS = [("milanesi", False, "win"), ("bresciane", False, "points"),
           ("milanesi", True, "points"), ("bresciane", True, "win")]


@pytest.mark.parametrize("deck,match,reward", OPTIONS)
def test_random_play_identical_to_the_engine(deck, match, reward):
    """Seeded single deals / matches (random_state) played by random_playout(state, state.rng)'s moves,
    at least DEALS deals, compared at every action."""
    salt = 2 * DECKS.index(deck) + match
    seeds = iter(_seeds(10 * DEALS, salt))
    deals = 0
    while deals < DEALS:
        batch = [next(seeds) for _ in range(min(CHUNK, (DEALS - deals) // (4 if match else 1) + 1))]
        tables = ScopaTables(len(batch), match=match, reward=reward)
        tables.reset(batch, deck)
        games = [ScopaActions(random_state(s, deck, match)) for s in batch]
        deals += _play_out(tables, games, reward, python_moves=True)
    assert deals >= DEALS


@pytest.mark.parametrize("deck,match,reward", OPTIONS)
def test_fast_rng_identical_to_the_engine(deck, match, reward):
    """The fast generator's deals (the later deals of a match handed to the engine) and random actions."""
    salt = 20 + 2 * DECKS.index(deck) + match
    seeds = iter(_seeds(10 * DEALS, salt))
    deals = 0
    while deals < DEALS // 2:
        batch = [next(seeds) for _ in range(min(CHUNK, (DEALS // 2 - deals) // (4 if match else 1) + 1))]
        tables = ScopaTables(len(batch), match=match, reward=reward, rng="fast")
        tables.reset(batch, deck)
        games = [ScopaActions(_engine_state(tables.snapshot(i), deck, match)) for i in range(len(batch))]

        def after_deal(i, acts, tables=tables):  # the core drew the next deal: the engine takes it
            snap = tables.snapshot(i)
            acts.state.start_deal(_deal_of(snap))
            acts.current = acts.state.current
            return True  # the features start again from it

        deals += _play_out(tables, games, reward, python_moves=False, after_deal=after_deal)


def _deal_of(snap: dict) -> ScopaDeal:
    ids = snap["initial"]
    return ScopaDeal(snap["dealer"], [ids[0:3], ids[3:6]], ids[6:10], ids[10:], money=snap["money"])


def _engine_state(snap: dict, deck: str, match: bool) -> ScopaState:
    return ScopaState(_deal_of(snap), deck, match, random.Random(0))


def test_numpy_dealt_and_numpy_chosen_identical():
    """reset_deals from numpy-dealt decks (the env's dealer), actions chosen from the mask by numpy."""
    n = 400
    gen = np.random.default_rng(5)
    ids = []
    while len(ids) < n:
        order = gen.permutation(NUM_CARDS)
        if (order[6:10] % 10 == 9).sum() < 3:
            ids.append(order)
    ids = np.stack(ids).astype(np.int8)
    dealers = gen.integers(2, size=n).astype(np.int8)
    decks = [DECKS[i % 2] for i in range(n)]
    tables = ScopaTables(n, match=False, reward="points")
    tables.reset_deals(ids, dealers, decks=decks)
    games = [ScopaActions(ScopaState(ScopaDeal(int(d), [r[0:3], r[3:6]], r[6:10], r[10:], money=MONEY_SUIT[k]),
                                     k, False, random.Random(0)))
             for r, d, k in zip(ids.tolist(), dealers.tolist(), decks)]
    features = _features(games)
    _check(tables, games, "after the deal", captures=True, features=features, scratch=True)
    step = 0
    while not tables.done.all():
        scores = gen.random((n, NUM_ACTIONS)) * tables.mask
        actions = np.where(tables.done, -1, scores.argmax(axis=1)).astype(np.int32)
        _step_both(tables, games, actions, "points", f"step {step}", features=features)
        _check(tables, games, f"after step {step}", captures=True, features=features, scratch=True)
        step += 1


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vectors_replayed_by_the_core(path):
    """Every record's deals started in the core (later deals of a match with the totals carried in), every
    move played through its actions; the deals' results, the totals, the winner and the rewards as stated."""
    v = json.loads(path.read_text())
    deck, match = v["deck"], v["match"]
    ids_of = IDS[deck]
    tables = ScopaTables(1, match=match, reward="points")
    state = None
    for k, d in enumerate(v["deals"]):
        dealer, hands, table, stock = parse_deal(d, deck)
        deal = ScopaDeal(dealer, hands, table, stock, money=MONEY_SUIT[deck])
        if state is None:
            state = ScopaState(deal, deck, match, random.Random(0))
        else:
            state.start_deal(deal)
        acts = ScopaActions(state)
        ids, _ = deal_ids(deal)
        tables.reset_deals(ids[None], [dealer], [0], deck, bases=np.array([state.totals], np.int16))
        # the core starts each deal afresh with the totals carried in (bases): its own deal count is 0
        ignore = ("base", "deals", "last_result") if k else ()
        _check(tables, [acts], f"deal {k + 1}", captures=True, ignore=ignore, scratch=True)
        for j, mv in enumerate(d["moves"]):
            move = (ids_of[mv["play"]], tuple(sorted(ids_of[n] for n in mv["capture"])))
            assert tables.current[0] == mv["seat"] == acts.current, f"deal {k + 1}, move {j + 1}: seat"
            for a in move_to_actions(state, move):
                _step_both(tables, [acts], np.array([a], np.int32), "points", f"deal {k + 1}, move {j + 1}")
                if not (deal.done and not state.done):  # a finished deal of a match goes on in the core
                    _check(tables, [acts], f"deal {k + 1}, move {j + 1}", captures=True,
                           ignore=ignore if not deal.done else ("base", "deals"), scratch=not deal.done or not k)
        if "result" in d:
            snap = tables.snapshot(0)
            assert snap["last_result"] == d["result"] == state.results[-1]
            assert snap["totals"] == state.totals
            p = d["result"]["points"]
            assert tables.rewards[0].tolist() == [float(p[0] - p[1]), float(p[1] - p[0])]
    if "result" in v:
        snap = tables.snapshot(0)
        assert {"totals": snap["totals"], "winner": snap["winner"]} == v["result"]
        assert snap["done"] and tables.done[0]


def test_vectors_present():
    assert len(VECTORS) == 17


def test_seeded_deals_agree_with_this_python():
    assert seeded_deals_agree()
    seeds = [0, 1, -1, 2**63, 2**64 - 1, 99]
    for match in (True, False):
        tables = ScopaTables(len(seeds), match=match)
        tables.reset(seeds, "bresciane")
        for i, s in enumerate(seeds):
            assert tables.snapshot(i) == _python_view(ScopaActions(random_state(s, "bresciane", match)))


def test_primiera_matches_the_engine():
    rng = random.Random(3)
    for _ in range(3000):
        pile = rng.sample(range(NUM_CARDS), rng.randrange(0, 25))
        assert _scopa.primiera(pile) == primiera_value(pile)


def test_fast_rng_is_reproducible_and_uniform():
    n = 4000
    deals = fast_deals(ScopaTables, n, "initial", "dealer")
    firsts = [f for f, _ in deals]
    counts = np.bincount([f[0] for f in firsts], minlength=NUM_CARDS)  # 100 expected each
    assert counts.min() > 50 and counts.max() < 160, counts
    dealers = sum(d for _, d in deals)
    assert 1800 < dealers < 2200
    assert all(sum(1 for c in f[6:10] if c % 10 == 9) < 3 for f in firsts)


@pytest.mark.parametrize("call,match", [
    (lambda t: t.reset([1, 2], "napoletane"), r"unknown deck 'napoletane'"),
    (lambda t: t.reset_deals(np.zeros((2, 40)), [0, 0]), r"table 0: the deal must use each card id"),
    (lambda t: t.reset_deals(np.tile(np.arange(40), (2, 1)), [0, 2]), r"table 1: the dealer must be"),
    (lambda t: t.reset_deals(np.tile([0, 1, 2, 3, 4, 5, 9, 19, 29, 6] + list(range(7, 9)) +
                                     list(range(10, 19)) + list(range(20, 29)) + list(range(30, 40)), (2, 1)),
                             [0, 0]), r"table 0: the table holds 3 kings"),
    (lambda t: ScopaTables(2, match=1), r"match must be True"),
])
def test_bad_input_is_named(call, match):
    tables = ScopaTables(2)
    with pytest.raises(ValueError, match=match):
        call(tables)


