/* Briscola's ISMCTS decision in C: see briscola_search.h.  Each function
 * names the Python it mirrors (cavallo_env/bots/ismcts.py: _Search;
 * cavallo_env/briscola/search.py: BriscolaSearch; briscola/endgame.py: _solve). */
#include "search_common.h" /* first: it asks for POSIX clocks */

#include "briscola_search.h"

#include "briscola_bots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define C CV_BR_CARDS
#define SUIT(c) ((c) / 10)
#define P(c) ((int)CV_BR_POINTS[c])
#define STR(c) ((int)CV_BR_STRENGTH[c])
#define MAX_PATH 48
#define NET_NODES 8 /* the network-guided tree's nodes an iteration (on average, at most) */

static int beats(int lead, int card, int trump_suit) { /* engine._beats_table */
    if (SUIT(card) == SUIT(lead)) return STR(card) > STR(lead);
    return SUIT(card) == trump_suit;
}

/* the search's random numbers and hash(x) of a float, as the Python search's (search_common.h) */
typedef cv_search_rng rng_t;
#define rnd cv_search_random
#define below cv_search_below
#define py_hash_unit cv_py_hash_unit

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
    for (int k = 0; k < p->depth; k++) {
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
    if (!t.done && p->depth) rollout(&t, p, &rng);
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

static void shuffle(int8_t *a, int n, rng_t *rng) { /* random.Random.shuffle */
    for (int i = n - 1; i > 0; i--) {
        int j = below(rng, i + 1);
        int8_t x = a[i];
        a[i] = a[j];
        a[j] = x;
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
        shuffle(pool, np, rng);
    } else {
        shuffle(pool, np, rng);
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

/* -- the tree (ismcts._Node, _Search) --------------------------------------------- */

typedef struct {
    int32_t first, next; /* first child, next sibling (-1: none) */
    int8_t card;
    int64_t visits, avail;
    double total;        /* summed reward of the team that made the move into this node */
    double prior;        /* with a network: its policy's probability of the move (PUCT's P) */
} node;

typedef struct {
    const cv_briscola *base;
    const cv_brs_params *p;
    node *nodes;
    int32_t used, cap;
    int32_t path[MAX_PATH];
    int8_t team[MAX_PATH];
    int plen;
    struct timespec stop, soft, cpu; /* the deadline (abandon the search); the budget (play the best
                                      * move): wall clock (soft) and this thread's CPU time (cpu) */
    int bounded, late, budgeted, full; /* full: the network's tree reached its node cap */
    cv_pyrandom seeded, local; /* halving with Python's numbers: a world's generator, and a move's copy */
    const int32_t *root_kid;   /* halving: the node of each root move (its order by mean) */
} search;

static int32_t child(const search *s, int32_t at, int card) {
    for (int32_t k = s->nodes[at].first; k >= 0; k = s->nodes[k].next)
        if (s->nodes[k].card == card) return k;
    return -1;
}

static int32_t add_child(search *s, int32_t at, int card) {
    int32_t k = s->used++;
    node *n = s->nodes + k;
    n->first = -1;
    n->next = s->nodes[at].first;
    n->card = (int8_t)card;
    n->visits = n->avail = 0;
    n->total = n->prior = 0.0;
    s->nodes[at].first = k;
    return k;
}

static double quick_score(const cv_briscola *t, int m) { /* BriscolaSearch.quick_score */
    int ts = t->trump_suit;
    double keep = SUIT(m) == ts ? trump_worth(m) : 0.1 * STR(m);
    if (t->lead < 0) return -P(m) - keep;
    int gain = P(t->lead) + P(m);
    return (beats(t->lead, m, ts) ? gain : -gain) - keep;
}

static int best_quick(const cv_briscola *t, const int8_t *moves, int n, rng_t *rng) { /* ismcts._best_quick */
    int8_t best[C];
    int nb = 0;
    double top = -1e18;
    for (int i = 0; i < n; i++) {
        double q = quick_score(t, moves[i]);
        if (q > top) top = q, nb = 0;
        if (q == top) best[nb++] = moves[i];
    }
    return nb == 1 ? best[0] : best[below(rng, nb)];
}

static void back_up(search *s, double diff) { /* _Search.back_up */
    const cv_brs_params *p = s->p;
    double sign = (double)((diff > 0) - (diff < 0));
    double r0 = p->reward == CV_BRS_POINTS ? diff / p->scale : p->reward == CV_BRS_WIN ? sign : sign + diff / p->scale;
    for (int i = 0; i < s->plen; i++) {
        node *n = s->nodes + s->path[i];
        n->visits++;
        n->total += s->team[i] == 0 ? r0 : -r0;
    }
}

static int past_on(clockid_t clock, const struct timespec *when) {
    struct timespec now;
    clock_gettime(clock, &now);
    return now.tv_sec > when->tv_sec || (now.tv_sec == when->tv_sec && now.tv_nsec > when->tv_nsec);
}

static int past(const struct timespec *when) { return past_on(CLOCK_MONOTONIC, when); }

/* the network-guided search's budget spent: its CPU time, or its wall-clock cap */
static int spent(const search *s) {
    return s->budgeted && (past_on(CLOCK_THREAD_CPUTIME_ID, &s->cpu) || past(&s->soft));
}

static int past_time(search *s) {
    if (!s->bounded) return 0;
    if (past(&s->stop)) s->late = 1;
    return s->late;
}

static void after_on(clockid_t clock, struct timespec *when, double seconds) { /* now + seconds */
    clock_gettime(clock, when);
    double whole = floor(seconds);
    when->tv_sec += (time_t)whole;
    when->tv_nsec += (long)((seconds - whole) * 1e9);
    if (when->tv_nsec >= 1000000000L) when->tv_sec++, when->tv_nsec -= 1000000000L;
}

static void after(struct timespec *when, double seconds) { after_on(CLOCK_MONOTONIC, when, seconds); }

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

/* the move the tree walk takes at `at` (UCB over the tried moves), or expands (an untried one):
 * sets *expand when the move is new */
static int select_move(search *s, int32_t at, int32_t root, const cv_briscola *t, rng_t *rng, int *expand) {
    const cv_brs_params *p = s->p;
    int8_t moves[CV_BR_HAND];
    int n = legal_moves(t, moves), nu = 0, best = -1;
    int8_t untried[CV_BR_HAND];
    double best_u = -1e18;
    for (int i = 0; i < n; i++) {
        int32_t k = child(s, at, moves[i]);
        if (k < 0) {
            untried[nu++] = moves[i];
            continue;
        }
        node *ch = s->nodes + k;
        ch->avail++;
        if (nu) continue;
        double u = ch->total / ch->visits + p->c * sqrt(log((double)ch->avail) / ch->visits);
        if (p->bias && at == root) u += p->bias[moves[i]] / (ch->visits + 1);
        if (u > best_u) best_u = u, best = moves[i];
    }
    *expand = nu > 0;
    if (!nu) return best;
    if (nu == 1) return untried[0];
    return p->expand_greedy ? best_quick(t, untried, nu, rng) : untried[below(rng, nu)];
}

/* one iteration from `at` (whose moves are t's): select, expand one move, roll out, evaluate,
 * back up along the path (_Search.iterate) */
static void iterate(search *s, cv_briscola *t, int32_t at, rng_t *rng, int32_t root) {
    while (!t->done && s->plen < MAX_PATH) {
        int expand;
        int m = select_move(s, at, root, t, rng, &expand);
        int team = t->current;
        int32_t k = expand ? add_child(s, at, m) : child(s, at, m);
        if (expand) s->nodes[k].avail = 1;
        cv_briscola_play(t, m);
        s->path[s->plen] = k;
        s->team[s->plen++] = (int8_t)team;
        at = k;
        if (expand) break;
    }
    if (!t->done && s->p->depth) rollout(t, s->p, rng);
    back_up(s, evaluate(t, s->p->win));
}

/* -- the root: UCB or sequential halving (ISMCTSBot.search, _Search.halving) -------- */

static double mean(const node *n) { return n->total / (double)(n->visits > 1 ? n->visits : 1); }

/* halving's order after its first round: a root card's mean reward (s->root_kid: the root's nodes) */
static double mean_key(const void *s, int card) { return mean(((const search *)s)->nodes + ((const search *)s)->root_kid[card]); }

static void iterate_net(search *s, cv_briscola *t, int32_t at, rng_t *rng);

static int halving(search *s, rng_t *rng) {
    const cv_briscola *base = s->base;
    int8_t cards[CV_BR_HAND];
    int alive[CV_BR_HAND];
    int32_t kid[C];
    int n = legal_moves(base, cards);
    for (int i = 0; i < n; i++) alive[i] = cards[i];
    if (s->p->bias) cv_sort_alive(alive, n, cv_bias_key, s->p->bias);
    for (int i = 0; i < n; i++) kid[alive[i]] = add_child(s, 0, alive[i]);
    s->root_kid = kid;
    int rounds = cv_halving_rounds(n);
    int64_t budget = s->p->iterations;
    for (int r = 0; r < rounds; r++) {
        if (n == 1 || budget <= 0) break;
        int64_t per_move = cv_halving_share(budget, rounds, r, n);
        for (int64_t k = 0; k < per_move && budget >= n; k++) {
            cv_briscola world;
            determinize(base, s->p->weights, &world, rng);
            /* the same random stream below every move of this world (Python: random.Random(rng.random())) */
            uint64_t seed = rng->py ? py_hash_unit(cv_pyrandom_random(rng->py)) : cv_splitmix64(&rng->fast);
            if (rng->py) { /* seeded and twisted once, copied for each move */
                cv_pyrandom_seed(&s->seeded, seed);
                cv_pyrandom_u32(&s->seeded); /* the first draw twists the state ... */
                s->seeded.index = 0;         /* ... and this puts its word back: the state right after */
            }
            for (int i = 0; i < n; i++) {
                if (past_time(s)) return -1;
                if (s->full || spent(s)) { /* the network's budget: the best mean so far */
                    cv_sort_alive(alive, n, mean_key, s);
                    return alive[0];
                }
                cv_briscola t = world;
                rng_t local = {seed, NULL};
                if (rng->py) {
                    s->local = s->seeded;
                    local.py = &s->local;
                }
                node *ch = s->nodes + kid[alive[i]];
                cv_briscola_play(&t, alive[i]);
                ch->avail++;
                s->path[0] = kid[alive[i]];
                s->team[0] = (int8_t)world.current;
                s->plen = 1;
                if (s->p->net) iterate_net(s, &t, kid[alive[i]], &local);
                else iterate(s, &t, kid[alive[i]], &local, -1);
                budget--;
            }
        }
        cv_sort_alive(alive, n, mean_key, s);
        n = (n + 1) / 2;
    }
    return alive[0];
}

static int most_visited(const search *s);

static int ucb_root(search *s, rng_t *rng) {
    for (int64_t k = 0; k < s->p->iterations; k++) {
        if (past_time(s)) return -1;
        cv_briscola world;
        determinize(s->base, s->p->weights, &world, rng);
        s->plen = 0;
        iterate(s, &world, 0, rng, 0);
    }
    return most_visited(s);
}

static int most_visited(const search *s) { /* the root's card with most visits, then most total */
    const cv_briscola *base = s->base;
    int best = -1;
    int64_t best_v = 0;
    double best_t = 0.0;
    int8_t moves[CV_BR_HAND];
    int n = legal_moves(base, moves);
    for (int i = 0; i < n; i++) { /* most visits, then most total */
        int m = moves[i];
        int32_t k = child(s, 0, m);
        int64_t v = k < 0 ? -1 : s->nodes[k].visits;
        double tot = k < 0 ? 0.0 : s->nodes[k].total;
        if (best < 0 || v > best_v || (v == best_v && tot > best_t)) best = m, best_v = v, best_t = tot;
    }
    return best;
}

/* -- the network-guided search (PUCT; briscola_search.h) ---------------------------- */

/* the network's policy over moves[0..n) (probs) and its value of t, as seat 0's final point
 * difference with the evaluation's bonus for the side ahead */
static double net_eval(const cv_brs_params *p, const cv_briscola *t, const int8_t *moves, int n, double *probs) {
    float obs[CV_BR_OBS_SIZE], prior[CV_BR_PRIOR_SIZE];
    int actions[CV_BR_HAND];
    cv_briscola_observe(t, t->current, obs);
    if (p->net->prior_size) cv_briscola_prior(t, prior);
    for (int i = 0; i < n; i++) actions[i] = moves[i];
    float v = cv_mlp_policy(p->net, obs, p->net->prior_size ? prior : NULL, actions, n, p->temp, probs);
    double d = (t->current == 0 ? 1.0 : -1.0) * (double)v * p->value_scale;
    return p->win != 0.0 ? d + p->win * tanh(d / 12.0) : d;
}

/* the value of a leaf whose network value is net_v: exact with at most one card in the stock,
 * else lambda * net_v + (1 - lambda) * the rollout's evaluation */
static double leaf_value(const cv_brs_params *p, const cv_briscola *t, double net_v, rng_t *rng) {
    if (CV_BR_STOCK - t->drawn <= 1) return cv_briscola_solve(t, p->win);
    if (p->lambda >= 1.0) return net_v;
    cv_briscola r = *t;
    if (p->depth) rollout(&r, p, rng);
    return p->lambda * net_v + (1.0 - p->lambda) * evaluate(&r, p->win);
}

/* PUCT's move among moves[0..n) at `at`, every one of them a child already */
static int puct_move(const search *s, int32_t at, const int8_t *moves, int n) {
    const cv_brs_params *p = s->p;
    int best = moves[0];
    double best_u = -1e18;
    for (int i = 0; i < n; i++) {
        const node *ch = s->nodes + child(s, at, moves[i]);
        double q = ch->visits ? ch->total / (double)ch->visits : p->fpu;
        double u = q + p->c_puct * ch->prior * sqrt((double)ch->avail) / (double)(1 + ch->visits);
        if (u > best_u) best_u = u, best = moves[i];
    }
    return best;
}

/* the cards of t (moves[0..n)) without a node at `at` get one, with the network's policy as their
 * prior; every other one was available once more.  Returns the network's value of t when it ran
 * (*ran set), which it does when a card had no node. */
static double expand(search *s, int32_t at, const cv_briscola *t, const int8_t *moves, int n, int *ran) {
    double probs[CV_BR_HAND], v = 0.0;
    *ran = 0;
    for (int i = 0; i < n; i++) {
        int32_t k = child(s, at, moves[i]);
        if (k >= 0) {
            s->nodes[k].avail++;
            continue;
        }
        if (!*ran) v = net_eval(s->p, t, moves, n, probs), *ran = 1;
        k = add_child(s, at, moves[i]);
        s->nodes[k].avail = 1;
        s->nodes[k].prior = probs[i];
    }
    return v;
}

/* one PUCT iteration from `at` (whose moves are t's) down to a node visited for the first time:
 * there the network values the position (and gives its cards their priors), the value is backed up */
static void iterate_net(search *s, cv_briscola *t, int32_t at, rng_t *rng) {
    int ran = 0;
    while (!t->done && s->plen < MAX_PATH) {
        if (s->used + CV_BR_HAND > s->cap) { /* no room for the nodes of one more position: done */
            s->full = 1;
            return;
        }
        int8_t moves[CV_BR_HAND];
        int n = legal_moves(t, moves);
        double v = expand(s, at, t, moves, n, &ran);
        if (s->plen && s->nodes[at].visits == 0) { /* a new leaf: valued by the network */
            if (!ran) {
                double probs[CV_BR_HAND];
                v = net_eval(s->p, t, moves, n, probs);
            }
            back_up(s, leaf_value(s->p, t, v, rng));
            return;
        }
        int m = puct_move(s, at, moves, n);
        int32_t k = child(s, at, m);
        s->path[s->plen] = k;
        s->team[s->plen++] = (int8_t)t->current;
        cv_briscola_play(t, m);
        at = k;
    }
    back_up(s, evaluate(t, s->p->win));
}

static int puct_root(search *s, rng_t *rng) {
    for (int64_t k = 0; k < s->p->iterations; k++) {
        if (past_time(s)) return -1;
        if (s->full || (k && spent(s))) break;
        cv_briscola world;
        determinize(s->base, s->p->weights, &world, rng);
        s->plen = 0;
        iterate_net(s, &world, 0, rng);
    }
    return most_visited(s);
}

static void root_means(const search *s, double *means) { /* p->means: each root card's mean reward */
    for (int c = 0; c < C; c++) means[c] = 0.0;
    for (int32_t k = s->nodes[0].first; k >= 0; k = s->nodes[k].next)
        if (s->nodes[k].visits) means[s->nodes[k].card] = s->nodes[k].total / (double)s->nodes[k].visits;
}

int cv_briscola_search(const cv_briscola *base, const cv_brs_params *p, int64_t visits[C]) {
    search s;
    memset(&s, 0, sizeof s);
    s.base = base;
    s.p = p;
    /* an iteration adds one node; with a network, the cards of the position it stops at and those
     * new in its determinization on the way: NET_NODES an iteration on average at most (the search
     * ends where they are used up) */
    s.cap = (int32_t)((p->net ? NET_NODES : 1) * p->iterations + CV_BR_HAND + 2);
    s.nodes = malloc(sizeof(node) * (size_t)s.cap);
    if (!s.nodes) return -2;
    s.nodes[0].first = s.nodes[0].next = -1;
    s.used = 1;
    if (p->seconds > 0) {
        s.bounded = 1;
        after(&s.stop, p->seconds);
    }
    if (p->net && p->budget > 0) {
        s.budgeted = 1;
        after_on(CLOCK_THREAD_CPUTIME_ID, &s.cpu, p->budget);
        after(&s.soft, p->budget_wall > 0 ? p->budget_wall : p->budget);
    }
    rng_t rng = {p->seed, NULL};
    cv_pyrandom py;
    if (p->mt) { /* random.Random.setstate: the 624 words and the index */
        memcpy(py.state, p->mt, sizeof py.state);
        py.index = (int)p->mt[CV_MT_N];
        rng.py = &py;
    }
    int move = p->halving ? halving(&s, &rng) : p->net ? puct_root(&s, &rng) : ucb_root(&s, &rng);
    for (int c = 0; c < C; c++) visits[c] = 0;
    for (int32_t k = s.nodes[0].first; k >= 0; k = s.nodes[k].next) visits[s.nodes[k].card] = s.nodes[k].visits;
    if (p->means) root_means(&s, p->means);
    free(s.nodes);
    return move;
}
