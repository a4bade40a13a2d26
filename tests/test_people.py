"""The AI measured against people (cavallo_env/people.py): each finished game's result from the AI's side,
W/D/L, the Wilson interval and points per game per game, deck and AI, the export, and the replay's positions."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("sqlalchemy", reason="the store's FinishedGame needs the runtime extra (sqlalchemy)")

from cavallo_env import games, people  # noqa: E402
from cavallo_env.bots import make  # noqa: E402
from cavallo_env.errors import RecordError  # noqa: E402
from cavallo_env.evaluation import play_game, wilson_interval  # noqa: E402
from cavallo_env.records import replay  # noqa: E402
from cavallo_env.tables import TableSession  # noqa: E402
from people_fixtures import finished_game, played_games  # noqa: E402


def _result(outcome, ai_points, people_points, game="briscola", deck="milanesi", ai="heuristic", options=None):
    opts = tuple(sorted((options or {"deck": deck}).items()))
    return people.Result(table_id="t", game=game, options=opts, ai=ai, outcome=outcome, ai_points=ai_points,
                         people_points=people_points, player_id=None, finished_at="2026-01-01T00:00:00+00:00")


def test_a_line_counts_wins_draws_losses_the_wilson_interval_and_points_per_game():
    results = [_result("win", 70, 50), _result("win", 80, 40), _result("win", 61, 59),
               _result("draw", 60, 60), _result("loss", 30, 90)]
    [line] = people.summarize(results)
    assert (line.games, line.wins, line.draws, line.losses) == (5, 3, 1, 1)
    assert line.score == pytest.approx(3.5 / 5)
    assert line.score_ci == wilson_interval(3.5, 5)  # the project's one Wilson interval
    lo, hi = line.score_ci
    assert 0.0 < lo < 0.7 < hi < 1.0
    assert line.ai_points == pytest.approx((70 + 80 + 61 + 60 + 30) / 5)
    assert line.people_points == pytest.approx((50 + 40 + 59 + 60 + 90) / 5)
    assert (line.label, line.counted_as) == ("Briscola (milanesi)", "deals")


def test_lines_are_per_game_deck_and_ai_in_the_games_order():
    results = [_result("win", 1, 0, ai="greedy"), _result("loss", 0, 1, ai="heuristic"),
               _result("loss", 40, 80, deck="bresciane"),
               _result("win", 11, 7, game="scopa", options={"deck": "milanesi", "match": True}),
               _result("win", 9, 2, game="cavalloicera", deck="bresciane"),
               _result("draw", 3, 3, ai="greedy")]
    lines = people.summarize(results)
    assert [(x.game, x.deck, x.ai, x.games) for x in lines] == [
        ("cavalloicera", "bresciane", "heuristic", 1), ("briscola", "bresciane", "heuristic", 1),
        ("briscola", "milanesi", "greedy", 2), ("briscola", "milanesi", "heuristic", 1),
        ("scopa", "milanesi", "heuristic", 1)]
    greedy = lines[2]
    assert (greedy.wins, greedy.draws, greedy.losses, greedy.score) == (1, 1, 0, 0.75)
    assert (lines[-1].label, lines[-1].counted_as) == ("Scopa (milanesi, matches to 11)", "matches")
    assert people.summarize([]) == []


@pytest.mark.parametrize("game_name,deck", [("cavalloicera", "bresciane"), ("briscola", "milanesi"),
                                            ("briscola", "bresciane"), ("scopa", "milanesi")])
def test_a_finished_game_is_read_from_the_ai_side(game_name, deck):
    for seed in range(4):
        fg = finished_game(game_name, deck, seed)
        r = people.result_of(fg)
        game = games.get(game_name)
        out = game.outcome(replay(fg.record))
        # the person sits in seat 0; the AI's side is the other team (Cavalloìcera: the two opponents)
        assert (r.ai_points, r.people_points) == (out["points"][1], out["points"][0])
        assert r.outcome == {None: "draw", 1: "win", 0: "loss"}[out["winner"]]
        assert (r.game, r.deck, r.ai, r.table_id) == (game_name, deck, "heuristic", fg.table_id)
        assert r.finished_at.startswith("2026-")
        mine = r.for_person()
        assert mine["points"] == [r.people_points, r.ai_points]
        assert mine["result"] == {"win": "loss", "loss": "win", "draw": "draw"}[r.outcome]


def test_a_scopa_game_is_the_tables_match_to_11():
    fg = finished_game("scopa", "milanesi", 3)
    assert fg.record["match"] is True and fg.record["target"] == 11
    r = people.result_of(fg)
    assert dict(r.options) == {"deck": "milanesi", "match": True}
    assert max(r.ai_points, r.people_points) >= 11


def test_the_ai_team_is_the_team_without_a_person():
    cav = games.get("cavalloicera")
    assert people.ai_team(cav, [0]) == 1 and people.ai_team(cav, [1]) == 0 and people.ai_team(cav, [0, 2]) == 1
    for bad in ([], [0, 1], [4]):
        with pytest.raises(RecordError, match="not seats of one team"):
            people.ai_team(cav, bad)


def test_records_that_do_not_replay_are_skipped_saying_why():
    good = finished_game("briscola", "milanesi", 1)
    wrong = finished_game("briscola", "milanesi", 2)
    wrong.record["result"]["points"] = [0, 120]
    unfinished = finished_game("briscola", "milanesi", 3)
    del unfinished.record["result"]
    unfinished.record["moves"] = unfinished.record["moves"][:5]
    mislabelled = finished_game("briscola", "milanesi", 4, game="scopa")
    other_deck = finished_game("briscola", "milanesi", 5, deck_stored="bresciane")
    results, skipped = people.results_of([good, wrong, unfinished, mislabelled, other_deck])
    assert [r.table_id for r in results] == [good.table_id]
    reasons = {s["table_id"]: s["reason"] for s in skipped}
    assert "wrong result" in reasons[wrong.table_id]
    assert "not of a finished game" in reasons[unfinished.table_id]
    assert "stored as 'scopa'" in reasons[mislabelled.table_id]
    assert "dealt from the milanesi deck, but the game is stored as played with 'bresciane'" in reasons[other_deck.table_id]
    rep = people.report(results, skipped)
    assert rep["games"] == 1 and len(rep["lines"]) == 1 and len(rep["skipped"]) == 4
    json.dumps(rep)  # JSON as it is
    text = people.format_report(people.summarize(results), skipped, "test")
    assert "skipped 4 game(s)" in text and "Briscola (milanesi)" in text


def test_the_text_table_names_each_line():
    fgs = played_games()
    results, skipped = people.results_of(fgs)
    assert not skipped
    text = people.format_report(people.summarize(results), skipped)
    for label in ("Cavalloìcera", "Briscola (milanesi)", "Briscola (bresciane)", "Scopa (milanesi, matches to 11)"):
        assert label in text
    assert "95% Wilson" in text and f"{len(fgs)} finished games" in text


def test_an_exported_record_replays_and_names_no_one():
    fg = finished_game("scopa", "milanesi", 5, player_name="Ada")
    out = people.export_record(fg)
    assert out["people"]["player_id"] == fg.player_id and "Ada" not in json.dumps(out)
    assert out["people"]["human_seats"] == [0]
    replay(out)  # the extra "people" object does not stop `cavallo replay`
    assert {k: v for k, v in out.items() if k != "people"} == fg.record


@pytest.mark.parametrize("game_name,deck", [("cavalloicera", "bresciane"), ("briscola", "milanesi"),
                                            ("scopa", "bresciane")])
def test_the_replay_shows_every_hand_move_by_move(game_name, deck):
    fg = finished_game(game_name, deck, 6)
    record = fg.record
    frames = people.frames(record)
    deals = record.get("deals", [record])
    moves = [mv for d in deals for mv in d["moves"]]
    assert len(frames) == len(moves) + len(deals)
    assert [f["move"] for f in frames if f["move"] is not None] == moves
    assert [f["n"] for f in frames if f["move"] is not None] == list(range(1, len(moves) + 1))
    starts = [f for f in frames if f["move"] is None]
    assert [f["deal"] for f in starts] == list(range(1, len(deals) + 1))
    for f, d in zip(starts, deals):
        assert [sorted(h) for h in f["hands"]] == [sorted(h) for h in d["hands"]]
        assert "history" not in f["public"] and "hand" not in f["public"]
    for before, after in zip(frames, frames[1:]):  # a move takes its card out of its seat's hand
        mv = after["move"]
        if mv is not None and after["deal_result"] is None:
            assert mv["play"] in before["hands"][mv["seat"]] and mv["play"] not in after["hands"][mv["seat"]]
    assert frames[-1]["hands"] == [[] for _ in deals[0]["hands"]]
    json.dumps(frames)


def test_the_replay_marks_the_end_of_each_scopa_deal():
    record = finished_game("scopa", "milanesi", 7).record
    frames = people.frames(record)
    ended = [f for f in frames if f["deal_result"] is not None]
    assert [f["deal_result"] for f in ended] == [d["result"] for d in record["deals"]]
    for f in ended[:-1]:  # the engine's next deal is not the recorded one: nothing of it is shown
        assert f["hands"] == [[], []] and f["public"] == {}
    assert ended[-1] is frames[-1]


def test_only_a_finished_game_is_replayed():
    fg = finished_game("briscola", "milanesi", 8)
    record = dict(fg.record)
    del record["result"]
    record["moves"] = record["moves"][:7]
    with pytest.raises(RecordError, match="only a finished game"):
        people.frames(record)


def test_times_are_iso_8601_in_utc():
    import datetime as dt
    assert people.iso_time(0) == "1970-01-01T00:00:00+00:00"
    assert people.iso_time(dt.datetime(2026, 3, 1, 12, 0, 5)) == "2026-03-01T12:00:05+00:00"
    assert people.iso_time("2026-03-01T12:00:05Z") == "2026-03-01T12:00:05Z"


def test_random_games_agree_with_the_records_own_result():
    rng = random.Random(0)
    for game_name, deck in (("briscola", "milanesi"), ("cavalloicera", "bresciane")):
        table = TableSession("x", game_name, deck, "heuristic", rng.randrange(1 << 30))
        play_game([make("random", seed=s) for s in range(table.game.num_seats)], table.state, game=table.game)
        record = table.record()
        r = people.result_of(finished_game(game_name, deck, 0, record=record))
        stated = record["result"]["winner"]
        assert r.outcome == {None: "draw", 1: "win", 0: "loss"}[stated]


@pytest.mark.parametrize("game_name,deck", [("cavalloicera", "bresciane"), ("briscola", "milanesi"),
                                            ("scopa", "milanesi")])
def test_a_persons_decisions_are_the_views_before_their_moves(game_name, deck):
    from cavallo_env.games import checked_view

    record = finished_game(game_name, deck, 9).record
    game = games.get(game_name)
    mine = people.decisions(record, [0])
    deals = record.get("deals", [record])
    assert [d["move"] for d in mine] == [mv for d in deals for mv in d["moves"] if mv["seat"] == 0]
    for d in mine:
        view = d["view"]
        assert view["seat"] == 0 and d["move"]["play"] in view["hand"]
        _, _, legal, _ = checked_view(view)  # a whole, consistent view, as /v1/move takes
        assert game.move_from_dict(d["move"], deck) in legal
    every = people.decisions(record, range(game.num_seats))
    assert len(every) == sum(len(d["moves"]) for d in deals)


def test_cavallo_people_without_the_database_extra_says_what_to_install(monkeypatch, capsys, tmp_path):
    import sys

    from cavallo_env.cli import main

    monkeypatch.setitem(sys.modules, "sqlalchemy", None)  # as if not installed
    assert main(["people", "--db", str(tmp_path / "x.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert "cavallo people: error: the database needs the runtime extra" in err and "sqlalchemy" in err
