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
from cavallo_env import games, levels
from cavallo_env.cli import main
from cavallo_env.cavalloicera import move_text
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
    RULES_TEXT = games.get("cavalloicera").rules_text()

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


@pytest.mark.parametrize("game", ["cavalloicera", "briscola"])
def test_without_a_shipped_model_the_search_plays(game, tmp_path, monkeypatch):
    from cavallo_env.cli import build_parser
    from cavallo_env.commands import play

    monkeypatch.setattr(levels, "available", lambda level, game: False)  # neither the search nor a model ships
    args = build_parser().parse_args(["play", "--game", game])
    specs = play.seat_specs(args, games.get(game))
    assert set(specs) == set(range(1, games.get(game).num_seats)) and set(specs.values()) == {"ismcts:1000"}


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"the shipped model {DEFAULT_MODEL} is not in this checkout")
def test_levels_by_name(monkeypatch, capsys):
    """--opponents and --partner take the levels' names: each is the game's own spec; the default is the
    strongest level the copy ships; a level it does not ship is an error saying which are."""
    from cavallo_env.cli import build_parser
    from cavallo_env.commands import play

    assert play.opponent_specs("fast") == ["policy:cavalloicera"] * 2
    assert play.opponent_specs("fast,greedy") == ["policy:cavalloicera", "greedy"]
    args = build_parser().parse_args(["play", "--game", "scopa", "--opponents", "fast"])
    assert play.seat_specs(args, games.get("scopa")) == {1: "policy:scopa"}
    monkeypatch.setattr(levels, "available", lambda level, game: level == "strong" or game != "scopa")
    args = build_parser().parse_args(["play", "--game", "scopa"])
    assert play.seat_specs(args, games.get("scopa")) == {1: "search:scopa"}  # the strong one, where it ships
    monkeypatch.setattr(levels, "available", lambda level, game: level == "fast")
    args = build_parser().parse_args(["play", "--partner", "strong", "--opponents", "fast"])
    with pytest.raises(ValueError, match=r"the strong AI \(search:cavalloicera\) is not available for Cavalloìcera"):
        play.seat_specs(args, games.get("cavalloicera"))
    assert play.seat_specs(build_parser().parse_args(["play"]), games.get("cavalloicera")) == {
        1: "policy:cavalloicera", 2: "policy:cavalloicera", 3: "policy:cavalloicera"}
    assert main(["play", "--opponents", "strong", "--no-record"]) == 2
    assert "available: fast" in capsys.readouterr().err


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"the shipped model {DEFAULT_MODEL} is not in this checkout")
def test_default_ai(tmp_path):
    proc = run_play(["--seed", "1", "--no-record"], "1\n" * 12)
    assert proc.returncode == 0, proc.stderr
    level = levels.offered("cavalloicera")[0]  # the strongest this copy ships: strong where the search is in
    assert f"the {level} AI" in proc.stdout and levels.spec(level) not in proc.stdout
    assert "policy:" not in proc.stdout and "search:" not in proc.stdout
    assert "=== end of the deal ===" in proc.stdout


@pytest.mark.parametrize("game,args,turns,words", [
    ("briscola", ["--deck", "bresciane"], 20, ("Trump:", "Your hand:", "Points:", "play ")),
    ("scopa", ["--single-deal"], 18, ("Table:", "Your hand:", "This deal:", "=== end of the deal ===", "one deal")),
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
    assert "You left the match." in proc.stdout and "(match in progress)" in proc.stdout
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


def test_briscola_says_who_took_each_trick_and_what_you_may_know_was_drawn(tmp_path):
    proc = run_play(["--game", "briscola", "--opponents", "greedy", "--seed", "5", "--no-record"], "1\n" * 20)
    assert proc.returncode == 0, proc.stderr
    tricks = re.findall(r"^    (you|the opponent) took the trick \(\+(\d+) points\)(.*)\.$", proc.stdout, re.M)
    assert len(tricks) == 20
    draws = [t[2] for t in tricks]
    assert all(d.startswith("; ") for d in draws[:17]) and not any(draws[17:])  # 34 cards drawn, 17 times 2
    assert sum("the opponent drew a card" in d for d in draws) >= 16  # the opponent's cards stay hidden
    assert sum("drew the trump card" in d for d in draws) == 1 and "drew the trump card" in draws[16]
    # the points said add up to the final score
    won = [sum(int(p) for who, p, _ in tricks if who == w) for w in ("you", "the opponent")]
    assert re.search(rf"^(You win!|The AI wins\.|A draw\.) {won[0]} - {won[1]}$", proc.stdout, re.M)


def test_briscola_after_move_hides_the_opponents_draw_but_not_the_trump_card():
    g = games.get("briscola")
    state = g.new_state(7)
    seen = []
    while not state.done:
        g.play(state, state.legal_moves()[0])
        report = g.after_move(state, 0)
        if len(state.moves) % 2:
            assert report == {}
            continue
        trick = report["trick"]
        assert trick["winner"] == state.leader
        seen.append(trick)
    assert len(seen) == 20 and sum(t["points"] for t in seen) == 120
    trump = g.move_to_dict(state.trump, state.deck)["play"]
    for k, trick in enumerate(seen[:17]):
        mine, theirs = trick["drew"]
        assert mine is not None
        assert theirs is None or (theirs == trump and k == 16 and trick["trump_to"] == 1)
    assert all("drew" not in t for t in seen[17:])


def test_words_for_a_player(tmp_path):
    """The shipped AI by its level, "you" for your seat, "1 card" for one card."""
    proc = run_play(["--game", "briscola", "--opponents", "fast", "--seed", "5", "--no-record"], "1\n" * 3)
    out = proc.stdout
    assert "the opponent (the fast AI)" in out and "policy:" not in out and "seat 0" not in out
    assert re.search(r"piles of \d+ and 1 card\)|piles of \d+ and (0|[2-9]\d*) cards\)", out)
    assert "card(s)" not in out and not re.search(r"\b1 cards", out)
    # Cavalloìcera's piles and hands
    view_text = games.get("cavalloicera").view_text
    state = CavalloiceraState.new(3)
    g = games.get("cavalloicera")
    while state.current != 0 or not state.piles[1]:
        g.play(state, state.legal_moves()[-1])
    assert not re.search(r"\b1 cards", view_text(g.make_view(state, 0)))


@pytest.mark.parametrize("command", ["simulate", "play", "eval", "tournament"])
def test_scopa_plays_a_match_to_11_by_default_in_every_command(command):
    from cavallo_env.cli import build_parser
    from cavallo_env.commands._game import game_options

    extra = {"eval": ["random", "greedy"], "tournament": ["--bots", "random,greedy"]}.get(command, [])
    for flags, match in (([], True), (["--single-deal"], False), (["--match"], True)):
        args = build_parser().parse_args([command, *extra, "--game", "scopa", *flags])
        assert game_options(args)[1]["match"] is match, (command, flags)


def test_the_commands_name_the_scopa_match_in_their_first_line(tmp_path, capsys):
    assert main(["simulate", "--game", "scopa", "--deals", "1", "--bots", "random", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("Scopa (milanesi, matches to 11): 1 matches")
    assert main(["eval", "random", "greedy", "--game", "scopa", "--deals", "1", "--jobs", "1", "--no-progress"]) == 0
    assert "Scopa (milanesi, matches to 11)" in capsys.readouterr().out
    proc = run_play(["--game", "scopa", "--opponents", "random", "--seed", "1", "--no-record"], "")
    assert proc.stdout.startswith("Scopa (milanesi deck, a match to 11), seed 1")
    proc = run_play(["--game", "scopa", "--single-deal", "--opponents", "random", "--seed", "1", "--no-record"], "")
    assert proc.stdout.startswith("Scopa (milanesi deck, one deal), seed 1")
