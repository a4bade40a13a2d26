"""The team policy: an MLP over the seat-relative observation, masked logits.

One network serves both seats of a team (observations are seat-relative).
``forward(obs, mask)`` returns logits with illegal actions pushed to -1e9 (so
masking applies when acting and in the PPO update) and the value estimate.
The exported in-game AI is exactly ``forward`` (see ``cavallo export``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import torch
from torch import nn

from cavallo_env.actions import NUM_ACTIONS
from cavallo_env.encoding import OBS_SIZE

MASKED_LOGIT = -1e9


@dataclass
class ModelConfig:
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "relu"  # relu | tanh | gelu

    def to_dict(self) -> dict:
        return asdict(self)


_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "gelu": nn.GELU}


class PolicyNet(nn.Module):
    def __init__(self, cfg: ModelConfig | None = None, obs_size: int = OBS_SIZE, num_actions: int = NUM_ACTIONS):
        super().__init__()
        self.cfg = cfg or ModelConfig()
        if self.cfg.activation not in _ACTIVATIONS:
            raise ValueError(f"model.activation must be one of {sorted(_ACTIVATIONS)}, got {self.cfg.activation!r}")
        layers: list[nn.Module] = []
        width = obs_size
        for h in self.cfg.hidden:
            layers += [nn.Linear(width, h), _ACTIVATIONS[self.cfg.activation]()]
            width = h
        self.body = nn.Sequential(*layers)
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Linear(width, 1)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``obs`` float32 [N, 702], ``mask`` [N, 156] (nonzero = legal) -> (logits [N,156], value [N])."""
        h = self.body(obs)
        logits = self.policy(h).masked_fill(mask == 0, MASKED_LOGIT)
        return logits, self.value(h).squeeze(-1)
