"""The view schemas (cavallo_env/games/viewschema.py): one declaration per game, one checker.

Every game's ``views.SCHEMA`` reads the views of real games, ``state_from_view``
round-trips them, and a malformed field is a ``ViewError`` naming its path.
"""

from __future__ import annotations

import copy
import random

import pytest

from cavallo_env import games
from cavallo_env.errors import ViewError
from cavallo_env.games.viewschema import Card, Cards, Field, Int, ListOf, Obj, Text, ViewSchema

NAMES = ("cavalloicera", "briscola", "scopa")


def _views(name: str, seed: int, n: int = 30):
    g = games.get(name)
    rng = random.Random(seed)
    kw = {"deck": rng.choice(("milanesi", "bresciane"))} if name != "cavalloicera" else {}
    state = g.new_state(seed, **kw)
    while not state.done and n:
        yield g, state
        g.play(state, rng.choice(state.legal_moves()))
        n -= 1


@pytest.mark.parametrize("name", NAMES)
def test_views_of_real_games_read_and_round_trip(name):
    schema = games.get(name).module("views").SCHEMA
    assert schema.game == name
    for seed in range(3):
        for g, state in _views(name, seed):
            view = g.make_view(state, state.current)
            read = schema.read(view)
            assert read["seat"] == state.current and len(read["legal_moves"]) == len(view["legal_moves"])
            rebuilt = g.state_from_view(copy.deepcopy(view), random.Random(seed))
            assert g.make_view(rebuilt, state.current) == view


def _schema():
    move = (Field("play", Card()), Field("capture", Cards(3)))
    return ViewSchema("toy", "Toy", (
        Field("game", Text(("toy",)), required=False),
        Field("deck", Text(("a", "b"))),
        Field("seat", Int(0, 1)),
        Field("hand", Cards(2)),
        Field("sizes", ListOf(Int(0, 3, "0 to 3"), 2, 2), required=False),
        Field("history", ListOf(Obj((Field("seat", Int(0, 1)),) + move), 2, label="history move {n}",
                                noun="moves", too_long="the deal is over: {n} moves")),
    ), lambda name, deck: {"a": ["x", "y", "z"], "b": ["p", "q", "r"]}[deck].index(name))


GOOD = {"deck": "a", "seat": 1, "hand": ["x", "y"], "history": [{"seat": 0, "play": "z", "capture": []}]}


@pytest.mark.parametrize("change,message", [
    ({"game": "other"}, "not a Toy view: 'game' is 'other'"),
    ({"deck": "c"}, "'deck' must be one of 'a', 'b', got 'c'"),
    ({"seat": 2}, "'seat' must be an int in 0..1, got 2"),
    ({"seat": True}, "'seat' must be an int in 0..1, got True"),
    ({"seat": None}, "'seat' must be an int in 0..1, got None"),
    ({"hand": "x"}, "'hand' must be a list of card names, got str"),
    ({"hand": ["x", "p"]}, "'hand': 'p' is not in list"),
    ({"hand": ["x", "x"]}, "'hand': card x appears twice"),
    ({"hand": ["x", "y", "z"]}, "'hand' has 3 cards, at most 2"),
    ({"sizes": [1]}, "'sizes' must have 2 items, got 1"),
    ({"sizes": [1, 4]}, "'sizes'[1] must be 0 to 3, got 4"),
    ({"history": [1]}, "history move 1 must be an object with 'seat', 'play' and 'capture', got int"),
    ({"history": [{"seat": 0, "play": "x"}]}, "history move 1: 'capture' is missing"),
    ({"history": [{"seat": 0, "play": "x", "capture": ["q"]}]}, "history move 1: 'capture': 'q' is not in list"),
    ({"history": [{"seat": 0, "play": "x", "capture": []}] * 3}, "the deal is over: 3 moves"),
])
def test_a_bad_field_is_named_with_its_problem(change, message):
    schema = _schema()
    assert schema.read(GOOD)["history"] == [{"seat": 0, "play": 2, "capture": []}]
    with pytest.raises(ViewError) as e:
        schema.read({**GOOD, **change})
    assert str(e.value).startswith(message), str(e.value)


def test_missing_fields_and_skipped_fields():
    schema = _schema()
    with pytest.raises(ViewError, match="the view has no 'hand'"):
        schema.read({k: v for k, v in GOOD.items() if k != "hand"})
    with pytest.raises(ViewError, match="a view must be a JSON object, got list"):
        schema.read([GOOD])
    assert schema.read({**GOOD, "sizes": None})["sizes"] is None
    assert "history" not in schema.read({**GOOD, "history": 5}, skip=("history",))
    assert schema.read_field({"deck": "b", "hand": ["r"]}, "hand") == [2]
    assert schema.deck_of({}) == "a"
