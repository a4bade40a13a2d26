"""The interface a game implements, and the small pieces every game shares.

A game is a ``Game`` subclass instance (``GAME`` in ``cavallo_env/<name>/``).
Its *state* is a pure-Python object (no numpy or torch) with:

- ``state.current``       the seat to play (meaningless once ``state.done``);
- ``state.done``          the episode is over (a deal, or a whole match);
- ``state.legal_moves()`` the legal moves of the seat to play, in a fixed order;
- ``state.copy()``        an independent copy (cheap: searches copy a lot).

A *move* is a hashable value (Briscola: a card id; the capture games:
``(card, capture tuple)``), translated to and from the interchange format
(a dict of card names) by ``move_to_dict``/``move_from_dict``.

What the generic code asks of a game is the set of methods below; each game
documents its own rules, deal options, records and views in ``docs/rules/``
and ``docs/contract.md``.
"""

from __future__ import annotations

import importlib
import random


class Game:
    """What a game provides to the env, records, views, bots, evaluation and CLI."""

    #: short name, the ``"game"`` field of views and the ``--game`` of the CLI
    name = ""
    #: display name
    title = ""
    num_seats = 2
    #: deck names; the first is the default
    decks: tuple = ()
    #: the ``"format"`` of this game's records
    record_format = ""
    #: id in PettingZoo's registry and the ``module:function`` building the wrapped env
    env_id = ""
    env_entry_point = ""
    #: the per-team items of ``outcome()["breakdown"]``, in display order
    breakdown_keys: tuple = ()
    #: keyword options of ``new_state``/``state_from_deal`` and their defaults (e.g. deck)
    options: dict = {}
    #: bot name -> ``"module:attribute"`` of this game's own bots (greedy, heuristic)
    bots: dict = {}
    #: the fields of this game's move dicts (docs/contract.md): the card played, and in a game that
    #: captures the table cards it takes
    move_fields: tuple = ("play",)

    # -- options ---------------------------------------------------------------
    def check_options(self, options: dict) -> dict:
        """``options`` with defaults filled in; ``ValueError`` for an unknown key or value."""
        unknown = [k for k in options if k not in self.options]
        if unknown:
            known = ", ".join(self.options) or "none"
            raise ValueError(f"{self.title}: unknown option(s) {', '.join(map(repr, unknown))}; known: {known}")
        out = dict(self.options)
        out.update(options)
        if "deck" in out and out["deck"] not in self.decks:
            raise ValueError(f"{self.title}: unknown deck {out['deck']!r}; known decks: {', '.join(self.decks)}")
        return out

    def team_of(self, seat: int) -> int:
        """The team (side) of a seat: the seat itself in a two-player game."""
        return seat % 2

    # -- rules -----------------------------------------------------------------
    def new_state(self, seed=None, **options):
        """A random start from ``random.Random(seed)`` (any value it accepts); ``seed`` a
        ``random.Random``: drawn from that generator itself (a match's later deals too)."""
        raise NotImplementedError

    def state_from_deal(self, deal, **options):
        """A start from a deal given by names; ``ValueError`` saying what is wrong."""
        raise NotImplementedError

    def play(self, state, move) -> None:
        """Apply a legal move (trusted: use ``check_move`` first for untrusted input)."""
        raise NotImplementedError

    def check_move(self, state, move) -> str | None:
        """Why ``move`` is illegal for the seat to play, or None."""
        if state.done:
            return "the game is over"
        if move in state.legal_moves():
            return None
        return f"{self.describe_move(move)} is not a legal move of seat {state.current}"

    def outcome(self, state) -> dict:
        """The final score by team: ``{"points": [p0, p1], "breakdown": [{...}, {...}], "winner": 0|1|None}``.

        ``points`` decide the winner; ``breakdown`` holds ``breakdown_keys``.
        """
        raise NotImplementedError

    def returns(self, state, reward: str = "points") -> list[float]:
        """Per-seat return of a finished state: the point difference of the seat's team, or +1/0/-1."""
        out = self.outcome(state)
        p = out["points"]
        diff = p[0] - p[1]
        if reward == "win":
            diff = (diff > 0) - (diff < 0)
        return [float(diff if self.team_of(s) == 0 else -diff) for s in range(self.num_seats)]

    # -- interchange -----------------------------------------------------------
    # Card names depend on the deck (the 40-card decks share the suit "clubs"),
    # so moves are named and read in a deck: ``deck_of`` a view or a state.
    def deck_of(self, view_or_state) -> str:
        """The deck of a view (its ``"deck"``) or of a state (its ``deck``); the default deck otherwise."""
        deck = view_or_state.get("deck") if isinstance(view_or_state, dict) else getattr(view_or_state, "deck", None)
        return deck if deck in self.decks else self.decks[0]

    def move_to_dict(self, move, deck: str | None = None) -> dict:
        """The interchange form of a move, cards named in ``deck``."""
        raise NotImplementedError

    def move_from_dict(self, d, deck: str | None = None):
        """A move from its dict (names of ``deck``); ``ViewError`` if malformed."""
        raise NotImplementedError

    def describe_move(self, move, deck: str | None = None) -> str:
        """A short human-readable text of a move."""
        return str(self.move_to_dict(move, deck))

    # A game's folder holds the modules ``views`` (``make_view``,
    # ``state_from_view``, ``legal_moves_of``), ``records`` (``to_record``,
    # ``replay``) and ``aec`` (``raw_env``, ``env``); the methods below call them.
    def module(self, name: str):
        """The game's module ``name`` (``views``, ``records``, ``aec``, ...), imported on first use."""
        return importlib.import_module(f"{type(self).__module__}.{name}")

    def make_view(self, state, seat: int) -> dict:
        """The JSON view of ``seat`` (docs/contract.md); ``legal_moves`` empty unless it is to play."""
        return self.module("views").make_view(state, seat)

    def state_from_view(self, view, rng: random.Random | None = None):
        """Check a view and rebuild a state consistent with it (the hidden cards
        dealt at random with ``rng``, in a fixed order without); ``ViewError``."""
        return self.module("views").state_from_view(view, rng)

    def legal_moves_of(self, view) -> list:
        """The view's ``legal_moves`` as moves; ``ViewError`` if one cannot be read."""
        return self.module("views").legal_moves_of(view)

    def to_record(self, state) -> dict:
        """The game record (docs/contract.md) of the game so far; ``result`` once over."""
        return self.module("records").to_record(state)

    def replay(self, record, *, line: int | None = None):
        """Replay a record, checking every move and the stated result; ``RecordError``."""
        return self.module("records").replay(record, line=line)

    def render(self, state) -> str:
        """A plain-text picture of the state."""
        return repr(state)

    #: the rules in short, for a person at the terminal (``cavallo play``'s ``rules``)
    rules_summary = ""

    def rules_text(self, options: dict | None = None) -> str:
        """The rules in short for a game played with ``options`` (e.g. a single Scopa deal)."""
        return self.rules_summary

    def view_text(self, view: dict, options: dict | None = None) -> str:
        """A view as a person at the table reads it (``cavallo play``), in a game played with
        ``options`` (a view does not say, e.g., whether a Scopa deal is part of a match)."""
        skip = ("legal_moves", "history", "game")
        return "\n".join(f"{k}: {v}" for k, v in view.items() if k not in skip) + "\n"

    #: the words a person reads for the breakdown's items and the bonuses (``{key: label}``)
    item_labels: dict = {}

    #: a short legend of the terms a deal watched move by move shows (``cavallo demo``)
    legend = ""

    def deal_notes(self, view: dict) -> str:
        """Lines a person watching a deal reads before its first move (``cavallo demo``), from the
        first view (none by default)."""
        return ""

    def move_note(self, before: dict, after: dict) -> str:
        """A short note on what a move caused, for a person watching (``cavallo demo``): from the
        mover's views before and after it; ``""`` for nothing."""
        return ""

    def after_move(self, state, viewer: int) -> dict:
        """What the last move caused that ``viewer`` may know, beyond the move itself (a trick's
        winner and draws, where the table's last cards went), as JSON: shown after each move by
        ``cavallo play`` and in the table's move list.  Nothing by default."""
        return {}

    def after_move_text(self, report: dict, name) -> str:
        """``after_move``'s report as lines of text (``""`` for nothing); ``name(seat)`` names a seat."""
        return ""

    # -- the table (a person playing in the browser, ``cavallo_env.tables``) -------
    def running_score(self, state) -> dict:
        """What each team has scored so far that every player at the table can
        see, ``{item: [team 0, team 1]}`` in display order."""
        raise NotImplementedError

    def move_bonuses(self, state, move) -> list[str]:
        """The bonuses ``move`` scores when played now, by name (none by default)."""
        return []

    def deal_results(self, state) -> list[dict]:
        """The completed deals' results (``outcome``'s ``points`` and ``breakdown``),
        in order: the one deal once it is over, for a game of one deal."""
        return [self.outcome(state)] if state.done else []

    # -- the batched env (``cavallo_env.vector``) -----------------------------------
    #: the compiled core's tables of this game (``cavallo_env.core``): ``"module:class"`` ("" for none: the
    #: batched env does not play the game), and the keywords of their ``reset_deals``, in order
    core_tables = ""
    core_deal_keys: tuple = ("ids", "leaders")
    #: the keys of a deal given by names (``state_from_deal``'s, the AEC env's ``reset(options={"deal": ...})``)
    deal_keys: tuple = ()

    def deal_of(self, state) -> dict:
        """The deal ``state`` started from, by names (``deal_keys``, read from its record)."""
        record = self.to_record(state)
        return {k: record[k] for k in self.deal_keys}

    def state_from_ids(self, ids: list, first: int, rng: random.Random, **options):
        """A start from a deal as the core's ``reset_deals`` takes it: ``ids`` the card ids in the core's
        order (``cavallo_env.core.<game>.deal_ids``), ``first`` the seat it names (leader or dealer),
        ``rng`` the generator of what the game draws later (a match's next deals)."""
        raise NotImplementedError

    def use_rng(self, raw_env, rng: random.Random) -> None:
        """From now on the episode of ``raw_env`` (the game's bare AEC env, just reset) draws what it still
        draws (a match's later deals) from ``rng``; nothing by default (a deal draws nothing once dealt)."""

    def move_actions(self, state, move) -> list[int]:
        """The env's action ids that play ``move`` (a legal move of the seat to play) from ``state``: by
        default the learning table's ``move_actions`` (a game may say it without building a table)."""
        return self.learning().table(state).move_actions(move)

    def random_actions(self, rng: random.Random) -> "RandomActions":
        """One table's random actions drawn from ``rng`` as the core's ``random_actions()`` draws
        them with ``rng="python"`` (``RandomActions``)."""
        raise NotImplementedError

    # -- environments ------------------------------------------------------------
    def learning(self):
        """The game's learning interface (``cavallo_env.games.learning.Learning``):
        action-level tables, observation and prior sizes, for trainers and the
        ``policy:`` runtime."""
        return self.module("learning").LEARNING

    def raw_env(self, **kwargs):
        """The bare PettingZoo AEC env (an illegal action raises ``ValueError``)."""
        return self.module("aec").raw_env(**kwargs)

    def env(self, **kwargs):
        """The env wrapped the PettingZoo classic way."""
        return self.module("aec").env(**kwargs)

    # -- search ------------------------------------------------------------------
    def search(self, **options):
        """The ``SearchHooks`` the generic ISMCTS uses for this game, with the
        game's own search options (the keys of its hooks' ``OPTIONS``)."""
        raise NotImplementedError

    def __repr__(self):
        return f"<Game {self.name}>"


class RandomActions:
    """The compiled core's ``random_actions()`` with ``rng="python"``, draw for draw, at one table
    driven by the game's AEC env (the batched env's Python path, ``cavallo_env.vector.reference``).

    ``next(core)`` is the next action of a uniformly random legal move of the env's ``core`` (the
    move ``random_playout`` draws, spelled as actions: a capture planned when drawn, its takes on
    the next calls); ``played(core)`` is told of every action played at the table, whoever chose it
    (what the core forgets of its plan then).  One object a table and deal: ``Game.random_actions``.
    """

    def __init__(self, rng: random.Random):
        self.rng = rng

    def next(self, core) -> int:
        raise NotImplementedError

    def played(self, core) -> None:
        """After each action at the table: nothing to forget by default."""


class SearchHooks:
    """What ``ismcts:<n>`` needs of a game beyond its rules (``cavallo_env.bots.ismcts``).

    - ``determinizer(base, seat)``: a function ``rng -> state`` giving a copy of
      ``base`` whose cards hidden from ``seat`` are redealt at random (a
      determinization consistent with everything ``seat`` has seen);
    - ``team(state)``: the team of the seat to play;
    - ``quick_score(state, move)``: a cheap score of a move (greedy expansion);
    - ``rollout(state, rng, plies)``: play ``plies`` more moves with a fast
      policy (mutates ``state``);
    - ``evaluate(state)``: the expected final point difference, team 0 minus
      team 1 (exact once ``state.done``);
    - ``scale``: points that make one unit of reward; ``depth``: default rollout plies;
    - ``prior_scores(view, legal)``: the heuristic's score of each legal move (or None);
    - ``reply``: None, or ``reply(state, legal)``: the one move the search supposes
      the seat to play makes in ``state`` (a model of the opponent; None there:
      search every move); the tree then gives that node this one child.
    """

    scale = 10.0
    depth = 4
    #: the game's own options in an ``ismcts:`` spec: spec key -> (keyword, parser)
    OPTIONS: dict = {}
    reply = None

    def determinizer(self, base, seat: int):
        raise NotImplementedError

    def team(self, state) -> int:
        return state.current % 2

    def quick_score(self, state, move) -> float:
        return 0.0

    def rollout(self, state, rng: random.Random, plies: int) -> None:
        raise NotImplementedError

    def evaluate(self, state) -> float:
        raise NotImplementedError

    def prior_scores(self, view, legal):
        return None


def same_json(a, b) -> bool:
    """Equal as JSON values, telling ints from bools and floats (``True == 1`` and ``1.0 == 1`` are
    not equal here)."""
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a.__class__ is b.__class__ and a == b


class Copyable:
    """``copy.copy`` and ``copy.deepcopy`` of a state give ``self.copy()``.

    A game's states, action drivers and encoders define a cheap ``copy()``
    (independent for everything that moves; shared for what is never mutated);
    this base routes the ``copy`` module through it.  No slots of its own.
    """

    __slots__ = ()

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()


class OnState:
    """``current`` (the seat to act) and ``done`` read from ``self.state``: for wrappers of a state."""

    __slots__ = ()

    @property
    def current(self) -> int:
        """The seat to act."""
        return self.state.current

    @property
    def done(self) -> bool:
        return self.state.done


def block_layout(blocks) -> tuple[dict, int]:
    """``({name: (offset, size)}, total size)`` of a vector made of ``(name, size)`` blocks in order
    (the observation and state layouts of the games' encodings)."""
    out, o = {}, 0
    for name, size in blocks:
        out[name] = (o, size)
        o += size
    return out, o
