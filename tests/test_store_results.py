"""Each finished game's result kept in its row (schema revision 0002), on SQLite and on a real PostgreSQL server:
the sums of ``Store.result_tallies`` are the figures of replaying every record (``people.results_of``), the
migration from schema 1 fills the results of the games finished before it, and ``fill_results`` those a server of
schema 1 finished since."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sqlalchemy", reason="the table's database needs the runtime extra (sqlalchemy)")

from cavallo_env import people  # noqa: E402
from cavallo_env.store import open_store, resolve  # noqa: E402
from people_fixtures import TABLE_GAMES, finished_game, store_with  # noqa: E402
from store_fixtures import pg_url, postgres  # noqa: E402,F401  (fixtures)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "tables.sqlite3")
    return request.getfixturevalue("pg_url")


def _many_games() -> list:
    """Games of every game and deck, two AIs, three players, and two that do not replay."""
    out = [finished_game(g, d, seed, ai=("greedy", "heuristic")[seed % 2], player_id=f"player-{seed % 3}")
           for g, d in TABLE_GAMES for seed in range(8)]
    good = out[0]
    out.append(finished_game("briscola", "milanesi", 40, game="scopa"))  # mislabelled: skipped
    out.append(finished_game("briscola", "milanesi", 41, record={**good.record, "moves": good.record["moves"][:3]}))
    return out


def _replayed(store, **kw):
    """The figures as they were made before schema 2: every record read and replayed."""
    results, skipped = people.results_of(store.finished_games(**kw))
    return [x.to_dict() for x in people.summarize(results)], skipped, results


def _summed(store, **kw):
    tallies, finished, skipped = store.result_tallies(**kw)
    return [x.to_dict() for x in people.lines_of(people.Tally(*t) for t in tallies)], finished, skipped


def _check_equal(store):
    for kw in ({}, {"game": "scopa"}, {"player_id": "player-1"}, {"limit": 7}, {"player_id": "nobody"}):
        lines, skipped, results = _replayed(store, **kw)
        summed, finished, n_skipped = _summed(store, **kw)
        assert summed == lines, kw
        assert (finished, n_skipped) == (len(results) + len(skipped), len(skipped)), kw
        assert store.skipped_games(**kw) == skipped, kw
        if "game" in kw or "limit" in kw:
            continue
        history = [people.Result(i, g, o, ai, out, a, p, pid, people.iso_time(t))
                   for i, g, o, ai, out, a, p, pid, t in store.recent_results(kw.get("player_id"), 5)]
        assert history == results[:5], kw


def test_the_stored_results_sum_to_the_figures_of_replaying_every_record(url):
    store = store_with(url, _many_games())
    try:
        _check_equal(store)
        _, skipped, results = _replayed(store)
        assert len(results) == 8 * len(TABLE_GAMES) and len(skipped) == 2
        assert any("stored as 'scopa'" in s["reason"] for s in skipped)
    finally:
        store.close()


def _schema_1_database(url: str, finished: list) -> None:
    """A database at schema revision 0001 holding ``finished`` (as cavallo of schema 1 wrote them)."""
    from alembic import command
    from sqlalchemy import create_engine, text

    from cavallo_env.store import migrate

    engine = create_engine(resolve(url))
    cfg = migrate._config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        for i, fg in enumerate(finished):
            conn.execute(text(
                "INSERT INTO tables (id, token_hash, game, deck, options, ai, seed, human_seats, player_id, status, "
                "moves, created_at, touched_at, finished_at, record) VALUES (:id, :h, :game, :deck, :opt, :ai, '1', "
                ":seats, :pid, 'closed', 1, 1.0, 1.0, :at, :rec)"),
                {"id": fg.table_id, "h": "0" * 64, "game": fg.game, "deck": fg.deck,
                 "opt": json.dumps({"deck": fg.deck}), "ai": fg.ai, "seats": json.dumps(list(fg.human_seats)),
                 "pid": fg.player_id, "at": fg.finished_at.timestamp(), "rec": json.dumps(fg.record)})
    engine.dispose()


def test_the_migration_fills_the_results_of_the_games_finished_before_it(url):
    finished = _many_games()[::3]
    _schema_1_database(url, finished)
    store = open_store(url)
    try:
        assert store.revision == "0002"
        assert store.fill_results() == 0  # the migration did them all
        _check_equal(store)
        assert _summed(store)[1] == len(finished)
    finally:
        store.close()


def test_games_finished_without_a_result_are_filled_a_few_at_a_time(url):
    from sqlalchemy import update

    from cavallo_env.store.schema import tables

    store = store_with(url, _many_games()[::4])
    try:
        before = _summed(store)
        with store.engine.begin() as conn:  # as a server of schema 1, still running after the migration, writes
            n = conn.execute(update(tables).values(result_outcome=None, result_skipped=None)).rowcount
        assert _summed(store)[0] == [] and n > 3
        assert store.fill_results(3) == 3 and sum(x["games"] for x in _summed(store)[0]) <= 3
        assert store.fill_results() == n - 3 and store.fill_results() == 0
        assert _summed(store) == before
    finally:
        store.close()
