"""``cavallo people``: the table of the AI against people from the database, --json, --export, and its errors."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sqlalchemy", reason="the database needs the runtime extra (sqlalchemy)")

from cavallo_env.cli import main  # noqa: E402
from cavallo_env.records import read_records, replay  # noqa: E402
from people_fixtures import finished_game, played_games, store_with  # noqa: E402


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    games = played_games(2) + [finished_game("briscola", "milanesi", 9, player_id="p-two-22", ai="greedy")]
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'tables.sqlite3'}"
    store_with(url, games).close()
    return url, games


def test_the_table_has_a_line_per_game_deck_and_ai(db, capsys):
    url, games = db
    assert main(["people", "--db", url]) == 0
    out = capsys.readouterr().out
    assert f"{len(games)} finished games" in out and "95% Wilson" in out
    for label in ("Cavalloìcera", "Briscola (milanesi)", "Briscola (bresciane)", "Scopa (milanesi, matches to 11)"):
        assert label in out
    assert sum("Briscola (milanesi)" in line for line in out.splitlines()) == 2  # heuristic and greedy


def test_json_has_every_figure(db, capsys):
    url, games = db
    assert main(["people", "--db", url, "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["games"] == len(games) and rep["skipped"] == [] and rep["database"] == url
    by = {(x["game"], x["deck"], x["ai"]): x for x in rep["lines"]}
    assert set(by) == {("cavalloicera", "bresciane", "heuristic"), ("briscola", "milanesi", "heuristic"),
                       ("briscola", "bresciane", "heuristic"), ("scopa", "milanesi", "heuristic"),
                       ("briscola", "milanesi", "greedy")}
    for x in rep["lines"]:
        assert x["wins"] + x["draws"] + x["losses"] == x["games"]
        assert x["score_ci"][0] <= x["score"] <= x["score_ci"][1]
        assert {"ai_points", "people_points", "counted_as", "label"} <= set(x)
    assert by[("scopa", "milanesi", "heuristic")]["options"] == {"deck": "milanesi", "match": True}


def test_filters_by_game_player_and_limit(db, capsys):
    url, _ = db
    assert main(["people", "--db", url, "--json", "--game", "scopa"]) == 0
    assert [x["game"] for x in json.loads(capsys.readouterr().out)["lines"]] == ["scopa"]
    assert main(["people", "--db", url, "--json", "--player", "p-two-22"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["games"] == 1 and rep["lines"][0]["ai"] == "greedy"
    assert main(["people", "--db", url, "--json", "--limit", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 3


def test_export_writes_records_cavallo_replay_accepts(db, tmp_path, capsys):
    url, games = db
    out = tmp_path / "people.jsonl"
    assert main(["people", "--db", url, "--export", str(out)]) == 0
    assert f"wrote {len(games)} records to {out}" in capsys.readouterr().out
    records = read_records(out)
    assert sorted(r["people"]["table_id"] for r in records) == sorted(g.table_id for g in games)
    for r in records:
        replay(r)
        assert r["people"]["human_seats"] == [0] and "player_name" not in r["people"]
    assert main(["replay", str(out)]) == 0


def test_an_empty_database_says_there_is_nothing_yet(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    store_with(url, []).close()
    assert main(["people", "--db", url]) == 1
    err = capsys.readouterr().err
    assert "no finished games yet" in err and "cavallo table" in err
    assert main(["people", "--db", url, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["games"] == 0


def test_no_database_is_an_error_and_creates_none(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "nope.sqlite3"
    assert main(["people", "--db", str(missing)]) == 2
    assert f"no database at {missing}" in capsys.readouterr().err
    assert not missing.exists()
    monkeypatch.delenv("CAVALLO_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["people"]) == 2  # the default database of cavallo serve, not there yet
    err = capsys.readouterr().err
    assert "no database at" in err and str(tmp_path / "data") in err
    assert not (tmp_path / "data" / "cavallo" / "tables.sqlite3").exists()


@pytest.mark.parametrize("argv,message", [
    (["--db", "mysql://u@h/db"], "unsupported database 'mysql'"),
    (["--db", "postgresql://nobody@127.0.0.1:1/none"], "cannot open the database"),
    (["--limit", "0"], "--limit must be a positive integer"),
    (["--export", "out.json"], "name the file .jsonl"),
])
def test_bad_arguments_are_clear_errors(db, tmp_path, capsys, argv, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if argv[0] != "--db":
        argv = ["--db", db[0], *argv]
    assert main(["people", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cavallo people: error:") and message in err, err


def test_a_record_that_does_not_replay_is_skipped_and_said(tmp_path, capsys):
    bad = finished_game("briscola", "milanesi", 1)
    bad.record["result"]["winner"] = 1 - bad.record["result"]["winner"] if bad.record["result"]["winner"] is not None else 0
    good = finished_game("briscola", "milanesi", 2)
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    store_with(url, [bad, good]).close()
    assert main(["people", "--db", url]) == 0
    out = capsys.readouterr().out
    assert ": 1 finished game\n" in out and f"skipped 1 game(s) whose record does not replay; the first: table {bad.table_id}" in out
