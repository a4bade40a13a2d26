/* Scopa's bots and prior in C11: see scopa_bots.h.  Each function names the
 * bots.py / prior.py code it mirrors; the scores are computed in double with
 * the Python expressions' order of operations (sums added card by card in
 * increasing id, as Python's sum over sorted lists), so they are the same
 * numbers and the same ties. */
#include "scopa_bots.h"

#include <string.h>

#include "pysum.h"

#define C CV_SC_CARDS
#define SUIT(c) ((c) / 10)
#define RANK(c) ((c) % 10)
#define BIT(c) (1ULL << (c))
#define CTZ(b) __builtin_ctzll(b)
#define MAX_MOVES (CV_SC_HAND * CV_SC_MAX_SETS)

static const double FOLLOW = 1.2, RISK = 1.0;
static const double RANK_BONUS[10] = {0.10, 0.0, 0.0, 0.0, 0.02, 0.16, 0.32, 0.0, 0.0, 0.0}; /* primiera weight */

/* -- capture sets (bots._captures_on) ----------------------------------------------- */

static int popcount(uint64_t x) { return __builtin_popcountll(x); }

typedef struct {
    int8_t cards[C];
    int n, v, count;
    uint64_t *out;
} grow_t;

static void grow(grow_t *g, int i, int total, uint64_t chosen) { /* engine.capture_sets's depth-first search */
    for (int j = i; j < g->n; j++) {
        int s = total + CV_SC_VALUE[g->cards[j]];
        if (s < g->v) grow(g, j + 1, s, chosen | BIT(g->cards[j]));
        else if (s == g->v && chosen) g->out[g->count++] = chosen | BIT(g->cards[j]);
    }
}

/* the capture sets of a card of value v on table: its cards of value v (one each), else the sets of
 * two or more cards adding up to v, in increasing order as sorted tuples */
static int sets_of_value(uint64_t table, int v, uint64_t *out) {
    grow_t g = {.n = 0, .v = v, .count = 0, .out = out};
    for (uint64_t b = table; b; b &= b - 1) {
        int c = CTZ(b);
        if (CV_SC_VALUE[c] == v) out[g.count++] = BIT(c);
        g.cards[g.n++] = (int8_t)c;
    }
    if (g.count == 0) grow(&g, 0, 0, 0);
    return g.count;
}

static double taken(uint64_t set, const double *w) { /* sum(w[t] for t in set), in increasing id */
    cv_pysum s = {0.0, 0.0};
    for (; set; set &= set - 1) cv_pysum_add(&s, w[CTZ(set)]);
    return cv_pysum_result(&s);
}

static double taken2(uint64_t set, const double *w) { /* bots._taken: one and two cards added plainly */
    if (popcount(set) > 2) return taken(set, w);
    int a = CTZ(set);
    set &= set - 1;
    return set ? w[a] + w[CTZ(set)] : w[a];
}

/* -- what the seat to act sees (prior.info_of) -------------------------------------- */

typedef struct {
    int seat, money, sette, plays_left, stock, opp_hand, last_capturer;
    uint64_t hand, table, mine, other, unseen;
} info;

static void info_of(const cv_scopa *t, info *k) {
    int seat = t->current;
    k->seat = seat;
    k->money = t->money;
    k->sette = t->money * 10 + 6;
    k->hand = t->hands[seat];
    k->table = t->table;
    k->mine = t->piles[seat];
    k->other = t->piles[1 - seat];
    k->unseen = (BIT(C) - 1) & ~(k->hand | k->table | k->mine | k->other);
    k->opp_hand = popcount(t->hands[1 - seat]);
    k->stock = CV_SC_STOCK - t->stock_pos;
    k->plays_left = CV_SC_PLAYS - t->turn;
    k->last_capturer = t->last_capturer;
}

/* -- card values (bots.card_weights, move_values) ------------------------------------ */

static void best_primiera(uint64_t pile, int best[4]) {
    memset(best, 0, 4 * sizeof *best);
    for (; pile; pile &= pile - 1) {
        int c = CTZ(pile);
        if (CV_SC_PRIMIERA[c] > best[SUIT(c)]) best[SUIT(c)] = CV_SC_PRIMIERA[c];
    }
}

static void card_weights(const info *k, uint64_t seat_pile, uint64_t other_pile, double w[C]) {
    uint64_t money_mask = 1023ULL << (10 * k->money);
    int m_mine = popcount(seat_pile & money_mask), m_other = popcount(other_pile & money_mask);
    int n_mine = popcount(seat_pile), n_other = popcount(other_pile);
    int m_max = m_mine > m_other ? m_mine : m_other, n_max = n_mine > n_other ? n_mine : n_other;
    double w_money = (m_mine > 5 || m_other > 5) ? 0.0 : m_max >= 4 ? 0.22 : 0.15;
    double w_card = (n_mine > 20 || n_other > 20) ? 0.0 : n_max >= 15 ? 0.07 : 0.05;
    int best[4], best_o[4];
    best_primiera(seat_pile, best);
    best_primiera(other_pile, best_o);
    double w_card_money = w_card + w_money;
    for (int c = 0; c < C; c++) {
        int s = SUIT(c), p = CV_SC_PRIMIERA[c];
        double v = s == k->money ? w_card_money : w_card;
        if (p > best[s]) { /* improves my primiera in that suit */
            v += RANK_BONUS[RANK(c)] * ((p > best_o[s] || best_o[s] < 21) ? 1.0 : 0.6);
            if (best[s] == 0) v += 0.03;
        }
        if (c == k->sette) v += 1.0;
        w[c] = v;
    }
}

static double move_value(const info *k, int card, uint64_t capture, const double *w, int last) {
    if (!capture) return 0.0;
    double v = w[card] + taken(capture, w);
    if (capture == k->table && !last) v += 1.0;
    return v;
}

/* -- the legal moves (ScopaDeal.legal_moves: by card id, each card's sets in order) -- */

typedef struct {
    int n;
    int8_t card[MAX_MOVES];
    uint64_t capture[MAX_MOVES]; /* 0: the card is placed */
    double score[MAX_MOVES];
} moves_t;

static int moves_of(uint64_t hand, uint64_t table, int8_t *cards, uint64_t *captures) {
    int n = 0;
    for (uint64_t b = hand; b; b &= b - 1) {
        int c = CTZ(b), got = sets_of_value(table, CV_SC_VALUE[c], captures + n);
        if (got == 0) captures[n] = 0, got = 1;
        for (int i = 0; i < got; i++) cards[n + i] = (int8_t)c;
        n += got;
    }
    return n;
}

static void legal_moves(const info *k, moves_t *m) { m->n = moves_of(k->hand, k->table, m->card, m->capture); }

int cv_scopa_moves(const cv_scopa *t, int8_t *cards, uint64_t *captures) {
    return t->done ? 0 : moves_of(t->hands[t->current], t->table, cards, captures);
}

/* -- greedy (bots.greedy_move) --------------------------------------------------------- */

static int set_before(uint64_t a, uint64_t b) { /* sorted tuple a < sorted tuple b */
    while (a && b) {
        int x = CTZ(a), y = CTZ(b);
        if (x != y) return x < y;
        a &= a - 1, b &= b - 1;
    }
    return !a && b;
}

/* the greedy key of move i before move j's: the capture worth most (ties: the larger capture, the
 * lower card, the lower set), captures before places, places by value then card */
static int greedy_before(const moves_t *m, int i, int j, const double *value) {
    uint64_t ci = m->capture[i], cj = m->capture[j];
    if (!ci || !cj) {
        if (ci || cj) return ci != 0;
        int vi = CV_SC_VALUE[m->card[i]], vj = CV_SC_VALUE[m->card[j]];
        return vi != vj ? vi < vj : m->card[i] < m->card[j];
    }
    if (value[i] != value[j]) return value[i] > value[j];
    if (popcount(ci) != popcount(cj)) return popcount(ci) > popcount(cj);
    if (m->card[i] != m->card[j]) return m->card[i] < m->card[j];
    return set_before(ci, cj);
}

static void greedy_values(const info *k, const moves_t *m, double *value) {
    double w[C];
    card_weights(k, k->mine, k->other, w);
    for (int i = 0; i < m->n; i++) value[i] = move_value(k, m->card[i], m->capture[i], w, k->plays_left == 1);
}

/* -- heuristic (bots._p_holds, _other_values, _expected_answer, heuristic_scores) ------- */

static double comb(int n, int r) { /* exact below 2**53: here n <= 40, r <= 3 */
    double out = 1.0;
    for (int i = 0; i < r; i++) out = out * (n - i) / (i + 1);
    return out;
}

static double p_holds(int k, int unseen, int hand) {
    if (k <= 0 || hand <= 0 || unseen <= 0) return 0.0;
    if (hand >= unseen || unseen - k < hand) return 1.0;
    return 1.0 - comb(unseen - k, hand) / comb(unseen, hand);
}

typedef struct {
    int v, cheap;
    double p, w_play;
} other_value;

typedef struct { /* what every move's score reads */
    info k;
    double w_mine[C], w_other[C];
    other_value values[10];
    int n_values, last, final_round;
    uint64_t sets[CV_SC_MAX_SETS];
} heur_ctx;

static void other_values(heur_ctx *h) {
    const info *k = &h->k;
    int n_unseen = popcount(k->unseen);
    h->n_values = 0;
    for (int v = 1; v <= 10; v++) {
        uint64_t cards = 0;
        for (int s = 0; s < 4; s++) cards |= (k->unseen >> (s * 10 + v - 1) & 1) << (s * 10 + v - 1);
        double p = p_holds(popcount(cards), n_unseen, k->opp_hand);
        if (!(p > 0)) continue;
        other_value *o = &h->values[h->n_values++];
        o->v = v, o->p = p, o->cheap = -1;
        for (uint64_t b = cards; b; b &= b - 1) { /* the best weight and the first cheapest card */
            int c = CTZ(b);
            if (o->cheap < 0 || h->w_other[c] > o->w_play) o->w_play = h->w_other[c];
            if (o->cheap < 0 || h->w_other[c] < h->w_other[o->cheap]) o->cheap = c;
        }
    }
}

/* my best gain next turn with hand on table (bots._my_follow) */
static double my_follow(heur_ctx *h, uint64_t hand, uint64_t table, double sweep) {
    double best = 0.0;
    for (; hand; hand &= hand - 1) {
        int c = CTZ(hand), n = sets_of_value(table, CV_SC_VALUE[c], h->sets);
        for (int i = 0; i < n; i++) {
            double g = h->w_mine[c] + taken2(h->sets[i], h->w_mine);
            if (h->sets[i] == table) g += sweep;
            if (g > best) best = g;
        }
    }
    return best;
}

static int net_after(const double *a, const double *b) { /* (r, p) pairs, for a descending sort */
    return a[0] != b[0] ? a[0] > b[0] : a[1] > b[1];
}

/* the other seat's expected best answer to a move leaving table_after, net of my best follow-up */
static double expected_answer(heur_ctx *h, uint64_t table_after, uint64_t hand_after) {
    int plays_after = h->k.plays_left - 1;
    double opp_sweep = plays_after > 1 ? 1.0 : 0.0, my_sweep = plays_after > 2 ? 1.0 : 0.0, nets[10][2];
    for (int j = 0; j < h->n_values; j++) {
        const other_value *o = &h->values[j];
        int n = sets_of_value(table_after, o->v, h->sets);
        double g = 0.0, best = -1.0;
        uint64_t st = 0;
        for (int i = 0; i < n; i++) { /* bots._best_capture */
            double gi = o->w_play + taken2(h->sets[i], h->w_other);
            if (h->sets[i] == table_after) gi += opp_sweep;
            if (gi > best) best = gi, st = h->sets[i];
        }
        if (n) g = best;
        uint64_t t2 = st ? table_after & ~st : table_after | BIT(o->cheap);
        double follow = (hand_after && t2) ? my_follow(h, hand_after, t2, my_sweep) : 0.0;
        double r = g - FOLLOW * follow, p = o->p;
        int at = j; /* insertion sort, descending */
        for (; at > 0 && net_after((double[2]){r, p}, nets[at - 1]); at--) nets[at][0] = nets[at - 1][0], nets[at][1] = nets[at - 1][1];
        nets[at][0] = r, nets[at][1] = p;
    }
    double expected = 0.0, none_higher = 1.0;
    for (int j = 0; j < h->n_values; j++) {
        expected += nets[j][0] * nets[j][1] * none_higher;
        none_higher *= 1.0 - nets[j][1];
    }
    if (h->n_values) expected += nets[h->n_values - 1][0] * none_higher;
    return expected;
}

static double heuristic_score(heur_ctx *h, int card, uint64_t capture) {
    const info *k = &h->k;
    double gain = move_value(k, card, capture, h->w_mine, h->last);
    uint64_t table_after = capture ? k->table & ~capture : k->table | BIT(card);
    if (!capture) gain -= 0.01 * CV_SC_VALUE[card] / 10; /* keep high cards, all else equal */
    if (h->last) { /* the table left after the 36th play goes to the last capturer */
        int lc = capture ? k->seat : k->last_capturer;
        double left = taken(table_after, h->w_mine);
        gain += lc == k->seat ? left : lc >= 0 ? -left : 0.0;
        return gain;
    }
    double expected = expected_answer(h, table_after, k->hand & ~BIT(card));
    if (h->final_round && k->plays_left <= 4) {
        double left = taken(table_after, h->w_mine);
        if (capture) gain += 0.3 * left;
        else if (k->last_capturer == k->seat) gain += 0.2 * left;
    }
    return gain - RISK * expected;
}

static void heuristic_scores(heur_ctx *h, moves_t *m) {
    card_weights(&h->k, h->k.mine, h->k.other, h->w_mine);
    card_weights(&h->k, h->k.other, h->k.mine, h->w_other);
    h->last = h->k.plays_left == 1;
    h->final_round = h->k.stock == 0;
    other_values(h);
    for (int i = 0; i < m->n; i++) m->score[i] = heuristic_score(h, m->card[i], m->capture[i]);
}

/* -- the bots' actions and the prior (HeuristicBot, GreedyBot, prior.action_prior) ---------- */

/* whether move i is still reachable: between turns every legal move; while a capture is built, the
 * sets of its card whose lowest cards are the ones taken so far (ScopaActions.building's sets) */
static int reachable(const cv_scopa *t, const moves_t *m, int i) {
    if (t->build_card < 0) return 1;
    uint64_t cap = m->capture[i], taken = t->taken;
    if (m->card[i] != t->build_card || (cap & taken) != taken) return 0;
    uint64_t below = taken ? (BIT(63 - __builtin_clzll(taken)) << 1) - 1 : 0; /* ids up to the highest taken */
    return (cap & ~taken & below) == 0;
}

/* the action leading to move i: its first between turns, else the next table card of its set */
static int action_of(const cv_scopa *t, const moves_t *m, int i) {
    if (t->build_card < 0) return (m->capture[i] ? CV_SC_CAPTURE : CV_SC_PLACE) + m->card[i];
    uint64_t rest = m->capture[i] & ~t->taken;
    return CV_SC_TAKE + CTZ(rest);
}

/* the reachable moves scored by the heuristic; returns the first best one (-1: none) */
static int heuristic_pick(const cv_scopa *t, heur_ctx *h, moves_t *m, uint8_t *ok) {
    int best = -1;
    info_of(t, &h->k);
    legal_moves(&h->k, m);
    heuristic_scores(h, m); /* every legal move: the prior needs them all between turns */
    for (int i = 0; i < m->n; i++) {
        ok[i] = (uint8_t)reachable(t, m, i);
        if (ok[i] && (best < 0 || m->score[i] > m->score[best])) best = i;
    }
    return best;
}

static int greedy_pick(const cv_scopa *t, moves_t *m) {
    info k;
    double value[MAX_MOVES];
    info_of(t, &k);
    legal_moves(&k, m);
    greedy_values(&k, m, value);
    int best = -1;
    for (int i = 0; i < m->n; i++)
        if (reachable(t, m, i) && (best < 0 || greedy_before(m, i, best, value))) best = i;
    return best;
}

static int bot_pick(const cv_scopa *t, int kind, moves_t *m) { /* the bot's move among m (filled) */
    if (kind == CV_SC_BOT_GREEDY) return greedy_pick(t, m);
    heur_ctx h;
    uint8_t ok[MAX_MOVES];
    return heuristic_pick(t, &h, m, ok);
}

int cv_scopa_bot_action(const cv_scopa *t, int kind) {
    if (t->done) return -1;
    moves_t m;
    return action_of(t, &m, bot_pick(t, kind, &m));
}

int cv_scopa_bot_move(const cv_scopa *t, int kind, uint64_t *capture) {
    if (t->done) return -1;
    moves_t m;
    int i = bot_pick(t, kind, &m);
    *capture = m.capture[i];
    return m.card[i];
}

void cv_scopa_prior(const cv_scopa *t, float *out) {
    memset(out, 0, CV_SC_PRIOR_SIZE * sizeof *out);
    if (t->done) return;
    moves_t m;
    heur_ctx h;
    uint8_t ok[MAX_MOVES], seen[CV_SC_ACTIONS] = {0};
    double best_of[CV_SC_ACTIONS];
    int choice = heuristic_pick(t, &h, &m, ok);
    for (int i = 0; i < m.n; i++) { /* games/priors.capture_prior: each action's best move */
        if (!ok[i]) continue;
        int a = action_of(t, &m, i);
        if (!seen[a] || m.score[i] > best_of[a]) best_of[a] = m.score[i];
        seen[a] = 1;
    }
    double top = m.score[choice]; /* the best reachable move's score: the top of the actions' bests */
    for (int a = 0; a < CV_SC_ACTIONS; a++) { /* games/priors.write_prior */
        if (!seen[a]) continue;
        double d = best_of[a] - top;
        out[a] = (float)(d > -CV_SC_PRIOR_CLIP ? d : -CV_SC_PRIOR_CLIP);
    }
    out[CV_SC_ACTIONS + action_of(t, &m, choice)] = 1.0f;
}

void cv_scopa_bot_actions(const cv_scopa *t, int64_t n, int kind, const uint8_t *where, int32_t *actions) {
    for (int64_t i = 0; i < n; i++) actions[i] = (where && !where[i]) ? -1 : cv_scopa_bot_action(t + i, kind);
}

void cv_scopa_prior_many(const cv_scopa *t, int64_t n, const uint8_t *where, float *out) {
    for (int64_t i = 0; i < n; i++) {
        if (where && !where[i]) memset(out + i * CV_SC_PRIOR_SIZE, 0, CV_SC_PRIOR_SIZE * sizeof *out);
        else cv_scopa_prior(t + i, out + i * CV_SC_PRIOR_SIZE);
    }
}
