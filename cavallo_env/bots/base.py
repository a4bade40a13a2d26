"""The bot interface and the ``make(spec)`` registry."""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import random
from typing import Callable

from .. import games
from ..errors import BotSpecError  # re-exported: its home until errors.py
from ..errors import ViewError
from ..games import of_view


class Bot:
    """Base class: subclasses implement ``choose_move(view, legal) -> move``.

    ``choose`` finds the view's game (its ``"game"`` field, Cavalloìcera
    without one), parses the view's legal moves into that game's moves, asks
    the subclass, and returns the chosen move as a dict that is one of
    ``view["legal_moves"]``.  A bot of one game sets ``game`` to its name and
    refuses views of another game.
    """

    name = "bot"
    #: the game this bot plays (None: any game, picked by the view)
    game: str | None = None

    def __init__(self, seed=None):
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: dict) -> dict:
        game = game_of(view, self.game)
        legal = game.legal_moves_of(view)
        if not legal:
            raise ValueError("the view has no legal moves: it is not this seat's turn or the game is over")
        if len(legal) == 1:
            return view["legal_moves"][0]
        move = self.choose_move(view, legal)
        try:  # the view's own dict, whatever the order of the cards in its capture
            return view["legal_moves"][legal.index(move)]
        except ValueError:  # not among them (a bot's bug): written out for the caller to reject
            return game.move_to_dict(move, game.deck_of(view))

    def choose_move(self, view: dict, legal: list) -> object:  # pragma: no cover - interface
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


def game_of(view, expected: str | None = None):
    """The ``Game`` of a view; ``ViewError`` if it is not ``expected`` (when given)."""
    game = of_view(view)
    if expected is not None and game.name != expected:
        raise ViewError(f"this bot plays {expected}, but the view is of {game.name}")
    return game


def view_seed(seed, view) -> int:
    """A per-decision seed from the bot seed and what the seat sees.

    Seeding each decision this way keeps random choices reproducible while the
    bot stays stateless: the same view gets the same answer whatever came before.
    A Cavalloìcera view is keyed by its seat, hand, table and history (as in
    version 1, so its seeds never change); other games' views by everything
    but their legal moves.
    """
    if view.get("game", games.DEFAULT_GAME) == games.DEFAULT_GAME:
        key = json.dumps([repr(seed), view.get("seat"), view.get("hand"), view.get("table"), view.get("history")],
                         separators=(",", ":"), sort_keys=True)
    else:
        key = json.dumps([repr(seed), {k: v for k, v in view.items() if k != "legal_moves"}],
                         separators=(",", ":"), sort_keys=True)
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def decision_start(seed, view, expected: str | None = None) -> tuple:
    """Where a search's decision starts: the view's ``Game`` (``game_of``), the decision's
    ``random.Random`` (seeded by ``view_seed``) and the view rebuilt as a state of its game, the
    hidden cards drawn from that generator (``Game.state_from_view``)."""
    game = game_of(view, expected)
    rng = random.Random(view_seed(seed, view))
    return game, rng, game.state_from_view(view, rng)


# name -> (module, factory attribute); modules are imported lazily so that e.g.
# the policy bot's onnxruntime is only loaded when asked for.  PER_GAME kinds
# are written by each game (its ``Game.bots``), the others serve every game.
PER_GAME = "per-game"
_REGISTRY: dict[str, tuple[str, str] | str | Callable] = {
    "random": ("cavallo_env.bots.simple", "RandomBot"),
    "greedy": PER_GAME,
    "heuristic": PER_GAME,
    "ismcts": ("cavallo_env.bots.ismcts", "from_spec"),
    "policy": ("cavallo_env.bots.policy", "from_spec"),
    "search": ("cavallo_env.bots.search", "from_spec"),
}


def register(name: str, factory: Callable) -> None:
    """Add a bot kind: ``factory(arg: str | None, seed)`` returns a bot (a
    factory that also takes ``game=`` gets the game name ``make`` was given)."""
    _REGISTRY[name] = factory


def registered() -> list[str]:
    return sorted(_REGISTRY)


def _game_bot(kind: str, game_name: str, seed):
    game = games.get(game_name)
    target = game.bots.get(kind)
    if target is None:
        raise BotSpecError(f"{game.title} has no {kind!r} bot; it has: {', '.join(sorted(game.bots))}")
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)(seed=seed)


class PerGameBot(Bot):
    """A bot kind each game writes for itself (``greedy``, ``heuristic``) made
    without a game: the view's ``"game"`` picks the implementation, built on
    first use with the same seed."""

    def __init__(self, kind: str, seed=None):
        super().__init__(seed)
        self.name = kind
        self._bots: dict = {}

    def for_game(self, game_name: str) -> Bot:
        bot = self._bots.get(game_name)
        if bot is None:
            bot = self._bots[game_name] = _game_bot(self.name, game_name, self.seed)
        return bot

    def choose(self, view: dict) -> dict:
        return self.for_game(game_of(view).name).choose(view)


def split_specs(text: str) -> list[str]:
    """Bot specs separated by commas, as the command line takes them (``"greedy,ismcts:500"``).

    A spec's own options contain commas too (``ismcts:1000,c=0.5``): a piece
    that is a ``key=value`` option (an ``=`` and no ``:``) belongs to the spec
    before it.  Empty pieces are a ``BotSpecError``.
    """
    if not isinstance(text, str):
        raise BotSpecError(f"bot specs must be a string, got {text!r}")
    specs: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            raise BotSpecError(f"{text!r} has an empty bot spec")
        if specs and "=" in piece and ":" not in piece:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def make(spec: str, seed=None, game: str | None = None) -> Bot:
    """Build a bot from a spec string such as ``"greedy"`` or ``"ismcts:1000"``.

    With ``game`` (a game name) the bot plays that game; without, it serves
    any game's view, picked by the view's ``"game"`` field.
    """
    if not isinstance(spec, str) or not spec:
        raise BotSpecError(f"a bot spec must be a non-empty string, got {spec!r}")
    if game is not None:
        try:
            games.get(game)
        except ValueError as e:
            raise BotSpecError(str(e)) from None
    name, _, arg = spec.partition(":")
    entry = _REGISTRY.get(name)
    if entry is None:
        raise BotSpecError(f"unknown bot {name!r} in spec {spec!r}; known: {', '.join(registered())}")
    if entry == PER_GAME:
        if arg:
            raise BotSpecError(f"bot {name!r} takes no argument, got {spec!r}")
        return _game_bot(name, game, seed) if game is not None else PerGameBot(name, seed)
    if isinstance(entry, tuple):
        module, attr = entry
        factory = getattr(importlib.import_module(module), attr)
    else:
        factory = entry
    if isinstance(factory, type):  # a Bot class taking no argument
        if arg:
            raise BotSpecError(f"bot {name!r} takes no argument, got {spec!r}")
        bot = factory(seed=seed)
        if game is not None and getattr(bot, "game", None) is None:
            bot.game = game  # made for one game (e.g. ``random``): refuse a view of another, as every bot does
    elif game is not None and "game" in inspect.signature(factory).parameters:
        bot = factory(arg or None, seed, game=game)
    else:
        bot = factory(arg or None, seed)
    own = getattr(bot, "game", None)
    if game is not None and own is not None and own != game:
        raise BotSpecError(f"bot {spec!r} plays {own} only, not {game}")
    return bot
