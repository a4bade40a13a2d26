"""``BatchedEnv``: n tables of one game stepped at once, numpy arrays in and out (docs/environment.md,
"The batched env").

Every call hands back the same arrays, row i being table i: ``obs`` float32
(n, obs_size), the AEC env's observation of the seat to act; ``mask`` bool
(n, num_actions), its legal actions; ``seat`` int8 (n,), the seat to act;
and from ``step`` also ``rewards`` float32 (n, num_seats), every seat's AEC
reward summed over the actions the step played, and ``done`` bool (n,).
They are the env's own buffers, written in place by the next call: copy
what you keep.

Bots (``bots={seat: "random"}``) play their seats inside the tables, between
the learner's actions: a step plays the learner's action at every table, then
the bots until a learner's seat is to act again.  ``BOTS`` names what a bot
spec calls on the tables (one entry a bot).

Autoreset (``autoreset=True``, Gymnasium's ``AutoresetMode.SAME_STEP``): the
step that ends a table's episode returns its final ``rewards`` and
``done=True``, and already the first ``obs``/``mask``/``seat`` of that table's
next deal (dealt from the env's seed stream, bots' opening actions played).
With ``autoreset=False`` a finished table stays finished (``seat`` -1, an
all-False mask, zero observation; its actions are ignored) until
``reset(options={"reset_mask": done})``.
"""

from __future__ import annotations

import numpy as np

from ..core.tables import RNGS
from .games import choose_backend, spec


def _random(tables, where):
    return tables.random_actions()  # draws at every table (the env keeps the actions where ``where`` is true)


#: bot spec -> ``fn(tables, where)``: that bot's next action at the tables (int32 (n,); ``where``: bool (n,), the
#: tables where the bot is to act; the env ignores the other entries).  A new bot in the core is one line here.
BOTS = {
    "random": _random,
    "greedy": lambda tables, where: tables.bot_actions("greedy", where),
    "heuristic": lambda tables, where: tables.bot_actions("heuristic", where),
}

_SEED_HIGH = 2**63


class BatchedEnv:
    """n tables of ``game``; the learner plays every seat without a bot (see the module doc)."""

    def __init__(self, game: str, num_envs: int, *, bots=None, reward: str | None = None, deck: str | None = None,
                 match: bool | None = None, rng: str = "fast", autoreset: bool = True, seed=None, backend=None):
        self.spec = s = spec(game)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r:.40}")
        if deck is None and s.decks:
            deck = s.decks[0]
        if match is None and s.has_match:
            match = True
        self.reward, self._options = s.check_options(reward, deck, match)
        if rng not in RNGS:
            raise ValueError(f"rng must be one of {', '.join(map(repr, RNGS))}, got {rng!r:.40}")
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset must be True or False, got {autoreset!r:.40}")
        self.game, self.num_envs, self.num_seats = s.name, int(num_envs), s.num_seats
        self.num_actions, self.obs_size = s.num_actions, s.obs_size
        self.autoreset = autoreset
        self.backend = choose_backend(backend)
        self.bots = _bot_table(bots, s.num_seats)
        self.learner_seats = tuple(i for i, b in enumerate(self.bots) if b is None)
        self.tables = s.make(self.num_envs, self.reward, rng, self._options, self.backend)
        self.rng = rng
        kinds = sorted({b for b in self.bots if b})
        self._bot_fns = [_bot_fn(b, self.tables, self.game) for b in kinds]
        self._bot_kind = np.array([-1 if b is None else kinds.index(b) for b in self.bots], np.int8)
        n = self.num_envs
        self.rewards = np.zeros((n, s.num_seats), np.float32)
        self.done = np.zeros(n, bool)
        self.seat = np.full(n, -1, np.int8)
        self.mask = self.tables.mask.view(bool)  # the tables' own buffer, written by every step
        self.obs = np.zeros((n, s.obs_size), np.float32)  # then the tables' observe() buffer
        self.deal_seeds = np.zeros(n, np.uint64)  # the seed each table's episode was dealt from
        self._seeder = _seeder(seed)
        self._started = False

    # -- episodes ----------------------------------------------------------------
    def reset(self, seed=None, options=None):
        """Deal every table (or those in ``options["reset_mask"]``); ``(obs, mask, seat)``.

        ``seed`` reseeds the env's seed stream (every deal, first and automatic, comes from it);
        ``options["deals"]``: start from given deals instead, a dict of the tables' ``reset_deals``
        arguments (``spec.deal_keys``: e.g. Briscola's ``ids`` (n, 40) and ``leaders`` (n,)).
        """
        deals, where = _reset_options(options, self.num_envs, self.spec.deal_keys)
        if seed is not None:
            self._seeder = _seeder(seed)
        if where is not None and not self._started:
            raise ValueError("reset_mask needs every table dealt first: call reset() without it once")
        if deals is None:
            self._deal(where)
        else:
            self.spec.reset_deals(self.tables, deals, where, self._options)
            self.deal_seeds[where if where is not None else slice(None)] = 0
        self._started = True
        live = np.ones(self.num_envs, bool) if where is None else where
        self.done[live] = False
        self.rewards[:] = 0
        self._play_bots()
        self._publish()
        return self.obs, self.mask, self.seat

    def step(self, actions):
        """Play ``actions`` (int (n,), the seat to act's action at every table), then the bots;
        ``(obs, mask, seat, rewards, done)`` (see the module doc).  ``ValueError`` naming the table,
        the action and the legal ones if an action is illegal (then nothing is played)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        over = None if self.autoreset or not self.done.any() else self.done
        a = _actions(actions, self.num_envs, self.num_actions, over)
        r, d = self.tables.step(a)  # an illegal action raises here, before anything changes
        np.copyto(self.rewards, r)
        if self.autoreset:
            self.done[:] = False
        self._after_step(d)
        self._play_bots()
        self._publish()
        return self.obs, self.mask, self.seat, self.rewards, self.done

    # -- inside ------------------------------------------------------------------
    def _deal(self, where) -> None:
        seeds = self._seeder.integers(0, _SEED_HIGH, self.num_envs, dtype=np.uint64)
        self.spec.reset(self.tables, seeds, where, self._options)
        if where is None:
            self.deal_seeds[:] = seeds
        else:
            self.deal_seeds[where] = seeds[where]

    def _after_step(self, d) -> None:
        """Mark the tables whose episode just ended; autoreset deals them again."""
        if not d.any():
            return
        self.done |= d
        if self.autoreset:
            self._deal(d.copy())

    def _play_bots(self) -> None:
        """Step the bots' actions until a learner's seat is to act at every live table."""
        if not self._bot_fns:
            return
        tables = self.tables
        while True:
            kind = self._bot_kind[tables.current]
            kind[tables.done] = -1
            learner = kind < 0
            if learner.all():
                return
            if len(self._bot_fns) == 1:
                a = self._bot_fns[0](tables, ~learner)
                a[learner] = -1
            else:
                a = np.full(self.num_envs, -1, np.int32)
                for k, fn in enumerate(self._bot_fns):
                    here = kind == k
                    a = np.where(here, fn(tables, here), a)
            r, d = tables.step(a)
            self.rewards += r
            self._after_step(d)

    def _publish(self) -> None:
        t = self.tables
        self.obs = t.observe()
        np.copyto(self.seat, t.current)
        if not self.autoreset and self.done.any():
            over = self.done
            self.seat[over] = -1
            self.mask[over] = False
            self.obs[over] = 0.0


def _seeder(seed) -> np.random.Generator:
    """The env's seed stream: ``numpy.random.default_rng(seed)`` for an int >= 0 (or None: fresh entropy)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be None or an int >= 0, got {seed!r:.40}")
    return np.random.default_rng(None if seed is None else int(seed))


def _bot_fn(bot: str, tables, game: str):
    """``BOTS[bot]``, checked once on tables with no deal (where it plays nothing) so that a bot these tables
    lack says so now."""
    fn = BOTS[bot]
    try:
        fn(tables, np.zeros(tables.n, bool))
    except (AttributeError, NotImplementedError) as e:
        raise ValueError(f"the {bot} bot of {game} cannot play inside these tables ({type(tables).__name__}): "
                         f"{e}; bots here: {', '.join(BOTS)}") from None
    return fn


def _bot_table(bots, num_seats: int) -> tuple:
    """One entry a seat: a bot spec or None (the learner's)."""
    if bots is None:
        return (None,) * num_seats
    if hasattr(bots, "items"):
        table = [None] * num_seats
        for seat, b in bots.items():
            if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_seats:
                raise ValueError(f"bots: seats are 0..{num_seats - 1}, got {seat!r:.40}")
            table[int(seat)] = b
    else:
        table = list(bots)
        if len(table) != num_seats:
            raise ValueError(f"bots must be a dict seat -> bot or one entry per seat ({num_seats}), got {len(table)}")
    for b in table:
        if b is not None and b not in BOTS:
            raise ValueError(f"unknown bot {b!r:.40} for the batched env; known: {', '.join(BOTS)} "
                             "(None: the learner's seat)")
    if all(b is not None for b in table):
        raise ValueError("every seat has a bot: leave at least one seat to the learner (None)")
    return tuple(table)


def _reset_options(options, n: int, deal_keys: tuple):
    if options is None:
        return None, None
    if not hasattr(options, "keys"):
        raise ValueError(f"options must be a dict, got {type(options).__name__}")
    unknown = sorted(set(options) - {"deals", "reset_mask"})
    if unknown:
        raise ValueError(f"unknown reset option(s) {', '.join(map(repr, unknown))}; known: 'deals', 'reset_mask'")
    where = options.get("reset_mask")
    if where is not None:
        where = np.asarray(where)
        if where.shape != (n,) or where.dtype != bool:
            raise ValueError(f"reset_mask must be {n} booleans (one per table), got {where.dtype} shape {where.shape}")
        where = where.copy()
    return options.get("deals"), where


def _actions(actions, n: int, num_actions: int, over) -> np.ndarray:
    """int32 (n,): the actions checked for shape and type, -1 (skip) at the finished tables ``over``."""
    a = np.asarray(actions)
    if a.shape != (n,) or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be {n} integer action ids 0..{num_actions - 1} (one per table), "
                         f"got {a.dtype} shape {a.shape}")
    if a.dtype != np.int32:
        a = np.clip(a, -1, num_actions).astype(np.int32)
    bad = (a < 0) | (a >= num_actions)
    if over is not None:
        bad &= ~over
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"table {i}: action {int(np.asarray(actions)[i])} is not an action id 0..{num_actions - 1}")
    return a if over is None else np.where(over, np.int32(-1), a)
