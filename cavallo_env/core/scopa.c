/* Two-player Scopa in C11: see scopa.h.  Each function names the engine.py /
 * actions.py code it mirrors; the differential test (tests/test_core_scopa.py)
 * proves them identical. */
#include "scopa.h"
#include "scopa_bots.h"

#include <string.h>

#define C CV_SC_CARDS
#define BIT(c) (1ULL << (c))
#define RANK(c) ((c) % 10)
#define SUIT(c) ((c) / 10)
#define KING 9
#define SEVEN 6

#define RANKS10(a, b, c, d, e, f, g, h, i, j) a, b, c, d, e, f, g, h, i, j
#define FOUR_SUITS(r) r, r, r, r
const uint8_t CV_SC_VALUE[C] = {FOUR_SUITS(RANKS10(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))};
const uint8_t CV_SC_PRIMIERA[C] = {FOUR_SUITS(RANKS10(16, 12, 13, 14, 15, 18, 21, 10, 10, 10))};

/* the number of cards in a set (no -mpopcnt: gcc would call libgcc's table-driven __popcountdi2) */
static inline int popcount(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* the subset-sum counts (cv_scopa.sums) with one table card of value w more / less: multiplying
 * by (1 + x^w) and dividing by it again (exact in uint32 arithmetic) */
static inline void sums_add(uint32_t *cnt, int w) {
    for (int s = 10; s >= w; s--) cnt[s] += cnt[s - w];
}
static inline void sums_remove(uint32_t *cnt, int w) {
    for (int s = w; s <= 10; s++) cnt[s] -= cnt[s - w];
}

/* the cards of value v (1..10): VALUE_MASK */
static uint64_t value_mask(int v) {
    return BIT(v - 1) | BIT(v + 9) | BIT(v + 19) | BIT(v + 29);
}

/* -- generators (as briscola.c) ---------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint32_t fast_below(uint64_t *state, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)(splitmix64(state) >> 32) * n;
    if ((uint32_t)m < n) {
        uint32_t threshold = (uint32_t)-n % n;
        while ((uint32_t)m < threshold) m = (uint64_t)(uint32_t)(splitmix64(state) >> 32) * n;
    }
    return (uint32_t)(m >> 32);
}

/* _randbelow(n) of the table's generator: Python's with py, else splitmix64's */
static uint32_t below(cv_scopa *t, cv_pyrandom *py, uint32_t n) {
    return py ? cv_pyrandom_below(py, n) : fast_below(&t->rng, n);
}

static uint32_t shuffle_j(cv_scopa *t, cv_pyrandom *py, int i) { /* games/shuffle.py's j for position i */
    if (!py) return fast_below(&t->rng, (uint32_t)i + 1);
    int k = cv_bit_length((uint32_t)i + 1);
    uint32_t j = cv_pyrandom_bits(py, k);
    while (j > (uint32_t)i) j = cv_pyrandom_bits(py, k);
    return j;
}

static int kings_on_table(const int8_t *order) {
    int k = 0;
    for (int i = 6; i < 10; i++) k += RANK(order[i]) == KING;
    return k;
}

/* engine.draw_deal: shuffled until the table holds fewer than 3 kings */
static void draw_order(cv_scopa *t, cv_pyrandom *py, int8_t order[C]) {
    do {
        for (int i = 0; i < C; i++) order[i] = (int8_t)i;
        for (int i = C - 1; i > 0; i--) {
            uint32_t j = shuffle_j(t, py, i);
            int8_t x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
    } while (kings_on_table(order) >= 3);
}

static void refresh(cv_scopa *t);

/* -- a deal (ScopaDeal.__init__) --------------------------------------------------- */

static void start_deal(cv_scopa *t, const int8_t ids[C], int dealer) {
    memcpy(t->initial, ids, C);
    t->hands[0] = t->hands[1] = t->table = t->piles[0] = t->piles[1] = t->leftovers = 0;
    for (int k = 0; k < 3; k++) {
        t->hands[0] |= BIT(ids[k]);
        t->hands[1] |= BIT(ids[3 + k]);
    }
    for (int k = 6; k < 10; k++) t->table |= BIT(ids[k]);
    memset(t->sums, 0, sizeof t->sums);
    t->sums[0] = 1;
    for (int k = 6; k < 10; k++) sums_add(t->sums, CV_SC_VALUE[ids[k]]);
    t->dealer = (uint8_t)dealer;
    t->stock_pos = t->turn = t->deal_done = 0;
    t->scope[0] = t->scope[1] = 0;
    t->last_capturer = t->leftovers_to = -1;
    t->build_card = t->plan_card = -1;
    t->taken = t->plan = 0;
    t->current = (uint8_t)(1 - dealer);
    refresh(t);
}

void cv_scopa_deal(cv_scopa *t, const int8_t ids[C], int dealer, int deck, int match, int base0, int base1) {
    t->match = (uint8_t)!!match;
    t->deck = (uint8_t)deck;
    t->money = deck == CV_SC_BRESCIANE ? 0 : 1; /* cards.MONEY_SUIT */
    t->done = 0;
    t->winner = -1;
    t->base[0] = t->totals[0] = (int16_t)base0;
    t->base[1] = t->totals[1] = (int16_t)base1;
    t->deals = 0;
    t->acted = 0;
    t->ended_deal = 0;
    memset(t->res_points, 0, sizeof t->res_points);
    memset(t->res_cards, 0, sizeof t->res_cards);
    memset(t->res_breakdown, 0, sizeof t->res_breakdown);
    start_deal(t, ids, dealer);
}

void cv_scopa_deal_seed(cv_scopa *t, cv_pyrandom *py, uint64_t seed, int deck, int match) {
    int8_t order[C];
    if (py) cv_pyrandom_seed(py, seed);
    else t->rng = seed;
    int dealer = (int)below(t, py, 2); /* rng.randrange(2) */
    draw_order(t, py, order);
    cv_scopa_deal(t, order, dealer, deck, match, 0, 0);
}

/* -- capture sets (ScopaDeal.captures, CaptureBuilder) ------------------------------ */

/* A scan over the capture sets of a card, in the engine's order (sorted tuples, increasing),
 * keeping those whose smallest cards are `taken` (the capture built so far): how many, the
 * pick-th of them, and the union of their next cards (the legal take actions). */
typedef struct {
    uint64_t taken, low;  /* low: the bits up to taken's highest */
    int count, pick, enough;
    uint64_t picked, nexts;
} scan_t;

static void visit(scan_t *s, uint64_t set) {
    if ((set & s->low) != s->taken) return;
    if (s->count == s->pick) s->picked = set;
    s->count++;
    uint64_t rest = set & ~s->taken;
    s->nexts |= rest & (~rest + 1);
}

/* sets of two or more of cards[i..] adding up to v - sum, depth first in increasing ids:
 * the sorted tuples' order (no set is a prefix of another: they have the same sum) */
static void sums(scan_t *s, const int8_t *cards, int n, int i, int sum, int v, uint64_t set) {
    for (int j = i; j < n && s->count < s->enough; j++) {
        int x = sum + CV_SC_VALUE[cards[j]];
        if (x < v) sums(s, cards, n, j + 1, x, v, set | BIT(cards[j]));
        else if (x == v) visit(s, set | BIT(cards[j]));
    }
}

static void scan_card(const cv_scopa *t, int card, scan_t *s) {
    int v = CV_SC_VALUE[card];
    uint64_t single = t->table & value_mask(v);
    if (single) { /* one card of the same value: any of them, by id */
        for (; single && s->count < s->enough; single &= single - 1) visit(s, single & (~single + 1));
        return;
    }
    int8_t cards[C];
    int n = 0;
    for (uint64_t b = t->table; b; b &= b - 1) {
        int c = __builtin_ctzll(b);
        if (CV_SC_VALUE[c] < v) cards[n++] = (int8_t)c;
    }
    sums(s, cards, n, 0, 0, v, 0);
}

static void scan_init(scan_t *s, uint64_t taken, int pick, int enough) {
    s->taken = taken;
    s->low = taken ? (~0ULL >> (63 - (63 - __builtin_clzll(taken)))) : 0;
    s->count = 0;
    s->pick = pick;
    s->enough = enough;
    s->picked = s->nexts = 0;
}

/* how many capture sets card has: its same-value table cards, else the sets adding up to its value
 * (then of two or more cards: no single table card has that value) */
static uint32_t capture_count(const cv_scopa *t, int card, const uint32_t cnt[11]) { /* cnt: t->sums */
    int v = CV_SC_VALUE[card];
    uint64_t single = t->table & value_mask(v);
    return single ? (uint32_t)popcount(single) : cnt[v];
}

/* the legal actions as two words (ScopaActions.legal_mask) */
static void refresh(cv_scopa *t) {
    uint64_t w[2] = {0, 0};
    if (t->done) {
    } else if (t->build_card >= 0) {
        scan_t s;
        scan_init(&s, t->taken, -1, 1 << 30);
        scan_card(t, t->build_card, &s);
        w[1] = s.nexts << (CV_SC_TAKE - 64); /* take actions 80..119: bits 16..55 of the second word */
    } else {
        uint64_t hand = t->hands[t->current], caps = 0;
        for (uint64_t b = hand; b; b &= b - 1) {
            int c = __builtin_ctzll(b);
            if (capture_count(t, c, t->sums)) caps |= BIT(c);
        }
        uint64_t places = hand & ~caps;
        w[0] = places | caps << CV_SC_CAPTURE;  /* capture actions 40..63 in the first word */
        w[1] = caps >> (64 - CV_SC_CAPTURE);    /* 64..79 in the second */
    }
    t->legal[0] = w[0];
    t->legal[1] = w[1];
}

int cv_scopa_captures(const cv_scopa *t, int card, uint64_t *out, int max) {
    int n = 0;
    for (;; n++) {
        scan_t s;
        scan_init(&s, 0, n, 1 << 30);
        scan_card(t, card, &s);
        if (n >= s.count || n >= max) return s.count;
        out[n] = s.picked;
    }
}

/* -- legal actions (ScopaActions.legal_mask) ---------------------------------------- */

int cv_scopa_legal(const cv_scopa *t, int a) {
    if (a < 0 || a >= CV_SC_ACTIONS) return 0;
    return (int)(t->legal[a >> 6] >> (a & 63) & 1);
}

/* SPREAD[b]: the 8 bits of b as 8 bytes 0/1, lowest bit first (as briscola.c) */
#define BITK(b, k) (((b) >> (k)) & 1)
#define S1(b) {BITK(b, 0), BITK(b, 1), BITK(b, 2), BITK(b, 3), BITK(b, 4), BITK(b, 5), BITK(b, 6), BITK(b, 7)}
#define S4(b) S1(b), S1((b) + 1), S1((b) + 2), S1((b) + 3)
#define S16(b) S4(b), S4((b) + 4), S4((b) + 8), S4((b) + 12)
#define S64(b) S16(b), S16((b) + 16), S16((b) + 32), S16((b) + 48)
static const uint8_t SPREAD[256][8] = {S64(0), S64(64), S64(128), S64(192)};

static void mask_one(const cv_scopa *t, uint8_t *mask) {
    for (int k = 0; k < CV_SC_ACTIONS / 8; k++) memcpy(mask + 8 * k, SPREAD[t->legal[k >> 3] >> (8 * (k & 7)) & 255], 8);
}

void cv_scopa_mask(const cv_scopa *t, uint8_t *mask) { mask_one(t, mask); }

/* -- scoring (engine.primiera_value, score_deal) ----------------------------------- */

int cv_scopa_primiera(uint64_t pile) {
    int best[4] = {0, 0, 0, 0};
    for (; pile; pile &= pile - 1) {
        int c = __builtin_ctzll(pile);
        if (CV_SC_PRIMIERA[c] > best[SUIT(c)]) best[SUIT(c)] = CV_SC_PRIMIERA[c];
    }
    if (!(best[0] && best[1] && best[2] && best[3])) return 0;
    return best[0] + best[1] + best[2] + best[3];
}

static void score_deal(cv_scopa *t) {
    uint64_t piles[2] = {t->piles[0], t->piles[1]};
    if (t->leftovers_to >= 0) piles[t->leftovers_to] |= t->leftovers;
    uint64_t money = 0x3FFULL << (10 * t->money), sette = BIT(t->money * 10 + SEVEN);
    int cards[2], money_n[2], prim[2];
    for (int s = 0; s < 2; s++) {
        cards[s] = popcount(piles[s]);
        money_n[s] = popcount(piles[s] & money);
        prim[s] = cv_scopa_primiera(piles[s]);
    }
    for (int s = 0; s < 2; s++) {
        int o = 1 - s;
        uint8_t *b = t->res_breakdown[s];
        b[0] = t->scope[s];
        b[1] = cards[s] > 20 && cards[s] > cards[o];
        b[2] = money_n[s] > 5 && money_n[s] > money_n[o];
        b[3] = (piles[s] & sette) != 0;
        b[4] = prim[s] > prim[o];
        t->res_points[s] = (uint8_t)(b[0] + b[1] + b[2] + b[3] + b[4]);
        t->res_cards[s] = (uint8_t)cards[s];
    }
}

/* -- transitions (ScopaDeal.play, ScopaState._end_deal, ScopaActions.step) ----------- */

/* ScopaState._end_deal: the result, the totals, the match decided or the next deal drawn */
static void end_deal(cv_scopa *t, cv_pyrandom *py) {
    score_deal(t);
    t->deals++;
    t->ended_deal = 1;
    t->totals[0] += t->res_points[0];
    t->totals[1] += t->res_points[1];
    if (!t->match) {
        t->done = 1;
        t->winner = t->res_points[0] > t->res_points[1] ? 0 : t->res_points[1] > t->res_points[0] ? 1 : -1;
    } else if ((t->totals[0] >= CV_SC_TARGET || t->totals[1] >= CV_SC_TARGET) && t->totals[0] != t->totals[1]) {
        t->done = 1;
        t->winner = t->totals[0] > t->totals[1] ? 0 : 1;
    } else {
        int8_t order[C];
        draw_order(t, py, order);
        start_deal(t, order, 1 - t->dealer);
    }
}

/* ScopaDeal.play (and ScopaState.play): a legal card with its capture set (0: placed) */
static void play(cv_scopa *t, cv_pyrandom *py, int card, uint64_t capture) {
    int seat = t->current;
    t->build_card = -1;
    t->taken = 0;
    t->hands[seat] &= ~BIT(card);
    int turn = ++t->turn;
    if (capture) {
        for (uint64_t b = capture; b; b &= b - 1) sums_remove(t->sums, CV_SC_VALUE[__builtin_ctzll(b)]);
        t->table &= ~capture;
        if (!t->table && turn < CV_SC_PLAYS) t->scope[seat]++;
        t->piles[seat] |= BIT(card) | capture;
        t->last_capturer = (int8_t)seat;
    } else {
        t->table |= BIT(card);
        sums_add(t->sums, CV_SC_VALUE[card]);
    }
    t->move_seat[turn - 1] = (int8_t)seat;
    t->move_card[turn - 1] = (int8_t)card;
    t->move_capture[turn - 1] = capture;
    if (!t->hands[0] && !t->hands[1]) {
        if (turn >= CV_SC_PLAYS) { /* ScopaDeal._finish */
            t->deal_done = 1;
            t->leftovers = t->table;
            t->leftovers_to = t->last_capturer;
            t->table = 0;
            memset(t->sums, 0, sizeof t->sums);
            t->sums[0] = 1;
            end_deal(t, py); /* the state's current stays the last player's once the match is over */
            return;
        }
        const int8_t *stock = t->initial + 10 + t->stock_pos;
        int nd = 1 - t->dealer;
        t->hands[nd] = BIT(stock[0]) | BIT(stock[1]) | BIT(stock[2]);
        t->hands[1 - nd] = BIT(stock[3]) | BIT(stock[4]) | BIT(stock[5]);
        t->stock_pos += 6;
    }
    t->current = (uint8_t)(seat ^ 1);
}

void cv_scopa_play(cv_scopa *t, int card, uint64_t capture) {
    play(t, NULL, card, capture);
    refresh(t);
}

/* CaptureBuilder._build: the capture played if one set is consistent with taken, else built on */
static int build(cv_scopa *t, cv_pyrandom *py, int card, uint64_t taken) {
    scan_t s;
    scan_init(&s, taken, 0, 2);
    scan_card(t, card, &s);
    if (s.count == 1) {
        play(t, py, card, s.picked);
        return 1;
    }
    t->build_card = (int8_t)card;
    t->taken = taken;
    return 0;
}

int cv_scopa_act(cv_scopa *t, cv_pyrandom *py, int a) {
    t->ended_deal = 0;
    t->acted++;
    int moved;
    if (a < CV_SC_CAPTURE) {
        play(t, py, a, 0);
        moved = 1;
    } else if (a < CV_SC_TAKE) {
        moved = build(t, py, a - CV_SC_CAPTURE, 0);
    } else {
        moved = build(t, py, t->build_card, t->taken | BIT(a - CV_SC_TAKE));
    }
    refresh(t);
    return moved;
}

/* engine.random_playout's move (rng.choice(state.legal_moves())), as its first action; a capture
 * with a choice is planned and its take actions come on the next calls */
int cv_scopa_random_action(cv_scopa *t, cv_pyrandom *py) {
    if (t->done) return -1;
    if (t->build_card >= 0) {
        if (t->plan_card == t->build_card && (t->plan & t->taken) == t->taken) {
            uint64_t rest = t->plan & ~t->taken;
            scan_t s;
            scan_init(&s, t->taken, -1, 1 << 30);
            scan_card(t, t->build_card, &s);
            if (rest && (s.nexts >> __builtin_ctzll(rest) & 1)) return CV_SC_TAKE + __builtin_ctzll(rest);
        }
        /* not building the planned capture (other actions were given): a uniform legal take */
        scan_t s;
        scan_init(&s, t->taken, -1, 1 << 30);
        scan_card(t, t->build_card, &s);
        uint32_t k = below(t, py, (uint32_t)popcount(s.nexts));
        uint64_t b = s.nexts;
        while (k--) b &= b - 1;
        return CV_SC_TAKE + __builtin_ctzll(b);
    }
    uint64_t hand = t->hands[t->current];
    int counts[C];
    int total = 0;
    for (uint64_t b = hand; b; b &= b - 1) {
        int c = __builtin_ctzll(b);
        counts[c] = (int)capture_count(t, c, t->sums);
        total += counts[c] ? counts[c] : 1;
    }
    int k = (int)below(t, py, (uint32_t)total);
    for (uint64_t b = hand; b; b &= b - 1) {
        int c = __builtin_ctzll(b), m = counts[c] ? counts[c] : 1;
        if (k >= m) {
            k -= m;
            continue;
        }
        if (!counts[c]) return CV_SC_PLACE + c;
        if (counts[c] > 1) {
            scan_t s;
            scan_init(&s, 0, k, 1 << 30);
            scan_card(t, c, &s);
            t->plan_card = (int8_t)c;
            t->plan = s.picked;
        }
        return CV_SC_CAPTURE + c;
    }
    return -1; /* not reached */
}

/* -- the observation scopa-obs/1 (encoding.py: fill_observation, OBS_BLOCKS) ------------ */

enum {
    O_HAND = 0, O_TABLE = 40, O_CCARD = 80, O_CTAKEN = 120, O_PILE_MINE = 160, O_PILE_THEIRS = 200,
    O_PLAYED_MINE = 240, O_PLAYED_THEIRS = 280, O_UNSEEN = 320, O_SCOPE_MINE = 360, O_SCOPE_THEIRS = 366,
    O_CARDS = 372, O_MONEY = 374, O_TOTALS = 376, O_DEALER = 379, O_STOCK = 380, O_HAND_SIZES = 381,
    O_LAST = 383, O_PLAY = 386, O_DECK = 387
};

static void set_bits(float *out, uint64_t bits) {
    for (; bits; bits &= bits - 1) out[__builtin_ctzll(bits)] = 1.0f;
}

/* a Python float (double) stored into float32 */
static float f32(double x) { return (float)x; }

static double clip01(double x) { return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

void cv_scopa_observe(const cv_scopa *t, int seat, float *out) {
    int o = 1 - seat;
    uint64_t all = (1ULL << C) - 1, played[2] = {0, 0};
    memset(out, 0, CV_SC_OBS_SIZE * sizeof *out);
    set_bits(out + O_HAND, t->hands[seat]);
    set_bits(out + O_TABLE, t->table);
    for (int k = 0; k < t->turn; k++) played[t->move_seat[k]] |= BIT(t->move_card[k]);
    set_bits(out + O_UNSEEN,
             all & ~(t->hands[seat] | t->table | t->piles[0] | t->piles[1] | t->leftovers));
    if (t->turn) {
        uint64_t money = 0x3FFULL << (10 * t->money);
        set_bits(out + O_PILE_MINE, t->piles[seat]);
        set_bits(out + O_PILE_THEIRS, t->piles[o]);
        set_bits(out + O_PLAYED_MINE, played[seat]);
        set_bits(out + O_PLAYED_THEIRS, played[o]);
        for (int k = 0; k < t->scope[seat] && k < 6; k++) out[O_SCOPE_MINE + k] = 1.0f;
        for (int k = 0; k < t->scope[o] && k < 6; k++) out[O_SCOPE_THEIRS + k] = 1.0f;
        out[O_CARDS] = f32(popcount(t->piles[seat]) / 40.0);
        out[O_CARDS + 1] = f32(popcount(t->piles[o]) / 40.0);
        out[O_MONEY] = f32(popcount(t->piles[seat] & money) / 10.0);
        out[O_MONEY + 1] = f32(popcount(t->piles[o] & money) / 10.0);
    }
    if (t->build_card >= 0 && seat == t->current) {
        out[O_CCARD + t->build_card] = 1.0f;
        set_bits(out + O_CTAKEN, t->taken);
    }
    int tot[2] = {t->totals[0], t->totals[1]};
    if (t->deals && t->deal_done) { /* totals_before_deal */
        tot[0] -= t->res_points[0];
        tot[1] -= t->res_points[1];
    }
    if (tot[0] || tot[1]) {
        double mine = tot[seat], theirs = tot[o];
        out[O_TOTALS] = f32(mine / CV_SC_TARGET < 1.0 ? mine / CV_SC_TARGET : 1.0);
        out[O_TOTALS + 1] = f32(theirs / CV_SC_TARGET < 1.0 ? theirs / CV_SC_TARGET : 1.0);
        out[O_TOTALS + 2] = f32(clip01((mine - theirs + CV_SC_TARGET) / (2 * CV_SC_TARGET)));
    } else {
        out[O_TOTALS + 2] = 0.5f;
    }
    if (t->dealer == seat) out[O_DEALER] = 1.0f;
    out[O_STOCK] = f32((CV_SC_STOCK - t->stock_pos) / (double)CV_SC_STOCK);
    out[O_HAND_SIZES] = f32(popcount(t->hands[seat]) / 3.0);
    out[O_HAND_SIZES + 1] = f32(popcount(t->hands[o]) / 3.0);
    int lc = t->last_capturer;
    out[O_LAST + (lc < 0 ? 2 : lc == seat ? 0 : 1)] = 1.0f;
    out[O_PLAY] = f32(t->turn / (double)CV_SC_PLAYS);
    if (t->deck == CV_SC_BRESCIANE) out[O_DECK] = 1.0f;
}

/* -- the full-information vector scopa-state/1 (encoding.state_vector, STATE_BLOCKS) ------ */

enum {
    S_HANDS = 0, S_TABLE = 80, S_STOCK = 120, S_PILES = 160, S_PLAYED = 240, S_CCARD = 320, S_CTAKEN = 360,
    S_SCOPE = 400, S_CARDS = 402, S_MONEY = 404, S_TOTALS = 406, S_DEALER = 408, S_CURRENT = 410,
    S_STOCK_SIZE = 412, S_HAND_SIZES = 413, S_LAST = 415, S_PLAY = 418, S_DECK = 419
};

void cv_scopa_state(const cv_scopa *t, float *out) {
    uint64_t money = 0x3FFULL << (10 * t->money);
    memset(out, 0, CV_SC_STATE_SIZE * sizeof *out);
    for (int seat = 0; seat < 2; seat++) {
        set_bits(out + S_HANDS + seat * C, t->hands[seat]);
        set_bits(out + S_PILES + seat * C, t->piles[seat]);
        double sc = t->scope[seat] / 18.0;
        out[S_SCOPE + seat] = f32(sc < 1.0 ? sc : 1.0);
        out[S_CARDS + seat] = f32(popcount(t->piles[seat]) / 40.0);
        out[S_MONEY + seat] = f32(popcount(t->piles[seat] & money) / 10.0);
        out[S_HAND_SIZES + seat] = f32(popcount(t->hands[seat]) / 3.0);
    }
    set_bits(out + S_TABLE, t->table);
    for (int k = 0; k < CV_SC_STOCK - t->stock_pos; k++)
        out[S_STOCK + t->initial[10 + t->stock_pos + k]] = f32(1.0 - k / (double)CV_SC_STOCK);
    for (int k = 0; k < t->turn; k++) out[S_PLAYED + t->move_seat[k] * C + t->move_card[k]] = 1.0f;
    if (t->build_card >= 0) {
        out[S_CCARD + t->build_card] = 1.0f;
        set_bits(out + S_CTAKEN, t->taken);
    }
    int tot[2] = {t->totals[0], t->totals[1]};
    if (t->deals && t->deal_done) { /* totals_before_deal */
        tot[0] -= t->res_points[0];
        tot[1] -= t->res_points[1];
    }
    for (int seat = 0; seat < 2; seat++) {
        double x = tot[seat] / (double)CV_SC_TARGET;
        out[S_TOTALS + seat] = f32(x < 1.0 ? x : 1.0);
    }
    out[S_DEALER + t->dealer] = 1.0f;
    if (!t->done) out[S_CURRENT + t->current] = 1.0f;
    out[S_STOCK_SIZE] = f32((CV_SC_STOCK - t->stock_pos) / (double)CV_SC_STOCK);
    out[S_LAST + (t->last_capturer < 0 ? 2 : t->last_capturer)] = 1.0f;
    out[S_PLAY] = f32(t->turn / (double)CV_SC_PLAYS);
    out[S_DECK] = t->deck == CV_SC_BRESCIANE ? 1.0f : 0.0f;
}

/* -- n tables ---------------------------------------------------------------------- */

void cv_scopa_reset_seeds(cv_scopa *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds, const uint8_t *decks,
                          int match, const uint8_t *where) {
    for (int64_t i = 0; i < n; i++)
        if (!where || where[i]) cv_scopa_deal_seed(t + i, py ? py + i : NULL, seeds[i], decks[i], match);
}

void cv_scopa_reset_deals(cv_scopa *t, cv_pyrandom *py, int64_t n, const int8_t *ids, const int8_t *dealers,
                          const uint64_t *seeds, const uint8_t *decks, int match, const int16_t *bases,
                          const uint8_t *where) {
    for (int64_t i = 0; i < n; i++) {
        if (where && !where[i]) continue;
        if (py) cv_pyrandom_seed(py + i, seeds[i]);
        else t[i].rng = seeds[i];
        cv_scopa_deal(t + i, ids + i * C, dealers[i], decks[i], match, bases ? bases[2 * i] : 0,
                      bases ? bases[2 * i + 1] : 0);
    }
}

/* -- the batched API (batch.h) -------------------------------------------------------- */

/* apply an action and pay the env's rewards (aec.py _act) when it ends a deal: with "points" each
 * deal's point difference, with "win" +1/0/-1 when the match (or the single deal) ends */
static void act_one(cv_scopa *t, cv_pyrandom *py, int action, int reward, float *r) {
    cv_scopa_act(t, py, action);
    if (!t->ended_deal) return;
    int d = 0;
    if (reward == CV_SC_REWARD_POINTS) d = (int)t->res_points[0] - (int)t->res_points[1];
    else if (t->done) {
        d = t->match ? t->totals[0] - t->totals[1] : (int)t->res_points[0] - (int)t->res_points[1];
        d = (d > 0) - (d < 0);
    }
    r[0] = (float)d;
    r[1] = (float)-d;
}

static void query_one(const cv_scopa *t, int8_t *current, uint8_t *mask) {
    *current = (int8_t)t->current;
    mask_one(t, mask);
}

static void blank_one(cv_scopa *t) { t->done = 1; } /* no deal yet: like a finished one */

CV_BATCH(cv_scopa, 2, CV_SC_ACTIONS, CV_SC_OBS_SIZE, cv_scopa_legal, act_one, query_one, cv_scopa_random_action,
         cv_scopa_observe, blank_one)
CV_BATCH_STATE(cv_scopa, CV_SC_STATE_SIZE, cv_scopa_state)

CV_BATCH_BOTS(cv_scopa, cv_scopa_bot_actions, cv_scopa_prior_many)

const cv_game cv_scopa_game = CV_GAME("Scopa", cv_scopa, 2, CV_SC_ACTIONS, CV_SC_OBS_SIZE, CV_SC_STATE_SIZE,
                                      CV_SC_PRIOR_SIZE);
