"""Version 1 import path: this module is ``cavallo_env.cavalloicera.prior`` (Cavalloìcera's heuristic prior)."""

import sys

from .cavalloicera import prior as _module

sys.modules[__name__] = _module
