import sys, math, random
from cavallo_env import games
from cavallo_env.scopa import search as S
from cavallo_env.scopa.bots import HeuristicBot, GreedyBot
g = games.get("scopa")
opp_name = sys.argv[1]
settings = [tuple(float(x) for x in m.split(",")) for m in sys.argv[2:]]  # prior3, slip, adaptive
opp = {"heuristic": HeuristicBot(seed=0), "greedy": GreedyBot(seed=0)}[opp_name]
me = HeuristicBot(seed=0)
res = {m: [] for m in settings}
rng = random.Random(0)
def weight(h, model, plays, s):
    w = list(model)
    for p in plays:
        for k, x in enumerate(S.likelihoods(h, p, 1, s.money, s.deal.dealer)): w[k] *= x
    return sum(w)
for j in range(25):
    s = g.new_state(1000 + j, match=False)
    while not s.done:
        seat = s.current
        v = g.make_view(s, seat)
        if seat == 0 and s.deal.hands[1]:
            past, plays = S.plays_of(s.deal, 1)
            if plays:
                hidden = [c for c in range(40) if c not in set(s.deal.hands[0]) | set(s.deal.table) | set(s.deal.piles[0]) | set(s.deal.piles[1]) and c not in [m[1] for m in s.deal.moves]]
                n = len(s.deal.hands[1])
                true = sorted(s.deal.hands[1])
                cands = [sorted(rng.sample(hidden, n)) for _ in range(60)]
                for m in settings:
                    S.MODEL = m[:3]; S.SLIP = m[3]
                    model = S.player_model(past, 1, s.money, s.deal.dealer) if m[4] else m[:3]
                    wt = weight(true, model, plays, s)
                    ws = [weight(h, model, plays, s) for h in cands]
                    res[m].append(math.log(wt / (sum(ws) / len(ws))))
        mv = (me if seat == 0 else opp).choose_move(v, g.legal_moves_of(v))
        g.play(s, mv)
for m in settings:
    r = res[m]
    print(opp_name, m, f"n={len(r)} mean log-ratio {sum(r)/len(r):+.3f}")
