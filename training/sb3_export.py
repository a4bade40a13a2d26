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

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from cavallo_env import __version__, games

from .export import TOLERANCE, ExportError, write_verified

_MASKED = -1e9


def _module(policy, learning):
    """A torch module ``(obs, mask[, prior]) -> (logits, value)`` around an SB3 actor-critic policy."""
    import torch  # lazy: torch, kept out of this torch-free module

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
    about = {
        "model": {"kind": f"{type(model).__name__} {type(policy).__name__}",
                  "net_arch": getattr(policy, "net_arch", None),
                  "activation": getattr(getattr(policy, "activation_fn", None), "__name__", None),
                  "parameters": sum(p.numel() for p in policy.parameters())},
        "training_config": training,
        "evaluation": evaluation,
        "source": {"library": _versions(), "step": getattr(model, "num_timesteps", None)},
        "exported_by": f"cavallo-env {__version__} (training.sb3_export)",
    }
    try:
        return write_verified(_module(policy, learning), out, learning, about, use_prior=False,
                              tolerance=tolerance, check_deals=check_deals, game_deals=4)
    finally:
        policy.to(device)


def _versions() -> dict:
    found = {}
    for dist in ("sb3-contrib", "stable-baselines3", "torch"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            pass
    return found
