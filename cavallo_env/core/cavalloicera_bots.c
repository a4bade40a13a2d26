/* Cavalloìcera's greedy bot in C11: see cavalloicera_bots.h.  Each function
 * names the bots.py code it mirrors; the points are computed in double with
 * the Python expression's order of operations, so they are the same numbers
 * and the same ties. */
#include "cavalloicera_bots.h"

#include "pysum.h"

#define C CV_CV_CARDS
#define SUIT(c) ((c) / 13)
#define BIT(c) (1ULL << (c))
#define CTZ(b) __builtin_ctzll(b)
#define SWORDS 2
#define SWORDS_ACE 26
#define LA_MATA 27
#define COINS_10 9
#define CUPS_FANTE 23

int cv_cavalloicera_pysum_compensated = 0;

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
    for (uint64_t b = capture; b; b &= b - 1) cv_pysum_add(&s, card_value(CTZ(b)), cv_cavalloicera_pysum_compensated);
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

void cv_cavalloicera_bot_actions(const cv_cavalloicera *t, int64_t n, int kind, const uint8_t *where,
                                 int32_t *actions) {
    (void)kind; /* CV_CV_BOT_GREEDY: the only bot in the core so far */
    for (int64_t i = 0; i < n; i++) actions[i] = (where && !where[i]) ? -1 : cv_cavalloicera_greedy_action(t + i);
}
