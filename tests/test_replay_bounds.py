"""``cavallo replay`` of ``.json`` record files: one record at a time, bounded memory, one-line errors.

``records.iter_json`` reads a ``.json`` file (one record or a list) a record at
a time; these tests hold it to its bounds (memory, record size, file size) and
to naming where a bad file goes wrong (record, line, column, byte offset).
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import subprocess
import sys

import pytest

from cavallo_env import records as rec_mod
from cavallo_env.cavalloicera.engine import CavalloiceraState, random_playout
from cavallo_env.cavalloicera.records import to_record
from cavallo_env.cli import main
from cavallo_env.records import iter_json


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return [to_record(random_playout(CavalloiceraState.new(seed), random.Random(seed))) for seed in range(4)]


def run_cli(capsys, *argv):
    code = main(["replay", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out + out.err


def _replay_child(*argv, limits: dict | None = None):
    """``cavallo replay`` in a child process (2 GiB of address space, so a regression cannot exhaust
    the machine); returns ``(exit code, output, peak RSS in bytes)``.  ``limits`` sets
    ``cavallo_env.records`` constants in the child first.

    The peak is the child's ``VmHWM`` (Linux): its own program's high-water mark.  ``ru_maxrss``
    would not do: it keeps the RSS of the forked test process across the exec.
    """
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    code = ("import resource, sys\nimport cavallo_env.records as r\n"
            + "".join(f"r.{k} = {v!r}\n" for k, v in (limits or {}).items())
            + "from cavallo_env.cli import main\ncode = main(['replay', *sys.argv[1:]])\n"
              "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
              "print('peak-rss-kib', *hwm)\nsys.exit(code)")
    proc = subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True, text=True,
                          timeout=120, preexec_fn=limit)
    out = proc.stdout + proc.stderr
    peak = [int(line.split()[1]) * 1024 for line in out.splitlines() if line.startswith("peak-rss-kib ")]
    return proc.returncode, out, (peak[0] if peak else None)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc/self/status (VmHWM)")
def test_a_large_json_list_is_replayed_in_bounded_memory(tmp_path, records):
    """32 MiB of records in a .json list: the peak memory of the replay is that of a one-record file,
    give or take less than the file's size (the whole list parsed at once took ~8 times the file)."""
    lines = [json.dumps(r) for r in records]
    big = tmp_path / "big.json"
    n = 0
    with open(big, "w") as f:
        f.write("[\n")
        while f.tell() < 32 << 20:
            f.write(("," if n else "") + lines[n % len(lines)] + "\n")
            n += 1
        f.write("]\n")
    size = big.stat().st_size
    one = tmp_path / "one.json"
    one.write_text(json.dumps(records[0], indent=1))
    code, out, base = _replay_child(one)
    assert code == 0 and base, out[-2000:]
    code, out, peak = _replay_child(big)
    assert code == 0 and f"OK {big}: {n} record(s)" in out, out[-2000:]
    assert peak - base < 24 << 20, f"peak RSS {peak >> 20} MiB against {base >> 20} MiB for one record, {size >> 20} MiB file"
    assert peak < 300 << 20


@pytest.mark.parametrize("read_bytes", [1, 7, 64, 1 << 16])
def test_records_across_reads_of_any_size(tmp_path, monkeypatch, records, read_bytes):
    """Whatever the size of a read (a number, a literal, an escape or a multi-byte character
    split between two), the records are those of ``json.loads``, in order."""
    monkeypatch.setattr(rec_mod, "_READ_BYTES", read_bytes)
    tail = [{"n": 12345678901234567890, "x": -1.5e-7, "t": True, "f": False, "z": None,
             "s": "caf\u00e9 \u2660 \U0001f0a1 \\\" \\u00e9"}, 0, 314159, [], {}]
    for i, data in enumerate([records[:2] + tail, records[0], []]):
        path = tmp_path / f"r{i}.json"
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
        got = list(iter_json(path))
        assert all(problem is None for _, _, problem in got), got[-1][2]
        if isinstance(data, list):
            assert [i for i, _, _ in got] == list(range(1, len(data) + 1))
            assert [r for _, r, _ in got] == data
        else:
            assert got == [(None, data, None)]


@pytest.mark.parametrize("read_bytes", [3, 1 << 16])
@pytest.mark.parametrize("cut", ["garbage between", "garbage inside", "bad literal", "control character"])
def test_positions_agree_with_json_loads(tmp_path, monkeypatch, records, read_bytes, cut):
    """The line and column of a problem are those ``json.loads`` gives for the whole text, and the
    byte offset is that character's, multi-byte characters before it included."""
    monkeypatch.setattr(rec_mod, "_READ_BYTES", read_bytes)
    first = dict(records[0], note="\u00e9t\u00e9 \u2660")  # non-ASCII before the problem
    text = json.dumps([first, records[1], records[2]], indent=1, ensure_ascii=False)
    second = text.index('\n {\n  "format"', 10)  # the start of the second record
    where = text.index('"moves"', second)
    text = {
        "garbage between": text[:second - 1] + " oops" + text[second - 1:],
        "garbage inside": text[:where] + "oops " + text[where:],
        "bad literal": text[:where] + '"x": tru, ' + text[where:],
        "control character": text[:where] + '"x": "a\tb", ' + text[where:],
    }[cut]
    path = tmp_path / "bad.json"
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(text)
    e = info.value
    got = list(iter_json(path))
    assert [i for i, _, p in got if p is None] == [1]
    index, _, problem = got[-1]
    assert index == (None if cut == "garbage between" else 2)
    byte = len(text[:e.pos].encode("utf-8"))
    assert f"line {e.lineno} column {e.colno}, byte {byte}" in problem, (problem, e)
    assert problem.startswith("not valid JSON (") and "\n" not in problem


BAD_FILES = [
    # (name, text after a good record, the problem's start, where it is)
    ("truncated", ", {\"format\": \"cavalloicera-rec", "record 2: not valid JSON (Unterminated string", "truncated file?"),
    ("no closing bracket", "\n", "not valid JSON (the file ends at line 2 column 1, byte", "after record 1, without the"),
    ("missing comma", " {}]", "not valid JSON (Expecting ',' delimiter at line 1 column", "after record 1)"),
    ("garbage", ", @@]", "record 2: not valid JSON (Expecting value at line 1 column", "byte"),
    ("trailing comma", ", ]", "not valid JSON (a ',' then the list's closing ']' at line 1", "after record 1)"),
    ("after the list", "] []", "not valid JSON (Extra data after the list's closing ']' at line 1", "byte"),
    ("not an object", ", 7]", "record 2: a record must be a JSON object, got int", ""),
    ("deep", ", " + "[" * 100_000 + "]" * 100_000 + "]", "record 2: not valid JSON (nested too deeply, from line 1",
     "byte"),
    ("huge integer", ", " + "9" * 5000 + "]", "record 2: not valid JSON for a record (Exceeds the limit (4300 digits)",
     "byte"),
]


@pytest.mark.parametrize("name, tail, problem, detail", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_json_lists_are_one_line_naming_the_record_and_byte(tmp_path, capsys, records, name, tail, problem,
                                                                 detail):
    path = tmp_path / "bad.json"
    path.write_text("[" + json.dumps(records[0]) + tail)
    code, text = run_cli(capsys, "--all", path)
    assert code == 1 and "Traceback" not in text
    bad = [line for line in text.splitlines() if line.startswith("BAD ")]
    assert len(bad) == 1 and bad[0].startswith(f"BAD {path}: {problem}") and detail in bad[0], text
    assert "1 good" in text  # the record before the problem was replayed


def test_byte_offsets_count_bytes_not_characters(tmp_path, capsys):
    path = tmp_path / "bad.json"
    text = '[{"format": "\u00e9\u00e9"},\n  {"format": "x"} oops]'
    path.write_text(text, encoding="utf-8")
    code, out = run_cli(capsys, "--all", path)
    pos = text.index("oops")
    assert f"(Expecting ',' delimiter at line 2 column 19, byte {pos + 2}, after record 2)" in out
    data = b'[{"format": "\xc3\xa9"}, {"format": "\xff"}]'
    path.write_bytes(data)
    code, out = run_cli(capsys, path)
    bad = data.index(b"\xff")
    assert code == 1 and f"BAD {path}: not UTF-8 text (invalid start byte at byte {bad})" in out


def test_a_record_over_the_record_bound_is_refused_unread(tmp_path, capsys, monkeypatch, records):
    """A record longer than ``MAX_RECORD_BYTES`` is a problem once that much is read, not parsed whole;
    one of exactly the bound is read."""
    monkeypatch.setattr(rec_mod, "MAX_RECORD_BYTES", 64 << 10)
    monkeypatch.setattr(rec_mod, "_READ_BYTES", 4096)
    one = json.dumps(records[0])
    fits = {**records[0], "pad": ""}
    fits["pad"] = "x" * ((64 << 10) - len(json.dumps(fits)))
    assert len(json.dumps(fits)) == 64 << 10
    path = tmp_path / "long.json"
    path.write_text("[" + one + ", " + json.dumps(fits) + ', {"pad": "' + "x" * (1 << 20) + '"}, ' + one + "]")
    got = list(iter_json(path))
    assert [i for i, _, p in got] == [1, 2, 3] and got[1][1] == fits
    assert got[2][2].startswith("longer than 65536 bytes (0.0625 MiB) from line 1 column ")
    assert "not a record (the rest of the file is not read)" in got[2][2]
    code, out = run_cli(capsys, path)
    assert code == 1 and f"BAD {path}: record 3: longer than 65536 bytes" in out


def test_a_json_file_over_the_file_bound_is_refused_before_reading(tmp_path, capsys, monkeypatch, records):
    path = tmp_path / "many.json"
    path.write_text(json.dumps(records))
    monkeypatch.setattr(rec_mod, "MAX_JSON_BYTES", path.stat().st_size - 1)
    assert list(iter_json(path)) == [(None, None, f"the file has {path.stat().st_size} bytes, more than a record "
                                      f"file may have ({path.stat().st_size - 1} bytes "
                                      f"({(path.stat().st_size - 1) / (1 << 20):g} MiB)); write many records "
                                      "as .jsonl")]
    monkeypatch.setattr(rec_mod, "MAX_JSON_BYTES", path.stat().st_size)
    assert [r for _, r, _ in iter_json(path)] == records


@pytest.mark.skipif(not hasattr(os, "mkfifo") or shutil.which("yes") is None, reason="no FIFOs or no `yes`")
def test_an_endless_pipe_stops_at_the_file_bound(tmp_path):
    """A source without a size (a pipe of endless whitespace) is counted as it is read."""
    fifo = tmp_path / "endless.json"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"exec yes ' ' > '{fifo}'"], stderr=subprocess.DEVNULL)
    try:
        code, out, _ = _replay_child(fifo, limits={"MAX_JSON_BYTES": 1 << 20})
    finally:
        writer.kill()
        writer.wait()
    assert code == 1 and f"BAD {fifo}: longer than 1048576 bytes (1 MiB), more than a record file may have" in out, \
        out[-2000:]
