"""The league of opponents: frozen snapshots of the learner plus the fixed bots.

Each rollout's games are split among the opponent kinds of ``league.mix``
(``self``, ``snapshots``, ``greedy``, ``heuristic``).  A snapshot game picks
its snapshot by *prioritised fictitious self-play*: snapshot ``k`` is drawn
with weight ``(1 - s_k) ** pfsp_power + 0.02``, where ``s_k`` is an EMA of the
learner's score against it (win 1, draw 1/2, loss 0), so the opponents the
learner still loses to come up most.  Until the first snapshot exists its
share goes to ``self``.  Snapshots join every ``snapshot_every`` updates;
when the league is full the oldest (but the very first, an anchor) leaves.
"""

from __future__ import annotations

import copy

import numpy as np
import torch

from .config import LeagueSection


class League:
    def __init__(self, cfg: LeagueSection):
        self.cfg = cfg
        self.snapshots: list[dict] = []  # {"id", "update", "net", "score", "games"}
        self.next_id = 0
        # learner's score EMA against the fixed opponents (for the logs)
        self.scores: dict[str, float] = {}

    # ---- membership
    def add(self, net: torch.nn.Module, update: int) -> None:
        frozen = copy.deepcopy(net).eval()
        for p in frozen.parameters():
            p.requires_grad_(False)
        self.snapshots.append({"id": self.next_id, "update": update, "net": frozen, "score": 0.5, "games": 0})
        self.next_id += 1
        if len(self.snapshots) > self.cfg.max_snapshots:
            del self.snapshots[1 if self.cfg.max_snapshots > 1 else 0]

    def nets(self) -> list:
        return [s["net"] for s in self.snapshots]

    # ---- sampling
    def pfsp_weights(self) -> np.ndarray:
        s = np.array([x["score"] for x in self.snapshots], dtype=np.float64)
        w = (1.0 - s) ** self.cfg.pfsp_power + 0.02
        return w / w.sum()

    def draw_opponents(self, n: int, rng: np.random.Generator) -> list:
        """The opponent of each of ``n`` games: "self", "greedy", "heuristic" or ("snapshot", index)."""
        mix = dict(self.cfg.mix)
        if not self.snapshots:
            mix["self"] = mix.get("self", 0.0) + mix.pop("snapshots", 0.0)
        kinds = [k for k, v in mix.items() if v > 0]
        p = np.array([mix[k] for k in kinds], dtype=np.float64)
        counts = _split(n, p / p.sum(), rng)
        out: list = []
        for kind, c in zip(kinds, counts):
            if kind == "snapshots":
                idx = rng.choice(len(self.snapshots), size=c, p=self.pfsp_weights())
                out.extend(("snapshot", int(k)) for k in idx)
            else:
                out.extend([kind] * c)
        order = rng.permutation(len(out))
        return [out[j] for j in order]

    # ---- results
    def record(self, results: dict) -> None:
        """Fold a rollout's ``{opponent: [(score, diff), ...]}`` into the EMAs (opponents as
        ``draw_opponents`` gives them)."""
        decay = self.cfg.score_decay
        for opp, rs in results.items():
            if not rs:
                continue
            mean = float(np.mean([r[0] for r in rs]))
            if isinstance(opp, tuple):  # ("snapshot", index)
                snap = self.snapshots[opp[1]]
                snap["score"] = decay * snap["score"] + (1 - decay) * mean
                snap["games"] += len(rs)
            elif opp != "self":
                old = self.scores.get(opp)
                self.scores[opp] = mean if old is None else decay * old + (1 - decay) * mean

    # ---- checkpointing
    def state(self) -> tuple[dict, dict]:
        tensors = {}
        meta = {"next_id": self.next_id, "scores": self.scores, "snapshots": []}
        for s in self.snapshots:
            for k, v in s["net"].state_dict().items():
                tensors[f"league.{s['id']}.{k}"] = v
            meta["snapshots"].append({k: s[k] for k in ("id", "update", "score", "games")})
        return tensors, meta

    def load_state(self, tensors: dict, meta: dict, make_net) -> None:
        self.next_id = meta["next_id"]
        self.scores = dict(meta["scores"])
        self.snapshots = []
        for info in meta["snapshots"]:
            prefix = f"league.{info['id']}."
            net = make_net()
            net.load_state_dict({k[len(prefix):]: v for k, v in tensors.items() if k.startswith(prefix)})
            net.eval()
            for p in net.parameters():
                p.requires_grad_(False)
            self.snapshots.append(dict(info, net=net))

    def summary(self) -> dict:
        out = {f"vs_{k}": v for k, v in sorted(self.scores.items())}
        out["snapshots"] = len(self.snapshots)
        if self.snapshots:
            out["vs_snapshots_min"] = min(s["score"] for s in self.snapshots)
            out["vs_snapshots_mean"] = float(np.mean([s["score"] for s in self.snapshots]))
        return out


def _split(n: int, p: np.ndarray, rng: np.random.Generator) -> list[int]:
    """``n`` split by shares ``p``: floors, then the remainder drawn by ``p``."""
    base = np.floor(n * p).astype(int)
    rest = n - int(base.sum())
    if rest:
        extra = rng.choice(len(p), size=rest, replace=True, p=p)
        for k in extra:
            base[k] += 1
    return base.tolist()
