"""No model is used unverified: checkpoints (``checkpoint:<path>``, ``--resume``, ``cavallo export``)
and exported models (``policy:<file.onnx>``, the shipped ``policy:default``/``briscola``/``scopa``)
must carry their sha256 and match it, and hold only finite weights; ``cavallo export --rehash``
records a missing hash for a file the user vouches for, and never replaces one."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
pytest.importorskip("yaml")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from policy_fixtures import make_checkpoint, make_model  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402

from cavallo_env.bots import make  # noqa: E402
from cavallo_env.bots.policy import SHIPPED, ModelError, check_finite_onnx, shipped_model  # noqa: E402
from cavallo_env.cli import main  # noqa: E402
from training import checkpoint as ckpt  # noqa: E402
from training.export import export_checkpoint  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A checkpoint and its export: ``(checkpoint stem, model.onnx)``."""
    d = tmp_path_factory.mktemp("verify")
    return d / "model-ckpt", make_model(d)


def copy_checkpoint(stem: Path, dest: Path) -> Path:
    """Copy a checkpoint's manifest and the tensors file it names into ``dest``; the new stem."""
    meta, st, js = ckpt.read_manifest(stem)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(js, dest / js.name)
    shutil.copy(st, dest / st.name)
    return dest / js.stem


def copy_model(model: Path, dest: Path, name: str = "m") -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(model, dest / f"{name}.onnx")
    shutil.copy(model.with_suffix(".json"), dest / f"{name}.json")
    return dest / f"{name}.onnx"


def edit_json(path: Path, fn) -> None:
    meta = json.loads(path.read_text())
    fn(meta)
    path.write_text(json.dumps(meta))


def flip_exponent(st: Path, tensor: str) -> None:
    """Flip one exponent bit of the first float of ``tensor`` in a safetensors file: the file
    still reads, the weight is off by a factor of 2^64 or so."""
    data = bytearray(st.read_bytes())
    (n,) = struct.unpack("<Q", data[:8])
    start = 8 + n + json.loads(data[8:8 + n])[tensor]["data_offsets"][0]
    data[start + 3] ^= 0x20
    st.write_bytes(bytes(data))


def vouch_tensors(stem: Path, tensors: dict) -> None:
    """Rewrite a checkpoint's tensors file with ``tensors`` and record their hash in its manifest,
    as if someone had vouched for them (``ckpt.save`` itself refuses non-finite tensors)."""
    meta, st, js = ckpt.read_manifest(stem)
    save_file(tensors, str(st))
    edit_json(js, lambda m: m.update(weights_sha256=ckpt.file_sha256(st)))


# ---------------------------------------------------------------- checkpoints


def test_a_flipped_exponent_byte_is_refused_everywhere(exported, tmp_path, capsys):
    stem = copy_checkpoint(exported[0], tmp_path)
    st = ckpt.read_manifest(stem)[1]
    flip_exponent(st, "model.policy.weight")
    with pytest.raises(ckpt.CheckpointError, match="do not match the sha256 in model-ckpt.json.*restore it"):
        ckpt.load(stem)
    capsys.readouterr()
    assert main(["eval", f"checkpoint:{stem}.json", "random", "--deals", "1", "--no-progress"]) == 2
    assert "do not match the sha256" in capsys.readouterr().err
    # export refuses it rather than writing fresh, valid hashes over the corruption
    assert main(["export", str(stem), "--out", str(tmp_path / "out.onnx")]) == 2
    assert "do not match the sha256" in capsys.readouterr().err and not (tmp_path / "out.onnx").exists()
    # and --rehash never replaces a recorded hash
    before = (tmp_path / "model-ckpt.json").read_bytes()
    assert main(["export", "--rehash", str(stem) + ".json"]) == 2
    assert "never replaces a recorded hash" in capsys.readouterr().err
    assert (tmp_path / "model-ckpt.json").read_bytes() == before


def test_a_checkpoint_without_its_hash_is_refused_until_rehashed(exported, tmp_path, capsys):
    stem = copy_checkpoint(exported[0], tmp_path)
    js = stem.with_suffix(".json")
    edit_json(js, lambda m: m.pop("weights_sha256"))
    with pytest.raises(ckpt.CheckpointError, match=r"carries no weights_sha256.*`cavallo export --rehash .*model-ckpt\.json`"):
        ckpt.load(stem)
    assert main(["export", str(stem), "--out", str(tmp_path / "out.onnx")]) == 2
    assert "cavallo export --rehash" in capsys.readouterr().err and not (tmp_path / "out.onnx").exists()
    assert main(["eval", f"checkpoint:{js}", "random", "--deals", "1", "--no-progress"]) == 2
    capsys.readouterr()
    # the user vouches for the file: --rehash records its hash, and it loads
    assert main(["export", "--rehash", str(js)]) == 0
    assert "recorded sha256" in capsys.readouterr().out
    tensors, meta = ckpt.load(stem)
    assert meta["weights_sha256"] == ckpt.file_sha256(ckpt.read_manifest(stem)[1]) and tensors
    assert main(["export", "--rehash", str(stem)]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["export", str(stem), "--out", str(tmp_path / "out.onnx")]) == 0


def test_a_legacy_pair_without_its_hash_is_rehashed_in_place(tmp_path, capsys):
    """A checkpoint of the older layout (``<name>.safetensors`` beside ``<name>.json``), e.g. a
    shipped pair copied and renamed: --rehash adds the hash and leaves the weights as they are."""
    shutil.copy(ROOT / "checkpoints" / "previous" / "briscola-ppo.safetensors", tmp_path / "b.safetensors")
    shutil.copy(ROOT / "checkpoints" / "previous" / "briscola-ppo.json", tmp_path / "b.json")
    weights = (tmp_path / "b.safetensors").read_bytes()
    edit_json(tmp_path / "b.json", lambda m: m.pop("weights_sha256"))
    with pytest.raises(ckpt.CheckpointError, match="carries no weights_sha256"):
        ckpt.load(tmp_path / "b")
    assert main(["export", "--rehash", str(tmp_path / "b.safetensors")]) == 0
    assert (tmp_path / "b.safetensors").read_bytes() == weights
    assert json.loads((tmp_path / "b.json").read_text())["weights_sha256"] == hashlib.sha256(weights).hexdigest()
    ckpt.load(tmp_path / "b")


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_checkpoint_weights_are_refused(exported, tmp_path, capsys, bad):
    stem = copy_checkpoint(exported[0], tmp_path)
    tensors = load_file(str(ckpt.read_manifest(stem)[1]))
    tensors["model.policy.bias"][3] = bad
    vouch_tensors(stem, tensors)
    with pytest.raises(ckpt.CheckpointError, match=r"non-finite values \(NaN or Inf\) in model.policy.bias \(1 of"):
        ckpt.load(stem)
    assert main(["eval", f"checkpoint:{stem}", "random", "--deals", "1", "--no-progress"]) == 2
    assert main(["export", str(stem), "--out", str(tmp_path / "out.onnx")]) == 2
    assert "non-finite" in capsys.readouterr().err and not (tmp_path / "out.onnx").exists()
    # --rehash does not vouch for non-finite weights either
    edit_json(stem.with_suffix(".json"), lambda m: m.pop("weights_sha256"))
    assert main(["export", "--rehash", str(stem)]) == 2
    assert "non-finite" in capsys.readouterr().err
    assert "weights_sha256" not in json.loads(stem.with_suffix(".json").read_text())


def test_save_refuses_non_finite_tensors_and_keeps_the_last_good_checkpoint(exported, tmp_path):
    stem = copy_checkpoint(exported[0], tmp_path)
    tensors, meta = ckpt.load(stem)
    before = sorted(p.name for p in tmp_path.iterdir())
    bad = dict(tensors, **{"model.policy.weight": tensors["model.policy.weight"] * float("nan")})
    with pytest.raises(ckpt.CheckpointError, match="cannot save .*non-finite.*model.policy.weight"):
        ckpt.save(stem, bad, meta)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    ckpt.load(stem)


def tiny_config() -> dict:
    return {"name": "verify", "seed": 2, "device": "cpu", "threads": 1, "updates": 2, "games": 4,
            "checkpoint_every": 1, "model": {"hidden": [16]}, "ppo": {"epochs": 1, "minibatch_size": 64},
            "league": {"mix": {"self": 0.5, "greedy": 0.5}, "snapshot_every": 1},
            "eval": {"every": 0, "deals": 1, "jobs": 1, "opponents": ["greedy"]}}


def test_resume_refuses_an_unverifiable_or_non_finite_last(tmp_path, capsys):
    from training.config import from_dict
    from training.ppo import train

    cfg = from_dict(tiny_config())
    train(cfg, tmp_path / "run", progress=False, stop_at=1, log=lambda m: None)
    last = tmp_path / "run" / "checkpoints" / "last"
    tensors, _ = ckpt.load(last)
    good = {k: v.clone() for k, v in tensors.items()}
    optim = next(k for k in sorted(tensors) if k.startswith("optim.") and k.endswith("exp_avg_sq"))
    tensors[optim].view(-1)[0] = float("nan")
    vouch_tensors(last, tensors)
    capsys.readouterr()
    assert main(["train", "--resume", str(tmp_path / "run"), "--no-progress"]) == 2
    assert f"non-finite values (NaN or Inf) in {optim}" in capsys.readouterr().err
    vouch_tensors(last, good)
    edit_json(last.with_suffix(".json"), lambda m: m.pop("weights_sha256"))
    assert main(["train", "--resume", str(tmp_path / "run"), "--no-progress"]) == 2
    assert "cavallo export --rehash" in capsys.readouterr().err
    assert main(["export", "--rehash", str(last) + ".json"]) == 0
    assert main(["train", "--resume", str(tmp_path / "run"), "--no-progress"]) == 0
    assert ckpt.load(last)[1]["step"] == 2


# ---------------------------------------------------------------- exported models


def test_a_flipped_byte_in_an_exported_model_is_refused(exported, tmp_path, capsys):
    model = copy_model(exported[1], tmp_path)
    data = bytearray(model.read_bytes())
    init = next(i for i in onnx.load(str(model)).graph.initializer if i.name == "policy.weight")
    at = bytes(data).index(init.raw_data) + 3  # the first weight's exponent byte
    data[at] ^= 0x20
    model.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="does not match its sidecar.*re-export it"):
        make(f"policy:{model}")
    assert main(["eval", f"policy:{model}", "random", "--deals", "1", "--no-progress"]) == 2
    assert "does not match its sidecar" in capsys.readouterr().err
    assert main(["export", "--rehash", str(model)]) == 2
    assert "never replaces a recorded hash" in capsys.readouterr().err


def test_an_exported_model_without_its_hash_is_refused_until_rehashed(exported, tmp_path, capsys):
    model = copy_model(exported[1], tmp_path)
    edit_json(model.with_suffix(".json"), lambda m: m.pop("onnx_sha256"))
    with pytest.raises(ModelError, match=r"carries no onnx_sha256.*cavallo export CHECKPOINT --out .*m\.onnx.*"
                                         r"`cavallo export --rehash .*m\.onnx`"):
        make(f"policy:{model}")
    assert main(["eval", f"policy:{model}", "random", "--deals", "1", "--no-progress"]) == 2
    assert "cavallo export --rehash" in capsys.readouterr().err
    assert main(["export", "--rehash", str(model)]) == 0
    assert "recorded sha256" in capsys.readouterr().out
    assert json.loads(model.with_suffix(".json").read_text())["onnx_sha256"] == hashlib.sha256(
        model.read_bytes()).hexdigest()
    assert make(f"policy:{model}").game == "cavalloicera"
    assert main(["export", "--rehash", str(model)]) == 0
    assert "nothing to do" in capsys.readouterr().out


def _with_initializer(model_path: Path, out: Path, name: str, fn) -> Path:
    m = onnx.load(str(model_path))
    init = next(i for i in m.graph.initializer if i.name == name)
    arr = numpy_helper.to_array(init).copy()
    fn(arr)
    init.CopyFrom(numpy_helper.from_array(arr, name))
    onnx.save(m, str(out))
    return out


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_weights_in_an_exported_model_are_refused(exported, tmp_path, capsys, bad):
    model = copy_model(exported[1], tmp_path)
    _with_initializer(model, model, "body.0.bias", lambda a: a.__setitem__(5, bad))
    edit_json(model.with_suffix(".json"), lambda m: m.update(onnx_sha256=hashlib.sha256(model.read_bytes()).hexdigest()))
    with pytest.raises(ModelError, match=r"not all finite: NaN or Inf in initializer 'body.0.bias' \(1 of"):
        make(f"policy:{model}")
    assert main(["eval", f"policy:{model}", "random", "--deals", "1", "--no-progress"]) == 2
    edit_json(model.with_suffix(".json"), lambda m: m.pop("onnx_sha256"))
    assert main(["export", "--rehash", str(model)]) == 2
    assert "not all finite" in capsys.readouterr().err


def _tiny_graph(tensor, *, constant: bool = False) -> bytes:
    """A one-node ONNX model holding ``tensor`` as an initializer or as a Constant node's value."""
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    if constant:
        nodes, inits = [helper.make_node("Constant", [], ["y"], value=tensor)], []
    else:
        nodes, inits = [helper.make_node("Identity", [tensor.name], ["y"])], [tensor]
    return helper.make_model(helper.make_graph(nodes, "g", [], [out], initializer=inits)).SerializeToString()


@pytest.mark.parametrize("dtype", [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.BFLOAT16])
@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("constant", [False, True])
def test_the_onnx_reader_finds_non_finite_values_in_every_encoding(dtype, raw, constant):
    """``check_finite_onnx`` reads the protobuf itself (the runtime has no onnx package): NaN in
    float32, float64, float16 or bfloat16 tensors, stored raw or as typed fields, as an
    initializer or inside a Constant node, is found; the same tensor finite passes."""
    for values, finite in (([0.5, -2.0, 3.0], True), ([0.5, float("nan"), 3.0], False), ([float("-inf")], False)):
        tensor = helper.make_tensor("w", dtype, [len(values)], values, raw=False)
        if raw:
            arr = numpy_helper.to_array(tensor)
            tensor = numpy_helper.from_array(arr, "w") if dtype != TensorProto.BFLOAT16 else helper.make_tensor(
                "w", dtype, [len(values)], (np.asarray(values, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes(),
                raw=True)
        assert tensor.HasField("raw_data") == raw
        data = _tiny_graph(tensor, constant=constant)
        if finite:
            check_finite_onnx(data, "m.onnx")
        else:
            with pytest.raises(ModelError, match="m.onnx: the model's weights are not all finite"):
                check_finite_onnx(data, "m.onnx")


def test_export_checks_the_graph_it_wrote(exported, tmp_path, monkeypatch):
    """A graph that comes out of the exporter with a non-finite weight is never moved into place."""
    import training.export as ex

    real = ex._export_onnx

    def poisoned(net, path):
        real(net, path)
        _with_initializer(path, path, "policy.bias", lambda a: a.__setitem__(0, float("nan")))

    monkeypatch.setattr(ex, "_export_onnx", poisoned)
    with pytest.raises(ex.ExportError, match="not all finite"):
        export_checkpoint(exported[0], tmp_path / "out.onnx", check_deals=8)
    assert not (tmp_path / "out.onnx").exists()


# ---------------------------------------------------------------- what ships


@pytest.mark.parametrize("game", sorted(SHIPPED))
def test_the_shipped_models_and_checkpoints_verify(game, tmp_path, capsys):
    model = shipped_model(game)
    stem = ROOT / "checkpoints" / game
    if not (model.is_file() and stem.with_suffix(".json").is_file()):
        pytest.skip(f"the shipped {game} model or its checkpoint is not in this checkout")
    assert make(f"policy:{game}").game == game
    assert make("policy:default", game=game).game == game
    tensors, meta = ckpt.load(stem)
    assert meta["game"] if game != "cavalloicera" else True
    weights = ckpt.read_manifest(stem)[1]  # Cavalloìcera's and Scopa's: the older layout, as first shipped
    assert weights == (stem.with_suffix(".safetensors") if game != "briscola" else
                       stem.parent / f"{game}.{meta['weights_sha256'][:16]}.safetensors")
    # their hashes are there and match: --rehash of a copy has nothing to do and changes no byte
    for path in (copy_model(model, tmp_path / "m"), copy_checkpoint(stem, tmp_path / "c").with_suffix(".json")):
        before = path.with_suffix(".json").read_bytes()
        assert main(["export", "--rehash", str(path)]) == 0
        assert "nothing to do" in capsys.readouterr().out
        assert path.with_suffix(".json").read_bytes() == before
