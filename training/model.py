"""The team policy: an MLP over the seat-relative observation, masked logits.

One network serves both seats of a team (observations are seat-relative).
``forward(obs, mask[, prior])`` returns logits with illegal actions pushed to
-1e9 (so masking applies when acting and in the PPO update) and the value
estimate.  With ``prior: true`` the network also reads the heuristic prior
(``cavallo_env.cavalloicera.prior``) and adds it to its logits with two learned gains, so
it starts out playing like ``heuristic`` and learns where to depart from it.
The exported in-game AI is exactly ``forward`` (see ``cavallo export``).
With ``members > 1`` the policy is an ``EnsembleNet``: that many independently
initialised networks, each fitted on its own in the imitation, whose logits
(and values) are averaged; students imitating a noisy search differ by a few
points of strength from seed to seed, and their average is steadier.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import torch
from torch import nn

from cavallo_env.cavalloicera.actions import NUM_ACTIONS
from cavallo_env.cavalloicera.encoding import OBS_SIZE
from cavallo_env.cavalloicera.prior import PRIOR_SIZE

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
    # >1: an ensemble of that many networks whose logits are averaged (EnsembleNet)
    members: int = 1

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
        width = obs_size + (num_actions if self.cfg.mask_input else 0) + (PRIOR_SIZE if self.cfg.prior else 0)
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
        """``obs`` float32 [N, 702], ``mask`` [N, 156] (nonzero = legal), ``prior`` [N, 312]
        when the model reads it -> (logits [N, 156], value [N])."""
        parts = [obs]
        if self.cfg.mask_input:
            parts.append((mask != 0).to(obs.dtype))
        if self.cfg.prior:
            if prior is None:
                raise ValueError("this model reads the heuristic prior: pass prior (cavallo_env.cavalloicera.prior.action_prior)")
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


class EnsembleNet(nn.Module):
    """``cfg.members`` PolicyNets (``members.K.*``) that play as one: the mean of their logits
    and values.  ``member_outputs`` gives each member's own, for fitting them separately."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        if cfg.members < 2:
            raise ValueError(f"an ensemble needs model.members >= 2, got {cfg.members!r}")
        self.cfg = cfg
        one = replace(cfg, members=1)
        self.members = nn.ModuleList(PolicyNet(one) for _ in range(cfg.members))

    def member_outputs(self, obs: torch.Tensor, mask: torch.Tensor,
                       prior: torch.Tensor | None = None) -> list[tuple[torch.Tensor, torch.Tensor]]:
        return [m(obs, mask, prior) for m in self.members]

    def forward(self, obs: torch.Tensor, mask: torch.Tensor,
                prior: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """As ``PolicyNet.forward``; illegal actions stay at -1e9 (every member puts them there)."""
        outs = self.member_outputs(obs, mask, prior)
        return torch.stack([o[0] for o in outs]).mean(0), torch.stack([o[1] for o in outs]).mean(0)

    @property
    def uses_prior(self) -> bool:
        return bool(self.cfg.prior)

    def sharpen(self, factor: float) -> None:
        for m in self.members:
            m.sharpen(factor)


def build_policy(cfg: ModelConfig) -> PolicyNet | EnsembleNet:
    """The policy network a model config describes: one ``PolicyNet`` or an ensemble of them."""
    if not isinstance(cfg.members, int) or isinstance(cfg.members, bool) or cfg.members < 1:
        raise ValueError(f"model.members must be a positive integer, got {cfg.members!r}")
    return PolicyNet(cfg) if cfg.members == 1 else EnsembleNet(cfg)


# ---------------------------------------------------------------- centralised critic

def _critic_index():
    """Per seat: the observation gather plus the three other hands (next, partner, previous)."""
    import numpy as np

    from cavallo_env.cavalloicera.encoding import OBS_INDEX, STATE_LAYOUT

    hands = STATE_LAYOUT["hands"][0]
    out = []
    for seat in range(4):
        extra = [hands + ((seat + k) % 4) * 52 + c for k in (1, 2, 3) for c in range(52)]
        out.append(np.concatenate([OBS_INDEX[seat], np.asarray(extra, dtype=np.intp)]))
    return np.stack(out)


#: per seat, the state indices of the centralised critic's input (obs + hidden hands, seat-relative)
CRITIC_INDEX = _critic_index()
CRITIC_SIZE = CRITIC_INDEX.shape[1]


class StateCritic(nn.Module):
    """A value network that sees everything (training only, never exported).

    Its input is the acting seat's observation plus the three hidden hands,
    ordered relative to that seat (``CRITIC_INDEX``), so like the policy it is
    seat-relative; it only serves as the PPO baseline.
    """

    def __init__(self, hidden: list[int], activation: str = "relu"):
        super().__init__()
        layers: list[nn.Module] = []
        width = CRITIC_SIZE
        for h in hidden:
            layers += [nn.Linear(width, h), _ACTIVATIONS[activation]()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)
