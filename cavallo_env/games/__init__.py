"""The games this package knows, behind one interface (``cavallo_env.games.base.Game``).

A game is one folder (``cavallo_env/<name>/``) whose ``__init__`` defines
``GAME``, an instance of a ``Game`` subclass, and one line in ``_GAMES`` below.
Everything generic -- the bots' registry, random play and the ISMCTS search,
duplicate evaluation, records and replay, the view protocol, ``cavallo serve``,
``cavallo play`` and the command line's ``--game``/``--deck`` -- reaches a game
only through ``get(name)``, ``of_view(view)`` or ``of_record(record)``.  A few
places add polish per game that a new game can do without: ``cavallo serve``'s
view schemas (a game without one is checked by its own rules) and the
benchmarks' speed targets.

Game modules are imported on first use, so ``import cavallo_env`` stays light.
"""

from __future__ import annotations

import importlib

from ..errors import RecordError, ViewError

# name -> module defining GAME.  A new game adds its folder and one line here.
_GAMES = {
    "cavalloicera": "cavallo_env.cavalloicera",
    "briscola": "cavallo_env.briscola",
    "scopa": "cavallo_env.scopa",
}

#: the game of a view without a "game" field (contract version 1 views)
DEFAULT_GAME = "cavalloicera"


def names() -> list[str]:
    """The names of every game, in registration order."""
    return list(_GAMES)


def get(name):
    """The ``Game`` called ``name``; ``ValueError`` naming the known games otherwise."""
    module = _GAMES.get(name) if isinstance(name, str) else None
    if module is None:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(_GAMES)}")
    return importlib.import_module(module).GAME


def register_envs(registration) -> None:
    """Register every game's env in PettingZoo's AEC registry (module ``registration``)
    under the game's ``env_id`` (``cavallo/Cavalloicera-v1``, ``cavallo/Briscola-v1``,
    ``cavallo/Scopa-v1``); the game modules are light, the envs load on first use."""
    for name in names():
        game = get(name)
        if game.env_id not in registration.aec_registry:
            registration.register("aec", game.env_id, entry_point=game.env_entry_point)


def of_view(view):
    """The ``Game`` a view belongs to: its ``"game"`` field, Cavalloìcera without one."""
    if not isinstance(view, dict):
        raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
    name = view.get("game", DEFAULT_GAME)
    if name not in _GAMES:
        raise ViewError(f"unknown game {name!r} in the view's 'game'; known games: {', '.join(_GAMES)}")
    return get(name)


def of_record(record, line=None):
    """The ``Game`` whose record format is ``record["format"]`` (``RecordError`` otherwise)."""
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object, got {type(record).__name__}", line=line)
    known = ", ".join(repr(get(n).record_format) for n in _GAMES)
    if "format" not in record:
        raise RecordError(f"the record has no 'format'; known formats: {known}", line=line)
    fmt = record["format"]
    if not isinstance(fmt, str):
        raise RecordError(f"'format' must be a string, one of {known}; got {type(fmt).__name__}", line=line)
    for name in _GAMES:
        game = get(name)
        if game.record_format == fmt:
            return game
    raise RecordError(f"unknown format {fmt[:80]!r}; known formats: {known}", line=line)


def label(name: str, options: dict | None = None) -> str:
    """``"Scopa (milanesi, matches to 11)"``: a game's title with the options that matter."""
    game = get(name)
    options = options or {}
    extra = [options["deck"]] if "deck" in options and len(game.decks) > 1 else []
    if "match" in options:
        extra.append("matches to 11" if options["match"] else "single deals")
    return game.title + (f" ({', '.join(extra)})" if extra else "")


def counted_as(name: str, options: dict | None = None) -> str:
    """What the games of ``name`` with ``options`` are counted as: ``"matches"`` (Scopa's
    matches to 11) or ``"deals"``."""
    return "matches" if get(name).check_options(options or {}).get("match") else "deals"


def checked_view(view, expected: str | None = None) -> tuple:
    """Check a whole view of any game: ``(game, state, legal moves, {move: the view's dict} or None)``.

    The game's ``state_from_view`` checks the cards, the history and the
    hand; then the view's ``legal_moves`` (optional: when absent they come
    from the rules) must be exactly the legal moves of the position.  With
    ``expected`` (a game name) a view of another game is refused.  Raises
    ``ViewError`` saying what is wrong.
    """
    game = of_view(view)
    if expected is not None and game.name != expected:
        raise ViewError(f"this bot plays {expected}, but the view is of {game.name}")
    state = game.state_from_view(view)
    legal = state.legal_moves()
    given = view.get("legal_moves")
    if given is None:
        return game, state, legal, None
    if not isinstance(given, list):
        raise ViewError("'legal_moves' must be a list of moves")
    if not given:
        raise ViewError(f"the view has no legal moves, but seat {state.current} is to play and has {len(legal)}")
    by_move = {}
    deck = game.deck_of(view)
    for i, m in enumerate(given, start=1):
        try:
            mv = game.move_from_dict(m, deck)
        except ViewError as e:
            raise ViewError(f"legal move {i}: {e}") from None
        by_move[mv] = m
    if len(by_move) != len(given) or by_move.keys() != set(legal):
        what = []
        wrong = sorted(set(by_move) - set(legal))
        if wrong:
            what.append(f"{len(wrong)} listed move(s) are not legal (e.g. {game.describe_move(wrong[0], deck)})")
        missing = len(set(legal) - set(by_move))
        if missing:
            what.append(f"{missing} legal move(s) are missing")
        if len(by_move) != len(given):
            what.append("a move is listed twice")
        raise ViewError("'legal_moves' contradict the rules for this position: " + ", ".join(what))
    return game, state, legal, by_move
