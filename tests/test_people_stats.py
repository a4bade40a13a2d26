"""The AI against people in the service: ``GET /v1/stats`` (the table, a player's own games),
``GET /v1/stats/games/{id}`` (a finished game to replay, never one still played), the pages and their files."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("sqlalchemy", reason="the table's database needs the runtime extra (sqlalchemy)")

from fastapi.testclient import TestClient  # noqa: E402

from cavallo_env import people  # noqa: E402
from cavallo_env.serve import create_app  # noqa: E402
from cavallo_env.serve.routers import stats as stats_router  # noqa: E402
from cavallo_env.serve.settings import LANGUAGES, WEB  # noqa: E402
from people_fixtures import finished_game, played_games, store_with  # noqa: E402

PLAYER = "player-0001"


@pytest.fixture()
def client(tmp_path, monkeypatch):
    monkeypatch.setattr(stats_router, "ANSWER_TTL", 0.0)  # every answer fresh
    store = store_with(f"sqlite:///{tmp_path / 'tables.sqlite3'}", [])
    app = create_app("greedy", table_ais=["greedy", "heuristic"], table_seeds=True, db=store)
    with TestClient(app) as c:
        c.store = store
        yield c
    store.close()


def _play_to_the_end(client, game, deck, seed, player_id=PLAYER, stop_after=None):
    r = client.post("/v1/tables", json={"game": game, "deck": deck, "seed": seed, "player_id": player_id})
    assert r.status_code == 201, r.text
    snap = r.json()
    auth = {"Authorization": f"Bearer {snap['token']}"}
    while not snap["done"] and (stop_after is None or snap["moves"] < stop_after):
        if snap["your_turn"]:
            m = snap["legal"][0]
            r = client.post(f"/v1/tables/{snap['id']}/move", headers=auth,
                            json={"play": m["play"], "capture": m.get("capture", []), "expect": snap["moves"]})
        else:
            r = client.post(f"/v1/tables/{snap['id']}/ai", headers=auth)
        assert r.status_code == 200, r.text
        snap = r.json()
    return snap


def test_an_empty_database_has_an_empty_table(client):
    r = client.get("/v1/stats")
    assert r.status_code == 200
    assert r.json() == {"games": 0, "lines": [], "skipped": 0, "limit": stats_router.MAX_GAMES, "complete": True}


def test_the_table_is_that_of_the_finished_games(client):
    fgs = played_games(2)
    store_with(client.store.url, fgs)
    out = client.get("/v1/stats").json()
    results, _ = people.results_of(fgs)
    assert out["games"] == len(fgs) and out["skipped"] == 0
    assert out["lines"] == json.loads(json.dumps([x.to_dict() for x in people.summarize(results)]))
    assert "player" not in out


def test_a_game_played_at_the_table_counts_and_is_in_its_players_history(client):
    unfinished = _play_to_the_end(client, "briscola", "milanesi", 5, stop_after=6)
    snap = _play_to_the_end(client, "briscola", "milanesi", 7)
    _play_to_the_end(client, "scopa", "milanesi", 8, player_id="someone-else")
    out = client.get("/v1/stats", params={"player_id": PLAYER}).json()
    assert out["games"] == 2
    mine = out["player"]
    assert mine["games"] == 1 and [h["table_id"] for h in mine["history"]] == [snap["id"]]
    h = mine["history"][0]
    points = snap["result"]["points"]  # seat 0's team first
    assert h["points"] == points and h["game"] == "briscola" and h["ai"] == "greedy"
    assert h["result"] == ("win" if points[0] > points[1] else "loss" if points[0] < points[1] else "draw")
    assert [x["games"] for x in mine["lines"]] == [1]
    assert unfinished["id"] not in json.dumps(out)
    assert client.get("/v1/stats", params={"player_id": "nobody-at-all"}).json()["player"]["games"] == 0


def test_a_bad_player_id_is_refused(client):
    r = client.get("/v1/stats", params={"player_id": "x"})
    assert r.status_code == 422 and "player_id must be 8 to 64 characters" in r.json()["detail"]


def test_a_finished_game_is_replayed_with_every_hand(client):
    snap = _play_to_the_end(client, "cavalloicera", "bresciane", 3)
    r = client.get(f"/v1/stats/games/{snap['id']}")
    assert r.status_code == 200, r.text
    g = r.json()
    assert (g["game"], g["deck"], g["ai"], g["title"]) == ("cavalloicera", "bresciane", "greedy", "Cavalloìcera")
    assert [s["who"] for s in g["seats"]] == ["person", "ai", "partner", "ai"]
    assert g["frames"] == json.loads(json.dumps(people.frames(g["record"])))
    assert len(g["frames"]) == 49 and all(len(h) == 12 for h in g["frames"][0]["hands"])
    points = snap["result"]["points"]
    assert g["result"]["points"] == {"people": points[0], "ai": points[1]}
    assert "player_id" not in json.dumps(g) and PLAYER not in json.dumps(g)


def test_a_game_still_played_is_not_shown(client):
    snap = _play_to_the_end(client, "scopa", "milanesi", 4, stop_after=3)
    for table_id in (snap["id"], "no-such-table", "bad id!"):
        r = client.get(f"/v1/stats/games/{table_id}")
        assert r.status_code == 404 and "only a finished game can be replayed" in r.json()["detail"]
        assert "frames" not in r.text and "hands" not in r.text


def test_a_record_that_does_not_replay_is_skipped_or_refused(client):
    bad = finished_game("briscola", "milanesi", 1)
    bad.record["result"]["points"] = [1, 2]
    store_with(client.store.url, [bad, finished_game("briscola", "milanesi", 2)])
    out = client.get("/v1/stats").json()
    assert (out["games"], out["skipped"]) == (1, 1)
    r = client.get(f"/v1/stats/games/{bad.table_id}")
    assert r.status_code == 422 and "does not replay" in r.json()["detail"]


def test_the_table_is_kept_a_few_seconds(client, monkeypatch):
    monkeypatch.setattr(stats_router, "ANSWER_TTL", 60.0)
    assert client.get("/v1/stats").json()["games"] == 0
    store_with(client.store.url, [finished_game("briscola", "milanesi", 3)])
    assert client.get("/v1/stats").json()["games"] == 0  # the answer of a moment ago
    monkeypatch.setattr(stats_router, "ANSWER_TTL", 0.0)
    assert client.get("/v1/stats").json()["games"] == 1


def test_the_pages_and_their_files_are_served(client):
    for page, script in (("/stats", "/static/stats.js"), ("/replay", "/static/replay.js")):
        r = client.get(page)
        assert r.status_code == 200 and "text/html" in r.headers["content-type"] and script in r.text
        assert client.get(script).status_code == 200
    assert client.get("/static/stats.css").status_code == 200
    for lang in LANGUAGES:
        assert client.get(f"/static/i18n/stats-{lang}.json").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert "/v1/stats" in paths and "/v1/stats/games/{table_id}" in paths and "/stats" not in paths


def _keys(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_keys(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def test_every_language_has_every_word_of_the_pages():
    en = _keys(json.loads((WEB / "i18n" / "stats-en.json").read_text("utf-8")))
    for lang in LANGUAGES:
        words = _keys(json.loads((WEB / "i18n" / f"stats-{lang}.json").read_text("utf-8")))
        assert set(words) == set(en), (lang, set(words) ^ set(en))
        for k, v in en.items():
            assert sorted(re.findall(r"\{\w+\}", words[k])) == sorted(re.findall(r"\{\w+\}", v)), (lang, k)
            assert words[k].strip(), (lang, k)
    src = "".join((WEB / f).read_text("utf-8") for f in ("stats.js", "replay.js", "stats.html", "replay.html"))
    used = set(re.findall(r'\bt\("([a-z_.]+)"\s*[,)]', src)) | set(re.findall(r'data-i18n="([a-z_.]+)"', src))
    assert used and used <= set(en), used - set(en)


def test_the_table_replays_no_record_and_counts_a_new_game_at_once(client, monkeypatch):
    first = played_games(1)
    store_with(client.store.url, first)  # each game's result is stored as it finishes

    def no_replay(*args, **kwargs):
        raise AssertionError("/v1/stats replayed a record")

    monkeypatch.setattr(people, "result_of", no_replay)
    monkeypatch.setattr(people, "replay", no_replay)
    out = client.get("/v1/stats", params={"player_id": "p-anon-1"}).json()
    assert out["games"] == len(first) and out["player"]["games"] == len(first)
    assert len(out["player"]["history"]) == len(first)
    monkeypatch.undo()
    monkeypatch.setattr(stats_router, "ANSWER_TTL", 0.0)
    late = finished_game("briscola", "milanesi", 21)
    store_with(client.store.url, [late])
    assert client.get("/v1/stats").json()["games"] == len(first) + 1
    assert client.get("/v1/stats", params={"player_id": "p-anon-1"}).json()["player"]["games"] == len(first) + 1


def _copies(store, n: int) -> None:
    """``n`` more finished games in ``store``: copies of its rows under new ids, their stored results with them."""
    from sqlalchemy import insert, select

    from cavallo_env.store.schema import tables

    with store.engine.begin() as conn:
        rows = [dict(r._mapping) for r in conn.execute(select(tables))]
        conn.execute(insert(tables), [{**rows[i % len(rows)], "id": f"copy-{i}"} for i in range(n)])


def test_the_table_of_2000_games_is_sums_not_replays(client, monkeypatch):
    import time

    fgs = played_games(1)
    store_with(client.store.url, fgs)
    _copies(client.store, 2000 - len(fgs))
    calls = []

    def no_replay(*args, **kwargs):
        calls.append(args)
        raise AssertionError("/v1/stats replayed a record")

    monkeypatch.setattr(people, "result_of", no_replay)
    monkeypatch.setattr(people, "replay", no_replay)
    t = time.perf_counter()
    out = client.get("/v1/stats", params={"player_id": "p-anon-1"}).json()
    seconds = time.perf_counter() - t
    assert out["games"] == 2000 and out["player"]["games"] == 2000 and len(out["player"]["history"]) == 100
    assert sum(x["games"] for x in out["lines"]) == 2000 and out["complete"] and not calls
    assert seconds < 3.0, seconds  # about 0.1 s; replaying 2,000 records took 2-5 s


def test_the_stores_finished_ids_are_those_of_its_finished_games(client):
    db = client.store
    store_with(db.url, played_games(1) + [finished_game("scopa", "milanesi", 5, player_id="player-0002")])
    for kw in ({}, {"game": "scopa"}, {"player_id": "player-0002"}, {"limit": 2}, {"player_id": "nobody-here"}):
        assert db.finished_ids(**kw) == [fg.table_id for fg in db.finished_games(**kw)], kw
    assert db.finished_game("scopa-milanesi-5").record["format"] == "scopa-record/1"
    assert db.finished_game("not-there") is None


def test_a_database_that_cannot_be_read_is_503(client, monkeypatch):
    from sqlalchemy.exc import OperationalError

    def away(*args, **kwargs):
        raise OperationalError("SELECT", {}, Exception("connection refused"))

    monkeypatch.setattr(client.store, "result_tallies", away)
    monkeypatch.setattr(client.store, "finished_game", away)
    r = client.get("/v1/stats")
    assert r.status_code == 503 and "database did not answer" in r.json()["detail"]
    assert client.get("/v1/stats/games/some-table-id").status_code == 503


def test_a_server_without_tables_says_it_keeps_no_games():
    with TestClient(create_app("greedy", tables=False)) as c:
        for path in ("/v1/stats", "/v1/stats/games/some-table-id"):
            r = c.get(path)
            assert r.status_code == 503 and "this server keeps no games" in r.json()["detail"], path
