/* Cavalloìcera's ISMCTS decision in C: see cavalloicera_search.h.  Each function
 * names the Python it mirrors (cavallo_env/bots/ismcts.py: _Search;
 * cavallo_env/cavalloicera/search.py: CavalloiceraSearch and its helpers). */
#include "search_common.h" /* first: it asks for POSIX clocks */
#include "cavalloicera_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cavalloicera_bots.h"
#include "ismcts_tree.h"
#include "mlp.h"
#include "pysum.h"

#define C CV_CV_CARDS
#define BIT(c) (1ULL << (c))
#define RANK(c) ((c) % 13)
#define SUIT(c) ((c) / 13)
#define VALUE(c) ((RANK(c) < 10) ? RANK(c) + 1 : 0) /* cards.VALUE */
#define NUMERALS 0x1ff8ffc7fe3ffULL
#define RANK_MASK(r) ((1ULL << (r)) | (1ULL << ((r) + 13)) | (1ULL << ((r) + 26)) | (1ULL << ((r) + 39)))
#define SUIT_MASK(s) (0x1fffULL << (13 * (s)))
#define SWORDS 2
#define SWORDS_ACE 26
#define MAX_SETS 4096 /* the sets of numerals summing to at most 10 in the whole deck: 4050, and the empty one */

static int lowest(uint64_t b) { return __builtin_ctzll(b); }
static int count(uint64_t b) { return __builtin_popcountll(b); }

static double VAL[C]; /* bots.CARD_VALUE, filled once */

static void card_values(void) {
    if (VAL[0] == 0.0)
        for (int c = C - 1; c >= 0; c--) VAL[c] = cv_cavalloicera_card_value(c);
}

/* -- the evaluation (search.static_eval, _most_cards_diff, _most_swords_diff) ------------------- */

static double most_cards_diff(const double q[C], double spread) {
    cv_pysum mu_sum = {0.0, 0.0};
    double var = 0.0;
    for (int c = 0; c < C; c++) {
        cv_pysum_add(&mu_sum, q[c]);
        if (0.0 < q[c] && q[c] < 1.0) var += q[c] * (1.0 - q[c]);
    }
    double mu = cv_pysum_result(&mu_sum);
    double sd = spread * sqrt(var) + 1e-9, k = sd * sqrt(2.0);
    return 2.0 * (1.0 - 0.5 * (1.0 + erf((26.5 - mu) / k)) - 0.5 * (1.0 + erf((25.5 - mu) / k)));
}

static double most_swords_diff(const double q[C]) {
    double dist[16] = {1.0}, nd[16];
    int n = 1;
    for (int c = SWORDS * 13; c < SWORDS * 13 + 13; c++) {
        double x = q[c];
        if (x == 1.0) { /* dist.insert(0, 0.0) */
            memmove(dist + 1, dist, sizeof(double) * (size_t)n++);
            dist[0] = 0.0;
        } else if (x != 0.0) {
            double y = 1.0 - x;
            memset(nd, 0, sizeof(double) * (size_t)(n + 1));
            for (int j = 0; j < n; j++) {
                nd[j] += dist[j] * y;
                nd[j + 1] += dist[j] * x;
            }
            memcpy(dist, nd, sizeof(double) * (size_t)++n);
        }
    }
    cv_pysum p7 = {0.0, 0.0};
    for (int j = 7; j < n; j++) cv_pysum_add(&p7, dist[j]);
    return 2.0 * cv_pysum_result(&p7) - 1.0;
}

double cv_cavalloicera_static_eval(const cv_cavalloicera *t, double hand_p) {
    if (t->turn >= CV_CV_TURNS) {
        int points[2], breakdown[2][CV_CV_KEYS], cards[2];
        cv_cavalloicera_score(t, points, breakdown, cards);
        return (double)(points[0] - points[1]);
    }
    const uint8_t *b0 = t->bonuses[0], *b1 = t->bonuses[1];
    double diff = (double)(b0[0] + b0[1] + b0[2] + b0[3] - b1[0] - b1[1] - b1[2] - b1[3]);
    double q[C];
    for (int c = 0; c < C; c++) q[c] = t->piles[0] >> c & 1 ? 1.0 : t->piles[1] >> c & 1 ? 0.0 : 0.5;
    if (hand_p != 0.5)
        for (int s = 0; s < CV_CV_SEATS; s++)
            for (uint64_t h = t->hands[s]; h; h &= h - 1) q[lowest(h)] = (s & 1) == 0 ? hand_p : 1.0 - hand_p;
    if (count(t->piles[0]) >= 27) diff += 2.0;
    else if (count(t->piles[1]) >= 27) diff -= 2.0;
    else diff += most_cards_diff(q, 1.5);
    diff += most_swords_diff(q);
    static const int fixed[3] = {27, 9, 23}; /* LA_MATA, COINS_10, CUPS_FANTE */
    for (int i = 0; i < 3; i++) diff += 2.0 * q[fixed[i]] - 1.0;
    return diff + cv_cavalloicera_expected_napula_diff(q + SWORDS_ACE);
}

/* -- moves, quick_score and the rollouts (search.quick_score, greedy_rollout, random_rollout) --- */

/* _set_score: s (the capturing card's value, suit su) plus what taking the set cap (two or more
 * cards) adds: the cards' values in id order, then scua, simili, quadriglia */
static double set_score(double s, int su, uint64_t cap, int ntable) {
    int same = 1, n = count(cap);
    for (uint64_t b = cap; b; b &= b - 1) {
        s += VAL[lowest(b)];
        if (SUIT(lowest(b)) != su) same = 0;
    }
    if (n == ntable) s += 1.0;
    if (same) s += 1.0;
    if (n >= 3) s += 1.0;
    return s;
}

static double quick_score(const cv_cavalloicera *t, int card, uint64_t cap) {
    if (!cap) return -1.0 - VAL[card];
    int ntable = count(t->table);
    if (count(cap) > 1) return set_score(VAL[card], SUIT(card), cap, ntable);
    int x = lowest(cap);
    double s = VAL[card] + VAL[x];
    if (ntable == 1) s += 1.0;
    if (x == t->prev_placed) s += 1.0;
    return s;
}

#define CODE(card, set) ((uint64_t)(card) << 56 | (set)) /* a move's code in the search's tree */
#define SET_BITS ((1ULL << C) - 1)

/* the sets of cand summing to rem that extend chosen, as increasing sorted tuples */
static int sets_from(cv_moves *m, int card, uint64_t cand, int rem, uint64_t chosen) {
    for (uint64_t b = cand; b; b &= b - 1) {
        int x = lowest(b), v = VALUE(x);
        if (v > rem) continue;
        uint64_t with = chosen | BIT(x);
        if (v == rem ? cv_moves_push(m, CODE(card, with)) : sets_from(m, card, cand & ~((BIT(x) << 1) - 1), rem - v, with))
            return -1;
    }
    return 0;
}

/* CavalloiceraState.legal_moves(): by card, the place first, then its capture sets in order */
static int legal_moves(const cv_cavalloicera *t, cv_moves *m) {
    m->n = 0;
    if (t->done) return 0;
    for (uint64_t h = t->hands[t->current]; h; h &= h - 1) {
        int c = lowest(h);
        if (cv_moves_push(m, CODE(c, 0))) return -1;
        if (!VALUE(c)) {
            for (uint64_t b = t->table & RANK_MASK(RANK(c)); b; b &= b - 1)
                if (cv_moves_push(m, CODE(c, BIT(lowest(b))))) return -1;
        } else if (t->sums[VALUE(c)] && sets_from(m, c, t->table & NUMERALS, VALUE(c), 0)) {
            return -1;
        }
    }
    return 0;
}

int cv_cavalloicera_count_moves(const cv_cavalloicera *t) {
    if (t->done) return 0;
    int n = 0;
    for (uint64_t h = t->hands[t->current]; h; h &= h - 1) n += 1 + (int)cv_cavalloicera_count_sets(t, lowest(h));
    return n;
}

/* rng.choice(state.legal_moves()), played (returns the card) */
static int play_random(cv_cavalloicera *t, cv_rng *rng) {
    int k = cv_rng_below(rng, cv_cavalloicera_count_moves(t));
    for (uint64_t h = t->hands[t->current]; h; h &= h - 1) {
        int c = lowest(h);
        if (k-- == 0) {
            cv_cavalloicera_play(t, c, 0);
            return c;
        }
        int n = (int)cv_cavalloicera_count_sets(t, c);
        if (k < n) {
            cv_cavalloicera_play(t, c, cv_cavalloicera_kth_set(t->table, c, 0, (uint32_t)k));
            return c;
        }
        k -= n;
    }
    return -1; /* not reached */
}

/* _rollout_capture: the capture worth most, the first of equals (hand cards in order; for each the
 * rank matches, then the sum sets in sum_captures' order); 0 when none is worth more than 0 */
static int rollout_capture(const cv_cavalloicera *t, int *card, uint64_t *set) {
    static _Thread_local uint8_t psum[MAX_SETS];
    static _Thread_local uint64_t pmask[MAX_SETS];
    int np = 1, ntable = count(t->table);
    psum[0] = 0, pmask[0] = 0;
    if (count(t->table & NUMERALS) >= 2)
        for (uint64_t b = t->table & NUMERALS; b; b &= b - 1) { /* sum_captures: each numeral grows the list */
            int x = lowest(b), v = VALUE(x), n0 = np;
            for (int i = 0; i < n0 && np < MAX_SETS; i++)
                if (psum[i] + v <= 10) psum[np] = (uint8_t)(psum[i] + v), pmask[np++] = pmask[i] | BIT(x);
        }
    double best = 0.0;
    int found = 0;
    for (uint64_t h = t->hands[t->current]; h; h &= h - 1) {
        int c = lowest(h), v = VALUE(c);
        double vc = VAL[c];
        for (uint64_t b = t->table & RANK_MASK(RANK(c)); b; b &= b - 1) {
            int x = lowest(b);
            double s = x == t->prev_placed ? vc + VAL[x] + 1.0 : vc + VAL[x];
            if (ntable == 1) s += 1.0;
            if (s > best) best = s, found = 1, *card = c, *set = BIT(x);
        }
        if (!v) continue;
        for (int i = 1; i < np; i++) {
            if (psum[i] != v || count(pmask[i]) < 2) continue;
            double s = set_score(vc, SUIT(c), pmask[i], ntable);
            if (s > best) best = s, found = 1, *card = c, *set = pmask[i];
        }
    }
    return found;
}

static void greedy_rollout(cv_cavalloicera *t, cv_rng *rng, double epsilon, int plies) {
    int live[13] = {0}, stop = t->turn + plies < CV_CV_TURNS ? t->turn + plies : CV_CV_TURNS;
    for (int s = 0; s < CV_CV_SEATS; s++)
        for (uint64_t h = t->hands[s]; h; h &= h - 1) live[RANK(lowest(h))]++;
    while (t->turn < stop) {
        if (epsilon != 0.0 && cv_rng_random(rng) < epsilon) {
            live[RANK(play_random(t, rng))]--;
            continue;
        }
        int card = -1;
        uint64_t set = 0;
        if (!t->table || !rollout_capture(t, &card, &set)) { /* place: least picada risk, least value */
            double key = 1e9;
            for (uint64_t h = t->hands[t->current]; h; h &= h - 1) {
                int c = lowest(h);
                double k = (live[RANK(c)] - 1) * 10.0 + VAL[c];
                if (card < 0) card = c;
                if (k < key) key = k, card = c;
            }
            set = 0;
        }
        live[RANK(card)]--;
        cv_cavalloicera_play(t, card, set);
    }
}

static void rollout(cv_cavalloicera *t, const cv_cvs_params *p, cv_rng *rng) { /* CavalloiceraSearch.rollout */
    if (p->random_rollout) {
        int depth = p->search.depth, stop = t->turn + depth < CV_CV_TURNS ? t->turn + depth : CV_CV_TURNS;
        while (t->turn < stop) play_random(t, rng);
    } else {
        greedy_rollout(t, rng, p->epsilon, p->search.depth);
    }
}

double cv_cavalloicera_rollout_value(const cv_cavalloicera *state, const cv_cvs_params *p, uint64_t seed) {
    card_values();
    cv_cavalloicera t = *state;
    cv_pyrandom py;
    cv_rng rng = cv_rng_start(p->search.mt, seed, &py);
    if (!t.done && p->search.depth) rollout(&t, p, &rng);
    return cv_cavalloicera_static_eval(&t, p->hand_p);
}

/* -- the determinizations (CavalloiceraSearch.determinizer, _Dealer) ------------------------ */

typedef struct {
    int others[3], sizes[3];
    int8_t pool[C]; /* uniform deals: the unseen cards, shuffled again and again in place */
    int np;
    int8_t cons[C], free_[C]; /* inferred deals: the constrained cards (with allowed seats) and the free */
    uint8_t allowed[C];       /* by card: bit k when others[k] may hold it */
    int ncons, nfree;
    double soft;
    int inferred;
} dealer_t;

static void dealer_init(dealer_t *d, const cv_cavalloicera *base, const cv_cvs_params *p) {
    memset(d, 0, sizeof *d);
    int k = 0;
    for (int s = 0; s < CV_CV_SEATS; s++) {
        if (s == base->current) continue;
        d->others[k] = s;
        d->sizes[k++] = count(base->hands[s]);
        for (uint64_t h = base->hands[s]; h; h &= h - 1) d->pool[d->np++] = (int8_t)lowest(h);
    }
    d->inferred = p->missing != NULL;
    d->soft = p->infer;
    if (!d->inferred) return;
    for (int i = 0; i < d->np; i++) {
        int c = d->pool[i], ok = 0;
        for (k = 0; k < 3; k++)
            if (!(p->missing[d->others[k]] >> RANK(c) & 1)) ok |= 1 << k;
        d->allowed[c] = (uint8_t)ok;
        if (ok == 7) d->free_[d->nfree++] = (int8_t)c;
        else d->cons[d->ncons++] = (int8_t)c;
    }
}

static void deal_inferred(dealer_t *d, cv_rng *rng, uint64_t hands[3]) { /* _Dealer.deal */
    int room[3] = {d->sizes[0], d->sizes[1], d->sizes[2]};
    cv_rng_shuffle(d->cons, d->ncons, rng);
    cv_rng_shuffle(d->free_, d->nfree, rng);
    for (int i = 0; i < d->ncons; i++) {
        int c = d->cons[i], ok[3], n = 0, k;
        for (k = 0; k < 3; k++)
            if (d->allowed[c] >> k & 1 && room[k]) ok[n++] = k;
        if (!n || cv_rng_random(rng) >= d->soft) {
            n = 0;
            for (k = 0; k < 3; k++)
                if (room[k]) ok[n++] = k;
        }
        if (n == 1) {
            k = ok[0];
        } else {
            int total = 0;
            for (int j = 0; j < n; j++) total += room[ok[j]];
            double x = cv_rng_random(rng) * total;
            for (int j = 0; j < n; j++) {
                k = ok[j];
                x -= room[k];
                if (x < 0) break;
            }
        }
        hands[k] |= BIT(c);
        room[k]--;
    }
    for (int k = 0, i = 0; k < 3; k++)
        for (; room[k]; room[k]--) hands[k] |= BIT(d->free_[i++]);
}

static void determinize(dealer_t *d, const cv_cavalloicera *base, cv_cavalloicera *w, cv_rng *rng) {
    uint64_t hands[3] = {0, 0, 0};
    *w = *base;
    if (d->inferred) {
        deal_inferred(d, rng, hands);
    } else {
        cv_rng_shuffle(d->pool, d->np, rng);
        for (int k = 0, i = 0; k < 3; k++)
            for (int j = 0; j < d->sizes[k]; j++) hands[k] |= BIT(d->pool[i++]);
    }
    for (int k = 0; k < 3; k++) w->hands[d->others[k]] = hands[k];
}

void cv_cavalloicera_determinizations(const cv_cavalloicera *base, const cv_cvs_params *p, int n, uint64_t *hands) {
    dealer_t d;
    cv_cavalloicera w;
    cv_pyrandom py;
    cv_rng rng = cv_rng_start(p->search.mt, p->search.seed, &py);
    dealer_init(&d, base, p);
    for (int i = 0; i < n; i++) {
        determinize(&d, base, &w, &rng);
        memcpy(hands + 4 * i, w.hands, sizeof w.hands);
    }
}

void cv_cavalloicera_prepare(cv_cavalloicera *t) {
    t->build_card = t->pending_card = -1; /* between turns, no capture being built */
    t->build_taken = t->take_next = t->pending = 0;
    memset(t->scored, -1, sizeof t->scored);
    memset(t->sums, 0, sizeof t->sums);
    t->sums[0] = 1;
    for (uint64_t b = t->table & NUMERALS; b; b &= b - 1) /* a numeral joins every set up to 10 - v */
        for (int s = 10, v = VALUE(lowest(b)); s >= v; s--) t->sums[s] += t->sums[s - v];
    t->caps = 0;
    if (!t->done)
        for (uint64_t h = t->hands[t->current]; h; h &= h - 1)
            if (cv_cavalloicera_count_sets(t, lowest(h))) t->caps |= BIT(lowest(h));
}

/* -- the network's policy and value (the network-guided search's net hook) ------------------- */

/* The policy bot plays a move action by action (games/learning.decide_move): place c (action c),
 * or capture with c (52 + c) then, where c has several sets, take the table cards one by one.  The
 * network runs once for the position, over the distinct first actions; a move gets its first
 * action's probability, shared equally by the moves that start with it (the sets of one card: the
 * takes would need a network run per set prefix).  The observation and the prior are the seat's
 * (its hand, the union of the others' hands, their sizes): a determinization leaks nothing. */
static int net_policy(const cv_cvs_params *p, const cv_cavalloicera *t, const cv_moves *moves, double *probs,
                      double *value) {
    float obs[CV_CV_OBS_SIZE], prior[CV_CV_PRIOR_SIZE];
    int actions[CV_CV_ACTIONS], slot[CV_CV_ACTIONS], share[CV_CV_ACTIONS] = {0}, n = 0;
    double by_action[CV_CV_ACTIONS];
    cv_cavalloicera_observe(t, t->current, obs);
    if (p->net->prior_size && cv_cavalloicera_prior(t, prior) < 0) return -1;
    for (int i = 0; i < moves->n; i++) {
        int a = (moves->code[i] & SET_BITS ? CV_CV_CAPTURE : 0) + (int)(moves->code[i] >> 56);
        if (!share[a]++) slot[a] = n, actions[n++] = a;
    }
    float v = cv_mlp_policy(p->net, obs, p->net->prior_size ? prior : NULL, actions, n, p->temp, by_action);
    for (int i = 0; i < moves->n; i++) {
        int a = (moves->code[i] & SET_BITS ? CV_CV_CAPTURE : 0) + (int)(moves->code[i] >> 56);
        probs[i] = by_action[slot[a]] / share[a];
    }
    *value = ((t->current & 1) ? -1.0 : 1.0) * (double)v * p->value_scale; /* the seat's team's, as team 0's */
    return 0;
}

int cv_cavalloicera_net_eval(const cv_cavalloicera *t, const cv_cvs_params *p, int n, double *probs, double *value) {
    cv_moves moves = {0, 0, NULL};
    int err = legal_moves(t, &moves) || moves.n != n || net_policy(p, t, &moves, probs, value);
    free(moves.code);
    return err ? -1 : 0;
}

/* -- the search (ismcts_tree.c) over Cavalloìcera's rules and hooks ------------------------- */

typedef struct {
    const cv_cvs_params *p;
    dealer_t dealer;
    int no_memory; /* the net hook found no memory for the prior: the search's answer is void */
} hooks_t;

static int game_moves(const void *t, cv_moves *out) { return legal_moves(t, out); }

static void game_play(void *t, uint64_t move) { cv_cavalloicera_play(t, (int)(move >> 56), move & SET_BITS); }

static int game_done(const void *t) { return ((const cv_cavalloicera *)t)->done; }

static int game_team(const void *t) { return ((const cv_cavalloicera *)t)->current & 1; }

static double game_quick(const void *t, uint64_t move) { return quick_score(t, (int)(move >> 56), move & SET_BITS); }

static void game_determinize(void *ctx, const void *base, void *out, cv_rng *rng) {
    determinize(&((hooks_t *)ctx)->dealer, base, out, rng);
}

static void game_rollout(void *ctx, void *t, cv_rng *rng) { rollout(t, ((hooks_t *)ctx)->p, rng); }

static double game_evaluate(void *ctx, const void *t) {
    return cv_cavalloicera_static_eval(t, ((hooks_t *)ctx)->p->hand_p);
}

static double game_net(void *ctx, const void *t, const cv_moves *moves, double *probs) {
    hooks_t *h = ctx;
    double value = 0.0;
    if (net_policy(h->p, t, moves, probs, &value)) { /* no memory for the prior: the search's answer is void */
        h->no_memory = 1;
        for (int i = 0; i < moves->n; i++) probs[i] = 1.0 / moves->n;
    }
    return value;
}

static const cv_search_game GAME = {sizeof(cv_cavalloicera), game_moves, game_play, game_done, game_team,
                                    game_quick, game_determinize, game_rollout, game_evaluate, game_net, NULL};

int cv_cavalloicera_search(const cv_cavalloicera *base, const cv_cvs_params *p, int n_root, int64_t *visits) {
    hooks_t hooks;
    hooks.p = p;
    hooks.no_memory = 0;
    if (p->search.puct && !p->net) return CV_SEARCH_BAD_ROOT; /* the network-guided search without a network */
    card_values();
    dealer_init(&hooks.dealer, base, p);
    int move = cv_search(&GAME, &hooks, base, &p->search, n_root, visits);
    return hooks.no_memory ? CV_SEARCH_NO_MEMORY : move;
}
