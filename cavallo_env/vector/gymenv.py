"""``SingleAgentVectorEnv``: the batched env as a ``gymnasium.vector.VectorEnv`` for one learner seat.

The learner holds ``seat`` at every table; the other seats are fixed bots
played inside the tables (``opponents``: a ``BOTS`` name, or one per other
seat).  Observations are the AEC env's ``"observation"`` of the learner's
seat, batched (``Box`` (n, obs_size)); actions ``MultiDiscrete([A] * n)``;
the reward is the learner seat's AEC reward summed over everything the step
played (its action and the bots' until its next turn); ``terminated`` is the
end of the episode (a deal, or a Scopa match); nothing truncates.

Autoreset is Gymnasium's ``AutoresetMode.SAME_STEP`` (``metadata``): the step
that ends a table's episode returns its final reward and ``terminated=True``
with the first observation of the next deal.  The final observation is not
returned (``infos`` has no ``"final_obs"``): episodes only terminate, so no
value is bootstrapped from it.  ``infos["action_mask"]`` (bool (n, A)) and
``action_masks()`` give the legal actions of the observation returned.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import games
from .batched import BatchedEnv


class SingleAgentVectorEnv(VectorEnv):
    """n tables of ``game``, the learner at ``seat``, ``opponents`` at the others (see the module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str, num_envs: int, *, seat: int = 0, opponents="random", reward: str | None = None,
                 deck: str | None = None, match: bool | None = None, rng: str = "fast", seed=None, backend=None,
                 copy: bool = True):
        g = games.get(game)
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < g.num_seats:
            raise ValueError(f"seat must be one of 0..{g.num_seats - 1}, got {seat!r:.40}")
        others = [s for s in range(g.num_seats) if s != seat]
        if isinstance(opponents, str):
            opponents = [opponents] * len(others)
        opponents = list(opponents)
        if len(opponents) != len(others) or any(o is None for o in opponents):
            raise ValueError(f"opponents must be one bot name or {len(others)} of them (seats {others}), "
                             f"got {opponents!r:.80}")
        self.env = BatchedEnv(game, num_envs, bots=dict(zip(others, opponents)), reward=reward, deck=deck,
                              match=match, rng=rng, autoreset=True, seed=seed, backend=backend)
        self.seat = int(seat)
        self.copy = bool(copy)
        self.num_envs = self.env.num_envs
        self.single_observation_space = _observation_box(game)
        self.single_action_space = spaces.Discrete(self.env.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._truncated = np.zeros(self.num_envs, bool)
        self._mask = None

    def reset(self, *, seed=None, options=None):
        """Deal every table (``seed``: the env's seed stream; ``options``: as ``BatchedEnv.reset``)."""
        obs, mask, _ = self.env.reset(seed=seed, options=options)
        return self._out(obs), self._info(mask)

    def step(self, actions):
        obs, mask, _, rewards, done = self.env.step(actions)
        reward = rewards[:, self.seat].copy()
        return self._out(obs), reward, done.copy(), self._truncated.copy(), self._info(mask)

    def action_masks(self) -> np.ndarray:
        """bool (n, A): the legal actions of the last observation (sb3-contrib's convention)."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    def close_extras(self, **kwargs):
        pass

    def _out(self, obs):
        return obs.copy() if self.copy else obs

    def _info(self, mask) -> dict:
        self._mask = mask
        return {"action_mask": mask.copy() if self.copy else mask}


def _observation_box(game: str) -> spaces.Box:
    """The AEC env's ``"observation"`` space (float32, its bounds)."""
    env = games.get(game).raw_env()
    return env.observation_space(env.possible_agents[0])["observation"]
