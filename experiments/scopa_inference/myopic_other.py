"""Scratch: the other seat plays myopically (greedy-like) in rollouts with prob = its greedy weight."""
from cavallo_env.scopa import search as S
from cavallo_env.scopa.search import quick_score, capture_gain, _W
from cavallo_env.scopa.engine import VALUE

CUR = {"other": None, "g": 0.0}
_orig_det = S.ScopaSearch.determinizer


def det(self, base, seat):
    d = _orig_det(self, base, seat)
    past, _ = S.plays_of(base.deal, 1 - seat)
    m = S.player_model(past, 1 - seat, base.money, base.deal.dealer)
    CUR["other"], CUR["g"] = 1 - seat, m[1]
    return d


def myopic(state, move):
    card, capture = move
    if capture:
        return capture_gain(state, move) + 0.001 * len(capture)
    return -0.01 * VALUE[card] - 0.3 * _W[state.money][card]


def rollout(self, state, rng, plies):
    eps = self.epsilon
    rand, choice = rng.random, rng.choice
    greedy_other = rand() < CUR["g"]
    other = CUR["other"]
    while plies > 0 and not state.done:
        legal = state.deal.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        elif rand() < eps:
            move = choice(legal)
        else:
            f = myopic if (greedy_other and state.deal.current == other) else quick_score
            best = -1e9
            move = legal[0]
            for m in legal:
                q = f(state, m)
                if q > best:
                    best, move = q, m
        state.play(move[0], move[1])
        plies -= 1


def install():
    S.ScopaSearch.determinizer = det
    S.ScopaSearch.rollout = rollout
