"""The shipped AIs by level, in the words a player chooses them.

- ``strong``: the network-guided search, ``search:<game>`` (``search:default``:
  the view's game), mean <= 100 ms and max <= 1 s a decision on one core;
- ``fast``: the network alone, ``policy:<game>`` (``policy:default``), <= 1 ms
  median a decision.

The table's menu (``cavallo serve``, ``cavallo table``), ``cavallo play``
(``--opponents strong``) and the benchmarks name them so; a level is offered
for a game only where its spec builds in this copy (the bot registered, the
game's model installed), and the default is the strongest one offered
(docs/in_game_ai.md, "Two levels").
"""

from __future__ import annotations

from . import games
from .bots import make
from .errors import BotSpecError

#: level -> its bot kind, strongest first: the order menus list them, and the default is the first offered
LEVELS = {"strong": "search", "fast": "policy"}


def spec(level: str, game: str | None = None) -> str:
    """The bot spec of ``level`` for ``game`` (``search:briscola``), or for every game (``search:default``)."""
    kind = LEVELS.get(level)
    if kind is None:
        raise BotSpecError(f"unknown AI level {level!r}; the levels are: {', '.join(LEVELS)}")
    return f"{kind}:{game or 'default'}"


def level_of(bot_spec: str) -> str | None:
    """``"strong"`` or ``"fast"`` for a shipped AI's spec (``search:default``, ``policy:scopa``), else None
    (another bot, a model file, a spec with options)."""
    kind, _, arg = str(bot_spec).partition(":")
    if arg != "default" and arg not in games.names():
        return None
    return next((level for level, k in LEVELS.items() if k == kind), None)


def available(level: str, game: str) -> bool:
    """Whether this copy ships ``level`` for ``game``: its spec builds (the bot is registered, the game's
    model installed).  Building a shipped bot loads its model once per process (the sessions are cached)."""
    try:
        make(spec(level, game), seed=0, game=game)
    except ValueError:  # BotSpecError: no such bot kind yet; ModelError: the game's model is not installed
        return False
    return True


def offered(game: str | None = None) -> list[str]:
    """The levels this copy ships for ``game`` (None: for every game), strongest first."""
    names = games.names() if game is None else [game]
    return [level for level in LEVELS if all(available(level, g) for g in names)]


def resolve(text: str, game: str | None = None) -> str:
    """A bot spec from what a player typed: a level's name (``strong``, ``fast``) is that level's spec for
    ``game`` (``BotSpecError`` when this copy does not ship it); anything else is already a spec."""
    if text not in LEVELS:
        return text
    if text not in offered(game):
        where = games.get(game).title if game else "every game"
        raise BotSpecError(f"the {text} AI ({spec(text, game)}) is not available for {where} in this copy; "
                           f"available: {', '.join(offered(game)) or 'none'} (or any bot spec)")
    return spec(text, game)


def default_spec(game: str | None = None) -> str | None:
    """The spec of the strongest level this copy ships for ``game`` (None: for every game, ``search:default``
    or ``policy:default``); None when it ships none (the caller says what plays instead)."""
    mine = offered(game)
    return spec(mine[0], game) if mine else None
