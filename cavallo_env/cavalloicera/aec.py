"""The PettingZoo AEC environment of Cavalloìcera (docs/contract.md, "The AEC environment"):
``CavalloiceraEnv``, a ``games.cardenv.CardEnv`` with four seats in two teams.

``raw_env(**kwargs)`` / ``CavalloiceraEnv`` is the bare env; ``env(**kwargs)``
adds PettingZoo's classic wrappers (``games.cardenv.wrap``).

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

import numpy as np
from pettingzoo.env_registry import registration as _registration

from ..games import register_envs
from ..games.cardenv import CardEnv, CoreTable, core_extension, metadata_of, wrap
from . import ENV_ID, GAME
from .actions import ACTION_VERSION, NUM_ACTIONS, CavalloiceraActions, action_name
from .cards import NAMES, NUM_CARDS
from .encoding import OBS_LAYOUT, OBS_SIZE, OBS_VERSION, STATE_LAYOUT, STATE_SIZE, STATE_VERSION, Features
from .engine import BREAKDOWN_KEYS, HAND_SIZE, NUM_SEATS, NUM_TURNS, CavalloiceraState
from .views import render_text  # also importable from here, where it lived

__all__ = ["CavalloiceraEnv", "raw_env", "env", "ENV_ID", "AGENTS", "OBS_VERSION", "STATE_VERSION"]

AGENTS = tuple(f"player_{i}" for i in range(NUM_SEATS))

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


def _random_state(rng: np.random.Generator) -> CavalloiceraState:
    """A uniformly random deal drawn from ``rng`` (a shuffled deck and a dealer)."""
    return _state_of(*_random_cards(rng))


def _random_cards(rng: np.random.Generator) -> tuple[list, int]:
    """A uniformly random deal drawn from ``rng``: the shuffled deck (the hands, then the table) and a dealer."""
    deck = rng.permutation(NUM_CARDS).tolist()
    return deck, int(rng.integers(NUM_SEATS))


def _state_of(deck: list, dealer: int) -> CavalloiceraState:
    hands = [sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(NUM_SEATS)]
    return CavalloiceraState(hands, sorted(deck[NUM_SEATS * HAND_SIZE:]), dealer)


def _step_actions(core: CavalloiceraActions, action: int) -> None:
    core.step(action)


def _core_result(tables) -> dict:
    """``CavalloiceraState.result()`` of the core's finished table 0 (the same dict, key for key)."""
    points, rows, cards, winner = tables.result(0)
    return {"team_points": points, "breakdown": [dict(zip(BREAKDOWN_KEYS, row)) for row in rows], "cards": cards,
            "winner": winner}


class CavalloiceraEnv(CardEnv):
    """Cavalloìcera, one deal per episode, four agents ``player_0..3`` (seat i).

    Every agent's action space is ``Discrete(156)`` (place / capture with /
    take, see ``cavallo_env.cavalloicera.actions``); observations are
    ``{"observation": float32 (702,), "action_mask": int8 (156,)}``.  Rewards
    are 0 until the deal ends, then each agent gets its team's points minus
    the other team's (``reward="points"``) or +1/0/-1 (``reward="win"``).
    The core is the ``CavalloiceraActions`` (``env.core``, also ``env.game``).
    """

    GAME = GAME
    features_type = Features
    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE
    obs_high = OBS_HIGH
    state_size = STATE_SIZE
    state_high = STATE_HIGH
    episode = "deal"
    unstarted = "no deal yet"
    blank_before_reset = True
    _result = None  # the result of the deal, once over (``_info``)

    metadata = metadata_of("cavalloicera_v1", OBS_VERSION, STATE_VERSION, ACTION_VERSION)

    def __init__(self, render_mode: str | None = None, reward: str = "points"):
        super().__init__(render_mode=render_mode, reward=reward)
        # the _observation hook is the encoder's own method, (seat, acting): one call less a step
        self._observation = self._features.observation

    def _bad_reward(self, reward) -> str:
        return f"reward must be 'points' or 'win', got {reward!r}"

    # -- hooks -----------------------------------------------------------------
    def _start(self, deal):
        """The deal's ``CavalloiceraActions``, or on the compiled core its ``CoreTable`` (the same
        numbers drawn from ``np_random``)."""
        ext = core_extension("cavalloicera")
        if deal is None:
            deck, dealer = _random_cards(self.np_random)
            state = None if ext is not None else _state_of(deck, dealer)
        else:
            state = CavalloiceraState.from_deal(deal)  # ValueError saying what is wrong
            deck, dealer = [c for h in state.initial_hands for c in h] + list(state.initial_table), state.dealer
        if ext is None:
            self._features.reset(state)
            self._observation = self._features.observation
            return CavalloiceraActions(state)
        tables = self.__dict__.get("_tables")
        if tables is None:
            tables = self._tables = ext.Tables(1, False)
        tables.reset_deals(np.array([deck], np.int8), np.array([dealer], np.int8))
        make = (lambda: CavalloiceraActions(_state_of(deck, dealer))) if state is None else \
            (lambda: CavalloiceraActions(state))
        core = CoreTable(tables, make, _step_actions)
        self._observation = core.observe
        return core

    def _act(self, action: int):
        core = self._core
        if core.__class__ is CoreTable:
            core.step(action)
            return self._returns(_core_result(core.tables)) if core.done else None
        if core.step(action) is None:  # capture being built: the same agent chooses again
            self._features.set_building(core.building)
            return None
        state = core.state
        self._features.after_move(state)
        if state.turn < NUM_TURNS:
            return None
        return self._returns(state.result())

    def _returns(self, result: dict) -> list:
        """Each seat's reward at the end of the deal (keeping the result for ``infos``)."""
        self._result = result
        points = result["team_points"]
        diff = points[0] - points[1]  # as CavalloiceraState.returns
        if self.reward_type == "win":
            diff = (diff > 0) - (diff < 0)
        return [diff, -diff, diff, -diff]

    def _state_vector(self):
        """The full-information vector (``encoding`` ``STATE_VERSION``, 1018 floats)."""
        if self._core.__class__ is CoreTable:
            return self._core.state_vector(STATE_SIZE)
        return self._features.state()

    def _features_now(self) -> Features:
        """Features computed from the engine state as it is now (an env on the core keeps none)."""
        core = self._core.py
        f = Features()
        f.reset(core.state)
        f.set_building(core.building)
        return f

    def _info(self) -> dict:
        return {"result": self._result}

    def _illegal_context(self) -> str:
        building = self._engine_core().building
        return f", building a capture with {NAMES[building[0]]}" if building is not None else ""

    def _python_copy(self, d: dict) -> None:
        d["_core"] = self._core.py.copy()
        g = d["_features"] = self._features_now()
        d["_observation"] = g.observation

    def _copy_into(self, d: dict, memo) -> None:
        if self._core.__class__ is CoreTable:
            self._python_copy(d)
            return
        if self._core is not None:
            d["_core"] = self._core.copy()
        f = self._features
        g = d["_features"] = Features(f.s.copy())
        g._swords = f._swords[:]
        g._prev = f._prev
        g._built = f._built
        d["_observation"] = g.observation

    # -- extras ----------------------------------------------------------------
    @property
    def game(self) -> CavalloiceraActions:
        """The ``CavalloiceraActions`` (engine state plus capture being built); read only."""
        return self.core

    def render_text(self) -> str:
        return render_text(self._engine_core())

    action_name = staticmethod(action_name)


raw_env = CavalloiceraEnv


def env(**kwargs):
    """The wrapped environment: illegal action -> -1 for that agent and the deal ends."""
    return wrap(CavalloiceraEnv(**kwargs))


register_envs(_registration)  # also done by `import cavallo_env` when PettingZoo loads
