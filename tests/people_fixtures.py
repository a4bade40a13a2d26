"""Finished table games for the tests of ``cavallo people`` and ``/stats``: played to the end at a
``TableSession`` (the person in seat 0 plays at random, the AI seats greedily), as the store keeps them."""

from __future__ import annotations

import datetime as dt

from cavallo_env.bots import make
from cavallo_env.evaluation import derive_seed, play_game
from cavallo_env.store import FinishedGame
from cavallo_env.tables import CATALOG, TableSession

#: every game the table offers, with its deck
TABLE_GAMES = [(g, e["deck"]) for e in CATALOG for g in e["games"]]


def played_record(game_name: str, deck: str, seed: int) -> dict:
    """The record of one whole game at a table (seat 0 random, the others greedy)."""
    table = TableSession("x", game_name, deck, "greedy", derive_seed("people", game_name, deck, seed))
    n = table.game.num_seats
    bots = [make("random", seed=seed)] + [make("greedy", seed=seed + s) for s in range(1, n)]
    play_game(bots, table.state, game=table.game)
    return table.record()


def finished_game(game_name: str, deck: str, seed: int, *, game: str | None = None, record: dict | None = None,
                  deck_stored: str | None = None,
                  player_id: str | None = "p-anon-1", player_name: str | None = None, ai: str = "heuristic",
                  finished_at=None) -> FinishedGame:
    """A ``FinishedGame`` of ``game_name`` from ``deck`` (stored as ``game``, ``deck_stored`` when given: mislabelled)."""
    return FinishedGame(
        table_id=f"{game_name}-{deck}-{seed}", game=game or game_name, deck=deck_stored or deck, ai=ai, human_seats=(0,),
        player_id=player_id, player_name=player_name,
        finished_at=finished_at or dt.datetime(2026, 1, 2, 3, 4, seed % 60, tzinfo=dt.timezone.utc),
        record=record if record is not None else played_record(game_name, deck, seed))


def played_games(per_game: int = 3) -> list[FinishedGame]:
    """``per_game`` finished games of every game and deck of the table."""
    return [finished_game(g, d, seed) for g, d in TABLE_GAMES for seed in range(per_game)]


def store_with(url: str, finished: list[FinishedGame]):
    """The store at ``url`` holding ``finished`` (each written as the table writes a game's last move)."""
    import json

    from cavallo_env.store import open_store

    store = open_store(url)
    for fg in finished:
        options = {"deck": fg.deck, **({"match": fg.record["match"]} if "match" in fg.record else {})}
        store.create_table({"id": fg.table_id, "token_hash": "0" * 64, "game": fg.game, "deck": fg.deck,
                            "options": json.dumps(options), "ai": fg.ai, "seed": "1",
                            "human_seats": json.dumps(list(fg.human_seats)), "player_id": fg.player_id,
                            "player_name": fg.player_name})
        assert store.add_move(fg.table_id, 1, 0, "you", {"play": "x"}, fg.record)
    return store
