/* Briscola's ISMCTS decision in C: see briscola_search.h.  Each function
 * names the Python it mirrors (cavallo_env/bots/ismcts.py: _Search;
 * cavallo_env/briscola/search.py: BriscolaSearch; briscola/endgame.py: _solve). */
#include "search_common.h" /* first: it asks for POSIX clocks */

#include "briscola_search.h"

#include "briscola_bots.h"
#include "ismcts_tree.h"

#include <math.h>
#include <string.h>

#define C CV_BR_CARDS
#define SUIT(c) ((c) / 10)
#define P(c) ((int)CV_BR_POINTS[c])
#define STR(c) ((int)CV_BR_STRENGTH[c])

static int beats(int lead, int card, int trump_suit) { /* engine._beats_table */
    if (SUIT(card) == SUIT(lead)) return STR(card) > STR(lead);
    return SUIT(card) == trump_suit;
}

/* the search's random numbers, as the Python search's (search_common.h) */
typedef cv_search_rng rng_t;
#define rnd cv_search_random

static double trump_worth(int c) { return 2.0 + 0.4 * STR(c); } /* search._TRUMP_WORTH */

static double keep_value(int c, int trump_suit) { /* search._keep_table */
    if (SUIT(c) == trump_suit) return 4.0 + 0.6 * STR(c) + 0.6 * P(c);
    return P(c) >= 10 ? 2.0 : 0.1 * STR(c);
}

/* -- the exact endgame (endgame._solve) ------------------------------------------ */

static double solve(const int8_t *h0, int n0, const int8_t *h1, int n1, int leader, int lead, const int8_t *stock,
                    int ns, int trump, double diff, double alpha, double beta, double bonus) {
    int ts = SUIT(trump);
    if (lead < 0 && n0 == 0 && n1 == 0) return diff + (diff > 0 ? bonus : diff < 0 ? -bonus : 0.0);
    int mover = lead < 0 ? leader : 1 - leader;
    const int8_t *hand = mover == 0 ? h0 : h1;
    int n = mover == 0 ? n0 : n1;
    double best = mover == 0 ? -1e9 : 1e9;
    for (int i = 0; i < n; i++) {
        int c = hand[i];
        int8_t rest[4];
        int nr = 0;
        for (int k = 0; k < n; k++)
            if (k != i) rest[nr++] = hand[k];
        double v;
        if (lead < 0) {
            v = mover == 0 ? solve(rest, nr, h1, n1, leader, c, stock, ns, trump, diff, alpha, beta, bonus)
                           : solve(h0, n0, rest, nr, leader, c, stock, ns, trump, diff, alpha, beta, bonus);
        } else {
            int w = beats(lead, c, ts) ? mover : leader;
            int pts = P(lead) + P(c);
            double d = w == 0 ? diff + pts : diff - pts;
            int8_t a0[4], a1[4];
            int m0 = 0, m1 = 0;
            const int8_t *s0 = mover == 0 ? rest : h0, *s1 = mover == 0 ? h1 : rest;
            int k0 = mover == 0 ? nr : n0, k1 = mover == 0 ? n1 : nr;
            for (int k = 0; k < k0; k++) a0[m0++] = s0[k];
            for (int k = 0; k < k1; k++) a1[m1++] = s1[k];
            if (ns > 0) {
                int drew_w = stock[0], drew_l = ns > 1 ? stock[1] : trump;
                a0[m0++] = (int8_t)(w == 0 ? drew_w : drew_l);
                a1[m1++] = (int8_t)(w == 0 ? drew_l : drew_w);
            }
            int skip = ns > 2 ? 2 : ns;
            v = solve(a0, m0, a1, m1, w, -1, stock + skip, ns - skip, trump, d, alpha, beta, bonus);
        }
        if (mover == 0) {
            if (v > best) best = v;
            if (best > alpha) alpha = best;
        } else {
            if (v < best) best = v;
            if (best < beta) beta = best;
        }
        if (alpha >= beta) break;
    }
    return best;
}

double cv_briscola_solve(const cv_briscola *t, double bonus) { /* endgame.solve_state */
    double diff = (double)t->points[0] - (double)t->points[1];
    if (t->done) return diff + (diff > 0 ? bonus : diff < 0 ? -bonus : 0.0);
    return solve(t->hands[0], t->hand_len[0], t->hands[1], t->hand_len[1], t->leader, t->lead,
                 t->stock + t->drawn, CV_BR_STOCK - t->drawn, t->trump, diff, -1e9, 1e9, bonus);
}

/* -- the rollout and the evaluation (BriscolaSearch.rollout, evaluate) ------------ */

static int answer(const int8_t *hand, int n, int lead, int ts) { /* search._answer */
    int best = hand[0];
    double best_v = -1e9;
    for (int i = 0; i < n; i++) {
        int c = hand[i], g = P(lead) + P(c);
        double v = (beats(lead, c, ts) ? g : -g) - keep_value(c, ts);
        if (v > best_v) best = c, best_v = v;
    }
    return best;
}

static int smart_card(const cv_briscola *t) { /* search.smart_card */
    int me = t->current, ts = t->trump_suit;
    const int8_t *hand = t->hands[me];
    int n = t->hand_len[me];
    if (t->lead >= 0) return answer(hand, n, t->lead, ts);
    int best = hand[0];
    double best_v = -1e9;
    for (int i = 0; i < n; i++) {
        int c = hand[i], r = answer(t->hands[1 - me], t->hand_len[1 - me], c, ts), g = P(c) + P(r);
        double v = (beats(c, r, ts) ? -g : g) - keep_value(c, ts) + keep_value(r, ts);
        if (v > best_v) best = c, best_v = v;
    }
    return best;
}

static int greedy_card(const int8_t *hand, int n, int lead, int ts) { /* bots.greedy_card */
    int best = -1;
    if (lead >= 0) { /* cheapest winner: (is trump, -points or strength, id) smallest */
        int bk0 = 0, bk1 = 0;
        for (int i = 0; i < n; i++) {
            int c = hand[i];
            if (!beats(lead, c, ts) || P(lead) + P(c) <= 0) continue;
            int k0 = SUIT(c) == ts, k1 = k0 ? STR(c) : -P(c);
            if (best < 0 || k0 < bk0 || (k0 == bk0 && (k1 < bk1 || (k1 == bk1 && c < best))))
                best = c, bk0 = k0, bk1 = k1;
        }
        if (best >= 0) return best;
    }
    int bw = 0, bs = 0; /* bots._waste: (points + 12 for a trump, strength, id) smallest */
    for (int i = 0; i < n; i++) {
        int c = hand[i], w = P(c) + (SUIT(c) == ts ? 12 : 0), s = STR(c);
        if (best < 0 || w < bw || (w == bw && (s < bs || (s == bs && c < best)))) best = c, bw = w, bs = s;
    }
    return best;
}

static void rollout(cv_briscola *t, const cv_brs_params *p, rng_t *rng) { /* BriscolaSearch.rollout */
    for (int k = 0; k < p->search.depth; k++) {
        if (t->done || (p->smart && t->drawn >= CV_BR_STOCK && t->lead < 0)) return;
        const int8_t *hand = t->hands[t->current];
        int n = t->hand_len[t->current];
        if (n == 1) cv_briscola_play(t, hand[0]);
        else if (rnd(rng) < p->epsilon) cv_briscola_play(t, hand[(int)(rnd(rng) * n)]);
        else if (p->smart) cv_briscola_play(t, smart_card(t));
        else cv_briscola_play(t, greedy_card(hand, n, t->lead, t->trump_suit));
    }
}

static double evaluate(const cv_briscola *t, double win) { /* BriscolaSearch.evaluate */
    if (t->done || CV_BR_STOCK - t->drawn <= 1) return cv_briscola_solve(t, win);
    int ts = t->trump_suit;
    double worth[2] = {0.0, 0.0}; /* summed apart, then subtracted: Python's float rounding */
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < t->hand_len[s]; i++)
            if (SUIT(t->hands[s][i]) == ts) worth[s] += trump_worth(t->hands[s][i]);
    double est = worth[0] - worth[1];
    if (t->lead >= 0) {
        int me = t->current, wins = 0;
        for (int i = 0; i < t->hand_len[me]; i++) wins |= beats(t->lead, t->hands[me][i], ts);
        est += (me == 0 ? 1 : -1) * (wins ? P(t->lead) : -P(t->lead));
    }
    double v = (double)t->points[0] - (double)t->points[1] + est;
    return win != 0.0 ? v + win * tanh(v / 12.0) : v;
}

double cv_briscola_rollout_value(const cv_briscola *state, const cv_brs_params *p, uint64_t seed) {
    cv_briscola t = *state;
    rng_t rng = {seed, NULL};
    if (!t.done && p->search.depth) rollout(&t, p, &rng);
    return evaluate(&t, p->win);
}

/* -- the determinizations (BriscolaSearch.determinizer, BriscolaState.redeal_hidden) -- */

static void set_hand(cv_briscola *t, int seat, const int8_t *cards, int n) {
    t->hand_len[seat] = (uint8_t)n;
    t->hand_bits[seat] = 0;
    for (int i = 0; i < n; i++) {
        t->hands[seat][i] = cards[i];
        t->hand_bits[seat] |= 1ULL << cards[i];
    }
}

/* the hidden cards of base (the other hand, but the trump card it publicly holds, and the
 * stock) dealt again: uniformly, or the hand drawn one card at a time by weights */
static void determinize(const cv_briscola *base, const double *weights, cv_briscola *w, rng_t *rng) {
    *w = *base;
    int other = 1 - base->current, n_opp = base->hand_len[other], trump = base->trump;
    int known = base->trump_holder == other && (base->hand_bits[other] >> trump & 1);
    int8_t pool[C], hand[CV_BR_HAND];
    int np = 0;
    for (int i = 0; i < n_opp; i++)
        if (!known || base->hands[other][i] != trump) pool[np++] = base->hands[other][i];
    for (int i = base->drawn; i < CV_BR_STOCK; i++) pool[np++] = base->stock[i];
    int n = n_opp - known;
    if (weights) {
        double ws[C];
        for (int i = 0; i < np; i++) ws[i] = weights[pool[i]];
        for (int h = 0; h < n; h++) {
            double total = 0.0;
            for (int i = 0; i < np; i++) total += ws[i];
            double r = rnd(rng) * total;
            int k = 0;
            while (k < np - 1) {
                r -= ws[k];
                if (r < 0) break;
                k++;
            }
            hand[h] = pool[k];
            memmove(pool + k, pool + k + 1, (size_t)(np - k - 1));
            memmove(ws + k, ws + k + 1, sizeof(double) * (size_t)(np - k - 1));
            np--;
        }
        cv_search_shuffle(pool, np, rng);
    } else {
        cv_search_shuffle(pool, np, rng);
        memcpy(hand, pool, (size_t)n);
        memmove(pool, pool + n, (size_t)(np - n));
        np -= n;
    }
    if (known) hand[n] = (int8_t)trump;
    set_hand(w, other, hand, n + known);
    memcpy(w->stock + base->drawn, pool, (size_t)np);
}

void cv_briscola_determinize(const cv_briscola *base, const double *weights, cv_briscola *out, uint64_t *rng) {
    rng_t r = {*rng, NULL};
    determinize(base, weights, out, &r);
    *rng = r.fast;
}

/* -- the search (ismcts_tree.c) over Briscola's rules and hooks ---------------------------- */

static double quick_score(const cv_briscola *t, int m) { /* BriscolaSearch.quick_score */
    int ts = t->trump_suit;
    double keep = SUIT(m) == ts ? trump_worth(m) : 0.1 * STR(m);
    if (t->lead < 0) return -P(m) - keep;
    int gain = P(t->lead) + P(m);
    return (beats(t->lead, m, ts) ? gain : -gain) - keep;
}

/* the legal moves of the seat to play as BriscolaState.legal_moves lists them: its hand sorted by id */
static int legal_moves(const cv_briscola *t, int8_t moves[CV_BR_HAND]) {
    int n = t->hand_len[t->current];
    memcpy(moves, t->hands[t->current], (size_t)n);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && moves[j] < moves[j - 1]; j--) {
            int8_t x = moves[j];
            moves[j] = moves[j - 1];
            moves[j - 1] = x;
        }
    return n;
}

/* the network's policy over the moves (probs) and its value of t, as seat 0's final point
 * difference with the evaluation's bonus for the side ahead */
static double net_eval(const cv_brs_params *p, const cv_briscola *t, const cv_moves *moves, double *probs) {
    float obs[CV_BR_OBS_SIZE], prior[CV_BR_PRIOR_SIZE];
    int actions[CV_BR_HAND];
    cv_briscola_observe(t, t->current, obs);
    if (p->net->prior_size) cv_briscola_prior(t, prior);
    for (int i = 0; i < moves->n; i++) actions[i] = (int)moves->code[i];
    float v = cv_mlp_policy(p->net, obs, p->net->prior_size ? prior : NULL, actions, moves->n, p->temp, probs);
    double d = (t->current == 0 ? 1.0 : -1.0) * (double)v * p->value_scale;
    return p->win != 0.0 ? d + p->win * tanh(d / 12.0) : d;
}

static int game_moves(const void *t, cv_moves *out) {
    int8_t cards[CV_BR_HAND];
    int n = legal_moves(t, cards);
    out->n = 0;
    for (int i = 0; i < n; i++)
        if (cv_moves_push(out, (uint64_t)cards[i])) return -1;
    return 0;
}

static void game_play(void *t, uint64_t move) { cv_briscola_play(t, (int)move); }

static int game_done(const void *t) { return ((const cv_briscola *)t)->done; }

static int game_team(const void *t) { return ((const cv_briscola *)t)->current; }

static double game_quick(const void *t, uint64_t move) { return quick_score(t, (int)move); }

static void game_determinize(void *p, const void *base, void *out, cv_rng *rng) {
    determinize(base, ((const cv_brs_params *)p)->weights, out, rng);
}

static void game_rollout(void *p, void *t, cv_rng *rng) { rollout(t, p, rng); }

static double game_evaluate(void *p, const void *t) { return evaluate(t, ((const cv_brs_params *)p)->win); }

static double game_net(void *p, const void *t, const cv_moves *moves, double *probs) {
    return net_eval(p, t, moves, probs);
}

static int game_exact(void *p, const void *state, double *value) { /* at most one card in the stock */
    const cv_briscola *t = state;
    if (CV_BR_STOCK - t->drawn > 1) return 0;
    *value = cv_briscola_solve(t, ((const cv_brs_params *)p)->win);
    return 1;
}

static const cv_search_game GAME = {sizeof(cv_briscola), game_moves,   game_play,     game_done,
                                    game_team,           game_quick,   game_determinize, game_rollout,
                                    game_evaluate,       game_net,     game_exact};

int cv_briscola_search(const cv_briscola *base, const cv_brs_params *p, int64_t visits[C]) {
    int8_t cards[CV_BR_HAND];
    int n = legal_moves(base, cards);
    double bias[CV_BR_HAND];
    int64_t counts[CV_BR_HAND];
    cv_search_params search = p->search; /* the root's bias by card as by move; PUCT with a network */
    for (int i = 0; i < n; i++) bias[i] = p->bias ? p->bias[cards[i]] : 0.0;
    search.bias = p->bias ? bias : NULL;
    search.puct = p->net != NULL;
    int move = cv_search(&GAME, (void *)p, base, &search, n, counts);
    for (int c = 0; c < C; c++) visits[c] = 0;
    if (move < 0) return move;
    for (int i = 0; i < n; i++) visits[cards[i]] = counts[i];
    return cards[move];
}
