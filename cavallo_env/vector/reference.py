"""``PyTables``: the compiled core's tables API on the Python engines (``CAVALLO_CORE=python``, or no core).

Table i is the game's raw AEC env (``games.get(game).raw_env``), started from
an engine state's deal by names and stepped with the same action ids, so the
arrays are the AEC env's: ``current`` (int8 (n,)), ``mask`` (uint8 (n, A)),
``rewards`` (float32 (n, seats), ``env.rewards`` of the step), ``done`` (bool
(n,)), ``observe()`` (float32 (n, obs)).  The same methods as the core's
tables (``reset``, ``reset_deals``, ``step``, ``random_actions``,
``observe``) with the same arguments and errors.

Randomness is the core's ``rng="python"``: a table's ``random.Random(seed)``
deals as the engine's ``random_deal`` / ``random_state`` and goes on to draw
``random_actions()`` exactly as the core does (``random_playout``'s moves,
spelled as actions; a capture planned when drawn, its takes on the next
calls), and Scopa's later deals of a match; so the two paths give the same
arrays.  ``rng="fast"`` (the core's splitmix64) has no Python twin: here it
deals as ``"python"`` does.  Slow (a Python env a table): the reference.
"""

from __future__ import annotations

import importlib
import random
from types import SimpleNamespace

import numpy as np

from .. import games
from ..core.tables import RNGS, CoreTables, action_array, seed_array, where_array
from ..games.shuffle import shuffle

_GAMES = ("briscola", "cavalloicera", "scopa")


class PyTables:
    """n tables of ``game`` on the Python engines, with the core tables' API (see the module doc)."""

    def __init__(self, game: str, n: int, reward: str = "points", rng: str = "python", deck: str = "milanesi",
                 match: bool = True, core_tables: str = ""):
        if game not in _GAMES or rng not in RNGS:  # a bad reward, deck or match: the AEC env says what is wrong
            raise ValueError(f"game must be one of {_GAMES} and rng one of {RNGS}, got {game!r:.40}, {rng!r:.40}")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of tables must be an int >= 1, got {n!r:.40}")
        self.game, self.n, self.reward, self.rng = game, int(n), reward, rng
        self.deck, self.match = deck, match
        self._core_tables = core_tables  # "module:class" of the game's core tables, whose deal checks it borrows
        g = self._g = games.get(game)
        kwargs = {"reward": reward}
        if game != "cavalloicera":
            kwargs["deck"] = deck
        if game == "scopa":
            kwargs["match"] = match
        self.envs = [g.raw_env(**kwargs) for _ in range(self.n)]
        e = self.envs[0]
        self.NUM_ACTIONS = e.num_actions
        self._agents = e.possible_agents
        self.current = np.zeros(self.n, np.int8)
        self.mask = np.zeros((self.n, e.num_actions), np.uint8)
        self.rewards = np.zeros((self.n, len(self._agents)), np.float32)
        self.done = np.ones(self.n, bool)
        self._obs = np.zeros((self.n, e.obs_size), np.float32)
        self._actions = np.full(self.n, -1, np.int32)
        self._rngs = [random.Random(0) for _ in range(self.n)]
        self._plan = [(-1, ())] * self.n  # the capture a random action drew: (card, set), for its takes
        self._deals = [0] * self.n  # Scopa: the deals completed, to see a new one start
        self._bots: dict = {}  # bot name -> the Python bot (made on first use)
        self._spelled = [[] for _ in range(self.n)]  # the rest of each table's bot move, as actions

    # -- deals -------------------------------------------------------------------
    def reset(self, seeds, decks=None, where=None):
        """Deal table i from ``seeds[i]`` as the engine's random deal (the core's ``rng="python"``)."""
        seeds = seed_array(seeds, self.n)
        self._check_decks(decks)
        for i in self._rows(where_array(where, self.n)):
            rng = random.Random(int(seeds[i]))
            self._start(i, self._random_state(rng), rng)
        return self.current, self.mask

    def reset_deals(self, ids, leaders=None, decks=None, where=None, *, dealers=None, seeds=None):
        """Start table i from the deal ``ids[i]`` (the core's ``deal_ids`` order) led / dealt by
        ``leaders[i]`` / ``dealers[i]``; Scopa's ``seeds`` seed the later deals of a match."""
        firsts = leaders if dealers is None else dealers
        ids = np.ascontiguousarray(ids, dtype=np.int8)
        firsts = np.ascontiguousarray(firsts, dtype=np.int8)
        _check_deals(self.game, self._core_tables, ids, firsts, self.n)  # the core's checks and words
        self._check_decks(decks)
        seeds = np.zeros(self.n, np.uint64) if seeds is None else seed_array(seeds, self.n)
        for i in self._rows(where_array(where, self.n)):
            rng = random.Random(int(seeds[i]))
            self._start(i, self._state_of(ids[i].tolist(), int(firsts[i]), rng), rng)
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
        draw = _RANDOM[self.game]
        for i, env in enumerate(self.envs):
            self._actions[i] = -1 if self.done[i] else draw(self, i, env.core)
        return self._actions

    def bot_actions(self, bot: str, where=None) -> np.ndarray:
        """int32 (n,): the core's ``bot_actions(bot)`` on the Python bots: at each table (where ``where`` is
        true) the next action of the move ``bots.make(bot, game=...)`` chooses from the seat's view; a capture
        is its card, then its table cards on the next calls (only captures the bot started are continued)."""
        if bot not in _CORE_BOTS:
            raise ValueError(f"bot must be one of {', '.join(map(repr, _CORE_BOTS))}, got {bot!r:.40}")
        chooser = self._bots.get(bot)
        if chooser is None:
            from ..bots import make  # the bots' registry: imported when a Python bot first plays

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
        if getattr(core, "building", None) is not None:  # the bot's capture, on its way: its next take
            spelled = self._spelled[i]
            if not spelled:
                raise NotImplementedError(f"table {i}: the Python path's bots continue only the captures they "
                                          f"started; this one was started by another player")
            return spelled.pop(0)
        state = getattr(core, "state", core)
        view = self._g.make_view(state, state.current)
        move = self._g.move_from_dict(chooser.choose(view), view.get("deck"))
        actions = _move_actions(self.game, state, move)
        self._spelled[i] = actions[1:]
        return actions[0]

    def _rows(self, where):
        return range(self.n) if where is None else np.flatnonzero(where).tolist()

    def _check_decks(self, decks) -> None:
        if decks is not None and decks != self.deck:
            raise ValueError(f"these tables play the {self.deck!r} deck (made with it), got {decks!r:.40}")

    def _start(self, i: int, state, rng: random.Random) -> None:
        env = self.envs[i]
        env.reset(options={"deal": _deal_names(self.game, self._g, state)})
        if self.game == "scopa":  # the later deals of a match, and the random moves: the table's generator
            env.core.state.rng = rng
        self._rngs[i] = rng
        self._deals[i] = 0
        self._plan[i] = (-1, ())
        self._spelled[i] = []
        self._refresh(i)

    def _act(self, i: int, a: int) -> None:
        env = self.envs[i]
        env.step(a)
        self.rewards[i] = [env.rewards[agent] for agent in self._agents]
        core = env.core
        if getattr(core, "building", None) is None and self.game == "cavalloicera":
            self._plan[i] = (-1, ())  # the core forgets the drawn capture once a move is played
        if self.game == "scopa" and len(core.state.results) != self._deals[i]:
            self._deals[i] = len(core.state.results)
            self._plan[i] = (-1, ())  # a new deal: the core forgets its planned capture
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

    def _random_state(self, rng: random.Random):
        if self.game == "briscola":
            from ..briscola.engine import random_deal

            return random_deal(rng, self.deck)
        if self.game == "scopa":
            from ..scopa.engine import MONEY_SUIT, ScopaDeal, ScopaState, draw_deal

            dealer = rng.randrange(2)
            return ScopaState(ScopaDeal(*draw_deal(rng, dealer), money=MONEY_SUIT[self.deck]), self.deck, self.match, rng)
        from ..cavalloicera.engine import HAND_SIZE, NUM_CARDS, NUM_SEATS, CavalloiceraState

        deck = list(range(NUM_CARDS))
        shuffle(rng, deck)  # as engine.random_deal, on this table's generator
        dealer = rng.randrange(NUM_SEATS)
        hands = [sorted(deck[k * HAND_SIZE:(k + 1) * HAND_SIZE]) for k in range(NUM_SEATS)]
        return CavalloiceraState(hands, sorted(deck[NUM_SEATS * HAND_SIZE:]), dealer)

    def _state_of(self, ids: list, first: int, rng: random.Random):
        if self.game == "briscola":
            from ..briscola.engine import BriscolaState

            return BriscolaState((ids[0:3], ids[3:6]), ids[6], ids[7:], first, self.deck)
        if self.game == "scopa":
            from ..scopa.engine import MONEY_SUIT, ScopaDeal, ScopaState, split_deck

            deal = ScopaDeal(*split_deck(ids, first), money=MONEY_SUIT[self.deck])
            return ScopaState(deal, self.deck, self.match, rng)
        from ..cavalloicera.engine import CavalloiceraState

        return CavalloiceraState([ids[k * 12:(k + 1) * 12] for k in range(4)], ids[48:52], first)

    def _illegal(self, i: int, a: int) -> str:
        if not 0 <= a < self.NUM_ACTIONS:
            return f"table {i}: action {a} is not an action id 0..{self.NUM_ACTIONS - 1}"
        if self.done[i]:
            return f"table {i}: the deal is over (skip it with a negative action or reset it), got action {a}"
        env = self.envs[i]
        legal = ", ".join(f"{x} ({env.action_name(x)})" for x in env.core.legal_actions())
        return f"table {i}: action {a} ({env.action_name(a)}) is not legal for seat {self.current[i]}; legal: {legal}"


def _deal_names(game: str, g, state) -> dict:
    """The deal ``state`` started from, by names (what the AEC env's ``reset(options={"deal": ...})`` takes)."""
    record = g.to_record(state)
    if game == "scopa":
        first = record["deals"][0]
        return {k: first[k] for k in ("dealer", "hands", "table", "stock")}
    keys = ("hands", "trump", "stock", "leader") if game == "briscola" else ("dealer", "hands", "table")
    return {k: record[k] for k in keys}


def _check_deals(game: str, core_tables: str, ids: np.ndarray, firsts: np.ndarray, n: int) -> None:
    """The core's checks of given deals, with its words (``CoreTables._deal_arrays``: no extension needed)."""
    module, name = core_tables.split(":")
    cls = getattr(importlib.import_module(module), name)
    like = SimpleNamespace(n=n, CARDS=cls.CARDS, SEATS=cls.SEATS, DEAL_SEAT=cls.DEAL_SEAT)
    ids, _ = CoreTables._deal_arrays(like, ids, firsts)
    if game == "scopa":
        from ..core.scopa import _check_kings

        _check_kings(ids)


_CORE_BOTS = ("greedy", "heuristic")  # the bots of the core's bot_actions (cavallo_env.core.bots)


def _move_actions(game: str, state, move) -> list:
    """The action ids that play ``move`` (``(card, capture)``; Briscola: a card) from ``state``."""
    if game == "briscola":
        return [move]
    card, capture = move
    if game == "cavalloicera":
        from ..cavalloicera.actions import move_to_actions

        return move_to_actions(state, card, capture)
    from ..scopa.actions import move_to_actions

    return move_to_actions(state, move)


# ---------------------------------------------------------------- random actions, draw for draw as the core


def _briscola_random(tables: PyTables, i: int, state) -> int:
    hand = state.hands[state.current]
    return hand[int(tables._rngs[i].random() * len(hand))]  # random_playout's choice


def _cavalloicera_random(tables: PyTables, i: int, core) -> int:
    from ..cavalloicera.actions import CAPTURE, TAKE

    rng = tables._rngs[i]
    if core.building is None:
        card, capture = rng.choice(core.state.legal_moves())
        if not capture:
            return card
        tables._plan[i] = (card, tuple(sorted(capture)))
        return CAPTURE + card
    card, taken, sets = core.building
    plan_card, plan = tables._plan[i]
    if plan_card != card or plan[:len(taken)] != tuple(taken):  # a capture started elsewhere: draw a set
        ordered = sorted(tuple(sorted(s)) for s in sets)
        plan = ordered[rng._randbelow(len(ordered))]
        tables._plan[i] = (card, plan)
    return TAKE + plan[len(taken)]


def _scopa_random(tables: PyTables, i: int, core) -> int:
    from ..scopa.actions import CAPTURE, TAKE

    rng = tables._rngs[i]
    if core.building is None:
        state = core.state
        moves = state.legal_moves()
        card, capture = rng.choice(moves)
        if not capture:
            return card
        if sum(1 for c, _ in moves if c == card) > 1:
            tables._plan[i] = (card, tuple(sorted(capture)))
        return CAPTURE + card
    card, taken, sets = core.building
    plan_card, plan = tables._plan[i]
    if plan_card == card and set(taken) <= set(plan):
        rest = sorted(set(plan) - set(taken))
        if rest and core.legal_mask()[TAKE + rest[0]]:
            return TAKE + rest[0]
    takes = core.legal_actions()  # not building the planned capture: a uniform legal take
    return takes[rng._randbelow(len(takes))]


_RANDOM = {"briscola": _briscola_random, "cavalloicera": _cavalloicera_random, "scopa": _scopa_random}
