"""The compiled core: the games' rules in C, stepped in batches (docs/core.md).

The pure-Python engines (``cavallo_env.briscola.engine``, ...) stay the
reference and the readable spec; the core is their compiled twin, proven
identical by the differential tests (tests/test_core_*.py).  Built by
``pip install .`` / ``pip install -e .`` (setup.py: Cython + setuptools, a C
compiler); ``available()`` says whether this checkout has it, and
``BUILD_HINT`` how to build it.

Briscola (``cavallo_env.core.briscola.BriscolaTables``), Cavalloìcera
(``cavallo_env.core.cavalloicera.CavalloiceraTables``) and Scopa
(``cavallo_env.core.scopa.ScopaTables``).
"""

from __future__ import annotations

BUILD_HINT = ("the compiled core (cavallo_env/core) is not built: run `pip install -e .` in the repository "
              "(it needs a C compiler, e.g. Debian's gcc: apt-get install gcc), or, in a checkout installed "
              "already, `pip install cython && python setup.py build_ext --inplace`")


def missing_reason() -> str | None:
    """None when the compiled core imports; otherwise why not and how to build it."""
    try:
        from . import _briscola, _cavalloicera, _scopa  # noqa: F401  (the compiled extensions)
    except ImportError as e:
        return f"{BUILD_HINT} ({e})"
    return None


def available() -> bool:
    """Whether the compiled core is built and imports."""
    return missing_reason() is None


__all__ = ["BUILD_HINT", "available", "missing_reason"]
