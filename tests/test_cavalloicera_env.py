"""The AEC environment's behaviour: deals, vectors, rewards, illegal actions,
hidden information, copies, rendering and the observation layout."""

from __future__ import annotations

import copy
import json
import pickle
import random
import warnings
from pathlib import Path

import numpy as np
import pytest

import cavallo_env
from cavallo_env.cavalloicera.actions import CAPTURE, TAKE, action_name, move_to_actions
from cavallo_env.cavalloicera.aec import AGENTS
from cavallo_env.cavalloicera.cards import NAMES, card_id
from cavallo_env.cavalloicera.encoding import OBS_LAYOUT, OBS_SIZE, OBS_VERSION, STATE_SIZE, STATE_VERSION
from cavallo_env.cavalloicera.engine import CavalloiceraState

VECTORS = sorted((Path(__file__).parent / "vectors-cavalloicera").glob("*.json"))


def load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def deal_of(record):
    return {"hands": record["hands"], "table": record["table"], "dealer": record["dealer"]}


def play_record(env, record):
    """Replay a record's moves through env actions; returns the actions used."""
    env.reset(options={"deal": deal_of(record)})
    base = env.unwrapped
    used = []
    for i, mv in enumerate(record["moves"]):
        agent = f"player_{mv['seat']}"
        card = card_id(mv["play"])
        capture = tuple(sorted(card_id(n) for n in mv["capture"]))
        for a in move_to_actions(base.game.state, card, capture):
            assert env.agent_selection == agent, f"move {i + 1}: {env.agent_selection} selected, {agent} expected"
            obs, _, term, trunc, _ = env.last()
            assert not (term or trunc)
            assert obs["action_mask"][a] == 1, f"move {i + 1}: {action_name(a)} is not in the mask"
            env.step(a)
            used.append(a)
    return used


def random_actions(env, rng, n=None):
    """Play n (or all remaining) random legal actions of the raw env."""
    k = 0
    while env.agents and not env.terminations[env.agent_selection] and (n is None or k < n):
        env.step(rng.choice(env.legal_actions()))
        k += 1


# ---------------------------------------------------------------- vectors


@pytest.fixture(params=VECTORS, ids=lambda p: p.stem)
def vector(request):
    return load(request.param)


def test_vectors_present():
    assert len(VECTORS) >= 13


@pytest.mark.parametrize("make", [cavallo_env.raw_env, cavallo_env.env], ids=["raw", "wrapped"])
def test_vector_replays_through_the_env(vector, make):
    env = make()
    play_record(env, vector)
    points = vector["result"]["team_points"]
    diff = points[0] - points[1]
    for agent in AGENTS:
        team = int(agent[-1]) % 2
        assert env.terminations[agent] is True and env.truncations[agent] is False
        assert env.rewards[agent] == (diff if team == 0 else -diff)
        assert env._cumulative_rewards[agent] == env.rewards[agent]
        assert env.infos[agent]["result"] == vector["result"]
    assert env.record() == vector
    assert env.unwrapped.game.state.done
    # everyone retires with step(None); the deal is then over for good
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        assert term and not obs["action_mask"].any()
        assert reward == (diff if int(agent[-1]) % 2 == 0 else -diff)
        env.step(None)
    assert env.agents == []


def test_vector_win_rewards(vector):
    env = cavallo_env.raw_env(reward="win")
    play_record(env, vector)
    winner = vector["result"]["winner"]
    expected = [0, 0] if winner is None else ([1, -1] if winner == 0 else [-1, 1])
    assert [env.rewards[a] for a in AGENTS] == [expected[i % 2] for i in range(4)]


def test_record_mid_deal_matches_prefix(vector):
    env = cavallo_env.raw_env()
    env.reset(options={"deal": deal_of(vector)})
    cut = len(vector["moves"]) // 2
    partial = dict(vector, moves=vector["moves"][:cut])
    partial.pop("result")
    play_record(env, partial)
    assert env.record() == partial
    assert "result" not in env.record()


def test_reset_with_deal_keeps_the_deal_as_given():
    vec = load(VECTORS[0])
    deal = deal_of(vec)
    shuffled = {"hands": [list(reversed(h)) for h in deal["hands"]], "table": deal["table"][::-1],
                "dealer": deal["dealer"]}
    env = cavallo_env.raw_env()
    env.reset(seed=99, options={"deal": shuffled})
    rec = env.record()
    assert rec["hands"] == shuffled["hands"] and rec["table"] == shuffled["table"]
    assert rec["dealer"] == deal["dealer"] and rec["moves"] == []
    # the options deal wins over the seed (and draws nothing); the seed still seeds the stream
    other = cavallo_env.raw_env()
    other.reset(seed=99)
    env.reset()
    assert env.record()["hands"] == other.record()["hands"]


# ---------------------------------------------------------------- malformed deals and options


def good_deal():
    return deal_of(load(VECTORS[1]))


def with_change(fn):
    d = copy.deepcopy(good_deal())
    fn(d)
    return d


@pytest.mark.parametrize("change, message", [
    (lambda d: d["hands"][2].__setitem__(0, d["hands"][1][0]), r"appears twice"),
    (lambda d: d["table"].__setitem__(3, d["hands"][0][5]), r"appears twice"),
    (lambda d: d["hands"][1].pop(), r"hand of seat 1 must hold 12 cards, got 11"),
    (lambda d: d["hands"][3].append("A-coins"), r"hand of seat 3 must hold 12 cards, got 13"),
    (lambda d: d["table"].pop(), r"table must hold 4 cards, got 3"),
    (lambda d: d["hands"][0].__setitem__(4, "11-coins"), r"unknown card '11-coins'"),
    (lambda d: d["table"].__setitem__(0, "knight-cups"), r"unknown card 'knight-cups'"),
    (lambda d: d["hands"][0].__setitem__(4, 7), r"unknown card 7"),
    (lambda d: d.__setitem__("dealer", 4), r"dealer must be an int 0\.\.3, got 4"),
    (lambda d: d.__setitem__("dealer", -1), r"dealer must be an int 0\.\.3, got -1"),
    (lambda d: d.__setitem__("dealer", "0"), r"dealer must be an int 0\.\.3, got '0'"),
    (lambda d: d.__setitem__("dealer", True), r"dealer must be an int 0\.\.3, got True"),
    (lambda d: d.pop("table"), r"missing 'table'"),
    (lambda d: d.__setitem__("hands", d["hands"][:3]), r"'hands' must be a list of 4 hands"),
])
def test_malformed_deal_raises_value_error(change, message):
    env = cavallo_env.raw_env()
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deal": with_change(change)})


def test_malformed_deal_through_the_wrappers():
    env = cavallo_env.env()
    with pytest.raises(ValueError, match="appears twice"):
        env.reset(options={"deal": with_change(lambda d: d["hands"][2].__setitem__(0, d["hands"][1][0]))})


def test_deal_and_options_must_be_dicts():
    env = cavallo_env.raw_env()
    with pytest.raises(ValueError, match="deal must be a dict"):
        env.reset(options={"deal": [["A-coins"]]})
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options=["deal"])


def test_unknown_option_keys_are_reported():
    env = cavallo_env.raw_env()
    with pytest.warns(UserWarning, match=r"ignoring unknown option\(s\) 'hands'.*known: 'deal'"):
        env.reset(seed=1, options={"hands": []})
    assert env.agents == list(AGENTS)  # still a fresh random deal


def test_a_bad_deal_leaves_the_env_usable():
    env = cavallo_env.raw_env()
    env.reset(seed=4)
    before = env.record()
    with pytest.raises(ValueError):
        env.reset(options={"deal": with_change(lambda d: d["table"].pop())})
    assert env.record() == before
    env.step(env.legal_actions()[0])


# ---------------------------------------------------------------- illegal actions


def test_illegal_action_raw_names_action_agent_and_legal_actions():
    env = cavallo_env.raw_env()
    env.reset(seed=21)
    agent = env.agent_selection
    legal = env.legal_actions()
    illegal = next(a for a in range(156) if a not in legal)
    before = env.state()
    with pytest.raises(ValueError) as err:
        env.step(illegal)
    msg = str(err.value)
    assert f"illegal action {illegal} ({action_name(illegal)})" in msg
    assert f"by {agent} (seat {AGENTS.index(agent)}" in msg
    for a in legal:
        assert f"{a} ({action_name(a)})" in msg
    # nothing changed: the same agent can go on
    assert np.array_equal(env.state(), before) and env.agent_selection == agent
    env.step(legal[0])


@pytest.mark.parametrize("bad", [156, -1, 1000])
def test_out_of_range_action_raw(bad):
    env = cavallo_env.raw_env()
    env.reset(seed=2)
    with pytest.raises(ValueError, match=rf"illegal action {bad} \(invalid action {bad}\)"):
        env.step(bad)


@pytest.mark.parametrize("bad", [1.0, "3", True, None, [3], np.float32(2)])
def test_non_integer_action_raw(bad):
    env = cavallo_env.raw_env()
    env.reset(seed=2)
    with pytest.raises(ValueError, match="an action must be an int in 0..155"):
        env.step(bad)


def test_numpy_integer_actions_are_accepted():
    env = cavallo_env.raw_env()
    env.reset(seed=8)
    a = env.legal_actions()[0]
    env.step(np.int64(a))
    env.step(np.array(env.legal_actions()[0], dtype=np.int32))
    assert all(isinstance(mv["seat"], int) for mv in env.record()["moves"])
    json.dumps(env.record())


def test_illegal_capture_building_action_raw():
    # 10-coins on 4-coins, A-cups, 5-cups, 6-swords: both sets start with 4-coins
    env = cavallo_env.raw_env()
    env.reset(options={"deal": capture_choice_deal()})
    env.step(CAPTURE + card_id("10-coins"))
    with pytest.raises(ValueError, match=r"illegal action 121 \(take 5-cups\) by player_0 \(seat 0, building a "
                                         r"capture with 10-coins\); legal actions: \[107 \(take 4-coins\)\]"):
        env.step(TAKE + card_id("5-cups"))


def test_illegal_action_wrapped_terminates_with_minus_one():
    env = cavallo_env.env()
    env.reset(seed=21)
    agent = env.agent_selection
    legal = env.unwrapped.legal_actions()
    illegal = next(a for a in range(156) if a not in legal)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1 and env._cumulative_rewards[agent] == -1
    assert all(env.rewards[a] == 0 for a in AGENTS if a != agent)
    seen = {}
    for a in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        assert term or trunc
        assert not obs["action_mask"].any()
        seen[a] = reward
        env.step(None)
    assert seen == {a: (-1 if a == agent else 0) for a in AGENTS}
    # a new deal starts cleanly
    env.reset(seed=3)
    assert not any(env.terminations.values())


def test_out_of_bounds_action_wrapped_asserts():
    env = cavallo_env.env()
    env.reset(seed=1)
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(156)


# ---------------------------------------------------------------- capture building


def capture_choice_deal():
    """Seat 0 plays first holding 10-coins; the table offers 3 capture sets for it."""
    first = ["10-coins", "2-coins", "3-coins", "5-coins", "6-coins", "7-coins", "8-coins",
             "9-coins", "F-coins", "C-coins", "R-coins", "A-coins"]
    table = ["4-coins", "A-cups", "5-cups", "6-swords"]
    rest = [n for n in NAMES if n not in first and n not in table]
    return {"hands": [first, rest[:12], rest[12:24], rest[24:36]], "table": table, "dealer": 3}


def test_capture_building_keeps_the_agent_selected():
    env = cavallo_env.raw_env()
    env.reset(options={"deal": capture_choice_deal()})
    assert env.agent_selection == "player_0"
    ten = card_id("10-coins")
    # sets of 10-coins: (4-coins, A-cups, 5-cups), (4-coins, 6-swords): both start with 4-coins
    assert CAPTURE + ten in env.legal_actions()
    env.step(CAPTURE + ten)
    assert env.agent_selection == "player_0"
    obs = env.observe("player_0")
    assert np.flatnonzero(obs["action_mask"]).tolist() == [TAKE + card_id("4-coins")]
    lo, n = OBS_LAYOUT["capture_card"]
    assert obs["observation"][lo + ten] == 1
    assert not env.observe("player_1")["observation"][lo:lo + n].any(), "others do not see the capture being built"
    env.step(TAKE + card_id("4-coins"))
    assert env.agent_selection == "player_0"
    assert env.legal_actions() == [TAKE + card_id("A-cups"), TAKE + card_id("6-swords")]
    lo_t, _ = OBS_LAYOUT["capture_taken"]
    assert env.observe("player_0")["observation"][lo_t + card_id("4-coins")] == 1
    env.step(TAKE + card_id("6-swords"))  # unique now: executed
    assert env.agent_selection == "player_1"
    assert env.record()["moves"] == [{"seat": 0, "play": "10-coins", "capture": ["4-coins", "6-swords"]}]
    assert not env.observe("player_1")["observation"][lo:lo_t + 52].any()


# ---------------------------------------------------------------- rewards


@pytest.mark.parametrize("reward", ["points", "win"])
def test_rewards_zero_until_the_end_and_teams_sum_to_zero(reward):
    env = cavallo_env.raw_env(reward=reward)
    rng = random.Random(5)
    for seed in range(6):
        env.reset(seed=seed)
        while not env.terminations[env.agent_selection]:
            assert all(r == 0 for r in env.rewards.values())
            assert all(r == 0 for r in env._cumulative_rewards.values())
            env.step(rng.choice(env.legal_actions()))
        r = [env.rewards[a] for a in AGENTS]
        assert r[0] == r[2] and r[1] == r[3] and r[0] + r[1] == 0
        tp = env.infos["player_0"]["result"]["team_points"]
        diff = tp[0] - tp[1]
        if reward == "points":
            assert r[0] == diff
        else:
            assert r[0] == (diff > 0) - (diff < 0) and r[0] in (-1, 0, 1)
        assert all(isinstance(v, float) for v in r)


# ---------------------------------------------------------------- hidden information


def hidden_variant(record, seat, rng):
    """The same deal, with the cards still in the other hands after ``record``'s
    moves dealt differently among those hands (same hand sizes)."""
    played = {}
    for mv in record["moves"]:
        played.setdefault(mv["seat"], []).append(mv["play"])
    others = [s for s in range(4) if s != seat]
    remaining = {s: [n for n in record["hands"][s] if n not in played.get(s, [])] for s in others}
    pool = [n for s in others for n in remaining[s]]
    for _ in range(20):
        rng.shuffle(pool)
        new, i = {}, 0
        for s in others:
            new[s] = pool[i:i + len(remaining[s])]
            i += len(remaining[s])
        if any(set(new[s]) != set(remaining[s]) for s in others):
            break
    hands = [list(h) for h in record["hands"]]
    for s in others:
        hands[s] = played.get(s, []) + new[s]
    return {"hands": hands, "table": record["table"], "dealer": record["dealer"]}


def test_observation_hides_the_other_hands():
    rng = random.Random(1234)
    checked = differs = 0
    for trial in range(40):
        env = cavallo_env.raw_env()
        env.reset(seed=trial)
        cut = rng.randrange(0, 44)  # actions to play before the checked point
        actions = []
        # stop between turns: a card being captured with is not in the record yet
        while (len(actions) < cut or env.game.building is not None) and not env.terminations[env.agent_selection]:
            a = rng.choice(env.legal_actions())
            env.step(a)
            actions.append(a)
        seat = rng.randrange(4)
        rec = env.record()
        variant = hidden_variant(rec, seat, rng)
        if variant["hands"] == rec["hands"]:
            continue
        twin = cavallo_env.raw_env()
        twin.reset(options={"deal": variant})
        one = cavallo_env.raw_env()
        one.reset(options={"deal": deal_of(rec)})
        agent = f"player_{seat}"
        for a in actions + [None]:
            for env_ in (one, twin):
                assert env_.agent_selection == one.agent_selection
            o1, o2 = one.observe(agent), twin.observe(agent)
            assert np.array_equal(o1["observation"], o2["observation"]), f"trial {trial}: {agent} can tell the deals apart"
            assert np.array_equal(o1["action_mask"], o2["action_mask"])
            checked += 1
            if not np.array_equal(one.state(), twin.state()):
                differs += 1
            if a is not None:
                one.step(a)
                twin.step(a)
        # the other seats' views do change: the test can tell hidden cards apart
        changed = [s for s in range(4) if s != seat and variant["hands"][s] != rec["hands"][s]]
        assert any(not np.array_equal(one.observe(f"player_{s}")["observation"],
                                      twin.observe(f"player_{s}")["observation"]) for s in changed)
    assert checked > 300 and differs == checked


# ---------------------------------------------------------------- copies


def test_deepcopy_is_independent():
    rng = random.Random(3)
    env = cavallo_env.raw_env(render_mode="ansi")
    env.reset(seed=31)
    random_actions(env, rng, 17)
    twin = copy.deepcopy(env)
    assert twin.record() == env.record() and np.array_equal(twin.state(), env.state())
    for agent in AGENTS:
        assert np.array_equal(twin.observe(agent)["observation"], env.observe(agent)["observation"])
    snapshot = (env.record(), env.state(), env.agent_selection, env.render())
    random_actions(twin, rng)  # the copy plays to the end
    assert all(twin.terminations.values())
    assert env.record() == snapshot[0] and np.array_equal(env.state(), snapshot[1])
    assert env.agent_selection == snapshot[2] and env.render() == snapshot[3]
    assert not any(env.terminations.values()) and all(r == 0 for r in env.rewards.values())
    random_actions(env, random.Random(99))  # and the original differently
    assert env.record()["moves"] != twin.record()["moves"]
    # the generators are copied too: equal streams, advanced separately
    a, b = copy.deepcopy(env), copy.deepcopy(env)
    a.reset()
    b.reset()
    b.reset()
    env.reset()
    assert env.record()["hands"] == a.record()["hands"] != b.record()["hands"]


def test_deepcopy_mid_capture_and_at_the_end():
    env = cavallo_env.raw_env()
    env.reset(options={"deal": capture_choice_deal()})
    env.step(CAPTURE + card_id("10-coins"))
    twin = copy.deepcopy(env)
    env.step(TAKE + card_id("4-coins"))
    assert twin.legal_actions() == [TAKE + card_id("4-coins")]
    assert twin.game.building[1] == ()
    twin.step(TAKE + card_id("4-coins"))
    twin.step(TAKE + card_id("A-cups"))
    env.step(TAKE + card_id("6-swords"))
    assert twin.record()["moves"][0]["capture"] == ["4-coins", "A-cups", "5-cups"]
    assert env.record()["moves"][0]["capture"] == ["4-coins", "6-swords"]
    random_actions(env, random.Random(1))
    done = copy.deepcopy(env)
    done.infos["player_0"]["result"]["team_points"][0] += 100
    assert env.infos["player_0"]["result"] == env.game.state.result()


def test_deepcopy_of_the_wrapped_env():
    env = cavallo_env.env()
    env.reset(seed=12)
    twin = copy.deepcopy(env)
    twin.step(twin.unwrapped.legal_actions()[0])
    assert env.unwrapped.game.state.turn == 0 and twin.unwrapped.game.state.turn == 1


def test_pickle_round_trip():
    env = cavallo_env.raw_env()
    env.reset(seed=6)
    random_actions(env, random.Random(6), 9)
    back = pickle.loads(pickle.dumps(env))
    assert back.record() == env.record() and np.array_equal(back.state(), env.state())
    a = back.legal_actions()[0]
    back.step(a)
    env.step(a)
    assert back.record() == env.record()


# ---------------------------------------------------------------- rendering


def test_render_ansi_shows_the_deal():
    env = cavallo_env.raw_env(render_mode="ansi")
    env.reset(seed=17)
    text = env.render()
    assert isinstance(text, str)
    table_line = next(line for line in text.splitlines() if line.startswith("Table:"))
    for name in env.record()["table"]:
        assert name in table_line
    for seat, hand in enumerate(env.record()["hands"]):
        assert all(n in text for n in hand)
        assert f"seat {seat}" in text
    random_actions(env, random.Random(2), 5)
    assert "Last move: seat" in env.render()
    random_actions(env, random.Random(2))
    final = env.render()
    tp = env.infos["player_0"]["result"]["team_points"]
    assert "Result:" in final and "most_cards" in final and "napula" in final
    assert "total" in final and str(tp[0]) in final and str(tp[1]) in final


def test_render_human_prints(capsys):
    env = cavallo_env.raw_env(render_mode="human")
    env.reset(seed=17)
    assert env.render() is None
    assert "Table:" in capsys.readouterr().out
    env.step(env.legal_actions()[0])
    assert "Last move" in capsys.readouterr().out


def test_render_without_mode_warns():
    env = cavallo_env.raw_env()
    env.reset(seed=1)
    with pytest.warns(UserWarning, match="render mode"):
        assert env.render() is None


# ---------------------------------------------------------------- layout


def test_observation_layout_constants():
    env = cavallo_env.raw_env()
    assert OBS_SIZE == 702 and STATE_SIZE == 1018
    assert OBS_VERSION == "cavalloicera-obs/1" and STATE_VERSION == "cavalloicera-state/1"
    assert env.observation_space("player_0")["observation"].shape == (OBS_SIZE,)
    assert sum(n for _, n in OBS_LAYOUT.values()) == OBS_SIZE
    env.reset(seed=0)
    assert env.state().shape == (STATE_SIZE,)


def test_observation_blocks_match_the_game():
    env = cavallo_env.raw_env()
    rng = random.Random(8)
    env.reset(seed=8)
    random_actions(env, rng, 20)
    state = env.game.state
    agent = env.agent_selection
    seat = AGENTS.index(agent)
    obs = env.observe(agent)["observation"]

    def block(name):
        lo, n = OBS_LAYOUT[name]
        return obs[lo:lo + n]

    assert np.flatnonzero(block("hand")).tolist() == sorted(state.hands[seat])
    assert np.flatnonzero(block("table")).tolist() == sorted(state.table)
    assert np.flatnonzero(block("pile_ours")).tolist() == sorted(state.piles[seat % 2])
    assert np.flatnonzero(block("pile_theirs")).tolist() == sorted(state.piles[1 - seat % 2])
    assert block("hand_sizes").tolist() == [np.float32(len(state.hands[(seat + k) % 4]) / 12) for k in range(4)]
    assert block("turn")[0] == np.float32(state.turn / 48)
    high = env.observation_space(agent)["observation"].high
    assert np.all(obs >= 0) and np.all(obs <= high)


def test_bonus_counts_stay_inside_the_observation_space():
    # a team can score a bonus on each of its 24 turns: the space allows it
    high = cavallo_env.raw_env().observation_space("player_0")["observation"].high
    lo, n = OBS_LAYOUT["bonuses_ours"]
    assert np.allclose(high[lo:lo + n], 2.4)
    lo_t, _ = OBS_LAYOUT["table"]
    assert high[lo_t] == 1


def test_a_whole_record_or_record_deal_is_a_valid_deal_option():
    # The contract says a record's hands/table/dealer (Scopa: an entry of its deals) are
    # such a deal: passing the record (or the entry) itself, moves and result included, works.
    from cavallo_env import scopa

    here = Path(__file__).parent
    rec = json.loads((here / "vectors-cavalloicera" / "04_random.json").read_text())
    env = cavallo_env.raw_env()
    env.reset(options={"deal": rec})
    got = env.record()
    assert (got["hands"], got["table"], got["dealer"]) == (rec["hands"], rec["table"], rec["dealer"])
    srec = json.loads(next((here / "vectors-scopa").glob("00_*.json")).read_text())
    senv = scopa.raw_env(deck=srec["deck"], match=srec["match"])
    senv.reset(options={"deal": srec["deals"][0]})
    d = senv.record()["deals"][0]
    assert {k: d[k] for k in ("dealer", "hands", "table", "stock")} == \
        {k: srec["deals"][0][k] for k in ("dealer", "hands", "table", "stock")}
