"""The table database (cavallo_env.store) on SQLite and on a real PostgreSQL server: its schema's version
(Alembic revisions, checked on start), the optimistic lock of the moves, the finished games read back."""

from __future__ import annotations

import json
import threading

import pytest

from cavallo_env.store import FinishedGame, StoreError, open_store, resolve, schema_head
from store_fixtures import pg_url, postgres  # noqa: F401  (fixtures)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    """A new empty database of each kind: a SQLite file, a database on the throwaway PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "tables.sqlite3")
    return request.getfixturevalue("pg_url")


def _row(table_id: str, game: str = "briscola", player_id=None) -> dict:
    return {"id": table_id, "token_hash": "0" * 64, "game": game, "deck": "milanesi",
            "options": json.dumps({"deck": "milanesi"}), "ai": "greedy", "seed": str(2 ** 100),
            "human_seats": "[0]", "player_id": player_id, "player_name": "Ann"}


def test_a_new_database_gets_the_newest_schema_and_its_tables_match_the_code(url):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from cavallo_env.store.schema import metadata

    store = open_store(url)
    assert store.revision == schema_head() == "0002"
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == [], diff  # the migrations make exactly the tables schema.py describes
    again = open_store(url)  # a second start finds it migrated
    assert again.revision == "0002"
    store.close()
    again.close()


def test_a_newer_schema_is_refused_saying_so(url):
    store = open_store(url)
    from sqlalchemy import text

    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    store.close()
    with pytest.raises(StoreError, match="schema revision '9999', newer than this cavallo-env knows"):
        open_store(url)


def test_a_database_with_a_foreign_tables_table_is_refused(tmp_path):
    import sqlite3

    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE tables (x INTEGER)")
    with pytest.raises(StoreError, match="cavallo did not make"):
        open_store(str(path))


def test_bad_urls_are_refused_clearly():
    with pytest.raises(StoreError, match="unsupported database 'mysql'"):
        open_store("mysql://u@h/db")
    with pytest.raises(StoreError, match="cannot open the database postgresql\\+psycopg://u:\\*\\*\\*@127.0.0.1:1/x"):
        open_store("postgresql://u:secret@127.0.0.1:1/x")  # the password is not shown
    assert resolve("postgres://h/db") == "postgresql+psycopg://h/db"
    assert resolve("some/file.sqlite3").startswith("sqlite:////")


def test_the_default_database_is_a_file_in_the_users_data_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("CAVALLO_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert resolve(None) == f"sqlite:///{tmp_path / 'data' / 'cavallo' / 'tables.sqlite3'}"
    store = open_store()
    assert (tmp_path / "data" / "cavallo" / "tables.sqlite3").exists() and store.revision == "0002"
    monkeypatch.setenv("CAVALLO_DB", str(tmp_path / "env.sqlite3"))
    assert resolve(None) == f"sqlite:///{tmp_path / 'env.sqlite3'}"


def test_a_move_is_written_once_whoever_races_for_it(url):
    """The optimistic lock: of many writers of move n (threads here, servers in life), exactly one wins."""
    store = open_store(url)
    store.create_table(_row("t1"))
    results = []
    barrier = threading.Barrier(8)

    def write(i):
        other = open_store(url) if store.dialect == "postgresql" else store
        barrier.wait()
        results.append(other.add_move("t1", 1, 0, f"w{i}", {"play": f"{i}"}, None))

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True]
    assert store.head("t1").moves == 1 and len(store.moves("t1")) == 1
    assert not store.add_move("t1", 3, 1, "x", {"play": "3"}, None)  # a gap is no move either
    assert store.add_move("t1", 2, 1, "x", {"play": "2"}, None)


def test_finished_games_are_read_back_newest_first_by_game_and_player(url):
    store = open_store(url)
    for i, (game, player) in enumerate([("briscola", "p-aaaaaaaa"), ("scopa", "p-aaaaaaaa"), ("briscola", None),
                                        ("briscola", "p-bbbbbbbb")]):
        store.create_table(_row(f"t{i}", game, player))
        assert store.add_move(f"t{i}", 1, 0, "you", {"play": "x"}, {"format": f"{game}-record/1", "i": i})
    store.create_table(_row("open"))  # not finished: not a finished game
    got = list(store.finished_games())
    assert [g.table_id for g in got] == ["t3", "t2", "t1", "t0"]
    g = got[-1]
    assert isinstance(g, FinishedGame) and g.game == "briscola" and g.deck == "milanesi" and g.ai == "greedy"
    assert g.human_seats == (0,) and g.player_id == "p-aaaaaaaa" and g.player_name == "Ann"
    assert g.record == {"format": "briscola-record/1", "i": 0} and g.finished_at.tzinfo is not None
    with pytest.raises(Exception):
        g.game = "scopa"  # frozen
    assert [g.table_id for g in store.finished_games(game="briscola", limit=2)] == ["t3", "t2"]
    assert [g.table_id for g in store.finished_games(player_id="p-aaaaaaaa")] == ["t1", "t0"]
    assert list(store.finished_games(game="scopa", player_id="p-bbbbbbbb")) == []
    with pytest.raises(ValueError, match="limit"):
        list(store.finished_games(limit=-1))


def test_tables_end_and_expire_keeping_their_moves(url):
    store = open_store(url)
    store.create_table(_row("a"))
    store.create_table(_row("b"))
    assert store.add_move("a", 1, 0, "you", {"play": "x"}, None)
    store.touch("a", 100.0)
    assert store.expire(idle_before=1000.0) == 1
    assert store.head("a").status == "expired" and store.head("b").status == "open"
    assert len(store.moves("a")) == 1  # an unfinished game's moves stay
    assert not store.add_move("a", 2, 1, "ai", {"play": "y"}, None)  # an ended table takes no move
    assert store.add_move("b", 1, 0, "you", {"play": "x"}, None)
    assert not store.end("b", "dropped", idle_before=0.0)  # used lately: not dropped
    assert store.end("b", "closed") and store.head("b").status == "closed"
    with pytest.raises(ValueError):
        store.end("b", "open")
    assert store.size_bytes() > 0
    # a table where nothing was played holds no game: it is deleted, whether it is left or expires
    store.create_table(_row("empty1"))
    store.create_table(_row("empty2"))
    assert store.end("empty1", "closed") and store.head("empty1") is None
    store.touch("empty2", 100.0)
    assert store.expire(idle_before=1000.0) == 1 and store.head("empty2") is None


def test_cavallo_serve_refuses_a_newer_schema_before_serving(tmp_path):
    import subprocess
    import sys

    from sqlalchemy import text

    path = tmp_path / "tables.sqlite3"
    store = open_store(str(path))
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    store.close()
    out = subprocess.run([sys.executable, "-m", "cavallo_env.cli", "serve", "--bot", "greedy", "--port", "0",
                          "--db", str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "cavallo serve: error: the database" in out.stderr, out.stderr
    assert "schema revision '9999', newer than this cavallo-env knows" in out.stderr and "Traceback" not in out.stderr
