"""The service against a hostile client, in process (TestClient): never a 500 for any request, one client
cannot fill the table store, other sites' pages cannot drive a table, and only JSON is read.

The socket-level checks (slow clients, too many open files) are in test_serve_hardening_net.py.
"""

from __future__ import annotations

import json
import math
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cavallo_env import games
from cavallo_env.serve import Clients, create_app
from cavallo_env.tables import TableError, TableStore
from store_fixtures import memory_db, token_client  # noqa: F401  (memory_db: every app here on an in-memory database)

# ---------------------------------------------------------------------------- never a 500

#: any text, lone surrogates included (a JSON string may carry them as \ud800 escapes), and some of nothing else
TEXT = st.text(st.characters(codec=None), max_size=12) | st.text(st.characters(categories=["Cs"]), min_size=1,
                                                                 max_size=3)
ATOMS = (st.none() | st.booleans()
         | st.integers(min_value=-2 ** 256, max_value=2 ** 256)
         | st.floats(allow_nan=True, allow_infinity=True)
         | TEXT | st.sampled_from(["briscola", "scopa", "cavalloicera", "milanesi", "bresciane", "greedy",
                                   "7-coins", "A-hearts", "\ud800", "\udfff"]))
JSON_VALUES = st.recursive(ATOMS, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(TEXT | st.sampled_from(["game", "play", "seed", "expect"]), inner,
                                             max_size=4), max_leaves=12)
#: bodies that are not JSON a parser takes: bytes (not UTF-8 too), numbers past the parser's limits, deep nesting
RAW = (st.binary(max_size=40)
       | st.sampled_from([b"1" * 5000, b'{"seed": ' + b"9" * 5000 + b"}", b'{"expect": ' + b"9" * 5000 + b"}",
                          b"[" * 100_000, b'{"a":' * 50_000, b"NaN", b"-Infinity", b'{"expect": NaN}',
                          b'{"seed": Infinity}', b'{"game": "\xed\xa0\x80"}', b'"\\ud800"', b"\xff\xfe{}",
                          b'{"game": "briscola", "seed": 1e400}']))
CONTENT_TYPES = st.sampled_from(["application/json"] * 6 + ["application/json; charset=utf-8", "text/plain",
                                                              "application/x-www-form-urlencoded", None, "\x7f"])
#: a path parameter: any text, percent-encoded (a lone surrogate as the invalid UTF-8 it would be)
ODD_ID = TEXT.map(lambda s: quote(s.encode("utf-8", "surrogatepass"), safe="")).filter(bool)
ROUTES = [("GET", "/v1/health"), ("POST", "/v1/move"), ("GET", "/v1/games"), ("POST", "/v1/tables"),
          ("GET", "/v1/tables"), ("GET", "/v1/tables/{id}"), ("DELETE", "/v1/tables/{id}"),
          ("POST", "/v1/tables/{id}/move"), ("POST", "/v1/tables/{id}/ai"), ("GET", "/v1/tables/{id}/hint"),
          ("GET", "/v1/tables/{id}/record")]
PATHS = sorted({p for _, p in ROUTES})
GAMES = [("briscola", "milanesi"), ("scopa", "milanesi"), ("cavalloicera", "bresciane")]


@pytest.fixture(scope="module")
def hostile():
    """A server with cheap bots that takes seeds (the seed path is checked too), and one client."""
    app = create_app("greedy", table_ais=["greedy", "random"], table_seeds=True, max_tables=30,
                     tables_per_client=30, move_timeout=5)
    with token_client(app) as c:
        yield c


def _view(name: str, deck: str, seed: int) -> dict:
    g = games.get(name)
    state = g.new_state(seed, deck=deck) if len(g.decks) > 1 else g.new_state(seed)
    return g.make_view(state, state.current)


def _replace_one(template: dict, key, value) -> dict:
    out = dict(template)
    out[key] = value
    return out


@st.composite
def requests(draw):
    """(method, path template, body bytes or None, content type, table game) of one hostile request."""
    if draw(st.integers(0, 9)) == 0:  # any method on any path
        method, path = draw(st.sampled_from(["GET", "POST", "DELETE", "PUT"])), draw(st.sampled_from(PATHS))
    else:
        method, path = draw(st.sampled_from(ROUTES))
    game = draw(st.sampled_from(GAMES))
    kind = draw(st.sampled_from(["json", "json", "template", "template", "raw", "none"]))
    if kind == "json":
        body = json.dumps(draw(JSON_VALUES)).encode()  # NaN and Infinity come out as JSON's non-standard tokens
    elif kind == "raw":
        body = draw(RAW)
    elif kind == "none":
        body = None
    else:  # a good body with one field made bad: reaches the checks past the parser
        if path == "/v1/move":
            template = _view(*game, draw(st.integers(0, 50)))
        elif path == "/v1/tables/{id}/move":
            template = {"play": "TABLE_CARD", "capture": [], "expect": 0}
        else:
            template = {"game": game[0], "deck": game[1], "ai": "greedy", "seed": 7}
        key = draw(st.sampled_from(sorted(template) + ["extra", "\ud800"]))
        body = json.dumps(_replace_one(template, key, draw(JSON_VALUES))).encode()
    if "{id}" in path and draw(st.integers(0, 3)) == 0:
        path = path.replace("{id}", draw(ODD_ID))
    return method, path, body, draw(CONTENT_TYPES), game


def _check(r):
    assert r.status_code < 500, (r.status_code, r.text)
    if r.status_code >= 400 and r.headers.get("content-type", "").startswith("application/json"):
        detail = r.json()["detail"]
        assert isinstance(detail, str) and detail
        detail.encode("utf-8")  # sendable text: no lone surrogate


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(req=requests())
def test_no_request_gets_a_500(hostile, req):
    """Every endpoint, any method, any body (unicode with lone surrogates, huge and non-finite numbers,
    nesting, bytes that are not UTF-8), any content type, odd path parameters: a 2xx or a 4xx with a reason."""
    method, path, body, ctype, (name, deck) = req
    store = hostile.app.state.tables
    table, token = store.create(name, deck, seed=3)
    try:
        legal = table.snapshot()["legal"]
        if body is not None and legal:  # a template move names a card seat 0 may play
            body = body.replace(b'"TABLE_CARD"', json.dumps(legal[0]["play"]).encode())
        headers = {"authorization": f"Bearer {token}"} if ctype is None else \
            {"content-type": ctype, "authorization": f"Bearer {token}"}
        r = hostile.request(method, path.replace("{id}", table.id), content=body, headers=headers)
        _check(r)
    finally:
        store._tables.pop(table.id, None)


TEMPLATES = {
    "/v1/tables": {"game": "scopa", "deck": "milanesi", "ai": "greedy", "seed": 7},
    "/v1/tables/{id}/move": {"play": "TABLE_CARD", "capture": [], "expect": 0},
    "/v1/move": None,  # a real view
}
#: values to put in a field: the atoms, and small lists and objects of them
HOSTILE = ATOMS | st.lists(ATOMS, min_size=1, max_size=3) | st.dictionaries(TEXT, ATOMS, min_size=1, max_size=2)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(sorted(TEMPLATES)), seed=st.integers(0, 40), data=st.data())
def test_no_field_value_gets_a_500(hostile, path, seed, data):
    """A good body of each POST endpoint with one field, or one item of a list field, made hostile:
    the checks past the parser see every kind of value, and what they echo is sent escaped."""
    store = hostile.app.state.tables
    table, token = store.create("scopa", "milanesi", seed=seed)
    try:
        template = TEMPLATES[path]
        if template is None:
            template = _view("scopa", "milanesi", seed)
        template = json.loads(json.dumps(template).replace('"TABLE_CARD"', json.dumps(
            (table.snapshot()["legal"] or [{"play": "A-coins"}])[0]["play"])))
        key = data.draw(st.sampled_from(sorted(template) + ["\ud800"]), label="field")
        value = data.draw(HOSTILE, label="value")
        if isinstance(template.get(key), list) and template[key] and data.draw(st.booleans(), label="an item"):
            template[key][data.draw(st.integers(0, len(template[key]) - 1))] = value
        else:
            template[key] = value
        r = hostile.post(path.replace("{id}", table.id), content=json.dumps(template),
                         headers={"content-type": "application/json", "authorization": f"Bearer {token}"})
        _check(r)
    finally:
        store._tables.pop(table.id, None)


@pytest.mark.parametrize("body,words", [
    ({"play": "\ud800", "expect": "\ud800"}, "'expect' must be the move count"),
    ({"play": "\ud800"}, "unknown card"),
    ({"play": "A-coins", "expect": float("nan")}, "got nan"),
    ({"play": ["\udfff"] * 3}, "invalid move"),
])
def test_a_lone_surrogate_is_echoed_escaped(hostile, body, words):
    """The issue's 500s: a lone surrogate (or NaN) in a move is a 422 whose detail shows it escaped."""
    snap = hostile.post("/v1/tables", json={"game": "scopa", "deck": "milanesi", "seed": 2}).json()
    while not snap["your_turn"]:
        snap = hostile.post(f"/v1/tables/{snap['id']}/ai").json()
    r = hostile.post(f"/v1/tables/{snap['id']}/move", content=json.dumps(body),
                     headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert words in r.json()["detail"]
    if "\ud800" in json.dumps(body, ensure_ascii=False):
        assert "\\ud800" in r.json()["detail"], r.json()["detail"]


@pytest.mark.parametrize("seed", ["\ud800", ["\ud800"], {"\udfff": 1}, float("inf"), 2 ** 70])
def test_a_bad_seed_is_a_422_that_shows_it(hostile, seed):
    r = hostile.post("/v1/tables", content=json.dumps({"game": "briscola", "seed": seed}),
                     headers={"content-type": "application/json"})
    assert r.status_code == 422 and "seed must be an int" in r.json()["detail"], r.text
    r.json()["detail"].encode("utf-8")


def test_a_bad_game_in_a_view_is_a_422(hostile):
    for game in ("\ud800", ["\ud800"], 1e308, math.inf):
        r = hostile.post("/v1/move", content=json.dumps({"game": game}), headers={"content-type": "application/json"})
        assert r.status_code == 422 and "unknown game" in r.json()["detail"], r.text


# ---------------------------------------------------------------------------- one client cannot fill the store


def _app(**options):
    return create_app("greedy", table_ais=["greedy"], **options)


def test_one_client_cannot_fill_the_store():
    """The issue's 200 POSTs from one client: past its quota they get 429, and every other client still plays."""
    app = _app(max_tables=200, tables_per_client=8)
    with token_client(app, client=("203.0.113.5", 4000)) as hog, \
            token_client(app, client=("198.51.100.7", 4000)) as other:
        statuses = [hog.post("/v1/tables", json={"game": "briscola"}).status_code for _ in range(200)]
        assert statuses == [201] * 8 + [429] * 192
        r = hog.post("/v1/tables", json={"game": "briscola"})
        assert r.json()["code"] == "full" and "8 open tables" in r.json()["detail"]
        assert len(app.state.tables) == 8
        assert other.post("/v1/tables", json={"game": "scopa"}).status_code == 201
        # leaving a table frees its place
        mine = [t.id for t in app.state.tables._tables.values() if t.client == "203.0.113.5"]
        assert hog.delete(f"/v1/tables/{mine[0]}").status_code == 204
        assert hog.post("/v1/tables", json={"game": "briscola"}).status_code == 201


def test_a_client_at_its_quota_gives_up_its_own_idle_table():
    store = TableStore(["greedy"], max_tables=10, per_client=2)
    a, _ = store.create("briscola", client="a")
    b, _ = store.create("briscola", client="a")
    with pytest.raises(TableError) as e:
        store.create("briscola", client="a")
    assert e.value.status == 429
    a.touched -= TableStore.GRACE + 1
    b.touched -= TableStore.GRACE + 5  # idle longer, but a is finished: a goes first
    a.state.done = True
    c, _ = store.create("scopa", client="a")
    assert {t.id for t in store._tables.values()} == {b.id, c.id}
    assert store.open_tables("a") == 2 and store.open_tables("b") == 0
    d, _ = store.create("scopa", client="b")  # another client is not touched by a's quota
    assert store.open_tables("b") == 1 and d.client == "b"


def test_a_full_store_drops_the_longest_idle_unfinished_table():
    store = TableStore(["greedy"], max_tables=3, per_client=3)
    old, older, fresh = (store.create("briscola", client=k)[0] for k in ("x", "y", "z"))
    with pytest.raises(TableError) as e:
        store.create("briscola", client="w")
    assert e.value.status == 503  # nothing idle past the grace: a player thinking is not dropped
    old.touched -= TableStore.GRACE + 1
    older.touched -= TableStore.GRACE + 30
    older.thinking = True  # its AI is thinking: never dropped
    new, _ = store.create("scopa", client="w")
    assert set(store._tables) == {older.id, fresh.id, new.id}
    older.thinking = False
    done = store.create  # the finished table goes before an unfinished one idle longer
    fresh.state.done = True
    fresh.touched -= TableStore.GRACE + 1
    done("briscola", client="v")
    assert fresh.id not in store._tables and older.id in store._tables
    with pytest.raises(ValueError, match="per_client"):
        TableStore(["greedy"], per_client=0)


def test_client_keys_and_trusted_proxies():
    plain = Clients()
    scope = {"client": ("10.0.0.9", 1), "headers": [(b"x-forwarded-for", b"1.2.3.4")]}
    assert plain.key(scope) == "10.0.0.9"  # a header from an untrusted peer is not believed
    v6 = [{"client": (f"2001:db8:1:2::{n}", 1), "headers": []} for n in (1, 2)]
    assert plain.key(v6[0]) == plain.key(v6[1]) == "2001:db8:1:2::/64"
    assert plain.key({"client": ("::ffff:192.0.2.1", 1), "headers": []}) == "192.0.2.1"
    assert plain.key({"client": None, "headers": []}) == "-"
    proxy = Clients(["10.0.0.0/8"])
    spoofed = {"client": ("10.0.0.9", 1), "headers": [(b"x-forwarded-for", b"6.6.6.6, 198.51.100.2, 10.1.1.1")]}
    assert proxy.key(spoofed) == "198.51.100.2"  # the rightmost address that is not a proxy of ours
    assert proxy.key({"client": ("192.0.2.50", 1), "headers": spoofed["headers"]}) == "192.0.2.50"
    assert proxy.scheme({"client": ("10.0.0.9", 1), "scheme": "http",
                         "headers": [(b"x-forwarded-proto", b"https")]}) == "https"
    assert plain.scheme({"client": ("10.0.0.9", 1), "scheme": "http",
                         "headers": [(b"x-forwarded-proto", b"https")]}) == "http"
    with pytest.raises(ValueError, match="not an IP address"):
        Clients(["proxy.example"])


def test_the_quota_reads_the_proxys_header_only_when_told():
    """Behind a trusted proxy each forwarded client has its own quota; untrusted, the header changes nothing."""
    for trust, expected in (("127.0.0.1", [201, 201, 201, 201]), ("", [201, 201, 429, 429])):
        app = _app(tables_per_client=2, trust_proxy=trust)
        with token_client(app, client=("127.0.0.1", 5000)) as c:
            got = [c.post("/v1/tables", json={"game": "briscola"},
                          headers={"x-forwarded-for": f"198.51.100.{i % 2}"}).status_code for i in range(4)]
        assert got == expected, trust


# ---------------------------------------------------------------------------- other sites, other content types


def test_other_sites_pages_cannot_drive_a_table():
    app = _app()
    with token_client(app) as c:  # it is at http://testserver
        for origin in ("http://evil.example", "null", "https://testserver", "http://testserver:8080",
                       "http://testserver.evil.example", b"http://testserver\xed\xa0\x80", b"\xff"):
            r = c.post("/v1/tables", json={"game": "briscola"}, headers={"origin": origin})
            assert r.status_code == 403 and "another site" in r.json()["detail"], (origin, r.text)
        assert len(app.state.tables) == 0
        r = c.post("/v1/tables", json={"game": "briscola"}, headers={"origin": "http://TestServer:80"})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        evil = {"origin": "http://evil.example"}
        assert c.post(f"/v1/tables/{tid}/ai", headers=evil).status_code == 403
        assert c.post(f"/v1/tables/{tid}/move", json={"play": "x"}, headers=evil).status_code == 403
        assert c.delete(f"/v1/tables/{tid}", headers=evil).status_code == 403
        assert c.get(f"/v1/tables/{tid}", headers=evil).status_code == 200  # reading changes nothing
        assert c.get("/v1/health", headers=evil).status_code == 200
        assert c.delete(f"/v1/tables/{tid}", headers={"origin": "http://testserver"}).status_code == 204
    app = _app(trust_proxy="*")  # TLS ends at the proxy: its X-Forwarded-Proto says the page's scheme
    with token_client(app) as c:
        r = c.post("/v1/tables", json={"game": "briscola"},
                   headers={"origin": "https://testserver", "x-forwarded-proto": "https"})
        assert r.status_code == 201, r.text


def test_only_json_bodies_are_read():
    """A text/plain or form POST (what a page may send to any site unasked) gets 415 and creates nothing."""
    app = _app()
    with token_client(app) as c:
        body = json.dumps({"game": "briscola"})
        for ctype in ("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                      "multipart/form-data; boundary=b"):
            r = c.post("/v1/tables", content=body, headers={"content-type": ctype})
            assert r.status_code == 415 and "application/json" in r.json()["detail"], (ctype, r.text)
        r = c.post("/v1/tables", content=body)  # a body with no Content-Type
        assert r.status_code == 415 and "no Content-Type" in r.json()["detail"]
        assert len(app.state.tables) == 0
        r = c.post("/v1/tables", content=body, headers={"content-type": "application/json; charset=utf-8"})
        assert r.status_code == 201, r.text
        r = c.post(f"/v1/tables/{r.json()['id']}/ai")  # no body, no Content-Type: as the page asks the AI
        assert r.status_code in (200, 409), r.text


def test_the_options_are_checked():
    with pytest.raises(ValueError, match="read_timeout"):
        _app(read_timeout=0)
    with pytest.raises(ValueError, match="per_client"):
        _app(tables_per_client=0)
    with pytest.raises(ValueError, match="trust_proxy"):
        _app(trust_proxy="not-an-address")


_HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)  # what httpx sends


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(origin=st.one_of(_HEADER_TEXT, st.sampled_from(["http://[", "http://[::1", "https://x:99999", "http://:80",
                                                        "null", "http://testserver:x"])),
       host=st.one_of(st.none(), _HEADER_TEXT), method=st.sampled_from(["POST", "DELETE"]))
def test_no_origin_or_host_header_gets_a_500(hostile, origin, host, method):
    """Malformed Origin and Host headers on the state-changing table routes: a 4xx, never a 500."""
    headers = {"Origin": origin, "Content-Type": "application/json"}
    if host is not None:
        headers["Host"] = host
    path = "/v1/tables" if method == "POST" else "/v1/tables/nosuchtable"
    r = hostile.request(method, path, headers=headers, content=b"{}")
    _check(r)
