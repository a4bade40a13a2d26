/* Scopa's ISMCTS decision in C: see scopa_search.h.  Each function names the
 * Python it mirrors (cavallo_env/bots/ismcts.py: _Search; cavallo_env/scopa/search.py:
 * ScopaSearch, _Determinizer, greedy_rollout, quick_score, static_eval).  The
 * float expressions are Python's, in Python's order, so the values are the same. */
#include "search_common.h" /* first: it asks for POSIX clocks */

#include "ismcts_tree.h"
#include "pysum.h"
#include "scopa_bots.h"
#include "scopa_search.h"

#define C CV_SC_CARDS
#define SUIT(c) ((c) / 10)
#define RANK(c) ((c) % 10)
#define BIT(c) (1ULL << (c))
#define CTZ(b) __builtin_ctzll(b)
#define VAL(c) ((int)CV_SC_VALUE[c])
#define MAX_MOVES (CV_SC_HAND * CV_SC_MAX_SETS)
#define KEY(card, capture) ((uint64_t)(card) << C | (capture)) /* a move in the tree */

/* -- what a move wins (search._W, capture_gain, quick_score) ----------------------------- */

static double weight(int c, int money) { /* search._weights */
    static const double rank_w[10] = {0.3, 0, 0, 0, 0.02, 0.15, 0.3, 0, 0, 0};
    double v = 0.05 + (SUIT(c) == money ? 0.15 : 0.0) + rank_w[RANK(c)] * 0.5;
    if (RANK(c) == 6 && SUIT(c) == money) v += 1.0;
    return v;
}


static int popcount(uint64_t x) { return __builtin_popcountll(x); }

static double capture_gain(const cv_scopa *t, const double *w, int card, uint64_t capture) {
    double g = w[card];
    for (uint64_t b = capture; b; b &= b - 1) g += w[CTZ(b)];
    if (capture == t->table && t->turn < CV_SC_PLAYS - 1) g += 1.0;
    return g;
}

/* the next seat's best answer on the table a move leaves (left, ascending; then extra, or -1) */
static double best_answer(const cv_scopa *t, const double *w, uint64_t left, int extra, int total) {
    double sweep = t->turn < CV_SC_PLAYS - 2 ? 1.0 : 0.0, best = 0.0;
    int n = popcount(left) + (extra >= 0);
    for (uint64_t h = t->hands[1 - t->current]; h; h &= h - 1) {
        int c = CTZ(h), v = VAL(c);
        double r = 0.0;
        uint64_t all = extra >= 0 ? left | BIT(extra) : left; /* the same card set: r is a max */
        for (uint64_t b = all; b; b &= b - 1)
            if (VAL(CTZ(b)) == v) {
                double x = w[c] + w[CTZ(b)] + (n == 1 ? sweep : 0.0);
                if (x > r) r = x;
            }
        if (!r && total == v) { /* the whole table adds up to it: summed in the list's order */
            r = w[c] + sweep;
            for (uint64_t b = left; b; b &= b - 1) r += w[CTZ(b)];
            if (extra >= 0) r += w[extra];
        }
        if (r > best) best = r;
    }
    return best;
}

static double quick_score(const cv_scopa *t, const double *w, int card, uint64_t capture) {
    int total = 0;
    for (uint64_t b = t->table; b; b &= b - 1) total += VAL(CTZ(b));
    if (capture) {
        double g = w[card];
        for (uint64_t b = capture; b; b &= b - 1) {
            g += w[CTZ(b)];
            total -= VAL(CTZ(b));
        }
        if (capture == t->table) return t->turn < CV_SC_PLAYS - 1 ? g + 1.0 : g;
        return g - best_answer(t, w, t->table & ~capture, -1, total);
    }
    double g = -0.01 * VAL(card) - 0.3 * w[card];
    return g - best_answer(t, w, t->table, card, total + VAL(card));
}

/* -- the evaluation (static_eval, ScopaSearch.evaluate) -------------------------------- */

typedef double tail_t[41][42]; /* search._TAIL: tail[r][k] = P(Binomial(r, 1/2) >= k) */

static void tail_init(tail_t tail) {
    for (int r = 0; r <= 40; r++) {
        uint64_t acc = 0, row[41], total = 1ULL << r;
        row[0] = 1;
        for (int k = 1; k <= r; k++) row[k] = row[k - 1] * (uint64_t)(r - k + 1) / (uint64_t)k; /* comb(r, k) */
        tail[r][r + 1] = 0.0;
        for (int k = r; k >= 0; k--) {
            acc += row[k];
            tail[r][k] = (double)acc / (double)total;
        }
    }
}

static double p_at_least(const tail_t tail, int have, int remaining, int need) { /* search._p_at_least */
    int k = need - have;
    if (k <= 0) return 1.0;
    if (k > remaining) return 0.0;
    return tail[remaining][k];
}

static double primiera_estimate(const cv_scopa *t) { /* static_eval's primiera part */
    int b0[4] = {0}, b1[4] = {0}, out[4] = {0};
    for (int c = 0; c < C; c++) {
        int p = CV_SC_PRIMIERA[c], s = SUIT(c);
        int *b = t->piles[0] >> c & 1 ? b0 : t->piles[1] >> c & 1 ? b1 : out;
        if (p > b[s]) b[s] = p;
    }
    double e0 = 0.0, e1 = 0.0;
    int dead0 = 0, dead1 = 0;
    for (int s = 0; s < 4; s++) {
        int o = out[s];
        double x0 = o > b0[s] ? fmax(b0[s], (b0[s] + o) / 2.0) : b0[s];
        double x1 = o > b1[s] ? fmax(b1[s], (b1[s] + o) / 2.0) : b1[s];
        dead0 |= !b0[s] && !o;
        dead1 |= !b1[s] && !o;
        e0 += x0;
        e1 += x1;
    }
    if (dead0 && !dead1) return -0.8;
    if (dead1 && !dead0) return 0.8;
    if (dead0 || dead1) return 0.0;
    double d = (e0 - e1) / 12.0;
    return d > 0.9 ? 0.9 : d < -0.9 ? -0.9 : d;
}

static double static_eval(const tail_t tail, const cv_scopa *t) {
    if (t->done) return (double)((int)t->res_points[0] - (int)t->res_points[1]);
    uint64_t p0 = t->piles[0], p1 = t->piles[1], money = 0x3FFULL << (10 * t->money);
    double v = (double)((int)t->scope[0] - (int)t->scope[1]);
    int c0 = popcount(p0), c1 = popcount(p1), m0 = popcount(p0 & money), m1 = popcount(p1 & money);
    v += p_at_least(tail, c0, 40 - c0 - c1, 21) - p_at_least(tail, c1, 40 - c0 - c1, 21);
    v += p_at_least(tail, m0, 10 - m0 - m1, 6) - p_at_least(tail, m1, 10 - m0 - m1, 6);
    uint64_t sette = BIT(t->money * 10 + 6);
    if (p0 & sette) v += 1.0;
    else if (p1 & sette) v -= 1.0;
    double prim = primiera_estimate(t);
    return v + prim; /* Python adds -0.8 / +0.8 / the clipped difference (or nothing) last */
}

/* -- the search's state: a single deal, the other seat's kind of player, scratch moves ---- */

typedef struct {
    int n;
    int8_t card[MAX_MOVES];
    uint64_t capture[MAX_MOVES];
    double score[MAX_MOVES];
} moves_t;

/* the other seat's modelled replies of a decision, by all its bot reads (search.model_move's cache):
 * its hand, the table, the piles, the plays made and the last capturer */
typedef struct {
    uint64_t hand, table, piles[2], capture;
    uint8_t used, kind, turn;
    int8_t last_capturer, card;
} reply_t;

#define REPLIES (1 << 14) /* slots; filled to half at most, then the replies are worked out every time */

typedef struct { /* the hooks' context (ismcts_tree.h's ctx) */
    const cv_scs_params *p;
    double w[C];         /* search._W of the deal's money suit */
    tail_t tail;         /* search._TAIL */
    int other;           /* the seat the search does not play */
    moves_t moves;       /* the legal moves of the position at hand */
    double probs[MAX_MOVES]; /* the network's policy over them */
    moves_t *solving;    /* the exact solve's moves, one list a play of the last round (NULL: none yet) */
    reply_t *replies;    /* NULL: none kept */
    int32_t n_replies;
} search;

/* a position of the tree (ismcts_tree.h's state): a single deal, the kind of player the other seat is
 * in this determinization (0 heuristic, 1 greedy, 2 any move) and the weights quick_score reads */
typedef struct {
    cv_scopa deal;
    int kind;
    const double *w;
} state_t;

static void search_init(search *s, const cv_scs_params *p, int money, int other) {
    s->p = p;
    s->other = other;
    for (int c = 0; c < C; c++) s->w[c] = weight(c, money);
    tail_init(s->tail);
}

static double evaluate(search *s, const cv_scopa *t) { /* ScopaSearch.evaluate */
    double v = static_eval(s->tail, t);
    if (t->done) return v;
    moves_t *m = &s->moves;
    m->n = cv_scopa_moves(t, m->card, m->capture);
    double best = 0.0;
    for (int i = 0; i < m->n; i++)
        if (m->capture[i]) {
            double g = capture_gain(t, s->w, m->card[i], m->capture[i]);
            if (g > best) best = g;
        }
    return v + (t->current == 0 ? s->p->lookahead * best : -s->p->lookahead * best);
}

static int same_reply(const reply_t *r, const cv_scopa *t, int kind, uint64_t hand) {
    return r->kind == kind && r->hand == hand && r->table == t->table && r->piles[0] == t->piles[0] &&
           r->piles[1] == t->piles[1] && r->turn == t->turn && r->last_capturer == t->last_capturer;
}

/* the kind of player's move (heuristic 0, greedy 1) for the seat to play: kept, or worked out */
static int reply(search *s, const cv_scopa *t, int kind, uint64_t *capture) {
    int bot = kind == 0 ? CV_SC_BOT_HEURISTIC : CV_SC_BOT_GREEDY;
    if (!s->replies) return cv_scopa_bot_move(t, bot, capture);
    uint64_t hand = t->hands[t->current], h = hand ^ (t->table * 31) ^ (t->piles[0] * 131) ^ (t->piles[1] * 1031);
    h = cv_splitmix64(&h) ^ (uint64_t)(t->turn * 2 + kind);
    uint32_t at = (uint32_t)cv_splitmix64(&h) & (REPLIES - 1);
    while (s->replies[at].used) { /* open addressing, linear probing */
        reply_t *r = s->replies + at;
        if (same_reply(r, t, kind, hand)) {
            *capture = r->capture;
            return r->card;
        }
        at = (at + 1) & (REPLIES - 1);
    }
    int card = cv_scopa_bot_move(t, bot, capture);
    if (s->n_replies < REPLIES / 2) {
        s->n_replies++;
        s->replies[at] = (reply_t){hand, t->table, {t->piles[0], t->piles[1]}, *capture, 1, (uint8_t)kind, t->turn,
                                   t->last_capturer, (int8_t)card};
    }
    return card;
}

/* the other seat's kind of player's move at t as the tree keys it (*key), 1; or 0 for none (the
 * any-move player, or the searching seat to play) */
static int modelled_reply(search *s, const cv_scopa *t, int kind, uint64_t *key) {
    if (kind == 2 || t->current != s->other) return 0;
    uint64_t capture;
    int card = reply(s, t, kind, &capture);
    *key = KEY(card, capture);
    return 1;
}

/* model_move: the index among m of the other seat's kind of player's move, -1 for none */
static int model_move(search *s, const cv_scopa *t, int kind, const moves_t *m) {
    uint64_t key;
    if (!modelled_reply(s, t, kind, &key)) return -1;
    for (int i = 0; i < m->n; i++)
        if (KEY(m->card[i], m->capture[i]) == key) return i;
    return -1;
}

/* greedy_rollout: plies moves (or to the end of the deal) */
static void rollout(search *s, cv_scopa *t, int kind, cv_search_rng *rng) {
    moves_t *m = &s->moves;
    for (int plies = s->p->search.depth; plies > 0 && !t->done; plies--) {
        m->n = cv_scopa_moves(t, m->card, m->capture);
        int pick = 0;
        if (m->n > 1 && cv_search_random(rng) < s->p->epsilon) pick = cv_search_below(rng, m->n);
        else if (m->n > 1 && !(s->p->modelled && (pick = model_move(s, t, kind, m)) >= 0)) {
            double best = -1e9; /* quick_score's favourite, the first of the best */
            pick = 0;
            for (int i = 0; i < m->n; i++) {
                double q = quick_score(t, s->w, m->card[i], m->capture[i]);
                if (q > best) best = q, pick = i;
            }
        }
        cv_scopa_play(t, m->card[pick], m->capture[pick]);
    }
}

/* -- the determinizations (_Determinizer.__call__) ------------------------------------- */

static int bisect_right(const double *a, int n, double x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x < a[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* base with the other hand and the rest of the stock dealt again into w; returns the other
 * seat's kind of player in it */
static int determinize(const cv_scopa *base, const cv_scs_params *p, cv_scopa *w, cv_search_rng *rng) {
    *w = *base;
    int other = 1 - base->current, n = p->n_other, nr = 0;
    int8_t rest[C];
    uint64_t hand = 0;
    double kinds[3];
    if (p->n_hands) {
        const double *cum = p->cum;
        int k = bisect_right(cum, p->n_hands, cv_search_random(rng) * cum[p->n_hands - 1]);
        if (k > p->n_hands - 1) k = p->n_hands - 1;
        for (int i = 0; i < n; i++) hand |= BIT(p->hands[k * n + i]);
        memcpy(kinds, p->kinds + 3 * k, sizeof kinds);
        for (int i = 0; i < p->n_hidden; i++)
            if (!(hand >> p->hidden[i] & 1)) rest[nr++] = p->hidden[i];
        cv_search_shuffle(rest, nr, rng);
    } else {
        kinds[0] = p->model[0], kinds[1] = p->model[0] + p->model[1], kinds[2] = 1.0;
        memcpy(rest, p->hidden, (size_t)p->n_hidden);
        cv_search_shuffle(rest, p->n_hidden, rng);
        for (int i = 0; i < n; i++) hand |= BIT(rest[i]);
        nr = p->n_hidden - n;
        memmove(rest, rest + n, (size_t)nr);
    }
    int kind = 2;
    if (p->modelled && kinds[2] > 0) {
        kind = bisect_right(kinds, 3, cv_search_random(rng) * kinds[2]);
        if (kind > 2) kind = 2;
    }
    w->hands[other] = hand;
    memcpy(w->initial + 10 + w->stock_pos, rest, (size_t)nr);
    return kind;
}

void cv_scopa_search_load(cv_scopa *t) {
    memset(t->sums, 0, sizeof t->sums);
    t->sums[0] = 1;
    for (uint64_t b = t->table; b; b &= b - 1) /* times (1 + x^v): the subsets of the table by sum */
        for (int v = VAL(CTZ(b)), x = 10; x >= v; x--) t->sums[x] += t->sums[x - v];
    t->build_card = t->plan_card = -1;
    t->taken = t->plan = 0;
    t->match = 0;
}

int cv_scopa_determinize(const cv_scopa *base, const cv_scs_params *p, cv_scopa *out, uint64_t *seed) {
    cv_search_rng r = {*seed, NULL};
    int kind = determinize(base, p, out, &r);
    *seed = r.fast;
    return kind;
}

/* -- the inference (likelihoods, _Determinizer._weigh) --------------------------------- */

#define SLIP 0.1 /* search.SLIP */

/* likelihoods: the chance that each kind of player (heuristic, greedy, any move), holding hand
 * besides the cards it played then and later in the round, made the play */
static void likelihoods(const cv_scs_play *pl, uint64_t hand, int seat, int money, moves_t *m, double out[3]) {
    cv_scopa t;
    memset(&t, 0, sizeof t);
    t.hands[seat] = hand | pl->kept | BIT(pl->card);
    t.hands[1 - seat] = (1ULL << pl->opp_hand) - 1; /* the bots read only its size */
    t.table = pl->table;
    t.piles[0] = pl->piles[0], t.piles[1] = pl->piles[1];
    t.stock_pos = (uint8_t)(CV_SC_STOCK - pl->stock);
    t.turn = (uint8_t)(CV_SC_PLAYS - pl->plays_left);
    t.last_capturer = pl->last_capturer;
    t.money = (uint8_t)money;
    t.current = (uint8_t)seat;
    t.build_card = t.plan_card = -1;
    m->n = cv_scopa_moves(&t, m->card, m->capture);
    if (m->n == 1) {
        out[0] = out[1] = out[2] = 1.0;
        return;
    }
    double slip = SLIP / m->n;
    for (int k = 0; k < 2; k++) {
        uint64_t capture;
        int card = cv_scopa_bot_move(&t, k == 0 ? CV_SC_BOT_HEURISTIC : CV_SC_BOT_GREEDY, &capture);
        out[k] = (1.0 - SLIP) * (double)(card == pl->card && capture == pl->capture) + slip;
    }
    out[2] = 1.0 / m->n;
}

void cv_scopa_player_model(const cv_scs_play *past, int n_past, int seat, int money, double model[3]) {
    static const double prior[3] = {0.6, 0.3, 0.1}; /* search.MODEL */
    moves_t *m = malloc(sizeof(moves_t));
    double w[3] = {prior[0], prior[1], prior[2]}, p[3];
    for (int j = 0; j < n_past && m; j++) {
        likelihoods(past + j, 0, seat, money, m, p);
        for (int k = 0; k < 3; k++) w[k] *= p[k];
    }
    cv_pysum total = {0.0, 0.0}; /* sum(w), as the Python that runs this adds it */
    for (int k = 0; k < 3; k++) cv_pysum_add(&total, w[k]);
    for (int k = 0; k < 3; k++) model[k] = m ? w[k] / cv_pysum_result(&total) : NAN;
    free(m);
}

int cv_scopa_weigh(const cv_scs_play *plays, int n_plays, int seat, int money, const int8_t *hands, int n_hands,
                   int n_other, const double model[3], double infer, double *cum, double *kinds) {
    moves_t *m = malloc(sizeof(moves_t));
    if (!m) return -2;
    double acc = 0.0;
    for (int h = 0; h < n_hands; h++) {
        uint64_t hand = 0;
        for (int i = 0; i < n_other; i++) hand |= BIT(hands[h * n_other + i]);
        double w[3] = {model[0], model[1], model[2]}, p[3];
        for (int j = 0; j < n_plays; j++) {
            likelihoods(plays + j, hand, seat, money, m, p);
            for (int k = 0; k < 3; k++) w[k] *= p[k];
        }
        acc += pow(w[0] + w[1] + w[2], infer);
        cum[h] = acc;
        kinds[3 * h] = w[0], kinds[3 * h + 1] = w[0] + w[1], kinds[3 * h + 2] = w[0] + w[1] + w[2];
    }
    free(m);
    return 0;
}

/* -- the network (search:scopa): its policy over the moves, its value -------------------- */

/* the network's policy over the actions acts[0..n) of the seat to act in t (probs), and its value */
static double policy_at(const cv_scs_params *p, const cv_scopa *t, const int *acts, int n, double *probs) {
    float obs[CV_SC_OBS_SIZE], prior[CV_SC_PRIOR_SIZE];
    cv_scopa_observe(t, t->current, obs);
    if (p->net->prior_size) cv_scopa_prior(t, prior);
    return cv_mlp_policy(p->net, obs, p->net->prior_size ? prior : NULL, acts, n, p->temp, probs);
}

static void add_move(const moves_t *m, int card, uint64_t capture, double q, double *probs) {
    for (int i = 0; i < m->n; i++)
        if (m->card[i] == card && m->capture[i] == capture) probs[i] += q;
}

/* the chance q of the capture being built in t spread over the moves it ends in, as the policy
 * takes the table cards one at a time (a single legal take is played without asking it) */
static void spread_takes(const cv_scs_params *p, const cv_scopa *t, const moves_t *m, double q, double *probs) {
    int acts[C], n = 0;
    double take[C];
    for (int w = 0; w < 2; w++)
        for (uint64_t b = t->legal[w]; b; b &= b - 1) acts[n++] = 64 * w + CTZ(b);
    if (n > 1) policy_at(p, t, acts, n, take);
    else take[0] = 1.0;
    for (int i = 0; i < n; i++) {
        cv_scopa u = *t;
        if (cv_scopa_act(&u, NULL, acts[i])) add_move(m, u.move_card[u.turn - 1], u.move_capture[u.turn - 1], q * take[i], probs);
        else spread_takes(p, &u, m, q * take[i], probs);
    }
}

/* cv_scopa_net_eval with the moves of t listed in m */
static double net_eval(const cv_scs_params *p, const cv_scopa *t, const moves_t *m, double *probs) {
    int acts[2 * CV_SC_HAND], n = 0, of[MAX_MOVES];
    double first[2 * CV_SC_HAND];
    for (int i = 0; i < m->n; i++) { /* the moves' first actions, each once */
        int a = m->capture[i] ? CV_SC_CAPTURE + m->card[i] : CV_SC_PLACE + m->card[i], k = 0;
        while (k < n && acts[k] != a) k++;
        if (k == n) acts[n++] = a;
        of[i] = k;
        probs[i] = 0.0;
    }
    double v = policy_at(p, t, acts, n, first);
    for (int k = 0; k < n; k++) {
        int card = acts[k] - CV_SC_CAPTURE, sets = 0;
        for (int i = 0; i < m->n; i++) sets += of[i] == k;
        if (sets == 1 || card < 0) { /* placed, or a single capture set: the first action plays it */
            for (int i = 0; i < m->n; i++)
                if (of[i] == k) probs[i] = first[k];
            continue;
        }
        cv_scopa u = *t;
        cv_scopa_act(&u, NULL, acts[k]); /* the capture started: its takes */
        spread_takes(p, &u, m, first[k], probs);
    }
    return (t->current == 0 ? 1.0 : -1.0) * v * p->value_scale;
}

double cv_scopa_net_eval(const cv_scopa *t, const cv_scs_params *p, double *probs) {
    moves_t *m = malloc(sizeof(moves_t));
    if (!m) return NAN;
    m->n = cv_scopa_moves(t, m->card, m->capture);
    double v = net_eval(p, t, m, probs);
    free(m);
    return v;
}

/* -- the search (ismcts_tree.c) over Scopa's rules and hooks ------------------------------- */

static int game_moves(const void *t, cv_moves *out) {
    int8_t card[MAX_MOVES];
    uint64_t capture[MAX_MOVES];
    int n = cv_scopa_moves(&((const state_t *)t)->deal, card, capture);
    out->n = 0;
    for (int i = 0; i < n; i++)
        if (cv_moves_push(out, KEY(card[i], capture[i]))) return -1;
    return 0;
}

static void game_play(void *t, uint64_t move) { cv_scopa_play(&((state_t *)t)->deal, (int)(move >> C), move & (BIT(C) - 1)); }

static int game_done(const void *t) { return ((const state_t *)t)->deal.done; }

static int game_team(const void *t) { return ((const state_t *)t)->deal.current; }

static double game_quick(const void *t, uint64_t move) {
    const state_t *st = t;
    return quick_score(&st->deal, st->w, (int)(move >> C), move & (BIT(C) - 1));
}

static void game_determinize(void *ctx, const void *base, void *out, cv_rng *rng) {
    const state_t *b = base;
    state_t *w = out;
    w->kind = determinize(&b->deal, ((search *)ctx)->p, &w->deal, rng);
    w->w = b->w;
}

static void game_rollout(void *ctx, void *t, cv_rng *rng) { rollout(ctx, &((state_t *)t)->deal, ((state_t *)t)->kind, rng); }

static double game_evaluate(void *ctx, const void *t) { return evaluate(ctx, &((const state_t *)t)->deal); }

/* with model=1 the other seat's node has its modelled reply as its only child */
static int game_only(void *ctx, const void *t, const cv_moves *moves) {
    search *s = ctx;
    const state_t *st = t;
    uint64_t key;
    if (!s->p->modelled || !modelled_reply(s, &st->deal, st->kind, &key)) return -1;
    for (int i = 0; i < moves->n; i++)
        if (moves->code[i] == key) return i;
    return -1;
}

/* the last round (the stock empty: nothing hidden) by minimax with alpha-beta: seat 0's final point
 * difference, both seats playing their best; m: a list for each play left */
static double solve(const cv_scopa *t, moves_t *m, double alpha, double beta) {
    if (t->done) return (double)((int)t->res_points[0] - (int)t->res_points[1]);
    m->n = cv_scopa_moves(t, m->card, m->capture);
    int max = t->current == 0;
    double best = max ? -1e9 : 1e9;
    for (int i = 0; i < m->n && alpha < beta; i++) {
        cv_scopa u = *t;
        cv_scopa_play(&u, m->card[i], m->capture[i]);
        double v = solve(&u, m + 1, alpha, beta);
        if (max ? v > best : v < best) best = v;
        if (max && v > alpha) alpha = v;
        if (!max && v < beta) beta = v;
    }
    return best;
}

#define LAST_ROUND (2 * CV_SC_HAND) /* plays */

double cv_scopa_exact(const cv_scopa *t) {
    if (t->done || t->stock_pos < CV_SC_STOCK) return NAN;
    moves_t *m = malloc(sizeof(moves_t) * LAST_ROUND);
    double v = m ? solve(t, m, -1e9, 1e9) : NAN;
    free(m);
    return v;
}

/* search:scopa: a position of the last round is solved exactly */
static int game_exact(void *ctx, const void *t, double *value) {
    search *s = ctx;
    const cv_scopa *d = &((const state_t *)t)->deal;
    if (d->done || d->stock_pos < CV_SC_STOCK) return 0;
    if (!s->solving && !(s->solving = malloc(sizeof(moves_t) * LAST_ROUND))) return 0;
    *value = solve(d, s->solving, -1e9, 1e9);
    return 1;
}

/* search:scopa: the network's policy over moves (all of t's, or the one the tree narrowed them to)
 * and its value */
static double game_net(void *ctx, const void *t, const cv_moves *moves, double *probs) {
    search *s = ctx;
    const cv_scopa *d = &((const state_t *)t)->deal;
    moves_t *m = &s->moves;
    m->n = cv_scopa_moves(d, m->card, m->capture);
    double v = net_eval(s->p, d, m, s->probs), sum = 0.0;
    if (moves->n == m->n) { /* all of them, in the same order */
        memcpy(probs, s->probs, sizeof(double) * (size_t)m->n);
        return v;
    }
    for (int i = 0; i < moves->n; i++) {
        probs[i] = 0.0;
        for (int j = 0; j < m->n; j++)
            if (KEY(m->card[j], m->capture[j]) == moves->code[i]) probs[i] = s->probs[j];
        sum += probs[i];
    }
    for (int i = 0; i < moves->n; i++) probs[i] = sum > 0 ? probs[i] / sum : 1.0 / moves->n;
    return v;
}

static const cv_search_game GAME = {.size = sizeof(state_t), .moves = game_moves, .play = game_play,
                                    .done = game_done, .team = game_team, .quick = game_quick,
                                    .determinize = game_determinize, .rollout = game_rollout,
                                    .evaluate = game_evaluate, .net = game_net, .exact = game_exact,
                                    .only = game_only};

int cv_scopa_search(const cv_scopa *base, const cv_scs_params *p, int64_t *visits) {
    search *s = calloc(1, sizeof(search));
    state_t *root = malloc(sizeof(state_t));
    int move = -2;
    if (!s || !root) goto out;
    search_init(s, p, base->money, 1 - base->current);
    s->replies = p->modelled ? calloc(REPLIES, sizeof(reply_t)) : NULL; /* without: worked out every time */
    root->deal = *base, root->kind = 2, root->w = s->w;
    moves_t *m = &s->moves;
    m->n = cv_scopa_moves(base, m->card, m->capture);
    move = cv_search(&GAME, s, root, &p->search, m->n, visits);
out:
    if (s) free(s->replies), free(s->solving);
    free(s);
    free(root);
    return move;
}

double cv_scopa_rollout_value(const cv_scopa *state, const cv_scs_params *p, int other, int kind, uint64_t seed) {
    search *s = calloc(1, sizeof(search));
    if (!s) return NAN;
    search_init(s, p, state->money, other);
    cv_scopa t = *state;
    cv_search_rng rng = {seed, NULL};
    cv_pyrandom py;
    if (p->search.mt) cv_search_setstate(&py, p->search.mt), rng.py = &py;
    if (!t.done && p->search.depth) rollout(s, &t, kind, &rng);
    double v = evaluate(s, &t);
    free(s);
    return v;
}
