"""What the compiled core's tests share (tests/test_core_*.py): the skip when the core is not built,
the number of deals (``CAVALLO_CORE_DEALS``), the seeds, and the speed benchmark on tiny settings."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import random

import numpy as np
import pytest

from cavallo_env import core

# deals per deck and option of the differential tests; the benchmark-sized run sets 100000
DEALS = int(os.environ.get("CAVALLO_CORE_DEALS", "2000"))


def require_core() -> None:
    """Skip the calling test module, saying how to build the core, when the core is not built; with
    ``CAVALLO_REQUIRE_CORE=1`` (CI) fail instead."""
    missing = core.missing_reason()
    if missing is None:
        return
    if os.environ.get("CAVALLO_REQUIRE_CORE") == "1":
        raise ImportError(f"CAVALLO_REQUIRE_CORE=1 but {missing}")
    pytest.skip(missing, allow_module_level=True)


def seeds(n: int, salt: int) -> list[int]:
    """Small, negative and full 64-bit seeds."""
    rng = random.Random(salt)
    return [rng.choice((i, -i, rng.getrandbits(64), rng.getrandbits(32))) for i in range(n)]


def core_speed(*args: str) -> int:
    """benchmarks/core_speed.py's main(args) on tiny settings (so it does not rot); its exit code."""
    path = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "core_speed.py"
    spec = importlib.util.spec_from_file_location("core_speed", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.main([*args, "--seconds", "0.02", "--rounds", "1", "--tables", "16"])


def fast_deals(tables_class, n: int, *keys: str, **kwargs) -> list[tuple]:
    """``keys`` of the snapshots of n tables dealt with ``rng="fast"`` from seeds 0..n-1, checked to be
    the same from a second set of tables (the fast deals are reproducible from the seed)."""
    a, b = tables_class(n, rng="fast", **kwargs), tables_class(n, rng="fast", **kwargs)
    a.reset(np.arange(n, dtype=np.uint64))
    b.reset(np.arange(n, dtype=np.uint64))
    deals = [tuple(a.snapshot(i)[k] for k in keys) for i in range(n)]
    assert deals == [tuple(b.snapshot(i)[k] for k in keys) for i in range(n)]
    return deals
