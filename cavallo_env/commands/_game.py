"""The ``--game``/``--deck``/``--match`` options the game-aware subcommands share."""

from __future__ import annotations

import argparse
from .. import games


def add_game_arguments(p: argparse.ArgumentParser, match: bool = True) -> None:
    """Add ``--game``, ``--deck`` and (for Scopa) ``--match``/``--single-deal``."""

    p.add_argument("--game", default="cavalloicera", choices=games.names(),
                   help="the game (default cavalloicera)")
    decks = sorted({d for name in games.names() for d in games.get(name).decks})
    p.add_argument("--deck", default=None, choices=decks,
                   help="the deck (default: the game's first; Briscola and Scopa: milanesi, Cavalloìcera: bresciane)")
    if match:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--match", dest="match", action="store_true", default=None,
                       help="Scopa: play whole matches to 11 (the default of `simulate`, `play`)")
        g.add_argument("--single-deal", dest="match", action="store_false",
                       help="Scopa: play single deals (the default of `eval` and `tournament`)")


def game_options(args, match_default: bool = True) -> tuple:
    """``(Game, options)`` from parsed arguments; ``ValueError`` for a deck or flag the game lacks."""

    game = games.get(args.game)
    options = {}
    if args.deck is not None:
        options["deck"] = args.deck
    match = getattr(args, "match", None)
    if "match" in game.options:
        options["match"] = match_default if match is None else match
    elif match is not None:
        raise ValueError(f"--match/--single-deal are for Scopa, not {game.title}")
    return game, game.check_options(options)
