"""Clairvoyant ceiling: ismcts that searches the TRUE state (sees the other hand and the stock) vs OPP,
per-deal duplicate scores on deals [start, end) of SEED (scratch)."""
import sys, json, time, random
from cavallo_env import games
from cavallo_env.bots import make
from cavallo_env.evaluation import derive_seed, start_for
from cavallo_env.scopa import search as S
spec, opp, seed, start, end, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
MODE = sys.argv[7] if len(sys.argv) > 7 else "all"
def _det(self, base, seat):
    def f(rng):
        s = base.copy()
        if MODE == "hand":
            d = s.deal
            rest = list(d.initial_stock[d.stock_pos:]); rng.shuffle(rest)
            d.initial_stock = tuple(d.initial_stock[:d.stock_pos]) + tuple(rest)
        return s
    return f
S.ScopaSearch.determinizer = _det
g = games.get("scopa")
t0 = time.time()
with open(out, "a") as f:
    for i in range(start, end):
        s_tot = 0.0; d_tot = 0
        for round_, a_team in enumerate((0, 1)):
            bots = [make(spec if seat == a_team else opp, seed=derive_seed("bot", seed, i, round_, seat), game="scopa") for seat in range(2)]
            st = start_for(seed, i, "scopa", match=False)
            while not st.done:
                seat = st.current
                if seat == a_team:
                    legal = st.legal_moves()
                    m = bots[seat].search(st.copy(), random.Random(derive_seed("c", i, round_, st.deal.turn)), game=g) if len(legal) > 1 else legal[0]
                else:
                    view = g.make_view(st, seat)
                    m = g.move_from_dict(bots[seat].choose(view), g.deck_of(st))
                g.play(st, m)
            p = g.outcome(st)["points"]
            d = p[a_team] - p[1 - a_team]
            s_tot += 1.0 if d > 0 else 0.5 if d == 0 else 0.0; d_tot += d
        f.write(json.dumps({"i": i, "score": s_tot, "diff": d_tot, "t": [0, 1]}) + "\n"); f.flush()
print(spec, "done", time.time() - t0)
