"""Version 1 import path: this module is ``cavallo_env.cavalloicera.heuristic`` (Cavalloìcera's heuristic bot)."""

import sys

from ..cavalloicera import heuristic as _module

sys.modules[__name__] = _module
