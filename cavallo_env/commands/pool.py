"""Pool duplicate evaluations of the same two bots run on different seeds into one result.

Each REPORT is the --json of a `cavallo eval` run (the same bots, game and
options, unless --same-bots; different seeds, so different deals).  The games are counted
together, A's score gets the Wilson interval of all of them, and the mean
point difference the normal interval of all the per-deal means (each run's
spread recovered from its own interval).  Prints the table `cavallo eval`
prints; --json writes the pooled result as JSON.  For example:

  cavallo eval --game briscola --deals 1000 --seed 1 --json s1.json policy:briscola ismcts:1000
  cavallo eval --game briscola --deals 1000 --seed 2 --json s2.json policy:briscola ismcts:1000
  cavallo pool s1.json s2.json
"""

from __future__ import annotations

import argparse

from ..evaluation import pool_results, result_from_dict
from ..files import read_json_file
from ..records import check_output_file
from .eval import emit

#: a report is a few kilobytes; anything far larger is not one
MAX_REPORT_BYTES = 1 << 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reports", metavar="REPORT", nargs="+", help="a `cavallo eval --json` report (two or more)")
    p.add_argument("--json", metavar="PATH", help="also write the pooled result as JSON to PATH ('-' = stdout)")
    p.add_argument("--same-bots", action="store_true",
                   help="the reports' bot specs are written differently but name the same bots (e.g. an option "
                        "given at its default); pool them under the first report's specs")


def _read(path: str):
    return result_from_dict(read_json_file(path, MAX_REPORT_BYTES, "a duplicate evaluation report"), name=path)


def run(args) -> int:
    if args.json and args.json != "-":
        check_output_file(args.json)
    result = pool_results([_read(path) for path in args.reports], same_bots=args.same_bots)
    return emit(result, args.json)
