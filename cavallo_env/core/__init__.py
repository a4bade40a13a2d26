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

The switch, ``CAVALLO_CORE`` in the environment: unset, empty or ``auto``
(the core where it is built, else the Python engines), ``python`` (the
Python engines everywhere: the reference), ``core`` (the core; an error
saying how to build it where it is not built).  The rest of the package asks
``enabled()`` which to run on, and code that needs the core calls
``require()``.
"""

from __future__ import annotations

import importlib
import os

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


SWITCH = "CAVALLO_CORE"  # the environment variable that chooses between the core and the Python engines
CHOICES = ("auto", "python", "core")


def choice() -> str:
    """The value of ``CAVALLO_CORE``: ``"auto"`` (also when unset or empty), ``"python"`` or ``"core"``;
    ValueError naming the variable for anything else."""
    value = os.environ.get(SWITCH, "").strip().lower() or "auto"
    if value not in CHOICES:
        raise ValueError(f"{SWITCH} must be one of {', '.join(CHOICES)} (or unset), got "
                         f"{os.environ[SWITCH]!r:.40}")
    return value


def enabled() -> bool:
    """Whether to run on the compiled core: built and not ``CAVALLO_CORE=python``.  With
    ``CAVALLO_CORE=core`` a core that is not built is an ImportError saying how to build it."""
    wanted = choice()
    if wanted == "python":
        return False
    missing = missing_reason()
    if missing is not None and wanted == "core":
        raise ImportError(f"{SWITCH}=core but {missing}")
    return missing is None


def require() -> None:
    """For code that runs only on the core: nothing when it can; else an error saying why
    (``CAVALLO_CORE=python``, or the core not built and how to build it)."""
    if choice() == "python":
        raise RuntimeError(f"this needs the compiled core, and {SWITCH}=python switches it off: "
                           f"unset {SWITCH} (or set it to core) to use it")
    missing = missing_reason()
    if missing is not None:
        raise ImportError(missing)


__all__ = ["BUILD_HINT", "CHOICES", "GAMES", "SWITCH", "available", "choice", "enabled", "extension",
           "missing_reason", "require"]
