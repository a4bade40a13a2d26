"""Version 1 import path: this module is ``cavallo_env.cavalloicera.cards`` (Cavalloìcera's cards)."""

import sys

from .cavalloicera import cards as _module

sys.modules[__name__] = _module
