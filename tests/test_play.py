"""cavallo play: a person's deal in the terminal, driven through its input."""

from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys

import pytest
from policy_fixtures import make_model

from cavallo_env.bots.policy import DEFAULT_MODEL
from cavallo_env.cavalloicera.cards import card_id
from cavallo_env.cli import main
from cavallo_env.commands.play import move_text
from cavallo_env.cavalloicera.engine import CavalloiceraState
from cavallo_env.records import replay


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return make_model(tmp_path_factory.mktemp("play"))


def ids(*names):
    return tuple(card_id(n) for n in names)


def test_move_text_names_the_bonuses():
    c = card_id
    assert move_text(c("7-coins"), ids("3-coins", "4-cups"), ids("3-coins", "4-cups", "R-clubs"), None) == \
        "7-coins takes 3-coins + 4-cups"
    assert move_text(c("7-coins"), ids("3-coins", "4-coins"), ids("3-coins", "4-coins", "R-clubs"), None) == \
        "7-coins takes 3-coins + 4-coins  [Simili]"
    assert move_text(c("7-cups"), ids("2-cups", "5-cups"), ids("2-cups", "5-cups"), None) == \
        "7-cups takes 2-cups + 5-cups  [Scùa, Simili]"
    assert move_text(c("R-coins"), ids("R-clubs"), ids("R-clubs", "A-cups"), c("R-clubs")) == \
        "R-coins takes R-clubs  [Picada]"
    assert move_text(c("9-clubs"), ids("A-coins", "3-cups", "5-swords"), ids("A-coins", "3-cups", "5-swords"), None) == \
        "9-clubs takes A-coins + 3-cups + 5-swords  [Scùa, Quadriglia]"
    assert move_text(c("F-cups"), (), ids("A-coins"), None) == "place F-cups"


def run_play(args, stdin: str):
    return subprocess.run([sys.executable, "-m", "cavallo_env.cli", "play", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_full_deal_through_stdin(model, tmp_path):
    rec = tmp_path / "deal.json"
    proc = run_play(["--partner", f"policy:{model}", "--opponents", "greedy", "--seed", "5", "--record", str(rec)],
                    "1\n" * 12)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for words in ("Your hand:", "Table:", "Our pile:", "Their pile:", "Score so far", "Your moves:",
                  "=== end of the deal ===", "Most cards", "Napula", "La Mata", "total", "Record saved"):
        assert words in out, words
    assert out.count("--- turn") == 12  # each of your 12 turns
    assert len(re.findall(r"^  partner \(seat 2\): ", out, re.M)) == 12
    assert len(re.findall(r"^  opponent \(seat [13]\): ", out, re.M)) == 24
    record = json.loads(rec.read_text())
    state = replay(record)  # the saved record is complete and consistent
    assert state.done and record["result"]["team_points"] == state.result()["team_points"]
    # the printed totals are the record's
    tp = record["result"]["team_points"]
    assert re.search(rf"^  total\s+{tp[0]}\s+{tp[1]}$", out, re.M)
    # typing "1" always played the first legal move listed
    g = CavalloiceraState(*[[[card_id(n) for n in h] for h in record["hands"]], [card_id(n) for n in record["table"]],
                    record["dealer"]])
    for mv in record["moves"]:
        move = (card_id(mv["play"]), tuple(card_id(n) for n in mv["capture"]))
        if mv["seat"] == 0:
            assert move == g.legal_moves()[0]
        g.play(*move)
    # every move shown, yours and the AIs', is the record's, with its bonuses
    shown = re.findall(r"^  (?:you|partner \(seat 2\)|opponent \(seat [13]\)): (.*)$", out, re.M)
    assert len(shown) == 48
    g = CavalloiceraState(*[[[card_id(n) for n in h] for h in record["hands"]], [card_id(n) for n in record["table"]],
                    record["dealer"]])
    for text, mv in zip(shown, record["moves"]):
        move = (card_id(mv["play"]), tuple(card_id(n) for n in mv["capture"]))
        assert text == move_text(*move, g.table, g.prev_placed)
        g.play(*move)
    # the same seed plays the same deal the same way
    again = run_play(["--partner", f"policy:{model}", "--opponents", "greedy", "--seed", "5", "--no-record"], "1\n" * 12)
    assert again.stdout.split("=== end")[0] == out.split("=== end")[0]


def test_in_process_with_bad_input_and_quit(model, tmp_path, monkeypatch, capsys):
    answers = iter(["", "0", "99", "seven", "2", "q"])
    prompts = []

    def fake_input(prompt=""):
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr(builtins, "input", fake_input)
    rec = tmp_path / "quit.json"
    code = main(["play", "--partner", "greedy", "--opponents", f"policy:{model},random", "--seed", "11",
                 "--record", str(rec)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("is not a move: type a number from 1 to") == 4
    assert all(re.fullmatch(r"Choose 1-\d+ \(\? for the rules, q to quit\): ", p) for p in prompts)
    assert "You left the deal." in out and "(deal in progress)" in out
    record = json.loads(rec.read_text())
    assert "result" not in record
    seat0 = [m for m in record["moves"] if m["seat"] == 0]
    assert len(seat0) == 1  # "2" was played, then q
    replay(record)  # a deal in progress replays too


def test_rules_through_stdin():
    from cavallo_env.commands.play import RULES_TEXT

    proc = run_play(["--partner", "greedy", "--opponents", "greedy", "--seed", "2", "--no-record"],
                    "rules\n?\n1\n HELP \n")
    assert proc.returncode == 1  # end of input after the second turn's "help"
    out = proc.stdout
    assert "Type rules (or ? or help)" in out
    assert out.count(RULES_TEXT) == 3 and "is not a move" not in out
    assert out.count("--- turn") == 2  # rules and ? re-prompt the same turn; 1 plays it
    assert out.count("Choose 1-") == 5  # rules, ?, 1, help, then the end of input
    for term in ("Scùa", "Picada", "Simili", "Quadriglia", "Most cards", "Most swords", "La Mata", "2-swords",
                 "10-coins", "F-cups", "Napula", "F = Fante", "C = Cavallo", "R = Re"):
        assert term in RULES_TEXT, term
    # the record of the turn played: the first legal move, after the rules were shown twice
    first = out.split("--- turn")[1]
    assert first.index("Capture bonuses") < first.index("  you: ")


def test_record_path_that_is_a_directory(tmp_path, capsys):
    code = main(["play", "--partner", "greedy", "--opponents", "greedy", "--seed", "1", "--record", str(tmp_path)])
    err = capsys.readouterr()
    assert code == 2
    assert f"--record: {tmp_path} is a directory" in err.err and ".tmp-" not in err.err
    assert "--- turn" not in err.out  # refused before the deal, not after it


def test_end_of_input_quits(model, tmp_path):
    proc = run_play(["--partner", "greedy", "--opponents", "greedy", "--seed", "2", "--no-record"], "1\n1\n")
    assert proc.returncode == 1
    assert proc.stdout.count("--- turn") == 3 and "You left the deal." in proc.stdout


def test_bad_specs(tmp_path, capsys):
    assert main(["play", "--partner", "nosuchbot", "--opponents", "greedy", "--no-record"]) == 2
    assert "unknown bot 'nosuchbot'" in capsys.readouterr().err
    assert main(["play", "--partner", "greedy", "--opponents", "a,b,c", "--no-record"]) == 2
    assert "--opponents" in capsys.readouterr().err
    from cavallo_env.commands.play import opponent_specs

    assert opponent_specs("greedy") == ["greedy", "greedy"]
    assert opponent_specs("greedy, heuristic") == ["greedy", "heuristic"]
    assert opponent_specs("ismcts:50,rollout=random") == ["ismcts:50,rollout=random"] * 2
    assert opponent_specs("random,ismcts:50,rollout=random") == ["random", "ismcts:50,rollout=random"]


@pytest.mark.skipif(DEFAULT_MODEL.is_file(), reason="the shipped model is present")
def test_default_ai_missing_is_a_clear_error(capsys):
    assert main(["play", "--no-record"]) == 2
    assert "shipped model" in capsys.readouterr().err


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"the shipped model {DEFAULT_MODEL} is not in this checkout")
def test_default_ai(tmp_path):
    proc = run_play(["--seed", "1", "--no-record"], "1\n" * 12)
    assert proc.returncode == 0, proc.stderr
    assert "policy:default" in proc.stdout and "=== end of the deal ===" in proc.stdout


@pytest.mark.parametrize("game,args,turns,words", [
    ("briscola", ["--deck", "bresciane"], 20, ("Trump:", "Your hand:", "Points:", "play ")),
    ("scopa", ["--single-deal"], 18, ("Table:", "Your hand:", "This deal:", "=== deal 1:", "one deal")),
])
def test_two_player_games_through_stdin(tmp_path, game, args, turns, words):
    rec = tmp_path / f"{game}.json"
    proc = run_play(["--game", game, *args, "--opponents", "greedy", "--seed", "3", "--record", str(rec)],
                    "?\n" + "1\n" * turns)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for w in words + ("Your moves:", "opponent:", "Record saved"):
        assert w in out, w
    assert ("Strength: A > 3" if game == "briscola" else "primiera") in out  # the rules, on '?'
    if game == "scopa":  # one deal: no match score on screen, none in the rules shown
        assert "Match:" not in out and "match to 11" not in out and "The match ends" not in out
    assert re.search(r"You win!|The AI wins\.|A draw\.", out)
    record = json.loads(rec.read_text())
    assert record["format"] == f"{game}-record/1"
    replay(record)


def test_scopa_match_interrupted_keeps_the_record(tmp_path):
    rec = tmp_path / "match.json"
    proc = run_play(["--game", "scopa", "--opponents", "random", "--seed", "4", "--record", str(rec)], "1\n" * 20)
    assert proc.returncode == 1  # the input ran out before the match ended
    assert "You left the game." in proc.stdout and "(game in progress)" in proc.stdout
    assert "Match:       you 0, opponent 0 (first to 11)" in proc.stdout
    record = json.loads(rec.read_text())
    assert record["match"] is True and "result" not in record
    replay(record)


def test_ctrl_c_keeps_the_record(tmp_path):
    import signal
    import time

    rec = tmp_path / "deal.json"
    proc = subprocess.Popen([sys.executable, "-m", "cavallo_env.cli", "play", "--partner", "greedy", "--opponents",
                             "greedy", "--seed", "5", "--record", str(rec)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = ""
    deadline = time.time() + 60
    while "Choose" not in out and time.time() < deadline:  # the first move prompt
        out += proc.stdout.read(1)
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "(deal in progress)" in out + rest
    record = json.loads(rec.read_text())
    assert "result" not in record
    replay(record)
