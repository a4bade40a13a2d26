"""The compiled core (cavallo_env/core, docs/core.md): C11 sources bound with Cython.

Everything else about the package is in pyproject.toml; this file only
declares the extension modules, which `pip install .`, `pip install -e .` and
`pip wheel .` compile with the C compiler found (Debian's gcc).
"""

from setuptools import Extension, setup

try:
    from Cython.Build import cythonize
except ImportError:  # pip installs it from [build-system] requires; a build by hand needs it too
    raise SystemExit("building cavallo_env's compiled core needs Cython: pip install 'cython>=3.0' "
                     "(pip install . and pip install -e . bring it themselves)") from None

CORE = "cavallo_env/core"


SEARCH = {  # a game's ISMCTS search in C, where it has one
    "briscola": [f"{CORE}/briscola_search.c", f"{CORE}/ismcts_tree.c"],
    "cavalloicera": [f"{CORE}/cavalloicera_search.c", f"{CORE}/ismcts_tree.c"],
    "scopa": [f"{CORE}/scopa_search.c", f"{CORE}/ismcts_tree.c"],
}


def core_extension(game: str) -> Extension:
    """The extension of one game: its Cython binding, its C rules (and search), Python's random and the
    policy network's forward pass (mlp.c) in C."""
    return Extension(
        f"cavallo_env.core._{game}",
        sources=[f"{CORE}/_{game}.pyx", f"{CORE}/{game}.c", f"{CORE}/{game}_bots.c", f"{CORE}/pyrandom.c",
                 f"{CORE}/mlp.c"]
        + SEARCH.get(game, []),
        depends=[f"{CORE}/{game}.h", f"{CORE}/{game}_bots.h", f"{CORE}/batch.h", f"{CORE}/pyrandom.h",
                 f"{CORE}/pysum.h", f"{CORE}/_tables.pxi",
                 f"{CORE}/mlp.h", f"{CORE}/_mlp.pxi", f"{CORE}/search_common.h", f"{CORE}/_search_tree.pxi"]
        + [src.replace(".c", ".h") for src in SEARCH.get(game, [])],
        include_dirs=[CORE],
        extra_compile_args=["-std=c11", "-O3"],
    )


extensions = [core_extension("briscola"), core_extension("cavalloicera"), core_extension("scopa")]

setup(ext_modules=cythonize(extensions, language_level=3))
