"""Duplicate evaluation of bot A against bot B, in any of the three games.

Every deal is played twice with the same cards, once with A on one side
(Cavalloìcera: seats 0 and 2; Briscola, Scopa: seat 0) and once with the sides
swapped, so the luck of the deal cancels.  ``--game`` picks the game,
``--deck`` a 40-card game's deck; Scopa plays matches to 11 (each match
twice) unless ``--single-deal``, as in every command.  Prints
win/draw/loss, A's score rate (draws count half) with a 95% Wilson interval,
the mean point difference with a 95% interval and per-bonus/award figures;
--json writes the same as JSON.  Deterministic for a seed, whatever --jobs is.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..bots import make
from ..evaluation import check_deals, check_jobs, duplicate_eval, format_result
from ..records import check_output_file
from ._game import add_game_arguments, add_run_arguments, game_options


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bot_a", metavar="A", help="bot spec, e.g. heuristic, greedy, random, ismcts:1000")
    p.add_argument("bot_b", metavar="B", help="bot spec of the opponent")
    p.add_argument("--json", metavar="PATH", help="also write the result as JSON to PATH ('-' = stdout)")
    add_run_arguments(p, 1000, "duplicate deals to play, 2 games each")
    add_game_arguments(p)


def run(args) -> int:
    check_deals(args.deals)
    check_jobs(args.jobs)
    game, options = game_options(args)
    make(args.bot_a, seed=0, game=game.name)  # a bad spec fails here with a clear message
    make(args.bot_b, seed=0, game=game.name)
    if args.json and args.json != "-":  # a bad path fails now, not after the evaluation

        check_output_file(args.json)
    bar = None
    progress = None
    if not args.no_progress:
        from tqdm import tqdm  # lazy: tqdm (~40 ms), only with a progress bar; kept out of `cavallo --help`

        bar = tqdm(total=args.deals, unit="deal", desc=f"{args.bot_a} vs {args.bot_b}", file=sys.stderr)
        progress = bar.update
    try:
        result = duplicate_eval(args.bot_a, args.bot_b, args.deals, seed=args.seed, jobs=args.jobs, progress=progress,
                                game=game.name, **options)
    finally:
        if bar is not None:
            bar.close()
    return emit(result, args.json)


def emit(result, json_path: str | None) -> int:
    """Print ``result`` as a table, and write it as JSON to ``json_path`` (``-``: print the JSON
    instead of the table)."""
    text = json.dumps(result.to_dict(), indent=2)
    if json_path == "-":
        print(text)
        return 0
    print(format_result(result))
    if json_path:
        with open(json_path, "w") as f:
            f.write(text + "\n")
        print(f"\nwrote {json_path}")
    return 0
