"""``MaskedPolicyModule``: RLlib's PPO RLModule around the project's own network.

The module holds a ``training.model.PolicyNet`` as ``self.net`` and nothing
else, so its weights are the project's weights under a ``net.`` prefix and
convert 1:1 (``training.rllib.convert``).  It follows RLlib's action-masking
example (``ray.rllib.examples.rl_modules.classes.action_masking_rlm``): the
observation is a dict ``{"observations", "action_mask"}``; unlike the example,
the mask is applied inside ``PolicyNet.forward`` (illegal logits = -1e9), the
very forward pass that ``cavallo export`` and the ``checkpoint:`` bot run, and
the policy and value heads share the body as in the project's trainer.

``model_config``: ``hidden``, ``activation`` (the ``model``
section of the config; the heuristic prior is not supported here).  PPO needs
the ``ValueFunctionAPI``: ``_forward_train`` returns the value as
``Columns.EMBEDDINGS`` so that ``compute_values`` does not run the body twice.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from ..model import ModelConfig, PolicyNet


def model_config_of(section) -> dict:
    """The module's ``model_config`` from a config's ``model`` section (``ModelSection`` or dict)."""
    d = section if isinstance(section, dict) else section.__dict__
    if d.get("prior"):
        raise ValueError("MaskedPolicyModule does not read the heuristic prior (model.prior must be false)")
    return {"hidden": list(d["hidden"]), "activation": d["activation"]}


class MaskedPolicyModule(TorchRLModule, ValueFunctionAPI):
    """PPO RLModule = ``PolicyNet`` on ``{"observations", "action_mask"}`` (see the module doc)."""

    def setup(self):
        mc = self.model_config or {}
        cfg = ModelConfig(hidden=list(mc.get("hidden", [256, 256])), activation=mc.get("activation", "relu"), prior=False)
        obs_space = self.observation_space["observations"]
        self.net = PolicyNet(cfg, int(obs_space.shape[0]), int(self.action_space.n), 0)

    def _net(self, batch: dict[str, Any]):
        obs = batch[Columns.OBS]
        return self.net(obs["observations"], obs["action_mask"])

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        logits, _ = self._net(batch)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        logits, value = self._net(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: value}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None):
        if embeddings is not None:  # the value _forward_train computed along with the logits
            return embeddings
        return self._net(batch)[1]
