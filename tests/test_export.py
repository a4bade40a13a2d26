"""cavallo export: checkpoint -> single-file ONNX + sidecar, equal to torch, clear errors."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from policy_fixtures import game_views, make_checkpoint, make_model

from cavallo_env import ACTION_CONTRACT_VERSION
from cavallo_env.cavalloicera.actions import NUM_ACTIONS, CavalloiceraActions
from cavallo_env.bots import make
from cavallo_env.bots.policy import DEFAULT_MODEL, FORMAT, ModelError, PolicyBot, file_sha256
from cavallo_env.cli import main
from cavallo_env.cavalloicera.encoding import OBS_BUILD, OBS_SIZE, OBS_VERSION, encode_observation
from cavallo_env.cavalloicera.prior import PRIOR_SIZE, PRIOR_VERSION, action_prior
from training.export import ExportError, compare, export_checkpoint, game_inputs, load_policy_net, random_inputs
from cavallo_env.cavalloicera.views import move_to_dict, state_from_view
from training.checkpoint import CheckpointError


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    d = tmp_path_factory.mktemp("export")
    return d, make_model(d)


def torch_outputs(net, obs, mask, prior=None):
    with torch.no_grad():
        logits, value = net(torch.from_numpy(obs), torch.from_numpy(mask),
                            torch.from_numpy(prior) if prior is not None else None)
    return logits.numpy(), value.numpy()


def _model_options():
    import dataclasses

    from training.model import ModelConfig

    return {f.name for f in dataclasses.fields(ModelConfig)}


@pytest.mark.parametrize("hidden,activation,extra", [
    ((64, 64), "relu", {}), ((32,), "tanh", {}), ((48, 40, 24), "gelu", {}),
    ((64, 64), "relu", {"prior": True}),
])
def test_onnx_matches_torch_on_random_inputs(tmp_path, hidden, activation, extra):
    if not set(extra) <= _model_options():
        pytest.skip(f"this network has no option {sorted(set(extra) - _model_options())}")
    model = make_model(tmp_path, hidden=hidden, activation=activation, seed=3, **extra)
    net, _ = load_policy_net(tmp_path / "model-ckpt")
    bot = PolicyBot(model)
    for n in (1, 7, 300):  # the batch axis is dynamic
        obs, mask, *prior = random_inputs(n, seed=n, prior=net.uses_prior)
        prior = prior[0] if prior else None
        obs = obs * 4.0 - 2.0  # outside the observation range too
        logits, value = bot.evaluate(obs, mask, prior)
        t_logits, t_value = torch_outputs(net, obs, mask, prior)
        assert logits.shape == (n, NUM_ACTIONS) and value.shape == (n,)
        legal = mask != 0
        assert np.abs(logits[legal] - t_logits[legal]).max() <= 1e-5
        assert np.abs(value - t_value).max() <= 1e-5
        assert np.array_equal(logits[~legal], t_logits[~legal])  # the mask constant, exactly
        assert (logits[~legal] <= -1e8).all()


def test_onnx_matches_torch_on_real_observations(exported, tmp_path):
    d, model = exported
    net, _ = load_policy_net(d / "model-ckpt")
    bot = PolicyBot(model)
    obs, masks = [], []
    for view in game_views(5):
        state = state_from_view(view)
        game = CavalloiceraActions(state)
        obs.append(encode_observation(state, state.current))
        m = np.zeros(NUM_ACTIONS, np.float32)
        m[game.legal_actions()] = 1
        masks.append(m)
    obs, masks = np.stack(obs), np.stack(masks)
    logits, value = bot.evaluate(obs, masks)
    t_logits, t_value = torch_outputs(net, obs, masks)
    assert np.abs(logits - t_logits).max() <= 1e-5
    assert np.abs(value - t_value).max() <= 1e-5


def torch_choice(net, view, seen=None):
    """The greedy move of the torch model, encoding every sub-step from scratch.

    The observations of the sub-steps with a real choice are appended to ``seen``.
    """
    state = state_from_view(view)
    game = CavalloiceraActions(state)
    seat = state.current
    while True:
        legal = game.legal_actions()
        obs = encode_observation(game.state, seat, game.building)[None]
        mask = np.zeros((1, NUM_ACTIONS), np.float32)
        mask[0, legal] = 1
        if len(legal) > 1 and seen is not None:
            seen.append(obs[0])
        prior = action_prior(game)[None] if net.uses_prior else None
        logits, _ = torch_outputs(net, obs, mask, prior)
        move = game.step(int(logits[0].argmax()))
        if move is not None:
            return move_to_dict(move)


class Recorder:
    """Stands in for the bot's onnxruntime session and keeps every observation fed to it."""

    def __init__(self, session):
        self.session, self.seen = session, []

    def run(self, outputs, feeds):
        self.seen.extend(feeds["obs"])
        return self.session.run(outputs, feeds)


def test_greedy_bot_plays_the_torch_models_moves(exported):
    d, model = exported
    net, _ = load_policy_net(d / "model-ckpt")
    bot = make(f"policy:{model}")
    bot.session = rec = Recorder(bot.session)
    decisions = building = 0
    for seed in range(4):
        # self-play views, then views of random play (more captures with a choice of set)
        views = game_views(seed, chooser=bot.choose) if seed < 2 else game_views(seed)
        for view in views:
            rec.seen.clear()
            ref = []
            assert bot.choose(view) == torch_choice(net, view, ref)
            assert len(rec.seen) == len(ref)
            for got, want in zip(rec.seen, ref):
                assert np.array_equal(got, want)
                building += bool(want[OBS_BUILD].any())
            decisions += 1
    assert decisions == 4 * 48
    assert building >= 5  # capture building was exercised


def test_prior_model_exports_and_plays_the_torch_models_moves(tmp_path):
    """A model reading the heuristic prior: a third ONNX input, its version in the sidecar, same moves as torch."""
    model = make_model(tmp_path, seed=4, prior=True)
    net, _ = load_policy_net(tmp_path / "model-ckpt")
    m = onnx.load(str(model), load_external_data=False)
    assert [i.name for i in m.graph.input] == ["obs", "mask", "prior"]
    assert [d.dim_param or d.dim_value for d in m.graph.input[2].type.tensor_type.shape.dim] == ["batch", PRIOR_SIZE]
    meta = json.loads(model.with_suffix(".json").read_text())
    assert meta["prior_version"] == PRIOR_VERSION and "prior" in meta["inputs"]
    bot = make(f"policy:{model}")
    assert bot.uses_prior
    for seed in range(2):
        for view in game_views(seed, chooser=bot.choose if seed == 0 else None):
            assert bot.choose(view) == torch_choice(net, view)
    with pytest.raises(ValueError, match="prior"):
        bot.evaluate(*random_inputs(3))
    meta["prior_version"] = "heuristic-prior/0"
    shutil.copy(model, tmp_path / "m.onnx")
    (tmp_path / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="heuristic prior 'heuristic-prior/0'"):
        make(f"policy:{tmp_path / 'm.onnx'}")


def test_onnx_torch_and_the_checkpoint_bot_play_alike(tmp_path):
    """One forward pass: the ONNX bot, torch and the trainer's checkpoint bot pick the same moves."""
    from training.policy_bot import CheckpointBot

    model = make_model(tmp_path, seed=6, prior=True)
    net, _ = load_policy_net(tmp_path / "model-ckpt")
    bot, twin = make(f"policy:{model}"), CheckpointBot(str(tmp_path / "model-ckpt.json"))
    for view in game_views(2, chooser=bot.choose):
        assert bot.choose(view) == torch_choice(net, view) == twin.choose(view)


def test_prior_checkpoint_of_another_prior_version_is_refused(tmp_path):
    ckpt = make_checkpoint(tmp_path / "c", prior=True)
    meta = json.loads((tmp_path / "c.json").read_text())
    assert meta["prior_version"] == PRIOR_VERSION
    meta["prior_version"] = "heuristic-prior/0"
    (tmp_path / "c.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="heuristic prior"):
        load_policy_net(ckpt)


SHIPPED_CKPT = Path(__file__).resolve().parent.parent / "checkpoints" / "cavalloicera"


@pytest.mark.skipif(not (DEFAULT_MODEL.is_file() and SHIPPED_CKPT.with_suffix(".json").is_file()),
                    reason="the shipped model or its training checkpoint is not in this checkout")
def test_shipped_model_matches_its_checkpoint():
    """policy:default is the export of checkpoints/cavalloicera: same outputs within 1e-5, same moves."""
    net, _ = load_policy_net(SHIPPED_CKPT)
    meta = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    assert meta["source"]["checkpoint_sha256"] == file_sha256(SHIPPED_CKPT.with_suffix(".safetensors")), (
        "checkpoints/cavalloicera changed since cavallo_env/models/cavalloicera.onnx was exported: run "
        "`cavallo export checkpoints/cavalloicera.safetensors --out cavallo_env/models/cavalloicera.onnx`")
    for inputs in (random_inputs(200, seed=9, prior=net.uses_prior), game_inputs(4, seed=5, prior=net.uses_prior)):
        c = compare(net, DEFAULT_MODEL, *inputs)
        assert c["max_scaled"] <= 1e-5 and c["max_prob"] <= 1e-5, c
    bot = make("policy:default")
    for view in game_views(8, chooser=bot.choose):
        assert bot.choose(view) == torch_choice(net, view)


def test_single_file_and_checker(exported):
    d, model = exported
    assert sorted(p.name for p in d.iterdir() if p.name.startswith("model.")) == ["model.json", "model.onnx"]
    assert not any(p.name.startswith(".export-") for p in d.iterdir())  # the temp folder is gone
    m = onnx.load(str(model), load_external_data=False)
    assert all(t.data_location != onnx.TensorProto.EXTERNAL for t in m.graph.initializer)
    onnx.checker.check_model(m, full_check=True)
    assert [i.name for i in m.graph.input] == ["obs", "mask"]
    assert [o.name for o in m.graph.output] == ["logits", "value"]
    dims = [[d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim] for i in m.graph.input]
    assert dims == [["batch", OBS_SIZE], ["batch", NUM_ACTIONS]]


def test_sidecar_contents(exported):
    d, model = exported
    meta = json.loads((d / "model.json").read_text())
    assert meta["format"] == FORMAT
    assert meta["obs_version"] == OBS_VERSION and meta["action_version"] == ACTION_CONTRACT_VERSION
    assert meta["onnx_sha256"] == file_sha256(model)
    assert {k: meta["model"][k] for k in ("hidden", "activation")} == {"hidden": [64, 64], "activation": "relu"}
    assert meta["training_config"]["model"] == {"hidden": [64, 64], "activation": "relu"}
    assert meta["evaluation"] == {"eval": {"vs_greedy": {"score": 0.5}}}
    assert meta["source"]["step"] == 123
    source = Path(meta["source"]["checkpoint"])
    assert source.name.startswith("model-ckpt.") and source.suffix == ".safetensors"
    assert meta["source"]["checkpoint_sha256"] == file_sha256(source)
    for label in ("random_inputs", "game_positions"):
        c = meta["check"][label]
        assert c["max_abs"] <= 1e-5 and c["max_scaled"] <= 1e-5 and c["max_prob"] <= 1e-5 and c["n"] > 0


@pytest.mark.parametrize("key,value", [("obs_version", "cavalloicera-obs/0"), ("action_version", "cavalloicera-actions/9")])
def test_version_mismatch_is_a_clear_error(exported, tmp_path, key, value):
    d, model = exported
    shutil.copy(model, tmp_path / "m.onnx")
    meta = json.loads((d / "model.json").read_text())
    meta[key] = value
    (tmp_path / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=f"{key} '{value}'.*this cavallo-env uses"):
        make(f"policy:{tmp_path / 'm.onnx'}")


def test_checkpoint_version_mismatch_is_refused_at_export(tmp_path):
    ckpt = make_checkpoint(tmp_path / "c")
    meta = json.loads((tmp_path / "c.json").read_text())
    meta["obs_version"] = "cavalloicera-obs/0"
    (tmp_path / "c.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="obs_version"):
        export_checkpoint(ckpt, tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


def _tensors_file(ckpt) -> Path:
    """The .safetensors file a checkpoint's manifest names."""
    from training.checkpoint import read_manifest

    return read_manifest(ckpt)[1]


def test_truncated_checkpoint(tmp_path):
    ckpt = make_checkpoint(tmp_path / "c")
    st = _tensors_file(ckpt)
    data = st.read_bytes()
    st.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or foreign file, or one damaged"):
        export_checkpoint(ckpt, tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


def test_foreign_checkpoint(tmp_path):
    (tmp_path / "c.safetensors").write_bytes(b"\x00" * 64)
    (tmp_path / "c.json").write_text(json.dumps({"format": "something-else/3"}))
    with pytest.raises(CheckpointError, match="not a cavallo checkpoint"):
        export_checkpoint(tmp_path / "c", tmp_path / "m.onnx")


def _set_hidden(model):
    model["hidden"] = [32, 32]


@pytest.mark.parametrize("edit, error", [
    (_set_hidden, "do not fit the model"),  # weights of a 64x64 net, a 32x32 config
    (lambda model: model.update(attention_heads=4), "attention_heads"),
    (None, "no model section"),
])
def test_sidecar_model_section_errors(tmp_path, edit, error):
    ckpt = make_checkpoint(tmp_path / "c", hidden=(64, 64))
    meta = json.loads((tmp_path / "c.json").read_text())
    if edit is None:
        del meta["config"]["model"]
    else:
        edit(meta["config"]["model"])
    (tmp_path / "c.json").write_text(json.dumps(meta))
    with pytest.raises(ExportError, match=error):
        export_checkpoint(ckpt, tmp_path / "m.onnx")


def test_corrupt_or_unpaired_model_files(exported, tmp_path):
    d, model = exported
    data = model.read_bytes()
    (tmp_path / "t.onnx").write_bytes(data[: len(data) // 3])
    shutil.copy(d / "model.json", tmp_path / "t.json")
    with pytest.raises(ModelError, match="does not match its sidecar"):
        make(f"policy:{tmp_path / 't.onnx'}")
    shutil.copy(model, tmp_path / "lonely.onnx")
    with pytest.raises(ModelError, match="sidecar JSON is missing"):
        make(f"policy:{tmp_path / 'lonely.onnx'}")
    with pytest.raises(ModelError, match="not found"):
        make(f"policy:{tmp_path / 'absent.onnx'}")
    # a sidecar hashing garbage still cannot make the runtime accept it
    meta = json.loads((d / "model.json").read_text())
    for garbage, error in ((b"not an onnx model at all", "not a readable ONNX model"),
                           (b"", "onnxruntime cannot load")):
        meta["onnx_sha256"] = hashlib.sha256(garbage).hexdigest()
        (tmp_path / "g.onnx").write_bytes(garbage)
        (tmp_path / "g.json").write_text(json.dumps(meta))
        with pytest.raises(ModelError, match=error):
            make(f"policy:{tmp_path / 'g.onnx'}")


def test_cli_export(tmp_path, capsys):
    make_checkpoint(tmp_path / "c")
    assert main(["export", str(tmp_path / "c.safetensors"), "--out", str(tmp_path / "out" / "ai.onnx")]) == 0
    assert "wrote" in capsys.readouterr().out
    bot = make(f"policy:{tmp_path / 'out' / 'ai.onnx'}")
    view = game_views(1, limit=1)[0]
    assert bot.choose(view) in view["legal_moves"]
    assert main(["export", str(tmp_path / "missing"), "--out", str(tmp_path / "x.onnx")]) == 2
    err = capsys.readouterr().err
    assert "cavallo export: error:" in err and "not found" in err
    assert main(["export", str(tmp_path / "c"), "--out", str(tmp_path / "x.bin")]) == 2
    assert ".onnx" in capsys.readouterr().err
    # a bad evaluation opponent fails before anything is written
    assert main(["export", str(tmp_path / "c"), "--out", str(tmp_path / "e.onnx"), "--eval-deals", "2",
                 "--eval-opponent", "nobot"]) == 2
    assert "unknown bot 'nobot'" in capsys.readouterr().err and not (tmp_path / "e.onnx").exists()
    # a path that cannot be written is named as given, not by a temporary folder
    (tmp_path / "file").write_text("")
    assert main(["export", str(tmp_path / "c"), "--out", str(tmp_path / "file" / "x.onnx")]) == 2
    err = capsys.readouterr().err
    assert "is a file, not a folder" in err and ".export-" not in err


def test_export_a_run_folder_picks_its_checkpoint_or_names_the_path_to_give(tmp_path, capsys):
    """`cavallo export RUN_DIR`: the last evaluated checkpoint, --update N, and where that is
    ambiguous (last.json past the last evaluation) or empty, an error naming the path to give."""
    from training.config import from_dict
    from training.ppo import train

    def run(name, **over):
        d = {"name": name, "seed": 2, "device": "cpu", "updates": 2, "games": 4, "checkpoint_every": 1,
             "model": {"hidden": [16]}, "eval": {"every": 1, "deals": 2, "jobs": 1, "opponents": ["greedy"]}}
        d.update(over)
        stop_at = d.pop("stop_at", None)
        train(from_dict(d), tmp_path / name, progress=False, stop_at=stop_at, log=lambda m: None)
        return tmp_path / name

    def export(*argv) -> tuple[int, str]:
        code = main(["export", *map(str, argv)])
        out = capsys.readouterr()
        return code, out.out + out.err

    done = run("done")
    code, text = export(done, "--out", tmp_path / "last.onnx")
    assert code == 0 and f"exporting {done / 'checkpoints' / 'update-00002.json'}" in text
    assert json.loads((tmp_path / "last.json").read_text())["source"]["step"] == 2
    code, text = export(done, "--update", 1, "--out", tmp_path / "one.onnx")
    assert code == 0 and json.loads((tmp_path / "one.json").read_text())["source"]["step"] == 1
    code, text = export(done, "--update", 7, "--out", tmp_path / "x.onnx")
    assert code == 2 and "update-00007.json: no such evaluated checkpoint; the run has update-00001.json, " \
                         "update-00002.json" in text
    code, text = export(done / "checkpoints", "--out", tmp_path / "x.onnx")  # a folder of checkpoints
    assert code == 2 and "not a run folder (no checkpoints/ in it); give one of its checkpoints, e.g. " in text
    stopped = run("stopped", updates=5, eval={"every": 2, "deals": 2, "jobs": 1, "opponents": ["greedy"]}, stop_at=3)
    code, text = export(stopped, "--out", tmp_path / "x.onnx")
    assert code == 2 and (f"ambiguous: {stopped / 'checkpoints' / 'last.json'} is at update 3, past the last "
                          f"evaluated checkpoint {stopped / 'checkpoints' / 'update-00002.json'} (update 2); give "
                          "one of those paths, or --update N") in text
    code, text = export(stopped / "checkpoints" / "last.json", "--out", tmp_path / "three.onnx")
    assert code == 0 and json.loads((tmp_path / "three.json").read_text())["source"]["step"] == 3
    (tmp_path / "empty" / "checkpoints").mkdir(parents=True)
    code, text = export(tmp_path / "empty", "--out", tmp_path / "x.onnx")
    assert code == 2 and "no evaluated checkpoints (checkpoints/update-*.json) and no checkpoints/last.json: " \
                         "nothing to export" in text
    code, text = export(done / "checkpoints" / "last.json", "--update", 1, "--out", tmp_path / "x.onnx")
    assert code == 2 and "--update and --pick choose a checkpoint of a run folder" in text
    code, text = export(done, "--update", -1, "--out", tmp_path / "x.onnx")
    assert code == 2 and "--update must be an update number (0 or more), not -1" in text
    code, text = export(done, "--update", 1, "--pick", "best", "--out", tmp_path / "x.onnx")
    assert code == 2 and "--update N and --pick best each choose the checkpoint: give one of them" in text
