"""Views: what one seat sees, as JSON (docs/contract.md, "Bots and the in-game AI").

Every game writes its own views (``cavallo_env.<game>.views``: ``make_view``
and ``state_from_view``, which checks a view and rebuilds a state consistent
with it); this module holds what they share: ``ViewError``.  A view names its
game in ``"game"`` (a view without it is Cavalloìcera's, as in version 1);
``cavallo_env.games.of_view`` and ``checked_view`` route a view to its game.
"""

from __future__ import annotations


class ViewError(ValueError):
    """A view that is malformed or contradicts itself; the message says how."""


def require(view, keys) -> None:
    """``ViewError`` naming the first of ``keys`` the view lacks (a bot's quick
    check before it reads the fields it uses, without checking the whole view)."""
    if not isinstance(view, dict):
        raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
    for key in keys:
        if key not in view:
            raise ViewError(f"the view has no {key!r}")


def unreadable(e: Exception, title: str) -> ViewError:
    """The ``ViewError`` for an error raised while a bot read a view's fields."""
    return ViewError(f"not a valid {title} view ({type(e).__name__}: {str(e)[:80]})")


# version 1 import paths: Cavalloìcera's views lived here
_CAVALLOICERA = ("make_view", "state_from_view", "move_from_dict", "move_to_dict", "legal_moves_of")


def __getattr__(name):
    if name in _CAVALLOICERA:
        from .cavalloicera import views as _cavalloicera

        return getattr(_cavalloicera, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
