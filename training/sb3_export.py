"""Export a Stable-Baselines3 / sb3-contrib ``MaskablePPO`` policy as the in-game AI (``policy:<model>.onnx``).

A policy trained on ``cavallo_env.single.SingleAgentEnv`` sees the game's AEC
observation and speaks its action ids -- exactly what an exported model reads
and answers (``cavallo_env.bots.policy``), so once written as ONNX it plays in
``cavallo eval``, ``cavallo tournament``, ``cavallo serve`` and ``cavallo play``
as ``policy:<path>.onnx`` without torch, SB3 or pickle::

    from training.sb3_export import export_maskable_ppo
    export_maskable_ppo(model, "runs/sb3/briscola.onnx", game="briscola")
    # cavallo eval policy:runs/sb3/briscola.onnx greedy --game briscola --deals 500

``export_maskable_ppo(model, out, game=...)`` takes a live model (or its
``policy``): it never loads an SB3 ``.zip`` (those hold pickles; load your
own with ``MaskablePPO.load`` in your own script).  It writes ``out`` and
the sidecar ``<out stem>.json`` with the same conventions and checks as
``cavallo export`` (``training.export``): inputs ``obs`` [batch, obs_size]
and ``mask`` [batch, num_actions] (nonzero = legal), outputs ``logits``
(the policy head's logits, illegal actions at -1e9) and ``value`` [batch];
one self-contained file, ``onnx.checker``, and onnxruntime reproducing torch
within 1e-5 on random inputs and on real positions of the game.  The
``policy:`` bot plays the most likely legal action (``@t=...`` samples):
``model.predict(obs, action_masks=mask, deterministic=True)``.

Needs torch, onnx and onnxruntime (the ``train`` extra), and sb3-contrib for
the model itself (the ``sb3`` extra).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import tempfile
from pathlib import Path

from cavallo_env import __version__, games
from cavallo_env.bots.policy import FORMAT, file_sha256, sidecar_path

from .export import OPSET, TOLERANCE, ExportError, _export_onnx, compare, game_inputs, random_inputs

_MASKED = -1e9


def _module(policy, learning):
    """A torch module ``(obs, mask[, prior]) -> (logits, value)`` around an SB3 actor-critic policy."""
    import torch

    class MaskedPolicy(torch.nn.Module):
        uses_prior = False
        sizes = (learning.obs_size, learning.num_actions, learning.prior_size)

        def __init__(self):
            super().__init__()
            self.policy = policy

        def forward(self, obs, mask, prior=None):
            p = self.policy
            features = p.extract_features(obs)
            if isinstance(features, tuple):  # share_features_extractor=False
                latent_pi = p.mlp_extractor.forward_actor(features[0])
                latent_vf = p.mlp_extractor.forward_critic(features[1])
            else:
                latent_pi, latent_vf = p.mlp_extractor(features)
            logits = p.action_net(latent_pi)
            logits = torch.where(mask != 0, logits, torch.full_like(logits, _MASKED))
            return logits, p.value_net(latent_vf).squeeze(-1)

    return MaskedPolicy().eval()


def export_maskable_ppo(model, out, *, game: str, evaluation: dict | None = None, training: dict | None = None,
                        tolerance: float = TOLERANCE, check_deals: int = 64) -> tuple[Path, Path]:
    """Write ``out`` (.onnx) and its sidecar from ``model`` (a ``MaskablePPO``, or its ``policy``)
    playing ``game``; returns both paths.  ``ExportError`` saying what does not fit."""
    import onnx

    out = Path(out)
    if out.suffix != ".onnx":
        raise ExportError(f"out must name a .onnx file, got {str(out)!r}")
    learning = games.get(game).learning()
    policy = getattr(model, "policy", model)
    obs_space, act_space = getattr(policy, "observation_space", None), getattr(policy, "action_space", None)
    if getattr(obs_space, "shape", None) != (learning.obs_size,) or getattr(act_space, "n", None) != learning.num_actions:
        raise ExportError(f"the policy takes observations {getattr(obs_space, 'shape', None)} and "
                          f"{getattr(act_space, 'n', None)} actions; {game} has ({learning.obs_size},) and "
                          f"{learning.num_actions}: was it trained on SingleAgentEnv({game!r})?")
    for attr in ("extract_features", "mlp_extractor", "action_net", "value_net"):
        if not hasattr(policy, attr):
            raise ExportError(f"{type(policy).__name__} has no {attr}: expected an SB3 actor-critic policy "
                              "(MaskablePPO's MlpPolicy)")
    device = next(policy.parameters()).device
    policy.set_training_mode(False)
    policy.to("cpu")
    net = _module(policy, learning)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmpdir = Path(tempfile.mkdtemp(dir=out.parent, prefix=".export-"))
    try:
        tmp = tmpdir / "model.onnx"
        _export_onnx(net, tmp)
        produced = sorted(p.name for p in tmpdir.iterdir())
        if produced != ["model.onnx"]:
            raise ExportError(f"the ONNX export wrote {produced}, expected a single self-contained file")
        try:
            onnx.checker.check_model(onnx.load(str(tmp), load_external_data=False), full_check=True)
        except onnx.checker.ValidationError as e:
            raise ExportError(f"the exported graph fails onnx.checker: {e}") from None
        checks = {}
        for label, inputs in (("random_inputs", random_inputs(check_deals, learning=learning)),
                              ("game_positions", game_inputs(deals=4, learning=learning))):
            c = compare(net, tmp, *inputs)
            c["n"] = len(inputs[0])
            checks[label] = c
            if not (c["max_scaled"] <= tolerance and c["max_prob"] <= tolerance):
                raise ExportError(f"onnxruntime and torch differ on {label.replace('_', ' ')}: logits/values by "
                                  f"{c['max_abs']:g} ({c['max_scaled']:g} relative), probabilities by "
                                  f"{c['max_prob']:g}; the tolerance is {tolerance:g}")
        sidecar = {
            "format": FORMAT,
            "game": learning.game,
            "obs_version": learning.obs_version,
            "action_version": learning.action_version,
            "obs_size": learning.obs_size,
            "num_actions": learning.num_actions,
            "inputs": {"obs": ["batch", learning.obs_size, "float32"],
                       "mask": ["batch", learning.num_actions, "float32, nonzero = legal"]},
            "prior_version": None,
            "outputs": {"logits": ["batch", learning.num_actions, "float32, illegal = -1e9"],
                        "value": ["batch", "float32"]},
            "opset": OPSET,
            "onnx_file": out.name,
            "onnx_sha256": file_sha256(tmp),
            "model": {"kind": f"{type(model).__name__} {type(policy).__name__}",
                      "net_arch": getattr(policy, "net_arch", None),
                      "activation": getattr(getattr(policy, "activation_fn", None), "__name__", None),
                      "parameters": sum(p.numel() for p in policy.parameters())},
            "training_config": training,
            "evaluation": evaluation,
            "source": {"library": _versions(), "step": getattr(model, "num_timesteps", None)},
            "check": dict(checks, tolerance=tolerance),
            "exported_by": f"cavallo-env {__version__} (training.sb3_export)",
            "exported_at": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        }
        tmp_json = tmpdir / "model.json"
        tmp_json.write_text(json.dumps(sidecar, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
        meta_path = sidecar_path(out)
        os.replace(tmp, out)
        os.replace(tmp_json, meta_path)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
        policy.to(device)
    return out, meta_path


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for dist in ("sb3-contrib", "stable-baselines3", "torch"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            pass
    return found
