"""What ``cavallo_env.vector`` knows of each game: sizes, options, and how to make and deal its tables.

One ``TableSpec`` a game.  ``make(n, reward, rng, options, backend)`` gives the
game's tables on the compiled core (``cavallo_env.core``: ``BriscolaTables``,
``CavalloiceraTables``, ``ScopaTables``) or on the Python engines
(``cavallo_env.vector.reference``: the same API, the AEC env's engine a table).
``reset(tables, seeds, where)`` and ``reset_deals(tables, deals, where)``
smooth over what differs between the games' ``reset`` signatures (a deck or
not; Scopa's seeds for the later deals of a match).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass

from .. import core, games
from .reference import PyTables

BACKENDS = ("core", "python")


@dataclass(frozen=True)
class TableSpec:
    """A game as the batched env sees it: what its AEC env says (sizes, rewards, options) and its tables."""

    name: str
    num_seats: int
    num_actions: int
    obs_size: int
    obs_version: str
    rewards: tuple  # allowed reward names, the AEC env's default first
    decks: tuple  # deck names, when the AEC env takes a deck ((): it does not)
    has_match: bool  # whether the AEC env takes ``match`` (Scopa: a match to 11 or one deal)
    tables: str  # "module:class" of the game's core tables
    deal_keys: tuple  # the keyword names of the tables' reset_deals, in order

    def check_options(self, reward, deck, match) -> tuple:
        """``(reward, options)``: the reward (None: the AEC env's default) and the tables' keyword options,
        or ``ValueError`` naming what is wrong."""
        reward = self.rewards[0] if reward is None else reward
        if reward not in self.rewards:
            raise ValueError(f"{self.name}: reward must be one of {', '.join(map(repr, self.rewards))}, got {reward!r:.40}")
        options = {}
        if self.decks:
            if not isinstance(deck, str) or deck not in self.decks:
                raise ValueError(f"{self.name}: deck must be one of {', '.join(map(repr, self.decks))}, got {deck!r:.40}")
            options["deck"] = deck
        elif deck is not None:
            raise ValueError(f"{self.name} has one deck: leave deck out, got {deck!r:.40}")
        if self.has_match:
            if not isinstance(match, bool):
                raise ValueError(f"match must be True (a match to 11) or False (one deal), got {match!r:.40}")
            options["match"] = match
        elif match is not None:
            raise ValueError(f"{self.name} has no matches: leave match out, got {match!r:.40}")
        return reward, options

    def make(self, n: int, reward: str, rng: str, options: dict, backend: str):
        if backend == "python":
            return PyTables(self.name, n, reward=reward, rng=rng, core_tables=self.tables, **options)
        module, name = self.tables.split(":")
        cls = getattr(importlib.import_module(module), name)
        extra = {"match": options["match"]} if self.has_match else {}
        return cls(n, reward=reward, rng=rng, **extra)

    def reset(self, tables, seeds, where, options: dict):
        if self.decks:
            return tables.reset(seeds, options["deck"], where=where)
        return tables.reset(seeds, where=where)

    def reset_deals(self, tables, deals, where, options: dict):
        """Start the tables from ``deals`` (a dict of the tables' ``reset_deals`` arguments)."""
        if not hasattr(deals, "keys"):
            raise ValueError(f"options['deals'] must be a dict with keys {', '.join(self.deal_keys)}, "
                             f"got {type(deals).__name__}")
        unknown = sorted(set(deals) - set(self.deal_keys))
        missing = [k for k in self.deal_keys[:2] if k not in deals]
        if unknown or missing:
            raise ValueError(f"{self.name}: options['deals'] takes {', '.join(self.deal_keys)} "
                             f"({', '.join(self.deal_keys[:2])} required); got {', '.join(map(str, deals))}")
        kwargs = dict(deals)
        if self.decks:
            kwargs["decks"] = options["deck"]
        return tables.reset_deals(**kwargs, where=where)


#: game -> its core tables ("module:class") and their reset_deals keywords (``Game.core_tables``,
#: ``Game.core_deal_keys``): every game with core tables
TABLES = {name: (g.core_tables, g.core_deal_keys) for name, g in ((n, games.get(n)) for n in sorted(games.names()))
          if g.core_tables}
_SPECS: dict = {}


def spec(game) -> TableSpec:
    """The ``TableSpec`` of ``game`` (read from its AEC env); ``ValueError`` naming the games otherwise."""
    if not isinstance(game, str) or game not in TABLES:
        raise ValueError(f"unknown game {game!r:.40}; the batched env plays {', '.join(TABLES)}")
    s = _SPECS.get(game)
    if s is None:
        g = games.get(game)
        env = g.module("aec").raw_env
        params = inspect.signature(env.__init__).parameters
        default = params["reward"].default
        rewards = (default, *(r for r in env.rewards_allowed if r != default))
        s = _SPECS[game] = TableSpec(game, g.num_seats, env.num_actions, env.obs_size,
                                     env.metadata["observation_version"], rewards,
                                     tuple(g.decks) if "deck" in params else (), "match" in params, *TABLES[game])
    return s


def choose_backend(backend=None) -> str:
    """``"core"`` or ``"python"``: ``backend`` if given; else what ``CAVALLO_CORE`` says
    (``cavallo_env.core.enabled()``: the core where it is built, unless ``CAVALLO_CORE=python``)."""
    if backend is None:
        return "core" if core.enabled() else "python"
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))} or None, got {backend!r:.40}")
    if backend == "core" and not core.available():
        raise ImportError(core.missing_reason())
    return backend
