"""The PettingZoo AEC environment of Cavalloìcera (docs/contract.md, "The AEC environment").

``env(**kwargs)`` is the environment wrapped the PettingZoo classic way
(``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper``,
``OrderEnforcingWrapper``); ``raw_env(**kwargs)`` / ``CavalloiceraEnv`` is the bare
environment, which raises a ``ValueError`` on an illegal action instead.

Keyword arguments: ``render_mode`` (``None``, ``"ansi"`` or ``"human"``) and
``reward`` (``"points"``: team points minus the other team's, the default; or
``"win"``: +1/0/-1).

The environment is registered with PettingZoo's registry as
``"cavallo/Cavalloicera-v1"``::

    import cavallo_env, pettingzoo
    env = pettingzoo.make("aec", "cavallo/Cavalloicera-v1")

See docs/environment.md for the action space, capture building, the
observation layout and examples.
"""

from __future__ import annotations

import copy
import warnings

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.env_registry import registration as _registration
from pettingzoo.utils import wrappers

from ..games import register_envs
from . import ENV_ID
from .actions import ACTION_VERSION, NUM_ACTIONS, CavalloiceraActions, action_name
from .cards import NAMES, NUM_CARDS
from .encoding import OBS_LAYOUT, OBS_SIZE, OBS_VERSION, STATE_LAYOUT, STATE_SIZE, STATE_VERSION, Features
from .engine import HAND_SIZE, NUM_SEATS, NUM_TURNS, CavalloiceraState
from .records import to_record
from .views import render_text  # also importable from here, where it lived

__all__ = ["CavalloiceraEnv", "raw_env", "env", "ENV_ID", "AGENTS", "OBS_VERSION", "STATE_VERSION"]

AGENTS = tuple(f"player_{i}" for i in range(NUM_SEATS))
REWARDS = ("points", "win")
OPTION_KEYS = ("deal",)

_SEAT = {a: i for i, a in enumerate(AGENTS)}
_INT8 = np.dtype(np.int8)
_ZERO_MASK = np.zeros(NUM_ACTIONS, np.int8)
_ZERO_MASK.flags.writeable = False

# Upper bounds of the vectors.  Everything is scaled into [0, 1] except the
# capture-bonus counts (scaled by 1/10), which in principle reach 24 per team
# (one per turn of the team): their bound is 2.4.
_MAX_BONUS = NUM_TURNS // 2 / 10


def _high(size: int, bonus_slices) -> np.ndarray:
    high = np.ones(size, np.float32)
    for off, n in bonus_slices:
        high[off:off + n] = _MAX_BONUS
    return high


OBS_HIGH = _high(OBS_SIZE, [OBS_LAYOUT["bonuses_ours"], OBS_LAYOUT["bonuses_theirs"]])
STATE_HIGH = _high(STATE_SIZE, [STATE_LAYOUT["bonuses"]])


class ActionSpace(spaces.Discrete):
    """``Discrete(156)`` whose ``contains`` answers a plain ``int`` without
    going through NumPy (same answers; ``AssertOutOfBoundsWrapper`` asks on
    every step)."""

    def __init__(self, seed=None):
        super().__init__(NUM_ACTIONS, seed=seed)

    def contains(self, x) -> bool:
        if x.__class__ is int:
            return 0 <= x < NUM_ACTIONS
        return super().contains(x)


def _random_state(rng: np.random.Generator) -> CavalloiceraState:
    """A uniformly random deal drawn from ``rng`` (a shuffled deck and a dealer)."""
    deck = rng.permutation(NUM_CARDS).tolist()
    dealer = int(rng.integers(NUM_SEATS))
    hands = [sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(NUM_SEATS)]
    return CavalloiceraState(hands, sorted(deck[NUM_SEATS * HAND_SIZE:]), dealer)


class _AgentIterable:
    """``AECEnv.agent_iter()``'s iterable with a generator for its loop (same
    agents, same ``max_iter``; each ``iter()`` starts afresh)."""

    __slots__ = ("env", "max_iter")

    def __init__(self, env, max_iter):
        self.env, self.max_iter = env, max_iter

    def __iter__(self):
        env, n = self.env, self.max_iter
        while env.agents and n > 0:
            n -= 1
            yield env.agent_selection


def _as_action(action) -> int:
    """An action id from an int-like value (Python or NumPy integer)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)) and action.dtype.kind in "iu":
        return int(action.reshape(()))
    raise ValueError(f"an action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r}")


class CavalloiceraEnv(AECEnv):
    """Cavalloìcera, one deal per episode, four agents ``player_0..3`` (seat i).

    Every agent's action space is ``Discrete(156)`` (place / capture with /
    take, see ``cavallo_env.cavalloicera.actions``); observations are
    ``{"observation": float32 (702,), "action_mask": int8 (156,)}``.  Rewards
    are 0 until the deal ends, then each agent gets its team's points minus
    the other team's (``reward="points"``) or +1/0/-1 (``reward="win"``).
    """

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "cavalloicera_v1",
        "is_parallelizable": False,
        # which layouts this env speaks (docs/contract.md): checked by exported models
        "observation_version": OBS_VERSION,
        "state_version": STATE_VERSION,
        "action_version": ACTION_VERSION,
    }

    def __init__(self, render_mode: str | None = None, reward: str = "points"):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be 'points' or 'win', got {reward!r}")
        self.render_mode = render_mode
        self._human = render_mode == "human"
        self.reward_type = reward
        self.possible_agents = list(AGENTS)
        self.action_spaces = {a: ActionSpace() for a in AGENTS}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            })
            for a in AGENTS
        }
        self.state_space = spaces.Box(0.0, STATE_HIGH, (STATE_SIZE,), np.float32)
        self._np_random = None
        self._np_random_seed = None
        self._rng_state = None  # bit generator state to build _np_random from
        self._game = None
        self._features = Features()
        self._over = True  # deal over (or not started): only dead steps remain
        self._seat = -1  # seat of the selected agent while the deal is on, else -1
        self.agents = []

    # -- spaces ----------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        """The generator deals are drawn from (seeded by ``reset(seed=...)``)."""
        if self._np_random is None:
            self._make_rng(None)
        return self._np_random

    def _make_rng(self, seed) -> None:
        state = self._rng_state
        if seed is None and state is not None:  # a deepcopy's generator, built lazily
            rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
            rng.bit_generator.state = state
            self._np_random = rng
        else:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        self._rng_state = None

    # -- episode ---------------------------------------------------------------
    def reset(self, seed=None, options=None):
        """Start a deal: the one in ``options["deal"]``, else a random one.

        ``seed`` reseeds the generator deals are drawn from; without it the
        generator's stream continues (a fresh, unseeded one the first time).
        """
        deal = None
        if options is not None:
            if not hasattr(options, "keys"):
                raise ValueError(f"options must be a dict (e.g. {{'deal': ...}}), got {type(options).__name__}")
            unknown = [k for k in options.keys() if k not in OPTION_KEYS]
            if unknown:
                warnings.warn(f"{type(self).__name__}.reset: ignoring unknown option(s) "
                              f"{', '.join(map(repr, unknown))}; known: {', '.join(map(repr, OPTION_KEYS))}",
                              stacklevel=2)
            deal = options.get("deal")
        if deal is not None:
            state = CavalloiceraState.from_deal(deal)  # ValueError saying what is wrong
        if seed is not None or self._np_random is None:
            self._make_rng(int(seed) if isinstance(seed, np.integer) else seed)
        if deal is None:
            state = _random_state(self._np_random)
        self._game = CavalloiceraActions(state)
        self._features.reset(state)
        self._over = False
        agents = self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {} for a in agents}
        self._skip_agent_selection = None
        self._seat = state.current
        self.agent_selection = AGENTS[state.current]
        if self.render_mode == "human":
            self.render()

    def step(self, action):
        if self._over:
            return self._dead_step(action)
        if action.__class__ is not int:
            action = _as_action(action)
        game = self._game
        if not (0 <= action < NUM_ACTIONS and game.legal_mask()[action]):
            raise ValueError(self._illegal_message(action, game.legal_actions()))
        if game.step(action) is None:  # capture being built: the same agent chooses again
            self._features.set_building(game.building)
        else:
            state = game.state
            self._features.after_move(state)
            if state.turn >= NUM_TURNS:
                self._end_deal()
            else:
                seat = self._seat = state.current
                self.agent_selection = AGENTS[seat]
        if self._human:
            self.render()

    def _end_deal(self):
        state = self._game.state
        agent = self.agent_selection
        self._over = True
        self._seat = -1
        agents = self.agents
        result = state.result()
        points = result["team_points"]
        diff = points[0] - points[1]  # as CavalloiceraState.returns
        if self.reward_type == "win":
            diff = (diff > 0) - (diff < 0)
        self.rewards = {a: float(diff if _SEAT[a] % 2 == 0 else -diff) for a in agents}
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        self.terminations = dict.fromkeys(agents, True)
        self.infos = {a: {"result": result} for a in agents}
        self.agent_selection = AGENTS[state.current]

    def _dead_step(self, action):
        if self._game is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the deal is over and every agent has been removed; call reset()")
        self._was_dead_step(action)

    def _illegal_message(self, action, legal) -> str:
        agent = self.agent_selection
        shown = ", ".join(f"{a} ({action_name(a)})" for a in legal)
        building = self._game.building
        where = f", building a capture with {NAMES[building[0]]}" if building is not None else ""
        return (f"illegal action {action} ({action_name(action)}) by {agent} "
                f"(seat {_SEAT[agent]}{where}); legal actions: [{shown}]")

    # -- observations ----------------------------------------------------------
    def observe(self, agent):
        seat = _SEAT.get(agent)
        if seat is None:
            raise KeyError(f"unknown agent {agent!r}; the agents are {', '.join(AGENTS)}")
        # the selected agent while the deal is on (-1 once it is over); the
        # terminations check covers a deal ended by TerminateIllegalWrapper
        if seat == self._seat and self.terminations.get(agent) is False:
            return {"observation": self._features.observation(seat, True),
                    "action_mask": np.frombuffer(bytearray(self._game.legal_mask()), _INT8)}
        return {"observation": self._features.observation(seat, False), "action_mask": _ZERO_MASK.copy()}

    def agent_iter(self, max_iter: int = 2**63):
        """Yield the selected agent until no agent is left (or ``max_iter`` times)."""
        return _AgentIterable(self, max_iter)

    def state(self) -> np.ndarray:
        """The full-information vector (``encoding`` ``STATE_VERSION``, 1018 floats)."""
        return self._features.state()

    def last(self, observe: bool = True):
        agent = self.agent_selection
        terminated = self.terminations[agent]
        if not observe:
            obs = None
        elif terminated is False and _SEAT[agent] == self._seat:  # observe(agent), inlined
            obs = {"observation": self._features.observation(self._seat, True),
                   "action_mask": np.frombuffer(bytearray(self._game.legal_mask()), _INT8)}
        else:
            obs = self.observe(agent)
        return obs, self._cumulative_rewards[agent], terminated, self.truncations[agent], self.infos[agent]

    # -- extras ------------------------------------------------------------------
    @property
    def game(self) -> CavalloiceraActions:
        """The ``CavalloiceraActions`` (engine state plus capture being built); read only."""
        return self._game

    def legal_actions(self) -> list[int]:
        """Legal action ids of the selected agent (empty once the deal is over)."""
        return [] if self._over else list(self._game.legal_actions())

    def record(self) -> dict:
        """The game record (docs/contract.md) of the deal so far; ``result`` once over."""
        if self._game is None:
            raise RuntimeError("call reset() before record()")
        return to_record(self._game.state)

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._game is None:
            text = "Cavalloìcera: no deal yet (call reset())"
        else:
            text = render_text(self._game)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self):
        pass

    # -- copying -----------------------------------------------------------------
    def __deepcopy__(self, memo):
        """An independent copy: stepping or resetting one never changes the other.

        The spaces are shared (play never changes them; a space's sampling
        generator is then common to both).
        """
        new = object.__new__(type(self))
        memo[id(self)] = new
        d = self.__dict__.copy()
        if self._game is not None:
            d["_game"] = self._game.copy()
        f = self._features
        d["_features"] = _copy_features(f)
        if self._np_random is not None:  # copied lazily: building one is slow
            d["_np_random"] = None
            d["_rng_state"] = self._np_random.bit_generator.state
        for key in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
            if key in d:
                d[key] = d[key].copy()
        if "infos" in d:
            d["infos"] = copy.deepcopy(d["infos"], memo)
        d["agents"] = self.agents[:]
        new.__dict__.update(d)
        return new


def _copy_features(f: Features) -> Features:
    g = Features(f.s.copy())
    g._swords = f._swords[:]
    g._prev = f._prev
    g._built = f._built
    return g


raw_env = CavalloiceraEnv


def env(**kwargs):
    """The wrapped environment: illegal action -> -1 for that agent and the deal ends."""
    e = CavalloiceraEnv(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


register_envs(_registration)  # also done by `import cavallo_env` when PettingZoo loads
