"""The table service on its database: a table belongs to its token, a restart or another server continues the
same game at the same move with the same cards, no move is applied twice, a finished game is kept as a record
that ``cavallo replay`` replays, no address is written; a real ``kill -9`` of ``cavallo serve`` loses nothing.
Each on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys

import httpx
import pytest
from fastapi.testclient import TestClient

from cavallo_env import games
from cavallo_env.serve import create_app
from cavallo_env.store import open_store
from cavallo_env.tables import TableError
from store_fixtures import pg_url, postgres, token_client  # noqa: F401  (fixtures)
from test_serve import free_port, stop


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "tables.sqlite3")
    return request.getfixturevalue("pg_url")


def _app(url):
    return create_app("greedy", table_ais=["greedy"], table_seeds=True, db=url)


def _step(client, snap, rng, headers=None):
    """One move at the table: seat 0's (a random legal one) or the AI's; the new snapshot."""
    tid = snap["id"]
    if snap["your_turn"]:
        m = rng.choice(snap["legal"])
        r = client.post(f"/v1/tables/{tid}/move", json={"play": m["play"], "capture": m.get("capture", []),
                                                         "expect": snap["moves"]}, headers=headers)
    else:
        r = client.post(f"/v1/tables/{tid}/ai", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def same(a: dict, b: dict) -> bool:
    """Two snapshots of one position (an AI move's answer says the AI was thinking: that is not the position)."""
    return {**a, "thinking": None} == {**b, "thinking": None}


def _state(app, snap, token):
    return app.state.tables.get(snap["id"], token).state


def test_a_table_answers_only_its_token(url):
    app = _app(url)
    with TestClient(app) as c:
        snap = c.post("/v1/tables", json={"game": "briscola", "deck": "milanesi", "seed": 5}).json()
        tid, token = snap["id"], snap["token"]
        _step(c, snap, random.Random(0), {"authorization": f"Bearer {token}"})  # a table with a game to keep
        assert len(token) >= 32 and token not in json.dumps(c.get("/v1/health").json())
        missing = c.get("/v1/tables/no-such-table", headers={"authorization": f"Bearer {token}"})
        assert missing.status_code == 404
        for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": token},
                        {"authorization": f"Basic {token}"}, {"authorization": f"Bearer {token}x"}):
            for method, path in (("GET", ""), ("POST", "/move"), ("POST", "/ai"), ("GET", "/hint"),
                                 ("GET", "/record"), ("DELETE", "")):
                r = c.request(method, f"/v1/tables/{tid}{path}", headers={**headers, "content-type": "application/json"},
                              content=b"{}" if method == "POST" else None)
                assert r.status_code == 404 and r.json() == missing.json(), (headers, method, path, r.text)
        good = {"authorization": f"Bearer {token}"}
        assert c.get(f"/v1/tables/{tid}", headers=good).status_code == 200
        assert c.get(f"/v1/tables/{tid}", headers={"Authorization": f"bearer  {token} "}).status_code == 200
        assert c.delete(f"/v1/tables/{tid}", headers=good).status_code == 204
        assert c.get(f"/v1/tables/{tid}", headers=good).status_code == 404  # left: gone for its owner too
    row = open_store(url).table(tid)
    assert row.status == "closed" and token not in json.dumps(list(row)) and len(row.token_hash) == 64


def test_player_fields_are_kept_and_checked_and_no_address_is_written(url):
    app = _app(url)
    with token_client(app, client=("203.0.113.77", 4321)) as c:
        r = c.post("/v1/tables", json={"game": "scopa", "deck": "milanesi", "seed": 1,
                                       "player_id": "browser-ID_12345", "player_name": "Anna Maria"})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        for bad, words in (({"player_id": "short"}, "player_id must be"), ({"player_id": "x" * 65}, "player_id"),
                           ({"player_id": "has space!"}, "player_id"), ({"player_id": 12345678}, "player_id"),
                           ({"player_name": "n" * 41}, "player_name must be"), ({"player_name": "a\nb"}, "player_name"),
                           ({"player_name": ["x"]}, "player_name"), ({"player": "x"}, "unknown field")):
            r = c.post("/v1/tables", json={"game": "scopa", **bad})
            assert r.status_code == 422 and words in r.json()["detail"], (bad, r.text)
    store = open_store(url)
    row = store.table(tid)
    assert row.player_id == "browser-ID_12345" and row.player_name == "Anna Maria" and row.human_seats == "[0]"
    from sqlalchemy import select

    from cavallo_env.store.schema import metadata

    with store.engine.connect() as conn:
        everything = json.dumps([[list(r) for r in conn.execute(select(t))] for t in metadata.sorted_tables])
    assert "203.0.113" not in everything and "testclient" not in everything


@pytest.mark.parametrize("game,deck", [("cavalloicera", "bresciane"), ("briscola", "milanesi"),
                                       ("scopa", "milanesi")])
def test_a_new_server_on_the_database_continues_the_same_game(game, deck, tmp_path):
    """A second app on the same database (a restart) shows the same table at the same move with the same
    hidden cards, and the game goes on there to its end; its record replays."""
    url = str(tmp_path / "tables.sqlite3")
    rng = random.Random(3)
    a = _app(url)
    with TestClient(a) as ca:
        snap = ca.post("/v1/tables", json={"game": game, "deck": deck, "seed": 77, "player_id": "pid-12345678"}).json()
        token = snap.pop("token")
        h = {"authorization": f"Bearer {token}"}
        for _ in range(13):
            snap = _step(ca, snap, rng, h)
        before = _state(a, snap, token)
    b = _app(url)
    with TestClient(b) as cb:
        again = cb.get(f"/v1/tables/{snap['id']}", headers=h).json()
        assert same(again, snap)  # the same move, hand, table, score and last move
        after = _state(b, snap, token)
        g = games.get(game)
        assert all(g.make_view(after, s) == g.make_view(before, s) for s in range(g.num_seats))  # same hidden cards
        while not again["done"]:
            again = _step(cb, again, rng, h)
        record = cb.get(f"/v1/tables/{snap['id']}/record", headers=h).json()
    [kept] = open_store(url).finished_games()
    assert kept.record == record and kept.table_id == snap["id"] and kept.player_id == "pid-12345678"
    assert (kept.game, kept.deck, kept.ai, kept.human_seats) == (game, deck, "greedy", (0,))
    path = tmp_path / "record.json"
    path.write_text(json.dumps(kept.record))
    out = subprocess.run([sys.executable, "-m", "cavallo_env.cli", "replay", str(path)], capture_output=True, text=True)
    assert out.returncode == 0 and "OK" in out.stdout, out.stdout + out.stderr


def test_two_servers_on_one_database_serve_one_table_and_no_move_twice(url):
    a, b = _app(url), _app(url)
    rng = random.Random(5)
    with TestClient(a) as ca, TestClient(b) as cb:
        snap = ca.post("/v1/tables", json={"game": "scopa", "deck": "milanesi", "seed": 9}).json()
        h = {"authorization": f"Bearer {snap.pop('token')}"}
        for i in range(20):  # the player's requests land on either server
            seen = (ca, cb)[i % 2].get(f"/v1/tables/{snap['id']}", headers=h).json()
            assert same(seen, snap)
            snap = _step((cb, ca)[i % 2], snap, rng, h)
        while not snap["your_turn"]:
            snap = _step(ca, snap, rng, h)
        m = snap["legal"][0]
        body = {"play": m["play"], "capture": m.get("capture", []), "expect": snap["moves"]}
        first = ca.post(f"/v1/tables/{snap['id']}/move", json=body, headers=h)
        second = cb.post(f"/v1/tables/{snap['id']}/move", json=body, headers=h)  # the page's retry, elsewhere
        assert first.status_code == 200 and second.status_code == 409  # the table moved on: it is the AI's turn
        # the database's own lock: b's copy is behind when it plays, and only the database can tell
        token = h["authorization"].split()[1]
        snap = first.json()
        while not snap["your_turn"]:
            snap = _step(ca, snap, rng, h)
        tb = b.state.tables.get(snap["id"], token)
        ta = a.state.tables.get(snap["id"], token)
        legal = snap["legal"]
        ta.play_human({"play": legal[0]["play"], "capture": legal[0].get("capture", [])}, snap["moves"])
        with pytest.raises(TableError) as e:
            tb.play_human({"play": legal[-1]["play"], "capture": legal[-1].get("capture", [])}, snap["moves"])
        assert e.value.status == 409 and e.value.code == "stale"
        store = open_store(url)
        assert store.head(snap["id"]).moves == snap["moves"] + 1 == len(store.moves(snap["id"]))
        assert cb.get(f"/v1/tables/{snap['id']}", headers=h).json() == \
            ca.get(f"/v1/tables/{snap['id']}", headers=h).json()  # b read the table again


def _serve(url, port, workers=1):
    """``cavallo serve`` on ``port`` with the database ``url``; once it answers."""
    from store_fixtures import wait_for_port

    proc = subprocess.Popen([sys.executable, "-m", "cavallo_env.cli", "serve", "--bot", "greedy", "--ai", "greedy",
                             "--table-seeds", "--port", str(port), "--db", url, "--workers", str(workers)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port)
    except TimeoutError:
        proc.kill()
        pytest.fail(f"cavallo serve did not start: {proc.communicate()[0]!r}")
    return proc


def test_kill_9_mid_game_loses_nothing(url):
    """A real server killed with SIGKILL mid-game; a new one on the same database continues the same game at the
    same move (the page's next request just works), to its end."""
    port = free_port()
    rng = random.Random(11)
    proc = _serve(url, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
            snap = c.post("/v1/tables", json={"game": "briscola", "deck": "milanesi", "seed": 123}).json()
            h = {"authorization": f"Bearer {snap.pop('token')}"}
            for _ in range(15):
                snap = _step(c, snap, rng, h)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    proc = _serve(url, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
            again = c.get(f"/v1/tables/{snap['id']}", headers=h).json()
            assert same(again, snap) and again["moves"] == 15
            while not again["done"]:
                again = _step(c, again, rng, h)
            assert again["moves"] == 40
    finally:
        stop(proc)
    [kept] = open_store(url).finished_games()
    assert kept.record["format"] == "briscola-record/1" and len(kept.record["moves"]) == 40


def test_several_workers_on_postgresql_serve_every_table(pg_url):  # noqa: F811  (the fixture)
    """``--workers 3`` on one PostgreSQL database: every request on a new connection (any worker) plays on."""
    port = free_port()
    proc = _serve(pg_url, port, workers=3)
    rng = random.Random(2)
    try:
        base = f"http://127.0.0.1:{port}"
        snaps = []
        for game, deck in (("scopa", "milanesi"), ("cavalloicera", "bresciane")):
            r = httpx.post(f"{base}/v1/tables", json={"game": game, "deck": deck, "seed": 4}, timeout=30)
            assert r.status_code == 201, r.text
            snaps.append(r.json())
        for snap in snaps:
            h = {"authorization": f"Bearer {snap.pop('token')}"}
            for _ in range(30):
                with httpx.Client(base_url=base, timeout=30, headers={"connection": "close"}) as c:
                    snap = _step(c, snap, rng, h)
            assert snap["moves"] == 30
    finally:
        stop(proc)


def test_odd_table_ids_are_404_on_every_database(url):
    """An id no table can have (a NUL, a lone surrogate, too long) is not sent to the database: 404, never a 500."""
    with token_client(_app(url)) as c:
        for tid in ("%00", "a%00b", "%ED%A0%80", "x" * 65, "..", "a b", "ünïcode"):
            r = c.get(f"/v1/tables/{tid}", headers={"authorization": "Bearer \x00"})
            assert r.status_code in (404, 405), (tid, r.status_code, r.text)


def test_a_database_failure_is_a_503_and_the_table_goes_on(tmp_path):
    from sqlalchemy.exc import OperationalError

    app = _app(str(tmp_path / "tables.sqlite3"))
    store = app.state.tables.db
    with token_client(app) as c:
        snap = c.post("/v1/tables", json={"game": "briscola", "deck": "milanesi", "seed": 8}).json()
        real = store.add_move

        def down(*args):
            raise OperationalError("INSERT", {}, Exception("the database went away"))

        store.add_move = down
        r = c.post(f"/v1/tables/{snap['id']}/ai" if not snap["your_turn"] else f"/v1/tables/{snap['id']}/move",
                   json={"play": snap["legal"][0]["play"], "expect": 0} if snap["your_turn"] else None)
        assert r.status_code == 503 and "database did not answer" in r.json()["detail"], r.text
        store.add_move = real
        again = c.get(f"/v1/tables/{snap['id']}").json()
        assert again["moves"] == 0  # the move that was not written was not played
        rng = random.Random(1)
        while not again["done"]:
            again = _step(c, again, rng)
        assert again["moves"] == 40
