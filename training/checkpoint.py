"""Checkpoints: ``<name>.safetensors`` (tensors only) + ``<name>.json`` (sidecar).

The sidecar carries the format tag, the game (``"game"``; a checkpoint
without one is Cavalloìcera's), the training config, seed, step, the
game's observation layout, action contract and prior versions, evaluation results and the
sha256 of the weights file (``weights_sha256``), checked on every load: a
damaged or edited ``.safetensors`` is refused instead of playing as another
model (a checkpoint written before the hash existed loads unchecked).
Optimizer and RNG state for ``--resume`` go in the same safetensors file under
``optim.*``/``rng.*`` keys (tensors, never pickles).  Both files are written to
a temp name and renamed, so a crash never leaves a half checkpoint; loading
checks both and says clearly what is wrong with a truncated or foreign file.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from cavallo_env.records import open_temp

FORMAT = "cavallo-checkpoint/1"


class CheckpointError(ValueError):
    """A checkpoint that is missing, truncated, foreign or from another layout."""


def paths(base) -> tuple[Path, Path]:
    """``base`` may name the .safetensors, the .json or the common stem."""
    base = Path(base)
    if base.suffix in (".safetensors", ".json"):
        base = base.with_suffix("")
    return base.with_suffix(".safetensors"), base.with_suffix(".json")


def _atomic_write(path: Path, write) -> None:
    """``write(tmp)`` a temp file beside ``path``, then rename it over ``path``.

    The temp file is created with the permissions of any new file (0o666 minus
    the umask, ``records.open_temp``), not mkstemp's 0o600, and keeps them
    whatever ``write`` does (safetensors replaces the file with its own 0o600
    one), so checkpoints are as readable as the user's other files.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = open_temp(path.parent, prefix=".tmp-" + path.name)
    try:
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
    finally:
        os.close(fd)
    try:
        write(tmp)
        if stat.S_IMODE(os.stat(tmp).st_mode) != mode:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def learning_of(meta: dict):
    """The ``Learning`` of the checkpoint's game (``meta["game"]``, Cavalloìcera without one)."""
    from cavallo_env import games

    name = meta.get("game", "cavalloicera")
    try:
        return games.get(name).learning()
    except ValueError as e:
        raise CheckpointError(f"the checkpoint is of {e}") from None


def save(base, tensors: dict[str, torch.Tensor], meta: dict) -> tuple[Path, Path]:
    """Write tensors and the sidecar atomically (tensors first, sidecar last)."""
    st_path, json_path = paths(base)
    learning = learning_of(meta)
    meta = dict(meta, format=FORMAT, obs_version=learning.obs_version, action_version=learning.action_version,
                weights=st_path.name)
    meta["game"] = learning.game
    if uses_prior(meta):
        meta["prior_version"] = learning.prior_version
    flat = {k: v.detach().contiguous().cpu() for k, v in tensors.items()}
    _atomic_write(st_path, lambda tmp: save_file(flat, tmp))
    meta["weights_sha256"] = file_sha256(st_path)

    def write_json(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1, sort_keys=True)

    _atomic_write(json_path, write_json)
    return st_path, json_path


def load(base, *, check_versions: bool = True) -> tuple[dict[str, torch.Tensor], dict]:
    """Read a checkpoint; ``CheckpointError`` says what is wrong."""
    st_path, json_path = paths(base)
    if not json_path.exists():
        raise CheckpointError(f"{json_path}: checkpoint sidecar not found (expected <name>.json beside <name>.safetensors)")
    if not st_path.exists():
        raise CheckpointError(f"{st_path}: checkpoint weights not found")
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{json_path}: not a valid JSON sidecar ({e}); truncated or foreign file?") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise CheckpointError(f"{json_path}: not a cavallo checkpoint (format {got!r}, expected {FORMAT!r})")
    if check_versions:
        try:
            learning = learning_of(meta)
        except CheckpointError as e:
            raise CheckpointError(f"{json_path}: {e}") from None
        for key, want in (("obs_version", learning.obs_version), ("action_version", learning.action_version)):
            if meta.get(key) != want:
                raise CheckpointError(f"{json_path}: {key} is {meta.get(key)!r} but this cavallo-env uses {want!r}; "
                                      "retrain or use the matching cavallo-env version")
        if uses_prior(meta) and meta.get("prior_version") != learning.prior_version:
            raise CheckpointError(f"{json_path}: the model reads heuristic prior {meta.get('prior_version')!r} but "
                                  f"this cavallo-env computes {learning.prior_version!r}; retrain or use the matching version")
    want = meta.get("weights_sha256")
    if want is not None and file_sha256(st_path) != want:
        raise CheckpointError(f"{st_path}: the weights do not match the sha256 in {json_path.name}: a truncated "
                              "or foreign file, or one damaged or changed after it was saved; restore it or retrain")
    try:
        tensors = load_file(str(st_path))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{st_path}: cannot read weights ({e}); truncated or foreign file?") from None
    return tensors, meta


def file_sha256(path) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def uses_prior(meta: dict) -> bool:
    """Whether the checkpoint's model reads the heuristic prior (``model.prior`` in its config)."""
    model = meta.get("config", {}).get("model", {}) if isinstance(meta.get("config"), dict) else {}
    return bool(isinstance(model, dict) and model.get("prior", False))


def model_state(tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The ``model.*`` entries with the prefix removed (for ``load_state_dict``)."""
    return {k[len("model."):]: v for k, v in tensors.items() if k.startswith("model.")}
