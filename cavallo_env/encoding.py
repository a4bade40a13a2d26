"""Version 1 import path: this module is ``cavallo_env.cavalloicera.encoding`` (Cavalloìcera's observation encoder)."""

import sys

from .cavalloicera import encoding as _module

sys.modules[__name__] = _module
