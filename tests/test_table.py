"""The table's server side: sessions held by the server, moves checked by the engine,
nothing hidden sent to the page, bad requests answered 4xx, a responsive service."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from cavallo_env import games
from cavallo_env.serve import create_app
from cavallo_env.tables import CATALOG, TableError, TableStore
from test_serve import free_port

GAMES = [(g, e["deck"]) for e in CATALOG for g in e["games"]]


@pytest.fixture(scope="module")
def client():
    # one test client stands for the many players of these tests: it may hold every table
    app = create_app("greedy", table_ais=["greedy", "heuristic", "random"], max_tables=40, table_seeds=True,
                     tables_per_client=40)
    with TestClient(app) as c:
        yield c


def hidden_cards(table, seat: int = 0) -> set[str]:
    """Names of the cards seat 0 must not see at ``table``: the other seats' hands and the stock."""
    return hidden_in(table.game, table.state, table.options["deck"], seat)


def hidden_in(game, state, deck: str, seat: int = 0) -> set[str]:
    """Names of the cards ``seat`` must not see in ``state`` of ``game``."""
    if game.name == "cavalloicera":
        from cavallo_env.cavalloicera.cards import NAMES
        return {NAMES[c] for s in range(4) if s != seat for c in state.hands[s]}
    from cavallo_env.briscola.cards import NAMES
    n = NAMES[deck]
    if game.name == "briscola":
        names = {n[c] for c in state.hands[1 - seat]} | {n[c] for c in state.stock}
        return names - {n[state.trump]}  # the trump card is face up: everyone knows who draws it
    deal = state.deal
    return {n[c] for c in deal.hands[1 - seat]} | {n[c] for c in deal.initial_stock[deal.stock_pos:]}


def strings_in(obj) -> set[str]:
    out = set()
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out |= strings_in(k) | strings_in(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= strings_in(v)
    return out


def play_out(client, game, deck, seed, store=None, pick=None):
    """A whole game by the API (seat 0 picks with ``pick``); checks every snapshot hides what it must."""
    rng = random.Random(seed)
    r = client.post("/v1/tables", json={"game": game, "deck": deck, "seed": seed})
    assert r.status_code == 201, r.text
    snap = r.json()
    table = client.app.state.tables.get(snap["id"])
    seen = 0
    while not snap["done"]:
        assert "seed" not in snap  # it deals every card
        hidden = hidden_cards(table)
        shown = dict(snap)
        if snap["last"] and snap["last"]["deal_ended"]:  # the last move of the previous deal: its cards, not this one's
            shown.pop("last")
        leaked = hidden & strings_in(shown)
        assert not leaked, f"{game}: the page got hidden cards {leaked}"
        if snap["your_turn"]:
            legal = snap["legal"]
            assert legal and all(m["bonuses"] == games.get(game).move_bonuses(table.state, games.get(game).move_from_dict(m, deck)) for m in legal)
            m = pick(legal) if pick else rng.choice(legal)
            r = client.post(f"/v1/tables/{snap['id']}/move", json={"play": m["play"], "capture": m.get("capture", []),
                                                                 "expect": snap["moves"]})
        else:
            r = client.post(f"/v1/tables/{snap['id']}/ai")
        assert r.status_code == 200, r.text
        new = r.json()
        assert new["moves"] == snap["moves"] + 1 and new["last"]["n"] == new["moves"]
        snap = new
        seen += 1
    return snap, table, seen


@pytest.mark.parametrize("game,deck", GAMES)
def test_whole_game_by_the_api_hides_what_it_must(client, game, deck):
    snap, table, n = play_out(client, game, deck, seed=11)
    assert snap["done"] and snap["result"]["winner"] in (0, 1, None) and snap["seed"] == 11
    g = games.get(game)
    assert snap["result"]["points"] == g.outcome(table.state)["points"]
    assert len(snap["deals"]) >= 1 and snap["deals"] == g.deal_results(table.state)
    assert n == len(table.state.moves)
    record = client.get(f"/v1/tables/{snap['id']}/record").json()
    g.replay(record)  # the record of the table's game replays and checks


def test_scopa_is_a_match_to_11_with_running_totals(client):
    snap, table, _ = play_out(client, "scopa", "milanesi", seed=5)
    assert snap["options"]["match"] is True and max(snap["score"]["totals"]) >= 11
    assert [sum(d["points"][s] for d in snap["deals"]) for s in (0, 1)] == snap["score"]["totals"]


def test_cavalloicera_seats_and_bonuses(client):
    r = client.post("/v1/tables", json={"game": "cavalloicera", "deck": "bresciane", "seed": 1})
    snap = r.json()
    assert [s["who"] for s in snap["seats"]] == ["you", "opponent", "partner", "opponent"]
    assert set(snap["score"]) == {"scua", "picada", "simili", "quadriglia"}
    assert snap["view"]["hand_sizes"] == [12, 12, 12, 12] and len(snap["view"]["hand"]) == 12


def test_moves_are_checked_by_the_engine(client):
    snap = client.post("/v1/tables", json={"game": "briscola", "deck": "milanesi", "seed": 3}).json()
    tid = snap["id"]
    while not snap["your_turn"]:
        snap = client.post(f"/v1/tables/{tid}/ai").json()
    other = hidden_cards(client.app.state.tables.get(tid))
    bad = [
        ({"play": sorted(other)[0]}, 422, "illegal move"),
        ({"play": "11-hearts"}, 422, "invalid move"),
        ({"play": 7}, 422, "invalid move"),
        ({}, 422, "invalid move"),
        ({"play": snap["legal"][0]["play"], "expect": snap["moves"] + 5}, 409, "moved on"),
        ({"play": snap["legal"][0]["play"], "expect": "x"}, 422, "expect"),
    ]
    for body, status, words in bad:
        r = client.post(f"/v1/tables/{tid}/move", json=body)
        assert r.status_code == status and words in r.json()["detail"], (body, r.status_code, r.text)
    assert client.get(f"/v1/tables/{tid}").json()["moves"] == snap["moves"]  # nothing was played
    r = client.post(f"/v1/tables/{tid}/ai")
    assert r.status_code == 409 and "your turn" in r.json()["detail"]
    hint = client.get(f"/v1/tables/{tid}/hint").json()
    assert {"play": hint["move"]["play"]} in [{"play": m["play"]} for m in snap["legal"]]
    r = client.post(f"/v1/tables/{tid}/move", json={"play": snap["legal"][0]["play"]})
    assert r.status_code == 200 and r.json()["moves"] == snap["moves"] + 1


@pytest.mark.parametrize("method,path,body", [
    ("POST", "/v1/tables", {"game": "chess"}),
    ("POST", "/v1/tables", {"game": "scopa", "deck": "bresciane"}),
    ("POST", "/v1/tables", {"game": "briscola", "deck": 3}),
    ("POST", "/v1/tables", {"game": "briscola", "ai": "policy:/etc/passwd"}),
    ("POST", "/v1/tables", {"game": "briscola", "seed": -1}),
    ("POST", "/v1/tables", {"game": "briscola", "seed": True}),
    ("POST", "/v1/tables", {"game": "briscola", "colour": "red"}),
    ("POST", "/v1/tables", [1, 2]),
    ("POST", "/v1/tables", "not json{"),
    ("GET", "/v1/tables/nope", None),
    ("POST", "/v1/tables/nope/move", {"play": "A-hearts"}),
    ("POST", "/v1/tables/nope/ai", None),
    ("GET", "/v1/tables/nope/hint", None),
    ("DELETE", "/v1/tables/nope", None),
    ("GET", "/static/../tables.py", None),
    ("GET", "/static/i18n/xx.json", None),
])
def test_bad_requests_get_4xx_with_a_reason(client, method, path, body):
    content = body if isinstance(body, str) else None if body is None else json.dumps(body)
    r = client.request(method, path, content=content, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, (path, body, r.status_code, r.text)
    if path.startswith("/v1"):
        assert r.json()["detail"]


def test_random_bodies_never_500(client):
    rng = random.Random(0)
    snap = client.post("/v1/tables", json={"game": "scopa", "deck": "milanesi", "seed": 9}).json()
    atoms = [None, True, 0, -3, 2 ** 70, 1.5, "", "A-hearts", "7-coins", "x" * 300, [], {}, ["A-hearts"] * 3]
    paths = ["/v1/tables", f"/v1/tables/{snap['id']}/move", f"/v1/tables/{snap['id']}/ai", "/v1/move"]
    for _ in range(300):
        body = {k: rng.choice(atoms) for k in rng.sample(["game", "deck", "ai", "seed", "play", "capture", "expect"],
                                                         rng.randint(0, 4))}
        raw = json.dumps(body) if rng.random() < 0.9 else rng.choice(["{", "[]", "null", "\x00", "1e999"])
        r = client.post(rng.choice(paths), content=raw, headers={"content-type": "application/json"})
        assert r.status_code < 500, (body, r.status_code, r.text)


def test_store_bounds_and_expiry():
    store = TableStore(["greedy"], max_tables=2, ttl=60)
    a = store.create("briscola", "milanesi")
    store.create("scopa", "milanesi")
    with pytest.raises(TableError) as e:
        store.create("briscola", "bresciane")
    assert e.value.status == 503 and "2 tables" in str(e.value)
    a.touched -= 61
    with pytest.raises(TableError) as e:
        store.get(a.id)
    assert e.value.status == 404
    assert store.expire() == 1 and len(store) == 1
    store.create("cavalloicera", "bresciane")  # room again
    for bad in (dict(ai_specs=[]), dict(ai_specs=["greedy"], max_tables=0), dict(ai_specs=["greedy"], ttl=0)):
        with pytest.raises(ValueError):
            TableStore(**bad)


def test_body_limit(client):
    r = client.post("/v1/move", content=b"{" + b" " * 2_000_000 + b"}")
    assert r.status_code == 413 and "limit" in r.json()["detail"]

    def chunks():  # no Content-Length: refused after the limit is passed
        for _ in range(40):
            yield b" " * 100_000
    r = client.post("/v1/tables", content=chunks())
    assert r.status_code == 413


def test_health_tells_no_paths_or_pid(client):
    h = client.get("/v1/health").json()
    assert "pid" not in h and "tables" in h
    app = create_app("policy:default", table_ais=["policy:default"], table_seeds=True)
    with TestClient(app) as c:
        snap = c.post("/v1/tables", json={"game": "briscola", "deck": "milanesi", "seed": 1}).json()
        while not snap["your_turn"]:
            snap = c.post(f"/v1/tables/{snap['id']}/ai").json()
        c.get(f"/v1/tables/{snap['id']}/hint")  # loads the Briscola model
        h = c.get("/v1/health").json()
    assert h["model"]["loaded"]["briscola"]["onnx_sha256"]
    assert '"path"' not in json.dumps(h) and "pid" not in h


def test_a_slow_bot_is_cut_off_and_the_table_goes_on():
    app = create_app("ismcts:200000", table_ais=["ismcts:200000"], move_timeout=0.3, table_seeds=True)
    with TestClient(app) as c:
        snap = c.post("/v1/tables", json={"game": "scopa", "deck": "milanesi", "seed": 2}).json()
        while snap["your_turn"]:
            m = snap["legal"][0]
            snap = c.post(f"/v1/tables/{snap['id']}/move", json=m).json()
        t0 = time.monotonic()
        r = c.post(f"/v1/tables/{snap['id']}/ai")
        assert r.status_code == 200, r.text
        assert "heuristic" in r.json()["last"]["by"] and time.monotonic() - t0 < 5
        s = games.get("scopa").new_state(4)
        view = games.get("scopa").make_view(s, s.current)
        r = c.post("/v1/move", json=view)
        assert r.status_code == 503 and "time limit" in r.json()["detail"]


def test_health_answers_while_the_bot_thinks():
    """A long bot move runs off the event loop: /v1/health still answers at once."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "cavallo_env.cli", "serve", "--bot", "ismcts:100000",
                             "--ai", "ismcts:100000", "--port", str(port), "--move-timeout", "20"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving"), line
        for _ in range(200):
            try:
                httpx.get(f"{url}/v1/health", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        s = games.get("cavalloicera").new_state(1)
        view = games.get("cavalloicera").make_view(s, s.current)
        import threading
        slow = threading.Thread(target=lambda: httpx.post(f"{url}/v1/move", json=view, timeout=60))
        slow.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        r = httpx.get(f"{url}/v1/health", timeout=10)
        took = time.monotonic() - t0
        assert r.status_code == 200 and took < 1.0, took  # the search itself runs for many seconds
        slow.join(60)
    finally:
        proc.terminate()
        proc.wait(10)


def test_port_errors_come_before_serving():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "cavallo_env.cli", "serve", "--bot", "greedy", "--port", str(port)],
                             capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "serving" not in out.stdout
    assert f"cannot listen on 127.0.0.1:{port}" in out.stderr
    out = subprocess.run([sys.executable, "-m", "cavallo_env.cli", "serve", "--port", "70000"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--port must be in 0..65535" in out.stderr


def test_the_page_and_its_files_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"] and "/static/table.js" in r.text
    for path in ("/static/table.js", "/static/table.css", "/static/i18n/en.json", "/static/rules/en.json"):
        assert client.get(path).status_code == 200, path
    g = client.get("/v1/games").json()
    assert g["languages"] == ["en", "nl", "fi", "ru"] and g["ais"][0] == "greedy"
    assert [d["deck"] for d in g["decks"]] == ["bresciane", "milanesi"]


def test_every_language_has_every_word_and_rule():
    from cavallo_env.serve import LANGUAGES, WEB

    def keys(d, prefix=""):
        out = {}
        for k, v in d.items():
            if isinstance(v, dict):
                out.update(keys(v, prefix + k + "."))
            else:
                out[prefix + k] = v
        return out

    import re
    en = keys(json.loads((WEB / "i18n" / "en.json").read_text("utf-8")))
    rules_en = json.loads((WEB / "rules" / "en.json").read_text("utf-8"))
    for lang in LANGUAGES:
        words = keys(json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8")))
        assert set(words) == set(en), (lang, set(words) ^ set(en))
        for k, v in en.items():
            assert sorted(re.findall(r"\{\w+\}", words[k])) == sorted(re.findall(r"\{\w+\}", v)), (lang, k)
            assert words[k].strip(), (lang, k)
        rules = json.loads((WEB / "rules" / f"{lang}.json").read_text("utf-8"))
        assert set(rules) == set(games.names())
        for g in rules:
            assert [(len(s["paragraphs"]), len(s["items"])) for s in rules[g]["sections"]] == \
                   [(len(s["paragraphs"]), len(s["items"])) for s in rules_en[g]["sections"]], (lang, g)
    # every reason the server gives has its words in every language
    from pathlib import Path

    from cavallo_env import serve, tables
    src = "".join(p.read_text("utf-8") for p in [Path(tables.__file__), *Path(serve.__file__).parent.rglob("*.py")])
    codes = set(re.findall(r'TableError\([^()]*(?:\([^()]*\)[^()]*)*, \d{3}, "(\w+)"\)', src)) | set(re.findall(r'code="(\w+)"', src))
    assert {"expired", "full", "ai_failed", "illegal_move", "single_process"} <= codes
    assert codes <= {k.split(".", 1)[1] for k in en if k.startswith("errors.")}, codes
    # every key the page uses is in the strings
    js = "".join((WEB / name).read_text("utf-8") for name in ("table.js", "board.js", "index.html"))
    used = set(re.findall(r'\bt\("([a-z_.]+)"\s*[,)]', js)) | set(re.findall(r'data-i18n="([a-z_]+)"', js))
    assert used <= set(en), used - set(en)


def test_several_workers_refuse_tables_saying_why():
    app = create_app("greedy", tables=False)
    with TestClient(app) as c:
        r = c.post("/v1/tables", json={"game": "briscola"})
    assert r.status_code == 503 and "--workers 1" in r.json()["detail"]


def test_cavallo_table_serves_the_page_and_prints_its_address():
    proc = subprocess.Popen([sys.executable, "-m", "cavallo_env.cli", "table", "--no-browser", "--port", "0",
                             "--ai", "greedy"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("the table is at http://127.0.0.1:"), line
        url = line.split()[4]
        r = httpx.get(url, timeout=10)
        assert r.status_code == 200 and "table.js" in r.text
        assert httpx.get(url + "v1/games", timeout=10).json()["ais"] == ["greedy"]
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("game,deck", GAMES)
def test_refused_moves_tell_nothing_hidden(client, game, deck):
    """Playing a card seat 0 does not hold says only that: never where the card is."""
    snap = client.post("/v1/tables", json={"game": game, "deck": deck, "seed": 21}).json()
    tid = snap["id"]
    while not snap["your_turn"]:
        snap = client.post(f"/v1/tables/{tid}/ai").json()
    table = client.app.state.tables.get(tid)
    hidden = hidden_cards(table)
    assert hidden
    for card in sorted(hidden):
        for body in ({"play": card}, {"play": card, "capture": snap["view"].get("table", [])[:1]}):
            r = client.post(f"/v1/tables/{tid}/move", json=body)
            assert r.status_code == 422 and "not in your hand" in r.json()["detail"], r.text
            assert not hidden & strings_in(r.json()) - {card}, r.text
            assert "seat" not in r.json()["detail"] and "stock" not in r.json()["detail"]
    assert client.get(f"/v1/tables/{tid}").json()["moves"] == snap["moves"]


def test_seeds_only_when_the_server_takes_them():
    app = create_app("greedy", table_ais=["greedy"])
    with TestClient(app) as c:
        r = c.post("/v1/tables", json={"game": "briscola", "seed": 3})
        assert r.status_code == 422 and "seed" in r.json()["detail"]
        snap = c.post("/v1/tables", json={"game": "briscola"}).json()
        assert "seed" not in snap
        assert c.app.state.tables.get(snap["id"]).seed >= 0  # 128 random bits


def test_move_fields_are_checked(client):
    snap = client.post("/v1/tables", json={"game": "briscola", "deck": "milanesi", "seed": 4}).json()
    tid = snap["id"]
    while not snap["your_turn"]:
        snap = client.post(f"/v1/tables/{tid}/ai").json()
    card = snap["legal"][0]["play"]
    r = client.post(f"/v1/tables/{tid}/move", json={"play": card, "capture": [card]})
    assert r.status_code == 422 and "takes nothing" in r.json()["detail"]
    r = client.post(f"/v1/tables/{tid}/move", json={"play": card, "colour": "red"})
    assert r.status_code == 422 and "unknown field" in r.json()["detail"] and r.json()["code"] == "invalid_move"


class _Broken:
    name = "broken"

    def __init__(self, kind):
        self.kind = kind

    def choose(self, view):
        if self.kind == "raise":
            raise RuntimeError("a bot fault")
        return {"play": "nonsense", "capture": []}


def test_a_failing_or_cheating_ai_is_replaced_by_the_heuristic():
    from cavallo_env.bots import register

    register("broken", lambda arg, seed: _Broken(arg or "raise"))
    app = create_app("greedy", table_ais=["broken:raise", "broken:illegal"], table_seeds=True)
    with TestClient(app) as c:
        for ai, why in (("broken:raise", "failed (RuntimeError)"), ("broken:illegal", "answered an illegal move")):
            snap = c.post("/v1/tables", json={"game": "scopa", "deck": "milanesi", "ai": ai, "seed": 1}).json()
            while snap["your_turn"]:
                snap = c.post(f"/v1/tables/{snap['id']}/move", json=snap["legal"][0]).json()
            r = c.post(f"/v1/tables/{snap['id']}/ai")
            assert r.status_code == 200, r.text
            assert r.json()["last"]["by"] == f"heuristic (the {ai} AI {why})"


def test_policy_paths_are_not_shown():
    from cavallo_env.bots.policy import shipped_model

    path = shipped_model("briscola")
    app = create_app(f"policy:{path}", table_ais=[f"policy:{path}"])
    with TestClient(app) as c:
        shown = json.dumps([c.get("/v1/health").json(), c.get("/v1/games").json(), c.get("/openapi.json").json()])
        assert str(path.parent) not in shown and f"policy:{path.name}" in shown
        snap = c.post("/v1/tables", json={"game": "briscola", "ai": f"policy:{path.name}"}).json()
        assert snap["ai"] == f"policy:{path.name}"


def test_a_full_store_makes_room_from_finished_tables():
    store = TableStore(["greedy"], max_tables=1, ttl=600)
    t = store.create("briscola", "milanesi")
    t.state.done = True  # finished, and idle past the grace
    t.touched -= TableStore.GRACE + 1
    store.create("scopa", "milanesi")
    with pytest.raises(TableError):
        store.get(t.id)
