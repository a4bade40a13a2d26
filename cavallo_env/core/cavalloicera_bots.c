/* Cavalloìcera's bots and prior in C11: see cavalloicera_bots.h.  Each
 * function names the bots.py / endgame.py / prior.py code it mirrors; the
 * scores are computed in double with the Python expressions' order of
 * operations (libm's erf is Python's math.erf), so they are the same numbers
 * and the same ties. */
#include "search_common.h" /* first: it asks for POSIX clocks */
#include "cavalloicera_bots.h"
#include "ismcts_tree.h"

#include <stdlib.h>
#include <string.h>

#include "pysum.h"

#define C CV_CV_CARDS
#define SUIT(c) ((c) / 13)
#define BIT(c) (1ULL << (c))
#define CTZ(b) __builtin_ctzll(b)
#define RANK(c) ((c) % 13)
#define VALUE(c) ((RANK(c) < 10) ? RANK(c) + 1 : 0) /* cards.VALUE: A..10 -> 1..10, courts 0 */
#define NUMERALS 0x1ff8ffc7fe3ffULL                /* every card of value > 0 */
#define RANK_MASK(r) ((1ULL << (r)) | (1ULL << ((r) + 13)) | (1ULL << ((r) + 26)) | (1ULL << ((r) + 39)))
#define SWORDS 2
#define SWORDS_ACE 26
#define LA_MATA 27
#define COINS_10 9
#define CUPS_FANTE 23

/* bots._value: the award value of owning card c (CARD_VALUE), added in the same order */
static double card_value(int c) {
    double v = 2.0 / 27; /* CARD_SHARE: one card toward "most cards" */
    if (SUIT(c) == SWORDS) v += 1.0 / 7; /* SWORD_SHARE */
    if (c == LA_MATA || c == COINS_10 || c == CUPS_FANTE) v += 1.0;
    v += (c >= SWORDS_ACE && c < SWORDS_ACE + 3) ? 0.6 : 0.0; /* NAPULA_OPENERS */
    return v;
}

static int popcount(uint64_t x) { return __builtin_popcountll(x); }

/* bots.immediate_points: the bonuses a capture scores plus the award value of the cards it wins */
static double immediate_points(int card, uint64_t capture, uint64_t table, int prev_placed) {
    if (!capture) return 0.0;
    int n = popcount(capture), same_suit = 1;
    for (uint64_t b = capture; b; b &= b - 1) same_suit &= SUIT(CTZ(b)) == SUIT(card);
    int bonus = (capture == table) + (n == 1 && prev_placed >= 0 && capture == BIT(prev_placed)) + same_suit + (n >= 3);
    cv_pysum s = {0.0, 0.0};
    for (uint64_t b = capture; b; b &= b - 1) cv_pysum_add(&s, card_value(CTZ(b)));
    return (bonus + card_value(card)) + cv_pysum_result(&s);
}

static int set_before(uint64_t a, uint64_t b) { /* sorted tuple a < sorted tuple b (() first) */
    while (a && b) {
        int x = CTZ(a), y = CTZ(b);
        if (x != y) return x < y;
        a &= a - 1, b &= b - 1;
    }
    return !a && b;
}

typedef struct {
    int card;
    uint64_t capture;
    double pts;
} move_t;

/* GreedyBot's key: (-points, -len(capture), CARD_VALUE[card] if placed else 0.0, card, capture) */
static int greedy_before(const move_t *a, const move_t *b) {
    if (a->pts != b->pts) return a->pts > b->pts;
    int la = popcount(a->capture), lb = popcount(b->capture);
    if (la != lb) return la > lb;
    double va = a->capture ? 0.0 : card_value(a->card), vb = b->capture ? 0.0 : card_value(b->card);
    if (va != vb) return va < vb;
    if (a->card != b->card) return a->card < b->card;
    return set_before(a->capture, b->capture);
}

/* while a capture is built: whether set starts with the cards taken so far (sets list cards by id) */
static int consistent_set(uint64_t set, uint64_t taken) {
    if ((set & taken) != taken) return 0;
    uint64_t below = taken ? (BIT(63 - __builtin_clzll(taken)) << 1) - 1 : 0;
    return (set & ~taken & below) == 0;
}

static void consider(move_t *best, int *have, int card, uint64_t capture, const cv_cavalloicera *t) {
    move_t m = {card, capture, immediate_points(card, capture, t->table, t->prev_placed)};
    if (!*have || greedy_before(&m, best)) *best = m, *have = 1;
}

int cv_cavalloicera_greedy_action(const cv_cavalloicera *t) {
    if (t->done) return -1;
    int building = t->build_card >= 0, have = 0;
    move_t best = {0, 0, 0.0};
    for (uint64_t b = t->hands[t->current]; b; b &= b - 1) { /* legal_moves: by card, place then its sets */
        int c = CTZ(b);
        if (building && c != t->build_card) continue;
        if (!building) consider(&best, &have, c, 0, t);
        if (!(t->caps & BIT(c)) && !building) continue;
        uint32_t n = cv_cavalloicera_count_sets(t, c);
        for (uint32_t k = 0; k < n; k++) {
            uint64_t set = cv_cavalloicera_kth_set(t->table, c, 0, k);
            if (!building || consistent_set(set, t->build_taken)) consider(&best, &have, c, set, t);
        }
    }
    if (!building) return (best.capture ? CV_CV_CAPTURE : 0) + best.card;
    return CV_CV_TAKE + CTZ(best.capture & ~t->build_taken);
}


/* -- the heuristic (bots.HeuristicBot) ------------------------------------------------------ */

/* HeuristicBot's default parameters */
static const double THREAT_WEIGHT = 1.3, FORCE_BONUS = 0.3, SPREAD = 1.5, HAND_BIAS = 0.6;
static const int ENDGAME_TURNS = 4, ENDGAME_NODES = 40000; /* endgame.ENDGAME_NODES */

static uint64_t comb_u(int n, int k) { /* math.comb, exact here (n <= 52) */
    if (k < 0 || k > n) return 0;
    if (k > n - k) k = n - k;
    uint64_t r = 1;
    for (int i = 0; i < k; i++) r = r * (uint64_t)(n - i) / (uint64_t)(i + 1);
    return r;
}

/* -- award values (bots.award_values, expected_napula_diff, _phi, _binom_pmf) -------- */

static double phi(double x) { return 0.5 * (1.0 + erf(x / sqrt(2.0))); }

static double binom_pmf(int n, int k) {
    if (k < 0 || k > n) return 0.0;
    return (double)comb_u(n, k) / (double)(1ULL << n);
}

static double expected_napula_diff(const double p[10]) {
    double diff = 0.0;
    for (int own = 1; own >= 0; own--) {
        double prob = 1.0, total = 0.0;
        for (int i = 0; i < 10; i++) {
            prob *= own ? p[i] : 1.0 - p[i];
            if (prob == 0.0) break;
            if (i == 2) total += 3.0 * prob;
            else if (i > 2) total += prob;
        }
        diff += own ? total : -total;
    }
    return diff;
}

double cv_cavalloicera_expected_napula_diff(const double p[10]) { return expected_napula_diff(p); }

double cv_cavalloicera_card_value(int c) { return card_value(c); }

static double card_share_value(int m, int theirs) { /* "most cards": P(our count without this card is 25/26) */
    int remaining = C - m - theirs, n = remaining - 1 > 0 ? remaining - 1 : 0;
    if (m >= 27 || theirs >= 27) return 0.0;
    if (n == 0) return (m == 25 || m == 26) ? 1.0 : 0.0;
    double mu = n / 2.0, sd = SPREAD * sqrt((double)n) / 2.0;
    double lo = 25 - m - 0.5, hi = 26 - m + 0.5;
    if (!(lo >= -0.5)) lo = -0.5; /* max(25 - m - 0.5, -0.5) */
    if (n + 0.5 < hi) hi = n + 0.5;
    double d = phi((hi - mu) / sd) - phi((lo - mu) / sd);
    return d > 0.0 ? d : 0.0;
}

static void award_values(uint64_t mine, uint64_t theirs, uint64_t hand, double values[C]) {
    double card_v = card_share_value(popcount(mine), popcount(theirs));
    uint64_t swords = 0x1fffULL << (13 * SWORDS);
    int ms = popcount(mine & swords), ts = popcount(theirs & swords), rs = 13 - ms - ts;
    double sword_v = rs > 0 ? binom_pmf(rs - 1, 6 - ms) : 0.0, p[10], nap[10] = {0};
    for (int i = 0; i < 10; i++) {
        uint64_t b = BIT(SWORDS_ACE + i);
        p[i] = (mine & b) ? 1.0 : (theirs & b) ? 0.0 : (hand & b) ? HAND_BIAS : 0.5;
    }
    for (int i = 0; i < 10; i++) {
        if (p[i] == 0.0 || p[i] == 1.0) continue;
        double q = p[i];
        p[i] = 1.0;
        double with_it = expected_napula_diff(p);
        p[i] = 0.0;
        double without = expected_napula_diff(p);
        p[i] = q;
        nap[i] = (with_it - without) / 2.0;
    }
    for (int c = 0; c < C; c++) {
        double v = card_v + ((c == LA_MATA || c == COINS_10 || c == CUPS_FANTE) ? 1.0 : 0.0);
        if (SUIT(c) == SWORDS) {
            v += sword_v;
            if (c - SWORDS_ACE < 10) v += nap[c - SWORDS_ACE];
        }
        values[c] = v;
    }
}

/* -- the next player's best replies (bots.best_replies, expected_from_replies) ------- */

#define NO_REPLY (-1e9)

typedef struct {
    const double *values;
    int8_t cards[C];
    int n_cards, table_len;
    double best[11], simili[11][4]; /* per sum 2..10: the best set's gain, and per suit of same-suit sets */
    int found[11];
} sums_t;

static void set_gain(sums_t *s, uint64_t set, int sum) {
    int len = popcount(set), suit0 = SUIT(CTZ(set)), same = 1;
    double g = (double)((len == s->table_len) + (len >= 3));
    for (uint64_t b = set; b; b &= b - 1) {
        g += s->values[CTZ(b)];
        same &= SUIT(CTZ(b)) == suit0;
    }
    s->found[sum] = 1;
    if (g > s->best[sum]) s->best[sum] = g;
    if (same && g + 1 > s->simili[sum][suit0]) s->simili[sum][suit0] = g + 1;
}

static void grow_sums(sums_t *s, int i, int total, uint64_t chosen) { /* every set of >= 2 numerals, sum <= 10 */
    for (int j = i; j < s->n_cards; j++) {
        int v = total + VALUE(s->cards[j]);
        if (v > 10) continue;
        uint64_t set = chosen | BIT(s->cards[j]);
        if (chosen) set_gain(s, set, v);
        grow_sums(s, j + 1, v, set);
    }
}

/* replies[rank][suit]: the best gain of a card of that rank and suit played on table (its own value
 * not included); has[rank]: whether that rank captures at all.  ranks: the ranks asked for */
static void best_replies(uint64_t table, int prev, const double *values, int ranks, double replies[13][4],
                         int has[13]) {
    sums_t s = {.values = values, .n_cards = 0, .table_len = popcount(table)};
    for (int v = 0; v <= 10; v++) {
        s.best[v] = NO_REPLY, s.found[v] = 0;
        for (int k = 0; k < 4; k++) s.simili[v][k] = NO_REPLY;
    }
    for (uint64_t b = table & NUMERALS; b; b &= b - 1) s.cards[s.n_cards++] = (int8_t)CTZ(b);
    if (s.n_cards >= 2) grow_sums(&s, 0, 0, 0);
    for (int rank = 0; rank < 13; rank++) {
        has[rank] = 0;
        if (!(ranks >> rank & 1)) continue;
        uint64_t singles = table & RANK_MASK(rank);
        int multi = rank < 10 && s.found[rank + 1];
        if (!singles && !multi) continue;
        double best = NO_REPLY;
        for (uint64_t b = singles; b; b &= b - 1) { /* a rank match: scùa if alone, picada if just placed */
            int t = CTZ(b);
            double g = values[t] + (double)(s.table_len == 1) + (double)(t == prev);
            if (g > best) best = g;
        }
        if (multi && s.best[rank + 1] > best) best = s.best[rank + 1];
        has[rank] = 1;
        for (int k = 0; k < 4; k++) {
            double sim = multi ? s.simili[rank + 1][k] : NO_REPLY;
            replies[rank][k] = sim > best ? sim : best;
        }
    }
}

static int desc_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* (expected best gain, chance of any capture) of a hand of hand_size random unseen cards */
static void expected_from_replies(double replies[13][4], const int has[13], const double *values, uint64_t unseen,
                                  int hand_size, double out[2]) {
    int u = popcount(unseen), m = 0;
    out[0] = out[1] = 0.0;
    if (hand_size <= 0 || u == 0) return;
    if (hand_size > u) hand_size = u;
    double gains[C];
    for (uint64_t b = unseen; b; b &= b - 1) {
        int c = CTZ(b);
        if (has[RANK(c)]) gains[m++] = replies[RANK(c)][SUIT(c)] + values[c];
    }
    if (!m) return;
    qsort(gains, (size_t)m, sizeof *gains, desc_double);
    double p = (double)hand_size / (double)u, expected = 0.0;
    for (int k = 1, i = 0; i < m; i++, k++) {
        double g = gains[i];
        if (g <= 0 || p <= 0) break;
        expected += g * p;
        if (k >= u) break;
        p *= (double)(u - k - hand_size + 1) / (double)(u - k);
    }
    double p_none = u - m >= hand_size ? (double)comb_u(u - m, hand_size) / (double)comb_u(u, hand_size) : 0.0;
    out[0] = expected, out[1] = 1.0 - p_none;
}

/* -- the legal moves (CavalloiceraState.legal_moves: by card id, place first, then its sets in order) -- */

typedef struct {
    int n;
    int8_t *card;
    uint64_t *capture; /* 0: the card is placed */
    double *score;
} moves_t;

static int legal_moves(const cv_cavalloicera *t, moves_t *m) { /* 0, or -1 without memory */
    uint64_t hand = t->hands[t->current];
    int total = 0;
    uint32_t sets[C];
    for (uint64_t b = hand; b; b &= b - 1) {
        int c = CTZ(b);
        sets[c] = cv_cavalloicera_count_sets(t, c);
        total += 1 + (int)sets[c];
    }
    m->n = 0;
    m->card = malloc((size_t)total * sizeof *m->card + 1);
    m->capture = malloc((size_t)total * sizeof *m->capture + 1);
    m->score = malloc((size_t)total * sizeof *m->score + 1);
    if (!m->card || !m->capture || !m->score) return -1;
    for (uint64_t b = hand; b; b &= b - 1) {
        int c = CTZ(b);
        m->card[m->n] = (int8_t)c, m->capture[m->n++] = 0;
        for (uint32_t k = 0; k < sets[c]; k++)
            m->card[m->n] = (int8_t)c, m->capture[m->n++] = cv_cavalloicera_kth_set(t->table, c, 0, k);
    }
    return 0;
}

static void free_moves(moves_t *m) {
    free(m->card);
    free(m->capture);
    free(m->score);
}

/* -- the one-ply scores (HeuristicBot._scores) -------------------------------------------- */

typedef struct {
    int seat, next_size, prev;
    uint64_t hand, table, unseen;
    int ranks; /* the ranks of the unseen cards */
    double values[C];
} heur_info;

static void heur_info_of(const cv_cavalloicera *t, heur_info *h) { /* bots._Info.from_state */
    int seat = t->current, team = seat & 1;
    h->seat = seat;
    h->hand = t->hands[seat];
    h->table = t->table;
    h->prev = t->prev_placed;
    h->next_size = popcount(t->hands[(seat + 1) % CV_CV_SEATS]);
    h->unseen = (BIT(C) - 1) & ~(h->hand | t->table | t->piles[0] | t->piles[1]);
    h->ranks = 0;
    for (uint64_t b = h->unseen; b; b &= b - 1) h->ranks |= 1 << RANK(CTZ(b));
    award_values(t->piles[team], t->piles[1 - team], h->hand, h->values);
}

static double one_ply_score(const heur_info *h, int card, uint64_t capture) {
    double gain = 0.0, hit[2] = {0.0, 0.0}, replies[13][4];
    int has[13];
    uint64_t left = capture ? h->table & ~capture : h->table | BIT(card);
    if (capture) {
        int n = popcount(capture), same = 1;
        for (uint64_t b = capture; b; b &= b - 1) same &= SUIT(CTZ(b)) == SUIT(card);
        int base = (capture == h->table) + (n == 1 && h->prev >= 0 && capture == BIT(h->prev)) + (n >= 3);
        cv_pysum s = {0.0, 0.0};
        for (uint64_t b = capture; b; b &= b - 1) cv_pysum_add(&s, h->values[CTZ(b)]);
        gain = ((base + same) + h->values[card]) + cv_pysum_result(&s);
    }
    if (h->next_size > 0 && h->unseen) {
        /* after a capture nothing was just placed (AfterCaptures.replies); after a place, the card was */
        best_replies(left, capture ? -1 : card, h->values, h->ranks, replies, has);
        expected_from_replies(replies, has, h->values, h->unseen, h->next_size, hit);
    }
    double score = gain - THREAT_WEIGHT * hit[0];
    if (h->next_size > 0) score += FORCE_BONUS * (1.0 - hit[1]);
    return score;
}

/* -- the exact endgame (endgame.endgame_scores, _solve) ------------------------------------ */

typedef struct {
    int team;
    long left; /* the work still allowed (ENDGAME_NODES) */
} solver_t;

static int team_diff(const cv_cavalloicera *t, int team) {
    int points[2], breakdown[2][CV_CV_KEYS], cards[2];
    cv_cavalloicera_score(t, points, breakdown, cards);
    return points[team] - points[1 - team];
}

/* the final point difference for the team, both teams playing best; -1e18 once over the work allowed */
static double solve(const cv_cavalloicera *t, solver_t *s, double alpha, double beta) {
    if (t->done) return (double)team_diff(t, s->team);
    moves_t m;
    if (legal_moves(t, &m) < 0) {
        free_moves(&m);
        s->left = -1;
        return 0.0;
    }
    s->left -= 16 + m.n;
    int maximize = (t->current & 1) == s->team;
    double best = maximize ? -1e9 : 1e9;
    for (int i = 0; i < m.n && s->left >= 0; i++) {
        cv_cavalloicera child = *t;
        cv_cavalloicera_play(&child, m.card[i], m.capture[i]);
        double v = solve(&child, s, alpha, beta);
        if (maximize) {
            if (v > best) {
                best = v;
                if (v > alpha) alpha = v;
            }
        } else if (v < best) {
            best = v;
            if (v < beta) beta = v;
        }
        if (alpha >= beta) break;
    }
    free_moves(&m);
    return best;
}

/* every way to deal the unseen cards (the other hands' cards) to the other seats, in the hands'
 * sizes: each distinct deal once, as the four hands */
static int endgame_deals(const cv_cavalloicera *t, uint64_t deals[][CV_CV_SEATS], int max) { /* -1: too many */
    int seat = t->current, others[3], sizes[3], n_others = 0, n = 0;
    uint64_t unseen = 0;
    if (max < 1) return -1;
    memcpy(deals[0], t->hands, sizeof deals[0]); /* nobody else holds a card: the one deal as it is */
    for (int s = 0; s < CV_CV_SEATS; s++)
        if (s != seat && t->hands[s]) others[n_others] = s, sizes[n_others++] = popcount(t->hands[s]), unseen |= t->hands[s];
    if (n_others == 0) return 1;
    /* hands as subsets: the first other seat takes any sizes[0] of the unseen, the next of the rest, ... */
    uint64_t first = unseen;
    for (uint64_t a = first;; a = (a - 1) & first) {
        if (popcount(a) == sizes[0]) {
            uint64_t rest = unseen & ~a;
            if (n_others == 1) {
                if (n == max) return -1;
                memcpy(deals[n], t->hands, sizeof deals[n]), deals[n][others[0]] = a, n++;
            } else {
                for (uint64_t b = rest;; b = (b - 1) & rest) {
                    if (popcount(b) == sizes[1] && (n_others == 2 || popcount(rest & ~b) == sizes[2])) {
                        if (n == max) return -1;
                        memcpy(deals[n], t->hands, sizeof deals[n]);
                        deals[n][others[0]] = a, deals[n][others[1]] = b;
                        if (n_others == 3) deals[n][others[2]] = rest & ~b;
                        n++;
                    }
                    if (!b) break;
                }
            }
        }
        if (!a) break;
    }
    return n;
}

/* the endgame's scores of the legal moves m (exact averages); 0 when refused as too large */
static int endgame_scores(const cv_cavalloicera *t, moves_t *m) {
    enum { MAX_DEALS = 64 }; /* the last round (ENDGAME_TURNS = 4 moves left): 3! deals at most */
    uint64_t deals[MAX_DEALS][CV_CV_SEATS];
    int n = endgame_deals(t, deals, MAX_DEALS);
    if (n < 0) return 0;
    if (t->turn < CV_CV_TURNS - 1 && (long)n * m->n * 17 > ENDGAME_NODES) return 0;
    solver_t s = {.team = t->current & 1, .left = ENDGAME_NODES};
    for (int j = 0; j < m->n; j++) m->score[j] = 0.0;
    for (int d = 0; d < n; d++) {
        cv_cavalloicera state = *t;
        memcpy(state.hands, deals[d], sizeof state.hands);
        for (int j = 0; j < m->n; j++) {
            cv_cavalloicera child = state;
            cv_cavalloicera_play(&child, m->card[j], m->capture[j]);
            m->score[j] += solve(&child, &s, -1e9, 1e9);
            if (s.left < 0) return 0;
        }
    }
    for (int j = 0; j < m->n; j++) m->score[j] /= (n > 1 ? n : 1);
    return 1;
}

int cv_cavalloicera_move_scores(const cv_cavalloicera *t, double *out, int n, double seconds) {
    moves_t m;
    int err = legal_moves(t, &m) == 0 && m.n == n ? 0 : -1;
    if (!err) {
        heur_info h;
        cv_clock clock;
        heur_info_of(t, &h);
        cv_clock_start(&clock, seconds);
        for (int i = 0; i < n && !err; i++) {
            out[i] = one_ply_score(&h, m.card[i], m.capture[i]);
            if (i % 32 == 31 && cv_clock_past(&clock)) err = -2; /* as HeuristicBot._scores' budget check */
        }
    }
    free_moves(&m);
    return err;
}

/* -- the bot's scores and choice (HeuristicBot.state_scores, best_index) ------------------------- */

static void heuristic_scores(const cv_cavalloicera *t, moves_t *m) {
    if (CV_CV_TURNS - t->turn <= ENDGAME_TURNS && endgame_scores(t, m)) return;
    heur_info h;
    heur_info_of(t, &h);
    for (int i = 0; i < m->n; i++) m->score[i] = one_ply_score(&h, m->card[i], m->capture[i]);
}

/* whether move i is still reachable while a capture is built: the sets of its card starting with
 * the cards taken so far (every legal move between turns) */
static int reachable(const cv_cavalloicera *t, const moves_t *m, int i) {
    if (t->build_card < 0) return 1;
    return m->card[i] == t->build_card && m->capture[i] && consistent_set(m->capture[i], t->build_taken);
}

/* the bot's pick among the reachable moves: the best score, then the bigger capture, then the lower
 * card id, then the first */
static int best_index(const cv_cavalloicera *t, const moves_t *m) {
    int b = -1;
    for (int i = 0; i < m->n; i++) {
        if (!reachable(t, m, i)) continue;
        if (b < 0 || m->score[i] > m->score[b]) {
            b = i;
            continue;
        }
        if (m->score[i] < m->score[b]) continue;
        int li = popcount(m->capture[i]), lb = popcount(m->capture[b]);
        if (li > lb || (li == lb && m->card[i] < m->card[b])) b = i;
    }
    return b;
}

static int action_of(const cv_cavalloicera *t, const moves_t *m, int i) {
    if (t->build_card < 0) return (m->capture[i] ? CV_CV_CAPTURE : 0) + m->card[i];
    return CV_CV_TAKE + CTZ(m->capture[i] & ~t->build_taken);
}

int cv_cavalloicera_heuristic_action(const cv_cavalloicera *t) {
    if (t->done) return -1;
    moves_t m;
    if (legal_moves(t, &m) < 0) {
        free_moves(&m);
        return -2;
    }
    heuristic_scores(t, &m);
    int a = action_of(t, &m, best_index(t, &m));
    free_moves(&m);
    return a;
}

int cv_cavalloicera_prior(const cv_cavalloicera *t, float *out) {
    memset(out, 0, CV_CV_PRIOR_SIZE * sizeof *out);
    if (t->done) return 0;
    moves_t m;
    if (legal_moves(t, &m) < 0) {
        free_moves(&m);
        return -1;
    }
    heuristic_scores(t, &m);
    int choice = best_index(t, &m);
    uint8_t seen[CV_CV_ACTIONS] = {0};
    double best_of[CV_CV_ACTIONS];
    for (int i = 0; i < m.n; i++) { /* games/priors.capture_prior: each action's best move */
        if (!reachable(t, &m, i)) continue;
        int a = action_of(t, &m, i);
        if (!seen[a] || m.score[i] > best_of[a]) best_of[a] = m.score[i];
        seen[a] = 1;
    }
    double top = m.score[choice]; /* the best reachable move's score: the top of the actions' bests */
    for (int a = 0; a < CV_CV_ACTIONS; a++) { /* games/priors.write_prior */
        if (!seen[a]) continue;
        double d = best_of[a] - top;
        out[a] = (float)(d > -CV_CV_PRIOR_CLIP ? d : -CV_CV_PRIOR_CLIP);
    }
    out[CV_CV_ACTIONS + action_of(t, &m, choice)] = 1.0f;
    free_moves(&m);
    return 0;
}

void cv_cavalloicera_prior_many(const cv_cavalloicera *t, int64_t n, const uint8_t *where, float *out) {
    for (int64_t i = 0; i < n; i++) {
        if (where && !where[i]) memset(out + i * CV_CV_PRIOR_SIZE, 0, CV_CV_PRIOR_SIZE * sizeof *out);
        else cv_cavalloicera_prior(t + i, out + i * CV_CV_PRIOR_SIZE);
    }
}

void cv_cavalloicera_bot_actions(const cv_cavalloicera *t, int64_t n, int kind, const uint8_t *where,
                                 int32_t *actions) {
    for (int64_t i = 0; i < n; i++) {
        if (where && !where[i]) actions[i] = -1;
        else actions[i] = kind == CV_CV_BOT_GREEDY ? cv_cavalloicera_greedy_action(t + i)
                                                   : cv_cavalloicera_heuristic_action(t + i);
    }
}
