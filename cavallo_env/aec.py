"""Version 1 import path: this module is ``cavallo_env.cavalloicera.aec`` (Cavalloìcera's PettingZoo env)."""

import sys

from .cavalloicera import aec as _module

sys.modules[__name__] = _module
