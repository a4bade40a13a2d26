"""Version 1 import path: this module is ``cavallo_env.cavalloicera.values`` (Cavalloìcera's card values)."""

import sys

from ..cavalloicera import values as _module

sys.modules[__name__] = _module
