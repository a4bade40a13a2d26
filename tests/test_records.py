"""Game records: JSONL round trip, and every kind of bad record named precisely (API and CLI)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from cavallo_env.cli import main
from cavallo_env.cavalloicera.engine import CavalloiceraState, random_playout
from cavallo_env.records import RecordError, iter_jsonl, read_records, replay, write_jsonl
from cavallo_env.cavalloicera.records import FORMAT, to_record


def played_record(seed: int) -> dict:
    return to_record(random_playout(CavalloiceraState.new(seed), random.Random(seed)))


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return [played_record(seed) for seed in range(6)]


@pytest.fixture
def rec(records) -> dict:
    return copy.deepcopy(records[0])


def replay_error(record) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(record)
    return info.value


def test_jsonl_round_trip(tmp_path, records):
    path = tmp_path / "sub" / "games.jsonl"
    assert write_jsonl(path, records) == len(records)
    back = list(iter_jsonl(path))
    assert [n for n, _ in back] == list(range(1, len(records) + 1))
    assert [r for _, r in back] == records
    assert read_records(path) == records
    for r in records:
        assert to_record(replay(r)) == r


def test_blank_lines_keep_line_numbers(tmp_path, records):
    path = tmp_path / "g.jsonl"
    path.write_text("\n" + json.dumps(records[0]) + "\n\n" + json.dumps(records[1]) + "\n")
    assert [n for n, _ in iter_jsonl(path)] == [2, 4]


def test_unknown_card_in_a_move(rec):
    rec["moves"][9]["play"] = "11-coins"
    e = replay_error(rec)
    assert e.move == 10 and e.seat == rec["moves"][9]["seat"]
    assert "unknown card '11-coins'" in str(e)


def test_unknown_card_in_the_deal(rec):
    rec["hands"][2][5] = "Q-hearts"
    e = replay_error(rec)
    assert e.move is None
    assert "unknown card 'Q-hearts'" in e.reason and "seat 2" in e.reason


def test_duplicated_card_in_the_deal(rec):
    dup = rec["hands"][0][0]
    rec["table"][1] = dup
    e = replay_error(rec)
    assert f"card {dup} appears twice" in e.reason


def test_wrong_seat_order(rec):
    real = rec["moves"][5]["seat"]
    rec["moves"][5]["seat"] = (real + 2) % 4
    e = replay_error(rec)
    assert e.move == 6
    assert "wrong seat order" in e.reason and f"seat {real} was to play" in e.reason


def test_card_not_in_hand(rec):
    first = rec["moves"][0]
    other = (first["seat"] + 1) % 4
    first["play"] = rec["hands"][other][0]
    first["capture"] = []
    e = replay_error(rec)
    assert e.move == 1 and e.seat == first["seat"]
    assert "is not in the hand of seat" in e.reason


def _find_sum_capture(min_cards: int):
    """A record, and the index of a move capturing at least ``min_cards`` by sum."""
    for seed in range(200):
        r = played_record(seed)
        for i, mv in enumerate(r["moves"]):
            if len(mv["capture"]) >= min_cards:
                return r, i
    raise AssertionError("no sum capture found")


def test_illegal_capture_wrong_sum():
    r, i = _find_sum_capture(3)
    dropped = r["moves"][i]["capture"].pop()  # the rest still has >= 2 cards but a smaller sum
    e = replay_error(r)
    assert e.move == i + 1 and e.seat == r["moves"][i]["seat"]
    assert "sum to" in e.reason and "illegal move" in e.reason
    assert dropped not in r["moves"][i]["capture"]


def test_captured_card_not_on_the_table(rec):
    i = next(k for k, mv in enumerate(rec["moves"]) if mv["capture"])
    # A card still in a hand is not on the table.
    later = rec["moves"][-1]["play"]
    rec["moves"][i]["capture"] = [later]
    e = replay_error(rec)
    assert e.move == i + 1
    assert "not on the table" in e.reason


def test_capture_not_sorted():
    r, i = _find_sum_capture(2)
    r["moves"][i]["capture"].reverse()
    e = replay_error(r)
    assert e.move == i + 1 and "sorted" in e.reason


def test_wrong_stated_result(rec):
    rec["result"]["team_points"][0] += 1
    e = replay_error(rec)
    assert "wrong result" in e.reason and "team_points" in e.reason


def test_wrong_breakdown(rec):
    rec["result"]["breakdown"][1]["napula"] = 7
    e = replay_error(rec)
    assert "wrong result: team 1 napula is 7" in e.reason


def test_result_before_the_end(rec):
    del rec["moves"][30:]
    e = replay_error(rec)
    assert "30 of 48 moves" in e.reason


def test_deal_in_progress_without_result_replays(rec):
    del rec["moves"][30:]
    del rec["result"]
    state = replay(rec)
    assert state.turn == 30 and not state.done


def test_too_many_moves(rec):
    rec["moves"].append(dict(rec["moves"][-1]))
    assert "49 moves" in replay_error(rec).reason


def test_truncated_json_line(tmp_path, records):
    path = tmp_path / "t.jsonl"
    write_jsonl(path, records[:3])
    text = path.read_text().splitlines()
    path.write_text(text[0] + "\n" + text[1][: len(text[1]) // 2] + "\n" + text[2] + "\n")
    it = iter_jsonl(path)
    assert next(it)[0] == 1
    with pytest.raises(RecordError) as info:
        next(it)
    assert info.value.line == 2 and "not valid JSON" in str(info.value)


def test_wrong_format_string(rec):
    rec["format"] = "cavalloicera-record/2"
    e = replay_error(rec)
    assert "unknown format 'cavalloicera-record/2'" in e.reason and FORMAT in e.reason


@pytest.mark.parametrize("mutate,expected", [
    (lambda r: r.update(dealer=7), "dealer must be an int 0..3"),
    (lambda r: r.update(dealer="2"), "dealer must be an int 0..3"),
    (lambda r: r["hands"][1].pop(), "hand of seat 1 must hold 12 cards, got 11"),
    (lambda r: r["hands"].pop(), "must be a list of 4 hands"),
    (lambda r: r.pop("table"), "missing 'table'"),
    (lambda r: r.update(table="A-cups"), "table must be a list of card names"),
    (lambda r: r.update(moves={}), "'moves' must be a list"),
    (lambda r: r["moves"].__setitem__(0, "3-coins"), "a move must be an object"),
])
def test_malformed_deal(rec, mutate, expected):
    mutate(rec)
    assert expected in str(replay_error(rec))


def test_not_an_object():
    assert "must be a JSON object" in str(replay_error([1, 2]))


# ------------------------------------------------------------------ cavallo replay


def run_cli(capsys, *argv):
    code = main(["replay", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_cli_replay_good_files(tmp_path, capsys, records):
    jl = tmp_path / "good.jsonl"
    write_jsonl(jl, records)
    one = tmp_path / "one.json"
    one.write_text(json.dumps(records[0]))
    many = tmp_path / "many.json"
    many.write_text(json.dumps(records[:2]))
    code, text = run_cli(capsys, jl, one, many)
    assert code == 0
    assert f"OK {jl}: {len(records)} record(s)" in text
    assert f"OK {one}: 1 record(s)" in text and f"OK {many}: 2 record(s)" in text


def bad_file(tmp_path, records, kind: str):
    """A JSONL file whose second record has one kind of problem."""
    recs = copy.deepcopy(records[:3])
    r = recs[1]
    if kind == "unknown card":
        r["moves"][3]["play"] = "0-coins"
    elif kind == "duplicated card":
        r["hands"][3][0] = r["hands"][2][0]
    elif kind == "seat order":
        r["moves"][3]["seat"] = (r["moves"][3]["seat"] + 1) % 4
    elif kind == "result":
        r["result"]["winner"] = None if r["result"]["winner"] is not None else 0
    elif kind == "illegal capture":
        r, i = _find_sum_capture(3)
        r["moves"][i]["capture"].pop()  # wrong sum
        recs[1] = r
    path = tmp_path / f"{kind.replace(' ', '_')}.jsonl"
    write_jsonl(path, recs)
    if kind == "truncated":
        path.write_text(path.read_text()[:-200])
    return path


@pytest.mark.parametrize("kind,line,expected", [
    ("unknown card", 2, "move 4, seat"),
    ("duplicated card", 2, "appears twice"),
    ("seat order", 2, "move 4, seat"),
    ("result", 2, "wrong result: winner"),
    ("illegal capture", 2, "sum to"),
    ("truncated", 3, "not valid JSON"),
])
def test_cli_replay_bad_file(tmp_path, capsys, records, kind, line, expected):
    path = bad_file(tmp_path, records, kind)
    code, text = run_cli(capsys, path)
    assert code == 1
    assert f"BAD {path}: line {line}" in text
    assert expected in text
    assert "Traceback" not in text


def test_cli_replay_stops_at_first_unless_all(tmp_path, capsys, records):
    recs = copy.deepcopy(records[:4])
    recs[1]["moves"][0]["seat"] = (recs[1]["moves"][0]["seat"] + 1) % 4
    recs[3]["format"] = "nope"
    path = tmp_path / "two_bad.jsonl"
    write_jsonl(path, recs)
    code, text = run_cli(capsys, path, path)
    assert code == 1 and text.count("BAD ") == 1 and "line 2, move 1" in text
    code = main(["replay", "--all", str(path)])
    text = capsys.readouterr().out
    assert code == 1 and text.count("BAD ") == 2
    assert "line 2, move 1" in text and "line 4: unknown format" in text
    assert "2 problem(s)" in text and "2 good" in text


@pytest.mark.parametrize("content,expected", [
    (b"", "no records"),
    (b"\xff\xfe{}\n", "not UTF-8"),
    (b"[" * 50000 + b"\n", "not valid JSON"),
    (b'{"format": "cavalloicera-record/1"}\n', "missing 'hands'"),
])
def test_cli_replay_odd_files(tmp_path, capsys, content, expected):
    path = tmp_path / "odd.jsonl"
    path.write_bytes(content)
    code, text = run_cli(capsys, path)
    assert code == 1 and expected in text and "Traceback" not in text


def test_cli_replay_bad_json_file_and_missing_file(tmp_path, capsys, records):
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(records[0])[:-10])
    code, text = run_cli(capsys, path, tmp_path / "missing.jsonl")
    assert code == 1 and f"BAD {path}: not valid JSON" in text
    code = main(["replay", "--all", str(path), str(tmp_path / "missing.jsonl")])
    text = capsys.readouterr().out
    assert code == 1 and "missing.jsonl: cannot read" in text


def test_cli_replay_jsonl_content_in_a_json_file(tmp_path, capsys, records):
    path = tmp_path / "lines.json"
    write_jsonl(tmp_path / "lines.jsonl", records[:2])
    path.write_text((tmp_path / "lines.jsonl").read_text())
    code, text = run_cli(capsys, path)
    assert code == 1 and "name the file .jsonl" in text


# ------------------------------------------------------------------ hostile files


def test_integer_beyond_pythons_digit_limit_is_a_record_error(tmp_path, records):
    """json.loads raises a plain ValueError (not JSONDecodeError) for an integer of > 4300 digits."""
    from cavallo_env.records import load

    big = '{"format": "cavalloicera-record/1", "dealer": ' + "1" * 5001 + "}"
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(records[0]) + "\n" + big + "\n")
    it = iter_jsonl(path)
    assert next(it)[0] == 1
    with pytest.raises(RecordError) as info:
        next(it)
    assert info.value.line == 2 and "not valid JSON" in str(info.value) and "4300 digits" in str(info.value)
    one = tmp_path / "big.json"
    one.write_text(big)
    with pytest.raises(RecordError, match="4300 digits") as info:
        load(one)
    assert str(one) in str(info.value)


def test_cli_integer_beyond_the_digit_limit_keeps_going_with_all(tmp_path, capsys, records):
    big = '{"format": "cavalloicera-record/1", "dealer": ' + "1" * 5001 + "}"
    jl = tmp_path / "big.jsonl"
    jl.write_text(big + "\n" + json.dumps(records[0]) + "\n" + big + "\n")
    one = tmp_path / "big.json"
    one.write_text(big)
    good = tmp_path / "good.jsonl"
    write_jsonl(good, records[:2])
    code = main(["replay", "--all", str(jl), str(one), str(good)])
    text = capsys.readouterr().out
    assert code == 1 and "Traceback" not in text
    assert f"BAD {jl}: line 1: not valid JSON" in text and f"BAD {jl}: line 3: not valid JSON" in text
    assert f"BAD {one}: not valid JSON" in text and "4300 digits" in text
    assert f"OK {good}: 2 record(s)" in text
    assert "3 problem(s) in 2 of 3 file(s); 3 good" in text
    code, text = run_cli(capsys, jl)  # without --all: the first problem, with file and line
    assert code == 1 and f"BAD {jl}: line 1: not valid JSON" in text and "line 3" not in text


def test_truncated_line_message_reads_right(tmp_path, capsys, records):
    path = tmp_path / "cut.jsonl"
    line = json.dumps(records[0])
    path.write_text(line[: line.index('"hands"') + 4])  # cut inside a string
    code, text = run_cli(capsys, path)
    assert code == 1
    assert "Unterminated string starting at column" in text and "truncated line?" in text
    assert "at at" not in text
    with pytest.raises(RecordError) as info:
        list(iter_jsonl(path))
    assert "at at" not in str(info.value) and "starting at column" in str(info.value)
    one = tmp_path / "cut.json"
    one.write_text(line[:-10])
    code, text = run_cli(capsys, one)
    assert code == 1 and "not valid JSON (" in text and "at at" not in text and " at line 1 column " in text


def test_overlong_line_is_reported_without_reading_it_whole(tmp_path, capsys, records):
    from cavallo_env import records as rec_mod

    path = tmp_path / "long.jsonl"
    with open(path, "w") as f:
        f.write(json.dumps(records[0]) + "\n")
        f.write('{"format": "' + "x" * (rec_mod.MAX_LINE_BYTES + 10) + '"}\n')
        f.write(json.dumps(records[1]) + "\n")
    it = iter_jsonl(path)
    assert next(it)[0] == 1
    with pytest.raises(RecordError) as info:
        next(it)
    assert info.value.line == 2 and f"longer than {rec_mod.MAX_LINE_BYTES} bytes" in str(info.value)
    code, text = run_cli(capsys, "--all", path)
    assert code == 1 and f"BAD {path}: line 2: the line is longer than {rec_mod.MAX_LINE_BYTES} bytes" in text
    # a line of exactly the limit (newline included) is still read
    ok = tmp_path / "ok.jsonl"
    line = json.dumps(records[0])
    ok.write_text(line + " " * (rec_mod.MAX_LINE_BYTES - len(line) - 1) + "\n")
    assert [n for n, _ in iter_jsonl(ok)] == [1]


def _replay_in_a_box(*argv, json_bound=None):
    """``cavallo replay`` in a child process with 2 GiB of address space and a time limit.

    Reading an endless line whole would hit the memory limit (MemoryError) or
    the time limit, and fail the test instead of exhausting the machine.
    """
    import resource
    import subprocess
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    code = ("import sys, cavallo_env.records as r\n"
            + (f"r.MAX_JSON_BYTES = {json_bound}\n" if json_bound else "")
            + "from cavallo_env.cli import main\nsys.exit(main(['replay', *sys.argv[1:]]))")
    proc = subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True, text=True,
                          timeout=60, preexec_fn=limit)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.skipif(not __import__("os").path.exists("/dev/zero"), reason="no /dev/zero")
def test_endless_line_of_dev_zero(tmp_path):
    import os

    from cavallo_env import records as rec_mod

    link = tmp_path / "zero.jsonl"
    os.symlink("/dev/zero", link)
    code, text = _replay_in_a_box("--all", link)  # /dev/zero has one endless line: it must stop
    assert code == 1 and f"line 1: the line is longer than {rec_mod.MAX_LINE_BYTES} bytes" in text, text[-2000:]
    # as a .json file: read a record at a time, so the first byte (not JSON) is the error
    code, text = _replay_in_a_box("/dev/zero", json_bound=1 << 20)
    assert code == 1 and "BAD /dev/zero: not valid JSON (Expecting value at line 1 column 1, byte 0)" in text, \
        text[-2000:]
    with pytest.raises(RecordError, match="longer than"):
        list(iter_jsonl(link))


def test_json_file_over_the_size_bound(tmp_path, capsys, monkeypatch, records):
    from cavallo_env import records as rec_mod
    from cavallo_env.records import load

    path = tmp_path / "many.json"
    path.write_text(json.dumps(records))
    monkeypatch.setattr(rec_mod, "MAX_JSON_BYTES", path.stat().st_size - 1)
    code, text = run_cli(capsys, path)
    assert code == 1 and f"BAD {path}: the file has {path.stat().st_size} bytes, more than a record file" in text
    with pytest.raises(RecordError, match="more than a record file may have"):
        load(path)
    with pytest.raises(RecordError, match="more than a record file may have"):
        read_records(path)
    monkeypatch.setattr(rec_mod, "MAX_JSON_BYTES", path.stat().st_size)
    assert read_records(path) == records


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_written_files_get_the_umask_permissions(tmp_path, records, umask):
    import os
    import stat

    from cavallo_env.records import write_json

    old = os.umask(umask)
    try:
        write_jsonl(tmp_path / "a.jsonl", records[:1])
        write_json(tmp_path / "b.json", records[0])
        write_json(tmp_path / "b.json", records[1])  # replacing a file: still the umask's mode
    finally:
        os.umask(old)
    for name in ("a.jsonl", "b.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.json"]  # no temp file left


def test_checkpoints_get_the_umask_permissions(tmp_path):
    import os
    import stat

    torch = pytest.importorskip("torch")
    from training.checkpoint import load, save

    old = os.umask(0o022)
    try:
        st, js = save(tmp_path / "ck", {"model.w": torch.zeros(3)}, {"config": {}})
    finally:
        os.umask(old)
    for p in (st, js):
        assert stat.S_IMODE(p.stat().st_mode) == 0o644, p  # not mkstemp's 0o600
    assert load(tmp_path / "ck")[0]["model.w"].shape == (3,)


def test_writing_records_to_a_directory_names_it(tmp_path, records):
    from cavallo_env.records import write_json

    consumed = []

    def gen():
        for r in records:
            consumed.append(r)
            yield r

    with pytest.raises(IsADirectoryError) as info:
        write_jsonl(tmp_path, gen())
    assert str(tmp_path) in str(info.value) and "is a directory" in str(info.value)
    assert ".tmp-" not in str(info.value) and consumed == []  # refused before any record is made
    with pytest.raises(IsADirectoryError, match="is a directory") as info:
        write_json(tmp_path, records[0])
    assert str(tmp_path) in str(info.value) and ".tmp-" not in str(info.value)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- finished games state their result

VECTOR_DIR = __import__("pathlib").Path(__file__).parent


def _vector(folder: str, name: str) -> dict:
    return json.loads((VECTOR_DIR / folder / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("folder,name,drop,expected", [
    ("vectors-cavalloicera", "04_random.json", "top", "the deal is complete (48 moves) but has no 'result'"),
    ("vectors-briscola", "00_random_milanesi_seed1.json", "top", "the deal is complete (40 moves) but has no 'result'"),
    ("vectors-scopa", "03_match_capture_most_milanesi_seed4_4_deals_alternating_dealers.json", "top",
     "the match is decided (totals [6, 12]) but the record has no 'result'"),
    ("vectors-scopa", "00_single_deal_random_milanesi_seed1.json", "top",
     "the deal is over but the record has no top-level 'result'"),
    ("vectors-scopa", "00_single_deal_random_milanesi_seed1.json", "deal",
     "deal 1: the deal is complete (36 plays) but has no 'result'"),
])
def test_finished_game_without_result_is_rejected(tmp_path, capsys, folder, name, drop, expected):
    rec = _vector(folder, name)
    replay(rec)  # the vector itself is good
    if drop == "top":
        del rec["result"]
    else:
        del rec["deals"][-1]["result"]
    with pytest.raises(RecordError) as info:
        replay(rec)
    assert str(info.value) == expected
    path = tmp_path / "finished.json"
    path.write_text(json.dumps(rec))
    code, text = run_cli(capsys, path)
    assert code == 1 and f"BAD {path}: {expected}" in text
    assert "in progress" not in text and "Traceback" not in text


def test_games_in_progress_still_load_as_in_progress(tmp_path, capsys):
    """A record written mid-game (``cavallo play`` left with q / Ctrl-C) has fewer moves: still good."""
    from cavallo_env import games

    partial = []
    for name in games.names():
        game = games.get(name)
        state = game.new_state(3)
        rng = random.Random(3)
        for _ in range(9):
            game.play(state, rng.choice(state.legal_moves()))
        rec = game.to_record(state)
        assert "result" not in rec
        assert game.to_record(replay(rec)) == rec
        partial.append(rec)
    path = tmp_path / "partial.jsonl"
    write_jsonl(path, partial)
    code, text = run_cli(capsys, path)
    assert code == 0 and "3 game(s) in progress" in text


# ---------------------------------------------------------------- Cavalloìcera's result check is strict


@pytest.mark.parametrize("name,mutate,expected", [
    ("04_random.json", lambda r: r.update(winner=False), "wrong result: winner is False, the moves give 0"),
    ("04_random.json", lambda r: r.update(winner=0.0), "wrong result: winner is 0.0, the moves give 0"),
    ("04_random.json", lambda r: r["breakdown"][0].update(la_mata=True), "team 0 la_mata is True, the moves give 1"),
    ("04_random.json", lambda r: r.update(team_points=[float(p) for p in r["team_points"]]),
     "wrong result: team_points is [14.0, 3.0], the moves give [14, 3]"),
    ("04_random.json", lambda r: r.update(cards=[34, True]), "wrong result: cards is [34, True]"),
    ("04_random.json", lambda r: r["breakdown"][1].update(extra=0),
     "unknown key(s) in the breakdown of team 1: 'extra'"),
    ("04_random.json", lambda r: r["breakdown"][1].pop("napula"), "team 1 has no 'napula'"),
    ("04_random.json", lambda r: r.update(note="hi"), "unknown key(s) in 'result': 'note'"),
    ("04_random.json", lambda r: r.pop("cards"), "wrong result: no 'cards'"),
    ("04_random.json", lambda r: r["breakdown"].__setitem__(0, [1]), "breakdown of team 0 must be an object"),
    ("00_no_capture_draw.json", lambda r: r.pop("winner"), "wrong result: no 'winner' (the moves give None)"),
    ("00_no_capture_draw.json", lambda r: r.update(winner=False), "wrong result: winner is False"),
])
def test_cavalloicera_result_check_is_strict(name, mutate, expected):
    rec = _vector("vectors-cavalloicera", name)
    replay(rec)
    mutate(rec["result"])
    e = replay_error(rec)
    assert expected in e.reason and e.move is None
