"""cavallo-env: Italian card games for reinforcement learning -- Cavalloìcera, Briscola and Scopa.

- ``cavallo_env.games``    the game layer: ``games.get(name)`` for every game
- ``cavallo_env.briscola`` / ``cavallo_env.scopa``: those games (``env()``, ``raw_env()``, ``GAME``)
- ``cavallo_env.cavalloicera`` Cavalloìcera (the rules in ``.engine``, the actions in ``.actions``, ...)
- ``cavallo_env.records``  game records of every game: write, read, replay and check
- ``cavallo_env.errors``   the error types (``ViewError``, ``RecordError``, ``BotSpecError``)
- ``cavallo_env.bots``     baseline bots and the in-game AI runtime
- ``cavallo_env.env(...)`` / ``raw_env(...)``: the PettingZoo AEC environment,
  also registered with PettingZoo's registry as ``ENV_ID``
  (``pettingzoo.make("aec", "cavallo/Cavalloicera-v1")`` after ``import cavallo_env``;
  likewise ``"cavallo/Briscola-v1"`` and ``"cavallo/Scopa-v1"``)
"""

import sys as _sys

__version__ = "0.1.0"

#: version of the action contract (docs/contract.md) implemented here
ACTION_CONTRACT_VERSION = "cavalloicera-actions/1"  # == cavalloicera.actions.ACTION_VERSION

_REGISTRY_MODULE = "pettingzoo.env_registry.registration"


def _register_env(registration) -> None:
    """Register every game's env in PettingZoo's AEC registry (``games.register_envs``)."""
    # lazy: called only once PettingZoo's registry loads; `import cavallo_env` imports nothing else
    from .games import register_envs

    register_envs(registration)


class _RegisterOnImport:
    """Registers the env as soon as PettingZoo's registry module is imported.

    ``import cavallo_env`` must stay light (no numpy, gymnasium or pettingzoo),
    yet ``pettingzoo.make("aec", ENV_ID)`` must work after it whichever of the
    two packages is imported first.  This meta-path finder only looks at the
    registry module's name: when it is imported, it wraps the module's
    ``exec_module`` to register the env right after the module has run, and
    then takes itself off ``sys.meta_path``.
    """

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _REGISTRY_MODULE:
            return None
        if self in _sys.meta_path:
            _sys.meta_path.remove(self)
        from importlib.util import find_spec  # lazy: `import cavallo_env` loads nothing but itself

        spec = find_spec(fullname)
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module):
            run(module)
            try:
                _register_env(module)
            except Exception:  # never break pettingzoo's own import
                pass

        loader.exec_module = exec_module
        return spec

    def invalidate_caches(self):
        pass


if _REGISTRY_MODULE in _sys.modules:
    _register_env(_sys.modules[_REGISTRY_MODULE])
elif not any(isinstance(f, _RegisterOnImport) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _RegisterOnImport())


def __getattr__(name):
    # The env pulls in numpy/gymnasium/pettingzoo; keep `import cavallo_env` light
    # so the rules engine and the policy runtime load without them.
    if name in ("env", "raw_env", "CavalloiceraEnv"):
        from .cavalloicera import aec as _env_module  # lazy: numpy, gymnasium, pettingzoo

        return getattr(_env_module, name)
    if name == "ENV_ID":  # id of the environment in PettingZoo's registry, defined with the game
        from .cavalloicera import ENV_ID  # lazy: `import cavallo_env` loads nothing but itself

        return ENV_ID
    raise AttributeError(f"module 'cavallo_env' has no attribute {name!r}")
