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

from dataclasses import asdict, dataclass, field

import torch
from torch import nn

MASKED_LOGIT = -1e9


@dataclass
class ModelConfig:
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "relu"  # relu | tanh | gelu
    # also feed the legal-action mask to the body (it tells which cards can
    # capture, which an MLP finds hard to work out from the table's sums)
    mask_input: bool = False
    # read the heuristic prior (cavallo_env.cavalloicera.prior) and add it to the logits
    prior: bool = False
    # initial gains of the prior's score (per point) and choice blocks in the logits
    prior_gain: list[float] = field(default_factory=lambda: [1.0, 2.0])

    def to_dict(self) -> dict:
        return asdict(self)


_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "gelu": nn.GELU}


class PolicyNet(nn.Module):
    def __init__(self, cfg: ModelConfig, obs_size: int, num_actions: int, prior_size: int = 0):
        super().__init__()
        self.cfg = cfg
        self.sizes = (obs_size, num_actions, prior_size)
        if self.cfg.activation not in _ACTIVATIONS:
            raise ValueError(f"model.activation must be one of {sorted(_ACTIVATIONS)}, got {self.cfg.activation!r}")
        layers: list[nn.Module] = []
        width = obs_size + (num_actions if self.cfg.mask_input else 0) + (prior_size if self.cfg.prior else 0)
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
        parts = [obs]
        if self.cfg.mask_input:
            parts.append((mask != 0).to(obs.dtype))
        if self.cfg.prior:
            if prior is None:
                raise ValueError("this model reads the heuristic prior: pass prior (Table.prior)")
            parts.append(prior)
        h = self.body(torch.cat(parts, dim=-1) if len(parts) > 1 else obs)
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
