"""The policy network's forward pass in C (core/mlp.c, ``Network``) against onnxruntime.

The shipped model of every game, loaded from its exported ``.onnx`` and from
its training checkpoint, on thousands of positions of random play whose
observations and priors the core computes: the logits of the legal actions
and the value agree within float32 rounding (the sums run in another order),
the illegal ones are -1e9 as the exported graph writes them.  Models of the
wrong game, sizes or shape are refused with a message naming the problem.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cavallo_env import core
from core_harness import require_core

require_core()

pytest.importorskip("onnxruntime")

from cavallo_env.bots.policy import ModelError, load_model, shipped_model  # noqa: E402
from cavallo_env.bots.search import load_network, onnx_weights  # noqa: E402
from cavallo_env.core.briscola import BriscolaTables  # noqa: E402
from cavallo_env.core.cavalloicera import CavalloiceraTables  # noqa: E402
from cavallo_env.core.scopa import ScopaTables  # noqa: E402

TABLES = {"briscola": BriscolaTables, "scopa": ScopaTables, "cavalloicera": CavalloiceraTables}
TOLERANCE = 2e-5  # float32 sums of a few hundred terms in another order


def _positions(game: str, tables: int = 48, seed: int = 7):
    """``(obs, prior, mask)`` of every position of ``tables`` random deals (thousands)."""
    t = TABLES[game](tables, rng="fast")
    t.reset(np.arange(tables, dtype=np.uint64) + seed)
    done = np.zeros(tables, dtype=bool)
    rows = []
    while not done.all():
        keep = ~done
        rows.append((t.observe()[keep].copy(), t.prior()[keep].copy(), t.mask[keep].astype(np.float32)))
        actions = t.random_actions().copy()
        actions[done] = -1
        done |= t.step(actions)[1]
    return tuple(np.concatenate(part) for part in zip(*rows))


@pytest.mark.parametrize("game", sorted(TABLES))
def test_the_c_network_computes_what_onnxruntime_does(game):
    obs, prior, mask = _positions(game)
    assert len(obs) >= 1000
    session, _ = load_model(shipped_model(game))
    want_logits, want_value = session.run(["logits", "value"], {"obs": obs, "mask": mask, "prior": prior})
    for model in (shipped_model(game), f"checkpoints/{game}.json"):
        net = load_network(model, game)[0]
        logits, value = net.forward(obs, mask, prior)
        legal = mask > 0
        assert np.abs(logits[legal] - want_logits[legal]).max() < TOLERANCE
        assert np.abs(value - want_value).max() < TOLERANCE
        assert (logits[~legal] == want_logits[~legal]).all()
        assert not np.array_equal(value, np.zeros_like(value))


def test_the_value_scale_is_the_training_reward_scale():
    assert load_network(shipped_model("briscola"), "briscola")[1] == 30.0
    assert load_network(shipped_model("scopa"), "scopa")[1] == 5.0


def test_the_prior_gains_are_read_in_graph_order():
    safetensors = pytest.importorskip("safetensors.numpy")
    tensors, gains = onnx_weights(shipped_model("briscola").read_bytes())
    manifest = json.loads(Path("checkpoints/briscola.json").read_text(encoding="utf-8"))
    trained = safetensors.load_file(Path("checkpoints") / manifest["weights"])["model.prior_gain"]
    assert [float(tensors[g]) for g in gains] == trained.tolist()  # (score, choice): the checkpoint's
    assert tensors["body.0.weight"].shape == (256, 376 + 80)


def test_a_model_of_another_game_or_missing_is_refused():
    with pytest.raises(ModelError, match="a model of scopa, not briscola"):
        load_network(shipped_model("scopa"), "briscola")
    with pytest.raises(ModelError, match="a model of scopa, not briscola"):
        load_network("checkpoints/scopa.json", "briscola")
    with pytest.raises(ModelError, match="not found"):
        load_network("no/such/model.onnx", "briscola")


def test_a_network_of_wrong_shapes_is_refused():
    ext = core.extension("briscola")
    w = lambda *shape: np.zeros(shape, dtype=np.float32)  # noqa: E731
    good = ([(w(8, 456), w(8))], (w(40, 8), w(40)), (w(1, 8), w(1)), (1.0, 2.0), "relu", 376, 80)
    ext.Network(*good)
    with pytest.raises(ValueError, match="was expected"):
        ext.Network([(w(8, 455), w(8))], *good[1:])
    with pytest.raises(ValueError, match="activation"):
        ext.Network(*good[:4], "swish", *good[5:])
    with pytest.raises(ValueError, match="prior gains"):
        ext.Network(*good[:3], None, *good[4:])
    with pytest.raises(ValueError, match="obs has 3 columns"):
        ext.Network(*good).forward(w(2, 3), None, w(2, 80))
