"""The AI measured against people: the games finished at the table, per game, deck and AI.

Reads the table service's database (--db URL; by default the one cavallo serve
keeps: $CAVALLO_DB, else tables.sqlite3 in the user's data folder) and prints,
per game, deck and AI, the games against people, the AI's wins / draws /
losses, its score share (W + D/2) / games with a 95% Wilson interval, and the
points per game of the AI and of the people.  In Cavalloìcera the AI is the
two opponents (the person plays with an AI partner); a Scopa game is a match
to 11.  --json prints the same as JSON; --export FILE.jsonl writes the games'
records, one per line, which cavallo replay checks (docs/people.md).
"""

from __future__ import annotations

import json
import os
import sys

from .. import games

#: exit status when the database holds no finished game (yet): nothing to report, not a failure of the command
NOTHING = 1


def add_arguments(parser) -> None:
    parser.add_argument("--db", metavar="URL", default=None,
                        help="the database: sqlite:///FILE, a file path or postgresql://user@host/db "
                             "(default: $CAVALLO_DB, else the default of cavallo serve)")
    parser.add_argument("--game", choices=games.names(), default=None, help="only this game")
    parser.add_argument("--player", metavar="ID", default=None, help="only the games of this anonymous player id")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="only the N most recent games")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    parser.add_argument("--export", metavar="FILE.jsonl", default=None,
                        help="write the finished games' records to FILE.jsonl, one per line")


def missing_database(url: str | None) -> str | None:
    """The SQLite file ``url`` names (``None``: the default one) when it does not exist, else None:
    reading a database never creates one."""
    from ..store import ENV_DB, default_path, resolve  # lazy: platformdirs and sqlalchemy, the runtime extra
    from ..store.urls import is_memory

    if url is None and not os.environ.get(ENV_DB):
        path = str(default_path())
    else:
        full = resolve(url)
        if not full.startswith("sqlite") or is_memory(full):
            return None
        from sqlalchemy.engine import make_url  # lazy: the runtime extra

        path = make_url(full).database or ""
    return None if os.path.exists(path) else path


def open_database(url: str | None):
    """The store at ``url``, to read; ``StoreError`` saying why not (no such database, a bad URL, unreachable)."""
    try:
        from ..store import StoreError, open_store
        import sqlalchemy  # noqa: F401  (lazy: the runtime extra, checked here to say so)
    except ImportError as e:
        raise ValueError(f"the database needs the runtime extra (pip install 'cavallo-env[runtime]'): {e}") from None
    path = missing_database(url)
    if path is not None:
        raise StoreError(f"no database at {path}: the table (cavallo serve, cavallo table) keeps one there once "
                         "a game is played; or give --db URL")
    return open_store(url)


def _check(args) -> None:
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be a positive integer, got {args.limit}")
    if args.export is not None:
        from ..records import check_output_file

        check_output_file(args.export)
        if not os.fspath(args.export).endswith(".jsonl"):
            raise ValueError(f"--export {args.export}: the records are written one per line: name the file .jsonl")


def _export(path, store, args) -> int:
    """Write the records of the games counted (those that replay) to ``path``, read a batch at a time."""
    from .. import people
    from ..records import write_jsonl

    finished = store.finished_games(game=args.game, player_id=args.player, limit=args.limit, replayed=True)
    return write_jsonl(path, (people.export_record(fg) for fg in finished))


def _read(store, args) -> tuple[list, list]:
    """``(tallies, skipped)`` of the games asked for: the database's sums (each game's result is stored when it
    finishes), no record replayed but those a server of schema 1 finished since the migration."""
    from .. import people

    store.fill_results()
    tallies, _, _ = store.result_tallies(game=args.game, player_id=args.player, limit=args.limit)
    skipped = store.skipped_games(game=args.game, player_id=args.player, limit=args.limit)
    return [people.Tally(*t) for t in tallies], skipped


def run(args) -> int:
    from .. import people
    from ..store import StoreError
    from ..store.urls import shown

    _check(args)
    try:
        store = open_database(args.db)
    except StoreError as e:
        print(f"cavallo people: error: {e}", file=sys.stderr)
        return 2
    try:
        return _report(store, args, people, shown(store.url))
    except StoreError as e:
        print(f"cavallo people: error: {e}", file=sys.stderr)
        return 2
    finally:
        store.close()


def _report(store, args, people, source: str) -> int:
    tallies, skipped = _read(store, args)
    report = people.report_of(tallies, skipped)
    if args.json:
        print(json.dumps({"database": source, **report}, indent=1))
    if not report["games"]:
        which = " of this player" if args.player else (f" of {games.get(args.game).title}" if args.game else "")
        print(f"cavallo people: no finished games{which} yet in {source}"
              + (f" ({len(skipped)} whose record does not replay)" if skipped else "")
              + ": play at the table (cavallo table) and come back", file=sys.stderr)
        return NOTHING
    if not args.json:
        print(people.format_report(people.lines_of(tallies), skipped, source))
    if args.export:
        n = _export(args.export, store, args)
        print(f"wrote {n} record{'s' if n != 1 else ''} to {args.export}", file=sys.stderr if args.json else sys.stdout)
    return 0
