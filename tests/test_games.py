"""The game layer: every game through the same generic pieces (bots, search, evaluation, records, CLI)."""

from __future__ import annotations

import importlib
import json
import random
from pathlib import Path

import pytest

from cavallo_env import games
from cavallo_env.bots import BotSpecError, make
from cavallo_env.cli import main
from cavallo_env.evaluation import duplicate_eval, play_game, start_for
from cavallo_env.records import RecordError, replay
from cavallo_env.errors import ViewError

GAMES = games.names()
OPTIONS = {"cavalloicera": [{}], "briscola": [{"deck": "milanesi"}, {"deck": "bresciane"}],
           "scopa": [{"deck": "milanesi", "match": False}, {"deck": "bresciane", "match": True}]}
CASES = [(g, o) for g in GAMES for o in OPTIONS[g]]
IDS = [f"{g}-{'-'.join(str(v) for v in o.values()) or 'default'}" for g, o in CASES]


def test_registry():
    assert GAMES == ["cavalloicera", "briscola", "scopa"]
    with pytest.raises(ValueError, match="unknown game 'tresette'"):
        games.get("tresette")
    formats = {games.get(n).record_format for n in GAMES}
    assert formats == {"cavalloicera-record/1", "briscola-record/1", "scopa-record/1"}
    ids = {games.get(n).env_id for n in GAMES}
    assert ids == {"cavallo/Cavalloicera-v1", "cavallo/Briscola-v1", "cavallo/Scopa-v1"}


def test_view_routing():
    assert games.of_view({"seat": 0}).name == "cavalloicera"  # no "game": a version 1 view
    assert games.of_view({"game": "scopa"}).name == "scopa"
    with pytest.raises(ViewError, match="unknown game 'poker'"):
        games.of_view({"game": "poker"})
    with pytest.raises(ViewError, match="JSON object"):
        games.of_view([1, 2])


def test_record_routing():
    with pytest.raises(RecordError, match="unknown format 'tresette-record/1'"):
        games.of_record({"format": "tresette-record/1"})
    with pytest.raises(RecordError, match="unknown format"):
        replay({"format": "tresette-record/1"})
    with pytest.raises(RecordError, match="the record has no 'format'"):
        replay({"moves": []})
    with pytest.raises(RecordError, match="'format' must be a string.*got int"):
        replay({"format": 123})


def test_check_options():
    g = games.get("briscola")
    assert g.check_options({}) == {"deck": "milanesi"}
    with pytest.raises(ValueError, match="unknown deck 'piacentine'"):
        g.check_options({"deck": "piacentine"})
    with pytest.raises(ValueError, match="unknown option"):
        g.check_options({"match": True})


@pytest.mark.parametrize("game,options", CASES, ids=IDS)
@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", "ismcts:25"])
def test_every_bot_plays_legal_moves_to_the_end(game, options, spec):
    g = games.get(game)
    for fixed in (True, False):  # made for the game, or for any game (picked by the view)
        bots = [make(spec, seed=s, game=game if fixed else None) for s in range(g.num_seats)]
        state = play_game(bots, start_for(7, 0, game, **options), game=g)
        assert state.done
        out = g.outcome(state)
        assert out["winner"] in (0, 1, None)
        rec = g.to_record(state)
        json.dumps(rec)
        again = replay(json.loads(json.dumps(rec)))  # routed by the record's format
        assert g.outcome(again) == out


@pytest.mark.parametrize("game,options", CASES, ids=IDS)
def test_views_are_json_and_rebuild(game, options):
    g = games.get(game)
    rng = random.Random(3)
    state = g.new_state(11, **options)
    checked = 0
    while not state.done and checked < 30:
        view = g.make_view(state, state.current)
        assert json.loads(json.dumps(view)) == view
        assert view.get("game", "cavalloicera") == game
        rebuilt = g.state_from_view(view, random.Random(checked))
        assert sorted(map(repr, rebuilt.legal_moves())) == sorted(map(repr, state.legal_moves()))
        assert g.make_view(rebuilt, state.current) == view
        g.play(state, rng.choice(state.legal_moves()))
        checked += 1


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_of_one_game_refuses_another_games_view(game):
    other = "briscola" if game != "briscola" else "scopa"
    g = games.get(other)
    state = g.new_state(1)
    view = g.make_view(state, state.current)
    with pytest.raises(ViewError, match=f"this bot plays {game}"):
        make("heuristic", seed=0, game=game).choose(view)


def test_make_with_unknown_game():
    with pytest.raises(BotSpecError, match="unknown game"):
        make("random", game="poker")


@pytest.mark.parametrize("game", ["briscola", "scopa"])
def test_duplicate_eval_is_fair_and_deterministic(game):
    a = duplicate_eval("greedy", "greedy", 6, seed=3, jobs=1, game=game)
    assert a.games == 12 and a.mean_diff == 0 and a.wins == a.losses  # same bot on both sides: exact symmetry
    b = duplicate_eval("heuristic", "random", 6, seed=3, jobs=2, game=game)
    c = duplicate_eval("heuristic", "random", 6, seed=3, jobs=1, game=game)
    assert b.to_dict() | {"timing": None} == c.to_dict() | {"timing": None}
    assert b.score > 0.5


@pytest.mark.parametrize("game,extra", [("briscola", ["--deck", "bresciane"]), ("scopa", ["--single-deal"])])
def test_cli_eval_simulate_replay_tournament(tmp_path, capsys, game, extra):
    assert main(["eval", "heuristic", "random", "--game", game, *extra, "--deals", "3", "--jobs", "1",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert games.get(game).title in out and "A score" in out
    path = tmp_path / "g.jsonl"
    assert main(["simulate", "--game", game, *extra, "--deals", "3", "--bots", "greedy,random",
                 "--out", str(path), "--quiet"]) == 0
    assert main(["replay", str(path)]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["tournament", "--game", game, *extra, "--bots", "random,greedy", "--deals", "2",
                 "--jobs", "1", "--out", str(tmp_path / "t"), "--no-progress"]) == 0
    summary = json.loads((tmp_path / "t" / "tournament.json").read_text())
    assert summary["game"] == game


def test_cli_rejects_a_deck_or_flag_the_game_lacks(capsys):
    assert main(["eval", "random", "random", "--deck", "milanesi", "--deals", "1"]) == 2
    assert "unknown deck 'milanesi'" in capsys.readouterr().err
    assert main(["eval", "random", "random", "--game", "briscola", "--match", "--deals", "1"]) == 2
    assert "--match/--single-deal are for Scopa" in capsys.readouterr().err


def test_the_package_exposes_cavalloiceras_env_lazily():
    import cavallo_env
    import cavallo_env.cavalloicera as cav

    assert cavallo_env.raw_env is cav.aec.raw_env
    assert cavallo_env.env is cav.aec.env


@pytest.mark.parametrize("game", ["briscola", "scopa"])
def test_a_malformed_deal_leaves_the_env_untouched(game):
    g = games.get(game)
    a, b = g.raw_env(), g.raw_env()
    a.reset(seed=5)
    b.reset(seed=5)
    with pytest.raises(ValueError, match="deal"):
        a.reset(seed=9, options={"deal": {"hands": "nonsense"}})
    a.reset()
    b.reset()
    assert a.record() == b.record()  # the generator went on as if the bad reset had not happened


def test_the_package_never_imports_the_trainer():
    import subprocess
    import sys

    code = ("import sys, importlib, pkgutil, cavallo_env\n"
            "skip = {'cavallo_env.cli'}\n"  # the command line imports training on demand, not at import
            "for m in pkgutil.walk_packages(cavallo_env.__path__, 'cavallo_env.'):\n"
            "    if not m.name.startswith('cavallo_env.commands'):\n"
            "        importlib.import_module(m.name)\n"
            "import cavallo_env.cli\n"
            "print([m for m in sys.modules if m == 'training' or m.startswith('training.')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


#: the files of every game's folder, one role each (docs/games.md, "A game's folder")
GAME_FILES = {"__init__.py", "cards.py", "engine.py", "views.py", "records.py", "encoding.py", "aec.py",
              "bots.py", "endgame.py", "search.py", "prior.py", "learning.py"}
#: the files a game has only when it needs them: ``actions.py`` where a move takes several actions
OPTIONAL_FILES = {"actions.py"}
#: the classes every game names after itself (``<Game>State`` ...), by module
GAME_CLASSES = {"engine": "{}State", "aec": "{}Env", "search": "{}Search", "learning": "{}Learning"}


@pytest.mark.parametrize("name", games.names())
def test_every_game_folder_has_the_same_shape(name):
    package = importlib.import_module(f"cavallo_env.{name}")
    files = {p.name for p in Path(package.__file__).parent.glob("*.py")}
    assert GAME_FILES <= files, f"{name} lacks {sorted(GAME_FILES - files)}"
    assert files - GAME_FILES <= OPTIONAL_FILES, f"{name} has files of no documented role: {sorted(files - GAME_FILES - OPTIONAL_FILES)}"
    game = games.get(name)
    title = type(game).__name__
    for module, pattern in GAME_CLASSES.items():
        assert hasattr(importlib.import_module(f"cavallo_env.{name}.{module}"), pattern.format(title)), (module, pattern)
    bots = importlib.import_module(f"cavallo_env.{name}.bots")
    assert hasattr(bots, "GreedyBot") and hasattr(bots, "HeuristicBot")
    if "actions.py" in files:
        assert hasattr(importlib.import_module(f"cavallo_env.{name}.actions"), f"{title}Actions")
    assert package.GAME is game and package.ENV_ID == game.env_id
