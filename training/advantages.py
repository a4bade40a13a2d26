"""Advantages over a rollout's trajectories (``training.rollout.Trajectories``), and the PPO batch.

Two estimators, chosen by ``ppo.advantage``:

- ``gae``: generalised advantage estimation over each (game, team)'s
  decisions, from the policy's value head; the only reward is the team's
  final one, on its last decision (capture-building sub-steps included).
- ``paired``: every deal is played twice (games ``2k`` and ``2k + 1``, the
  same deal, seats and opponent); a team's decisions get as advantage its
  result minus its result in the twin game, and as value target its result.
  The luck of the deal cancels, and a decision both twins made alike gets
  opposite advantages that cancel in the gradient, so the credit goes where
  they differ (a leave-one-out baseline over two samples).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rollout import Trajectories


@dataclass
class Batch:
    """What the PPO update reads: the learner's decisions with advantages and value targets."""

    obs: np.ndarray  # float32 [M, obs_size]
    mask: np.ndarray  # bool [M, num_actions]
    actions: np.ndarray  # int64 [M]
    logp: np.ndarray  # float32 [M]
    values: np.ndarray  # float32 [M]
    advantages: np.ndarray  # float32 [M]
    returns: np.ndarray  # float32 [M]: the value targets
    prior: np.ndarray | None = None  # float32 [M, prior_size]

    def __len__(self) -> int:
        return len(self.actions)


def gae(traj: Trajectories, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """``(advantages, value targets)`` by GAE over each (game, team)'s decisions."""
    key = traj.key
    last = np.ones(len(key), dtype=bool)
    last[:-1] = key[1:] != key[:-1]
    rewards = np.where(last, traj.final[key], 0.0).astype(np.float32)
    values = traj.values
    n = len(rewards)
    next_value = np.zeros(n, dtype=np.float32)
    next_value[:-1] = values[1:]
    next_value[last] = 0.0
    delta = (rewards + gamma * next_value - values).tolist()
    not_last = (~last).tolist()
    a = 0.0
    gl = gamma * lam
    out = [0.0] * n
    for t in range(n - 1, -1, -1):
        a = delta[t] + (gl * a if not_last[t] else 0.0)
        out[t] = a
    adv = np.zeros(n, dtype=np.float32)
    adv[:] = out
    return adv, adv + values


def paired(traj: Trajectories) -> tuple[np.ndarray, np.ndarray]:
    """``(advantages, value targets)``: each team's result minus its result in the twin game
    (key ``^ 2``: the other game of the pair, the same team), and its result."""
    key = traj.key
    return (traj.final[key] - traj.final[key ^ 2]).astype(np.float32), traj.final[key]


def batch(traj: Trajectories, advantage: str, gamma: float = 1.0, lam: float = 0.95) -> Batch:
    """The PPO batch of a rollout with ``advantage`` ("gae" or "paired") advantages."""
    adv, ret = paired(traj) if advantage == "paired" else gae(traj, gamma, lam)
    return Batch(obs=traj.obs, mask=traj.mask, actions=traj.actions, logp=traj.logp,
                 values=traj.values.astype(np.float32), advantages=adv, returns=ret.astype(np.float32),
                 prior=traj.prior)
