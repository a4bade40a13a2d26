"""search:scopa's network in the core (core/scopa_search.c, ``net_eval``) against the Python Learning.

The policy over a position's legal moves (each move's chance as the policy bot
plays it, one action at a time: its first action, then every take of a card
with several capture sets) and the value (seat 0's point difference, the
model's value scale) that the core's network computes from the core's
observation and prior agree with the game's ``Learning`` tables fed to
onnxruntime, within float32 rounding, on positions of many single deals and
matches, captures with a choice among them.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from cavallo_env import core, games
from core_harness import require_core

require_core()

pytest.importorskip("onnxruntime")

from cavallo_env.bots.policy import load_model, shipped_model  # noqa: E402
from cavallo_env.bots.search import load_network  # noqa: E402
from cavallo_env.scopa.actions import move_to_actions  # noqa: E402

GAME = games.get("scopa")
EXT = core.extension("scopa")
TOLERANCE = 1e-5


def _states(n: int, seed: int):
    """Positions of random play with a choice to make, single deals and matches (later deals too)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        state = GAME.new_state(rng.randrange(10**9), match=len(out) % 2 == 1)
        stop = rng.randrange(0, 36 * (2 if state.match else 1))
        for _ in range(stop):
            if state.done:
                break
            GAME.play(state, rng.choice(state.legal_moves()))
        if not state.done and len(state.legal_moves()) > 1:
            out.append(state)
    return out


class _Python:
    """The policy and value of the Learning's tables through onnxruntime."""

    def __init__(self, temp: float, value_scale: float):
        self.session = load_model(shipped_model("scopa"))[0]
        self.learning = GAME.learning()
        self.temp, self.value_scale = temp, value_scale

    def _run(self, table):
        acts = table.legal_actions()
        obs = np.empty((1, self.learning.obs_size), np.float32)
        table.observation(table.current, obs[0])
        mask = np.zeros((1, self.learning.num_actions), np.float32)
        mask[0, acts] = 1.0
        prior = np.zeros((1, self.learning.prior_size), np.float32)
        table.prior(prior[0])
        logits, value = self.session.run(["logits", "value"], {"obs": obs, "mask": mask, "prior": prior})
        z = [float(logits[0][a]) / self.temp for a in acts]
        top = max(z)
        e = [math.exp(x - top) for x in z]
        return dict(zip(acts, (x / sum(e) for x in e))), float(np.asarray(value).reshape(-1)[0])

    def policy_and_value(self, state):
        """Every legal move's chance (the product over its actions with a choice) and the value."""
        probs = []
        for move in state.legal_moves():
            table, q = self.learning.table(state.copy()), 1.0
            for action in move_to_actions(state, move):
                if len(table.legal_actions()) > 1:
                    q *= self._run(table)[0][action]
                table.step(action)
            probs.append(q)
        value = self._run(self.learning.table(state.copy()))[1]
        return probs, (1.0 if state.current == 0 else -1.0) * value * self.value_scale


@pytest.mark.parametrize("temp", [1.0, 0.5])
def test_the_core_network_over_moves_is_the_learnings(temp):
    net, scale, _ = load_network(shipped_model("scopa"), "scopa")
    python = _Python(temp, scale)
    states = _states(150, 5)
    chains = 0
    for state in states:
        want_p, want_v = python.policy_and_value(state)
        got_p, got_v = EXT.net_eval(state, net, temp, scale)
        assert np.abs(np.array(got_p) - np.array(want_p)).max() < TOLERANCE, state.deal.moves
        assert abs(got_v - want_v) < TOLERANCE * scale, state.deal.moves
        assert abs(sum(got_p) - 1.0) < 1e-9
        first = [m[0] for m in state.legal_moves() if m[1]]
        chains += len(first) != len(set(first))
    assert any(s.match and s.deals for s in states)  # a later deal of a match: its totals in the observation
    assert chains >= 3  # captures with a choice of sets: the takes asked of the network


def test_a_checkpoint_gives_the_same_policy_as_its_export():
    onnx, scale, _ = load_network(shipped_model("scopa"), "scopa")
    checkpoint = load_network("checkpoints/scopa.json", "scopa")[0]
    for state in _states(10, 3):
        a, b = EXT.net_eval(state, onnx, 1.0, scale), EXT.net_eval(state, checkpoint, 1.0, scale)
        assert np.abs(np.array(a[0]) - np.array(b[0])).max() < TOLERANCE and abs(a[1] - b[1]) < TOLERANCE * scale


def test_a_network_of_other_sizes_is_refused():
    w = lambda *shape: np.zeros(shape, dtype=np.float32)  # noqa: E731
    briscola_sized = EXT.Network([(w(8, 456), w(8))], (w(40, 8), w(40)), (w(1, 8), w(1)), (1.0, 2.0), "relu", 376, 80)
    with pytest.raises(ValueError, match="not a Scopa network"):
        EXT.net_eval(_states(1, 1)[0], briscola_sized)
    with pytest.raises(ValueError, match="temp must be > 0"):
        EXT.net_eval(_states(1, 1)[0], load_network(shipped_model("scopa"), "scopa")[0], 0.0)
