"""Scopa search experiments of 2026-12-02 (a record: docs/bots.md names the commit; removed after).

Every variant plays ``ismcts:1000`` (or the spec given) against ``heuristic`` on
single deals ``0..N-1`` of ``--seed`` (the deals of ``cavallo eval ... --seed S``),
writing one JSON line per duplicate deal, then compares with a baseline file
on the same deals:

    python experiments/scopa_search/run.py data   --out D.npz --deals 30000 --seed 2     # features (linear)
    python experiments/scopa_search/run.py raw    --out R.npz --deals 40000 --seed 4     # one-hot states (MLP)
    python experiments/scopa_search/run.py fit    --data D.npz --out W.npy
    python experiments/scopa_search/run.py raw    --out R5.npz --deals 25000 --seed 5
    python experiments/scopa_search/run.py mlp    --data R.npz,R5.npz --out V.npz
    python experiments/scopa_search/run.py play   --spec ismcts:1000 --variant none  --deals 200 --out base.jsonl
    python experiments/scopa_search/run.py play   --variant linear --arg W.npy --deals 200 --out lin.jsonl
    python experiments/scopa_search/run.py play   --variant mlp --arg V.npz [--spec ismcts:1000,depth=0] ...
    python experiments/scopa_search/run.py play   --variant infer --arg 0.15,0.02 ...
    python experiments/scopa_search/run.py compare base.jsonl lin.jsonl ...

Variants: ``linear`` (the leaf evaluation a least-squares fit per stage of 19
features to the deal's final point difference under mostly-heuristic play),
``mlp`` (a 206-128-64-1 value network of the whole determinized state),
``infer`` (determinizations weight down values the other seat showed it lacks
by placing a card where one of that value would have captured).
"""
import argparse, json, os, random, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def policy_games(n, seed, record):
    """Single deals, each seat at each decision: heuristic 75%, quick_score's move 20%, random 5%."""
    from cavallo_env import games
    from cavallo_env.scopa.bots import HeuristicBot
    from cavallo_env.scopa.search import quick_score
    g = games.get("scopa")
    rng = random.Random(seed)
    hb = HeuristicBot(seed=0)
    for j in range(n):
        state = g.new_state(seed * 1000003 + j, match=False)
        rows = []
        while not state.done:
            rows.append(record(state))
            legal = state.legal_moves()
            u = rng.random()
            if len(legal) == 1:
                m = legal[0]
            elif u < 0.75:
                view = g.make_view(state, state.current)
                m = hb.choose_move(view, g.legal_moves_of(view))
            elif u < 0.95:
                m = max(legal, key=lambda mv: quick_score(state, mv))
            else:
                m = rng.choice(legal)
            g.play(state, m)
        yield rows, state.deal.points()


def cmd_data(a):
    import numpy as np
    from feats import features
    X, Y, T = [], [], []
    for rows, p in policy_games(a.deals, a.seed, lambda s: (features(s), s.deal.turn)):
        for f, t in rows:
            X.append(f); Y.append(p[0] - p[1]); T.append(t)
    np.savez(a.out, X=np.array(X, dtype=np.float32), Y=np.array(Y, dtype=np.float32), T=np.array(T, dtype=np.int8))


def cmd_raw(a):
    import numpy as np
    from enc import encode
    X, D, Y, T = [], [], [], []
    for rows, p in policy_games(a.deals, a.seed, lambda s: (encode(s), s.deal.current, s.deal.turn)):
        for (idx, dense), me, t in rows:
            x = np.zeros(200, dtype=np.uint8); x[idx] = 1
            X.append(x); D.append(dense); Y.append(p[me] - p[1 - me]); T.append(t)
    np.savez_compressed(a.out, X=np.array(X), D=np.array(D, dtype=np.float32), Y=np.array(Y, dtype=np.float32),
                        T=np.array(T, dtype=np.int8))


def cmd_fit(a):
    import numpy as np
    from feats import NAMES
    d = np.load(a.data); X, Y, T = d["X"].astype(np.float64), d["Y"].astype(np.float64), d["T"]
    test = np.arange(len(Y)) % 10 == 0
    W = []
    for lo in range(0, 36, 6):
        m = (T >= lo) & (T < lo + 6)
        tr, te = m & ~test, m & test
        w, *_ = np.linalg.lstsq(X[tr, :19], Y[tr], rcond=None)
        W.append(w)
        r2 = lambda p: 1 - ((Y[te] - p) ** 2).mean() / Y[te].var()
        print(f"turns {lo}-{lo + 5}: R2 static+lookahead {r2(X[te, 19] + 0.7 * X[te, 7]):.3f}, linear {r2(X[te, :19] @ w):.3f}")
        print("   ", " ".join(f"{k}={v:+.2f}" for k, v in zip(NAMES, w)))
    np.save(a.out, np.array(W))


def cmd_mlp(a):
    import numpy as np, torch
    torch.set_num_threads(1); torch.manual_seed(0)
    ds = [np.load(f) for f in a.data.split(",")]  # several files: their deals together
    inp = torch.from_numpy(np.concatenate([np.concatenate([d["X"].astype(np.float32), d["D"]], 1) for d in ds]))
    y = torch.from_numpy(np.concatenate([d["Y"] for d in ds]))
    n = len(y); test = torch.from_numpy((np.arange(n) // 36) % 20 == 0)
    tri, tei = torch.nonzero(~test).squeeze(1), torch.nonzero(test).squeeze(1)
    net = torch.nn.Sequential(torch.nn.Linear(206, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64), torch.nn.ReLU(),
                              torch.nn.Linear(64, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3); bs = 1024; epochs = 6
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=epochs * (len(tri) // bs))
    for ep in range(epochs):
        perm = tri[torch.randperm(len(tri))]
        for s in range(len(tri) // bs):
            b = perm[s * bs:(s + 1) * bs]
            loss = ((net(inp[b]).squeeze(1) - y[b]) ** 2).mean()
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
        with torch.no_grad():
            print(f"epoch {ep}: held-out R2 {1 - ((net(inp[tei]).squeeze(1) - y[tei]) ** 2).mean().item() / y[tei].var().item():.3f}")
    np.savez(a.out, **{k.replace(".", "_"): v.numpy() for k, v in net.state_dict().items()})


def cmd_play(a):
    import variant
    if a.variant != "none":
        getattr(variant, "install_" + a.variant)(a.arg)
    from cavallo_env.evaluation import play_duplicate_deal
    with open(a.out, "a") as f:
        for i in range(a.start, a.deals):
            games, timing = play_duplicate_deal(a.spec, "heuristic", a.seed, i, "scopa", {"match": False})
            s = sum(1.0 if g.diff > 0 else 0.5 if g.diff == 0 else 0.0 for g in games)
            f.write(json.dumps({"i": i, "score": s, "diff": sum(g.diff for g in games), "t": timing["a"]}) + "\n")
            f.flush()


def cmd_compare(a):
    load = lambda p: {r["i"]: r for r in map(json.loads, open(p))}
    base = load(a.files[0])
    for path in a.files[1:]:
        r = [x for x in load(path).values() if x["i"] in base]
        n = len(r)
        d = [(x["score"] - base[x["i"]]["score"]) / 2 for x in r]
        md = sum(d) / n
        se = (sum((x - md) ** 2 for x in d) / max(1, n - 1)) ** 0.5 / n ** 0.5
        print(f"{path}: {n} deals, score {sum(x['score'] for x in r) / (2 * n):.1%} against "
              f"{sum(base[x['i']]['score'] for x in r) / (2 * n):.1%} for the baseline on the same deals "
              f"(difference {md:+.1%} +- {1.96 * se:.1%}), points/game {sum(x['diff'] for x in r) / (2 * n):+.3f}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("data", "raw"):
        s = sub.add_parser(name); s.add_argument("--out", required=True); s.add_argument("--deals", type=int, default=30000)
        s.add_argument("--seed", type=int, default=2)
    for name in ("fit", "mlp"):
        s = sub.add_parser(name); s.add_argument("--data", required=True); s.add_argument("--out", required=True)
    s = sub.add_parser("play"); s.add_argument("--spec", default="ismcts:1000"); s.add_argument("--variant", default="none")
    s.add_argument("--arg"); s.add_argument("--deals", type=int, default=200); s.add_argument("--start", type=int, default=0)
    s.add_argument("--seed", type=int, default=2026); s.add_argument("--out", required=True)
    s = sub.add_parser("compare"); s.add_argument("files", nargs="+")
    a = p.parse_args()
    globals()["cmd_" + a.cmd](a)
