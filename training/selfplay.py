"""Self-play rollouts: many deals in lockstep, one batched forward per policy per step.

A rollout plays ``games`` fresh deals to the end, all at once.  Each game has a
controller per seat: the learner (code 0), a frozen league snapshot (code
``1 + k``) or a fixed bot (``GREEDY``/``HEURISTIC``).  The learner plays both
seats of its team with the same network (observations are seat-relative); in
"self" games it plays both teams.

Every step, each unfinished game has exactly one seat to decide.  The driver
gathers the observations of every game whose deciding seat is played by the
same network with one fancy-indexing gather from the ``[games, STATE_SIZE]``
matrix the encoders write into (``Features`` rows), builds the action masks
from ``ActionGame.legal_actions()``, runs one forward pass and samples all
actions at once (Gumbel-max over the masked logits, so an illegal action can
never be drawn).  A model that reads the heuristic prior gets it computed
per game from the same ``ActionGame`` (``cavallo_env.cavalloicera.prior``).  ``greedy``
decides through its JSON view, ``heuristic`` straight from the state through
the same scoring (``cavallo_env.cavalloicera.prior.heuristic_move``), one game at a time.

This is the same engine (``ActionGame``), action space and encoder
(``Features``/``OBS_INDEX``) as the PettingZoo env, which stays the public
way in; the driver only skips the per-agent dict plumbing.

The learner's decisions are returned as a flat ``Batch`` with GAE advantages,
computed per (game, team): a team's decisions interleave its two seats and
share the team's end-of-deal reward (0 before the end, capture-building
sub-steps included), optionally plus a potential-based shaping reward (see
``potential``); or, with ``paired``, advantages from twin games of each deal
(see ``play_rollout``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from cavallo_env.cavalloicera.actions import NUM_ACTIONS, ActionGame, move_to_actions
from cavallo_env.cavalloicera.encoding import OBS_INDEX, OBS_SIZE, STATE_SIZE, Features
from cavallo_env.cavalloicera.engine import GameState, random_deal, score
from cavallo_env.cavalloicera.prior import PRIOR_SIZE, PriorCache, action_prior, heuristic_move
from cavallo_env.cavalloicera.views import make_view, move_from_dict

from .model import CRITIC_INDEX

LEARNER = 0
GREEDY = -1
HEURISTIC = -2
BOT_CODES = {"greedy": GREEDY, "heuristic": HEURISTIC}
PHASES = ("engine", "encoder", "prior", "inference", "bots", "update")


@dataclass
class Batch:
    """The learner's decisions of one rollout (flat, grouped by game and team)."""

    obs: np.ndarray  # float32 [M, OBS_SIZE]
    mask: np.ndarray  # bool [M, NUM_ACTIONS]
    actions: np.ndarray  # int64 [M]
    logp: np.ndarray  # float32 [M]: log-probability of the action when it was sampled
    values: np.ndarray  # float32 [M]
    advantages: np.ndarray  # float32 [M]
    returns: np.ndarray  # float32 [M]: advantages + values (value targets)
    critic_obs: np.ndarray | None = None  # float32 [M, CRITIC_SIZE] with a centralised critic
    prior: np.ndarray | None = None  # float32 [M, PRIOR_SIZE] when the model reads the heuristic prior

    def __len__(self) -> int:
        return len(self.actions)


@dataclass
class RolloutStats:
    decisions: int = 0  # every decision (action) taken in the rollout, any seat
    learner_decisions: int = 0
    # per opponent label: list of (learner score 1/0.5/0, learner point difference)
    results: dict = field(default_factory=dict)


def masks_from_legal(legal_lists) -> np.ndarray:
    """``[len, NUM_ACTIONS]`` bool masks from lists of legal action ids."""
    n = len(legal_lists)
    mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
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

    The prior (``cavallo_env.cavalloicera.prior``) takes about half of a rollout's time and is pure
    Python, so on a machine with spare cores it is shared out: with ``n`` workers, game
    ``i`` belongs to worker ``i % (n + 1) - 1`` (the main process keeps ``i % (n + 1) == 0``).
    Each worker keeps its own copy of its games and replays the actions the main process
    applied to them since its last request, so the priors it returns are exactly the ones
    the main process would have computed: a run is the same with or without workers.
    """

    def __init__(self, n: int):
        import multiprocessing as mp

        if n < 1:
            raise ValueError(f"PriorWorkers needs at least one worker, got {n}")
        ctx = mp.get_context("fork")
        self.n = n
        self.conns = []
        self.procs = []
        for _ in range(n):
            conn, child = ctx.Pipe()
            proc = ctx.Process(target=_prior_worker, args=(child,), daemon=True, name="cavallo-prior")
            proc.start()
            child.close()
            self.conns.append(conn)
            self.procs.append(proc)
        self.pending: list[list] = [[] for _ in range(n)]
        self.waiting = [0] * n  # requests sent, results not yet read

    def owner(self, i: int) -> int:
        """The worker of game ``i`` (-1: the main process)."""
        return i % (self.n + 1) - 1

    def start(self, games: list) -> None:
        """A new rollout: send each worker the deals of its games (before any move)."""
        for k in range(self.n):  # results a broken-off rollout left unread
            while self.waiting[k]:
                self.result(k)
        for k, conn in enumerate(self.conns):
            deals = {i: (g.state.initial_hands, g.state.initial_table, g.state.dealer)
                     for i, g in enumerate(games) if self.owner(i) == k}
            self._send(k, ("start", deals))
        self.pending = [[] for _ in range(self.n)]

    def stepped(self, i: int, action: int) -> None:
        """The main process applied ``action`` to game ``i``."""
        k = self.owner(i)
        if k >= 0:
            self.pending[k].append((i, action))

    def fill(self, idx: list, games: list, caches: list, out: np.ndarray) -> None:
        """``out[j]`` = the prior of game ``idx[j]``: the workers compute theirs while the main
        process computes its own (``games``, ``caches``: the main process's)."""
        rows: list[list[int]] = [[] for _ in range(self.n + 1)]  # per owner, the main process last
        for j, i in enumerate(idx):
            rows[self.owner(i)].append(j)
        for k in range(self.n):
            if rows[k]:
                self.request(k, [idx[j] for j in rows[k]])
        for j in rows[-1]:
            action_prior(games[idx[j]], out[j], caches[idx[j]])
        for k in range(self.n):
            if rows[k]:
                out[rows[k]] = self.result(k)

    def request(self, k: int, games: list) -> None:
        """Ask worker ``k`` for the priors of ``games`` (indices), in that order."""
        self._send(k, ("prior", self.pending[k], games))
        self.pending[k] = []
        self.waiting[k] += 1

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


def _prior_worker(conn) -> None:
    """The loop of one ``PriorWorkers`` process: replay the actions, compute the priors asked for."""
    import traceback

    games: dict = {}
    caches: dict = {}
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "stop":
            return
        try:
            if msg[0] == "start":
                games = {i: ActionGame(GameState(*deal)) for i, deal in msg[1].items()}
                caches = {i: PriorCache() for i in games}
                continue
            _, steps, need = msg
            for i, a in steps:
                games[i].step(a)
            out = np.empty((len(need), PRIOR_SIZE), dtype=np.float32)
            for j, i in enumerate(need):
                action_prior(games[i], out[j], caches[i])
            conn.send(out)
        except Exception:
            conn.send(traceback.format_exc(limit=3))


class Timers(dict):
    def __init__(self):
        super().__init__({p: 0.0 for p in PHASES})


def play_rollout(learner, opponents: list, snapshot_nets: list, *, rng: np.random.Generator,
                 gen: torch.Generator, device, reward: str = "points", reward_scale: float = 10.0,
                 shaping: float = 0.0, gamma: float = 1.0, gae_lambda: float = 0.95,
                 critic=None, timers: Timers | None = None,
                 prior_workers: PriorWorkers | None = None, paired: bool = False) -> tuple[Batch, RolloutStats]:
    """Play ``len(opponents)`` deals in lockstep and return the learner's batch.

    ``opponents[i]`` is the opponent of game ``i``: ``"self"``, ``"greedy"``,
    ``"heuristic"`` or ``("snapshot", k)`` for ``snapshot_nets[k]``.  Deals,
    seats and bot seeds come from ``rng``; action sampling from ``gen``.
    With a ``critic`` (``StateCritic``), the values for GAE are its estimates
    from the full-information input; otherwise the policy's value head.  With
    ``prior_workers``, other processes compute part of the heuristic prior (the
    same numbers, sooner).

    With ``paired``, games ``2k`` and ``2k + 1`` are twins: the same deal, the same
    learner team and opponent (``opponents`` must pair up), the same bot seed; only
    the sampled actions differ.  Each team's decisions then get as advantage its
    result minus its result in the twin game, and as value target its result: the
    luck of the deal cancels, and a decision both twins made alike gets opposite
    advantages that cancel in the gradient, so the credit goes to where they differ
    (a leave-one-out baseline over two samples).
    """
    if paired and len(opponents) % 2:
        raise ValueError(f"paired rollouts play every deal twice: an even number of games, got {len(opponents)}")
    if paired and shaping:
        raise ValueError("paired rollouts use the deals' results only: shaping must be 0")
    from cavallo_env.bots import make

    timers = timers if timers is not None else Timers()
    clock = time.perf_counter
    n_games = len(opponents)
    S = np.zeros((n_games, STATE_SIZE), dtype=np.float32)
    games: list[ActionGame] = []
    feats: list[Features] = []
    ctl = np.zeros((n_games, 4), dtype=np.int64)
    labels: list[str] = []
    learner_team = np.zeros(n_games, dtype=np.int64)
    bots: dict[int, object] = {}
    t0 = clock()
    deal_seed = bot_seed = 0
    for i, opp in enumerate(opponents):
        twin = paired and i % 2 == 1  # the second game of a pair: the first one's deal, seats and bot seed
        if twin and opp != opponents[i - 1]:
            raise ValueError(f"paired rollouts: games {i - 1} and {i} must have the same opponent, "
                             f"got {opponents[i - 1]!r} and {opp!r}")
        if not twin:
            deal_seed = int(rng.integers(1 << 62))
        state = GameState(*random_deal(deal_seed))
        games.append(ActionGame(state))
        lt = int(learner_team[i - 1]) if twin else int(rng.integers(2))
        learner_team[i] = lt
        if opp == "self":
            labels.append("self")
        else:
            if isinstance(opp, tuple):
                code = 1 + opp[1]
                labels.append(f"snapshot{opp[1]}")
            else:
                code = BOT_CODES[opp]
                labels.append(opp)
                if not twin:  # drawn for every bot game: the deals stay the same
                    bot_seed = int(rng.integers(1 << 62))
                if code != HEURISTIC:  # heuristic moves come from the state (heuristic_move)
                    bots[i] = make(opp, seed=bot_seed)
            ctl[i, 1 - lt] = code
            ctl[i, 3 - lt] = code
    timers["engine"] += clock() - t0
    t0 = clock()
    for i, g in enumerate(games):
        f = Features(S[i])
        f.reset(g.state)
        feats.append(f)
    timers["encoder"] += clock() - t0
    use_prior = bool(getattr(learner.cfg, "prior", False))
    workers = prior_workers if use_prior else None
    if workers is not None:
        workers.start(games)
    caches = [PriorCache() for _ in range(n_games)]  # heuristic scores per game and turn: prior and bot alike
    rec_prior = []

    rec_obs, rec_mask, rec_act, rec_logp, rec_val, rec_key, rec_bonus, rec_cobs = [], [], [], [], [], [], [], []
    final = np.zeros(2 * n_games, dtype=np.float32)  # per (game, team): terminal reward
    stats = RolloutStats()
    active = np.arange(n_games)
    while len(active):
        cur = np.fromiter((games[i].state.current for i in active), dtype=np.int64, count=len(active))
        who = ctl[active, cur]
        for code in np.unique(who):
            sel = who == code
            gi = active[sel]
            if code < 0:  # a fixed bot, one game at a time
                for i in gi:
                    g = games[i]
                    st = g.state
                    t0 = clock()
                    if code == HEURISTIC:  # its move straight from the state: the same as its view path (tested)
                        card, capture = heuristic_move(g, caches[i])
                    else:
                        card, capture = move_from_dict(bots[i].choose(make_view(st, st.current)))
                    t1 = clock()
                    acts = move_to_actions(st, card, capture)
                    for a in acts:
                        g.step(a)
                        if workers is not None:
                            workers.stepped(i, a)
                    t2 = clock()
                    feats[i].after_move(st)
                    timers["bots"] += t1 - t0
                    timers["engine"] += t2 - t1
                    timers["encoder"] += clock() - t2
                    stats.decisions += len(acts)
                continue
            seats = cur[sel]
            t0 = clock()
            legal = [games[i].legal_actions() for i in gi]
            t1 = clock()
            obs = S[gi[:, None], OBS_INDEX[seats]]
            mask = masks_from_legal(legal)
            t2 = clock()
            prior = None
            if use_prior:
                prior = np.empty((len(gi), PRIOR_SIZE), dtype=np.float32)
                if workers is None:
                    for j, i in enumerate(gi.tolist()):
                        action_prior(games[i], prior[j], caches[i])
                else:
                    workers.fill(gi.tolist(), games, caches, prior)
            t2p = clock()
            net = learner if code == LEARNER else snapshot_nets[code - 1]
            actions, logp, values = sample_actions(net, obs, mask, gen, device, prior)
            t3 = clock()
            timers["engine"] += t1 - t0
            timers["encoder"] += t2 - t1
            timers["prior"] += t2p - t2
            timers["inference"] += t3 - t2p
            if code == LEARNER:
                if critic is not None:
                    t0 = clock()
                    cobs = S[gi[:, None], CRITIC_INDEX[seats]]
                    with torch.no_grad():
                        values = critic(torch.from_numpy(cobs).to(device)).float().cpu().numpy()
                    rec_cobs.append(cobs)
                    timers["inference"] += clock() - t0
                rec_obs.append(obs)
                if prior is not None:
                    rec_prior.append(prior)
                rec_mask.append(mask)
                rec_act.append(actions)
                rec_logp.append(logp)
                rec_val.append(values)
                rec_key.append(gi * 2 + (seats & 1))
                if shaping:
                    rec_bonus.append(np.array([potential(games[i].state, s & 1) for i, s in zip(gi, seats)], np.float32))
                stats.learner_decisions += len(gi)
            stats.decisions += len(gi)
            t_eng = t_enc = 0.0
            for i, a in zip(gi.tolist(), actions.tolist()):
                g = games[i]
                t0 = clock()
                moved = g.step(a)
                if workers is not None:
                    workers.stepped(i, a)
                t1 = clock()
                if moved is None:
                    feats[i].set_building(g.building)
                else:
                    feats[i].after_move(g.state)
                t_eng += t1 - t0
                t_enc += clock() - t1
            timers["engine"] += t_eng
            timers["encoder"] += t_enc
        still = []
        for i in active.tolist():
            st = games[i].state
            if not st.done:
                still.append(i)
                continue
            ret = st.returns(reward)
            for team in (0, 1):
                final[2 * i + team] = ret[team] / reward_scale if reward == "points" else ret[team]
            if labels[i] != "self":
                lt = int(learner_team[i])
                diff = st.returns("points")[lt]
                stats.results.setdefault(labels[i], []).append((1.0 if diff > 0 else 0.5 if diff == 0 else 0.0, diff))
            else:
                diff = st.returns("points")[0]
                stats.results.setdefault("self", []).append((1.0 if diff > 0 else 0.5 if diff == 0 else 0.0, diff))
        active = np.asarray(still, dtype=np.int64)

    # ---- flatten, group each (game, team)'s decisions in time order, GAE
    key = np.concatenate(rec_key)
    order = np.argsort(key, kind="stable")
    key = key[order]
    values = np.concatenate(rec_val)[order]
    if paired:  # the team's result minus its result in the twin game (key ^ 2: game ^ 1, same team)
        advantages = (final[key] - final[key ^ 2]).astype(np.float32)
        values_target = final[key]
    else:
        last = np.ones(len(key), dtype=bool)
        last[:-1] = key[1:] != key[:-1]
        rewards = np.where(last, final[key], 0.0).astype(np.float32)
        if shaping:
            bonus = np.concatenate(rec_bonus)[order]
            nxt = np.empty_like(bonus)
            nxt[:-1] = bonus[1:]
            nxt[last] = 0.0  # the potential of the end of the deal is 0: the shaping sums to -potential(first)
            rewards += shaping * (nxt - bonus) / reward_scale
        advantages = _gae(rewards, values, last, gamma, gae_lambda)
        values_target = advantages + values
    batch = Batch(
        obs=np.concatenate(rec_obs)[order],
        mask=np.concatenate(rec_mask)[order],
        actions=np.concatenate(rec_act)[order].astype(np.int64),
        logp=np.concatenate(rec_logp)[order].astype(np.float32),
        values=values.astype(np.float32),
        advantages=advantages,
        returns=values_target.astype(np.float32),
        critic_obs=np.concatenate(rec_cobs)[order] if critic is not None else None,
        prior=np.concatenate(rec_prior)[order] if use_prior else None,
    )
    assert batch.obs.shape[1] == OBS_SIZE
    return batch, stats


def potential(state: GameState, team: int) -> float:
    """The shaping potential: the team's point difference if the deal ended now.

    Bonuses scored so far plus the awards of the piles as they stand (cards on
    the table not counted).  Shaping rewards are ``shaping * (potential after -
    potential before) / reward_scale`` between a team's decisions, and the
    potential is 0 at the end of the deal, so with ``gamma = 1`` the shaping
    only moves credit earlier and leaves the best policy unchanged (Ng et al.
    1999, potential-based shaping).
    """
    pts = score(state.piles, state.bonuses)["team_points"]
    return float(pts[team] - pts[1 - team])


def _gae(rewards, values, last, gamma: float, lam: float) -> np.ndarray:
    """Generalised advantage estimation over consecutive sequences ending at ``last``."""
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float32)
    next_value = np.zeros(n, dtype=np.float32)
    next_value[:-1] = values[1:]
    next_value[last] = 0.0
    delta = (rewards + gamma * next_value - values).tolist()
    not_last = (~last).tolist()
    a = 0.0
    gl = gamma * lam
    out = [0.0] * n
    for t in range(n - 1, -1, -1):
        a = delta[t] + (gl * a if not_last[t] else 0.0)
        out[t] = a
    adv[:] = out
    return adv
