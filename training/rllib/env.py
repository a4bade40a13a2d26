"""The env adapter: a game's PettingZoo AEC env as RLlib's ``PettingZooEnv`` wants it.

``make_env(env_config)`` returns ``PettingZooEnv(LeagueAEC(...))``: RLlib's own
wrapper, which turns an AEC env into a turn-based ``MultiAgentEnv`` (only the
agent to act gets an observation; every agent gets its final reward when the
episode ends), over ``LeagueAEC``, a small AEC env around the game's raw env
(``games.get(game).raw_env``) that

- renames the observation's keys to the ones RLlib's action-masking modules
  expect, ``{"observations": float32 [obs_size], "action_mask": float32
  [num_actions]}`` (the AEC env gives ``observation`` and an int8 mask);
- divides the rewards by ``reward_scale``;
- plays the fixed bots (``greedy``, ``heuristic``) inside the env: in an
  episode against a bot, the bot's seats never show up as agents, RLlib only
  sees the learner's team.  Who plays an episode is its *plan*
  (``set_plan``, from the self-play callback, ``training.rllib.selfplay``)
  taken at the next ``reset``: ``{"kind": "self" | "snapshots" | "greedy" |
  "heuristic", "learner_team": 0 | 1, "module": ...}``;
- counts the decisions of the episode (``decisions``: every action applied,
  bots and capture-building steps included; ``bot_decisions``), which the
  benchmarks compare with the project trainer's decisions/s.

An illegal action raises (the raw env's ``ValueError``): the masked module never
takes one, and RLlib's env pre-check, which steps unmasked random actions, is
turned off (``disable_env_checking=True``).
"""

from __future__ import annotations

import inspect

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cavallo_env import games
from cavallo_env.bots import make
from cavallo_env.evaluation import derive_seed
from cavallo_env.single import bot_actions, engine_state

ENV_NAME = "cavallo_league"
BOT_KINDS = ("greedy", "heuristic")
SELF_PLAN = {"kind": "self", "learner_team": 0, "module": "main"}


def raw_env(game, options: dict, reward: str):
    """The game's raw AEC env with its deal options (deck, match) and reward."""
    rules = game.check_options(dict(options))
    factory = game.module("aec").raw_env
    takes = inspect.signature(factory).parameters
    kwargs = {k: v for k, v in rules.items() if k in takes}  # Cavalloìcera's env has one deck: no keyword
    return factory(reward=reward, **kwargs)


class LeagueAEC(AECEnv):
    """A game's raw AEC env with masking keys, scaled rewards and fixed bots inside (module doc)."""

    metadata = {"render_modes": [], "is_parallelizable": False, "name": "cavallo_league"}

    def __init__(self, game: str = "briscola", game_options: dict | None = None, reward: str = "points",
                 reward_scale: float = 1.0, bot_seed: int = 0):
        super().__init__()

        self.game = games.get(game)
        self.learning = self.game.learning()
        self.raw = raw_env(self.game, game_options or {}, reward)
        self.reward_scale = float(reward_scale)
        self.bot_seed = int(bot_seed)
        self.possible_agents = list(self.raw.possible_agents)
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        first = self.raw.observation_space(self.possible_agents[0])["observation"]
        n = self.learning.num_actions
        space = spaces.Dict({
            "observations": spaces.Box(0.0, first.high, first.shape, np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.raw.action_space(a) for a in self.possible_agents}
        self.plan = dict(SELF_PLAN)
        self._next_plan = None
        self._bot_agents: dict[str, object] = {}  # agent -> bot playing it this episode
        self._bots: dict = {}  # (kind, seat) -> bot, made once
        self._queue: list[int] = []  # the remaining actions of a bot's move
        self.decisions = 0
        self.bot_decisions = 0
        self.episodes = 0

    # -- who plays ---------------------------------------------------------------
    def set_plan(self, plan: dict) -> None:
        """Who plays the next episode (taken at the next ``reset``)."""
        self._next_plan = dict(plan)

    def _bot(self, kind: str, seat: int):
        key = (kind, seat)
        if key not in self._bots:
            self._bots[key] = make(kind, seed=derive_seed("rllib", self.bot_seed, seat), game=self.game.name)
        return self._bots[key]

    # -- the AEC interface RLlib's PettingZooEnv uses ------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def agents(self) -> list[str]:
        bots = self._bot_agents
        return [a for a in self.raw.agents if a not in bots]


    @property
    def agent_selection(self) -> str:
        return self.raw.agent_selection


    @property
    def terminations(self):
        return self.raw.terminations


    @property
    def truncations(self):
        return self.raw.truncations


    @property
    def rewards(self):
        return {a: r / self.reward_scale for a, r in self.raw.rewards.items()}


    @property
    def infos(self):
        return self.raw.infos


    def reset(self, seed=None, options=None):
        plan = self._next_plan or SELF_PLAN
        self._next_plan = None
        self.plan = plan
        self.raw.reset(seed=seed, options=options)
        self._bot_agents = {}
        if plan["kind"] in BOT_KINDS:
            for agent, seat in self._seat_of.items():
                if self.learning.team_of(seat) != plan["learner_team"]:
                    self._bot_agents[agent] = self._bot(plan["kind"], seat)
        self._queue.clear()
        self.decisions = 0
        self.bot_decisions = 0
        self.episodes += 1
        self._advance()

    def step(self, action):
        if action is None:  # an agent whose episode is over leaves
            self.raw.step(None)
        else:
            self.raw.step(action)  # an illegal action raises ValueError
            self.decisions += 1
        self._advance()

    def observe(self, agent):
        return self._convert(self.raw.observe(agent))

    def last(self, observe: bool = True):
        obs, reward, terminated, truncated, info = self.raw.last(observe)
        return (self._convert(obs) if observe else None), reward / self.reward_scale, terminated, truncated, info

    def close(self):
        self.raw.close()

    def render(self, *args):
        return None

    # -- inside ------------------------------------------------------------------
    @staticmethod
    def _convert(obs):
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}

    def _advance(self) -> None:
        """Play the bots' seats until an RLlib agent is selected (or none is left): a bot
        seat whose episode is over leaves silently."""
        raw, bots = self.raw, self._bot_agents
        while raw.agents and raw.agent_selection in bots:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                raw.step(None)
                continue
            raw.step(self._bot_action(agent))
            self.decisions += 1
            self.bot_decisions += 1

    def _bot_action(self, agent: str) -> int:
        if self._queue:
            return self._queue.pop(0)
        first, *rest = bot_actions(self.game, self.learning, self.engine_state(), self._seat_of[agent],
                                   self._bot_agents[agent])
        self._queue[:] = rest
        return first

    def engine_state(self):
        """The engine state of the raw env."""
        return engine_state(self.raw)


def make_env(env_config: dict):
    """RLlib's ``PettingZooEnv`` over ``LeagueAEC`` (registered as ``ENV_NAME``).

    ``env_config``: ``game``, ``game_options``, ``reward``, ``reward_scale``,
    ``seed`` (the bots' seeds derive from it and the env runner's index; RLlib
    2.60 builds every sub-env of a runner from one context, so its sub-envs
    share them: harmless while the fixed bots draw nothing at random); other
    keys (``league``) are the callback's."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv  # lazy: ray, the optional rllib extra

    worker = getattr(env_config, "worker_index", 0)
    vector = getattr(env_config, "vector_index", 0)
    bot_seed = (int(env_config.get("seed", 0)) * 1_000_003 + worker) * 4099 + vector
    aec = LeagueAEC(env_config["game"], env_config.get("game_options") or {}, env_config.get("reward", "points"),
                    env_config.get("reward_scale", 1.0), bot_seed)
    return PettingZooEnv(aec)


def register() -> None:
    """Register ``make_env`` with Ray under ``ENV_NAME`` (the env runners look it up there)."""
    from ray.tune.registry import register_env  # lazy: ray, the optional rllib extra

    register_env(ENV_NAME, make_env)


def adapter_of(env, env_index: int = 0) -> LeagueAEC | None:
    """The ``LeagueAEC`` of sub-env ``env_index`` of what RLlib passes its callbacks as ``env``
    (a vector env, or a single ``PettingZooEnv``)."""
    sub = env.envs[env_index] if hasattr(env, "envs") else env
    for _ in range(8):  # through gymnasium wrappers to the PettingZooEnv, then its AEC env
        if isinstance(sub, LeagueAEC):
            return sub
        nxt = getattr(sub, "env", None)
        if nxt is None:
            nxt = getattr(sub, "unwrapped", None)
            if nxt is sub:
                return None
        sub = nxt
    return None
