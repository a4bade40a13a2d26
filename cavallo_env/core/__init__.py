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

import importlib

BUILD_HINT = ("the compiled core (cavallo_env/core) is not built: run `pip install -e .` in the repository "
              "(it needs a C compiler, e.g. Debian's gcc: apt-get install gcc), or, in a checkout installed "
              "already, `pip install cython && python setup.py build_ext --inplace`")


GAMES = ("briscola", "cavalloicera", "scopa")  # the games with a compiled extension, cavallo_env.core._<game>


def extension(game: str):
    """The compiled extension of ``game`` (``cavallo_env.core._briscola``, ...); ImportError saying how to
    build it when it is not built."""
    if game not in GAMES:
        raise ValueError(f"the compiled core has no game {game!r:.40}; its games: {', '.join(GAMES)}")
    try:
        return importlib.import_module(f"{__name__}._{game}")
    except ImportError as e:
        raise ImportError(f"{BUILD_HINT} ({e})") from None


def missing_reason() -> str | None:
    """None when the compiled core (all three extensions) imports; otherwise why not and how to build it."""
    for game in GAMES:
        try:
            extension(game)
        except ImportError as e:
            return str(e)
    return None


def available() -> bool:
    """Whether the compiled core is built and imports."""
    return missing_reason() is None


__all__ = ["BUILD_HINT", "GAMES", "available", "extension", "missing_reason"]
