"""Bad command lines get one clear line naming the problem, before any work is done."""

from __future__ import annotations

import pytest

from cavallo_env.bots import BotSpecError, make, split_specs
from cavallo_env.cli import main


def error_of(capsys, *argv) -> str:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert code == 2, (captured.out, captured.err)
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    return captured.err


def test_split_specs_keeps_a_spec_s_options_together():
    assert split_specs("greedy") == ["greedy"]
    assert split_specs("ismcts:10,rollout=random,c=0.5, greedy") == ["ismcts:10,rollout=random,c=0.5", "greedy"]
    assert split_specs("random,ismcts:10,c=0.5") == ["random", "ismcts:10,c=0.5"]
    with pytest.raises(BotSpecError, match="empty bot spec"):
        split_specs("greedy,,random")


def test_simulate_takes_specs_with_options(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["simulate", "--deals", "1", "--bots", "ismcts:5,rollout=random,greedy", "--out", str(out),
                 "--quiet", "--json"]) == 0
    assert '"ismcts:5,rollout=random"' in capsys.readouterr().out and out.is_file()


def test_output_paths_are_checked_first(tmp_path, capsys):
    a_file = tmp_path / "f.jsonl"
    a_file.write_text("")
    err = error_of(capsys, "simulate", "--deals", 1, "--out", a_file / "x.jsonl")
    assert f"{a_file} is a file, not a folder" in err and ".tmp-" not in err
    err = error_of(capsys, "simulate", "--deals", 1, "--out", tmp_path / "x.json")
    assert "name it .jsonl" in err and not (tmp_path / "x.json").exists()
    err = error_of(capsys, "tournament", "--bots", "random,greedy", "--deals", 1, "--out", a_file, "--no-progress")
    assert f"{a_file} is a file: give a folder" in err
    err = error_of(capsys, "play", "--seed", 1, "--record", a_file / "x.json")
    assert "--record: cannot write" in err and "is a file, not a folder" in err
    err = error_of(capsys, "eval", "random", "greedy", "--deals", 1, "--json", tmp_path, "--no-progress")
    assert f"{tmp_path} is a directory" in err
    assert a_file.read_text() == ""  # nothing was written over


def test_two_player_games_have_one_opponent_and_no_partner(capsys):
    err = error_of(capsys, "play", "--game", "briscola", "--partner", "random", "--no-record")
    assert "--partner" in err and "no partner" in err
    err = error_of(capsys, "play", "--game", "scopa", "--opponents", "random,greedy", "--no-record")
    assert "--opponents" in err and "one opponent" in err


def test_match_and_single_deal_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "greedy", "random", "--game", "scopa", "--match", "--single-deal"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("cavallo ")


def test_serve_refuses_a_search_that_cannot_play_every_game():
    from cavallo_env.serve import create_app

    bot = make("ismcts:10,rollout=random")  # Cavalloìcera's rollout: Briscola has no such rollout
    assert set(bot.refused) == {"briscola"}
    with pytest.raises(BotSpecError, match="cannot serve every game.*Briscola"):
        create_app("ismcts:10,rollout=random")
