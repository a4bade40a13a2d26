"""Export a training checkpoint as the in-game AI: one ONNX file plus a JSON sidecar.

``export_checkpoint(checkpoint, out)`` loads the checkpoint ``<ckpt>.json`` and
the tensors file it names (``training.checkpoint.load``: truncated, foreign,
other-version or unverifiable checkpoints, a manifest without its
``weights_sha256`` and non-finite weights raise ``CheckpointError``: export
never writes fresh hashes over what it could not verify), rebuilds the
``PolicyNet`` from the config in the sidecar, and exports its ``forward`` with
the legacy TorchScript ONNX exporter (opset 17, no onnxscript needed):

- inputs ``obs`` float32 [batch, obs_size] and ``mask`` float32 [batch,
  num_actions] (nonzero = legal), plus ``prior`` float32 [batch, prior_size]
  for a model that reads the heuristic prior, outputs ``logits`` float32
  [batch, num_actions] (illegal actions at -1e9) and ``value`` float32
  [batch]; the batch axis is dynamic; the sizes are the checkpoint's game's
  (``cavallo_env.games.learning``: Cavalloìcera 702, 156 and 312);
- all weights inside the one ``.onnx`` file (never an external data file:
  the export happens in a private temporary folder and anything other than
  the one file it should produce is an error);
- every weight of the written graph must be finite (``cavallo_env.bots.policy.
  check_finite_onnx``, the runtime's own check);
- ``onnx.checker`` (full check, with shape inference) must pass, and
  onnxruntime must reproduce the torch outputs within ``tolerance`` (1e-5) on
  random observations and masks and on the positions of a few real deals, or
  the export fails: logits and values within 1e-5 of torch's relative to
  their size (``|d| / max(1, |x|)``: float32 logits of 50-100 differ in their
  last bits whatever the summation order), and the action probabilities
  within 1e-5 absolute (``compare``).

The sidecar ``<out stem>.json`` (format ``cavallo-policy/1``) holds the
game (``"game"``), the observation layout version, the action contract version, the sizes, the
input/output description, the model section and the whole training config,
the evaluation results found in the checkpoint (plus any passed in), the
source checkpoint (path, sha256 of its weights, step) and the sha256 of the
``.onnx``.  ``cavallo_env.bots.policy`` checks it on load.

This module imports torch and onnx (the ``train`` extra) and lives with the
trainer: the ``cavallo_env`` package never imports it (``cavallo export`` and
``cavallo demo`` do, on demand).  Until version 0.1 it was ``cavallo_env.export``.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import random
import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np

from cavallo_env import __version__, games
from cavallo_env.records import prepare_output_file
from cavallo_env.bots.policy import FORMAT, ModelError, check_finite_onnx, file_sha256, sidecar_path, sidecar_text
from training.config import ConfigError, drop_removed

OPSET = 17
TOLERANCE = 1e-5


class ExportError(ValueError):
    """The checkpoint cannot be exported (bad config, weights that do not fit, failed check)."""


def _model_config(meta: dict, where: str):
    """``ModelConfig`` from the checkpoint's ``config.model`` section (every field the model has)."""
    from training.model import ModelConfig  # lazy: torch, kept out of this torch-free module

    cfg = meta.get("config")
    section = cfg.get("model") if isinstance(cfg, dict) else None
    if section is None:
        section = meta.get("model")
    if not isinstance(section, dict):
        raise ExportError(f"{where}: the checkpoint sidecar has no model section (config.model) to rebuild the network from")
    try:  # keys of removed options at their "off" value (members: 1, mask_input: false) are dropped
        section = drop_removed({"model": section}, where)["model"]
    except ConfigError as e:
        raise ExportError(str(e)) from None
    known = {f.name for f in dataclasses.fields(ModelConfig)}
    unknown = sorted(set(section) - known)
    if unknown:
        raise ExportError(f"{where}: model option(s) {unknown} are unknown to this version's network "
                          f"(it has {sorted(known)}); export with the version that trained it")
    try:
        mc = ModelConfig(**section)
    except TypeError as e:
        raise ExportError(f"{where}: bad model section {section!r} ({e})") from None
    if not isinstance(mc.hidden, list) or not mc.hidden or not all(isinstance(h, int) and h > 0 for h in mc.hidden):
        raise ExportError(f"{where}: model.hidden must be a list of positive ints, got {mc.hidden!r}")
    return mc


def load_policy_net(checkpoint):
    """``(PolicyNet in eval mode, checkpoint meta)`` from a checkpoint; clear errors."""
    from training.checkpoint import learning_of, load, model_state, paths  # lazy: torch, kept out of this torch-free module
    from training.model import build_policy  # lazy: torch, kept out of this torch-free module

    tensors, meta = load(checkpoint)
    where = str(paths(checkpoint)[1])
    mc = _model_config(meta, where)
    try:
        net = build_policy(mc, learning_of(meta))
    except ValueError as e:
        raise ExportError(f"{where}: {e}") from None
    state = model_state(tensors)
    if not state:
        raise ExportError(f"{paths(checkpoint)[0]}: no model.* weights in the checkpoint")
    try:
        net.load_state_dict(state, strict=True)
    except RuntimeError as e:
        first = " ".join(str(e).split())[:400]
        raise ExportError(f"{paths(checkpoint)[0]}: the weights do not fit the model {mc.to_dict()} "
                          f"described in the sidecar: {first}") from None
    net.eval()
    return net, meta


def _export_onnx(net, path: Path) -> None:
    import torch  # lazy: torch, kept out of this torch-free module

    obs_size, num_actions, prior_size = net.sizes
    args = [torch.zeros(2, obs_size, dtype=torch.float32), torch.ones(2, num_actions, dtype=torch.float32)]
    names = ["obs", "mask"]
    if net.uses_prior:
        args.append(torch.zeros(2, prior_size, dtype=torch.float32))
        names.append("prior")
    axes = {n: {0: "batch"} for n in names + ["logits", "value"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.no_grad():
            torch.onnx.export(
                net, tuple(args), str(path), dynamo=False, external_data=False, export_params=True,
                input_names=names, output_names=["logits", "value"], dynamic_axes=axes,
                opset_version=OPSET, do_constant_folding=True,
            )


def random_inputs(n: int, seed: int = 0, prior: bool = False, learning=None):
    """Random float32 observations in [0, 1) and masks with at least one legal action per row;
    with ``prior`` also random priors shaped like real ones (scores in [-8, 0] on legal
    actions, one legal choice): ``(obs, mask[, prior])``, sized for ``learning``'s game
    (default Cavalloìcera)."""
    learning = learning or _default_learning()
    OBS_SIZE, NUM_ACTIONS, PRIOR_SIZE = learning.obs_size, learning.num_actions, learning.prior_size
    rng = np.random.default_rng(seed)
    obs = rng.random((n, OBS_SIZE), dtype=np.float32)
    mask = (rng.random((n, NUM_ACTIONS)) < 0.15).astype(np.float32)
    choice = rng.integers(0, NUM_ACTIONS, n)
    mask[np.arange(n), choice] = 1.0
    if not prior:
        return obs, mask
    pri = np.zeros((n, PRIOR_SIZE), np.float32)
    pri[:, :NUM_ACTIONS] = np.where(mask != 0, -8.0 * rng.random((n, NUM_ACTIONS), dtype=np.float32), 0.0)
    pri[np.arange(n), choice] = 0.0
    pri[np.arange(n), NUM_ACTIONS + choice] = 1.0
    return obs, mask, pri


def _default_learning():
    return games.get(games.DEFAULT_GAME).learning()


def game_inputs(deals: int = 8, seed: int = 0, prior: bool = False, learning=None):
    """Observations and masks (and with ``prior`` the heuristic priors) of real positions of
    ``learning``'s game (default Cavalloìcera): every decision of ``deals`` deals of random
    play, capture-building steps included."""
    learning = learning or _default_learning()
    obs, masks, priors = [], [], []
    for d in range(deals):
        table = learning.table(learning.deal(seed * 1_000_003 + d))
        rng = random.Random(d)
        while not table.done:
            acts = table.legal_actions()
            o = np.empty(learning.obs_size, np.float32)
            table.observation(table.current, o)
            obs.append(o)
            m = np.zeros(learning.num_actions, np.float32)
            m[acts] = 1.0
            masks.append(m)
            if prior:
                p = np.empty(learning.prior_size, np.float32)
                table.prior(p)
                priors.append(p)
            table.step(rng.choice(acts))
    out = (np.stack(obs), np.stack(masks))
    return out + (np.stack(priors),) if prior else out


def compare(net, onnx_path, obs, mask, prior=None) -> dict:
    """How far onnxruntime's outputs are from torch's on a batch.

    ``max_abs``: the largest absolute difference of legal logits and values;
    ``max_scaled``: the same divided by ``max(1, |torch value|)`` (float32
    carries ~7 digits, so logits of 50-100 differ in their last bits whatever
    the summation order); ``max_prob``: the largest absolute difference of the
    action probabilities (softmax over the legal actions).  Masked logits must
    be exactly equal (the mask constant); otherwise everything is ``inf``.
    """
    import onnxruntime as ort  # lazy: onnxruntime, an optional extra
    import torch  # lazy: torch, kept out of this torch-free module

    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    feeds = {"obs": obs, "mask": mask}
    if prior is not None:
        feeds["prior"] = prior
    logits, value = sess.run(["logits", "value"], feeds)
    with torch.no_grad():
        t_prior = torch.from_numpy(prior) if prior is not None else None
        t_logits, t_value = (t.numpy() for t in net(torch.from_numpy(obs), torch.from_numpy(mask), t_prior))
    legal = mask != 0
    if not np.array_equal(logits[~legal], t_logits[~legal]):
        inf = float("inf")
        return {"max_abs": inf, "max_scaled": inf, "max_prob": inf}
    d_logit = np.abs(logits[legal] - t_logits[legal])
    d_value = np.abs(value - t_value)

    def probs(x):
        z = np.where(legal, x, -np.inf)
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    return {
        "max_abs": float(max(d_logit.max(), d_value.max())),
        "max_scaled": float(max((d_logit / np.maximum(1.0, np.abs(t_logits[legal]))).max(),
                                (d_value / np.maximum(1.0, np.abs(t_value))).max())),
        "max_prob": float(np.abs(probs(logits) - probs(t_logits)).max()),
    }


def export_checkpoint(checkpoint, out, *, evaluation: dict | None = None, tolerance: float = TOLERANCE,
                      check_deals: int = 256) -> tuple[Path, Path]:
    """Write ``out`` (.onnx) and its sidecar; returns both paths.  See the module doc."""
    from training.checkpoint import learning_of, paths, weights_path  # lazy: torch, kept out of this torch-free module

    out = Path(out)
    if out.suffix != ".onnx":
        raise ExportError(f"--out must name a .onnx file, got {str(out)!r}")
    net, meta = load_policy_net(checkpoint)
    st_path = weights_path(paths(checkpoint)[1], meta)
    about = {
        "model": net.cfg.to_dict(),
        "training_config": meta.get("config"),
        "evaluation": _evaluation(meta, evaluation),
        "source": {
            "checkpoint": str(st_path),
            "checkpoint_sha256": meta["weights_sha256"],  # the bytes load() verified
            "step": meta.get("step", meta.get("global_step")),
            "updates": meta.get("update", meta.get("updates")),
            "seed": meta.get("seed"),
        },
        "exported_by": f"cavallo-env {__version__}",
    }
    return write_verified(net, out, learning_of(meta), about, use_prior=net.uses_prior, tolerance=tolerance,
                          check_deals=check_deals)


def write_verified(net, out: Path, learning, about: dict, *, use_prior: bool, tolerance: float, check_deals: int,
                   game_deals: int = 8) -> tuple[Path, Path]:
    """Export ``net`` (``forward(obs, mask[, prior]) -> (logits, value)``) to ``out`` and its sidecar.

    The file is written in a temporary folder beside ``out`` and checked
    first: one self-contained file, ``onnx.checker``, and onnxruntime against
    torch on ``check_deals`` random inputs and the positions of ``game_deals``
    deals within ``tolerance``.  The sidecar holds the game's contract
    (versions, sizes, inputs and outputs), the file's hash, the checks and
    ``about`` (model, training, evaluation, source, exporter).  Only then are
    both moved into place; ``ExportError`` says what failed.
    """
    folder = prepare_output_file(out)
    try:
        tmpdir = Path(tempfile.mkdtemp(dir=folder, prefix=".export-"))
    except OSError as e:  # e.g. a folder that refuses new files: name the user's path, not a temporary one
        raise ExportError(f"cannot write {out}: {e.strerror or e}") from None
    try:
        tmp = tmpdir / "model.onnx"
        _export_onnx(net, tmp)
        _check_file(tmpdir, tmp, out)
        checks = {}
        for label, inputs in (("random_inputs", random_inputs(check_deals, prior=use_prior, learning=learning)),
                              ("game_positions", game_inputs(game_deals, prior=use_prior, learning=learning))):
            c = compare(net, tmp, *inputs)
            c["n"] = len(inputs[0])
            checks[label] = c
            if not (c["max_scaled"] <= tolerance and c["max_prob"] <= tolerance):
                raise ExportError(f"onnxruntime and torch differ on {label.replace('_', ' ')}: logits/values by "
                                  f"{c['max_abs']:g} ({c['max_scaled']:g} relative to their size), probabilities "
                                  f"by {c['max_prob']:g}; the tolerance is {tolerance:g}")
        sidecar = dict(_contract(learning, use_prior), onnx_file=out.name, onnx_sha256=file_sha256(tmp), **about,
                       check=dict(checks, tolerance=tolerance),
                       exported_at=_dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat())
        meta_path = sidecar_path(out)
        tmp_json = tmpdir / "model.json"
        tmp_json.write_text(sidecar_text(sidecar), encoding="utf-8")
        os.replace(tmp, out)
        os.replace(tmp_json, meta_path)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return out, meta_path


def _check_file(tmpdir: Path, tmp: Path, out: Path) -> None:
    """The exported file is one self-contained .onnx with finite weights that passes ``onnx.checker``."""
    import onnx  # lazy: onnx, the optional train extra

    produced = sorted(p.name for p in tmpdir.iterdir())
    if produced != ["model.onnx"]:
        raise ExportError(f"the ONNX export wrote {produced}, expected a single self-contained file")
    model = onnx.load(str(tmp), load_external_data=False)
    for init in model.graph.initializer:
        if init.data_location == onnx.TensorProto.EXTERNAL:
            raise ExportError(f"initializer {init.name} is stored outside the .onnx file")
    try:
        check_finite_onnx(tmp.read_bytes(), out)
    except ModelError as e:
        raise ExportError(str(e)) from None
    try:
        onnx.checker.check_model(model, full_check=True)
    except onnx.checker.ValidationError as e:
        raise ExportError(f"the exported graph fails onnx.checker: {e}") from None


def _contract(learning, use_prior: bool) -> dict:
    """The sidecar's game contract: versions, sizes, the graph's inputs and outputs."""
    return {
        "format": FORMAT,
        "game": learning.game,
        "obs_version": learning.obs_version,
        "action_version": learning.action_version,
        "obs_size": learning.obs_size,
        "num_actions": learning.num_actions,
        "inputs": dict({"obs": ["batch", learning.obs_size, "float32"],
                        "mask": ["batch", learning.num_actions, "float32, nonzero = legal"]},
                       **({"prior": ["batch", learning.prior_size, "float32, the game's heuristic prior"]}
                          if use_prior else {})),
        "prior_version": learning.prior_version if use_prior else None,
        "outputs": {"logits": ["batch", learning.num_actions, "float32, illegal = -1e9"],
                    "value": ["batch", "float32"]},
        "opset": OPSET,
    }


def _evaluation(meta: dict, extra: dict | None):
    found = {}
    for key in ("eval", "evaluation", "evals", "eval_history", "final_eval"):
        if meta.get(key) is not None:
            found[key] = meta[key]
    if extra:
        found.update(extra)
    return found or None
