"""Expert iteration (``cavallo expert``, training/expert*.py): a 2-generation run, resume bit for bit,
the data's targets, the expert bot, and the config's errors."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
yaml = pytest.importorskip("yaml")

from cavallo_env import core, games  # noqa: E402
from cavallo_env.bots import BotSpecError, make  # noqa: E402
from cavallo_env.cli import main  # noqa: E402
from training import checkpoint as ckpt  # noqa: E402
from training import expert_log  # noqa: E402
from training.config import ConfigError  # noqa: E402
from training.expert_bot import move_logprobs, q_weights  # noqa: E402
from training.expert_config import ExpertConfig, from_dict, load  # noqa: E402
from training.expert_play import draw_deals, play_chunk, self_play  # noqa: E402
from training.model import ModelConfig, build_policy  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "configs" / "expert-quick-briscola.yaml"
torch.set_num_threads(1)


def quick() -> dict:
    return yaml.safe_load(QUICK.read_text(encoding="utf-8"))


def weights_sha(run_dir: Path, name: str) -> str:
    return json.loads((run_dir / "checkpoints" / f"{name}.json").read_text())["weights_sha256"]


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    """The quick config's 2 generations in one go."""
    run_dir = tmp_path_factory.mktemp("expert") / "run"
    assert main(["expert", "--config", str(QUICK), "--out", str(run_dir), "--no-progress"]) == 0
    return run_dir


def png_width(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[16:20], "big")  # the IHDR chunk's width


def test_the_curve_draws_a_panel_only_for_who_was_evaluated(full_run, tmp_path):
    """A run that evaluates the network alone (``eval.expert_deals: 0``) gets one panel, not an empty second."""
    pytest.importorskip("matplotlib")
    evals = json.loads((full_run / "checkpoints" / "last.json").read_text())["evals"]
    both = expert_log.plot(full_run, evals, out=tmp_path / "both.png")
    net = expert_log.plot(full_run, [e for e in evals if e["who"] == "net"], out=tmp_path / "net.png")
    assert {e["who"] for e in evals} == {"net", "expert"}
    assert png_width(net) * 2 == png_width(both)
    expert = expert_log.plot(full_run, [e for e in evals if e["who"] == "expert"], out=tmp_path / "expert.png")
    none = expert_log.plot(full_run, [], out=tmp_path / "none.png")  # before the first evaluation: one empty panel
    assert png_width(expert) == png_width(none) == png_width(net)


def test_a_quick_run_writes_every_generation(full_run):
    rows = list(csv.DictReader(open(full_run / "metrics.csv", encoding="utf-8")))
    assert [r["generation"] for r in rows] == ["0", "1", "2"]
    assert all(r["net_greedy_score"] and r["expert_heuristic_score"] for r in rows)  # eval.every 1
    assert float(rows[2]["window_decisions"]) == float(rows[1]["decisions"]) + float(rows[2]["decisions"])
    assert (full_run / "expert_curve.png").stat().st_size > 1000
    for g in range(3):
        tensors, meta = ckpt.load(full_run / "checkpoints" / f"gen-{g:05d}.json")
        assert meta["kind"] == "model" and meta["step"] == g
    last = json.loads((full_run / "checkpoints" / "last.json").read_text())
    assert last["step"] == 2 and [e["generation"] for e in last["replay"]] == [1, 2]
    # each generation's network plays as a checkpoint: bot
    bot = make(f"checkpoint:{full_run / 'checkpoints' / 'gen-00002.json'}", seed=1, game="briscola")
    assert bot.game == "briscola"


def test_resume_continues_bit_for_bit(full_run, tmp_path):
    run_dir = tmp_path / "run"
    assert main(["expert", "--config", str(QUICK), "--out", str(run_dir), "--generations", "1", "--no-progress"]) == 0
    assert json.loads((run_dir / "checkpoints" / "last.json").read_text())["step"] == 1
    assert main(["expert", "--resume", str(run_dir), "--generations", "2", "--no-progress"]) == 0
    for name in ("gen-00001", "gen-00002"):
        assert weights_sha(run_dir, name) == weights_sha(full_run, name)
    for name in ("gen-00001.npz", "gen-00002.npz"):
        assert ckpt.file_sha256(run_dir / "replay" / name) == ckpt.file_sha256(full_run / "replay" / name)
    a, b = ckpt.load(run_dir / "checkpoints" / "last.json")[0], ckpt.load(full_run / "checkpoints" / "last.json")[0]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)  # weights, Adam, generators
    # a damaged replay file is refused with the file named, not trained on
    (run_dir / "replay" / "gen-00002.npz").write_bytes(b"x")
    assert main(["expert", "--resume", str(run_dir), "--generations", "3", "--no-progress"]) == 2


def test_visit_targets_are_distributions_over_legal_actions(full_run):
    with np.load(full_run / "replay" / "gen-00001.npz", allow_pickle=False) as z:
        targets, mask, prior = z["targets"], z["mask"], z["prior"]
    assert np.allclose(targets.sum(1), 1.0, atol=1e-6)
    assert (targets[mask == 0] == 0).all() and (targets >= 0).all()
    assert prior.shape[1] == games.get("briscola").learning().prior_size  # the network reads the prior
    # the search spread its visits: not every target is one-hot
    assert (targets.max(1) < 1).any()


def _replayed(data: dict, deal_seed: int):
    """The deal ``deal_seed`` replayed from the recorded actions: (deciding seats, final state)."""
    learning = games.get("briscola").learning()
    table = learning.table(learning.deal(deal_seed, deck="milanesi"))
    seats = []
    for a in data["actions"]:
        seats.append(table.current)
        assert data["mask"][len(seats) - 1][a] == 1
        table.step(int(a))
    assert table.done
    return seats, table.state


def test_soft_mixes_the_move_played_into_the_target():
    seeds = draw_deals(np.random.default_rng(5), 1, 2)
    visits = play_chunk(seeds, "briscola", {"deck": "milanesi"}, "ismcts:30", "points", 30.0, False, 1.0)
    mixed = play_chunk(seeds, "briscola", {"deck": "milanesi"}, "ismcts:30", "points", 30.0, False, 0.25)
    assert np.array_equal(visits["actions"], mixed["actions"])  # the same game
    played = np.eye(visits["mask"].shape[1], dtype=np.float32)[visits["actions"]]
    assert np.allclose(mixed["targets"], 0.25 * visits["targets"] + 0.75 * played, atol=1e-6)


@pytest.mark.parametrize("reward", ["points", "win"])
def test_value_targets_are_the_deciding_teams_result(reward):
    (deal_seed, bots), = draw_deals(np.random.default_rng(4), 1, 2)
    data = play_chunk([(deal_seed, bots)], "briscola", {"deck": "milanesi"}, "ismcts:20", reward, 30.0, False)
    assert len(data["returns"]) == 40  # Briscola: 40 cards, one decision each
    seats, state = _replayed(data, deal_seed)
    points = games.get("briscola").outcome(state)["points"]
    assert sum(points) == 120  # every card point goes to one team
    for seat, value in zip(seats, data["returns"]):
        mine, theirs = points[seat % 2], points[1 - seat % 2]
        want = (mine - theirs) / 30.0 if reward == "points" else float(np.sign(mine - theirs))
        assert value == pytest.approx(want)


def test_self_play_is_the_same_for_any_number_of_processes():
    seeds = draw_deals(np.random.default_rng(9), 6, 2)
    args = (seeds, "briscola", {"deck": "milanesi"}, "ismcts:10", "points", 30.0, True)
    one, two = self_play(*args, jobs=1), self_play(*args, jobs=2)
    assert one.keys() == two.keys() and all(np.array_equal(one[k], two[k]) for k in one)


@pytest.mark.parametrize("game", ["briscola", "scopa"])
def test_move_probabilities_of_the_network_sum_to_one(game):
    torch.manual_seed(0)
    learning = games.get(game).learning()
    net = build_policy(ModelConfig(hidden=[16], prior=True), learning)
    state = games.get(game).new_state(seed=11)
    for _ in range(12):  # positions along a greedy game, Scopa's captures included
        if state.done:
            break
        moves = state.legal_moves()
        logp = move_logprobs(net, learning, state, moves)
        assert set(logp) == set(moves)
        assert math.fsum(math.exp(v) for v in logp.values()) == pytest.approx(1.0, abs=1e-6)
        games.get(game).play(state, moves[len(moves) // 2])


def test_the_expert_bot_reads_a_network(full_run):
    path = full_run / "checkpoints" / "gen-00002.json"
    bot = make(f"expert:ismcts:30,root=ucb;bias=0.5;model={path}", seed=3, game="briscola")
    g = games.get("briscola")
    state = g.new_state(seed=2, deck="milanesi")
    move, visits = bot.move_and_visits(g.make_view(state, state.current), state.legal_moves())
    assert move in state.legal_moves() and sum(visits.values()) > 0
    # `cavallo eval` and the other commands play it by its spec
    assert main(["eval", f"expert:ismcts:20;bias=0.5;model={path}", "greedy", "--game", "briscola", "--deals", "1",
                 "--jobs", "1"]) == 0
    for bad, says in [("ismcts:30", "needs a search and a network"),
                      (f"greedy;model={path}", "must be an ismcts spec"),
                      (f"ismcts:30;depth=2;model={path}", "unknown expert option"),
                      (f"ismcts:30;bias=-1;model={path}", "bias must be in"),
                      (f"ismcts:30;target=policy;model={path}", "target must be visits or q"),
                      (f"ismcts:30;target=q;temp=0;model={path}", r"temp must be in \(0, 1000\]"),
                      (f"ismcts:30;temp=hot;model={path}", "temp must be a number")]:
        with pytest.raises(BotSpecError, match=says):
            make(f"expert:{bad}", seed=0)


def test_a_generation_ships_like_an_update(full_run, tmp_path, capsys):
    """``python -m training.ship`` on an expert run: the last generation, ``--generation N`` or the best one."""
    from training.ship import main as ship

    out = tmp_path / "shipped" / "briscola"
    assert ship([str(full_run), "--out", str(out), "--deals", "2", "--jobs", "1", "--match-deals", "0"]) == 0
    tensors, meta = ckpt.load(out)
    assert meta["step"] == 2 and meta["training"]["generation"] == 2 and meta["training"]["run_generations_total"] == 2
    assert meta["training"]["command"] == "cavallo expert --config configs/expert-quick-briscola.yaml"
    rows = list(csv.DictReader(open(full_run / "metrics.csv", encoding="utf-8")))
    assert meta["training"]["training_wall_s"] == float(rows[2]["wall_s"])  # to the end of generation 2
    assert {e["generation"] for e in meta["training"]["periodic_evals"]} == {0, 1, 2}  # generation 2's own too
    assert meta["training"]["start"]["weights_sha256"] == weights_sha(full_run, "gen-00000")
    assert set(tensors) == set(ckpt.load(full_run / "checkpoints" / "gen-00002.json")[0])
    assert [e["bot_b"] for e in meta["evals"]] == ["greedy", "heuristic"] and "| greedy | 2 |" in capsys.readouterr().out
    assert make(f"checkpoint:{out}.json", seed=0, game="briscola").game == "briscola"
    assert ship([str(full_run), "--generation", "1", "--out", str(out), "--deals", "1", "--jobs", "1"]) == 0
    assert ckpt.load(out)[1]["step"] == 1
    assert ship([str(full_run), "--pick", "best", "--pick-deals", "1", "--out", str(out), "--deals", "1",
                 "--jobs", "1"]) == 0
    sel = ckpt.load(out)[1]["training"]["selection"]
    assert [r["checkpoint"] for r in sel["results"]] == ["gen-00000.json", "gen-00001.json", "gen-00002.json"]
    for bad, says in [(["--generation", "7"], "gen-00007.json: no such generation"),
                      (["--update", "1"], "generations, not updates"),
                      (["--generation", "1", "--pick", "best"], "not both")]:
        with pytest.raises(SystemExit, match=says):
            ship([str(full_run), *bad, "--out", str(out)])


@pytest.mark.parametrize("change,says", [
    ({"generation": 3}, r"config: unknown key 'generation'"),
    ({"deals": 0}, r"config\.deals: must be >= 1"),
    ({"expert": {"search": "heuristic"}}, r"config\.expert\.search: an ismcts or search bot spec"),
    ({"expert": {"search": "ismcts:0"}}, r"config\.expert\.search: .*iteration count"),
    ({"expert": {"bias": -1}}, r"config\.expert\.bias: must be >= 0"),
    ({"expert": {"soft": 1.5}}, r"config\.expert\.soft: must be >= 0 and <= 1"),
    ({"expert": {"target": "policy"}}, r"config\.expert\.target: visits or q, got 'policy'"),
    ({"expert": {"target": "q", "temp": 0}}, r"config\.expert\.temp: must be > 0"),
    ({"expert": {"target": "q", "search": "search:briscola,ms=0,iterations=30"}},
     r"config\.expert\.target: q needs an ismcts search"),
    ({"train": {"window": 0}}, r"config\.train\.window: must be >= 1"),
    ({"eval": {"opponents": ["nobody"]}}, r"config\.eval\.opponents: unknown bot 'nobody'"),
    ({"reward": "money"}, r"config\.reward: points or win"),
    ({"init": "model.onnx"}, r"config\.init: scratch or a checkpoint's manifest"),
    ({"game": "tressette"}, r"config\.game: "),
])
def test_bad_configs_name_the_key(change, says):
    data = quick()
    for k, v in change.items():
        if isinstance(v, dict):
            data[k] = dict(data[k], **v)
        else:
            data[k] = v
    with pytest.raises(ConfigError, match=says):
        from_dict(data)


def test_an_init_checkpoint_must_fit_the_config(tmp_path, capsys):
    data = quick()
    for init, says in [(str(tmp_path / "none.json"), "checkpoint sidecar not found"),
                       ("checkpoints/scopa.json", "a network of scopa, but the config plays briscola"),
                       ("checkpoints/briscola.json", "is not the network of init")]:
        path = tmp_path / "bad.yaml"
        path.write_text(yaml.safe_dump(dict(data, init=str(ROOT / init) if init.startswith("check") else init)))
        assert main(["expert", "--config", str(path), "--runs", str(tmp_path / "runs"), "--no-progress"]) == 2
        assert says in capsys.readouterr().err
        assert not (tmp_path / "runs").exists()  # refused before a run directory is made


def test_the_shipped_expert_configs_are_valid():
    for path in sorted((ROOT / "configs").glob("expert-*.yaml")):
        cfg = load(path)
        assert isinstance(cfg, ExpertConfig) and cfg.name == path.stem
        if cfg.init != "scratch":
            from training.expert import check_init

            check_init(cfg)  # the network named is the config's model


def test_command_errors(tmp_path, capsys):
    assert main(["expert"]) == 2
    assert "give --config YAML" in capsys.readouterr().err
    assert main(["expert", "--resume", str(tmp_path)]) == 2
    assert "no checkpoints/last.json" in capsys.readouterr().err
    assert main(["expert", "--config", str(QUICK), "--generations", "0"]) == 2
    assert "--generations must be" in capsys.readouterr().err


def test_a_network_guided_search_as_the_expert(tmp_path):
    """``expert.search: search:<game>``: the run hands it each generation's network as ``model=``."""
    for search, says in [("search:briscola,iterations=30", "give ms=0 and iterations=N"),
                         ("search:briscola,ms=0,iterations=30,model=x.onnx", "no model= option")]:
        with pytest.raises(ConfigError, match=says):
            from_dict(dict(quick(), expert={"search": search}))
    if not core.enabled():
        pytest.skip("search:briscola runs in the compiled core")
    data = dict(quick(), generations=1, expert={"search": "search:briscola,ms=0,iterations=30", "bias": 0.0})
    data["eval"] = dict(data["eval"], opponents=["greedy"])
    path = tmp_path / "search.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["expert", "--config", str(path), "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    with np.load(tmp_path / "run" / "replay" / "gen-00001.npz", allow_pickle=False) as z:
        assert np.allclose(z["targets"].sum(1), 1.0, atol=1e-6) and (z["targets"].max(1) < 1).any()


def test_replay_files_outside_the_window_are_removed(tmp_path):
    data = dict(quick(), deals=4, train=dict(quick()["train"], window=1), eval=dict(quick()["eval"], every=2, expert_deals=0))
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(data))
    assert main(["expert", "--config", str(path), "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    assert sorted(p.name for p in (tmp_path / "run" / "replay").iterdir()) == ["gen-00002.npz"]
    rows = list(csv.DictReader(open(tmp_path / "run" / "metrics.csv", encoding="utf-8")))
    assert [bool(r["net_greedy_score"]) for r in rows] == [True, False, True]  # eval.every 2, and the last
    assert rows[2]["window_decisions"] == rows[2]["decisions"]


def test_q_weights_are_the_softmax_of_the_root_means():
    """Hand-checked: means 0.0, -0.1 and 0.2 at temperature 0.1 weigh e^-2, e^-3 and e^0."""
    w = q_weights({"a": 0.0, "b": -0.1, "c": 0.2}, 0.1)
    z = math.exp(-2) + math.exp(-3) + 1.0
    assert w == pytest.approx({"a": math.exp(-2) / z, "b": math.exp(-3) / z, "c": 1.0 / z}, rel=1e-12)
    assert math.fsum(w.values()) == pytest.approx(1.0, abs=1e-12)
    assert q_weights({"a": 5000.0, "b": -5000.0}, 0.01) == {"a": 1.0, "b": 0.0}  # no overflow
    assert q_weights({"a": 0.3, "b": 0.3}, 0.1) == {"a": 0.5, "b": 0.5}
    # a move never visited has no estimate: weight 0, however its 0 compares with the visited means
    assert q_weights({"a": -0.5, "b": 0.0, "c": -0.7}, 0.1, {"a": 3, "b": 0, "c": 2}) == pytest.approx(
        {"a": 1 / (1 + math.exp(-2)), "b": 0.0, "c": math.exp(-2) / (1 + math.exp(-2))})
    assert q_weights({"a": 0.0}, 0.1, {"a": 0}) == {"a": 1.0}  # nothing visited: the means as they are


def test_q_targets_leave_out_the_moves_the_search_never_visited():
    """A Cavalloìcera root with more moves than the search's 12 iterations: the target lies on the
    moves it visited (at most 12), not on the others' mean of 0."""
    bot = make(f"expert:ismcts:12;bias=0;target=q;temp=0.1;model={ROOT / 'checkpoints' / 'cavalloicera.json'}",
               seed=4, game="cavalloicera")
    g = games.get("cavalloicera")
    found = []
    for seed in range(50):
        state = g.new_state(seed=seed)
        while not state.done:
            legal = state.legal_moves()
            if len(legal) > 24:
                found.append((state, legal))
                break
            g.play(state, legal[-1])
        if len(found) == 3:
            break
    assert found
    for state, legal in found:
        _, target = bot.move_and_visits(g.make_view(state, state.current), legal)
        assert set(target) == set(legal) and math.fsum(target.values()) == pytest.approx(1.0)
        assert 1 <= sum(1 for m in legal if target[m] > 0) <= 12 < len(legal)


def _searched_positions(n: int):
    g = games.get("briscola")
    rng = np.random.default_rng(8)
    for k in range(n):
        state = g.new_state(seed=100 + k)
        for _ in range(int(rng.integers(0, 30))):
            g.play(state, state.legal_moves()[int(rng.integers(len(state.legal_moves())))])
        if len(state.legal_moves()) > 1:
            yield state


@pytest.mark.parametrize("root", ["halving", "ucb"])
def test_the_core_gives_the_python_searchs_root_means(root):
    """ISMCTSBot.search's ``means``: each root move's mean reward, the core's (given Python's random
    numbers) the Python search's, and halving's move the best of them among its finalists."""
    import random
    from array import array

    from cavallo_env.bots.ismcts import ISMCTSBot

    if not core.enabled():
        pytest.skip("the root means of the compiled core")
    g = games.get("briscola")
    hooks = g.search()
    settings = {"iterations": 120, "c": 0.4, "expand": "greedy", "reward": "points", "root": root,
                "scale": hooks.scale, "depth": hooks.depth, "epsilon": hooks.epsilon, "rollout": hooks.policy,
                "win": hooks.win}
    for k, state in enumerate(_searched_positions(8)):
        bot = ISMCTSBot(120, seed=0, game="briscola", root=root, engine="python")
        visits, means = {}, {}
        move = bot.search(state.copy(), random.Random(k), None, None, visits, game=g, means=means)
        assert set(means) == set(state.legal_moves()) and all(visits[m] > 0 for m in means)
        inferred = hooks._inference(state, 1 - state.current)
        out = array("d", bytes(8 * 40))
        got, counts = core.extension("briscola").search(state, settings, None, array("d", inferred[0]), 0, 0.0,
                                                        random.Random(k).getstate()[1], out)
        assert got == move and {m: counts[m] for m in visits} == visits
        assert {m: out[m] for m in means} == pytest.approx(means, abs=1e-12)
        if root == "halving":
            finalists = sorted(means, key=lambda m: -visits[m])[:2]
            assert means[move] == max(means[m] for m in finalists)
        # and the bot's own core path fills the same dict
        fast = {}
        ISMCTSBot(120, seed=0, game="briscola", root=root).search(state.copy(), random.Random(k), None, None,
                                                                   {}, game=g, means=fast)
        assert set(fast) == set(means) and all(-10 < v < 10 for v in fast.values())


def test_q_targets_are_the_value_softmax_mixed_with_the_move_played():
    """``target=q``: rows sum to 1 over the legal actions; a huge temperature spreads them evenly, a
    tiny one puts everything on the move the search plays (the best mean), ``soft`` mixes."""
    seeds = draw_deals(np.random.default_rng(5), 1, 2)
    model = ROOT / "checkpoints" / "briscola.json"

    def play(temp, soft):
        spec = f"expert:ismcts:60;bias=0;target=q;temp={temp};model={model}"
        return play_chunk(seeds, "briscola", {"deck": "milanesi"}, spec, "points", 30.0, True, soft)

    flat, sharp, half = play(1000, 1.0), play(1e-6, 1.0), play(0.1, 0.5)
    assert np.array_equal(flat["actions"], sharp["actions"]) and np.array_equal(flat["actions"], half["actions"])
    mask = flat["mask"]
    for data in (flat, sharp, half):
        assert np.allclose(data["targets"].sum(1), 1.0, atol=1e-6) and (data["targets"][mask == 0] == 0).all()
    assert np.allclose(flat["targets"], mask / mask.sum(1, keepdims=True), atol=1e-3)
    played = np.eye(mask.shape[1], dtype=np.float32)[flat["actions"]]
    for row in sharp["targets"]:  # all on the best mean (shared evenly where moves tie exactly)
        top = row[row > 1e-6]
        assert np.allclose(top, 1.0 / len(top), atol=1e-6)
    # the move played is halving's best mean among its finalists: nearly always the best of all
    assert (sharp["targets"][played == 1] > 0).mean() >= 0.8
    assert (half["targets"][played == 1] >= 0.5 - 1e-6).all() and (half["targets"].max(1) < 1).any()
