"""Game records of every game (docs/contract.md): read, write, replay and check.

A record is plain JSON: the deal by names, every move, and once the deal is
over its result.  ``replay`` re-plays a record through the engine and reports
the first thing that is wrong (by move number, seat and reason) as a
``RecordError``; it never lets a traceback from inside the engine escape.
"""

from __future__ import annotations

import codecs
import json
import os
from typing import Iterable, Iterator

from . import games
from .cavalloicera.records import FORMAT, to_record  # noqa: F401  (version 1 import paths: Cavalloìcera's record format lived here)
from .errors import RecordError, short_repr  # noqa: F401  (re-exported: their home until errors.py)
from .files import byte_words
from .games.base import same_json  # noqa: F401  (re-exported: records of every game compare results with it)


def replay(record, *, line: int | None = None):
    """Replay a record of any game, checking every move and the stated result.

    The record's ``format`` picks the game (``cavalloicera-record/1``,
    ``briscola-record/1``, ``scopa-record/1``); returns the game's final state.
    Raises ``RecordError`` at the first problem.  A record without ``result``
    is a game in progress; a finished game without one is an error.
    """
    return games.of_record(record, line=line).replay(record, line=line)


# ---------------------------------------------------------------- files

#: The longest line a ``.jsonl`` record file may have.  A record is a few KiB;
#: a longer line is not a record, and reading it whole could exhaust memory
#: (``/dev/zero`` has a single endless line).
MAX_LINE_BYTES = 1 << 20
#: The largest ``.json`` record file read whole (one record or a list of them).
MAX_JSON_BYTES = 256 << 20


def json_problem(e: ValueError, text: str | None = None, *, line_numbers: bool = True) -> str:
    """Say why ``json.loads`` failed: ``"not valid JSON (...)"``.

    ``e`` is the ``ValueError`` it raised: a ``JSONDecodeError`` with a
    position, or a plain ``ValueError`` such as Python's limit on the digits of
    an integer.  ``text`` (the line that failed) adds a hint when it looks
    truncated; ``line_numbers=False`` gives only the column (one JSONL line).
    """
    if isinstance(e, json.JSONDecodeError):
        msg = e.msg if e.msg.endswith(" at") else f"{e.msg} at"  # e.g. "Unterminated string starting at"
        where = f"line {e.lineno} column {e.colno}" if line_numbers else f"column {e.colno}"
        hint = ""
        if e.msg == "Extra data" and line_numbers:
            hint = "; one record per line? name the file .jsonl"
        elif text is not None and (not text.endswith("\n") or e.pos >= len(text.rstrip())):
            hint = "; truncated line?"
        return f"not valid JSON ({msg} {where}{hint})"
    reason = str(e).split(";")[0]  # "Exceeds the limit (4300 digits) ...; use sys.set_int_max_str_digits() ..."
    return f"not valid JSON for a record ({reason})"


def parse_jsonl(path) -> Iterator[tuple[int, object, str | None]]:
    """Read a ``.jsonl`` file line by line without stopping at a bad line.

    Yields ``(line_number, value, None)`` for each non-blank line that parses,
    and ``(line_number, None, problem)`` for one that does not.  A line longer
    than ``MAX_LINE_BYTES`` is reported without being read whole, and ends the
    file (what follows it is not a record file's content).  ``OSError`` from
    opening or reading the file propagates.
    """
    with open(path, "rb") as f:
        n = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            n += 1
            if len(raw) > MAX_LINE_BYTES:
                yield n, None, (f"the line is longer than {byte_words(MAX_LINE_BYTES)}: not a record "
                                "(the rest of the file is not read)")
                return
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                yield n, None, f"not UTF-8 text ({e.reason} at byte {e.start})"
                continue
            if not text.strip():
                continue
            try:
                yield n, json.loads(text), None
            except RecursionError:
                yield n, None, "not valid JSON (nested too deeply)"
            except ValueError as e:  # JSONDecodeError, or a plain ValueError (an integer of > 4300 digits)
                yield n, None, json_problem(e, text, line_numbers=False)


def _oversize(f) -> str | None:
    """Why the open file ``f`` is too large to be a record file (its size says so), or None; a file
    with no size (a pipe, a device) is bounded as it is read."""
    try:
        size = os.fstat(f.fileno()).st_size
    except OSError:
        return None
    if size > MAX_JSON_BYTES:
        return (f"the file has {size} bytes, more than a record file may have ({byte_words(MAX_JSON_BYTES)}); "
                "write many records as .jsonl")
    return None


def read_json_text(path) -> str:
    """The text of a ``.json`` file of at most ``MAX_JSON_BYTES``; ``RecordError`` otherwise."""
    with open(path, "rb") as f:
        too_big = _oversize(f)
        if too_big:
            raise RecordError(f"{path}: {too_big}")
        data = f.read(MAX_JSON_BYTES + 1)  # a device or a pipe has no size: read at most the bound
    if len(data) > MAX_JSON_BYTES:
        raise RecordError(f"{path}: longer than {byte_words(MAX_JSON_BYTES)}, more than a record file may have; "
                          "write many records as .jsonl")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


#: The longest record inside a ``.json`` file, whitespace included.  A record
#: is a few KiB (a Scopa match written with indents, some tens); a longer one
#: is not a record.  ``iter_json`` holds one record's text (and one read
#: beyond it) at a time, however long the file.
MAX_RECORD_BYTES = 1 << 20
_READ_BYTES = 1 << 16  # one read of a .json file
_WHITESPACE = " \t\n\r"  # JSON's whitespace
_DECODER = json.JSONDecoder()


class _Stop(Exception):
    """``iter_json`` cannot go on: the problem, and the record (1-based index) it is in, if any."""

    def __init__(self, problem: str, index: int | None = None):
        super().__init__(problem)
        self.problem, self.index = problem, index


class _JsonText:
    """The text of a ``.json`` file, read a piece at a time, knowing where each character is.

    ``buf[start:]`` is the text read and not yet consumed; ``where(i)`` says
    where ``buf[i]`` is in the file.  Reading past ``MAX_JSON_BYTES``, or bytes
    that are not UTF-8, is a ``_Stop``.
    """

    def __init__(self, f):
        self.f = f
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.start = 0
        self.read_bytes = 0  # bytes read from the file so far
        self.byte0, self.line0, self.col0 = 0, 1, 0  # where buf[0] is: byte offset, line, 0-based column
        self.eof = False

    def more(self, at_least: int = 0) -> None:
        """Forget the consumed text and read at least ``at_least`` more bytes (nothing at the end)."""
        self._forget()
        if self.eof:
            return
        chunk = self.f.read(max(at_least, _READ_BYTES))
        before, pending = self.read_bytes, len(self.decoder.getstate()[0])
        self.read_bytes += len(chunk)
        if self.read_bytes > MAX_JSON_BYTES:  # a file with no size (a pipe, a device) that goes on
            raise _Stop(f"longer than {byte_words(MAX_JSON_BYTES)}, more than a record file may have; "
                        "write many records as .jsonl")
        try:
            self.buf += self.decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as e:  # e.start counts from the bytes the decoder held back
            raise _Stop(f"not UTF-8 text ({e.reason} at byte {before - pending + e.start})") from None
        self.eof = not chunk

    def _forget(self) -> None:
        gone = self.buf[:self.start]
        if not gone:
            return
        self.byte0 += len(gone.encode("utf-8"))
        nl = gone.rfind("\n")
        if nl >= 0:
            self.line0 += gone.count("\n")
            self.col0 = len(gone) - nl - 1
        else:
            self.col0 += len(gone)
        self.buf, self.start = self.buf[self.start:], 0

    def where(self, i: int) -> str:
        """``"line L column C, byte B"``: where ``buf[i]`` is in the file (columns count characters,
        from 1 as ``json`` does; bytes from 0)."""
        nl = self.buf.rfind("\n", 0, i)
        line = self.line0 + self.buf.count("\n", 0, i)
        col = i - nl if nl >= 0 else self.col0 + i + 1
        return f"line {line} column {col}, byte {self.byte0 + len(self.buf[:i].encode('utf-8'))}"

    def next_char(self) -> str:
        """Consume whitespace; the next character (not consumed), or ``""`` at the end of the file."""
        while True:
            i, n = self.start, len(self.buf)
            while i < n and self.buf[i] in _WHITESPACE:
                i += 1
            self.start = i
            if i < n:
                return self.buf[i]
            if self.eof:
                return ""
            self.more()

    def value(self, index: int | None):
        """Decode the JSON value at ``start`` and consume it; ``index`` is its record number (problems).

        A value longer than ``MAX_RECORD_BYTES`` is a problem found without
        reading it whole.
        """
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.start)
            except json.JSONDecodeError as e:
                # an error at the end of what was read, or a string not closed yet, may be the
                # value going on in the next read; any other is in the file whatever follows
                at_end = e.pos >= len(self.buf.rstrip()) - 8 or e.msg.startswith("Unterminated string")
                if at_end and not self.eof:
                    self._grow(index)
                    continue
                msg = e.msg if e.msg.endswith(" at") else f"{e.msg} at"  # "Unterminated string starting at"
                raise _Stop(f"not valid JSON ({msg} {self.where(e.pos)}{'; truncated file?' if at_end else ''})",
                            index) from None
            except RecursionError:
                raise _Stop(f"not valid JSON (nested too deeply, from {self.where(self.start)})", index) from None
            except ValueError as e:  # a plain ValueError: an integer of more than 4300 digits
                raise _Stop(f"{json_problem(e)[:-1]}, in the value from {self.where(self.start)})", index) from None
            if end == len(self.buf) and not self.eof and self.buf[end - 1] not in '}]"':
                self._grow(index)  # a number or a literal may go on in the next read
                continue
            self.start = end
            return value

    def _grow(self, index: int | None) -> None:
        """Read more of the value at ``start``: as much again as it has, within ``MAX_RECORD_BYTES``."""
        have = len(self.buf) - self.start
        if have > MAX_RECORD_BYTES // 4 and len(self.buf[self.start:].encode("utf-8")) > MAX_RECORD_BYTES:
            raise _Stop(f"longer than {byte_words(MAX_RECORD_BYTES)} from {self.where(self.start)}: not a record "
                        "(the rest of the file is not read)", index)
        self.more(have)


def iter_json(path) -> Iterator[tuple[int | None, object, str | None]]:
    """Read a ``.json`` record file (one record, or a list of records) one record at a time.

    Yields ``(index, record, None)`` for each record of a list (``index``
    from 1) or ``(None, record, None)`` for a file of one record.  A problem
    ends the file: one ``(index, None, problem)`` and nothing more, ``index``
    the record it is in (None between records, then ``problem`` says after
    which) and ``problem`` naming the line, column and byte offset.  Memory is
    bounded by ``MAX_RECORD_BYTES``, whatever the size of the file; a file of
    more than ``MAX_JSON_BYTES`` is refused.  ``OSError`` from opening or
    reading the file propagates.
    """
    with open(path, "rb") as f:
        too_big = _oversize(f)
        if too_big:
            yield None, None, too_big
            return
        text = _JsonText(f)
        n = 0  # records read
        try:
            c = text.next_char()
            if c == "":
                raise _Stop(f"not valid JSON (Expecting value at {text.where(text.start)}; no record in the file)")
            if c != "[":  # one record
                record = text.value(None)
                if text.next_char() != "":
                    raise _Stop(f"not valid JSON (Extra data at {text.where(text.start)}; "
                                "one record per line? name the file .jsonl)")
                yield None, record, None
                return
            text.start += 1
            if text.next_char() == "]":
                text.start += 1
            else:
                while True:
                    record = text.value(n + 1)
                    n += 1
                    yield n, record, None
                    c = text.next_char()
                    if c == "]":
                        text.start += 1
                        break
                    if c == "":
                        raise _Stop(f"not valid JSON (the file ends at {text.where(text.start)}, after record {n}, "
                                    "without the list's closing ']'; truncated file?)")
                    if c != ",":
                        raise _Stop(f"not valid JSON (Expecting ',' delimiter at {text.where(text.start)}, "
                                    f"after record {n})")
                    text.start += 1
                    if text.next_char() == "]":
                        raise _Stop(f"not valid JSON (a ',' then the list's closing ']' at {text.where(text.start)}, "
                                    f"after record {n})")
            if text.next_char() != "":
                raise _Stop(f"not valid JSON (Extra data after the list's closing ']' at {text.where(text.start)})")
        except _Stop as e:
            yield e.index, None, e.problem


def load(path) -> dict:
    """Read one record (or a list) from a ``.json`` file (not replayed); ``RecordError`` if it is not JSON."""
    text = read_json_text(path)
    try:
        return json.loads(text)
    except RecursionError:
        raise RecordError(f"{path}: not valid JSON (nested too deeply)") from None
    except ValueError as e:
        raise RecordError(f"{path}: {json_problem(e)}") from None


def iter_jsonl(path) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, record)`` from a ``.jsonl`` file, skipping blank lines.

    A line that is not JSON, not UTF-8 or longer than ``MAX_LINE_BYTES`` raises
    ``RecordError`` with its line number.
    """
    for n, value, problem in parse_jsonl(path):
        if problem is not None:
            raise RecordError(problem, line=n)
        yield n, value


def read_records(path) -> list[dict]:
    """All records of a ``.json`` (one record or a list) or ``.jsonl`` file."""
    path = os.fspath(path)
    if path.endswith(".jsonl"):
        return [r for _, r in iter_jsonl(path)]
    data = load(path)
    return data if isinstance(data, list) else [data]


def open_temp(directory, prefix: str = ".tmp-", suffix: str = "") -> tuple[int, str]:
    """Create a new file in ``directory`` for an atomic write; returns ``(fd, path)``.

    Like ``tempfile.mkstemp`` (a fresh name, ``O_EXCL``), but the file gets
    the permissions of any new file, ``0o666`` minus the umask (and the
    folder's default ACL), instead of mkstemp's ``0o600``: the file renamed
    over the target is what the user keeps.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        path = os.path.join(os.fspath(directory), f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name in {directory}")  # pragma: no cover


def _check_folder(folder: str, path: str) -> None:
    """The nearest existing folder at or above ``folder`` must be a folder we may write in."""
    a = folder
    while not os.path.exists(a):
        parent = os.path.dirname(a)
        if parent == a:
            break
        a = parent
    if not os.path.isdir(a):
        raise NotADirectoryError(f"cannot write {path}: {a} is a file, not a folder")
    if not os.access(a, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write {path}: the folder {a} is not writable")


def check_output_file(path) -> str:
    """Check, before any work is done, that ``path`` can be written as a file.

    A folder (``IsADirectoryError``), a parent that is a file
    (``NotADirectoryError``) or a folder we may not write in
    (``PermissionError``) is an error naming ``path``.  Returns the folder of
    ``path`` (which may not exist yet)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a directory: give the path of a file to write")
    folder = os.path.dirname(os.path.abspath(path))
    _check_folder(folder, path)
    return folder


def check_output_dir(path) -> None:
    """Check, before any work is done, that ``path`` is or can be made a folder to write files in."""
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise NotADirectoryError(f"{path} is a file: give a folder to write in")
    _check_folder(os.path.abspath(path), path)


def prepare_output_file(path) -> str:
    """The folder of a file about to be written, checked (``check_output_file``) and created if need be."""
    d = check_output_file(path)
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise OSError(f"cannot write {path}: cannot create the folder {d}: {e.strerror or e}") from None
    return d


def _open_target(d: str, path: str, suffix: str) -> tuple[int, str]:
    try:
        return open_temp(d, suffix=suffix)
    except OSError as e:  # the folder refuses new files (e.g. /proc): name the user's path, not the temp one
        raise OSError(f"cannot write {path}: {e.strerror or e}") from None


def write_jsonl(path, records: Iterable[dict]) -> int:
    """Write records one per line, atomically (temp file then rename).

    The target is checked before ``records`` is consumed: a folder is an
    ``IsADirectoryError`` naming it.
    """
    path = os.fspath(path)
    d = prepare_output_file(path)
    fd, tmp = _open_target(d, path, ".jsonl")
    n = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
                n += 1
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return n


def write_json(path, record: dict) -> None:
    """Write one record as indented JSON, atomically (a folder is an ``IsADirectoryError``)."""
    path = os.fspath(path)
    d = prepare_output_file(path)
    fd, tmp = _open_target(d, path, ".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
