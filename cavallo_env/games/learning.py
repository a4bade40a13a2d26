"""What a learner needs of a game: action-level tables, observations and the heuristic prior.

The PettingZoo env is the public way in; a trainer stepping hundreds of
deals in lockstep, and the in-game runtime of a trained policy, need the same
pieces without the per-agent dict plumbing.  Each game provides them in its
``learning`` module as ``LEARNING``, a ``Learning`` (``game.learning()``):

- the sizes and contract versions a model is built for and checked against
  (``obs_size``, ``num_actions``, ``prior_size`` and the three versions);
- ``deal(seed, **options)``: a random start from an integer seed (the same
  start as ``game.new_state(seed=seed)``);
- ``table(state)``: a ``Table``, that state driven one *action* at a time
  (the env's action space: capture games build a capture over several
  actions), with the seat-relative observation of any seat and the
  heuristic prior of the seat to act.

A ``Table`` is what the trainer's rollout driver, its warm start and the
``policy:`` runtime step.  Nothing here imports torch; observations and
priors are float32 numpy rows written into the caller's buffers.
"""

from __future__ import annotations

import numpy as np
from . import get
from .base import OnState


class Table(OnState):
    """One game in progress, driven by action ids (see the module doc)."""

    #: the engine state (its ``current`` and ``done`` are the table's)
    state = None

    def legal_actions(self) -> list[int]:
        """The legal action ids of the seat to act, increasing."""
        raise NotImplementedError

    def step(self, action: int):
        """Apply a legal action; the move it completes, or None while a move is being built."""
        raise NotImplementedError

    def move_actions(self, move) -> list[int]:
        """The action sequence that plays ``move`` (a legal move of the seat to act)."""
        raise NotImplementedError

    def observation(self, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation (what it sees, seat-relative) into ``out`` [obs_size]."""
        raise NotImplementedError

    def prior(self, out: np.ndarray) -> None:
        """Write the heuristic prior of the seat to act into ``out`` [prior_size]."""
        raise NotImplementedError

    def heuristic_move(self):
        """The move the game's ``heuristic`` bot plays here, from the state (no view round trip)."""
        raise NotImplementedError

    def returns(self, reward: str = "points") -> list[float]:
        """Per-team reward once the game is over (team 0, team 1): by default the state's
        ``returns`` (``"points"``: the point difference; ``"win"``: +1/0/-1)."""
        return self.state.returns(reward)


class PriorTable(Table):
    """A ``Table`` over an action driver ``game`` whose prior and heuristic move share ``cache``.

    A subclass sets ``game`` (what the game's prior module reads: the action
    driver, or the state where every action is a move) and ``cache`` (the
    prior module's ``PriorCache``), and names the prior module's two functions
    as ``action_prior = staticmethod(...)`` and ``heuristic = staticmethod(...)``.
    """

    __slots__ = ()
    action_prior = heuristic = None

    def legal_actions(self) -> list[int]:
        return self.game.legal_actions()

    def prior(self, out: np.ndarray) -> None:
        self.action_prior(self.game, out, self.cache)

    def heuristic_move(self):
        return self.heuristic(self.game, self.cache)


class Learning:
    """A game's learning interface (see the module doc)."""

    game = ""
    obs_size = 0
    num_actions = 0
    prior_size = 0
    obs_version = ""
    action_version = ""
    prior_version = ""
    num_seats = 2

    def __init_subclass__(cls, *, game: str = "", table=None, obs=None, actions=None, prior=None, **kw):
        """A game declares itself in its class line: ``class BriscolaLearning(Learning, game="briscola",
        table=BriscolaTable, obs=(OBS_SIZE, OBS_VERSION), actions=(NUM_ACTIONS, ACTION_VERSION),
        prior=(PRIOR_SIZE, PRIOR_VERSION))``; what it leaves out is inherited."""
        super().__init_subclass__(**kw)
        if game:
            cls.game = game
        if table is not None:
            cls.table_class = table
        if obs is not None:
            cls.obs_size, cls.obs_version = obs
        if actions is not None:
            cls.num_actions, cls.action_version = actions
        if prior is not None:
            cls.prior_size, cls.prior_version = prior

    def team_of(self, seat: int) -> int:
        return seat % 2

    def deal(self, seed: int, **options):
        """A random start from ``seed`` (``game.new_state(seed=seed, **options)``)."""

        return get(self.game).new_state(seed=seed, **options)

    #: the game's ``Table`` class, made by ``table(state)``
    table_class = Table

    def table(self, state) -> Table:
        """``state`` driven one action at a time."""
        return self.table_class(state)

    def solvable(self, state) -> bool:
        """Whether the seat to play at ``state`` can be played exactly (``solve``): a game whose
        ending becomes a game of perfect information says so there.  None of them by default."""
        return False

    def searched(self, state) -> bool:
        """Whether a policy with a search (``policy:...@search=N``) hands the decision at ``state``
        to the search: the decisions where searching measured a gain over the model.  A game
        that does not override it has no such decisions and refuses the option (``searches``)."""
        return False

    @property
    def searches(self) -> bool:
        """Whether the game names decisions to search (overrides ``searched``); ``policy:...@search=N``
        is refused otherwise."""
        return type(self).searched is not Learning.searched

    def solve(self, state, prefer):
        """The best move at a ``solvable`` ``state`` (as the game's solver values it); ``prefer``
        (a legal move, e.g. the policy's) first among equals."""
        raise NotImplementedError(f"{self.game} has no exact endgame")

    def sizes(self) -> dict:
        """What a model of this game is built for (recorded in checkpoints and exports)."""
        return {"game": self.game, "obs_size": self.obs_size, "num_actions": self.num_actions,
                "prior_size": self.prior_size, "obs_version": self.obs_version,
                "action_version": self.action_version, "prior_version": self.prior_version}


def decide_move(table: Table, pick, uses_prior: bool, learning: Learning, endgame: bool = False):
    """The move of the seat to act at ``table``, chosen one action at a time.

    At every step with more than one legal action, ``pick(obs, mask, prior,
    acts)`` returns the action: ``obs`` float32 [1, obs_size] is the seat's
    observation, ``mask`` float32 [1, num_actions] its legal actions,
    ``prior`` float32 [1, prior_size] the heuristic prior (None unless
    ``uses_prior``) and ``acts`` the legal action ids; ``obs`` is a new array
    at every step, ``mask`` and ``prior`` are reused.  Shared by the ONNX runtime (``policy:``) and the trainer's
    ``checkpoint:`` bot, so both step through a move the same way.

    With ``endgame`` and where the game can play the position exactly
    (``learning.solvable``), the answer is ``learning.solve``'s, the policy's own
    move first among the moves of the same value.
    """
    exact = endgame and learning.solvable(table.state)
    start = table.state.copy() if exact else None
    seat = table.current
    mask = np.zeros((1, learning.num_actions), np.float32)
    prior = np.zeros((1, learning.prior_size), np.float32) if uses_prior else None
    while True:
        acts = table.legal_actions()
        if len(acts) == 1:
            action = acts[0]
        else:
            mask[0, :] = 0.0
            mask[0, acts] = 1.0
            if prior is not None:
                table.prior(prior[0])
            obs = np.empty((1, learning.obs_size), np.float32)
            table.observation(seat, obs[0])
            action = pick(obs, mask, prior, acts)
        move = table.step(action)
        if move is not None:
            return learning.solve(start, move) if exact else move
