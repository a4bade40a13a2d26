"""The recorded deals of docs/rules/cavalloicera.md ("Worked vectors") must replay exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cavallo_env.cavalloicera.engine import BREAKDOWN_KEYS
from cavallo_env.records import replay
from cavallo_env.cavalloicera.records import to_record

VECTORS = sorted((Path(__file__).parent / "vectors-cavalloicera").glob("*.json"))


def test_vectors_present():
    # The vectors are the rules' ground truth; an empty glob would make the rest vacuous.
    assert len(VECTORS) >= 13


@pytest.fixture(params=VECTORS, ids=lambda p: p.stem)
def vector(request):
    return json.loads(request.param.read_text(encoding="utf-8"))


def test_vector_result_matches(vector):
    state = replay(vector)
    assert state.done
    expected = vector["result"]
    got = state.result()
    assert got["team_points"] == expected["team_points"]
    assert got["cards"] == expected["cards"]
    assert got["winner"] == expected["winner"]
    for team in (0, 1):
        assert set(expected["breakdown"][team]) == set(BREAKDOWN_KEYS)
        for key in BREAKDOWN_KEYS:
            assert got["breakdown"][team][key] == expected["breakdown"][team][key], (team, key)
    assert got == expected


def test_vector_round_trip(vector):
    assert to_record(replay(vector)) == vector


def test_vector_card_accounting(vector):
    state = replay(vector)
    claimed = state.piles[0] + state.piles[1] + state.unclaimed
    assert sorted(claimed) == list(range(52))
    assert sum(state.result()["cards"]) + len(state.unclaimed) == 52
