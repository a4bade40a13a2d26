"""``checkpoint:<path>``: a bot that plays a training checkpoint, in numpy.

Used by the periodic duplicate evaluation during training (``duplicate_eval``
runs bots by spec string in forked worker processes, so the bot must not need
torch threads there).  It rebuilds the game from the view
(``state_from_view``; the observation holds nothing hidden, so the unseen
cards' placement does not matter), encodes the seat's observation and plays
the most probable legal action, building a capture step by step exactly like
the action space, until a whole move is chosen (``decide_move``, shared with
the ONNX runtime).  Importing this module
registers the ``checkpoint`` bot kind.  (The shipped in-game AI is the ONNX
export, ``policy:<path>``; this is its torch-free twin for training runs.)
"""

from __future__ import annotations

import math

import numpy as np

from cavallo_env.actions import NUM_ACTIONS
from cavallo_env.bots import Bot, BotSpecError, register
from cavallo_env.bots.policy import decide_move
from cavallo_env.views import state_from_view

_CACHE: dict[str, list] = {}


def _activation(name):
    if name == "relu":
        return lambda x: np.maximum(x, 0.0)
    if name == "tanh":
        return np.tanh
    erf = np.vectorize(math.erf, otypes=[np.float32])
    return lambda x: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def load_layers(path: str) -> tuple:
    """``([(W, b), ...] of the body and the policy head, activation, mask_input, prior gains or None)``
    from a checkpoint."""
    if path not in _CACHE:
        from .checkpoint import load

        tensors, meta = load(path)
        model = meta.get("config", {}).get("model", {})
        hidden = model.get("hidden", [256, 256])
        layers = []
        for j in range(len(hidden)):
            layers.append((tensors[f"model.body.{2 * j}.weight"].numpy().T.copy(), tensors[f"model.body.{2 * j}.bias"].numpy()))
        layers.append((tensors["model.policy.weight"].numpy().T.copy(), tensors["model.policy.bias"].numpy()))
        gains = tensors["model.prior_gain"].numpy().copy() if model.get("prior", False) else None
        _CACHE[path] = [layers, _activation(model.get("activation", "relu")), bool(model.get("mask_input", False)),
                        gains]
    return tuple(_CACHE[path])


class CheckpointBot(Bot):
    name = "checkpoint"

    def __init__(self, path: str, seed=None):
        super().__init__(seed)
        self.path = path
        self.layers, self.act, self.mask_input, self.prior_gain = load_layers(path)

    def logits(self, obs: np.ndarray, legal: list, prior: np.ndarray | None = None) -> np.ndarray:
        parts = [obs]
        if self.mask_input:
            mask = np.zeros(NUM_ACTIONS, np.float32)
            mask[legal] = 1.0
            parts.append(mask)
        if self.prior_gain is not None:
            parts.append(prior)
        h = np.concatenate(parts) if len(parts) > 1 else obs
        for W, b in self.layers[:-1]:
            h = self.act(h @ W + b)
        W, b = self.layers[-1]
        out = h @ W + b
        if self.prior_gain is not None:
            out = out + self.prior_gain[0] * prior[:NUM_ACTIONS] + self.prior_gain[1] * prior[NUM_ACTIONS:]
        return out

    def choose_move(self, view, legal):
        def pick(obs, mask, prior, acts):
            logits = self.logits(obs[0], acts, None if prior is None else prior[0])
            return max(acts, key=lambda x: logits[x])

        return decide_move(state_from_view(view), pick, self.prior_gain is not None)


def from_spec(arg, seed):
    if not arg:
        raise BotSpecError("checkpoint bot needs a path: checkpoint:<path to .safetensors or .json>")
    return CheckpointBot(arg, seed=seed)


register("checkpoint", from_spec)
