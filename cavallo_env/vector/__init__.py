"""The batched env: n tables of one game stepped at once, numpy arrays in and out (docs/environment.md,
"The batched env").

::

    from cavallo_env.vector import BatchedEnv
    env = BatchedEnv("briscola", 1024, bots={1: "random"}, seed=0)   # the learner plays seat 0
    obs, mask, seat = env.reset()                                     # float32 (n, 376), bool (n, 40), int8 (n,)
    obs, mask, seat, rewards, done = env.step(actions)                # rewards float32 (n, 2), done bool (n,)

``SingleAgentVectorEnv`` is the same as a ``gymnasium.vector.VectorEnv`` (the
learner at one seat, fixed bots at the others).  On the compiled core
(``cavallo_env.core``) when it is built, else (or with ``CAVALLO_CORE=python``,
or ``backend="python"``) on the Python engines, with the same arrays.
"""

from __future__ import annotations

from .batched import BOTS, BatchedEnv
from .games import BACKENDS, TABLES, choose_backend
from .gymenv import SingleAgentVectorEnv

__all__ = ["BOTS", "BACKENDS", "BatchedEnv", "SingleAgentVectorEnv", "TABLES", "choose_backend"]
