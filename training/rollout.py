"""The rollout driver: many games in lockstep, one batched forward per network per step.

``play_rollout`` plays one game per entry of ``opponents`` to the end, all at
once (the games: a ``Lockstep``), and appends the learner's decisions to a
``Buffer``; it does nothing else (advantages are ``training.advantages``, the
update ``training.ppo``).  Where the time goes is measured by ``Timers``
(``with timers.phase(...)``) beside the algorithm.

Each game is a ``Table`` of its game (``cavallo_env.games.learning``) with a
controller per seat: the learner (code 0), a frozen league snapshot (code
``1 + k``) or a fixed bot (``GREEDY``/``HEURISTIC``).  The learner plays every
seat of its team with the same network (observations are seat-relative); in
"self" games it plays both teams.  Every step each unfinished game has one
seat to act; the driver gathers the observations of the games whose acting
seat belongs to the same network, builds their masks from
``Table.legal_actions``, asks ``Table.prior`` when the model reads the
heuristic prior, runs one forward pass and samples every action at once
(Gumbel-max over the masked logits: an illegal action is never drawn).  The
``heuristic`` bot moves straight from the state (``Table.heuristic_move``,
sharing the prior's cache); any other bot through its view (``PyLockstep``).
On the compiled core (``cavallo_env.core.enabled()``) the games are played on
the core's tables instead (``CoreLockstep``): the observations, masks and
results, the prior and the ``greedy``/``heuristic`` moves come from C,
batched over the games, and no ``Table`` is made: the same numbers and the
same moves, so a run is the same bit for bit.

Random numbers: deals, seats and bot seeds come from ``rng`` (numpy), the
sampled actions from ``gen`` (torch), always in the same order, so a run
repeats bit for bit from its seed.
"""

from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import torch

from cavallo_env import core, games
from cavallo_env.bots import make
from cavallo_env.vector.games import spec

LEARNER = 0
GREEDY = -1
HEURISTIC = -2
BOT_CODES = {"greedy": GREEDY, "heuristic": HEURISTIC}
PHASES = ("engine", "encoder", "prior", "inference", "bots", "update")


class Timers(dict):
    """Seconds spent per phase of the run (``PHASES``), for the logs' shares."""

    def __init__(self):
        super().__init__({p: 0.0 for p in PHASES})

    @contextmanager
    def phase(self, name: str):
        """``with timers.phase("engine"): ...`` adds the block's seconds to that phase."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self[name] += time.perf_counter() - t0


@dataclass
class RolloutStats:
    decisions: int = 0  # every decision (action) taken in the rollout, any seat
    learner_decisions: int = 0
    # per opponent, as drawn ("self", "greedy", "heuristic", ("snapshot", k)):
    # list of (learner score 1/0.5/0, learner point difference)
    results: dict = field(default_factory=dict)


class Buffer:
    """The learner's decisions of a rollout and each (game, team)'s final reward.

    Decisions are appended in the order they are taken, with ``key = 2 * game +
    team``; ``trajectories()`` groups them by key, in time order within each.
    """

    def __init__(self, n_games: int):
        self.final = np.zeros(2 * n_games, dtype=np.float32)  # per (game, team): terminal reward
        self.parts: dict[str, list] = {k: [] for k in ("obs", "mask", "actions", "logp", "values", "key", "prior")}

    def add(self, obs, mask, actions, logp, values, key, prior=None) -> None:
        p = self.parts
        p["obs"].append(obs)
        p["mask"].append(mask)
        p["actions"].append(actions)
        p["logp"].append(logp)
        p["values"].append(values)
        p["key"].append(key)
        if prior is not None:
            p["prior"].append(prior)

    def trajectories(self) -> "Trajectories":
        key = np.concatenate(self.parts["key"])
        order = np.argsort(key, kind="stable")

        def cat(name, dtype=None):
            a = np.concatenate(self.parts[name])[order]
            return a if dtype is None else a.astype(dtype)

        return Trajectories(key=key[order], final=self.final, obs=cat("obs"), mask=cat("mask"),
                            actions=cat("actions", np.int64), logp=cat("logp", np.float32), values=cat("values"),
                            prior=cat("prior") if self.parts["prior"] else None)


@dataclass
class Trajectories:
    """The buffer's decisions grouped by (game, team) ``key``, each group in time order."""

    key: np.ndarray  # int64 [M]: 2 * game + team
    final: np.ndarray  # float32 [2 * games]: each (game, team)'s final reward
    obs: np.ndarray  # float32 [M, obs_size]
    mask: np.ndarray  # bool [M, num_actions]
    actions: np.ndarray  # int64 [M]
    logp: np.ndarray  # float32 [M]: log-probability of the action when it was sampled
    values: np.ndarray  # float32 [M]: the value head's estimate then
    prior: np.ndarray | None = None  # float32 [M, prior_size] when the model reads the prior

    def __len__(self) -> int:
        return len(self.actions)


def masks_from_legal(legal_lists, num_actions: int) -> np.ndarray:
    """``[len, num_actions]`` bool masks from lists of legal action ids."""
    n = len(legal_lists)
    mask = np.zeros((n, num_actions), dtype=bool)
    rows: list[int] = []
    cols: list[int] = []
    for j, legal in enumerate(legal_lists):
        rows.extend([j] * len(legal))
        cols.extend(legal)
    mask[rows, cols] = True
    return mask


@torch.no_grad()
def sample_actions(net, obs: np.ndarray, mask: np.ndarray, gen: torch.Generator, device,
                   prior: np.ndarray | None = None) -> tuple:
    """Sample one action per row from the masked policy: (actions, logp, values) as numpy."""
    o = torch.from_numpy(obs).to(device)
    m = torch.from_numpy(mask).to(device)
    p = torch.from_numpy(prior).to(device) if prior is not None else None
    logits, value = net(o, m) if p is None else net(o, m, p)
    logp_all = torch.log_softmax(logits, dim=-1)
    u = torch.rand(logits.shape, generator=gen, device=gen.device).clamp_(1e-12, 1.0 - 1e-7).to(device)
    actions = (logits - torch.log(-torch.log(u))).argmax(dim=-1)  # Gumbel-max: masked logits are -1e9
    logp = logp_all.gather(1, actions[:, None]).squeeze(1)
    return actions.cpu().numpy(), logp.cpu().numpy(), value.float().cpu().numpy()


_WORKER_DIED = "a prior worker process died; rerun with prior_workers: 0 to see its error"


class PriorWorkers:
    """Extra processes that compute the heuristic prior for part of a rollout's games.

    The prior is pure Python and takes a good share of a rollout, so on a
    machine with spare cores it is shared out: with ``n`` workers, game ``i``
    belongs to worker ``i % (n + 1) - 1`` (the main process keeps ``i % (n +
    1) == 0``).  Each worker deals its games from the same seeds and replays
    the actions the main process applied since its last request, so the priors
    it returns are exactly the ones the main process would compute: a run is
    the same with or without workers.
    """

    def __init__(self, n: int, game: str):
        if n < 1:
            raise ValueError(f"PriorWorkers needs at least one worker, got {n}")
        ctx = mp.get_context("fork")
        self.n = n
        self.game = game
        self.conns = []
        self.procs = []
        for _ in range(n):
            conn, child = ctx.Pipe()
            proc = ctx.Process(target=_prior_worker, args=(child, game), daemon=True, name="cavallo-prior")
            proc.start()
            child.close()
            self.conns.append(conn)
            self.procs.append(proc)
        self.pending: list[list] = [[] for _ in range(n)]
        self.waiting = [0] * n  # requests sent, results not yet read

    def owner(self, i: int) -> int:
        """The worker of game ``i`` (-1: the main process)."""
        return i % (self.n + 1) - 1

    def start(self, deals: list, options: dict) -> None:
        """A new rollout: send each worker the deal seeds of its games (before any move)."""
        for k in range(self.n):  # results a broken-off rollout left unread
            while self.waiting[k]:
                self.result(k)
        for k in range(self.n):
            self._send(k, ("start", {i: s for i, s in enumerate(deals) if self.owner(i) == k}, options))
        self.pending = [[] for _ in range(self.n)]

    def stepped(self, i: int, action: int) -> None:
        """The main process applied ``action`` to game ``i``."""
        k = self.owner(i)
        if k >= 0:
            self.pending[k].append((i, action))

    def fill(self, idx: list, tables: list, out: np.ndarray) -> None:
        """``out[j]`` = the prior of game ``idx[j]``: the workers compute theirs while the main
        process computes its own (``tables``: the main process's)."""
        rows: list[list[int]] = [[] for _ in range(self.n + 1)]  # per owner, the main process last
        for j, i in enumerate(idx):
            rows[self.owner(i)].append(j)
        for k in range(self.n):
            if rows[k]:
                self._send(k, ("prior", self.pending[k], [idx[j] for j in rows[k]]))
                self.pending[k] = []
                self.waiting[k] += 1
        for j in rows[-1]:
            tables[idx[j]].prior(out[j])
        for k in range(self.n):
            if rows[k]:
                out[rows[k]] = self.result(k)

    def result(self, k: int) -> np.ndarray:
        try:
            out = self.conns[k].recv()
            self.waiting[k] -= 1
        except (EOFError, OSError):
            raise RuntimeError(_WORKER_DIED) from None
        if isinstance(out, str):
            raise RuntimeError(f"a prior worker failed: {out}")
        return out

    def _send(self, k: int, msg) -> None:
        try:
            self.conns[k].send(msg)
        except (BrokenPipeError, OSError):
            raise RuntimeError(_WORKER_DIED) from None

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(("stop",))
                conn.close()
            except (BrokenPipeError, OSError):
                pass
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self.conns, self.procs = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _prior_worker(conn, game: str) -> None:
    """The loop of one ``PriorWorkers`` process: replay the actions, compute the priors asked for."""
    learning = games.get(game).learning()
    tables: dict = {}
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "stop":
            return
        try:
            if msg[0] == "start":
                tables = {i: learning.table(learning.deal(seed, **msg[2])) for i, seed in msg[1].items()}
                continue
            _, steps, need = msg
            for i, a in steps:
                tables[i].step(a)
            out = np.empty((len(need), learning.prior_size), dtype=np.float32)
            for j, i in enumerate(need):
                tables[i].prior(out[j])
            conn.send(out)
        except Exception:
            conn.send(traceback.format_exc(limit=3))


def start_prior_workers(cfg) -> PriorWorkers | None:
    """The config's ``prior_workers`` processes, or None: the model reads no prior, none are asked
    for, or the prior comes from the compiled core (``core.enabled()``), faster than any worker."""
    if not (cfg.prior_workers and cfg.model.prior) or core.enabled():
        return None
    return PriorWorkers(cfg.prior_workers, cfg.game)


class Lockstep:
    """The games of one rollout, stepped together: their deals, who controls each seat, and their
    results (see the module doc).  ``PyLockstep`` plays them on the Python ``Table``s,
    ``CoreLockstep`` on the compiled core's tables; ``Lockstep.open`` picks one."""

    def __init__(self, learning, opponents: list, rng: np.random.Generator, paired: bool, timers: Timers):
        self.learning, self.opponents, self.timers = learning, opponents, timers
        self.team_of = [learning.team_of(s) for s in range(learning.num_seats)]
        self.team_seat = [self.team_of.index(team) for team in (0, 1)]  # a seat of each team
        self.teams = np.asarray(self.team_of, dtype=np.int64)  # the team of each seat, to index with seats
        self.ctl = np.zeros((len(opponents), learning.num_seats), dtype=np.int64)  # controller code per seat
        self.learner_team = np.zeros(len(opponents), dtype=np.int64)
        self.bot_seeds: dict[int, int] = {}  # game -> the seed of its greedy bot (the Python one's)
        self.deals = self._draw(rng, paired)

    @staticmethod
    def open(learning, opponents: list, options: dict, rng: np.random.Generator, paired: bool, timers: Timers,
             workers: PriorWorkers | None) -> "Lockstep":
        """The games on the compiled core where it runs (``core.enabled()``) and no prior workers are
        handed (they replay the Python tables), else on the Python tables: the same games either way."""
        if core.enabled() and workers is None:
            return CoreLockstep(learning, opponents, options, rng, paired, timers)
        return PyLockstep(learning, opponents, options, rng, paired, timers, workers)

    def _draw(self, rng: np.random.Generator, paired: bool) -> list:
        """Each game's deal seed, learner team, controllers and bot seed, drawn from ``rng`` in a
        fixed order (a twin game of a pair copies the first one's); the deal seeds."""
        deals = []
        deal_seed = bot_seed = 0
        for i, opp in enumerate(self.opponents):
            twin = paired and i % 2 == 1  # the second game of a pair: the first one's deal, seats and bot seed
            if twin and opp != self.opponents[i - 1]:
                raise ValueError(f"paired rollouts: games {i - 1} and {i} must have the same opponent, "
                                 f"got {self.opponents[i - 1]!r} and {opp!r}")
            if not twin:
                deal_seed = int(rng.integers(1 << 62))
            deals.append(deal_seed)
            lt = int(self.learner_team[i - 1]) if twin else int(rng.integers(2))
            self.learner_team[i] = lt
            if opp == "self":
                continue
            if isinstance(opp, tuple):
                code = 1 + opp[1]
            else:
                code = BOT_CODES[opp]
                if not twin:  # drawn for every bot game: the deals stay the same
                    bot_seed = int(rng.integers(1 << 62))
                if code != HEURISTIC:  # heuristic moves come from the state (Table.heuristic_move)
                    self.bot_seeds[i] = bot_seed
            for s, team in enumerate(self.team_of):
                if team != lt:
                    self.ctl[i, s] = code
        return deals

    def finish(self, active: np.ndarray, buf: Buffer, stats: RolloutStats, reward: str, reward_scale: float):
        """The games of ``active`` still playing; the finished ones' rewards go to ``buf``, results to ``stats``."""
        over = self.over(active)
        for i in active[over].tolist():
            points = self.points(i)
            for team in (0, 1):
                buf.final[2 * i + team] = points[team] / reward_scale if reward == "points" else _sign(points[team])
            opp = self.opponents[i]
            diff = points[int(self.learner_team[i]) if opp != "self" else 0]
            stats.results.setdefault(opp, []).append((1.0 if diff > 0 else 0.5 if diff == 0 else 0.0, diff))
        return active[~over]

    # what a subclass plays the games on
    def current(self, active: np.ndarray) -> np.ndarray:
        """int64: the seat to act in each game of ``active``."""
        raise NotImplementedError

    def over(self, active: np.ndarray) -> np.ndarray:
        """bool: whether each game of ``active`` is over."""
        raise NotImplementedError

    def points(self, i: int) -> list:
        """Game ``i``'s final point difference per team (team 0, team 1), as ``Table.returns("points")``."""
        raise NotImplementedError


def _sign(x: float) -> float:
    """The ``"win"`` reward of a point difference (the engines' ``returns("win")``)."""
    return float((x > 0) - (x < 0))


class PyLockstep(Lockstep):
    """The games on the Python ``Table``s, the prior workers told of every action."""

    def __init__(self, learning, opponents: list, options: dict, rng: np.random.Generator, paired: bool,
                 timers: Timers, workers: PriorWorkers | None):
        with timers.phase("engine"):
            super().__init__(learning, opponents, rng, paired, timers)
            states = [learning.deal(seed, **options) for seed in self.deals]
        with timers.phase("encoder"):
            self.tables = [learning.table(state) for state in states]
        self.game = games.get(learning.game)
        self.bots = {i: make(opponents[i], seed=seed, game=learning.game) for i, seed in self.bot_seeds.items()}
        self.workers = workers
        if workers is not None:
            workers.start(self.deals, options)

    def current(self, active: np.ndarray) -> np.ndarray:
        return np.fromiter((self.tables[i].state.current for i in active), dtype=np.int64, count=len(active))

    def over(self, active: np.ndarray) -> np.ndarray:
        return np.fromiter((self.tables[i].done for i in active), dtype=bool, count=len(active))

    def points(self, i: int) -> list:
        return self.tables[i].returns("points")

    def step(self, i: int, action: int):
        """Apply ``action`` to game ``i`` (and tell the prior workers); the move it completes, or None."""
        move = self.tables[i].step(action)
        if self.workers is not None:
            self.workers.stepped(i, action)
        return move

    def play(self, idx: np.ndarray, actions: np.ndarray) -> None:
        """Apply ``actions[j]`` to game ``idx[j]`` for every j (one action per game)."""
        for i, a in zip(idx.tolist(), actions.tolist()):
            self.step(i, a)

    def bot_moves(self, code: int, idx: np.ndarray) -> int:
        """The fixed bot ``code`` plays its whole move in the games ``idx``, one game at a time; the actions taken."""
        n = 0
        for i in idx.tolist():
            table = self.tables[i]
            with self.timers.phase("bots"):
                if code == HEURISTIC:
                    move = table.heuristic_move()
                else:
                    st = table.state
                    move = self.game.move_from_dict(self.bots[i].choose(self.game.make_view(st, st.current)),
                                                    self.game.deck_of(st))
            with self.timers.phase("engine"):
                acts = table.move_actions(move)
                for a in acts:
                    self.step(i, a)
            n += len(acts)
        return n

    def inputs(self, idx: np.ndarray, seats: list, use_prior: bool) -> tuple:
        """``(obs, mask, prior or None)`` of the games ``idx`` for their acting ``seats``."""
        learning, tables, idx = self.learning, self.tables, idx.tolist()
        with self.timers.phase("engine"):
            legal = [tables[i].legal_actions() for i in idx]
        with self.timers.phase("encoder"):
            obs = np.empty((len(idx), learning.obs_size), dtype=np.float32)
            for j, (i, s) in enumerate(zip(idx, seats)):
                tables[i].observation(s, obs[j])
            mask = masks_from_legal(legal, learning.num_actions)
        if not use_prior:
            return obs, mask, None
        with self.timers.phase("prior"):
            prior = np.empty((len(idx), learning.prior_size), dtype=np.float32)
            if self.workers is None:
                for j, i in enumerate(idx):
                    tables[i].prior(prior[j])
            else:
                self.workers.fill(idx, tables, prior)
        return obs, mask, prior


class CoreLockstep(Lockstep):
    """The games on the compiled core's tables, batched: the observations, masks, prior and fixed bots'
    moves from C, no Python table at all (the same numbers and moves as ``PyLockstep``'s)."""

    def __init__(self, learning, opponents: list, options: dict, rng: np.random.Generator, paired: bool,
                 timers: Timers):
        with timers.phase("engine"):
            super().__init__(learning, opponents, rng, paired, timers)
            self.tables = core_tables(learning.game, self.deals, options, reward="points")
        # each game's points so far per seat: the core pays a deal's point difference when it ends it
        # (every deal of a Scopa match), and their sum is the final one
        self.paid = np.zeros((self.tables.n, learning.num_seats), dtype=np.float32)
        self.where = np.zeros(self.tables.n, dtype=bool)
        self.builds = "building" in self.tables.snapshot(0)  # whether the game builds captures over actions

    def current(self, active: np.ndarray) -> np.ndarray:
        return self.tables.current[active].astype(np.int64)

    def over(self, active: np.ndarray) -> np.ndarray:
        return self.tables.done[active]

    def points(self, i: int) -> list:
        return [float(self.paid[i, s]) for s in self.team_seat]

    def _step(self, actions: np.ndarray) -> None:
        """``actions[i]`` at every table (-1: skipped), and the points paid."""
        rewards, _ = self.tables.step(actions)
        self.paid += rewards

    def play(self, idx: np.ndarray, actions: np.ndarray) -> None:
        """Apply ``actions[j]`` to game ``idx[j]`` for every j (one action per game)."""
        acts = np.full(self.tables.n, -1, dtype=np.int32)
        acts[idx] = actions
        self._step(acts)

    def _select(self, idx: np.ndarray) -> np.ndarray:
        self.where[:] = False
        self.where[idx] = True
        return self.where

    def bot_moves(self, code: int, idx: np.ndarray) -> int:
        """The fixed bot ``code`` plays its whole move in the games ``idx``: every game's next action at
        once, until each game's move is complete (a capture is built over several actions); the actions taken."""
        bot, tables = "heuristic" if code == HEURISTIC else "greedy", self.tables
        left, n = np.asarray(idx, dtype=np.int64), 0
        while len(left):
            with self.timers.phase("bots"):
                acts = tables.bot_actions(bot, self._select(left))
            with self.timers.phase("engine"):
                seats = tables.current[left]
                self._step(acts)  # -1 (skipped) outside ``left``
                n += len(left)
                left = left[self._building(left, seats)]
        return n

    def _building(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """bool: which games of ``idx`` (whose seat to act was ``seats``) are in the middle of a move: the
        same seat to act and a capture being built (a Scopa match's next deal can start with the same seat,
        and a Briscola trick's winner leads the next one)."""
        t = self.tables
        out = np.zeros(len(idx), dtype=bool)
        if self.builds:
            for j in np.flatnonzero((t.current[idx] == seats) & ~t.done[idx]).tolist():
                out[j] = t.building(int(idx[j]))
        return out

    def inputs(self, idx: np.ndarray, seats: list, use_prior: bool) -> tuple:
        """``(obs, mask, prior or None)`` of the games ``idx`` for their acting ``seats`` (the seats to act)."""
        t = self.tables
        with self.timers.phase("encoder"):
            obs = t.observe()[idx]
            mask = t.mask[idx].view(bool)
        if not use_prior:
            return obs, mask, None
        with self.timers.phase("prior"):
            return obs, mask, t.prior(self._select(idx))[idx]


def core_tables(game: str, seeds: list, options: dict, reward: str | None = None):
    """The deals of ``seeds`` (with the game's ``options``) on the compiled core, as the engine deals
    them (``rng="python"``: the same cards, and the same later deals of a Scopa match); ``reward``:
    the rewards its ``step`` pays (None: the env's default)."""
    s = spec(game)
    opts = games.get(game).check_options(options)
    reward, kw = s.check_options(reward, opts["deck"] if s.decks else None, opts["match"] if s.has_match else None)
    tables = s.make(len(seeds), reward, "python", kw, "core")
    s.reset(tables, np.asarray(seeds, dtype=np.uint64), None, kw)
    return tables


def play_rollout(learner, opponents: list, snapshot_nets: list, learning, *, rng: np.random.Generator,
                 gen: torch.Generator, device, game_options: dict | None = None, reward: str = "points",
                 reward_scale: float = 10.0, timers: Timers | None = None,
                 prior_workers: PriorWorkers | None = None, paired: bool = False) -> tuple[Buffer, RolloutStats]:
    """Play ``len(opponents)`` games of ``learning``'s game in lockstep; return the learner's ``Buffer``.

    ``opponents[i]`` is the opponent of game ``i``: ``"self"``, ``"greedy"``,
    ``"heuristic"`` or ``("snapshot", k)`` for ``snapshot_nets[k]``.  With
    ``paired``, games ``2k`` and ``2k + 1`` are twins: the same deal, learner
    team, opponent and bot seed; only the sampled actions differ
    (``training.advantages.paired``).
    """
    if paired and len(opponents) % 2:
        raise ValueError(f"paired rollouts play every deal twice: an even number of games, got {len(opponents)}")
    timers = timers if timers is not None else Timers()
    use_prior = bool(getattr(learner.cfg, "prior", False))
    lockstep = Lockstep.open(learning, opponents, dict(game_options or {}), rng, paired, timers,
                             prior_workers if use_prior else None)
    nets = [learner, *snapshot_nets]  # by controller code: LEARNER, then 1 + k
    buf, stats = Buffer(len(opponents)), RolloutStats()
    active = np.arange(len(opponents))
    while len(active):
        cur = lockstep.current(active)
        who = lockstep.ctl[active, cur]
        for code in np.unique(who):
            sel = who == code
            gi = active[sel]
            if code < 0:  # a fixed bot
                stats.decisions += lockstep.bot_moves(code, gi)
                continue
            seats = cur[sel].tolist()
            obs, mask, prior = lockstep.inputs(gi, seats, use_prior)
            with timers.phase("inference"):
                actions, logp, values = sample_actions(nets[code], obs, mask, gen, device, prior)
            if code == LEARNER:
                buf.add(obs, mask, actions, logp, values, gi * 2 + lockstep.teams[cur[sel]], prior)
                stats.learner_decisions += len(gi)
            stats.decisions += len(gi)
            with timers.phase("engine"):
                lockstep.play(gi, actions)
        active = lockstep.finish(active, buf, stats, reward, reward_scale)
    return buf, stats
