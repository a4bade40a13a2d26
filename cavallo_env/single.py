"""The single-agent door: a Gymnasium env per game where the learner holds one seat
(or a whole team) and bots play the others -- ready for sb3-contrib's ``MaskablePPO``.

::

    from cavallo_env.single import SingleAgentEnv
    env = SingleAgentEnv("briscola", opponents="heuristic")      # learner in seat 0
    env = SingleAgentEnv("cavalloicera", opponents=["greedy", "random"], team=True)  # seats 0 and 2
    env = SingleAgentEnv("scopa", opponents="greedy", seat=1, match=False, reward="points")

    import gymnasium, cavallo_env.single                           # registers the ids below
    env = gymnasium.make("cavallo/Briscola-single-v1", opponents="greedy")
    env = gymnasium.make("cavallo_env.single:cavallo/Scopa-single-v1")  # imports the module itself

It is built on the game's raw PettingZoo env (``games.get(game).raw_env``): the
same observations, action ids and rewards (docs/contract.md), seen from the
learner's seat.

- ``observation_space``: the AEC env's ``"observation"`` ``Box`` (float32,
  seat-relative, nothing hidden); ``action_space``: ``Discrete(num_actions)``.
- ``action_masks()``: the legal actions of the learner's seat to act, a bool
  array (sb3-contrib's convention); all False once the episode is over.
- Opponents play between the learner's actions: ``opponents`` is one entry
  for every other seat, or a list with one per other seat in increasing seat
  order.  An entry is a bot spec (``"greedy"``, ``"heuristic"``,
  ``"ismcts:200"``, ``"policy:model.onnx"``..., made with
  ``cavallo_env.bots.make(spec, seed=..., game=game)``), a bot object (anything
  with ``choose(view) -> move dict``), or a plain callable
  ``fn(obs) -> action id`` given the seat's AEC observation dict
  ``{"observation", "action_mask"}`` and called once per *action* (a capture in
  Cavalloìcera and Scopa is built over several actions, as for the learner).
- Team play (Cavalloìcera): ``team=True`` (or ``seats=(0, 2)``) gives the
  learner both seats of its team; ``info["seat"]`` says which one is to act
  (the observation is that seat's own).
- Reward: the AEC env's reward of the learner's seat, summed over everything
  played since the learner's last action.  With the defaults that is 0 until
  the end, then the team's final return: the point difference in Cavalloìcera
  and Briscola, +1/-1 for a Scopa match (``reward="win"``/``"points"`` as in
  the AEC env; Scopa's ``"points"`` pays each deal of a match as it ends).
- ``reset(seed=s)`` deals what the AEC env deals for ``reset(seed=s)`` (the
  env's ``np_random`` is the AEC env's generator); ``reset()`` continues it;
  ``reset(options={"deal": {...}})`` starts from an exact deal.  Bots are
  seeded from ``bot_seed`` and decide from what they see, so the same seed and
  the same learner actions give the same episode.
- An illegal action (one ``action_masks()`` excludes; MaskablePPO never picks
  one): with ``on_illegal="end"`` (the default, as PettingZoo's classic
  wrapper) the episode ends with reward ``illegal_reward`` (-1),
  ``info["illegal_action"]`` says what was wrong, and a ``UserWarning`` is
  issued; with ``on_illegal="raise"`` a ``ValueError`` names the action and
  the legal ones, and nothing changes.  An action that is not an integer
  always raises ``ValueError``.  Bad arguments (unknown game, seat, bot spec,
  option) raise ``ValueError`` at construction.

The env passes ``gymnasium.utils.env_checker.check_env`` and
``stable_baselines3.common.env_checker.check_env`` (tests/test_single_agent.py).
A trained MaskablePPO policy plays in ``cavallo eval`` as ``policy:<model>.onnx``
once exported with ``training.sb3_export.export_maskable_ppo``
(examples/sb3_maskable_ppo.py; docs/environment.md).
"""

from __future__ import annotations

import inspect
import warnings

import gymnasium
import numpy as np
from gymnasium import spaces

from . import games
from .bots import make
from .evaluation import derive_seed
from .games.cardenv import as_action, engine_state  # engine_state: also importable from here

__all__ = ["SingleAgentEnv", "make_env", "env_id", "ON_ILLEGAL"]

ON_ILLEGAL = ("end", "raise")


def env_id(game: str) -> str:
    """The Gymnasium id of ``game``'s single-agent env: ``cavallo/Briscola-v1`` -> ``cavallo/Briscola-single-v1``."""
    prefix, _, version = games.get(game).env_id.rpartition("-v")
    return f"{prefix}-single-v{version}"


def bot_actions(game, learning, state, seat: int, bot) -> list[int]:
    """The env actions that play ``bot``'s move for ``seat`` in ``state`` (a capture: several,
    ``learning.table(state).move_actions``); ``ValueError`` for a malformed or illegal answer."""
    answer = bot.choose(game.make_view(state, seat))
    try:
        move = game.move_from_dict(answer, game.deck_of(state))
    except ValueError as e:
        raise ValueError(f"bot {bot!r} in seat {seat} answered a malformed move: {e}") from None
    if move not in state.legal_moves():
        raise ValueError(f"bot {bot!r} in seat {seat} answered an illegal move {answer!r}")
    return list(learning.table(state).move_actions(move))


def make_env(game: str = "briscola", **kwargs) -> "SingleAgentEnv":
    """``SingleAgentEnv(game, **kwargs)`` (for ``make_vec_env`` and friends)."""
    return SingleAgentEnv(game, **kwargs)


class SingleAgentEnv(gymnasium.Env):
    """One game seen from the learner's seat(s); bots play the rest (see the module doc).

    ``game``: a game name (``games.names()``).  ``opponents``: one entry for
    every other seat or a list of them.  ``seat`` (default 0), or ``team=True``
    for every seat of ``seat``'s team, or ``seats=(...)`` (one team).
    ``bot_seed``: the bots' seeds derive from it and their seat.  ``reward``,
    ``deck``, ``match`` and ``render_mode``: as the game's AEC env.
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, game: str = "briscola", opponents="greedy", seat: int = 0, *, team: bool = False,
                 seats=None, bot_seed: int | None = 0, on_illegal: str = "end", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **options):
        self.game = g = games.get(game)  # ValueError naming the known games
        n = g.num_seats
        self.seats = _learner_seats(g, seat, team, seats)
        self.opponent_seats = tuple(s for s in range(n) if s not in self.seats)
        if on_illegal not in ON_ILLEGAL:
            raise ValueError(f"on_illegal must be 'end' or 'raise', got {on_illegal!r}")
        self.on_illegal = on_illegal
        self.illegal_reward = float(illegal_reward)
        self.options = options
        self._raw = _raw_env(g, render_mode, options)
        self.render_mode = render_mode
        entries = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents] * len(self.opponent_seats)
        if len(entries) != len(self.opponent_seats):
            raise ValueError(f"opponents: {len(entries)} given for {len(self.opponent_seats)} other seat(s) "
                             f"{list(self.opponent_seats)}; give one entry or one per seat")
        self.opponents = {s: _opponent(e, s, g.name, bot_seed) for s, e in zip(self.opponent_seats, entries)}
        agent = self._raw.possible_agents[self.seats[0]]
        self.observation_space = self._raw.observation_space(agent)["observation"]
        self.action_space = spaces.Discrete(self._raw.action_space(agent).n)
        self._learning = g.learning()
        self._agents = self._raw.possible_agents
        self._seat_of = {a: i for i, a in enumerate(self._agents)}
        self._mask = np.zeros(self.action_space.n, bool)
        self._queue: list[int] = []  # the remaining actions of a bot's move
        self._seat = self.seats[0]  # the learner's seat to act (the last one once over)
        self._done = True
        self._started = False

    # -- gymnasium -------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        raw = self._raw
        raw.reset(seed=seed, options=options)
        # one generator: this env's np_random is the AEC env's, which the deals come from
        self._np_random, self._np_random_seed = raw.np_random, raw._np_random_seed
        self._queue.clear()
        self._done = False
        self._started = True
        self._advance()
        return self._obs(), self._info()

    def step(self, action):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        a = as_action(action, self.action_space.n)  # ValueError for a non-integer
        if not (0 <= a < self.action_space.n and self._mask[a]):
            return self._illegal(a)
        raw = self._raw
        me = self._agents[self.seats[0]]
        raw.step(a)
        reward = raw.rewards[me] + self._advance()
        return self._obs(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner's seat to act (bool, ``num_actions``); all False once over."""
        return self._mask.copy()

    def render(self):
        return self._raw.render()

    def close(self):
        self._raw.close()

    # -- extras ----------------------------------------------------------------
    @property
    def aec(self):
        """The underlying raw PettingZoo env (``record()``, ``render()``, ``state()``...)."""
        return self._raw

    def record(self) -> dict:
        """The game record of the episode so far (docs/contract.md)."""
        return self._raw.record()

    # -- playing the other seats -------------------------------------------------
    def _advance(self) -> float:
        """Let the opponents play until a learner seat is to act or the episode ends;
        the learner's reward from those steps."""
        raw = self._raw
        me = self._agents[self.seats[0]]
        reward = 0.0
        while True:
            legal = raw.legal_actions()
            if not legal:  # over
                self._done = True
                self._mask[:] = False
                return reward
            seat = self._seat_of[raw.agent_selection]
            if seat in self.seats:
                self._seat = seat
                self._mask[:] = False
                self._mask[legal] = True
                return reward
            raw.step(self._opponent_action(seat, legal))
            reward += raw.rewards[me]

    def _opponent_action(self, seat: int, legal: list[int]) -> int:
        if self._queue:
            return self._queue.pop(0)
        who = self.opponents[seat]
        if not hasattr(who, "choose"):  # fn(obs) -> action id
            answer = who(self._raw.observe(self._agents[seat]))
            try:
                a = as_action(answer, self.action_space.n)
            except ValueError:
                a = None
            if a not in legal:
                raise ValueError(f"opponent {who!r} in seat {seat} answered {answer!r}, not one of the legal "
                                 f"actions {legal}")
            return a
        first, *rest = bot_actions(self.game, self._learning, engine_state(self._raw), seat, who)
        self._queue[:] = rest
        return first

    # -- observations ------------------------------------------------------------
    def _obs(self) -> np.ndarray:
        return self._raw.observe(self._agents[self._seat])["observation"]

    def _info(self) -> dict:
        info = {"seat": self._seat}
        if self._done:
            info.update(self._raw.infos[self._agents[self._seat]])
        return info

    def _illegal(self, a: int):
        n = self.action_space.n
        if not 0 <= a < n:
            why = f"action {a} is out of range 0..{n - 1}"
        else:
            try:
                self._raw.step(a)  # the raw env refuses it, saying which actions are legal, and changes nothing
                raise AssertionError(f"the raw env accepted action {a}, which the mask excluded")
            except ValueError as e:
                why = str(e)
        why += " (pass action_masks() to the learner: sb3-contrib's MaskablePPO does)"
        if self.on_illegal == "raise":
            raise ValueError(why)
        # one message text, so Python's default filter shows it once, not at every illegal action
        warnings.warn("SingleAgentEnv: an illegal action ended the episode with illegal_reward "
                      "(info['illegal_action'] says which; use action_masks(), or on_illegal='raise')",
                      stacklevel=3)
        self._done = True
        self._mask[:] = False
        return self._obs(), self.illegal_reward, True, False, {"seat": self._seat, "illegal_action": why}

    def __repr__(self):
        return (f"<SingleAgentEnv {self.game.name} seats={list(self.seats)} "
                f"opponents={ {s: getattr(o, 'name', o) for s, o in self.opponents.items()} }>")


def _learner_seats(game, seat, team: bool, seats) -> tuple:
    n = game.num_seats

    def check(s):
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 0 <= s < n:
            raise ValueError(f"{game.title} has seats 0..{n - 1}, got seat {s!r}")
        return int(s)

    if seats is not None:
        if team:
            raise ValueError("give either team=True or seats=..., not both")
        if isinstance(seats, (int, np.integer)):
            seats = [seats]
        out = sorted({check(s) for s in seats})
        if not out or len(out) != len(list(seats)):
            raise ValueError(f"seats must be distinct seats of one team, got {seats!r}")
    else:
        s0 = check(seat)
        out = [s for s in range(n) if game.team_of(s) == game.team_of(s0)] if team else [s0]
    if len({game.team_of(s) for s in out}) != 1:
        raise ValueError(f"the learner's seats {out} must all be of one team (teams are seat % 2)")
    return tuple(out)


def _raw_env(game, render_mode, options: dict):
    """The game's raw AEC env with ``options`` (reward, deck, match), checked with clear errors."""
    reward = options.get("reward")
    rules = {k: v for k, v in options.items() if k != "reward"}
    game.check_options(rules)  # ValueError for an unknown option or deck
    factory = game.module("aec").raw_env
    takes = inspect.signature(factory).parameters
    kwargs = {k: v for k, v in rules.items() if k in takes}  # Cavalloìcera's env has no deck keyword: one deck
    if reward is not None:
        kwargs["reward"] = reward
    return factory(render_mode=render_mode, **kwargs)


def _opponent(entry, seat: int, game: str, bot_seed):
    if isinstance(entry, str):
        seed = None if bot_seed is None else derive_seed("single", bot_seed, seat)
        return make(entry, seed=seed, game=game)  # BotSpecError (a ValueError) for a bad spec
    if hasattr(entry, "choose") or callable(entry):
        return entry
    raise ValueError(f"an opponent must be a bot spec string, a bot (choose(view)) or a callable fn(obs) -> action, "
                     f"got {entry!r}")


def _register() -> None:
    for name in games.names():
        gid = env_id(name)
        if gid not in gymnasium.registry:
            gymnasium.register(gid, entry_point="cavallo_env.single:SingleAgentEnv", kwargs={"game": name})


_register()
