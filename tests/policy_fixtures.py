"""Helpers shared by the in-game AI tests: small random checkpoints and exports.

A fresh ``PolicyNet`` has a near-uniform policy head (orthogonal init with gain
0.01), which would make "the ONNX model picks the same move as torch" a weak
check; ``make_checkpoint`` rescales the head so that moves differ sharply.
"""

from __future__ import annotations

import random
from pathlib import Path

from cavallo_env.cavalloicera.engine import CavalloiceraState
from cavallo_env.cavalloicera.views import make_view, move_from_dict


def make_checkpoint(base, hidden=(64, 64), activation="relu", seed=0, meta_extra=None, game="cavalloicera",
                    **model_kw) -> Path:
    import torch

    from cavallo_env import games
    from training.checkpoint import save
    from training.model import ModelConfig, build_policy

    torch.manual_seed(seed)
    net = build_policy(ModelConfig(hidden=list(hidden), activation=activation, **model_kw), games.get(game).learning())
    with torch.no_grad():
        net.policy.weight.normal_(0.0, 0.5)
        net.policy.bias.normal_(0.0, 0.5)
    config = {"model": {"hidden": list(hidden), "activation": activation, **model_kw}, "seed": seed, "game": game}
    meta = {"game": game, "config": config, "step": 123, "eval": {"vs_greedy": {"score": 0.5}}}
    meta.update(meta_extra or {})
    save(base, {f"model.{k}": v for k, v in net.state_dict().items()}, meta)
    return Path(base)


def make_model(tmp_path, name="model", **kw) -> Path:
    """A checkpoint in ``tmp_path`` exported to ``tmp_path/<name>.onnx``; returns the .onnx path."""
    from training.export import export_checkpoint

    ckpt = make_checkpoint(Path(tmp_path) / f"{name}-ckpt", **kw)
    onnx_path, _ = export_checkpoint(ckpt, Path(tmp_path) / f"{name}.onnx", check_deals=32)
    return onnx_path


def game_views(seed: int, chooser=None, limit=None) -> list[dict]:
    """Every view of one deal played by ``chooser(view)`` (random moves if None)."""
    rng = random.Random(seed)
    state = CavalloiceraState.new(seed)
    views = []
    while not state.done and (limit is None or len(views) < limit):
        view = make_view(state, state.current)
        views.append(view)
        move = chooser(view) if chooser else rng.choice(view["legal_moves"])
        state.play(*move_from_dict(move))
    return views
