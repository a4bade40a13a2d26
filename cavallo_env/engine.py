"""Version 1 import path: this module is ``cavallo_env.cavalloicera.engine`` (Cavalloìcera's rules)."""

import sys

from .cavalloicera import engine as _module

sys.modules[__name__] = _module
