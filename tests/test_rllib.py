"""The Ray RLlib backend (training.rllib): config, env adapter, team mapping, the RLModule's
weights -> checkpoint -> ONNX round trip, and a tiny local training run through the CLI."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the RLlib backend needs torch (pip install -e '.[rllib]')")
pytest.importorskip("yaml", reason="the RLlib backend needs pyyaml (pip install -e '.[rllib]')")
pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install -e '.[rllib]')")

from gymnasium import spaces  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

from cavallo_env import games  # noqa: E402
from cavallo_env.cli import main  # noqa: E402
from training.config import ConfigError  # noqa: E402
from training.config import load as load_project  # noqa: E402
from training.rllib.config import from_dict, load  # noqa: E402
from training.rllib.convert import ConversionError, module_state_from_checkpoint, save_checkpoint  # noqa: E402
from training.rllib.env import make_env  # noqa: E402
from training.rllib.module import MaskedPolicyModule  # noqa: E402
from training.rllib.selfplay import agent_to_module, draw_plan  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "configs" / "rllib" / "tiny.yaml"
torch.set_num_threads(1)


@pytest.fixture(scope="module")
def ray_local():
    """A Ray of this test module's own on this machine (2 CPUs), shut down after."""
    import ray

    from training.rllib.train import init_ray

    started = init_ray(None)
    yield ray
    if started:
        ray.shutdown()


# ---------------------------------------------------------------- configs


@pytest.mark.parametrize("game", ["briscola", "cavalloicera", "scopa", "tiny"])
def test_shipped_configs_load(game):
    cfg = load(ROOT / "configs" / "rllib" / f"{game}.yaml")
    assert cfg.model.prior is False and cfg.ppo.advantage == "gae"


def test_project_twin_agrees_with_the_rllib_config():
    r = load(ROOT / "configs" / "rllib" / "briscola.yaml")
    p = load_project(ROOT / "configs" / "rllib" / "briscola-project.yaml")
    assert (p.game, p.game_options, p.reward, p.reward_scale) == (r.game, r.game_options, r.reward, r.reward_scale)
    assert p.model == r.model and p.ppo == r.ppo and p.league == r.league
    assert (p.eval.opponents, p.eval.deals, p.eval.seed) == (r.eval.opponents, r.eval.deals, r.eval.seed)


def test_config_errors_name_the_key():
    base = load(TINY).to_dict()
    for path, value, words in [(("model", "prior"), True, "model.prior"),
                               (("ppo", "advantage"), "paired", "ppo.advantage"),
                               (("ppo", "target_kl"), 0.02, "ppo.target_kl"),
                               (("rllib", "env_runners"), -1, "rllib.env_runners"),
                               (("rllib", "bogus"), 1, "bogus")]:
        d = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
        d[path[0]][path[1]] = value
        with pytest.raises(ConfigError, match=words.replace(".", r"\.")):
            from_dict(d)
    with pytest.raises(ConfigError, match="project's trainer"):
        load(ROOT / "configs" / "quick-briscola.yaml")


# ---------------------------------------------------------------- the env adapter and the mapping


@pytest.mark.parametrize("game,options,kind,team", [
    ("briscola", {}, "greedy", 1), ("cavalloicera", {}, "heuristic", 0), ("cavalloicera", {}, "self", 0),
    ("scopa", {"match": False}, "greedy", 0), ("scopa", {"match": True}, "heuristic", 1)])
def test_env_adapter_plays_bots_inside_and_pays_the_team(game, options, kind, team):
    scale = 10.0
    env = make_env({"game": game, "game_options": options, "reward": "points", "reward_scale": scale, "seed": 3})
    aec = env.env
    rng = np.random.default_rng(0)
    for episode in range(3):
        aec.set_plan({"kind": kind, "learner_team": team, "module": "main"})
        obs, _ = env.reset(seed=episode)
        totals = defaultdict(float)
        while True:
            (agent, o), = obs.items()
            assert set(o) == {"observations", "action_mask"}
            assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.float32
            assert env.observation_space[agent].contains(o)
            if kind != "self":
                assert int(agent.rsplit("_", 1)[1]) % 2 == team, "a bot's seat showed up as an RLlib agent"
            obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
            for a, r in rew.items():
                totals[a] += r
            if term["__all__"]:
                break
        state = aec.engine_state()
        want = aec.game.returns(state, "points")
        assert set(totals) == ({a for a in aec.possible_agents if int(a[-1]) % 2 == team} if kind != "self"
                               else set(aec.possible_agents))
        for a, total in totals.items():
            assert total == pytest.approx(want[int(a[-1])] / scale)
        assert aec.decisions > 0
        assert (aec.bot_decisions > 0) == (kind != "self")


def test_illegal_action_raises():
    env = make_env({"game": "briscola", "game_options": {}, "reward": "points", "reward_scale": 1.0})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step({agent: illegal})


class _Episode:
    def __init__(self, plan):
        self.custom_data = {"plan": plan}


def test_team_mapping_four_seats():
    snap = {"kind": "snapshots", "learner_team": 1, "module": "snapshot_2"}
    assert [agent_to_module(f"player_{s}", _Episode(snap)) for s in range(4)] == \
        ["snapshot_2", "main", "snapshot_2", "main"]
    for kind in ("self", "greedy", "heuristic"):
        plan = {"kind": kind, "learner_team": 0, "module": "main"}
        assert {agent_to_module(f"player_{s}", _Episode(plan)) for s in range(4)} == {"main"}
    assert agent_to_module("player_1", object()) == "main"  # an episode chunk being built: no custom_data yet
    rng = np.random.default_rng(0)
    plans = [draw_plan({"mix": {"self": 1, "snapshots": 1, "greedy": 0}, "slots": 3}, rng) for _ in range(400)]
    assert {p["kind"] for p in plans} == {"self", "snapshots"}
    assert {p["module"] for p in plans if p["kind"] == "snapshots"} == {"snapshot_0", "snapshot_1", "snapshot_2"}
    assert {p["learner_team"] for p in plans} == {0, 1}


# ---------------------------------------------------------------- weights -> checkpoint -> ONNX


def _module(game="cavalloicera", hidden=(48, 32), activation="tanh"):
    learning = games.get(game).learning()
    space = spaces.Dict({"observations": spaces.Box(0.0, 1.0, (learning.obs_size,), np.float32),
                         "action_mask": spaces.Box(0.0, 1.0, (learning.num_actions,), np.float32)})
    torch.manual_seed(0)
    module = MaskedPolicyModule(observation_space=space, action_space=spaces.Discrete(learning.num_actions),
                                model_config={"hidden": list(hidden), "activation": activation})
    with torch.no_grad():  # a trained-looking policy head (PolicyNet starts it near zero)
        module.net.policy.weight.normal_(0, 1.0)
    return module, learning


def _cfg(game, hidden=(48, 32), activation="tanh"):
    d = load(TINY).to_dict()
    d["game"] = game
    d["game_options"] = {}
    d["model"].update(hidden=list(hidden), activation=activation)
    return from_dict(d)


@pytest.mark.parametrize("game", ["cavalloicera", "briscola"])
def test_module_to_checkpoint_to_onnx_round_trip(tmp_path, game):
    pytest.importorskip("onnxruntime")
    from training.export import export_checkpoint, game_inputs, load_policy_net, random_inputs

    module, learning = _module(game)
    path = tmp_path / "rl"
    save_checkpoint(module.get_state(), path, _cfg(game), step=7)
    net, meta = load_policy_net(path.with_suffix(".json"))
    assert meta["backend"] == "rllib" and meta["game"] == game and meta["step"] == 7
    obs, mask = (np.concatenate(p) for p in zip(random_inputs(64, seed=1, learning=learning),
                                                 game_inputs(deals=2, learning=learning)))
    batch = {Columns.OBS: {"observations": torch.from_numpy(obs), "action_mask": torch.from_numpy(mask)}}
    with torch.no_grad():
        want = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        want_v = module.compute_values(batch).numpy()
        got, got_v = (t.numpy() for t in net(torch.from_numpy(obs), torch.from_numpy(mask)))
    assert np.array_equal(want, got) and np.array_equal(want_v, got_v)  # the same network, bit for bit

    import onnxruntime as ort

    onnx_path, _ = export_checkpoint(path.with_suffix(".json"), tmp_path / "exported.onnx", check_deals=32)
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    logits, value = sess.run(["logits", "value"], {"obs": obs, "mask": mask})
    legal = mask != 0
    assert np.array_equal(logits[~legal], want[~legal])  # the mask constant
    assert np.abs(logits[legal] - want[legal]).max() <= 1e-5 * max(1.0, np.abs(want[legal]).max())
    assert np.abs(value - want_v).max() <= 1e-5 * max(1.0, np.abs(want_v).max())

    back, _ = module_state_from_checkpoint(path)  # and back into a module
    module2, _ = _module(game)
    module2.set_state(back)
    with torch.no_grad():
        assert np.array_equal(module2.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy(), want)


def test_conversion_refuses_weights_of_another_network(tmp_path):
    module, _ = _module("briscola", hidden=(48, 32))
    with pytest.raises(ConversionError, match="shape"):
        save_checkpoint(module.get_state(), tmp_path / "x", _cfg("briscola", hidden=(32, 32)))


# ---------------------------------------------------------------- a tiny run on a local Ray


def test_tiny_local_run_through_the_cli(tmp_path, ray_local, capsys):
    """Two iterations of tiny batches (config tiny.yaml: sampling in the driver, every league kind,
    a snapshot after each iteration) into project checkpoints that the project's tools take."""
    rc = main(["train", "--backend", "rllib", "--config", str(TINY), "--runs", str(tmp_path), "--no-progress"])
    assert rc == 0
    (run_dir,) = tmp_path.iterdir()
    rows = (run_dir / "metrics.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("update,decisions,learner_decisions")
    last = run_dir / "checkpoints" / "last.json"
    assert last.exists() and (run_dir / "checkpoints" / "update-00002.json").exists()
    out = capsys.readouterr().out
    assert "vs greedy" in out and "iterations 2" in out
    # the project's tools: a checkpoint: bot in a duplicate evaluation, and the export
    assert main(["eval", f"checkpoint:{last}", "greedy", "--game", "briscola", "--deals", "2", "--jobs", "1",
                 "--no-progress"]) == 0
    assert main(["export", str(last), "--out", str(tmp_path / "m.onnx")]) == 0
    from cavallo_env.bots import make

    bot = make(f"policy:{tmp_path / 'm.onnx'}", seed=0, game="briscola")
    g = games.get("briscola")
    state = g.new_state(seed=1)
    assert bot.choose(g.make_view(state, state.current)) is not None


def test_remote_env_runner_init_from_and_snapshots(tmp_path, ray_local):
    """``init_from`` loads a project checkpoint into main and every slot, on the learner and a remote
    env runner; after an iteration the slot taken there is main (RLlib syncs only what it trains)."""
    from training.rllib.selfplay import main_weights
    from training.rllib.train import ppo_config, start_from_checkpoint

    cfg = load(TINY)
    module, _ = _module("briscola", hidden=(32, 32), activation="relu")
    save_checkpoint(module.get_state(), tmp_path / "init",
                    _cfg("briscola", hidden=(32, 32), activation="relu"))
    cfg.init_from = str(tmp_path / "init.json")
    algo = ppo_config(cfg, env_runners=1, envs_per_env_runner=2).build_algo()
    try:
        start_from_checkpoint(algo, cfg)
        want = module.get_state()
        remote = algo.env_runner_group.foreach_env_runner(
            lambda er: {m: er.module[m].get_state() for m in ("main", "snapshot_0", "snapshot_1")},
            local_env_runner=False)[0]
        for k, v in want.items():
            assert np.array_equal(main_weights(algo)[k], v)
            assert all(np.array_equal(remote[m][k], v) for m in remote)
        result = algo.train()
        assert result["league_snapshots_taken"] == 1
        main_w = main_weights(algo)
        remote = algo.env_runner_group.foreach_env_runner(
            lambda er: {m: er.module[m].get_state() for m in ("main", "snapshot_0")}, local_env_runner=False)[0]
        for k, v in main_w.items():
            assert np.array_equal(remote["snapshot_0"][k], v) and np.array_equal(remote["main"][k], v)
    finally:
        algo.stop()


def test_cli_backend_mixups_are_clear_errors(capsys):
    rl, project = str(ROOT / "configs" / "rllib" / "briscola.yaml"), str(ROOT / "configs" / "quick-briscola.yaml")
    assert main(["train", "--backend", "rllib", "--config", project]) == 2
    assert main(["train", "--config", rl]) == 2
    assert main(["train", "--config", project, "--address", "auto"]) == 2
    assert main(["train", "--backend", "rllib", "--config", rl, "--resume", "runs/x"]) == 2
    err = capsys.readouterr().err
    for words in ("a config of the project's trainer", "add --backend rllib", "--address is for --backend rllib",
                  "--resume is not supported"):
        assert words in err


def test_cli_without_ray_says_how_to_install(tmp_path):
    code = ("import sys; sys.modules['ray'] = None\n"
            "from cavallo_env.cli import main\n"
            f"main(['train', '--backend', 'rllib', '--config', {str(TINY)!r}, '--runs', {str(tmp_path)!r}])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode != 0 and "pip install -e '.[rllib]'" in r.stderr


def test_cavallo_env_imports_neither_training_nor_ray():
    code = ("import sys, cavallo_env.cli, cavallo_env.commands.train, cavallo_env.single\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('training', 'ray')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_init_from_refuses_another_network(tmp_path):
    """Same shapes, another activation: refused before anything is built."""
    from training.rllib.convert import ConversionError
    from training.rllib.train import start_from_checkpoint

    module, _ = _module("briscola", hidden=(32, 32), activation="tanh")
    save_checkpoint(module.get_state(), tmp_path / "init", _cfg("briscola", hidden=(32, 32)))
    cfg = load(TINY)
    cfg.init_from = str(tmp_path / "init.json")
    with pytest.raises(ConversionError, match="activation"):
        start_from_checkpoint(None, cfg)
