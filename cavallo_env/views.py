"""Views: what one seat sees, as JSON (docs/contract.md, "Bots and the in-game AI").

Every game writes its own views (``cavallo_env.<game>.views``: ``make_view``
and ``state_from_view``, which checks a view and rebuilds a state consistent
with it); this module holds what they share: ``ViewError``, ``require`` and
``unreadable`` (defined in ``cavallo_env.errors``).  A view names its
game in ``"game"`` (a view without it is Cavalloìcera's, as in version 1);
``cavallo_env.games.of_view`` and ``checked_view`` route a view to its game.
"""

from __future__ import annotations

from .cavalloicera.views import legal_moves_of, make_view, move_from_dict, move_to_dict, state_from_view  # noqa: F401  (version 1 import paths: Cavalloìcera's views lived here)
from .errors import ViewError, require, unreadable  # noqa: F401  (re-exported: their home until errors.py)
