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
    """The bots and the prior of a game's core tables (a mixin of ``CoreTables``; the game sets ``GAME`` and
    ``PRIOR_SIZE``, and ``CORE_BOTS`` / ``CORE_PRIOR`` where not all of them are in the core)."""

    GAME = ""  # the game's name (cavallo_env.games)
    PRIOR_SIZE = 0  # floats of the game's prior: score and choice blocks, NUM_ACTIONS each
    CORE_BOTS = BOTS  # the bots this game has in the core
    CORE_PRIOR = True  # whether this game's prior is in the core

    def bot_actions(self, bot: str, where=None) -> np.ndarray:
        """int32 (n,): the next action of ``bot``'s move (``"greedy"`` or ``"heuristic"``) for each table's
        seat to act; -1 where the deal is over (and where ``where`` is false, if given).

        The tables' own actions array (as ``random_actions()``): ``step`` takes it without a copy, and
        the next call overwrites it.  A capture built over several actions is continued towards the move
        the bot chose (its first action is the move's card, then its table cards one at a time).
        """
        if bot not in BOTS:
            raise ValueError(f"bot must be one of {', '.join(map(repr, BOTS))}, got {bot!r:.40}")
        if bot not in self.CORE_BOTS:
            raise NotImplementedError(f"the {bot} bot of {self.GAME} is not in the compiled core yet: play it "
                                      f"through the Python bot (cavallo_env.bots.make({bot!r}, game={self.GAME!r}))")
        self._tables.bot_actions(BOTS.index(bot), where_array(where, self.n))
        return self._actions

    def prior(self, where=None) -> np.ndarray:
        """float32 (n, PRIOR_SIZE): the heuristic prior of each table's seat to act, as the game's
        ``prior.action_prior`` writes it; zeros where the deal is over (and where ``where`` is false).

        The tables' own buffer, overwritten by the next call: copy what you keep.
        """
        if not self.CORE_PRIOR:
            raise NotImplementedError(f"the heuristic prior of {self.GAME} is not in the compiled core yet: "
                                      f"compute it with cavallo_env.{self.GAME}.prior.action_prior")
        out = getattr(self, "_prior_out", None)
        if out is None:
            out = self._prior_out = np.zeros((self.n, self.PRIOR_SIZE), np.float32)
        self._tables.prior(out, where_array(where, self.n))
        return out


__all__ = ["BOTS", "BotTables"]
