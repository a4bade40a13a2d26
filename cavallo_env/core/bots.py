"""The fixed bots and the heuristic prior on the compiled core, batched (docs/core.md, "The bots in the core").

``BotTables`` is what a game's tables (``BriscolaTables``, ...) add to
``CoreTables``: ``bot_actions(bot)`` is the next action of the ``greedy`` or
``heuristic`` bot's move at every table, for its seat to act, and ``prior()``
the ``<game>-prior/1`` heuristic prior of that seat, the same numbers as the
game's ``prior.action_prior`` (float32).  Both read only what the seat to act
knows, as the Python bots do, and choose exactly as they do.
"""

from __future__ import annotations

import numpy as np

from .tables import where_array

BOTS = ("greedy", "heuristic")  # the fixed bots in the core, by their bots.make names


class BotTables:
    """The bots and the prior of a game's core tables (a mixin of ``CoreTables``; the game sets ``PRIOR_SIZE``)."""

    PRIOR_SIZE = 0  # floats of the game's prior: score and choice blocks, NUM_ACTIONS each

    def bot_actions(self, bot: str, where=None) -> np.ndarray:
        """int32 (n,): the next action of ``bot``'s move (``"greedy"`` or ``"heuristic"``) for each table's
        seat to act; -1 where the deal is over (and where ``where`` is false, if given).

        The tables' own actions array (as ``random_actions()``): ``step`` takes it without a copy, and
        the next call overwrites it.  A capture built over several actions is continued towards the move
        the bot chose (its first action is the move's card, then its table cards one at a time).
        """
        if bot not in BOTS:
            raise ValueError(f"bot must be one of {', '.join(map(repr, BOTS))}, got {bot!r:.40}")
        self._tables.bot_actions(BOTS.index(bot), where_array(where, self.n))
        return self._actions

    def prior(self, where=None) -> np.ndarray:
        """float32 (n, PRIOR_SIZE): the heuristic prior of each table's seat to act, as the game's
        ``prior.action_prior`` writes it; zeros where the deal is over (and where ``where`` is false).

        The tables' own buffer, overwritten by the next call: copy what you keep.
        """
        out = getattr(self, "_prior_out", None)
        if out is None:
            out = self._prior_out = np.zeros((self.n, self.PRIOR_SIZE), np.float32)
        self._tables.prior(out, where_array(where, self.n))
        return out


__all__ = ["BOTS", "BotTables"]
