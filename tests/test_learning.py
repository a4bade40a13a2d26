"""The learning interface of every game (``cavallo_env.games.learning``): ``game.learning()``,
its tables, observations (the env's, bit for bit), the heuristic prior and ``decide_move``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cavallo_env import games
from cavallo_env.bots import make
from cavallo_env.games.learning import Learning, Table, decide_move

GAMES = ("cavalloicera", "briscola", "scopa")

EXPECTED = {
    "cavalloicera": dict(obs_size=702, num_actions=156, prior_size=312, obs_version="cavalloicera-obs/1",
                         action_version="cavalloicera-actions/1", prior_version="heuristic-prior/1", num_seats=4),
    "briscola": dict(obs_size=376, num_actions=40, prior_size=80, obs_version="briscola-obs/1",
                     action_version="briscola-actions/1", prior_version="briscola-prior/1", num_seats=2),
    "scopa": dict(obs_size=388, num_actions=120, prior_size=240, obs_version="scopa-obs/1",
                  action_version="scopa-actions/1", prior_version="scopa-prior/1", num_seats=2),
}


def _learning(name) -> Learning:
    return games.get(name).learning()


def _building(table):
    """The capture being built at ``table`` (None between turns; Briscola never builds)."""
    game = getattr(table, "game", None)
    return getattr(game, "building", None)


def _options(name, i):
    """Deal options covering each game's variants."""
    if name == "briscola":
        return {"deck": ("milanesi", "bresciane")[i % 2]}
    if name == "scopa":
        return [{}, {"match": False}, {"deck": "bresciane"}, {"deck": "bresciane", "match": False}][i % 4]
    return {}


def _heuristic_view_move(name, bot, state):
    game = games.get(name)
    view = game.make_view(state, state.current)
    return game.move_from_dict(bot.choose(view), game.deck_of(view))


# ------------------------------------------------------------------ sizes, deals


@pytest.mark.parametrize("name", GAMES)
def test_sizes_and_versions(name):
    L = _learning(name)
    assert isinstance(L, Learning) and L.game == name
    exp = EXPECTED[name]
    for k, v in exp.items():
        assert getattr(L, k) == v, k
    assert L.sizes() == {"game": name, **{k: v for k, v in exp.items() if k != "num_seats"}}
    assert L.num_seats == games.get(name).num_seats
    assert [L.team_of(s) for s in range(L.num_seats)] == [games.get(name).team_of(s) for s in range(L.num_seats)]
    env = games.get(name).raw_env()
    agent = env.possible_agents[0]
    assert env.observation_space(agent)["observation"].shape == (L.obs_size,)
    assert env.action_space(agent).n == L.num_actions
    assert env.metadata.get("observation_version", L.obs_version) == L.obs_version
    assert env.metadata.get("action_version", L.action_version) == L.action_version
    module = games.get(name).module("prior")
    assert module.PRIOR_SIZE == L.prior_size and module.PRIOR_VERSION == L.prior_version


@pytest.mark.parametrize("name", GAMES)
def test_deal_is_new_state(name):
    game = games.get(name)
    L = _learning(name)
    for seed in range(4):
        opts = _options(name, seed)
        a, b = L.deal(seed, **opts), game.new_state(seed=seed, **opts)
        assert type(a) is type(b)
        assert game.to_record(a) == game.to_record(b)
        # the same random continuation gives the same game (Scopa: the same later deals of the match)
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        while not a.done:
            game.play(a, rng_a.choice(a.legal_moves()))
            game.play(b, rng_b.choice(b.legal_moves()))
        assert b.done and game.to_record(a) == game.to_record(b)


# ------------------------------------------------------------------ playouts


@pytest.mark.parametrize("name", GAMES)
def test_random_playouts_stay_legal_and_returns_sum_to_zero(name):
    game = games.get(name)
    L = _learning(name)
    n_games = 2 if name == "cavalloicera" else 6
    for seed in range(n_games):
        state = L.deal(seed, **_options(name, seed))
        shadow = state.copy()  # replays the completed moves through the game's own checks
        table = L.table(state)
        assert isinstance(table, Table)
        rng = random.Random(seed)
        while not table.done:
            acts = table.legal_actions()
            assert acts and acts == sorted(set(acts)) and 0 <= acts[0] and acts[-1] < L.num_actions
            seat = table.current
            if _building(table) is None:  # a new turn: every legal move is reachable through its actions
                legal = shadow.legal_moves()
                assert seat == shadow.current
                first = {table.move_actions(m)[0] for m in legal}
                assert first == set(acts)
            move = table.step(rng.choice(acts))
            if move is None:
                assert table.current == seat and not table.done  # the same seat builds on
                continue
            assert game.check_move(shadow, move) is None
            game.play(shadow, move)
            assert game.to_record(shadow) == game.to_record(table.state)
        assert shadow.done
        for reward in ("points", "win"):
            r = table.returns(reward)
            assert len(r) == 2 and sum(r) == 0
            full = game.returns(table.state, reward)
            assert r == [full[0], full[1]]
        assert abs(table.returns("win")[0]) <= 1.0


# ------------------------------------------------------------------ observations == the env's


def _deal_dict(name, state):
    rec = games.get(name).to_record(state)
    if name == "briscola":
        return {k: rec[k] for k in ("hands", "trump", "stock", "leader")}
    if name == "scopa":
        return {k: rec["deals"][0][k] for k in ("dealer", "hands", "table", "stock")}
    return {k: rec[k] for k in ("dealer", "hands", "table")}


def _env_like(name, state, reward):
    """The game's raw env reset to the start of ``state`` (Scopa: with the same later deals)."""
    kwargs = {"reward": reward}
    if name in ("briscola", "scopa"):
        kwargs["deck"] = state.deck
    if name == "scopa":
        kwargs["match"] = state.match
    env = games.get(name).raw_env(**kwargs)
    env.reset(seed=0, options={"deal": _deal_dict(name, state)})
    if name == "scopa" and state.match:  # the env draws later deals from its own generator: use the state's
        rng = random.Random()
        rng.setstate(state.rng.getstate())
        env.core.state.rng = rng
    return env


@pytest.mark.parametrize("name", GAMES)
def test_observations_and_rewards_are_the_envs(name):
    L = _learning(name)
    configs = [(seed, reward) for seed, reward in ((0, "points"), (1, "win"))] if name == "cavalloicera" else \
        [(seed, ("points", "win")[seed % 2]) for seed in range(6)]
    built = 0
    for seed, reward in configs:
        state = L.deal(100 + seed, **_options(name, seed))
        env = _env_like(name, state, reward)
        table = L.table(state)
        agents = env.possible_agents
        out = np.full(L.obs_size, -1.0, np.float32)
        total = [0.0] * len(agents)
        rng = random.Random(seed)
        deals = 0
        while True:
            for s, agent in enumerate(agents):
                if name == "cavalloicera" and s != table.current and _building(table) is not None:
                    continue  # see test_cavalloicera_bystanders_do_not_see_the_capture_being_built
                table.observation(s, out)
                assert np.array_equal(out, env.observe(agent)["observation"]), (name, seed, s)
            if table.done:
                break
            acts = table.legal_actions()
            assert agents[table.current] == env.agent_selection
            assert acts == [int(a) for a in np.flatnonzero(env.observe(env.agent_selection)["action_mask"])]
            a = rng.choice(acts)
            if table.step(a) is None:
                built += 1
            env.step(a)
            for s, agent in enumerate(agents):
                total[s] += env.rewards[agent]
            if name == "scopa":
                deals = max(deals, len(table.state.results))
        assert all(env.terminations.values())
        r = table.returns(reward)
        assert total[0] == r[0] and total[1] == r[1]
        if name == "scopa" and state.match:
            assert deals >= 2  # observations were compared across the deals of a match
    if name != "briscola":
        assert built > 0  # capture-building sub-steps were compared


def test_cavalloicera_bystanders_do_not_see_the_capture_being_built():
    L = _learning("cavalloicera")
    state = L.deal(100)
    env = _env_like("cavalloicera", state, "points")
    table = L.table(state)
    out = np.zeros(L.obs_size, np.float32)
    rng = random.Random(0)
    bystanders = 0
    while not table.done:
        if _building(table) is not None:
            for s, agent in enumerate(env.possible_agents):
                if s != table.current:
                    table.observation(s, out)
                    assert np.array_equal(out, env.observe(agent)["observation"])
                    bystanders += 1
        a = rng.choice(table.legal_actions())
        table.step(a)
        env.step(a)
    assert bystanders > 0


# ------------------------------------------------------------------ the prior


def _prior_walk(name, n_games, seed, follow=0.6):
    """Yield ``(table, prior, acts)`` at every action of ``n_games`` games where each turn the
    seat follows the prior's choice (probability ``follow``) or acts at random; checks the
    choice leads to ``heuristic_move()``."""
    L = _learning(name)
    rng = random.Random(seed)
    prior = np.full(L.prior_size, 7.0, np.float32)
    for g in range(n_games):
        table = L.table(L.deal(seed * 1000 + g, **_options(name, g)))
        while not table.done:
            follow_turn = rng.random() < follow
            target = table.heuristic_move()
            while True:
                acts = table.legal_actions()
                table.prior(prior)
                yield table, prior, acts
                choice = int(np.argmax(prior[L.num_actions:]))
                move = table.step(choice if follow_turn else rng.choice(acts))
                if move is not None:
                    if follow_turn:
                        assert move == target
                    break


@pytest.mark.parametrize("name", GAMES)
def test_prior_is_well_formed_and_chooses_the_heuristic_move(name):
    L = _learning(name)
    clip = games.get(name).module("prior").CLIP
    n = 0
    for table, prior, acts in _prior_walk(name, 3 if name == "cavalloicera" else 8, seed=1):
        A = L.num_actions
        assert prior.shape == (L.prior_size,) and prior.dtype == np.float32
        score, choice = prior[:A], prior[A:]
        illegal = np.ones(A, bool)
        illegal[acts] = False
        assert (score[illegal] == 0).all() and (choice[illegal] == 0).all()
        assert (choice != 0).sum() == 1 and choice.sum() == 1.0
        c = int(np.argmax(choice))
        assert c in acts and score[c] == 0  # the choice leads to a best-scored move
        assert score[acts].max() == 0 and score[acts].min() >= -clip
        again = np.zeros(L.prior_size, np.float32)
        fresh = L.table(table.state.copy()) if _building(table) is None else None
        if fresh is not None:  # a table without the turn's cache gives the same prior
            fresh.prior(again)
            assert np.array_equal(again, prior)
        n += 1
    assert n >= 140


@pytest.mark.parametrize("name", GAMES)
def test_heuristic_move_is_the_bots(name):
    bot = make("heuristic", game=name)
    n = 0
    for table, _, _ in _prior_walk(name, 4 if name == "cavalloicera" else 12, seed=2, follow=0.5):
        if _building(table) is None:
            assert table.heuristic_move() == _heuristic_view_move(name, bot, table.state)
            n += 1
    assert n >= 190


@pytest.mark.parametrize("name", ["briscola", "scopa"])
def test_state_scores_are_the_view_scores(name):
    """The heuristic's knowledge and scores built from the state equal those the bot builds from the view."""
    game = games.get(name)
    n = 0
    for table, _, _ in _prior_walk(name, 5, seed=4, follow=0.5):
        if _building(table) is not None:
            continue
        state = table.state
        view = game.make_view(state, state.current)
        legal = game.legal_moves_of(view)
        assert legal == list(state.legal_moves())
        if name == "briscola":
            from cavallo_env.briscola.bots import HeuristicBot, Know

            a, b = Know.from_state(state, state.current), Know.from_view(view)
            bot = HeuristicBot()
            assert bot.know_scores(a, legal) == bot.move_scores(view, legal)
        else:
            from cavallo_env.scopa.bots import Info, heuristic_scores
            from cavallo_env.scopa.prior import info_of

            a, b = info_of(state), Info(view)
            assert heuristic_scores(a, legal) == heuristic_scores(b, legal)
        for slot in type(a).__slots__:
            x, y = getattr(a, slot), getattr(b, slot)
            if name == "briscola" and slot == "hand":  # the view lists the hand sorted, the state as drawn
                x, y = sorted(x), sorted(y)
            assert x == y, slot
        n += 1
    assert n >= 100


def _redeal_scopa(state, rng):
    """A copy of a Scopa state whose cards hidden from the seat to play (the other hand
    and the stock) are dealt differently; everything the seat sees is unchanged."""
    s = state.copy()
    deal = s.deal
    other = 1 - deal.current
    p = deal.stock_pos
    pool = list(deal.hands[other]) + list(deal.initial_stock[p:])
    rng.shuffle(pool)
    n = len(deal.hands[other])
    deal.hands[other] = sorted(pool[:n])
    deal.initial_stock = tuple(deal.initial_stock[:p]) + tuple(pool[n:])
    deal._legal = deal._caps = None
    return s


def _redeal(name, state, rng):
    if name == "briscola":
        s = state.copy()
        s.redeal_hidden(s.current, rng)
        return s
    return _redeal_scopa(state, rng)


def _hidden(name, state):
    if name == "briscola":
        return state.hands[1 - state.current], state.stock
    deal = state.deal
    return deal.hands[1 - deal.current], deal.initial_stock[deal.stock_pos:]


@pytest.mark.parametrize("name", ["briscola", "scopa"])
def test_prior_and_heuristic_move_see_nothing_hidden(name):
    L = _learning(name)
    rng = random.Random(7)
    a_prior = np.zeros(L.prior_size, np.float32)
    b_prior = np.zeros(L.prior_size, np.float32)
    a_obs = np.zeros(L.obs_size, np.float32)
    b_obs = np.zeros(L.obs_size, np.float32)
    compared = changed = positions = building = 0
    for g in range(40):
        state = L.deal(500 + g, **_options(name, g))
        plies = rng.randrange(0, 40 if name == "briscola" else 36)
        for _ in range(plies):
            if state.done:
                break
            games.get(name).play(state, rng.choice(state.legal_moves()))
        if state.done or len(state.legal_moves()) < 2:
            continue
        a = L.table(state)
        b = L.table(_redeal(name, state, rng))
        seat = a.current
        assert b.current == seat
        positions += 1
        changed += _hidden(name, a.state) != _hidden(name, b.state)
        follow = rng.random() < 0.5
        while True:  # the turn, capture-building steps included, along the prior's choice or at random
            a.prior(a_prior)
            b.prior(b_prior)
            assert np.array_equal(a_prior, b_prior)
            a.observation(seat, a_obs)
            b.observation(seat, b_obs)
            assert np.array_equal(a_obs, b_obs)
            assert a.legal_actions() == b.legal_actions()
            compared += 1
            building += _building(a) is not None
            if _building(a) is None:
                assert a.heuristic_move() == b.heuristic_move()
            acts = a.legal_actions()
            act = int(np.argmax(a_prior[L.num_actions:])) if follow else rng.choice(acts)
            ma, mb = a.step(act), b.step(act)
            assert ma == mb
            if ma is not None:
                break
    assert positions >= 15 and changed >= positions // 2 and compared >= positions
    assert name == "briscola" or building > 0


# ------------------------------------------------------------------ decide_move


@pytest.mark.parametrize("name", GAMES)
def test_decide_move_with_first_legal_action(name):
    L = _learning(name)
    game = games.get(name)
    calls = []

    def pick(obs, mask, prior, acts):
        assert obs.shape == (1, L.obs_size) and mask.shape == (1, L.num_actions)
        assert list(np.flatnonzero(mask[0])) == acts
        if prior is not None:
            assert prior.shape == (1, L.prior_size) and prior[0, L.num_actions:].sum() == 1.0
        calls.append(len(acts))
        return acts[0]

    rng = random.Random(3)
    moves = 0
    for g in range(2 if name == "cavalloicera" else 4):
        table = L.table(L.deal(900 + g, **_options(name, g)))
        while not table.done and moves < 30 * (g + 1):
            state = table.state
            legal = list(state.legal_moves())
            before = state.copy()
            move = decide_move(table, pick, moves % 2 == 0, L)
            assert move in legal and game.check_move(before, move) is None
            # the move the first legal action at every step leads to
            other = L.table(before)
            while True:
                done = other.step(other.legal_actions()[0])
                if done is not None:
                    break
            assert done == move
            moves += 1
            if not table.done and rng.random() < 0.5:  # mix in the heuristic's moves
                for a in table.move_actions(table.heuristic_move()):
                    table.step(a)
    assert calls and moves >= 60
