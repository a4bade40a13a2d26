"""Screen: does one step of policy improvement by rollouts beat Scopa's heuristic (the shipped network)?

The shipped Scopa network plays the heuristic's moves.  One step of policy
iteration would play, at each decision, the move whose expected result is
best when both seats go on as the heuristic does after it (the last round
solved exactly, as the runtime does).  Two ways to get at it:

- ``gen`` + ``fit``: the rollout values of every legal move, from the **true**
  deal (both hands and the stock known, the rest of the deal played by the
  heuristic on both sides, so each value is exact and deterministic), at the
  decisions of single deals of ``heuristic`` against ``--opponent`` while the
  stock lasts; then the shipped network's logits fitted to them (centered
  over the legal actions: the network learns the expected values given what
  the seat sees, since a deal it sees alike is the average of its true deals).
  ``fit`` reports, on held-out decisions, how often the fitted argmax leaves
  the heuristic's move and what it gains by the exact values there.
- ``pimc``: a player that estimates those values at play time over ``--k``
  deals drawn for the hidden cards (every hand equally likely), paired deal
  by deal with ``policy:scopa`` on the same single deals.

    python benchmarks/scopa_rollout_q.py gen --deals 2000 --seed 11 --out q-heuristic.npz
    python benchmarks/scopa_rollout_q.py gen --deals 3000 --seed 12 --opponent greedy --out q-greedy.npz
    python benchmarks/scopa_rollout_q.py fit q-heuristic.npz q-greedy.npz --epochs 10 --out q-fit
    python benchmarks/scopa_rollout_q.py pimc --k 8 --deals 300 --seed 7
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cavallo_env import games  # noqa: E402
from cavallo_env.bots import make  # noqa: E402
from cavallo_env.bots.base import Bot, register, view_seed  # noqa: E402
from cavallo_env.evaluation import mean_interval, run_deals, summarize  # noqa: E402
from cavallo_env.scopa import endgame  # noqa: E402
from cavallo_env.scopa.actions import CAPTURE, TAKE  # noqa: E402
from cavallo_env.scopa.bots import greedy_move, heuristic_move  # noqa: E402
from cavallo_env.scopa.learning import LEARNING  # noqa: E402
from cavallo_env.scopa.prior import info_of, move_scores  # noqa: E402
from cavallo_env.scopa.views import state_from_view  # noqa: E402

SCOPA = games.get("scopa")


def finish(deal, money: int, seat: int, opponent: str) -> int:
    """Play ``deal`` (a copy) to its end: ``seat`` as the heuristic with the last round exact
    (the runtime), the other seat as ``opponent``; ``seat``'s point difference."""
    s = SimpleNamespace(deal=deal, money=money, totals=[0, 0], target=11, match=False, done=False, results=[])
    while not deal.done:
        legal = deal.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        elif deal.current == seat:
            move = heuristic_move(info_of(s), legal)
            if deal.stock_size == 0:
                move = endgame.solve(s, move)
        elif opponent == "heuristic":
            move = heuristic_move(info_of(s), legal)
        else:
            move = greedy_move(info_of(s), legal)
        deal.play(move[0], move[1])
    p = deal.points()
    return p[seat] - p[1 - seat]


def _action_values(game, legal_actions, q: dict, scores: dict) -> np.ndarray:
    """Per legal action, the value of the move the heuristic would complete from it (the best
    scored move it can still lead to); NaN elsewhere."""
    out = np.full(LEARNING.num_actions, np.nan, np.float32)
    for a in legal_actions:
        if a < CAPTURE:
            group = [(a, ())]
        elif a < TAKE:
            group = [m for m in q if m[0] == a - CAPTURE and m[1]]
        else:
            card, taken, sets = game.building
            group = [(card, st) for st in sets if st[len(taken)] == a - TAKE]
        out[a] = q[max(group, key=lambda m: scores[m])]
    return out


def generate(deals: int, seed: int, opponent: str, out: str) -> None:
    rng = random.Random(seed)
    obs = np.zeros(LEARNING.obs_size, np.float32)
    prior = np.zeros(LEARNING.prior_size, np.float32)
    rows: dict = {"obs": [], "mask": [], "prior": [], "q": []}
    t0 = time.time()
    for _ in range(deals):
        state = SCOPA.new_state(rng.getrandbits(62), deck="milanesi", match=False)
        learners = (0, 1) if opponent == "heuristic" else (rng.randrange(2),)
        table = LEARNING.table(state)
        turn = None
        pending: list = []
        while not state.done:
            game = table.game
            seat = game.current
            legal_actions = table.legal_actions()
            deal = state.deal
            if seat in learners and len(legal_actions) > 1 and deal.stock_size > 0:
                if turn != deal.turn:  # the values of the turn's moves (shared by its capture steps)
                    q = {}
                    for move in deal.legal_moves():
                        child = deal.copy()
                        child.play(move[0], move[1])
                        q[move] = finish(child, state.money, seat, opponent)
                    scores = move_scores(state)[0]
                    turn = deal.turn
                table.observation(seat, obs)
                table.prior(prior)
                mask = np.zeros(LEARNING.num_actions, np.int8)
                mask[legal_actions] = 1
                rows["obs"].append(obs.copy())
                rows["prior"].append(prior.copy())
                rows["mask"].append(mask)
                rows["q"].append(_action_values(game, legal_actions, q, scores))
            if not pending:  # the heuristic (the learners) or the opponent, one action at a time
                legal = deal.legal_moves()
                info = info_of(state)
                move = greedy_move(info, legal) if seat not in learners and opponent == "greedy" else \
                    heuristic_move(info, legal)
                if seat in learners and endgame.solvable(state):
                    move = endgame.solve(state, move)
                pending = table.move_actions(move)
            table.step(pending.pop(0))
    np.savez_compressed(out, **{k: np.array(v) for k, v in rows.items()})
    print(f"{len(rows['q'])} decisions of {deals} deals against {opponent} in {time.time() - t0:.0f} s -> {out}")


def fit(files: list[str], out: str, scale: float, epochs: int, lr: float) -> None:
    """Fit the shipped network's centered logits to ``scale`` x the centered values; report the
    held-out (10%) departures from the heuristic's move and their mean gain by the exact values."""
    import torch

    from training import checkpoint as ckpt
    from training.model import ModelConfig, build_policy

    torch.manual_seed(0)
    tensors, meta = ckpt.load("checkpoints/scopa")
    m = meta["config"]["model"]
    net = build_policy(ModelConfig(hidden=m["hidden"], activation=m["activation"], mask_input=m["mask_input"],
                                   prior=m["prior"], prior_gain=m["prior_gain"]), LEARNING)
    net.load_state_dict(ckpt.model_state(tensors))
    data = [np.load(f) for f in files]
    obs, mask, prior = (torch.from_numpy(np.concatenate([d[k] for d in data])) for k in ("obs", "mask", "prior"))
    q = torch.from_numpy(np.nan_to_num(np.concatenate([d["q"] for d in data]), nan=0.0))
    legal = mask != 0
    nl = legal.sum(1, keepdim=True).float()
    qc = torch.where(legal, q - (q * legal).sum(1, keepdim=True) / nl, torch.zeros_like(q))
    perm = torch.randperm(len(obs))
    val, train = perm[:len(obs) // 10], perm[len(obs) // 10:]
    n = LEARNING.num_actions

    def loss_of(idx):
        logits, _ = net(obs[idx], mask[idx], prior[idx])
        lg = legal[idx]
        lx = torch.where(lg, logits, torch.zeros_like(logits))
        lc = torch.where(lg, lx - lx.sum(1, keepdim=True) / nl[idx], torch.zeros_like(lx))
        return (((lc - scale * qc[idx]) ** 2).sum(1) / nl[idx].squeeze(1)).mean()

    def report(idx):
        with torch.no_grad():
            a = net(obs[idx], mask[idx], prior[idx])[0].argmax(1)
            h = prior[idx][:, n:].argmax(1)  # the heuristic's action (the prior's choice block)
            gain = (q[idx].gather(1, a[:, None]) - q[idx].gather(1, h[:, None])).mean().item()
            return loss_of(idx).item(), (a != h).float().mean().item(), gain

    print(f"{len(obs)} decisions; held out {len(val)}: loss {report(val)[0]:.4f} before")
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    best = None
    for epoch in range(epochs):
        order = train[torch.randperm(len(train))]
        for i in range(0, len(order), 512):
            loss = loss_of(order[i:i + 512])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
        vl, departs, gain = report(val)
        print(f"epoch {epoch + 1}: held-out loss {vl:.4f}, leaves the heuristic's move at {100 * departs:.1f}% "
              f"of decisions, mean gain {gain:+.4f} points a decision")
        if best is None or vl < best[0]:
            best = (vl, {k: v.clone() for k, v in net.state_dict().items()})
    net.load_state_dict(best[1])
    meta = {k: v for k, v in meta.items() if k != "weights_sha256"}
    ckpt.save(out, {"model." + k: v for k, v in net.state_dict().items()}, meta)
    print(f"saved {out} (the epoch of the lowest held-out loss)")


class RolloutPlayer(Bot):
    """``policy:scopa``; while the stock lasts, the move of the best mean rollout value over ``k``
    deals drawn for the hidden cards (the model's move unless another is better)."""

    game = "scopa"

    def __init__(self, k: int, seed=None):
        super().__init__(seed)
        self.k = k
        self.name = f"rollouts:{k}"
        self.policy = make("policy:scopa", seed=seed, game="scopa")

    def choose(self, view):
        own = self.policy.choose(view)
        if view["stock_size"] == 0 or len(view["legal_moves"]) <= 1:
            return own
        rng = random.Random(view_seed(self.seed, view))
        deck = view.get("deck", "milanesi")
        first = state_from_view(view, rng)
        legal = first.deal.legal_moves()
        base = SCOPA.move_from_dict(own, deck)
        seat = first.deal.current
        total = dict.fromkeys(legal, 0.0)
        for i in range(self.k):
            state = first if i == 0 else state_from_view(view, rng)
            for move in legal:
                child = state.deal.copy()
                child.play(move[0], move[1])
                total[move] += finish(child, state.money, seat, "heuristic")
        best = max(legal, key=lambda mv: total[mv] + (1e-6 if mv == base else 0.0))
        return own if best == base else SCOPA.move_to_dict(best, deck)


register("rollouts", lambda arg, seed: RolloutPlayer(int(arg or 8), seed))


def pimc(k: int, opponent: str, deals: int, seed: int, jobs: int) -> None:
    opts = {"match": False}
    scores = {}
    for spec in (f"rollouts:{k}", "policy:scopa"):
        t = time.time()
        res = run_deals([(spec, opponent, seed, i, "scopa", opts) for i in range(deals)], jobs)
        scores[spec] = [sum(1.0 if g.diff > 0 else 0.5 if g.diff == 0 else 0.0 for g in gs) / len(gs) for gs, _ in res]
        r = summarize(spec, opponent, seed, res, "scopa", opts)
        print(f"{spec} vs {opponent}: {100 * r.score:.1f}% [{100 * r.score_ci[0]:.1f}, {100 * r.score_ci[1]:.1f}] "
              f"points {r.mean_diff:+.3f}  {r.timing['a_ms_per_decision']:.1f} ms a decision  {time.time() - t:.0f} s",
              flush=True)
    a, b = scores.values()
    m, lo, hi = mean_interval([x - y for x, y in zip(a, b)])
    print(f"paired difference: {100 * m:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}]")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen", help="exact rollout values at the decisions of heuristic single deals")
    g.add_argument("--deals", type=int, default=2000)
    g.add_argument("--seed", type=int, default=11)
    g.add_argument("--opponent", choices=("heuristic", "greedy"), default="heuristic")
    g.add_argument("--out", required=True)
    f = sub.add_parser("fit", help="fit the shipped network's logits to the values")
    f.add_argument("files", nargs="+")
    f.add_argument("--out", default="q-fit")
    f.add_argument("--scale", type=float, default=2.0, help="logits per point")
    f.add_argument("--epochs", type=int, default=10)
    f.add_argument("--lr", type=float, default=3e-4)
    p = sub.add_parser("pimc", help="the values estimated at play time, paired with policy:scopa")
    p.add_argument("--k", type=int, default=8)
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"$ python benchmarks/scopa_rollout_q.py {' '.join(sys.argv[1:] if argv is None else argv)}", flush=True)
    if args.cmd == "gen":
        generate(args.deals, args.seed, args.opponent, args.out)
    elif args.cmd == "fit":
        fit(args.files, args.out, args.scale, args.epochs, args.lr)
    else:
        pimc(args.k, args.opponent, args.deals, args.seed, args.jobs)


if __name__ == "__main__":
    main()
