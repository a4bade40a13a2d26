"""The compiled core's Cavalloìcera against the Python engine, bit for bit (docs/core.md, "Proven identical").

Thousands of seeded deals are played through the core and through the
engine driven by the same action ids (``CavalloiceraActions``, the env's
action driver) at once: after the deal and after every action the legal
action mask, the seat to act, the capture being built, the whole state
(hands, table, piles, bonuses, last capturer, picada target, every move,
unclaimed cards), what each completed move scored, the rewards and the
result (team points, breakdown, cards, winner) must be equal; with
``rng="python"`` every random move must be ``random_playout``'s.  Every
record in tests/vectors-cavalloicera/ is replayed by the core with the same
results.  The module skips, saying how to build the core, only when the
extension is not built (and fails instead with ``CAVALLO_REQUIRE_CORE=1``).
"""

from __future__ import annotations

import json
import pathlib
import random

import numpy as np
import pytest

from core_harness import DEALS, fast_deals, require_core, seeds as _seeds

require_core()

from cavallo_env.cavalloicera.actions import NUM_ACTIONS, CavalloiceraActions, move_to_actions  # noqa: E402
from cavallo_env.cavalloicera.cards import NUM_CARDS, card_id  # noqa: E402
from cavallo_env.cavalloicera.encoding import Features, encode_observation  # noqa: E402
from cavallo_env.cavalloicera.engine import (  # noqa: E402
    NUM_TURNS, CavalloiceraState, parse_deal, random_deal,
)
from cavallo_env.core.cavalloicera import CavalloiceraTables, deal_ids, seeded_deals_agree  # noqa: E402
from cavallo_env.games.shuffle import shuffle  # noqa: E402

VECTORS = sorted((pathlib.Path(__file__).parent / "vectors-cavalloicera").glob("*.json"))
CHUNK = 1000  # tables at once
OBS_TABLES = 150  # the tables of each chunk whose four observations are checked at every action (the rest: cost)


def _python_view(acts: CavalloiceraActions) -> dict:
    """The engine's state in the core's snapshot form."""
    s = acts.state
    b = acts.building
    return {
        "dealer": s.dealer, "hands": [h[:] for h in s.hands], "table": s.table[:],
        "piles": [sorted(p) for p in s.piles], "current": s.current, "turn": s.turn,
        "last_capturer": s.last_capturer, "prev_placed": s.prev_placed, "bonuses": [b_[:] for b_ in s.bonuses],
        "moves": [(seat, c, tuple(cap)) for seat, c, cap in s.moves], "unclaimed": sorted(s.unclaimed),
        "done": s.done, "building": None if b is None else (b[0], tuple(b[1])),
    }


def _core_view(tables: CavalloiceraTables, i: int) -> dict:
    snap = tables.snapshot(i)
    snap.pop("scored")
    snap.pop("completed")
    return snap


def _check_tables(tables, games, where: str) -> None:
    """Everything the core shows equals the engine's, at every table."""
    n = len(games)
    for i in range(n):
        assert _core_view(tables, i) == _python_view(games[i]), f"{where}, table {i}"
    masks = np.frombuffer(b"".join(g.legal_mask() for g in games), np.uint8).reshape(n, NUM_ACTIONS)
    np.testing.assert_array_equal(tables.mask, masks, err_msg=f"{where}: legal masks")
    np.testing.assert_array_equal(tables.current, [g.state.current for g in games], err_msg=f"{where}: seat")
    np.testing.assert_array_equal(tables.done, [g.state.done for g in games], err_msg=f"{where}: done")
    _check_observations(tables, games, where)


def _check_observations(tables, games, where: str) -> None:
    """Every seat's cavalloicera-obs/1 of the first OBS_TABLES tables against encode_observation, and
    their cavalloicera-state/1 vectors against the env's Features."""
    k = min(OBS_TABLES, len(games))
    for seat in range(4):
        got = tables.observe(np.full(tables.n, seat, np.int8))[:k]
        expected = np.stack([encode_observation(g.state, seat, g.building) for g in games[:k]])
        assert got.tobytes() == expected.tobytes(), f"{where}: observations of seat {seat}"
    got = tables.observe()[:k]  # the seat to act: the env's Features, building shown
    states = tables.state()[:k]  # cavalloicera-state/1: the env's state(), the capture being built included
    for i, g in enumerate(games[:k]):
        f = Features()
        f.reset(g.state)
        f.set_building(g.building)
        assert got[i].tobytes() == f.observation(g.state.current).tobytes(), f"{where}, table {i}: observation"
        assert states[i].tobytes() == f.state().tobytes(), f"{where}, table {i}: state vector"


def _step_both(tables, games, actions, reward: str, where: str) -> None:
    """One action at every table through both; what a completed move scored and the rewards compared."""
    before = [[b[:] for b in g.state.bonuses] for g in games]
    rewards, _ = tables.step(actions)
    for i, (g, a) in enumerate(zip(games, actions.tolist())):
        if a < 0:
            continue
        seat = g.state.current
        move = g.step(a)
        snap = tables.snapshot(i)
        assert snap["completed"] == (move is not None), f"{where}, table {i}: completed"
        if move is not None and move[1]:  # play's return: the bonuses the capture added to its team
            expected = [x - y for x, y in zip(g.state.bonuses[seat & 1], before[i][seat & 1])]
            assert snap["scored"] == expected, f"{where}, table {i}: scored"
        elif move is not None:
            assert snap["scored"] is None, f"{where}, table {i}: a place scores nothing"
        expected = g.state.returns(reward) if g.state.done else [0.0] * 4
        assert rewards[i].tolist() == expected, f"{where}, table {i}: rewards"


def _check_results(tables, games) -> None:
    for i, g in enumerate(games):
        assert tables.result(i) == g.state.result(), f"table {i}: result"


def _after_deal(rng: random.Random) -> random.Random:
    """``rng`` moved past ``random_deal``'s draws (the shuffle and the dealer), as random_playout finds it."""
    shuffle(rng, list(range(NUM_CARDS)))
    rng.randrange(4)
    return rng


def _play_out(tables, games, reward: str, rngs=None) -> None:
    """Both play the core's random actions to the end, compared after every action; with ``rngs``
    (the deals' random.Random), each move must be random_playout's, spelled as actions."""
    _check_tables(tables, games, "after the deal")
    planned: list[list] = [[] for _ in games]
    steps = 0
    while not tables.done.all():
        actions = tables.random_actions().copy()
        for i, g in enumerate(games if rngs else ()):
            if g.state.done:
                continue
            if not planned[i]:  # a new move: random_playout's choice from the same rng
                card, capture = rngs[i].choice(g.state.legal_moves())
                planned[i] = move_to_actions(g.state, card, capture)
            assert actions[i] == planned[i].pop(0), f"step {steps}, table {i}: random action"
        _step_both(tables, games, actions, reward, f"step {steps}")
        _check_tables(tables, games, f"after step {steps}")
        steps += 1
    assert (tables.random_actions() == -1).all()
    _check_results(tables, games)


def _engine_games(tables: CavalloiceraTables) -> list[CavalloiceraActions]:
    """The engine's games for the deals the tables hold (read from the core)."""
    out = []
    for i in range(tables.n):
        snap = tables.snapshot(i)
        assert snap["moves"] == []
        out.append(CavalloiceraActions(CavalloiceraState(snap["hands"], snap["table"], snap["dealer"])))
    return out


@pytest.mark.parametrize("reward", ["points", "win"])
def test_random_deals_identical_to_the_engine(reward):
    """DEALS seeded deals (dealt as random_deal) played by random_playout's moves, compared at every action."""
    all_seeds = _seeds(DEALS, salt=1 if reward == "points" else 2)
    winners = []
    for start in range(0, DEALS, CHUNK):
        seeds = all_seeds[start:start + CHUNK]
        tables = CavalloiceraTables(len(seeds), reward=reward)
        tables.reset(seeds)
        games = [CavalloiceraActions(CavalloiceraState(*random_deal(s))) for s in seeds]
        rngs = [_after_deal(random.Random(s)) for s in seeds]
        _play_out(tables, games, reward, rngs)
        winners += [g.state.result()["winner"] for g in games]
    assert len(winners) == DEALS and winners.count(None) < DEALS  # some deals are won (a sanity check)


@pytest.mark.parametrize("reward", ["points", "win"])
def test_fast_rng_deals_identical_to_the_engine(reward):
    """The fast generator's deals and random moves, played through both, compared at every action."""
    all_seeds = _seeds(DEALS, salt=10 if reward == "points" else 11)
    for start in range(0, DEALS, CHUNK):
        seeds = all_seeds[start:start + CHUNK]
        tables = CavalloiceraTables(len(seeds), reward=reward, rng="fast")
        tables.reset(seeds)
        _play_out(tables, _engine_games(tables), reward)


def test_fast_rng_is_reproducible_and_uniform():
    deals = fast_deals(CavalloiceraTables, 20000, "table", "dealer")
    on_table = np.bincount([c for t, _ in deals for c in t], minlength=NUM_CARDS)  # 1538 expected each
    assert on_table.min() > 1300 and on_table.max() < 1800, on_table
    dealers = np.bincount([d for _, d in deals], minlength=4)  # 5000 each
    assert dealers.min() > 4700 and dealers.max() < 5300


def test_deals_from_ids_and_numpy_choice_identical():
    """reset_deals from numpy-dealt decks, actions chosen from the mask by numpy or by the core (so the
    core's random actions go on from captures started and taken elsewhere)."""
    n = 500
    gen = np.random.default_rng(7)
    ids = np.stack([gen.permutation(NUM_CARDS) for _ in range(n)]).astype(np.int8)
    dealers = gen.integers(4, size=n).astype(np.int8)
    tables = CavalloiceraTables(n, rng="fast")
    tables.reset_deals(ids, dealers)
    games = [CavalloiceraActions(CavalloiceraState([r[k:k + 12] for k in range(0, 48, 12)], r[48:], int(d)))
             for r, d in zip(ids.tolist(), dealers.tolist())]
    _check_tables(tables, games, "after the deal")
    steps = 0
    while not tables.done.all():
        scores = gen.random((n, NUM_ACTIONS)) * tables.mask
        chosen = np.where(scores.max(axis=1) > 0, scores.argmax(axis=1), -1).astype(np.int32)
        core_pick = tables.random_actions().copy()
        actions = np.where(gen.random(n) < 0.5, chosen, core_pick).astype(np.int32)
        _step_both(tables, games, actions, "points", f"step {steps}")
        _check_tables(tables, games, f"after step {steps}")
        steps += 1
    _check_results(tables, games)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vectors_replayed_by_the_core(path):
    v = json.loads(path.read_text())
    game = CavalloiceraActions(CavalloiceraState(*parse_deal(v)))
    ids, dealer = deal_ids(game.state)
    tables = CavalloiceraTables(1, reward="points")
    tables.reset_deals(ids[None], [dealer])
    _check_tables(tables, [game], "after the deal")
    env_features = Features()  # kept move by move as the env keeps it (aec.py _act): its state()
    env_features.reset(game.state)
    for k, mv in enumerate(v["moves"]):
        assert tables.current[0] == mv["seat"], f"move {k + 1}: seat"
        card, capture = card_id(mv["play"]), tuple(sorted(card_id(c) for c in mv["capture"]))
        for a in move_to_actions(game.state, card, capture):
            _step_both(tables, [game], np.array([a], np.int32), "points", f"move {k + 1}")
            _check_tables(tables, [game], f"move {k + 1}, action {a}")
            if game.building is not None:
                env_features.set_building(game.building)
            else:
                env_features.after_move(game.state)
            assert tables.state()[0].tobytes() == env_features.state().tobytes(), f"move {k + 1}: state vector"
    assert tables.done[0] == (len(v["moves"]) == NUM_TURNS)
    if "result" in v:
        assert tables.result(0) == v["result"]
        d = v["result"]["team_points"][0] - v["result"]["team_points"][1]
        assert tables.rewards[0].tolist() == [float(d), float(-d), float(d), float(-d)]


def test_vectors_present():
    assert len(VECTORS) >= 10


def test_seeded_deals_agree_with_this_python():
    assert seeded_deals_agree()
    seeds = [0, 1, -1, 2**63, 2**64 - 1, 99]
    tables = CavalloiceraTables(len(seeds))
    tables.reset(seeds)
    for i, s in enumerate(seeds):
        assert _core_view(tables, i) == _python_view(CavalloiceraActions(CavalloiceraState(*random_deal(s))))


def test_capture_set_counts_match_the_engine():
    """The core's count of capture sets of every card on many tables, against engine.capture_sets."""
    gen = np.random.default_rng(3)
    tables = CavalloiceraTables(1, rng="fast")
    for _ in range(300):
        perm = gen.permutation(NUM_CARDS)
        size = int(gen.integers(0, 30))
        ids = np.concatenate([perm[size:], perm[:size]])  # the last 4 go to the table; more placed below
        tables.reset_deals(ids[None].astype(np.int8), [0])
        state = CavalloiceraState([ids[k:k + 12].tolist() for k in range(0, 48, 12)], ids[48:].tolist(), 0)
        for c in range(NUM_CARDS):
            if c not in state.table:
                assert tables._tables.count_sets(0, c) == len(state.capture_sets(c)), (c, state.table)


@pytest.mark.parametrize("call,match", [
    (lambda t: t.reset_deals(np.zeros((2, 52)), [0, 0]), r"table 0: the deal must use each card id"),
    (lambda t: t.reset_deals(np.tile(np.arange(52), (2, 1)), [0, 4]), r"table 1: the dealer must be"),
])
def test_bad_input_is_named(call, match):
    tables = CavalloiceraTables(2)
    with pytest.raises(ValueError, match=match):
        call(tables)
