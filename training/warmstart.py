"""The warm start: imitate a teacher bot (behaviour cloning) before self-play PPO.

PPO from scratch spends its first hour learning what a hand-written player
already knows (capture what you can, do not leave the next player a sweep).
With ``pretrain.games > 0`` the run first plays that many deals with the
teacher in every seat, records every decision as the learner sees it
(seat-relative observation, legal-action mask, the teacher's action,
capture-building sub-steps included, the heuristic prior when the model
reads it) and the deciding team's final reward, and fits the network to
them: cross-entropy on the masked logits plus the value loss on the final
rewards, so PPO starts with a policy *and* a critic.  With a search teacher
(``ismcts``) and ``soft > 0`` the target mixes the move it plays with its
root visit counts.  Everything game-specific comes from the game's
``Learning`` (``cavallo_env.games.learning``).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import time
import zipfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from cavallo_env import games
from cavallo_env.bots import make

from .rollout import masks_from_legal

#: deals per file of the teacher-data cache (``teacher_games(cache_dir=...)``)
SHARD_DEALS = 100
_KEYS = ("obs", "mask", "actions", "returns", "prior", "targets")


def _play_chunks(chunks: list, work: tuple, jobs: int, collect) -> None:
    """Play ``chunks`` (``(block, deals)``; in ``jobs`` processes when more than one) and hand
    each result to ``collect(block, deals, decisions)``, in order."""
    if jobs <= 1 or len(chunks) < 2:
        for k, c in chunks:
            collect(k, c, _teacher_chunk(c, *work))
        return
    with mp.get_context("fork").Pool(jobs) as pool:
        for (k, c), part in zip(chunks, pool.imap(_teacher_chunk_args, [(c, *work) for _, c in chunks])):
            collect(k, c, part)


def teacher_games(learning, n_games: int, teacher: str, rng: np.random.Generator, reward: str = "points",
                  reward_scale: float = 10.0, prior: bool = False, jobs: int = 1, progress: bool = False,
                  soft: float = 0.0, cache_dir=None, options: dict | None = None) -> dict:
    """Play ``n_games`` deals of ``learning``'s game with ``teacher`` in every seat; return
    every decision as arrays (with ``prior``, also the heuristic prior of each decision;
    ``returns`` are the deciding team's final rewards, ``reward`` as in the env).  ``jobs
    > 1`` plays them in that many processes; the deals come from ``rng`` either way, so
    the data is the same.

    With ``soft > 0`` and a search teacher (``ismcts``), each decision also gets a target
    distribution over actions: ``1 - soft`` on the teacher's action plus ``soft`` times its
    root visit counts, carried over to the action (and capture-building step) each move
    begins with (``targets``, float32 [M, num_actions]).

    With ``cache_dir``, every block of ``SHARD_DEALS`` deals is saved there as it completes
    (``shard-NNNN.npz``, no pickle) and a later call with the same deals and settings loads
    the blocks it finds instead of replaying them: an interrupted warm start resumes where it
    stopped.  A block recorded with other settings (or a corrupt one) is replayed."""
    if n_games < 1:
        raise ValueError(f"teacher_games needs at least one deal, got {n_games}")
    options = dict(options or {})
    win = reward == "win"
    if win:  # recorded in points (so both rewards share the recorded deals); a win is its sign
        reward = "points"
    seats = learning.num_seats
    seeds = [(int(rng.integers(1 << 62)), [int(rng.integers(1 << 62)) for _ in range(seats)]) for _ in range(n_games)]
    args = (teacher, reward, reward_scale, prior, soft)
    key_args = args + ((learning.game, sorted(options.items())),) if learning.game != games.DEFAULT_GAME else args
    shards = [seeds[i:i + SHARD_DEALS] for i in range(0, n_games, SHARD_DEALS)]
    cache = None if cache_dir is None else TeacherCache(cache_dir, key_args, (learning.obs_version, learning.prior_version))
    parts: list = [cache.load(k, shard) if cache is not None else None for k, shard in enumerate(shards)]
    todo = [k for k, part in enumerate(parts) if part is None]
    bar = None
    if progress:
        done = n_games - sum(len(shards[k]) for k in todo)
        bar = tqdm(total=n_games, initial=done, unit="deal", desc=f"warm start: {teacher}", dynamic_ncols=True)
    # the work: 4-deal chunks of the shards still to play, in order
    chunks = [(k, shards[k][i:i + 4]) for k in todo for i in range(0, len(shards[k]), 4)]
    pending: dict[int, list] = {k: [] for k in todo}
    work = (learning.game, options) + args

    def collect(k, chunk, part):
        pending[k].append(part)
        if len(pending[k]) == len(range(0, len(shards[k]), 4)):  # the block's last chunk
            parts[k] = concat_decisions(pending.pop(k))
            if cache is not None:
                cache.save(k, shards[k], parts[k])
        if bar is not None:
            bar.update(len(chunk))

    _play_chunks(chunks, work, jobs, collect)
    if bar is not None:
        bar.close()
    data = concat_decisions(parts)
    if win:
        data["returns"] = np.sign(data["returns"]).astype(np.float32)
    return data


def concat_decisions(parts: list[dict]) -> dict:
    """One set of recorded decisions from several (``teacher_games`` results), in order."""
    return {k: None if parts[0][k] is None else np.concatenate([p[k] for p in parts]) for k in _KEYS}


class TeacherCache:
    """The teacher's decisions saved block by block in a folder (see ``teacher_games``).

    Each ``shard-NNNN.npz`` holds the arrays of one block plus ``key``: a hash of the
    block's deal and bot seeds, the teacher's settings and the observation/prior layouts,
    so a block is only reused for exactly the deals and settings it was played with."""

    def __init__(self, folder, args: tuple, versions: tuple):
        self.folder = Path(folder)
        self.args = args
        self.versions = versions  # the observation and prior layouts

    def _key(self, shard: list) -> str:
        text = json.dumps([list(self.args), *self.versions, shard], separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def path(self, k: int):
        return self.folder / f"shard-{k:04d}.npz"

    def load(self, k: int, shard: list) -> dict | None:
        path = self.path(k)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                if str(z["key"]) != self._key(shard):
                    return None
                return {name: (z[name] if name in z.files else None) for name in _KEYS}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None  # truncated or foreign: play the block again

    def save(self, k: int, shard: list, part: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(k)
        tmp = path.with_name(path.name + ".tmp")
        arrays = {name: v for name, v in part.items() if v is not None}
        with open(tmp, "wb") as f:
            np.savez_compressed(f, key=np.array(self._key(shard)), **arrays)
        os.replace(tmp, path)


def _teacher_chunk_args(args):
    return _teacher_chunk(*args)


def soft_targets(table, move, acts: list[int], visits: dict, soft: float, num_actions: int) -> list[np.ndarray]:
    """Per action of ``move``'s sequence ``acts`` (from ``table``, before the move): ``1 - soft``
    on that action plus ``soft`` times the visit distribution of the moves whose action
    sequence agrees with the steps taken so far, over their next action."""
    seqs = [(table.move_actions(m), v) for m, v in visits.items()]
    out = []
    for k, a in enumerate(acts):
        t = np.zeros(num_actions, np.float32)
        w = {}
        for seq, v in seqs:
            if len(seq) > k and seq[:k] == acts[:k]:
                w[seq[k]] = w.get(seq[k], 0.0) + v
        total = sum(w.values())
        if total > 0:
            for b, v in w.items():
                t[b] = soft * v / total
            t[a] += 1.0 - soft
        else:
            t[a] = 1.0
        out.append(t)
    return out


def _teacher_chunk(seeds, game_name: str, options: dict, teacher: str, reward: str, reward_scale: float,
                   prior: bool, soft: float = 0.0) -> dict:
    game = games.get(game_name)
    learning = game.learning()
    rec = _Recorder(game, learning, prior, soft)
    returns: list[float] = []
    scale = reward_scale if reward == "points" else 1.0
    for deal_seed, bot_seeds in seeds:
        table = learning.table(learning.deal(deal_seed, **options))
        teachers = [make(teacher, seed=s, game=game_name) for s in bot_seeds]
        teams: list[int] = []
        while not table.done:
            seat = table.current
            teams.extend([learning.team_of(seat)] * rec.record(table, seat, teachers[seat]))
        ret = table.returns(reward)
        returns.extend(ret[t] / scale for t in teams)
    return rec.arrays(returns)


class _Recorder:
    """The decisions of the teacher's moves, as the learner sees them (capture sub-steps included)."""

    def __init__(self, game, learning, prior: bool, soft: float):
        self.game, self.learning = game, learning
        self.prior, self.soft = prior, soft
        self.targets: list[np.ndarray] = []
        self.priors: list[np.ndarray] = []
        self.obs: list[np.ndarray] = []
        self.legal: list[list[int]] = []
        self.actions: list[int] = []

    def record(self, table, seat: int, bot) -> int:
        """Ask ``bot`` for its move at ``table`` (seat ``seat`` to play), record its decisions
        and play it.  Returns how many decisions the move took."""
        state = table.state
        learning = self.learning
        view = self.game.make_view(state, seat)
        visits = None
        if self.soft > 0 and hasattr(bot, "move_and_visits"):
            move, visits = bot.move_and_visits(view, state.legal_moves())
        else:
            move = self.game.move_from_dict(bot.choose(view), self.game.deck_of(state))
        acts = table.move_actions(move)
        if visits is not None:
            self.targets.extend(soft_targets(table, move, acts, visits, self.soft, learning.num_actions))
        elif self.soft > 0:  # a teacher without visit counts: its action only
            self.targets.extend(np.eye(1, learning.num_actions, a, dtype=np.float32)[0] for a in acts)
        for a in acts:
            obs = np.empty(learning.obs_size, np.float32)
            table.observation(seat, obs)
            self.obs.append(obs)
            if self.prior:
                p = np.empty(learning.prior_size, np.float32)
                table.prior(p)
                self.priors.append(p)
            self.legal.append(table.legal_actions())
            self.actions.append(a)
            table.step(a)
        return len(acts)

    def arrays(self, returns: list[float]) -> dict:
        return {
            "targets": np.stack(self.targets) if self.soft > 0 else None,
            "prior": np.stack(self.priors) if self.prior else None,
            "obs": np.stack(self.obs).astype(np.float32),
            "mask": masks_from_legal(self.legal, self.learning.num_actions),
            "actions": np.asarray(self.actions, dtype=np.int64),
            "returns": np.asarray(returns, dtype=np.float32),
        }


def imitate(model, data: dict, *, epochs: int, lr: float, minibatch_size: int, vf_coef: float,
            gen: torch.Generator, device, log=print, anneal_lr: bool = False) -> dict:
    """Fit ``model`` to the teacher's actions (masked cross-entropy) and the final rewards (value);
    with ``anneal_lr`` the step size falls linearly to 0 over the epochs."""
    opt = torch.optim.Adam(model.parameters(), lr=lr, eps=1e-5)
    obs = torch.from_numpy(data["obs"])
    mask = torch.from_numpy(data["mask"])
    actions = torch.from_numpy(data["actions"])
    returns = torch.from_numpy(data["returns"])
    prior = torch.from_numpy(data["prior"]) if data.get("prior") is not None else None
    targets = torch.from_numpy(data["targets"]) if data.get("targets") is not None else None
    perm = torch.randperm(len(actions), generator=gen)
    n_val = len(actions) // 20 if len(actions) >= 2000 else 0  # 5% held out to watch for overfitting
    val, train = perm[:n_val], perm[n_val:]
    n = len(train)
    n_mb = max(1, n // minibatch_size)
    out = {}
    step, steps = 0, epochs * n_mb
    for epoch in range(epochs):
        model.train()
        t0 = time.perf_counter()
        tot = {"ce": 0.0, "v": 0.0, "acc": 0.0}
        for idx in torch.tensor_split(train[torch.randperm(n, generator=gen)], n_mb):
            o, m = obs[idx].to(device), mask[idx].to(device)
            a, r = actions[idx].to(device), returns[idx].to(device)
            p = prior[idx].to(device) if prior is not None else None
            logits, value = model(o, m, p)
            if targets is None:
                ce = F.cross_entropy(logits, a)
            else:  # soft targets: the teacher's distribution
                ce = -(targets[idx].to(device) * torch.log_softmax(logits, dim=-1)).sum(-1).mean()
            lv = 0.5 * F.mse_loss(value, r)
            loss = ce + vf_coef * lv
            if anneal_lr:
                for g in opt.param_groups:
                    g["lr"] = lr * (1.0 - step / steps)
                step += 1
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            tot["ce"] += ce.item()
            tot["v"] += lv.item()
            tot["acc"] += (logits.argmax(-1) == a).float().mean().item()
        out = {k: v / n_mb for k, v in tot.items()}
        held = ""
        if n_val:
            model.eval()
            with torch.no_grad():
                logits, _ = model(obs[val].to(device), mask[val].to(device),
                                  prior[val].to(device) if prior is not None else None)
                out["val_acc"] = (logits.argmax(-1).cpu() == actions[val]).float().mean().item()
            held = f" (held-out {100 * out['val_acc']:.1f}%)"
        log(f"pretrain epoch {epoch + 1}/{epochs}: cross-entropy {out['ce']:.3f}, teacher-move accuracy "
            f"{100 * out['acc']:.1f}%{held}, value loss {out['v']:.3f} ({time.perf_counter() - t0:.0f}s)")
    return out
