"""cavallo serve: a real uvicorn server answering /v1/move and /v1/health; bad views get 422, never 500."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from policy_fixtures import game_views, make_model

from cavallo_env import ACTION_CONTRACT_VERSION
from cavallo_env.bots import make
from cavallo_env.cavalloicera.encoding import OBS_VERSION


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(bot: str, workers: int = 1, *extra: str, preexec_fn=None):
    """``cavallo serve --bot BOT`` (more flags in ``extra``) on a free port; ``(proc, url)`` once it answers.
    Its tables are kept in a new SQLite file in a temporary directory unless ``extra`` gives ``--db``."""
    port = free_port()
    if "--db" not in extra:
        extra = (*extra, "--db", os.path.join(tempfile.mkdtemp(prefix="cavallo-serve-"), "tables.sqlite3"))
    proc = subprocess.Popen([sys.executable, "-m", "cavallo_env.cli", "serve", "--bot", bot, "--port", str(port),
                             "--workers", str(workers), *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=preexec_fn)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"cavallo serve exited with {proc.returncode}: {proc.stdout.read()!r}")
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("cavallo serve did not come up within 60 s")


def stop(proc) -> bytes:
    """Stop the server; its whole output."""
    proc.terminate()
    try:
        out, _ = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return make_model(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def server(model):
    proc, url = start(f"policy:{model}")
    with httpx.Client(base_url=url, timeout=30) as client:
        yield client
    stop(proc)


@pytest.fixture(scope="module")
def views():
    return [v for s in range(3) for v in game_views(s)]


def test_health(server, model):
    r = server.get("/v1/health")
    assert r.status_code == 200
    h = r.json()
    assert h["status"] == "ok"
    assert h["bot"] == f"policy:{model.name}"  # no file paths
    assert h["obs_version"] == OBS_VERSION and h["action_version"] == ACTION_CONTRACT_VERSION
    # a model of one game: only that game's versions
    assert h["games"] == {"cavalloicera": {"obs_version": OBS_VERSION, "action_version": ACTION_CONTRACT_VERSION}}
    meta = json.loads(model.with_suffix(".json").read_text())
    assert h["model"]["onnx_sha256"] == meta["onnx_sha256"]
    assert h["model"]["model"]["hidden"] == [64, 64] and h["model"]["model"]["activation"] == "relu"


def test_health_of_a_bot_of_every_game():
    from fastapi.testclient import TestClient

    from cavallo_env.serve import create_app

    h = TestClient(create_app("heuristic", tables=False)).get("/v1/health").json()
    assert h["obs_version"] == OBS_VERSION and set(h["games"]) == {"cavalloicera", "briscola", "scopa"}
    assert h["games"]["scopa"] == {"obs_version": "scopa-obs/1", "action_version": "scopa-actions/1"}
    h = TestClient(create_app("ismcts:10,c=0.5", tables=False)).get("/v1/health").json()
    assert set(h["games"]) == {"cavalloicera", "briscola", "scopa"}


def test_moves_are_the_bots_moves(server, model, views):
    bot = make(f"policy:{model}")
    for view in views:
        r = server.post("/v1/move", json=view)
        assert r.status_code == 200, r.text
        assert r.json() in view["legal_moves"]
        assert r.json() == bot.choose(view)


def test_legal_moves_may_be_left_out(server, views):
    for view in views[::7]:
        short = {k: v for k, v in view.items() if k != "legal_moves"}
        r = server.post("/v1/move", json=short)
        assert r.status_code == 200, r.text
        assert r.json() in view["legal_moves"]


def test_json_content_type_only(server, views):
    """A view is JSON sent as such: other content types (a browser's "simple" cross-site POSTs) get 415."""
    view = views[20]
    for ctype in ("application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"):
        r = server.post("/v1/move", content=json.dumps(view), headers={"content-type": ctype})
        assert r.status_code == 200 and r.json() in view["legal_moves"], (ctype, r.text)
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                  "application/jsonx", ""):
        r = server.post("/v1/move", content=json.dumps(view), headers={"content-type": ctype})
        assert r.status_code == 415, (ctype, r.text)
        assert "Content-Type: application/json" in r.json()["detail"]


def test_concurrent_requests(server, model, views):
    bot = make(f"policy:{model}")
    batch = views[:60]
    expected = [bot.choose(v) for v in batch]

    def ask(view):
        r = server.post("/v1/move", json=view)
        return r.status_code, r.json()

    with ThreadPoolExecutor(max_workers=50) as pool:
        got = list(pool.map(ask, batch * 2))
    assert [s for s, _ in got] == [200] * len(got)
    assert [m for _, m in got] == expected * 2


def bad_views(view):
    hand, hist = view["hand"], view["history"]
    other = next(m for m in reversed(hist) if m["seat"] != view["seat"])
    return {
        "unknown card": (dict(view, hand=hand[:-1] + ["11-coins"]), "unknown card '11-coins'"),
        "unknown card in history": (dict(view, history=hist[:-1] + [dict(hist[-1], play="X-cups")]), "history move"),
        "duplicated card": (dict(view, hand=hand[:-1] + [hand[0]]), f"card {hand[0]} appears twice"),
        "duplicated on table": (dict(view, table=view["table"] + view["table"][:1]), "appears twice"),
        "hand contradicts history": (dict(view, hand=hand[:-1] + [other["play"]]), "already played"),
        "hand too small": (dict(view, hand=hand[:-1]), "must hold"),
        "no legal moves": (dict(view, legal_moves=[]), "no legal moves"),
        "wrong legal moves": (dict(view, legal_moves=view["legal_moves"][1:]), "legal_moves"),
        "not this seat's turn": (dict(view, seat=(view["seat"] + 1) % 4), "turn"),
        "seat out of range": (dict(view, seat=4), "seat"),
        "seat as a string": (dict(view, seat="0"), "seat"),
        "card as a number": (dict(view, hand=[3] + hand[1:]), "hand.0"),
        "missing hand": ({k: v for k, v in view.items() if k != "hand"}, "hand: Field required"),
        "history not a list": (dict(view, history="all of it"), "history"),
        "hand_sizes contradict": (dict(view, hand_sizes=[12, 12, 12, 12]), "hand_sizes"),
        "pile contradicts": (dict(view, piles=[view["piles"][1], view["piles"][0]]), "pile"),
        "deal over": (dict(view, history=hist * 4), "history"),
    }


def test_malformed_views_get_422_with_a_message(server, views):
    view = next(v for v in views if len(v["history"]) >= 9 and v["piles"][0] != v["piles"][1])
    for name, (body, words) in bad_views(view).items():
        r = server.post("/v1/move", json=body)
        assert r.status_code == 422, (name, r.status_code, r.text)
        detail = r.json()["detail"]
        assert isinstance(detail, str) and detail.startswith("invalid view: "), (name, detail)
        assert words in detail, (name, detail)


@pytest.mark.parametrize("body,ctype,words", [
    (b'{"seat": 0, "hand": [', "application/json", "not valid JSON"),
    (b"", "application/json", "not valid JSON"),
    (b"\xff\xfe garbage", "application/json", "not valid JSON"),
    (b"[1, 2]", "application/json", "must be a JSON object"),
    (b"null", "application/json", "must be a JSON object"),
    (b"[" * 50_000, "application/json", "not valid JSON"),
    (b'{"seat": 0}', "application/json; charset=utf-8", "Field required"),
])
def test_bad_bodies_get_422(server, body, ctype, words):
    r = server.post("/v1/move", content=body, headers={"content-type": ctype})
    assert r.status_code == 422, r.text
    assert words in r.json()["detail"]


def test_fuzzed_views_never_500(server, views):
    """Random corruptions of real views: always 200 (still valid) or 4xx, never 5xx."""
    import random

    rng = random.Random(0)
    junk = [None, True, -1, 2.5, "", "7-coins", [], {}, ["7-coins"], [["A-cups"]], {"seat": 0}, "x" * 100]
    statuses = set()
    for i in range(150):
        view = json.loads(json.dumps(rng.choice(views)))
        for _ in range(rng.randint(1, 3)):
            target = view
            key = rng.choice(list(target))
            if isinstance(target[key], list) and target[key] and rng.random() < 0.5:
                target, key = target[key], rng.randrange(len(target[key]))
                if isinstance(target[key], dict) and rng.random() < 0.5:
                    target, key = target[key], rng.choice(list(target[key]))
            target[key] = rng.choice(junk)
        r = server.post("/v1/move", json=view)
        statuses.add(r.status_code)
        assert r.status_code == 200 or 400 <= r.status_code < 500, (view, r.status_code, r.text)
        if r.status_code == 422:
            assert isinstance(r.json()["detail"], str)
    assert 422 in statuses


def test_openapi_docs(server):
    spec = server.get("/openapi.json").json()
    assert set(spec["paths"]) >= {"/v1/move", "/v1/health"}
    body = spec["paths"]["/v1/move"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/View"}
    view = spec["components"]["schemas"]["View"]
    assert {"seat", "dealer", "hand", "table", "history"} <= set(view["required"])
    assert "HistoryMove" in spec["components"]["schemas"]
    docs = server.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_other_bots_several_workers(views):
    proc, url = start("greedy", workers=2)
    try:
        bot = make("greedy")
        with httpx.Client(base_url=url, timeout=30) as c:
            assert c.get("/v1/health").json()["bot"] == "greedy"
            batch = views[:40]
            with ThreadPoolExecutor(max_workers=20) as pool:
                got = list(pool.map(lambda v: c.post("/v1/move", json=v), batch))
            assert [r.json() for r in got] == [bot.choose(v) for v in batch]
            view = batch[10]
            r = c.post("/v1/move", json=dict(view, hand=view["hand"][:-1] + [view["hand"][0]]))
            assert r.status_code == 422 and "appears twice" in r.json()["detail"]
            r = c.post("/v1/move", json=dict(view, legal_moves=[]))
            assert r.status_code == 422 and "no legal moves" in r.json()["detail"]
            r = c.post("/v1/move", json={k: v for k, v in view.items() if k != "legal_moves"})
            assert r.status_code == 200 and r.json() in view["legal_moves"]
            # the answer keeps the view's spelling of the move (a capture listed in another order)
            for v in batch:
                flipped = dict(v, legal_moves=[dict(m, capture=m["capture"][::-1]) for m in v["legal_moves"]])
                r = c.post("/v1/move", json=flipped)
                assert r.status_code == 200 and r.json() in flipped["legal_moves"]
            # no ~40 ms Nagle/delayed-ACK stall per request with several workers
            t0 = time.perf_counter()
            for v in batch[:20]:
                assert c.post("/v1/move", json=v).status_code == 200
            assert time.perf_counter() - t0 < 0.6
    finally:
        stop(proc)


def test_bad_bot_fails_before_serving(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "cavallo_env.cli", "serve", "--bot", f"policy:{tmp_path / 'no.onnx'}",
                           "--port", str(free_port())], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "cavallo serve: error:" in proc.stderr and "not found" in proc.stderr


# ---------------------------------------------------------------- every game from one process


@pytest.fixture(scope="module")
def any_game_server():
    proc, url = start("heuristic")
    with httpx.Client(base_url=url, timeout=30) as client:
        yield client
    stop(proc)


def _game_views(name, deck, n=12):
    import random

    from cavallo_env import games

    g = games.get(name)
    rng = random.Random(5)
    state = g.new_state(21, deck=deck) if "deck" in g.options and len(g.decks) > 1 else g.new_state(21)
    out = []
    while not state.done and len(out) < n:
        out.append(g.make_view(state, state.current))
        g.play(state, rng.choice(state.legal_moves()))
    return out


@pytest.mark.parametrize("name,deck", [("cavalloicera", None), ("briscola", "milanesi"), ("briscola", "bresciane"),
                                       ("scopa", "milanesi"), ("scopa", "bresciane")])
def test_one_server_serves_every_game(any_game_server, name, deck):
    for view in _game_views(name, deck):
        for body in (view, {k: v for k, v in view.items() if k != "legal_moves"}):
            r = any_game_server.post("/v1/move", json=body)
            assert r.status_code == 200, r.text
            assert r.json() in view["legal_moves"]


@pytest.mark.parametrize("change,words", [
    ({"game": "tresette"}, "unknown game 'tresette'"),
    ({"game": 7}, "unknown game"),
    ({"trump": 5}, "trump"),
    ({"stock_size": 99}, "stock_size"),
    ({"hand": ["A-hearts", "A-hearts"]}, "twice"),
    ({"deck": "piacentine"}, "deck"),
    ({"legal_moves": [{"play": "A-cups"}]}, "legal"),
])
def test_bad_briscola_views_get_422(any_game_server, change, words):
    view = _game_views("briscola", "milanesi", 3)[2]
    r = any_game_server.post("/v1/move", json=view | change)
    assert r.status_code == 422, r.text
    assert words in r.json()["detail"], r.json()["detail"]


def test_a_scopa_view_without_its_fields_gets_422(any_game_server):
    view = _game_views("scopa", "milanesi", 2)[1]
    del view["table"]
    r = any_game_server.post("/v1/move", json=view)
    assert r.status_code == 422 and "table" in r.json()["detail"]
