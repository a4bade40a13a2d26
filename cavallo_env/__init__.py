"""cavallo-env: Cavalloìcera for reinforcement learning.

- ``cavallo_env.engine``   the rules (pure Python)
- ``cavallo_env.actions``  the Discrete(156) action space with capture building
- ``cavallo_env.records``  game records: write, read, replay and check
- ``cavallo_env.views``    what one seat sees (the bot protocol)
- ``cavallo_env.bots``     baseline bots and the in-game AI runtime
- ``cavallo_env.env(...)`` / ``raw_env(...)``: the PettingZoo AEC environment
"""

__version__ = "0.1.0"

#: version of the action contract (CONTRACT.md) implemented here
ACTION_CONTRACT_VERSION = "cavalloicera-actions/1"


def __getattr__(name):
    # The env pulls in numpy/gymnasium/pettingzoo; keep `import cavallo_env` light
    # so the rules engine and the policy runtime load without them.
    if name in ("env", "raw_env", "CavalloEnv"):
        from . import aec as _env_module

        return getattr(_env_module, name)
    raise AttributeError(f"module 'cavallo_env' has no attribute {name!r}")
