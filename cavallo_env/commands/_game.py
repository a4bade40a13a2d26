"""The options the game-aware subcommands share: ``--game``/``--deck``/``--match``, and
``--deals``/``--seed``/``--jobs``/``--no-progress`` of the evaluations."""

from __future__ import annotations

import argparse
from .. import games


def add_game_arguments(p: argparse.ArgumentParser, match: bool = True) -> None:
    """Add ``--game``, ``--deck`` and (for a game played in matches) ``--match``/``--single-deal``."""

    p.add_argument("--game", default=games.DEFAULT_GAME, choices=games.names(),
                   help=f"the game (default {games.DEFAULT_GAME})")
    decks = sorted({d for name in games.names() for d in games.get(name).decks})
    p.add_argument("--deck", default=None, choices=decks,
                   help="the deck (default: the game's first; Briscola and Scopa: milanesi, Cavalloìcera: bresciane)")
    if match:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--match", dest="match", action="store_true", default=None,
                       help="Scopa: play whole matches to 11 (the default of every command)")
        g.add_argument("--single-deal", dest="match", action="store_false",
                       help="Scopa: play single deals")


def add_run_arguments(p: argparse.ArgumentParser, deals: int, what: str) -> None:
    """``--deals`` (default ``deals``, each ``what``), ``--seed``, ``--jobs`` and ``--no-progress``:
    the size, seed and workers of ``cavallo eval`` and ``cavallo tournament``."""
    p.add_argument("--deals", type=int, default=deals, help=f"{what} (default {deals}); "
                   "Scopa's matches count as deals")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the bots (default 0)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def game_options(args) -> tuple:
    """``(Game, options)`` from parsed arguments (the game's own defaults: Scopa plays matches
    to 11 unless ``--single-deal``); ``ValueError`` for a deck or flag the game lacks."""

    game = games.get(args.game)
    options = {}
    if args.deck is not None:
        options["deck"] = args.deck
    match = getattr(args, "match", None)
    if "match" in game.options:
        if match is not None:
            options["match"] = match
    elif match is not None:
        raise ValueError(f"--match/--single-deal are for Scopa, not {game.title}")
    return game, game.check_options(options)


def game_words(game, options: dict) -> str:
    """``"Scopa (milanesi deck, a match to 11)"``: the game as played, for a command's first line."""
    extra = [f"{options['deck']} deck"] if len(game.decks) > 1 else []
    if "match" in options:
        extra.append("a match to 11" if options["match"] else "one deal")
    return game.title + (f" ({', '.join(extra)})" if extra else "")
