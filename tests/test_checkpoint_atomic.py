"""A checkpoint's save is atomic as a whole: killed at any instant, ``last`` is the previous
complete checkpoint or the new one, and ``cavallo train --resume`` continues from it.

The kills happen in forked children: once deterministically at every file operation of a
save (``os.open``, ``os.fsync``, ``os.replace``, ``os.unlink``, ``os.chmod``: the child
``os._exit(137)``s just before the k-th one), then with a real ``SIGKILL`` at random instants
of a child that saves over and over.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import time
import traceback
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("yaml")

from cavallo_env.cli import main  # noqa: E402
from training import checkpoint as ckpt  # noqa: E402
from training.config import from_dict  # noqa: E402
from training.ppo import train  # noqa: E402
from training.run import Run  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the kills run in forked children")

#: the file operations a kill is injected before
OPS = ("open", "fsync", "replace", "unlink", "chmod")


def config():
    """A run small enough to resume many times: 4 games an update, a 16-unit net, no evaluation."""
    return from_dict({
        "name": "atomic", "seed": 5, "device": "cpu", "threads": 1, "updates": 2, "games": 4, "checkpoint_every": 1,
        "model": {"hidden": [16]}, "ppo": {"epochs": 1, "minibatch_size": 64, "lr": 1e-3},
        "league": {"mix": {"self": 0.5, "greedy": 0.5}, "snapshot_every": 1},
        "eval": {"every": 0, "deals": 1, "jobs": 1, "opponents": ["greedy"]},
    })


def in_child(fn) -> int:
    """Run ``fn()`` in a forked child; its exit code (0 when ``fn`` returns, 1 when it raises)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            torch.set_num_threads(1)
            fn()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def kill_before_op(k: int) -> None:
    """From now on in this process, every ``training.checkpoint.save`` counts its file operations
    and the process dies (exit 137, like ``kill -9``) just before the k-th one (from 0)."""
    real_save = ckpt.save
    count = [0]

    def counting(name):
        real = getattr(os, name)

        def op(*a, **kw):
            if count[0] == k:
                os._exit(137)
            count[0] += 1
            return real(*a, **kw)

        return real, op

    def save(*a, **kw):
        pairs = {name: counting(name) for name in OPS}
        for name, (_, op) in pairs.items():
            setattr(os, name, op)
        try:
            return real_save(*a, **kw)
        finally:
            for name, (real, _) in pairs.items():
                setattr(os, name, real)

    ckpt.save = save


def model_of(run_dir: Path) -> dict:
    tensors, _ = ckpt.load(run_dir / "checkpoints" / "last")
    return {k: v for k, v in tensors.items() if k.startswith("model.")}


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def files_of_last(run_dir: Path) -> list[str]:
    return sorted(p.name for p in (run_dir / "checkpoints").iterdir() if "last" in p.name)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A run stopped after update 1 (``last`` at update 1) and the new state a save writes:
    the same run with every weight moved by 1e-3 (``last`` of ``old`` vs ``new``)."""
    root = tmp_path_factory.mktemp("atomic")
    cfg = config()
    train(cfg, root / "base", progress=False, stop_at=1, log=lambda m: None)
    old = model_of(root / "base")
    new = {k: v + 1e-3 for k, v in old.items()}
    return root, cfg, old, new


def save_new_state(cfg, run_dir: Path, new: dict) -> None:
    """Resume the run (as ``--resume`` does), move it to ``new`` weights and save ``last``."""
    run = Run.resume(cfg, run_dir, "cpu")
    with torch.no_grad():
        for k, p in run.model.state_dict().items():
            p.copy_(new[f"model.{k}"])
    run.save()


def test_a_kill_before_any_file_operation_of_a_save_leaves_a_resumable_checkpoint(base, tmp_path):
    root, cfg, old, new = base
    outcomes, k = [], 0
    while True:
        run_dir = tmp_path / f"kill-{k}"
        shutil.copytree(root / "base", run_dir)

        def child():
            kill_before_op(k)
            save_new_state(cfg, run_dir, new)

        code = in_child(child)
        assert code in (0, 137), (k, code)
        got = model_of(run_dir)  # loads, verified: hash, finite, versions
        assert same(got, old) or same(got, new), f"killed before file operation {k}: last is neither checkpoint"
        outcomes.append("new" if same(got, new) else "old")
        resumed = Run.resume(cfg, run_dir, "cpu")  # what `cavallo train --resume` loads
        assert resumed.counters["update"] == 1
        if code == 0:  # the save finished before operation k: every operation has had its kill
            assert outcomes[-1] == "new"
            break
        k += 1
        assert k < 100, "a save of more than 100 file operations?"
    assert k >= 10, f"a save of only {k} file operations: the kills did not reach it"
    # the commit point: the previous checkpoint until the manifest's rename, the new one from then on
    first_new = outcomes.index("new")
    assert outcomes[:first_new] == ["old"] * first_new and outcomes[first_new:] == ["new"] * (k + 1 - first_new)
    assert 0 < first_new < k
    # resuming after a kill on either side of the commit trains on, and its save clears the leftovers
    for i in (first_new - 1, first_new):
        run_dir = tmp_path / f"kill-{i}"
        assert main(["train", "--resume", str(run_dir), "--no-progress"]) == 0
        tensors, meta = ckpt.load(run_dir / "checkpoints" / "last")
        assert meta["step"] == 2 and not any(p.name.startswith(".tmp-") for p in (run_dir / "checkpoints").iterdir())
        assert files_of_last(run_dir) == sorted(["last.json", meta["weights"]])


def test_sigkill_at_random_instants_of_repeated_saves(base, tmp_path):
    """A child saves two states in turn as fast as it can; killed at random instants, ``last``
    is always one of them, whole (its step and its weights agree)."""
    root, cfg, old, new = base
    run_dir = tmp_path / "run"
    shutil.copytree(root / "base", run_dir)
    rng = random.Random(7)
    seen = set()
    for round_ in range(12):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child, killed by the parent
            try:
                torch.set_num_threads(1)
                run = Run.resume(cfg, run_dir, "cpu")
                weights = run.model.state_dict()
                i = 0
                while True:
                    state = new if i % 2 else old
                    with torch.no_grad():
                        for k, p in weights.items():
                            p.copy_(state[f"model.{k}"])
                    run.counters["update"] = 100 + i % 2
                    run.save()
                    i += 1
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.3, 0.8))  # past the child's resume, into its saves
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == -signal.SIGKILL, round_
        tensors, meta = ckpt.load(run_dir / "checkpoints" / "last")
        got = {k: v for k, v in tensors.items() if k.startswith("model.")}
        if meta["step"] == 1:  # killed before the child's first save
            assert same(got, old)
        else:
            assert meta["step"] in (100, 101) and same(got, new if meta["step"] == 101 else old), round_
        seen.add(meta["step"])
        Run.resume(cfg, run_dir, "cpu")
    assert seen & {100, 101}, "no kill landed after a save"
