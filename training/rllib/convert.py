"""RLModule weights <-> the project's checkpoint format (``training.checkpoint``).

``MaskedPolicyModule`` holds exactly one ``PolicyNet`` as ``net``, so its
state dict is the project's model state dict with a ``net.`` prefix: the
conversion renames keys (``net.body.0.weight`` -> ``model.body.0.weight``),
checks that every tensor the project's network has is there with the right
shape, and writes a model checkpoint whose sidecar carries the game, the
config (its ``model`` section rebuilds the network) and ``"backend":
"rllib"``.  ``cavallo export``, ``checkpoint:<path>`` bots, ``cavallo eval``
and (after the export) ``policy:`` bots and ``cavallo serve`` then take it
unchanged.  ``module_state_from_checkpoint`` goes the other way (to start an
RLlib run, or an RLModule, from a project checkpoint without the prior).

This module needs torch and safetensors, not Ray.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from cavallo_env import games

from .. import checkpoint as ckpt
from ..model import ModelConfig, build_policy

PREFIX = "net."


class ConversionError(ValueError):
    """Weights that do not fit the network the config describes."""


def _model_config(model: dict) -> ModelConfig:
    return ModelConfig(hidden=list(model["hidden"]), activation=model["activation"], prior=False)


def policy_state(module_state: dict, model: dict, game: str) -> dict[str, torch.Tensor]:
    """The project's ``PolicyNet`` state dict from a ``MaskedPolicyModule`` state (torch tensors or
    the numpy arrays RLlib's ``get_state`` returns), checked against the network of ``model``."""

    state = {k[len(PREFIX):]: torch.as_tensor(np.asarray(v)) if not torch.is_tensor(v) else v.detach().cpu()
             for k, v in module_state.items() if k.startswith(PREFIX)}
    net = build_policy(_model_config(model), games.get(game).learning())
    want = net.state_dict()
    missing = sorted(set(want) - set(state))
    extra = sorted(set(state) - set(want))
    if missing or extra:
        raise ConversionError(f"the module's weights do not fit the network {model}: missing {missing}, "
                              f"unexpected {extra}")
    for k, v in want.items():
        if tuple(state[k].shape) != tuple(v.shape):
            raise ConversionError(f"{k}: shape {tuple(state[k].shape)} in the module, {tuple(v.shape)} in the network")
        state[k] = state[k].to(v.dtype).contiguous()
    return state


def save_checkpoint(module_state: dict, path, cfg, *, step: int = 0, counters: dict | None = None,
                    evals: list | None = None) -> tuple[Path, Path]:
    """Write ``module_state`` as a model checkpoint of the project (``<path>.safetensors`` +
    ``<path>.json``); ``cfg``: the run's ``RLlibTrainConfig`` (or its dict)."""
    d = cfg if isinstance(cfg, dict) else cfg.to_dict()
    state = policy_state(module_state, d["model"], d["game"])
    tensors = {f"model.{k}": v for k, v in state.items()}
    meta = {"game": d["game"], "config": d, "seed": d.get("seed"), "step": step, "counters": dict(counters or {}),
            "evals": list(evals or []), "kind": "model", "backend": "rllib"}
    return ckpt.save(path, tensors, meta)


def module_state_from_checkpoint(path) -> tuple[dict[str, np.ndarray], dict]:
    """``(MaskedPolicyModule state as numpy arrays, checkpoint meta)`` from a project checkpoint
    of a network without the heuristic prior."""
    tensors, meta = ckpt.load(path)
    if ckpt.uses_prior(meta):
        raise ConversionError(f"{path}: the model reads the heuristic prior, which the RLlib module does not")
    state = ckpt.model_state(tensors)
    if not state:
        raise ConversionError(f"{path}: no model.* weights in the checkpoint")
    return {PREFIX + k: v.numpy() for k, v in state.items()}, meta
