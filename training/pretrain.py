"""Optional warm start before self-play: imitate a teacher bot (behaviour cloning).

PPO from scratch spends its first hour learning what a hand-written player
already knows (capture what you can, do not leave the next player a scùa).
With ``pretrain.games > 0`` the run first plays that many deals with the
teacher (``heuristic``) in all four seats, records every decision as the
learner would see it (seat-relative observation, legal-action mask, the
teacher's action, capture-building sub-steps included) and the deciding
team's final reward, and fits the network to them: cross-entropy on the
masked logits plus the value loss on the final rewards (so PPO starts with a
policy *and* a critic).  Then self-play PPO takes over from there.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from cavallo_env.cavalloicera.actions import CAPTURE, NUM_ACTIONS, PLACE, TAKE, ActionGame, move_to_actions
from cavallo_env.cavalloicera.encoding import OBS_SIZE, OBS_VERSION, Features
from cavallo_env.cavalloicera.engine import GameState, random_deal
from cavallo_env.cavalloicera.prior import PRIOR_VERSION, PriorCache, action_prior
from cavallo_env.cavalloicera.views import make_view, move_from_dict

from . import policy_bot  # noqa: F401  (registers the checkpoint: bot a DAgger student plays as)
from .selfplay import masks_from_legal


#: deals per file of the teacher-data cache (``teacher_games(cache_dir=...)``)
SHARD_DEALS = 100
_KEYS = ("obs", "mask", "actions", "returns", "prior", "targets")


def teacher_games(n_games: int, teacher: str, rng: np.random.Generator, reward: str = "points",
                  reward_scale: float = 10.0, prior: bool = False, jobs: int = 1, progress: bool = False,
                  soft: float = 0.0, cache_dir=None, players: tuple | None = None) -> dict:
    """Play ``n_games`` deals with ``teacher`` in every seat; return every decision as arrays
    (with ``prior``, also the heuristic prior of each decision; ``returns`` are the deciding
    team's final rewards, ``reward`` as in the env).  ``jobs > 1`` plays them in
    that many processes; the deals come from ``rng`` either way, so the data is the same.

    With ``soft > 0`` and a search teacher (``ismcts``), each decision also gets a target
    distribution over actions: ``1 - soft`` on the teacher's action plus ``soft`` times its
    root visit counts, carried over to the action (and capture-building step) each move
    begins with (``targets``, float32 [M, 156]).

    With ``cache_dir``, every block of ``SHARD_DEALS`` deals is saved there as it completes
    (``shard-NNNN.npz``, no pickle) and a later call with the same deals and settings loads
    the blocks it finds instead of replaying them: an interrupted warm start resumes where it
    stopped.  A block recorded with other settings (or a corrupt one) is replayed.

    With ``players = (student, opponent)`` (bot specs) the teacher does not play: in each
    deal one team is ``student`` and the other ``opponent`` (the student's team alternates
    with the deal seed), and the teacher only labels the student's positions, the decisions
    it would take there (DAgger: the student learns what to do in the positions *it*
    reaches).  The deals follow the student's moves; ``returns`` are the student team's
    final rewards.  A ``checkpoint:<path>`` student is keyed in the cache by its file's
    hash, so a changed student never reuses another's blocks."""
    if n_games < 1:
        raise ValueError(f"teacher_games needs at least one deal, got {n_games}")
    win = reward == "win"
    if win:  # recorded in points (so both rewards share the recorded deals); a win is its sign
        reward = "points"
    seeds = [(int(rng.integers(1 << 62)), [int(rng.integers(1 << 62)) for _ in range(4)]) for _ in range(n_games)]
    args = (teacher, reward, reward_scale, prior, soft)
    key_args = args
    if players is not None:
        args = args + (tuple(players),)
        key_args = args + (_spec_fingerprint(players[0]), _spec_fingerprint(players[1]))
    shards = [seeds[i:i + SHARD_DEALS] for i in range(0, n_games, SHARD_DEALS)]
    cache = None if cache_dir is None else TeacherCache(cache_dir, key_args)
    parts: list = [cache.load(k, shard) if cache is not None else None for k, shard in enumerate(shards)]
    todo = [k for k, part in enumerate(parts) if part is None]
    bar = None
    if progress:
        from tqdm import tqdm

        done = n_games - sum(len(shards[k]) for k in todo)
        bar = tqdm(total=n_games, initial=done, unit="deal", desc=f"pretrain: {teacher}", dynamic_ncols=True)
    # the work: 4-deal chunks of the shards still to play, in order
    chunks = [(k, shards[k][i:i + 4]) for k in todo for i in range(0, len(shards[k]), 4)]
    pending: dict[int, list] = {k: [] for k in todo}

    def collect(k, chunk, part):
        pending[k].append(part)
        if len(pending[k]) == len(range(0, len(shards[k]), 4)):  # the block's last chunk
            parts[k] = concat_decisions(pending.pop(k))
            if cache is not None:
                cache.save(k, shards[k], parts[k])
        if bar is not None:
            bar.update(len(chunk))

    if jobs <= 1 or len(chunks) < 2:
        for k, c in chunks:
            collect(k, c, _teacher_chunk(c, *args))
    else:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(jobs) as pool:
            for (k, c), part in zip(chunks, pool.imap(_teacher_chunk_args, [(c, *args) for _, c in chunks])):
                collect(k, c, part)
    if bar is not None:
        bar.close()
    data = concat_decisions(parts)
    if win:
        data["returns"] = np.sign(data["returns"]).astype(np.float32)
    return data


def _spec_fingerprint(spec: str) -> str:
    """What a bot spec plays like, for the cache key: a checkpoint's file hash, else the spec."""
    kind, _, arg = spec.partition(":")
    if kind != "checkpoint":
        return spec
    from .checkpoint import paths

    weights, _ = paths(arg)
    return "checkpoint:" + hashlib.sha256(Path(weights).read_bytes()).hexdigest()


def concat_decisions(parts: list[dict]) -> dict:
    """One set of recorded decisions from several (``teacher_games`` results), in order."""
    return {k: None if parts[0][k] is None else np.concatenate([p[k] for p in parts]) for k in _KEYS}


class TeacherCache:
    """The teacher's decisions saved block by block in a folder (see ``teacher_games``).

    Each ``shard-NNNN.npz`` holds the arrays of one block plus ``key``: a hash of the
    block's deal and bot seeds, the teacher's settings and the observation/prior layouts,
    so a block is only reused for exactly the deals and settings it was played with."""

    def __init__(self, folder, args: tuple):
        self.folder = Path(folder)
        self.args = args

    def _key(self, shard: list) -> str:
        text = json.dumps([list(self.args), OBS_VERSION, PRIOR_VERSION, shard], separators=(",", ":"))
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


def _soft_targets(move: tuple, acts: list[int], visits: dict, soft: float) -> list[np.ndarray]:
    """Per action of ``move``'s sequence ``acts``: ``1 - soft`` on that action plus ``soft`` times
    the visit distribution of the moves still consistent with the steps taken so far."""
    out = []
    taken: tuple = ()
    for k, a in enumerate(acts):
        t = np.zeros(NUM_ACTIONS, np.float32)
        w = {}
        for (card, cap), v in visits.items():
            if k == 0:
                b = CAPTURE + card if cap else PLACE + card
            elif card == move[0] and len(cap) > len(taken) and cap[:len(taken)] == taken:
                b = TAKE + cap[len(taken)]
            else:
                continue
            w[b] = w.get(b, 0.0) + v
        total = sum(w.values())
        if total > 0:
            for b, v in w.items():
                t[b] = soft * v / total
            t[a] += 1.0 - soft
        else:
            t[a] = 1.0
        out.append(t)
        if k > 0:
            taken = taken + (a - TAKE,)
    return out


def _teacher_chunk(seeds, teacher: str, reward: str, reward_scale: float, prior: bool, soft: float = 0.0,
                   players: tuple | None = None) -> dict:
    from cavallo_env.bots import make

    rec = _Recorder(prior, soft)
    returns: list[float] = []
    scale = reward_scale if reward == "points" else 1.0
    for deal_seed, bot_seeds in seeds:
        state = GameState(*random_deal(deal_seed))
        teachers = [make(teacher, seed=s) for s in bot_seeds]
        teams: list[int] = []
        if players is None:  # the teacher plays every seat; every decision is recorded
            game = ActionGame(state)
            feats = Features()
            feats.reset(state)
            cache = PriorCache()
            while not state.done:
                seat = state.current
                teams.extend([seat & 1] * rec.record(game, feats, seat, teachers[seat], cache))
                feats.after_move(state)
        else:  # DAgger: the student's team plays, the teacher labels its positions
            student_team = deal_seed & 1
            bots = [make(players[0] if (s & 1) == student_team else players[1], seed=bot_seeds[s]) for s in range(4)]
            while not state.done:
                seat = state.current
                view = make_view(state, seat)
                if (seat & 1) == student_team:
                    game = ActionGame(state.copy())  # the teacher's path, on a copy
                    feats = Features()
                    feats.reset(game.state)
                    teams.extend([seat & 1] * rec.record(game, feats, seat, teachers[seat], PriorCache()))
                state.play(*move_from_dict(bots[seat].choose(view)))
        ret = state.returns(reward)
        returns.extend(ret[t] / scale for t in teams)
    return rec.arrays(returns)


class _Recorder:
    """The decisions of the teacher's moves, as the learner sees them (capture sub-steps included)."""

    def __init__(self, prior: bool, soft: float):
        self.prior, self.soft = prior, soft
        self.targets: list[np.ndarray] = []
        self.priors: list[np.ndarray] = []
        self.obs: list[np.ndarray] = []
        self.legal: list[list[int]] = []
        self.actions: list[int] = []

    def record(self, game: ActionGame, feats: Features, seat: int, bot, cache: PriorCache) -> int:
        """Ask ``bot`` for its move in ``game`` (seat ``seat`` to play), record its decisions
        and play it (``game`` and ``feats`` end at the capture's last step; the caller calls
        ``feats.after_move``).  Returns how many decisions the move took."""
        state = game.state
        visits = None
        if self.soft > 0 and hasattr(bot, "move_and_visits"):
            (card, capture), visits = bot.move_and_visits(make_view(state, seat), state.legal_moves())
        else:
            card, capture = move_from_dict(bot.choose(make_view(state, seat)))
        acts = move_to_actions(state, card, capture)
        if visits is not None:
            self.targets.extend(_soft_targets((card, capture), acts, visits, self.soft))
        elif self.soft > 0:  # a teacher without visit counts: its action only
            self.targets.extend(np.eye(1, NUM_ACTIONS, a, dtype=np.float32)[0] for a in acts)
        for a in acts:
            self.obs.append(feats.observation(seat))
            if self.prior:
                self.priors.append(action_prior(game, cache=cache))
            self.legal.append(game.legal_actions())
            self.actions.append(a)
            if game.step(a) is None:
                feats.set_building(game.building)
        return len(acts)

    def arrays(self, returns: list[float]) -> dict:
        return {
            "targets": np.stack(self.targets) if self.soft > 0 else None,
            "prior": np.stack(self.priors) if self.prior else None,
            "obs": np.stack(self.obs).astype(np.float32),
            "mask": masks_from_legal(self.legal),
            "actions": np.asarray(self.actions, dtype=np.int64),
            "returns": np.asarray(returns, dtype=np.float32),
        }


def behaviour_clone(model, data: dict, *, epochs: int, lr: float, minibatch_size: int, vf_coef: float,
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
            # an ensemble's members are each fitted on their own (their losses summed)
            outs = model.member_outputs(o, m, p) if hasattr(model, "member_outputs") else [model(o, m, p)]
            t = targets[idx].to(device) if targets is not None else None
            ce = sum(F.cross_entropy(lg, a) if t is None  # else soft targets: the teacher's distribution
                     else -(t * torch.log_softmax(lg, dim=-1)).sum(-1).mean() for lg, _ in outs)
            lv = sum(0.5 * F.mse_loss(v, r) for _, v in outs)
            loss = ce + vf_coef * lv
            logits = torch.stack([lg for lg, _ in outs]).mean(0) if len(outs) > 1 else outs[0][0]
            ce, lv = ce / len(outs), lv / len(outs)
            if anneal_lr:
                for g in opt.param_groups:
                    g["lr"] = lr * (1.0 - step / steps)
                step += 1
            opt.zero_grad(set_to_none=True)
            loss.backward()
            for part in getattr(model, "members", [model]):  # each member clipped as if alone
                torch.nn.utils.clip_grad_norm_(part.parameters(), 1.0)
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
    assert data["obs"].shape[1] == OBS_SIZE
    return out
