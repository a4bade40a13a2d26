"""The shipped AIs by level, "strong" (search:<game>) and "fast" (policy:<game>): the names, where each is
offered (only for the games where its spec builds), the table's and the server's default (the strongest
offered), and the page's words for them in every language."""

from __future__ import annotations

import json

import pytest
from store_fixtures import memory_db, token_client  # noqa: F401  (memory_db: every app here on an in-memory database)

from cavallo_env import games, levels
from cavallo_env.bots import BotSpecError, make
from cavallo_env.bots import base as bots_base
from cavallo_env.bots.policy import DEFAULT_MODEL
from cavallo_env.serve import TABLE_AIS, create_app
from cavallo_env.serve.service import default_table_ais
from cavallo_env.serve.settings import LANGUAGES, WEB

needs_models = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"no shipped model {DEFAULT_MODEL}")


def briscola_only_search(arg, seed, game=None):
    """A ``search`` bot kind that builds for Briscola only (as a copy whose search ships one game would):
    the heuristic's moves, so the test knows who played."""
    target = game or (None if arg == "default" else arg)
    if target not in (None, "briscola"):
        raise BotSpecError(f"search:{arg}: no network for {target}")
    return make("heuristic", seed=seed, game=target)


@pytest.fixture
def briscola_search(monkeypatch):
    monkeypatch.setitem(bots_base._REGISTRY, "search", briscola_only_search)


def test_names_and_specs():
    assert list(levels.LEVELS) == ["strong", "fast"]  # strongest first: the menus' order and default
    assert levels.spec("strong", "scopa") == "search:scopa" and levels.spec("fast") == "policy:default"
    for spec, level in (("search:default", "strong"), ("search:briscola", "strong"), ("policy:default", "fast"),
                        ("policy:scopa", "fast"), ("policy:m.onnx", None), ("policy:default@t=0.5", None),
                        ("ismcts:1000", None), ("heuristic", None), ("search:nogame", None)):
        assert levels.level_of(spec) == level, spec
    with pytest.raises(BotSpecError, match="unknown AI level 'medium'; the levels are: strong, fast"):
        levels.spec("medium")
    assert levels.resolve("ismcts:50,c=0.5", "scopa") == "ismcts:50,c=0.5"  # a spec stays as it is


@needs_models
def test_offered_only_where_the_spec_builds(briscola_search):
    assert levels.offered("briscola") == ["strong", "fast"] and levels.offered("scopa") == ["fast"]
    assert levels.offered() == ["fast"]  # every game: the search lacks two
    assert levels.default_spec("briscola") == "search:briscola" and levels.default_spec() == "policy:default"
    assert levels.resolve("strong", "briscola") == "search:briscola"
    with pytest.raises(BotSpecError, match=r"the strong AI \(search:scopa\) is not available for Scopa in this "
                                           r"copy; available: fast"):
        levels.resolve("strong", "scopa")
    assert default_table_ais() == list(TABLE_AIS)  # offered for some game: on the menu


@needs_models
def test_the_table_lists_the_levels_and_defaults_to_the_strongest_per_game(briscola_search):
    app = create_app("ismcts:50", table_seeds=True)  # a bot served that is not on the menu leads it
    with token_client(app) as c:
        listed = c.get("/v1/games").json()
        assert listed["ais"] == ["ismcts:50", "search:default", "policy:default", "heuristic", "greedy"]
        assert listed["levels"] == {"search:default": "strong", "policy:default": "fast"}
        per_game = {(d["deck"], g["game"]): g["ais"] for d in listed["decks"] for g in d["games"]}
        assert per_game[("milanesi", "briscola")] == per_game[("bresciane", "briscola")] == listed["ais"]
        assert per_game[("milanesi", "scopa")] == ["ismcts:50", "policy:default", "heuristic", "greedy"]
    app = create_app("policy:default", table_seeds=True)
    with token_client(app) as c:
        assert c.get("/v1/games").json()["ais"] == ["search:default", "policy:default", "heuristic", "greedy"]
        new = {g: c.post("/v1/tables", json={"game": g, "seed": 1}).json() for g in games.names()}
        assert new["briscola"]["ai"] == "search:default"
        assert new["scopa"]["ai"] == new["cavalloicera"]["ai"] == "policy:default"
        r = c.post("/v1/tables", json={"game": "scopa", "ai": "search:default"})
        assert r.status_code == 422
        assert r.json()["detail"] == ("the AI 'search:default' does not play Scopa here; choose one of: "
                                      "policy:default, heuristic, greedy")
        r = c.post("/v1/tables", json={"game": "scopa", "ai": ["search:default"]})  # not a name: the store says so
        assert r.status_code == 422 and "is not offered here" in r.json()["detail"]
        snap = new["briscola"]  # the strong AI plays it
        for _ in range(4):
            r = c.post(f"/v1/tables/{snap['id']}/ai" if not snap["your_turn"] else f"/v1/tables/{snap['id']}/move",
                       json=None if not snap["your_turn"] else {"play": snap["legal"][0]["play"]})
            assert r.status_code == 200, r.text
            snap = r.json()
        assert snap["moves"] == 4 and snap["last"]["by"] == ("search:default" if snap["last"]["seat"] else "you")


@needs_models
def test_without_the_search_the_fast_level_leads(monkeypatch):
    monkeypatch.setattr(levels, "available", lambda level, game: level == "fast")
    assert default_table_ais() == ["policy:default", "heuristic", "greedy"]
    with token_client(create_app("policy:default")) as c:
        listed = c.get("/v1/games").json()
        assert listed["ais"] == ["policy:default", "heuristic", "greedy"]
        assert listed["levels"] == {"policy:default": "fast"}


def test_a_model_of_one_game_is_offered_for_that_game_only():
    from cavallo_env.bots.policy import shipped_model

    path = shipped_model("briscola")
    if not path.is_file():
        pytest.skip(f"no shipped model {path}")
    with token_client(create_app("greedy", table_ais=["greedy", f"policy:{path}"])) as c:
        per_game = {g["game"]: g["ais"] for d in c.get("/v1/games").json()["decks"] for g in d["games"]}
        assert per_game["briscola"] == ["greedy", f"policy:{path.name}"]
        assert per_game["scopa"] == per_game["cavalloicera"] == ["greedy"]
        r = c.post("/v1/tables", json={"game": "scopa", "ai": f"policy:{path.name}"})
        assert r.status_code == 422 and "does not play Scopa here" in r.json()["detail"]


def test_cavallo_serve_defaults_to_the_strongest_level_for_every_game(monkeypatch):
    from cavallo_env.cli import build_parser
    from cavallo_env.commands.serve import app_options, serve_bot

    monkeypatch.setattr(levels, "available", lambda level, game: True)
    assert serve_bot(None) == "search:default"
    monkeypatch.setattr(levels, "available", lambda level, game: level == "fast" or game == "briscola")
    assert serve_bot(None) == "policy:default"  # the search does not serve every game
    assert serve_bot("fast") == "policy:default" and serve_bot("ismcts:100") == "ismcts:100"
    monkeypatch.setattr(levels, "available", lambda level, game: False)
    assert serve_bot(None) == "policy:default"  # nothing ships: policy:default's own error will say what is missing
    with pytest.raises(BotSpecError, match="not available for every game"):
        serve_bot("strong")
    monkeypatch.setattr(levels, "available", lambda level, game: level == "fast")
    args = build_parser().parse_args(["serve", "--ai", "fast", "--ai", "greedy"])
    assert app_options(args)["table_ais"] == ["policy:default", "greedy"] and args.bot is None


def test_every_language_names_the_levels():
    en = json.loads((WEB / "i18n" / "en.json").read_text(encoding="utf-8"))
    for code in LANGUAGES:
        words = json.loads((WEB / "i18n" / f"{code}.json").read_text(encoding="utf-8"))
        assert set(words["levels"]) == set(levels.LEVELS), code
        assert set(words["ai_about"]) == set(en["ai_about"]) >= set(levels.LEVELS) | {"heuristic", "greedy"}, code
        for level in levels.LEVELS:  # the one-line explanation starts with the level's own name
            assert words["ai_about"][level].startswith(words["levels"][level] + ":"), (code, level)
    assert (en["levels"], en["ai_about"]["fast"]) == ({"strong": "Strong", "fast": "Fast"},
                                                      "Fast: the trained network alone, answering at once.")


def test_cavallo_table_offers_the_levels_and_serves_every_game(monkeypatch):
    """Without --ai: the default menu (the levels this copy ships, then the plain bots), and POST /v1/move
    answered by the strongest level that plays every game."""
    from cavallo_env.cli import build_parser
    from cavallo_env.commands import table

    served = {}
    monkeypatch.setattr(table, "serve", lambda app, sock, args, on_ready=None: served.update(app=app) or sock.close())
    assert table.run(build_parser().parse_args(["table", "--no-browser", "--port", "0", "--db", "sqlite://"])) == 0
    with token_client(served["app"]) as c:
        assert c.get("/v1/games").json()["ais"] == default_table_ais()
        assert c.get("/v1/health").json()["bot"] == (levels.default_spec() or "policy:default")
