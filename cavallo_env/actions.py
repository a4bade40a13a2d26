"""Version 1 import path: this module is ``cavallo_env.cavalloicera.actions`` (Cavalloìcera's action space)."""

import sys

from .cavalloicera import actions as _module

sys.modules[__name__] = _module
