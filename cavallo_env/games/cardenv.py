"""The PettingZoo AEC environment every card game of this package shares.

Two seats (Briscola, Scopa) or four in two teams (Cavalloìcera): agents
``player_0..``, one per seat.  A game's env subclasses ``CardEnv`` and
supplies its *core* (the engine state driven through action ids) and its
encoder (``features_type``: ``self._features``, built once) through a few hooks:

- ``_start(deal)``: a new core from a deal given by names (``None``: a random
  one drawn from ``self.np_random``); ``ValueError`` for a malformed deal;
- ``_act(action)``: apply a legal action to the core; returns the per-seat
  rewards it produced (a list, e.g. when a deal ends: a team game gives each
  seat its team's) or None.  The action that ends the episode must return
  rewards (zeros if need be): only then is ``done`` checked.  An action that
  only builds a capture (the same seat chooses again) returns None and leaves
  ``current`` as it was;
- ``_observation(seat, acting)``: the float32 observation of ``seat`` (by
  default the core's, or ``self._features.observation(seat)``);
- ``_state_vector()``: the full-information vector (by default the core's, or
  ``_python_state()``: ``self._features.state()`` unless the game says
  otherwise);
- ``_info()``: the ``infos`` entry of every agent at the end (e.g. the result);
- ``render_text()`` and ``action_name(action)``.

The core must have ``current`` (the seat to act), ``done``, ``legal_mask()``
(``num_actions`` bytes, 1 = legal), ``legal_actions()`` (increasing ids) and
``copy()``; the encoder ``copy()`` too, else the subclass overrides
``_copy_into`` (Cavalloìcera's).

On the compiled core (``core_extension``) ``_start`` returns a ``CoreTable``
instead: one table of the core with the same interface, the Python core
rebuilt only when read (``_engine_core()``); such a game implements
``_python_copy`` for copies and pickles, and ``core`` uses it to hand out the
Python core, the episode going on on the Python engine.

``env(**kwargs)`` is the raw env wrapped the PettingZoo classic way
(``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper``,
``OrderEnforcingWrapper``); the raw env raises a ``ValueError`` naming the
action, the agent and the legal actions on an illegal action.
"""

from __future__ import annotations

import copy
import warnings

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import core  # the switch between the compiled core and the Python engines (CAVALLO_CORE)

_INT8 = np.dtype(np.int8)
_ndarray = np.ndarray  # the mask array over a fresh bytearray: as np.frombuffer's, built faster


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers a plain ``int`` without NumPy
    (same answers; ``AssertOutOfBoundsWrapper`` asks on every step)."""

    def __init__(self, n: int, seed=None):
        super().__init__(n, seed=seed)
        self._size = int(n)  # a Python int: ``self.n`` is a NumPy integer

    def contains(self, x) -> bool:
        if x.__class__ is int:
            return 0 <= x < self._size
        return super().contains(x)


class _AgentIterable:
    """``agent_iter()``'s iterable: the selected agent while agents are left."""

    __slots__ = ("env", "max_iter")

    def __init__(self, env, max_iter):
        self.env, self.max_iter = env, max_iter

    def __iter__(self):
        env, n = self.env, self.max_iter
        while env.agents and n > 0:
            n -= 1
            yield env.agent_selection


def as_action(action, n: int) -> int:
    """An action id from an int-like value (Python or NumPy integer)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)) and action.dtype.kind in "iu":
        return int(action.reshape(()))
    raise ValueError(f"an action must be an int in 0..{n - 1}, got {action!r}")


def metadata_of(name: str, obs_version: str, state_version: str, action_version: str) -> dict:
    """An env's ``metadata``: its PettingZoo name and the layouts it speaks
    (docs/contract.md), which exported models check."""
    return {
        "render_modes": ["ansi", "human"],
        "name": name,
        "is_parallelizable": False,
        "observation_version": obs_version,
        "state_version": state_version,
        "action_version": action_version,
    }


def engine_state(raw):
    """The engine state behind a raw env's core (Briscola's core is the state itself;
    the capture games': ``core.state``)."""
    core = raw.core
    return getattr(core, "state", core)


def core_extension(game: str):
    """The compiled core's extension of ``game`` (``cavallo_env.core._<game>``), or None: the Python
    engine (the reference), where ``core.enabled()`` says so (``CAVALLO_CORE=python``, or not built)."""
    return core.extension(game) if core.enabled() else None


class CoreTable:
    """One table of a game's compiled core under an env: steps, legality and observations in C, the
    game's Python engine object (``py``) brought up to date only when something reads it.

    ``tables`` is the extension's ``Tables(1)``, dealt already; ``make_py()`` builds the Python object
    of the same deal and ``step_py(py, action)`` applies an action to it; ``reward``: the code of the
    rewards the core writes into ``tables.rewards`` (the game's C enum).  ``py`` replays the actions
    taken since it was last read (the env hands out a copy of it, ``env.core``, and goes on on the
    Python engine).  ``current``, ``done`` and ``legal_mask()`` are the core's (the differential
    tests prove them equal to the engine's).
    """

    __slots__ = ("tables", "current", "done", "_mask", "_actions", "_make_py", "_step_py", "_py", "_pending",
                 "_seats", "_obs", "_reward")

    def __init__(self, tables, make_py, step_py, reward: int = 0):
        self.tables, self._make_py, self._step_py, self._reward = tables, make_py, step_py, reward
        self._mask = tables.mask[0]
        self._actions = tables.actions
        self._seats = np.zeros(1, np.int8)
        self._obs = tables.obs[0]
        self.current = int(tables.current[0])
        self.done = bool(tables.done[0])
        self._py = None
        self._pending: list[int] = []

    def step(self, action: int) -> None:
        """Apply a legal action (checked by the env against ``legal_mask``)."""
        tables = self.tables
        self._actions[0] = action
        tables.step(self._reward)
        self.current = int(tables.current[0])
        self.done = bool(tables.done[0])
        self._pending.append(action)

    def legal_mask(self) -> np.ndarray:
        """The legal actions as a uint8 row (1 = legal), the core's buffer: read it at once."""
        return self._mask

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._mask).tolist()

    def observe(self, seat: int, acting: bool = True) -> np.ndarray:
        """A new float32 array: the observation of ``seat`` (the capture being built shows only to the
        seat to act, as the encoders' ``acting``)."""
        self._seats[0] = seat
        self.tables.observe(self._seats)
        return self._obs.copy()

    def state_vector(self, size: int) -> np.ndarray:
        """A new float32 array: the full-information vector (``size`` floats)."""
        out = np.empty((1, size), np.float32)
        self.tables.state(out)
        return out.reshape(size)

    @property
    def py(self):
        """The Python engine object, up to date (for reading: it is not handed out)."""
        py = self._py
        if py is None:
            py = self._py = self._make_py()
        if self._pending:
            step = self._step_py
            for a in self._pending:
                step(py, a)
            self._pending.clear()
        return py


class CardEnv(AECEnv):
    """Base of the card game envs (see the module doc for the hooks)."""

    #: set by subclasses: the game's ``GAME`` (``cavallo_env.games``), its encoder class
    #: (``_features``, kept up to date by the hooks), the sizes and bounds
    GAME = None
    features_type = None
    num_actions = 0
    obs_size = 0
    obs_high = 1.0
    state_size = 0
    state_high = 1.0
    rewards_allowed = ("points", "win")
    option_keys = ("deal",)
    #: what an episode is, in messages ("the episode is over ...")
    episode = "episode"
    #: the ``render()`` text before the first ``reset()``, after the game's title
    unstarted = "nothing dealt yet"
    #: ``observe()`` and ``state()`` before ``reset()``: the blank vectors (Cavalloìcera's
    #: version 1 behaviour) instead of a ``RuntimeError``
    blank_before_reset = False

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, reward: str = "points"):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if reward not in self.rewards_allowed:
            raise ValueError(self._bad_reward(reward))
        self.render_mode = render_mode
        self._human = render_mode == "human"
        self.reward_type = reward
        n = self.GAME.num_seats
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: ActionSpace(self.num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, self.obs_high, (self.obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
            })
            for a in self.possible_agents
        }
        self.state_space = spaces.Box(0.0, self.state_high, (self.state_size,), np.float32)
        self._zero_mask = np.zeros(self.num_actions, np.int8)
        self._mask_shape = (self.num_actions,)
        self._features = self.features_type()
        self._np_random = None
        self._np_random_seed = None
        self._rng_state = None
        self._core = None
        self._over = True
        self._seat = -1
        self._rewarded = False
        self.agents = []

    def _bad_reward(self, reward) -> str:
        return f"reward must be one of {', '.join(map(repr, self.rewards_allowed))}, got {reward!r}"

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
        """Start an episode: the deal in ``options["deal"]``, else a random one.

        ``seed`` reseeds the generator deals are drawn from; without it the
        generator's stream continues (a fresh, unseeded one the first time).
        """
        deal = None
        if options is not None:
            if not hasattr(options, "keys"):
                raise ValueError(f"options must be a dict (e.g. {{'deal': ...}}), got {type(options).__name__}")
            unknown = [k for k in options.keys() if k not in self.option_keys]
            if unknown:
                warnings.warn(f"{type(self).__name__}.reset: ignoring unknown option(s) "
                              f"{', '.join(map(repr, unknown))}; known: {', '.join(map(repr, self.option_keys))}",
                              stacklevel=2)
            deal = options.get("deal")
        if deal is not None:
            self._check_deal(deal)  # a malformed deal changes nothing, not even the generator
        if seed is not None or self._np_random is None:
            self._make_rng(int(seed) if isinstance(seed, np.integer) else seed)
        core = self._start(deal)
        self._core = core
        self._over = False
        self._rewarded = False
        agents = self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {} for a in agents}
        self._skip_agent_selection = None
        self._seat = core.current
        self.agent_selection = agents[core.current]
        if self._human:
            self.render()

    def step(self, action):
        if self._over:
            return self._dead_step(action)
        if action.__class__ is not int:
            action = as_action(action, self.num_actions)
        core = self._core
        if not (0 <= action < self.num_actions and core.legal_mask()[action]):
            raise ValueError(self._illegal_message(action, core.legal_actions()))
        self._cumulative_rewards[self.agent_selection] = 0.0
        scored = self._act(action)
        if scored is None:
            if self._rewarded:
                self.rewards = dict.fromkeys(self.agents, 0.0)
                self._rewarded = False
        elif self._pay(scored):
            if self._human:
                self.render()
            return
        seat = self._seat = core.current
        self.agent_selection = self.agents[seat]
        if self._human:
            self.render()

    def _pay(self, scored) -> bool:
        """Pay the rewards an action produced; True when the episode is over (only
        an action that returns rewards can end it)."""
        agents = self.agents
        self.rewards = {a: float(r) for a, r in zip(agents, scored)}
        self._accumulate_rewards()
        self._rewarded = True
        core = self._core
        if not core.done:
            return False
        self._over = True
        self._seat = -1
        self.terminations = dict.fromkeys(agents, True)
        info = self._info()
        self.infos = {a: dict(info) for a in agents}
        self.agent_selection = agents[core.current]
        return True

    def _dead_step(self, action):
        if self._core is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError(f"the {self.episode} is over and every agent has been removed; call reset()")
        self._was_dead_step(action)

    def _illegal_message(self, action, legal) -> str:
        agent = self.agent_selection
        shown = ", ".join(f"{a} ({self.action_name(a)})" for a in legal)
        return (f"illegal action {action} ({self.action_name(action)}) by {agent} "
                f"(seat {self._seat_of[agent]}{self._illegal_context()}); legal actions: [{shown}]")

    def _illegal_context(self) -> str:
        return ""

    # -- observations ----------------------------------------------------------
    def observe(self, agent):
        seat = self._seat_of.get(agent)
        if seat is None:
            raise KeyError(f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}")
        if self._core is None and not self.blank_before_reset:
            raise RuntimeError("call reset() before observe()")
        if seat == self._seat and self.terminations.get(agent) is False:
            return {"observation": self._observation(seat, True),
                    "action_mask": _ndarray(self._mask_shape, _INT8, bytearray(self._core.legal_mask()))}
        return {"observation": self._observation(seat, False), "action_mask": self._zero_mask.copy()}

    def agent_iter(self, max_iter: int = 2**63):
        return _AgentIterable(self, max_iter)

    def last(self, observe: bool = True):
        agent = self.agent_selection
        terminated = self.terminations[agent]
        if not observe:
            obs = None
        elif terminated is False and self._seat_of[agent] == self._seat:
            obs = {"observation": self._observation(self._seat, True),
                   "action_mask": _ndarray(self._mask_shape, _INT8, bytearray(self._core.legal_mask()))}
        else:
            obs = self.observe(agent)
        return obs, self._cumulative_rewards[agent], terminated, self.truncations[agent], self.infos[agent]

    def state(self) -> np.ndarray:
        """The full-information vector."""
        if self._core is None and not self.blank_before_reset:
            raise RuntimeError("call reset() before state()")
        return self._state_vector()

    # -- extras ----------------------------------------------------------------
    @property
    def game(self):
        """The game this env plays (``GAME``); Cavalloìcera's env: its core, as in version 1."""
        return self.GAME

    @property
    def core(self):
        """The engine state driven through actions (read only)."""
        if self._core.__class__ is CoreTable:  # handed out: the episode goes on on the Python engine
            d: dict = {}
            self._python_copy(d)
            self.__dict__.update(d)
        return self._core

    def _engine_core(self):
        """``core`` up to date for reading now (on the compiled core: without handing it out for good)."""
        core = self._core
        return core.py if core.__class__ is CoreTable else core

    def record(self) -> dict:
        """The game record (docs/contract.md) of the episode so far; ``result`` once over."""
        if self._core is None:
            raise RuntimeError("call reset() before record()")
        core = self._engine_core()
        return self.GAME.to_record(getattr(core, "state", core))

    def legal_actions(self) -> list[int]:
        """Legal action ids of the selected agent (empty once the episode is over)."""
        return [] if self._over else list(self._core.legal_actions())

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = f"{self.GAME.title}: {self.unstarted} (call reset())" if self._core is None else self.render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self):
        pass

    def __deepcopy__(self, memo):
        """An independent copy: stepping or resetting one never changes the other.
        The spaces are shared."""
        new = object.__new__(type(self))
        memo[id(self)] = new
        d = self.__dict__.copy()
        d.pop("_tables", None)  # the compiled core's table of this env, never shared
        self._copy_into(d, memo)
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

    def __getstate__(self) -> dict:
        """What pickle keeps: the ``__dict__``, an env on the compiled core as its Python twin
        (``_python_copy``; the unpickled env deals its next episode on the core again)."""
        d = self.__dict__.copy()
        d.pop("_tables", None)
        if self._core.__class__ is CoreTable:
            self._python_copy(d)
        return d

    def _copy_into(self, d: dict, memo) -> None:
        """Replace the mutable game objects in the copied ``__dict__`` ``d`` by copies (a copy of an env
        on the compiled core plays on on the Python engine: ``_python_copy``)."""
        if self._core.__class__ is CoreTable:
            self._python_copy(d)
            return
        for key, value in list(d.items()):
            if key in ("_core", "_features") and value is not None:
                d[key] = value.copy()

    def _python_copy(self, d: dict) -> None:  # pragma: no cover - interface of the envs on the core
        raise NotImplementedError

    # -- hooks -----------------------------------------------------------------
    def _start(self, deal):  # pragma: no cover - interface
        raise NotImplementedError

    def _act(self, action: int):  # pragma: no cover - interface
        raise NotImplementedError

    def _observation(self, seat: int, acting: bool) -> np.ndarray:
        """The observation of ``seat``: the core's, or the encoder's on the Python engine."""
        core = self._core
        if core.__class__ is CoreTable:
            return core.observe(seat)
        return self._features.observation(seat)

    def _state_vector(self) -> np.ndarray:
        """The full-information vector: the core's, or ``_python_state()`` on the Python engine."""
        core = self._core
        if core.__class__ is CoreTable:
            return core.state_vector(self.state_size)
        return self._python_state()

    def _python_state(self) -> np.ndarray:
        """The full-information vector on the Python engine: the encoder's."""
        return self._features.state()

    def _info(self) -> dict:
        return {}

    def _check_deal(self, deal) -> None:
        """Raise ``ValueError`` saying what is wrong with a deal given to ``reset``
        (the game's ``state_from_deal`` with this env's options, e.g. its deck)."""
        options = {k: getattr(self, k) for k in self.GAME.options if hasattr(self, k)}
        self.GAME.state_from_deal(deal, **options)

    def render_text(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError

    def action_name(self, action) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class _TerminateIllegal(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with its ``step`` reading the raw env it wraps
    directly instead of through ``__getattr__``: the same checks, results and errors."""

    def step(self, action) -> None:
        raw = self.env
        agent = raw.agent_selection
        if self._prev_obs is None:
            self.observe(agent)
        prev = self._prev_obs
        if not isinstance(prev, dict):  # never for these envs' dict observations: PettingZoo's own path
            return super().step(action)
        assert "action_mask" in prev, (
            f"`action_mask` not found in dictionary observation: {prev}. Action mask must either be in "
            "`observation['action_mask']` or `info['action_mask']` to use TerminateIllegalWrapper.")
        mask = prev["action_mask"]
        self._prev_obs = self._prev_info = None
        terminated, truncated = raw.terminations[agent], raw.truncations[agent]
        if self._terminated and (terminated or truncated):
            raw._was_dead_step(action)
        elif not terminated and not truncated and not mask[action]:
            self._prev_obs = prev  # PettingZoo's own illegal-move path, as it was
            super().step(action)
        else:
            raw.step(action)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` over ``AssertOutOfBoundsWrapper`` over
    ``_TerminateIllegal``, with ``last``, ``step`` and ``agent_iter`` doing the work of the
    three wrappers in one call once the env is reset (the same checks, results and errors;
    before ``reset`` PettingZoo's own methods answer)."""

    def __init__(self, env):
        super().__init__(env)
        self._term = env.env
        self._raw = env.env.env

    def last(self, observe: bool = True):
        if not self._has_reset:
            return super().last(observe)
        raw = self._raw
        out = raw.last(observe)
        if observe:  # TerminateIllegalWrapper.observe keeps the selected agent's observation and info
            term, agent = self._term, raw.agent_selection
            term._prev_obs = out[0]
            term._prev_info = raw.infos[agent] if agent in raw.infos else {}
        return out

    def step(self, action) -> None:
        raw = self._raw
        if not self._has_reset or not raw.agents:
            return super().step(action)
        self._has_updated = True
        agent = raw.agent_selection
        assert (action is None and (raw.terminations[agent] or raw.truncations[agent])) or \
            raw.action_space(agent).contains(action), "action is not in action space"
        self._term.step(action)

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            return super().agent_iter(max_iter)
        return _OrderEnforcingIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _OrderEnforcingIterable(wrappers.order_enforcing.AECOrderEnforcingIterable):
    def __iter__(self):
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(wrappers.order_enforcing.AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator``'s ``__next__`` reading the raw env directly."""

    def __next__(self):
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection


def wrap(raw: AECEnv):
    """The PettingZoo classic wrappers: illegal action -> -1 for that agent and the episode ends.
    ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` as PettingZoo has them, the first and last subclassed to reach the
    raw env directly on every step (``_TerminateIllegal``, ``_OrderEnforcing``)."""
    e = _TerminateIllegal(raw, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return _OrderEnforcing(e)
