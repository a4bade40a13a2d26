"""Check game records: replay every move through the rules and compare the result.

Reads ``.jsonl`` files (one record per line) and ``.json`` files (one record, or
a list of records).  Prints OK with counts, or the first problem with its file,
line, move number, seat and reason; ``--all`` reports every bad record.  Exit
code 0 when every record is good, 1 otherwise.  Bad input never gives a
traceback: it is what this command exists to diagnose.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from ..records import RecordError, iter_json, parse_jsonl, replay


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help=".json or .jsonl record files")
    parser.add_argument("--all", action="store_true", help="report every bad record instead of stopping at the first")


@dataclass
class FileReport:
    """What checking one file found."""

    path: str
    good: int = 0
    complete: int = 0  # good records with a result (finished deals)
    moves: int = 0
    problems: list = field(default_factory=list)  # human-readable, one per bad record


def _where(path, line=None, index=None) -> str:
    if line is not None:
        return f"{path}: line {line}"
    if index is not None:
        return f"{path}: record {index}"
    return str(path)


def _jsonl_entries(path):
    """Yield ``(line, record, None)`` or ``(line, None, reason)`` for each non-blank line.

    Unlike ``records.iter_jsonl`` this keeps going after a bad line, so that
    ``--all`` can report every bad record of a file (``records.parse_jsonl``:
    a line longer than ``records.MAX_LINE_BYTES`` is reported unread and ends
    the file).
    """

    yield from parse_jsonl(path)


def _json_entries(path):
    """Yield ``(index, record, None)`` for a ``.json`` file holding one record or a list.

    ``records.iter_json``: the records are parsed one at a time (memory does
    not grow with the file), and a problem is one ``(index, None, reason)``
    that ends the file, naming the record and the byte offset.
    """

    yield from iter_json(path)


def check_file(path, stop_at_first: bool = True) -> FileReport:
    """Replay every record of ``path``; collects one problem per bad record."""

    report = FileReport(os.fspath(path))
    is_jsonl = report.path.endswith(".jsonl")
    try:
        entries = _jsonl_entries(path) if is_jsonl else _json_entries(path)
        for pos, record, bad_json in entries:
            line, index = (pos, None) if is_jsonl else (None, pos)
            where = _where(report.path, line, index)
            if bad_json is not None:
                report.problems.append(f"{where}: {bad_json}")
            else:
                try:
                    state = replay(record, line=line)
                except RecordError as e:  # its message starts with "line N, move M, seat S"
                    report.problems.append(f"{report.path}: {e}" if is_jsonl else f"{where}: {e}")
                except Exception as e:  # an engine bug must still not end the check with a traceback
                    report.problems.append(f"{where}: internal error while replaying ({type(e).__name__}: {e})")
                else:
                    report.good += 1
                    report.moves += len(state.moves)
                    report.complete += "result" in record
            if report.problems and stop_at_first:
                break
    except OSError as e:
        report.problems.append(f"{report.path}: cannot read ({e.strerror or e})")
    if not report.problems and report.good == 0:
        report.problems.append(f"{report.path}: no records in the file")
    return report


def run(args) -> int:
    total_good = total_bad = 0
    files_bad = 0
    for path in args.files:
        report = check_file(path, stop_at_first=not args.all)
        total_good += report.good
        total_bad += len(report.problems)
        if report.problems:
            files_bad += 1
            for p in report.problems:
                print(f"BAD {p}")
            if not args.all:
                print(f"stopped at the first problem ({report.good} good record(s) before it); "
                      "use --all to check everything")
                return 1
        else:
            in_progress = report.good - report.complete
            extra = f", {in_progress} game(s) in progress" if in_progress else ""
            print(f"OK {report.path}: {report.good} record(s), {report.complete} complete game(s){extra}, "
                  f"{report.moves} moves")
    if total_bad:
        print(f"{total_bad} problem(s) in {files_bad} of {len(args.files)} file(s); {total_good} good")
        return 1
    if len(args.files) > 1:
        print(f"OK: {total_good} record(s) in {len(args.files)} files")
    return 0
