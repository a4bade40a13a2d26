"""The team policy: an MLP over the seat-relative observation, masked logits.

One network serves both seats of a team (observations are seat-relative).
``forward(obs, mask[, prior])`` returns logits with illegal actions pushed to
-1e9 (so masking applies when acting and in the PPO update) and the value
estimate.  With ``prior: true`` the network also reads the heuristic prior
(``cavallo_env.cavalloicera.prior``) and adds it to its logits with two learned gains, so
it starts out playing like ``heuristic`` and learns where to depart from it.
The exported in-game AI is exactly ``forward`` (see ``cavallo export``), and
so is the ``checkpoint:`` bot: there is one forward pass.  The sizes come from
the game (``cavallo_env.games.learning.Learning``).
"""

from __future__ import annotations

import torch
from torch import nn

from .config import ModelSection

MASKED_LOGIT = -1e9

#: The network's config is the config file's ``model`` section: one class (``training.config``).
ModelConfig = ModelSection

_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "gelu": nn.GELU}


class PolicyNet(nn.Module):
    def __init__(self, cfg: ModelConfig, obs_size: int, num_actions: int, prior_size: int = 0):
        super().__init__()
        self.cfg = cfg
        self.sizes = (obs_size, num_actions, prior_size)
        if self.cfg.activation not in _ACTIVATIONS:
            raise ValueError(f"model.activation must be one of {sorted(_ACTIVATIONS)}, got {self.cfg.activation!r}")
        layers: list[nn.Module] = []
        width = obs_size + (prior_size if self.cfg.prior else 0)
        for h in self.cfg.hidden:
            layers += [nn.Linear(width, h), _ACTIVATIONS[self.cfg.activation]()]
            width = h
        self.body = nn.Sequential(*layers)
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Linear(width, 1)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)
        if self.cfg.prior:
            if len(self.cfg.prior_gain) != 2:
                raise ValueError(f"model.prior_gain must be two numbers (score, choice), got {self.cfg.prior_gain!r}")
            self.prior_gain = nn.Parameter(torch.tensor([float(g) for g in self.cfg.prior_gain]))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor,
                prior: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``obs`` float32 [N, obs_size], ``mask`` [N, num_actions] (nonzero = legal), ``prior``
        [N, prior_size] when the model reads it -> (logits [N, num_actions], value [N])."""
        if self.cfg.prior:
            if prior is None:
                raise ValueError("this model reads the heuristic prior: pass prior (Table.prior)")
            h = self.body(torch.cat([obs, prior], dim=-1))
        else:
            h = self.body(obs)
        logits = self.policy(h)
        if self.cfg.prior:
            n = logits.shape[-1]
            logits = logits + self.prior_gain[0] * prior[:, :n] + self.prior_gain[1] * prior[:, n:]
        logits = logits.masked_fill(mask == 0, MASKED_LOGIT)
        return logits, self.value(h).squeeze(-1)

    @property
    def uses_prior(self) -> bool:
        return bool(self.cfg.prior)

    @torch.no_grad()
    def sharpen(self, factor: float) -> None:
        """Multiply the logits by ``factor`` (policy head and prior gains): the same argmax,
        a lower-temperature policy."""
        self.policy.weight.mul_(factor)
        self.policy.bias.mul_(factor)
        if self.cfg.prior:
            self.prior_gain.mul_(factor)


def build_policy(cfg: ModelConfig, learning) -> PolicyNet:
    """The policy network of a model config for a game (``learning``: its ``Learning``)."""
    return PolicyNet(cfg, learning.obs_size, learning.num_actions, learning.prior_size)
