"""Checkpoints: a JSON manifest ``<name>.json`` naming one ``.safetensors`` file of tensors.

On disk a checkpoint ``runs/<run>/checkpoints/last`` is::

    last.json                         the manifest (the sidecar), written last
    last.<16 hex digits>.safetensors  every tensor: weights, optimizer, league, RNG

The manifest carries the format tag, the game (``"game"``; a checkpoint
without one is Cavalloìcera's), the training config, seed, step, the game's
observation layout, action contract and prior versions, evaluation results,
the name of its tensors file (``"weights"``, a file beside it) and that file's
sha256 (``weights_sha256``).  Optimizer and RNG state for ``--resume`` go in
the same safetensors file under ``optim.*``/``rng.*`` keys (tensors, never
pickles).

Saving is atomic as a whole (``save``): the tensors go to a temporary file,
are flushed to disk and renamed to a name of their own, the first 16 hex
digits of their sha256, which no other save of that checkpoint overwrites;
then the manifest is written to a temporary file and renamed over
``<name>.json``, the one step that makes the new checkpoint visible; only then
are the previous tensors file and the temporary files of an interrupted save
removed.  A ``kill -9`` at any instant leaves either the previous complete
checkpoint or the new one, and ``--resume`` works from either.

Loading (``load``) refuses anything it cannot verify, with a message that says
what to do: a missing, truncated or foreign file, another game's or version's
checkpoint, a manifest without ``weights_sha256`` (``cavallo export --rehash
<name>.json`` adds it for a file the user vouches for, ``rehash``), tensors
whose sha256 differs, and weights that are not finite (NaN or Inf).  Older
checkpoints, whose tensors are ``<name>.safetensors`` (the shipped
``checkpoints/*.safetensors`` + ``.json`` pairs), load the same way: their
manifest names that file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_bytes
from safetensors.torch import load_file, save_file

from cavallo_env import games
from cavallo_env.records import open_temp

FORMAT = "cavallo-checkpoint/1"
#: how many hex digits of the tensors' sha256 name their file (``<name>.<digits>.safetensors``)
NAME_DIGITS = 16
_SHA256 = re.compile(r"[0-9a-f]{64}")


class CheckpointError(ValueError):
    """A checkpoint that is missing, truncated, foreign, unverifiable or from another layout."""


def paths(base) -> tuple[Path, Path]:
    """``(<stem>.safetensors, <stem>.json)`` for ``base``, which may name the manifest (.json),
    a tensors file (``<stem>.safetensors`` or ``<stem>.<digits>.safetensors``) or the stem.

    The first path is the tensors file of the older layout; the manifest's ``weights`` names
    the actual one (``weights_path``)."""
    base = Path(base)
    if base.suffix == ".safetensors":
        base = base.with_suffix("")
        if re.fullmatch(rf"\.[0-9a-f]{{{NAME_DIGITS}}}", base.suffix):
            base = base.with_suffix("")
    elif base.suffix == ".json":
        base = base.with_suffix("")
    return base.with_suffix(".safetensors"), base.with_suffix(".json")


def weights_path(json_path, meta: dict) -> Path:
    """The tensors file of a manifest: the ``<name>.<digits>.safetensors`` that ``meta["weights"]``
    names, beside the manifest; for a checkpoint of the older layout (``weights`` without the
    digits, or none), ``<manifest stem>.safetensors`` as it always was, whatever the pair was
    renamed to."""
    json_path = Path(json_path)
    name = meta.get("weights")
    if isinstance(name, str) and re.fullmatch(rf"[^/\\]+\.[0-9a-f]{{{NAME_DIGITS}}}\.safetensors", name) \
            and not name.startswith("."):
        return json_path.with_name(name)
    return json_path.with_suffix(".safetensors")


def _fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (a rename) to disk where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows: folders cannot be opened
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - file systems without directory fsync
        pass
    finally:
        os.close(fd)


def _write_temp(folder: Path, prefix: str, write) -> str:
    """``write(tmp)`` a new temporary file in ``folder`` and flush it to disk; returns its path.

    The temp file is created with the permissions of any new file (0o666 minus
    the umask, ``records.open_temp``), not mkstemp's 0o600, and keeps them
    whatever ``write`` does (safetensors replaces the file with its own 0o600
    one), so checkpoints are as readable as the user's other files.
    """
    fd, tmp = open_temp(folder, prefix=prefix)
    try:
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
    finally:
        os.close(fd)
    try:
        write(tmp)
        if stat.S_IMODE(os.stat(tmp).st_mode) != mode:
            os.chmod(tmp, mode)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return tmp


def _write_json(path: str, meta: dict) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True)


def _replace_manifest(json_path: Path, meta: dict) -> None:
    """Write ``meta`` to a temporary file and rename it over ``json_path`` (the commit of a save)."""
    tmp = _write_temp(json_path.parent, f".tmp-{json_path.name}-", lambda t: _write_json(t, meta))
    try:
        os.replace(tmp, json_path)
    except BaseException:
        os.unlink(tmp)
        raise
    _fsync_dir(json_path.parent)


def learning_of(meta: dict):
    """The ``Learning`` of the checkpoint's game (``meta["game"]``, Cavalloìcera without one)."""
    name = meta.get("game", games.DEFAULT_GAME)
    try:
        return games.get(name).learning()
    except ValueError as e:
        raise CheckpointError(f"the checkpoint is of {e}") from None


#: dtypes numpy counts the finite values of itself
_NUMPY_FLOATS = (torch.float16, torch.float32, torch.float64, torch.complex64, torch.complex128)


def _non_finite(t: torch.Tensor) -> int:
    """How many values of ``t`` are NaN or Inf, counted by numpy where it can: a torch reduction
    over a large tensor starts torch's OpenMP threads, and a process forked after that (the
    workers of ``cavallo eval --jobs N``, which load the bots the parent has checked) hangs in
    its own first parallel reduction (tests/test_evaluation_jobs.py)."""
    if t.dtype in _NUMPY_FLOATS:
        return int(t.numel() - np.count_nonzero(np.isfinite(t.detach().cpu().numpy())))
    return int(t.numel() - torch.isfinite(t).sum())


def check_finite(tensors: dict[str, torch.Tensor], where) -> None:
    """``CheckpointError`` naming the tensors that hold NaN or Inf (floating-point tensors only)."""
    bad = []
    for name in sorted(tensors):
        t = tensors[name]
        if t.is_floating_point() or t.is_complex():
            n = _non_finite(t)
            if n:
                bad.append(f"{name} ({n} of {t.numel()})")
    if bad:
        more = f" and {len(bad) - 3} more tensors" if len(bad) > 3 else ""
        raise CheckpointError(f"{where}: non-finite values (NaN or Inf) in {', '.join(bad[:3])}{more}: a diverged "
                              "run or a damaged file cannot play or train; use an earlier checkpoint "
                              "(checkpoints/update-NNNNN) or retrain")


def save(base, tensors: dict[str, torch.Tensor], meta: dict) -> tuple[Path, Path]:
    """Write the tensors, then the manifest, atomically as a whole (see the module doc);
    returns ``(tensors file, manifest)``.  Non-finite tensors are refused before anything is
    written, so a diverged run never replaces its last good checkpoint."""
    json_path = paths(base)[1]
    learning = learning_of(meta)
    flat = {k: v.detach().contiguous().cpu() for k, v in tensors.items()}
    check_finite(flat, f"cannot save {json_path}")
    folder = json_path.parent
    folder.mkdir(parents=True, exist_ok=True)
    stem = json_path.stem
    tmp = _write_temp(folder, f".tmp-{stem}.safetensors-", lambda t: save_file(flat, t))
    try:
        sha = file_sha256(tmp)
        st_path = folder / f"{stem}.{sha[:NAME_DIGITS]}.safetensors"
        os.replace(tmp, st_path)  # a name of its own: the manifest on disk still names its own file
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)
    meta = dict(meta, format=FORMAT, obs_version=learning.obs_version, action_version=learning.action_version,
                weights=st_path.name, weights_sha256=sha)
    meta["game"] = learning.game
    if uses_prior(meta):
        meta["prior_version"] = learning.prior_version
    _replace_manifest(json_path, meta)
    _remove_leftovers(folder, stem, keep=st_path.name)
    return st_path, json_path


def _remove_leftovers(folder: Path, stem: str, keep: str) -> None:
    """Remove the files of ``stem`` that its manifest no longer names: earlier tensors files
    (``<stem>.<digits>.safetensors``, the older layout's ``<stem>.safetensors``) and the
    temporary files of interrupted saves."""
    old = re.compile(rf"{re.escape(stem)}(\.[0-9a-f]{{{NAME_DIGITS}}})?\.safetensors")
    temp = (f".tmp-{stem}.safetensors-", f".tmp-{stem}.json-")
    for p in folder.iterdir():
        if p.name != keep and (old.fullmatch(p.name) or p.name.startswith(temp)):
            try:
                os.unlink(p)
            except FileNotFoundError:  # pragma: no cover - removed meanwhile
                pass


def read_manifest(base) -> tuple[dict, Path, Path]:
    """``(meta, tensors file, manifest)`` of a checkpoint, its format checked (not its files)."""
    json_path = paths(base)[1]
    if not json_path.exists():
        raise CheckpointError(f"{json_path}: checkpoint sidecar not found (the manifest <name>.json, beside the "
                              "<name>.*.safetensors it names)")
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{json_path}: not a valid JSON sidecar ({e}); truncated or foreign file?") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise CheckpointError(f"{json_path}: not a cavallo checkpoint (format {got!r}, expected {FORMAT!r})")
    st_path = weights_path(json_path, meta)
    if not st_path.exists():
        raise CheckpointError(f"{st_path}: checkpoint weights not found (named by {json_path.name}); copy a "
                              "checkpoint as its .json together with the .safetensors file it names")
    return meta, st_path, json_path


def _read_tensors(st_path: Path) -> dict[str, torch.Tensor]:
    try:
        return load_file(str(st_path))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{st_path}: cannot read weights ({e}); truncated or foreign file?") from None


def load(base, *, check_versions: bool = True) -> tuple[dict[str, torch.Tensor], dict]:
    """Read and verify a checkpoint; ``CheckpointError`` says what is wrong and what to do."""
    meta, st_path, json_path = read_manifest(base)
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
    if want is None:
        raise CheckpointError(f"{json_path}: the manifest carries no weights_sha256, so {st_path.name} cannot be "
                              "verified and is not used; if you vouch for that file, record its hash with "
                              f"`cavallo export --rehash {json_path}` (docs/training.md, Checkpoints)")
    if not isinstance(want, str) or not _SHA256.fullmatch(want):
        raise CheckpointError(f"{json_path}: weights_sha256 is {want!r}, not a sha256 (64 hex digits); "
                              "restore the manifest or retrain")
    with open(st_path, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != want:
        raise CheckpointError(f"{st_path}: the weights do not match the sha256 in {json_path.name}: a truncated "
                              "or foreign file, or one damaged or changed after it was saved; restore it or retrain")
    try:
        tensors = load_bytes(data)  # the verified bytes, not the file read again
    except (SafetensorError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{st_path}: cannot read weights ({e}); truncated or foreign file?") from None
    check_finite(tensors, st_path)
    return tensors, meta


def rehash(base) -> tuple[Path, str, bool]:
    """Record the sha256 of a checkpoint's tensors file in a manifest that lacks it:
    ``(manifest, sha256, whether the manifest was changed)``.

    For a file the user vouches for (``cavallo export --rehash``): the file must
    still read as safetensors with finite weights, and a hash already recorded is
    never replaced (a different one is an error: the file changed since it was saved).
    """
    meta, st_path, json_path = read_manifest(base)
    sha = file_sha256(st_path)
    want = meta.get("weights_sha256")
    if want is not None:
        if want != sha:
            raise CheckpointError(f"{st_path}: the weights do not match the sha256 in {json_path.name}, and "
                                  "--rehash never replaces a recorded hash: restore the file, or retrain")
        return json_path, sha, False
    check_finite(_read_tensors(st_path), st_path)
    _replace_manifest(json_path, dict(meta, weights_sha256=sha))
    return json_path, sha, True


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
