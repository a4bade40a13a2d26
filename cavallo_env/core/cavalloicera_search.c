/* Cavalloìcera's ISMCTS decision in C: see cavalloicera_search.h.  Each function
 * names the Python it mirrors (cavallo_env/bots/ismcts.py: _Search;
 * cavallo_env/cavalloicera/search.py: CavalloiceraSearch and its helpers). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include "cavalloicera_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cavalloicera_bots.h"
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
#define MAX_PATH (CV_CV_TURNS + 1)
#define MAX_SETS 4096 /* the sets of numerals summing to at most 10 in the whole deck: 4050, and the empty one */

static int lowest(uint64_t b) { return __builtin_ctzll(b); }
static int count(uint64_t b) { return __builtin_popcountll(b); }

/* -- random numbers: the fast generator, or Python's random.Random drawn as the Python search draws -- */

typedef struct {
    uint64_t fast;
    cv_pyrandom *py;
} rng_t;

static double rnd(rng_t *r) {
    return r->py ? cv_pyrandom_random(r->py) : (double)(cv_splitmix64(&r->fast) >> 11) * 0x1.0p-53;
}

static int below(rng_t *r, int n) { /* random.Random._randbelow(n) with py */
    return (int)(r->py ? cv_pyrandom_below(r->py, (uint32_t)n) : cv_fast_below(&r->fast, (uint32_t)n));
}

static void shuffle_cards(int8_t *a, int n, rng_t *rng) { /* random.Random.shuffle */
    for (int i = n - 1; i > 0; i--) {
        int j = below(rng, i + 1);
        int8_t x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

/* hash(x) of a float 0 <= x < 1 (CPython's _Py_HashDouble), as random.Random(x) seeds with it */
static uint64_t py_hash_unit(double x) {
    const uint64_t mod = (1ULL << 61) - 1;
    int e;
    double m = frexp(x, &e);
    uint64_t h = 0;
    while (m) {
        h = ((h << 28) & mod) | h >> (61 - 28);
        m *= 268435456.0;
        e -= 28;
        uint64_t y = (uint64_t)m;
        m -= (double)y;
        h += y;
        if (h >= mod) h -= mod;
    }
    e = e >= 0 ? e % 61 : 61 - 1 - ((-1 - e) % 61);
    h = ((h << e) & mod) | h >> (61 - e);
    return h;
}

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

typedef struct {
    int n, cap;
    int8_t *card;
    uint64_t *set; /* 0: the card is placed */
} moves_t;

static int push(moves_t *m, int card, uint64_t set) { /* 0, or -1 without memory */
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 64;
        int8_t *cards = realloc(m->card, (size_t)cap);
        if (!cards) return -1;
        m->card = cards;
        uint64_t *sets = realloc(m->set, sizeof(uint64_t) * (size_t)cap);
        if (!sets) return -1;
        m->set = sets;
        m->cap = cap;
    }
    m->card[m->n] = (int8_t)card;
    m->set[m->n++] = set;
    return 0;
}

/* the sets of cand summing to rem that extend chosen, as increasing sorted tuples */
static int sets_from(moves_t *m, int card, uint64_t cand, int rem, uint64_t chosen) {
    for (uint64_t b = cand; b; b &= b - 1) {
        int x = lowest(b), v = VALUE(x);
        if (v > rem) continue;
        uint64_t with = chosen | BIT(x);
        if (v == rem ? push(m, card, with) : sets_from(m, card, cand & ~((BIT(x) << 1) - 1), rem - v, with))
            return -1;
    }
    return 0;
}

/* CavalloiceraState.legal_moves(): by card, the place first, then its capture sets in order */
static int legal_moves(const cv_cavalloicera *t, moves_t *m) {
    m->n = 0;
    if (t->done) return 0;
    for (uint64_t h = t->hands[t->current]; h; h &= h - 1) {
        int c = lowest(h);
        if (push(m, c, 0)) return -1;
        if (!VALUE(c)) {
            for (uint64_t b = t->table & RANK_MASK(RANK(c)); b; b &= b - 1)
                if (push(m, c, BIT(lowest(b)))) return -1;
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
static int play_random(cv_cavalloicera *t, rng_t *rng) {
    int k = below(rng, cv_cavalloicera_count_moves(t));
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

static void greedy_rollout(cv_cavalloicera *t, rng_t *rng, double epsilon, int plies) {
    int live[13] = {0}, stop = t->turn + plies < CV_CV_TURNS ? t->turn + plies : CV_CV_TURNS;
    for (int s = 0; s < CV_CV_SEATS; s++)
        for (uint64_t h = t->hands[s]; h; h &= h - 1) live[RANK(lowest(h))]++;
    while (t->turn < stop) {
        if (epsilon != 0.0 && rnd(rng) < epsilon) {
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

static void rollout(cv_cavalloicera *t, const cv_cvs_params *p, rng_t *rng) { /* CavalloiceraSearch.rollout */
    if (p->random_rollout) {
        int stop = t->turn + p->depth < CV_CV_TURNS ? t->turn + p->depth : CV_CV_TURNS;
        while (t->turn < stop) play_random(t, rng);
    } else {
        greedy_rollout(t, rng, p->epsilon, p->depth);
    }
}

static rng_t rng_of(const cv_cvs_params *p, uint64_t seed, cv_pyrandom *py) {
    rng_t r = {seed, NULL};
    if (p->mt) { /* random.Random.setstate: the 624 words and the index */
        memcpy(py->state, p->mt, sizeof py->state);
        py->index = (int)p->mt[CV_MT_N];
        r.py = py;
    }
    return r;
}

double cv_cavalloicera_rollout_value(const cv_cavalloicera *state, const cv_cvs_params *p, uint64_t seed) {
    card_values();
    cv_cavalloicera t = *state;
    cv_pyrandom py;
    rng_t rng = rng_of(p, seed, &py);
    if (!t.done && p->depth) rollout(&t, p, &rng);
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

static void deal_inferred(dealer_t *d, rng_t *rng, uint64_t hands[3]) { /* _Dealer.deal */
    int room[3] = {d->sizes[0], d->sizes[1], d->sizes[2]};
    shuffle_cards(d->cons, d->ncons, rng);
    shuffle_cards(d->free_, d->nfree, rng);
    for (int i = 0; i < d->ncons; i++) {
        int c = d->cons[i], ok[3], n = 0, k;
        for (k = 0; k < 3; k++)
            if (d->allowed[c] >> k & 1 && room[k]) ok[n++] = k;
        if (!n || rnd(rng) >= d->soft) {
            n = 0;
            for (k = 0; k < 3; k++)
                if (room[k]) ok[n++] = k;
        }
        if (n == 1) {
            k = ok[0];
        } else {
            int total = 0;
            for (int j = 0; j < n; j++) total += room[ok[j]];
            double x = rnd(rng) * total;
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

static void determinize(dealer_t *d, const cv_cavalloicera *base, cv_cavalloicera *w, rng_t *rng) {
    uint64_t hands[3] = {0, 0, 0};
    *w = *base;
    if (d->inferred) {
        deal_inferred(d, rng, hands);
    } else {
        shuffle_cards(d->pool, d->np, rng);
        for (int k = 0, i = 0; k < 3; k++)
            for (int j = 0; j < d->sizes[k]; j++) hands[k] |= BIT(d->pool[i++]);
    }
    for (int k = 0; k < 3; k++) w->hands[d->others[k]] = hands[k];
}

int cv_cavalloicera_determinizations(const cv_cavalloicera *base, const cv_cvs_params *p, int n, uint64_t *hands) {
    dealer_t d;
    cv_cavalloicera w;
    cv_pyrandom py;
    rng_t rng = rng_of(p, p->seed, &py);
    dealer_init(&d, base, p);
    for (int i = 0; i < n; i++) {
        determinize(&d, base, &w, &rng);
        memcpy(hands + 4 * i, w.hands, sizeof w.hands);
    }
    return 0;
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

/* -- the tree (ismcts._Node, _Search) ------------------------------------------------------- */

typedef struct {
    int32_t first, next; /* first child, next sibling (-1: none) */
    int8_t card;
    uint64_t set;
    int64_t visits, avail;
    double total; /* summed reward of the team that made the move into this node */
} node;

typedef struct {
    const cv_cavalloicera *base;
    const cv_cvs_params *p;
    node *nodes;
    int32_t used, cap;
    int32_t path[MAX_PATH];
    int8_t team[MAX_PATH];
    int plen;
    moves_t moves;
    int *untried;
    int untried_cap;
    dealer_t dealer;
    struct timespec stop;
    int bounded, late, oom;
    cv_pyrandom seeded, local; /* halving with Python's numbers: a world's generator, and a move's copy */
} search;

static int32_t child(const search *s, int32_t at, int card, uint64_t set) {
    for (int32_t k = s->nodes[at].first; k >= 0; k = s->nodes[k].next)
        if (s->nodes[k].card == card && s->nodes[k].set == set) return k;
    return -1;
}

static int32_t add_child(search *s, int32_t at, int card, uint64_t set) {
    int32_t k = s->used++;
    node *n = s->nodes + k;
    n->first = -1;
    n->next = s->nodes[at].first;
    n->card = (int8_t)card;
    n->set = set;
    n->visits = n->avail = 0;
    n->total = 0.0;
    s->nodes[at].first = k;
    return k;
}

static int best_quick(search *s, const cv_cavalloicera *t, int nu, rng_t *rng) { /* ismcts._best_quick */
    int *best = s->untried + nu, nb = 0; /* the room after the untried ones */
    double top = -1e18;
    for (int i = 0; i < nu; i++) {
        int m = s->untried[i];
        double q = quick_score(t, s->moves.card[m], s->moves.set[m]);
        if (q > top) top = q, nb = 0;
        if (q == top) best[nb++] = m;
    }
    return nb == 1 ? best[0] : best[below(rng, nb)];
}

static void back_up(search *s, double diff) { /* _Search.back_up */
    const cv_cvs_params *p = s->p;
    double sign = (double)((diff > 0) - (diff < 0));
    double r0 = p->reward == CV_CVS_POINTS ? diff / p->scale : p->reward == CV_CVS_WIN ? sign : sign + diff / p->scale;
    for (int i = 0; i < s->plen; i++) {
        node *n = s->nodes + s->path[i];
        n->visits++;
        n->total += s->team[i] == 0 ? r0 : -r0;
    }
}

static int past_time(search *s) {
    if (!s->bounded) return 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > s->stop.tv_sec || (now.tv_sec == s->stop.tv_sec && now.tv_nsec > s->stop.tv_nsec)) s->late = 1;
    return s->late;
}

/* the index (in s->moves) of the move the walk takes at `at`: UCB over the tried moves, or an
 * untried one to expand (*expand set); -1 without memory */
static int select_move(search *s, int32_t at, int32_t root, const cv_cavalloicera *t, rng_t *rng, int *expand) {
    const cv_cvs_params *p = s->p;
    if (legal_moves(t, &s->moves)) return -1;
    int n = s->moves.n, nu = 0, best = -1;
    if (2 * n > s->untried_cap) {
        int *u = realloc(s->untried, sizeof(int) * (size_t)(2 * n));
        if (!u) return -1;
        s->untried = u, s->untried_cap = 2 * n;
    }
    double best_u = -1e18;
    for (int i = 0; i < n; i++) {
        int32_t k = child(s, at, s->moves.card[i], s->moves.set[i]);
        if (k < 0) {
            s->untried[nu++] = i;
            continue;
        }
        node *ch = s->nodes + k;
        ch->avail++;
        if (nu) continue;
        double u = ch->total / ch->visits + p->c * sqrt(log((double)ch->avail) / ch->visits);
        if (p->bias && at == root) u += p->bias[i] / (ch->visits + 1);
        if (u > best_u) best_u = u, best = i;
    }
    *expand = nu > 0;
    if (!nu) return best;
    if (nu == 1) return s->untried[0];
    return p->expand_greedy ? best_quick(s, t, nu, rng) : s->untried[below(rng, nu)];
}

/* one iteration from `at` (whose moves are t's): select, expand one move, roll out, evaluate,
 * back up along the path (_Search.iterate); -1 without memory */
static int iterate(search *s, cv_cavalloicera *t, int32_t at, rng_t *rng, int32_t root) {
    while (!t->done && s->plen < MAX_PATH) {
        int expand, i = select_move(s, at, root, t, rng, &expand);
        if (i < 0) return -1;
        int card = s->moves.card[i], team = t->current & 1;
        uint64_t set = s->moves.set[i];
        int32_t k = expand ? add_child(s, at, card, set) : child(s, at, card, set);
        if (expand) s->nodes[k].avail = 1;
        cv_cavalloicera_play(t, card, set);
        s->path[s->plen] = k;
        s->team[s->plen++] = (int8_t)team;
        at = k;
        if (expand) break;
    }
    if (!t->done && s->p->depth) rollout(t, s->p, rng);
    back_up(s, cv_cavalloicera_static_eval(t, s->p->hand_p));
    return 0;
}

/* -- the root: UCB or sequential halving (ISMCTSBot.search, _Search.halving) ---------------- */

static double mean(const node *n) { return n->total / (double)(n->visits > 1 ? n->visits : 1); }

/* alive (root move indices) sorted stably by key descending: the prior's bias, else the mean reward */
static void sort_alive(const search *s, int *alive, const int32_t *kid, int n, const double *bias) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            double a = bias ? bias[alive[j - 1]] : mean(s->nodes + kid[alive[j - 1]]);
            double b = bias ? bias[alive[j]] : mean(s->nodes + kid[alive[j]]);
            if (!(b > a)) break;
            int x = alive[j];
            alive[j] = alive[j - 1];
            alive[j - 1] = x;
        }
}

/* the world's generator of one halving round (Python: random.Random(rng.random())), the same for
 * every move of the world: its seed (fast), or s->seeded set up (py) */
static uint64_t world_seed(search *s, rng_t *rng) {
    if (!rng->py) return cv_splitmix64(&rng->fast);
    cv_pyrandom_seed(&s->seeded, py_hash_unit(cv_pyrandom_random(rng->py)));
    cv_pyrandom_u32(&s->seeded); /* the first draw twists the state ... */
    s->seeded.index = 0;         /* ... and this puts its word back: the state right after */
    return 0;
}

/* every alive move played once on world (common random numbers); -1 late, -2 without memory */
static int halving_world(search *s, const cv_cavalloicera *world, const int *alive, int n, const int32_t *kid,
                         const moves_t *root, uint64_t seed, int py) {
    for (int i = 0; i < n; i++) {
        if (past_time(s)) return CV_CVS_LATE;
        cv_cavalloicera t = *world;
        rng_t local = {seed, NULL};
        if (py) {
            s->local = s->seeded;
            local.py = &s->local;
        }
        node *ch = s->nodes + kid[alive[i]];
        cv_cavalloicera_play(&t, root->card[alive[i]], root->set[alive[i]]);
        ch->avail++;
        s->path[0] = kid[alive[i]];
        s->team[0] = (int8_t)(world->current & 1);
        s->plen = 1;
        if (iterate(s, &t, kid[alive[i]], &local, -1)) return CV_CVS_NO_MEMORY;
    }
    return 0;
}

static int halving(search *s, const moves_t *root, int *alive, int32_t *kid, rng_t *rng) {
    int n = root->n;
    for (int i = 0; i < n; i++) alive[i] = i;
    if (s->p->bias) sort_alive(s, alive, kid, n, s->p->bias);
    for (int i = 0; i < n; i++) kid[alive[i]] = add_child(s, 0, root->card[alive[i]], root->set[alive[i]]);
    int rounds = 1;
    while ((1LL << rounds) < n) rounds++;
    int64_t budget = s->p->iterations;
    for (int r = 0; r < rounds; r++) {
        if (n == 1 || budget <= 0) break;
        int64_t per_move = (budget / (rounds - r)) / n;
        if (per_move < 1) per_move = 1;
        for (int64_t k = 0; k < per_move && budget >= n; k++) {
            cv_cavalloicera world;
            determinize(&s->dealer, s->base, &world, rng);
            uint64_t seed = world_seed(s, rng);
            int err = halving_world(s, &world, alive, n, kid, root, seed, rng->py != NULL);
            if (err) return err;
            budget -= n;
        }
        sort_alive(s, alive, kid, n, NULL);
        n = (n + 1) / 2;
    }
    return alive[0];
}

static int ucb_root(search *s, const moves_t *root, int32_t *kid, rng_t *rng) {
    for (int64_t k = 0; k < s->p->iterations; k++) {
        if (past_time(s)) return CV_CVS_LATE;
        cv_cavalloicera world;
        determinize(&s->dealer, s->base, &world, rng);
        s->plen = 0;
        if (iterate(s, &world, 0, rng, 0)) return CV_CVS_NO_MEMORY;
    }
    int best = -1;
    int64_t best_v = 0;
    double best_t = 0.0;
    for (int i = 0; i < root->n; i++) { /* most visits, then most total */
        kid[i] = child(s, 0, root->card[i], root->set[i]);
        int64_t v = kid[i] < 0 ? -1 : s->nodes[kid[i]].visits;
        double tot = kid[i] < 0 ? 0.0 : s->nodes[kid[i]].total;
        if (best < 0 || v > best_v || (v == best_v && tot > best_t)) best = i, best_v = v, best_t = tot;
    }
    return best;
}

static void start_clock(search *s, double seconds) {
    if (seconds <= 0) return;
    s->bounded = 1;
    clock_gettime(CLOCK_MONOTONIC, &s->stop);
    double whole = floor(seconds);
    s->stop.tv_sec += (time_t)whole;
    s->stop.tv_nsec += (long)((seconds - whole) * 1e9);
    if (s->stop.tv_nsec >= 1000000000L) s->stop.tv_sec++, s->stop.tv_nsec -= 1000000000L;
}

/* the decision once the root's moves are listed and the memory is there */
static int decide(search *s, moves_t *root, int *alive, int32_t *kid, int64_t *visits) {
    const cv_cvs_params *p = s->p;
    cv_pyrandom py;
    rng_t rng = rng_of(p, p->seed, &py);
    dealer_init(&s->dealer, s->base, p);
    start_clock(s, p->seconds);
    int move = p->halving ? halving(s, root, alive, kid, &rng) : ucb_root(s, root, kid, &rng);
    for (int i = 0; i < root->n; i++) visits[i] = kid[i] < 0 ? 0 : s->nodes[kid[i]].visits;
    return move;
}

int cv_cavalloicera_search(const cv_cavalloicera *base, const cv_cvs_params *p, int n_root, int64_t *visits) {
    search s;
    memset(&s, 0, sizeof s);
    card_values();
    s.base = base;
    s.p = p;
    moves_t root = {0, 0, NULL, NULL};
    int move = CV_CVS_NO_MEMORY;
    int *alive = NULL;
    int32_t *kid = NULL;
    if (legal_moves(base, &root)) goto out;
    move = CV_CVS_BAD_ROOT;
    if (root.n != n_root || n_root < 2) goto out;
    move = CV_CVS_NO_MEMORY;
    s.cap = (int32_t)(p->iterations + n_root + 2);
    s.nodes = malloc(sizeof(node) * (size_t)s.cap);
    alive = malloc(sizeof(int) * (size_t)n_root);
    kid = malloc(sizeof(int32_t) * (size_t)n_root);
    if (!s.nodes || !alive || !kid) goto out;
    for (int i = 0; i < n_root; i++) kid[i] = -1;
    s.nodes[0].first = s.nodes[0].next = -1;
    s.used = 1;
    move = decide(&s, &root, alive, kid, visits);
out:
    free(s.nodes), free(alive), free(kid), free(s.untried);
    free(s.moves.card), free(s.moves.set), free(root.card), free(root.set);
    return move;
}
