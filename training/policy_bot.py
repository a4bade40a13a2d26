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

from cavallo_env.cavalloicera.actions import NUM_ACTIONS
from cavallo_env.bots import Bot, BotSpecError, register
from cavallo_env.bots.policy import decide_move
from cavallo_env.cavalloicera.views import state_from_view

_CACHE: dict[str, list] = {}


def _activation(name):
    if name == "relu":
        return lambda x: np.maximum(x, 0.0)
    if name == "tanh":
        return np.tanh
    erf = np.vectorize(math.erf, otypes=[np.float32])
    return lambda x: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def load_layers(path: str) -> tuple:
    """``([per member: ([(W, b), ...] of the body and the policy head, prior gains or None)],
    activation, mask_input)`` from a checkpoint (one member unless ``model.members > 1``)."""
    if path not in _CACHE:
        from .checkpoint import load

        tensors, meta = load(path)
        model = meta.get("config", {}).get("model", {})
        hidden = model.get("hidden", [256, 256])
        n = int(model.get("members", 1))
        members = []
        for prefix in ["model."] if n == 1 else [f"model.members.{k}." for k in range(n)]:
            layers = []
            for j in range(len(hidden)):
                layers.append((tensors[f"{prefix}body.{2 * j}.weight"].numpy().T.copy(),
                               tensors[f"{prefix}body.{2 * j}.bias"].numpy()))
            layers.append((tensors[f"{prefix}policy.weight"].numpy().T.copy(), tensors[f"{prefix}policy.bias"].numpy()))
            gains = tensors[f"{prefix}prior_gain"].numpy().copy() if model.get("prior", False) else None
            members.append((layers, gains))
        _CACHE[path] = [members, _activation(model.get("activation", "relu")), bool(model.get("mask_input", False))]
    return tuple(_CACHE[path])


class CheckpointBot(Bot):
    name = "checkpoint"

    def __init__(self, path: str, seed=None):
        super().__init__(seed)
        self.path = path
        self.members, self.act, self.mask_input = load_layers(path)
        self.uses_prior = self.members[0][1] is not None

    def logits(self, obs: np.ndarray, legal: list, prior: np.ndarray | None = None) -> np.ndarray:
        """The mean over the members of their logits (unmasked)."""
        parts = [obs]
        if self.mask_input:
            mask = np.zeros(NUM_ACTIONS, np.float32)
            mask[legal] = 1.0
            parts.append(mask)
        if self.uses_prior:
            parts.append(prior)
        x = np.concatenate(parts) if len(parts) > 1 else obs
        total = None
        for layers, gains in self.members:
            h = x
            for W, b in layers[:-1]:
                h = self.act(h @ W + b)
            W, b = layers[-1]
            out = h @ W + b
            if gains is not None:
                out = out + gains[0] * prior[:NUM_ACTIONS] + gains[1] * prior[NUM_ACTIONS:]
            total = out if total is None else total + out
        return total / len(self.members)

    def choose_move(self, view, legal):
        def pick(obs, mask, prior, acts):
            logits = self.logits(obs[0], acts, None if prior is None else prior[0])
            return max(acts, key=lambda x: logits[x])

        return decide_move(state_from_view(view), pick, self.uses_prior)


def from_spec(arg, seed):
    if not arg:
        raise BotSpecError("checkpoint bot needs a path: checkpoint:<path to .safetensors or .json>")
    return CheckpointBot(arg, seed=seed)


register("checkpoint", from_spec)
