"""``PyTables``: the compiled core's tables API on the Python engines (``CAVALLO_CORE=python``, or no core).

Table i is the game's raw AEC env (``games.get(game).raw_env``), started from
an engine state's deal by names and stepped with the same action ids, so the
arrays are the AEC env's: ``current`` (int8 (n,)), ``mask`` (uint8 (n, A)),
``rewards`` (float32 (n, seats), ``env.rewards`` of the step), ``done`` (bool
(n,)), ``observe()`` (float32 (n, obs)).  The same methods as the core's
tables (``reset``, ``reset_deals``, ``step``, ``random_actions``,
``observe``) with the same arguments and errors.

Randomness is the core's ``rng="python"``: a table's ``random.Random(seed)``
deals as the game's ``new_state`` (the engine's ``random_deal`` /
``random_state``) and goes on to draw ``random_actions()`` exactly as the
core does (``random_playout``'s moves, spelled as actions; a capture planned
when drawn, its takes on the next calls), and what the game draws later
(Scopa's later deals of a match); so the two paths give the same arrays.
``rng="fast"`` (the core's splitmix64) has no Python twin: here it deals as
``"python"`` does.  Slow (a Python env a table): the reference.

Game-agnostic: what a table needs of its game is the ``Game``'s
(``cavallo_env.games.base``): ``new_state``, ``state_from_ids`` (a deal in the
core's ids), ``deal_of`` (a deal by names, for the env's reset), ``use_rng``,
``random_actions`` (the core's random draws), ``move_actions`` (a bot's move
as actions) and ``core_tables``.
"""

from __future__ import annotations

import importlib
import random
from types import SimpleNamespace

import numpy as np

from .. import games
from ..bots import make
from ..core.tables import RNGS, CoreTables, action_array, seed_array, where_array
from ..games.cardenv import engine_state


class PyTables:
    """n tables of ``game`` on the Python engines, with the core tables' API (see the module doc).

    ``options``: the AEC env's keyword options besides the reward (a deck, Scopa's ``match``), also the
    game's options of its deals; ``core_tables``: ``"module:class"`` of the game's core tables, whose deal
    checks it borrows."""

    def __init__(self, game: str, n: int, reward: str = "points", rng: str = "python", core_tables: str = "",
                 **options):
        g = self._g = games.get(game)  # a bad reward or option: the AEC env says what is wrong
        if rng not in RNGS:
            raise ValueError(f"rng must be one of {RNGS}, got {rng!r:.40}")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of tables must be an int >= 1, got {n!r:.40}")
        self.game, self.n, self.reward, self.rng = game, int(n), reward, rng
        self.options = options
        self._core_tables = core_tables
        self.envs = [g.raw_env(reward=reward, **options) for _ in range(self.n)]
        e = self.envs[0]
        self.NUM_ACTIONS = e.num_actions
        self._agents = e.possible_agents
        self.current = np.zeros(self.n, np.int8)
        self.mask = np.zeros((self.n, e.num_actions), np.uint8)
        self.rewards = np.zeros((self.n, len(self._agents)), np.float32)
        self.done = np.ones(self.n, bool)
        self._obs = np.zeros((self.n, e.obs_size), np.float32)
        self._actions = np.full(self.n, -1, np.int32)
        self._random = [g.random_actions(random.Random(0)) for _ in range(self.n)]  # each table's random moves
        self._bots: dict = {}  # bot name -> the Python bot (made on first use)
        self._spelled = [[] for _ in range(self.n)]  # the rest of each table's bot move, as actions

    # -- deals -------------------------------------------------------------------
    def reset(self, seeds, decks=None, where=None):
        """Deal table i from ``seeds[i]`` as the engine's random deal (the core's ``rng="python"``)."""
        seeds = seed_array(seeds, self.n)
        self._check_decks(decks)
        for i in self._rows(where_array(where, self.n)):
            rng = random.Random(int(seeds[i]))
            self._start(i, self._g.new_state(rng, **self.options), rng)
        return self.current, self.mask

    def reset_deals(self, ids, leaders=None, decks=None, where=None, *, dealers=None, seeds=None):
        """Start table i from the deal ``ids[i]`` (the core's ``deal_ids`` order) led / dealt by
        ``leaders[i]`` / ``dealers[i]``; Scopa's ``seeds`` seed the later deals of a match."""
        firsts = leaders if dealers is None else dealers
        ids = np.ascontiguousarray(ids, dtype=np.int8)
        firsts = np.ascontiguousarray(firsts, dtype=np.int8)
        _check_deals(self._core_tables, ids, firsts, self.n)  # the core's checks and words
        self._check_decks(decks)
        seeds = np.zeros(self.n, np.uint64) if seeds is None else seed_array(seeds, self.n)
        for i in self._rows(where_array(where, self.n)):
            rng = random.Random(int(seeds[i]))
            self._start(i, self._g.state_from_ids(ids[i].tolist(), int(firsts[i]), rng, **self.options), rng)
        return self.current, self.mask

    # -- play ----------------------------------------------------------------------
    def step(self, actions):
        """Play ``actions[i]`` (negative: skip) at every table; ``(rewards, done)``; an illegal action
        raises the core's ``ValueError`` (nothing played)."""
        if actions is not self._actions:
            actions = action_array(actions, self.n, self.NUM_ACTIONS, "action ids")
        acts = actions.tolist()
        for i, a in enumerate(acts):
            if a >= 0 and (self.done[i] or a >= self.NUM_ACTIONS or not self.mask[i, a]):
                raise ValueError(self._illegal(i, a))
        self.rewards[:] = 0
        for i, a in enumerate(acts):
            if a >= 0:
                self._act(i, a)
        return self.rewards, self.done

    def random_actions(self) -> np.ndarray:
        """int32 (n,): the core's ``random_actions()`` with ``rng="python"``, draw for draw."""
        for i, env in enumerate(self.envs):
            self._actions[i] = -1 if self.done[i] else self._random[i].next(env.core)
        return self._actions

    def bot_actions(self, bot: str, where=None) -> np.ndarray:
        """int32 (n,): the core's ``bot_actions(bot)`` on the Python bots: at each table (where ``where`` is
        true) the next action of the move ``bots.make(bot, game=...)`` chooses from the seat's view; a capture
        is its card, then its table cards on the next calls (only captures the bot started are continued)."""
        if bot not in _CORE_BOTS:
            raise ValueError(f"bot must be one of {', '.join(map(repr, _CORE_BOTS))}, got {bot!r:.40}")
        chooser = self._bots.get(bot)
        if chooser is None:
            chooser = self._bots[bot] = make(bot, game=self.game)
        where = where_array(where, self.n)
        for i in range(self.n):
            skip = self.done[i] or (where is not None and not where[i])
            self._actions[i] = -1 if skip else self._bot_action(i, chooser)
        return self._actions

    def observe(self, seats=None) -> np.ndarray:
        """float32 (n, obs): the AEC env's observation of ``seats[i]`` (default: the seat to act)."""
        for i, env in enumerate(self.envs):
            seat = int(self.current[i]) if seats is None else int(seats[i])
            self._obs[i] = env.observe(self._agents[seat])["observation"]
        return self._obs

    # -- inside --------------------------------------------------------------------
    def _bot_action(self, i: int, chooser) -> int:
        core = self.envs[i].core
        if getattr(core, "building", None) is not None:  # a capture on its way (games.captures): the bot's next take
            spelled = self._spelled[i]
            if not spelled:
                raise NotImplementedError(f"table {i}: the Python path's bots continue only the captures they "
                                          f"started; this one was started by another player")
            return spelled.pop(0)
        state = engine_state(self.envs[i])
        view = self._g.make_view(state, state.current)
        move = self._g.move_from_dict(chooser.choose(view), view.get("deck"))
        actions = self._g.move_actions(state, move)
        self._spelled[i] = actions[1:]
        return actions[0]

    def _rows(self, where):
        return range(self.n) if where is None else np.flatnonzero(where).tolist()

    def _check_decks(self, decks) -> None:
        deck = self.options.get("deck")
        if decks is not None and decks != deck:
            raise ValueError(f"these tables play the {deck!r} deck (made with it), got {decks!r:.40}")

    def _start(self, i: int, state, rng: random.Random) -> None:
        env = self.envs[i]
        env.reset(options={"deal": self._g.deal_of(state)})
        self._g.use_rng(env, rng)  # what the game draws later, and the random moves: the table's generator
        self._random[i] = self._g.random_actions(rng)
        self._spelled[i] = []
        self._refresh(i)

    def _act(self, i: int, a: int) -> None:
        env = self.envs[i]
        env.step(a)
        self.rewards[i] = [env.rewards[agent] for agent in self._agents]
        self._random[i].played(env.core)
        self._refresh(i)

    def _refresh(self, i: int) -> None:
        env = self.envs[i]
        agent = env.agent_selection
        over = self.done[i] = env.terminations[agent]
        if over:
            self.mask[i] = 0
        else:
            self.current[i] = self._agents.index(agent)
            self.mask[i] = env.observe(agent)["action_mask"]

    def _illegal(self, i: int, a: int) -> str:
        if not 0 <= a < self.NUM_ACTIONS:
            return f"table {i}: action {a} is not an action id 0..{self.NUM_ACTIONS - 1}"
        if self.done[i]:
            return f"table {i}: the deal is over (skip it with a negative action or reset it), got action {a}"
        env = self.envs[i]
        legal = ", ".join(f"{x} ({env.action_name(x)})" for x in env.core.legal_actions())
        return f"table {i}: action {a} ({env.action_name(a)}) is not legal for seat {self.current[i]}; legal: {legal}"


def _check_deals(core_tables: str, ids: np.ndarray, firsts: np.ndarray, n: int) -> None:
    """The core's checks of given deals, with its words (``CoreTables._deal_arrays`` and the game's
    ``check_ids``: no extension needed)."""
    module, name = core_tables.split(":")
    cls = getattr(importlib.import_module(module), name)
    like = SimpleNamespace(n=n, CARDS=cls.CARDS, SEATS=cls.SEATS, DEAL_SEAT=cls.DEAL_SEAT, check_ids=cls.check_ids)
    CoreTables._deal_arrays(like, ids, firsts)


_CORE_BOTS = ("greedy", "heuristic")  # the bots of the core's bot_actions (cavallo_env.core.bots)
