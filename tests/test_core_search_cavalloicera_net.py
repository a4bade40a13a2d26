"""Cavalloìcera's network hook (core/cavalloicera_search.c, ``net_eval``) against the Python Learning and onnxruntime.

The network-guided search asks the game for the policy over the legal moves
and the value of a position, from the view of the seat to play.  The core's
answer is checked against the reference built in Python: the seat's
observation and prior as ``CavalloiceraLearning`` encodes them, the shipped
model run by onnxruntime, the softmax over the legal first actions (a move
is its first action: place c, or capture with c; the sets of one card share
its capture action's probability equally), and the value head as team 0's
point difference.  The view leaks nothing: any deal of the other hands
consistent with what the seat sees gives the same answer.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cavallo_env import core, games
from core_harness import require_core
from test_core_search_cavalloicera import _positions as positions_of_play

require_core()

pytest.importorskip("onnxruntime")

from cavallo_env.bots.policy import load_model, shipped_model  # noqa: E402
from cavallo_env.bots.search import load_network  # noqa: E402
from cavallo_env.cavalloicera.actions import move_to_actions  # noqa: E402

GAME = games.get("cavalloicera")
EXT = core.extension("cavalloicera")
LEARNING = GAME.learning()
TOLERANCE = 1e-5


def _positions(n: int, seed: int):
    """Positions of random play over many deals, from the first move to the last round (never over)."""
    return positions_of_play(n, seed, max_turn=47)


def _reference(session, state, temp: float, value_scale: float):
    """The policy over legal_moves() and team 0's value, from the Learning's encodings and onnxruntime."""
    table = LEARNING.table(state)
    obs = np.zeros((1, LEARNING.obs_size), np.float32)
    prior = np.zeros((1, LEARNING.prior_size), np.float32)
    table.observation(state.current, obs[0])
    table.prior(prior[0])
    moves = state.legal_moves()
    first = [move_to_actions(state, card, capture)[0] for card, capture in moves]
    acts = sorted(set(first))
    mask = np.zeros((1, LEARNING.num_actions), np.float32)
    mask[0, acts] = 1.0
    logits, value = session.run(["logits", "value"], {"obs": obs, "mask": mask, "prior": prior})
    z = logits[0, acts].astype(np.float64) / temp
    p = np.exp(z - z.max())
    p /= p.sum()
    by_action = dict(zip(acts, p))
    policy = [by_action[a] / first.count(a) for a in first]
    sign = 1.0 if state.current % 2 == 0 else -1.0
    return policy, sign * float(value[0]) * value_scale


@pytest.fixture(scope="module")
def nets():
    session, _ = load_model(shipped_model("cavalloicera"))
    net, value_scale, _ = load_network(shipped_model("cavalloicera"), "cavalloicera")
    return session, net, value_scale


@pytest.mark.parametrize("temp", [1.0, 0.5])
def test_the_policy_and_value_are_the_learnings_through_onnxruntime(nets, temp):
    session, net, value_scale = nets
    assert value_scale == 10.0  # the training's reward_scale
    shared = 0
    for state in _positions(60, 11):
        probs, value = EXT.net_eval(state, net, temp, value_scale)
        want, want_value = _reference(session, state, temp, value_scale)
        assert len(probs) == len(state.legal_moves())
        assert abs(sum(probs) - 1.0) < 1e-9
        assert np.abs(np.array(probs) - np.array(want)).max() < TOLERANCE, state.moves
        assert abs(value - want_value) < TOLERANCE * value_scale, state.moves
        shared += len(set(want)) < len(want)
    assert shared  # some positions had a card with several capture sets


def test_the_view_leaks_no_other_hand(nets):
    """Another deal of the hands the seat cannot see (same sizes) changes neither the policy nor the value."""
    _, net, value_scale = nets
    rng = random.Random(5)
    for state in _positions(30, 12):
        others = [s for s in range(4) if s != state.current]
        pool = [c for s in others for c in state.hands[s]]
        rng.shuffle(pool)
        other = state.copy()
        for s in others:
            size = len(state.hands[s])
            other.hands[s], pool = sorted(pool[:size]), pool[size:]
        assert EXT.net_eval(other, net, 1.0, value_scale) == EXT.net_eval(state, net, 1.0, value_scale)


def test_a_network_of_another_game_or_a_bad_temperature_is_refused(nets):
    _, net, _ = nets
    state = _positions(1, 13)[0]
    w = lambda *shape: np.zeros(shape, dtype=np.float32)  # noqa: E731
    briscola_sized = EXT.Network([(w(8, 456), w(8))], (w(40, 8), w(40)), (w(1, 8), w(1)), (1.0, 2.0), "relu", 376, 80)
    with pytest.raises(ValueError, match="not a Cavalloìcera network"):
        EXT.net_eval(state, briscola_sized)
    with pytest.raises(ValueError, match="temp must be > 0"):
        EXT.net_eval(state, net, 0.0)
