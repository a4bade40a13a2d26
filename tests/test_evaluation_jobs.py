"""``cavallo eval --jobs N`` with a bot that reads a training checkpoint: the parent makes every
bot once (a bad spec fails there) and then forks its workers, which make them again.  Reading a
checkpoint checks its tensors for NaN and Inf; done by a torch reduction, that started torch's
OpenMP threads in the parent and the forked worker hung in its own first one
(``training/checkpoint.py``, ``_non_finite``).  Each run is a subprocess with a deadline, so a
hang fails the test instead of stalling the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core_harness import require_core

require_core()
torch = pytest.importorskip("torch")

from training.checkpoint import CheckpointError, check_finite  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("spec", [
    "search:briscola,model=checkpoints/briscola.json,ms=0,iterations=20",
    "checkpoint:checkpoints/briscola.json",
])
def test_two_jobs_with_a_checkpoint_bot_finish(spec):
    cmd = [sys.executable, "-m", "cavallo_env.cli", "eval", "--game", "briscola", "--deals", "2", "--seed", "1",
           "--jobs", "2", "--no-progress", spec, "greedy"]
    try:
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"cavallo eval --jobs 2 with {spec} did not finish in 120 s (a forked worker hung)")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "A wins / draws / losses" in done.stdout


def test_the_finite_check_counts_as_before():
    tensors = {"big": torch.zeros(100_000), "f64": torch.tensor([1.0, float("nan"), float("inf")], dtype=torch.float64),
               "bf16": torch.tensor([float("nan"), 0.0], dtype=torch.bfloat16), "ints": torch.arange(5)}
    with pytest.raises(CheckpointError, match=r"in bf16 \(1 of 2\), f64 \(2 of 3\):"):
        check_finite(tensors, "x")
    check_finite({"big": torch.ones(100_000), "ints": torch.arange(5)}, "x")  # all finite: no error
