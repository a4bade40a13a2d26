/* Cavalloìcera in C11: see cavalloicera.h.  Each function names the engine.py
 * or actions.py code it mirrors; the differential test
 * (tests/test_core_cavalloicera.py) proves them identical. */
#include "cavalloicera.h"

#include <string.h>

#define C CV_CV_CARDS
#define BIT(c) (1ULL << (c))
#define RANK(c) ((c) % 13)
#define SUIT(c) ((c) / 13)
#define VALUE(c) ((RANK(c) < 10) ? RANK(c) + 1 : 0) /* cards.VALUE: A..10 -> 1..10, courts 0 */
#define NUMERALS 0x1ff8ffc7fe3ffULL                /* every card of value > 0 (ranks A..10 of each suit) */
#define SUIT_MASK(s) (0x1fffULL << (13 * (s)))
#define RANK_MASK(r) ((1ULL << (r)) | (1ULL << ((r) + 13)) | (1ULL << ((r) + 26)) | (1ULL << ((r) + 39)))
#define SWORDS 2
#define LA_MATA 27    /* 2-swords */
#define COINS_10 9    /* 10-coins */
#define CUPS_FANTE 23 /* F-cups */
#define SWORDS_ACE 26 /* the napula run: A..10 of swords */

static int lowest(uint64_t b) { return __builtin_ctzll(b); }
static int highest(uint64_t b) { return 63 - __builtin_clzll(b); }
static int count(uint64_t b) { return __builtin_popcountll(b); }

/* -- capture sets (engine.capture_sets, _table_sets; captures.capture_actions) -- */

/* the sets of table numerals by their sum, up to 10 (sums[0] = 1: the empty set), kept as the table
 * changes: a numeral of value v put down joins every set summing to at most 10 - v; taking it away
 * undoes that, sum by sum upwards (exact: the counts stay below 2**16, 4050 sets in the whole deck) */
static void sums_add(uint16_t sums[11], int v) {
    for (int s = 10; s >= v; s--) sums[s] += sums[s - v];
}

static void sums_remove(uint16_t sums[11], int v) {
    for (int s = v; s <= 10; s++) sums[s] -= sums[s - v];
}

static void table_sums(uint64_t table, uint16_t sums[11]) {
    memset(sums, 0, 11 * sizeof *sums);
    sums[0] = 1;
    for (uint64_t b = table & NUMERALS; b; b &= b - 1) sums_add(sums, VALUE(lowest(b)));
}

/* which hand cards can capture (CavalloiceraState.captures' keys): a numeral of value v when some
 * table numerals sum to v (one card: the rank match), a court when its rank lies on the table */
static uint64_t capture_cards(uint64_t table, const uint16_t sums[11], uint64_t hand) {
    uint64_t ok = 0;
    for (int v = 1; v <= 10; v++)
        if (sums[v]) ok |= RANK_MASK(v - 1);
    for (int r = 10; r < 13; r++)
        if (table & RANK_MASK(r)) ok |= RANK_MASK(r);
    return hand & ok;
}

/* cnt[t]: the sets of cards of cand summing to r whose smallest card is t (*next: those t with cnt > 0);
 * returns their total.  Cards above t are counted by sum first (ways), then t joins them. */
static uint32_t firsts(uint64_t cand, int r, uint32_t cnt[C], uint64_t *next) {
    uint32_t ways[11] = {1};
    uint32_t total = 0;
    *next = 0;
    while (cand) {
        int t = highest(cand), v = VALUE(t);
        cand &= ~BIT(t);
        if (v > r) continue;
        cnt[t] = ways[r - v];
        if (cnt[t]) *next |= BIT(t);
        total += cnt[t];
        for (int s = r; s >= v; s--) ways[s] += ways[s - v];
    }
    return total;
}

static int sum_of(uint64_t cards) {
    int s = 0;
    for (; cards; cards &= cards - 1) s += VALUE(lowest(cards));
    return s;
}

/* the legal capture sets of card on table that start with taken (the capture being built): their
 * number, and in cnt/next how many go on with each table card (CaptureBuilder's sets after _take) */
static uint32_t consistent(uint64_t table, int card, uint64_t taken, uint32_t cnt[C], uint64_t *next) {
    if (VALUE(card) == 0) { /* a court takes one table court of its rank */
        *next = taken ? 0 : table & RANK_MASK(RANK(card));
        for (uint64_t b = *next; b; b &= b - 1) cnt[lowest(b)] = 1;
        return taken ? 1 : (uint32_t)count(*next);
    }
    int r = VALUE(card) - sum_of(taken);
    if (r == 0) {
        *next = 0;
        return 1;
    }
    uint64_t above = taken ? ~((BIT(highest(taken)) << 1) - 1) : ~0ULL; /* sets list cards by increasing id */
    return firsts(table & NUMERALS & above, r, cnt, next);
}

uint32_t cv_cavalloicera_count_sets(const cv_cavalloicera *t, int card) {
    uint32_t cnt[C];
    uint64_t next;
    return consistent(t->table, card, 0, cnt, &next);
}

/* the k-th (from 0) legal capture set of card starting with taken, in increasing order of the sorted
 * tuples (legal_moves' order): the next card is the smallest whose sets still reach past k */
uint64_t cv_cavalloicera_kth_set(uint64_t table, int card, uint64_t taken, uint32_t k) {
    uint32_t cnt[C];
    uint64_t next;
    for (;;) {
        consistent(table, card, taken, cnt, &next);
        if (!next) return taken;
        for (uint64_t b = next; b; b &= b - 1) {
            int c = lowest(b);
            if (k < cnt[c]) {
                taken |= BIT(c);
                break;
            }
            k -= cnt[c];
        }
        if (VALUE(card) == 0) return taken;
    }
}

/* -- the deal (engine.random_deal, CavalloiceraState.__init__) -------------------- */

static void refresh(cv_cavalloicera *t) { /* the per-turn cache: which hand cards can capture */
    t->caps = t->done ? 0 : capture_cards(t->table, t->sums, t->hands[t->current]);
}

void cv_cavalloicera_deal(cv_cavalloicera *t, const int8_t ids[C], int dealer) {
    uint64_t rng = t->rng; /* a deal from ids keeps the table's generator */
    memset(t, 0, sizeof *t);
    t->rng = rng;
    for (int k = 0; k < CV_CV_TURNS; k++) t->hands[k / CV_CV_HAND] |= BIT(ids[k]);
    for (int k = CV_CV_TURNS; k < C; k++) t->table |= BIT(ids[k]);
    t->dealer = (uint8_t)dealer;
    t->current = (uint8_t)((dealer + 1) % CV_CV_SEATS);
    t->build_card = t->pending_card = t->last_capturer = t->prev_placed = -1;
    memset(t->scored, -1, sizeof t->scored);
    table_sums(t->table, t->sums);
    refresh(t);
}

static uint32_t below(cv_cavalloicera *t, cv_pyrandom *py, uint32_t n) { /* rng._randbelow(n) */
    return py ? cv_pyrandom_below(py, n) : cv_fast_below(&t->rng, n);
}

void cv_cavalloicera_deal_seed(cv_cavalloicera *t, cv_pyrandom *py, uint64_t seed) {
    int8_t ids[C];
    if (py) cv_pyrandom_seed(py, seed);
    else t->rng = seed;
    cv_shuffled_ids(ids, C, py, &t->rng);
    int dealer = (int)below(t, py, CV_CV_SEATS); /* rng.randrange(4) */
    cv_cavalloicera_deal(t, ids, dealer);        /* keeps t->rng */
}

/* -- the rules (CavalloiceraState.play, _finish; CavalloiceraActions.step) ------- */

static void finish(cv_cavalloicera *t) { /* the last capturer takes the table, with no bonus */
    if (t->last_capturer < 0) {
        t->unclaimed = t->table;
    } else {
        t->piles[t->last_capturer & 1] |= t->table;
        t->table = 0;
        table_sums(0, t->sums);
    }
    t->done = 1;
}

static void score_capture(cv_cavalloicera *t, int seat, int card, uint64_t capture) {
    int n = count(capture), team = seat & 1;
    t->scored[0] = t->table == 0;                                            /* scua: the table swept */
    t->scored[1] = n == 1 && t->prev_placed >= 0 && capture == BIT(t->prev_placed); /* picada */
    t->scored[2] = (capture & ~SUIT_MASK(SUIT(card))) == 0;                  /* simili: all one suit */
    t->scored[3] = n >= 3;                                                   /* quadriglia */
    for (int k = 0; k < 4; k++) t->bonuses[team][k] += (uint8_t)t->scored[k];
    t->piles[team] |= BIT(card) | capture;
    t->last_capturer = (int8_t)seat;
    t->prev_placed = -1;
}

void cv_cavalloicera_play(cv_cavalloicera *t, int card, uint64_t capture) {
    int seat = t->current;
    t->hands[seat] &= ~BIT(card);
    if (capture) {
        t->table &= ~capture;
        for (uint64_t b = capture & NUMERALS; b; b &= b - 1) sums_remove(t->sums, VALUE(lowest(b)));
        score_capture(t, seat, card, capture);
    } else {
        t->table |= BIT(card);
        if (VALUE(card)) sums_add(t->sums, VALUE(card));
        t->prev_placed = (int8_t)card;
        memset(t->scored, -1, sizeof t->scored);
    }
    t->move_seat[t->turn] = (int8_t)seat;
    t->move_card[t->turn] = (int8_t)card;
    t->move_capture[t->turn] = capture;
    t->turn++;
    t->current = (uint8_t)((seat + 1) & 3);
    t->build_card = -1;
    t->build_taken = t->take_next = 0;
    t->pending_card = -1;
    t->completed = 1;
    if (t->turn == CV_CV_TURNS) finish(t);
    refresh(t);
}

static void build(cv_cavalloicera *t) { /* CaptureBuilder._build: play the set once one is left */
    uint32_t cnt[C];
    int card = t->build_card;
    uint64_t match = t->table & RANK_MASK(RANK(card));
    if (!t->build_taken && VALUE(card) && t->sums[VALUE(card)] == 1 && match) {
        cv_cavalloicera_play(t, card, match); /* the one set: the rank match (a set of its own) */
        return;
    }
    if (consistent(t->table, t->build_card, t->build_taken, cnt, &t->take_next) == 1)
        cv_cavalloicera_play(t, t->build_card, cv_cavalloicera_kth_set(t->table, t->build_card, t->build_taken, 0));
}

void cv_cavalloicera_act(cv_cavalloicera *t, int action) {
    t->completed = 0;
    if (action < CV_CV_CAPTURE) {
        cv_cavalloicera_play(t, action, 0);
        return;
    }
    if (action < CV_CV_TAKE) {
        t->build_card = (int8_t)(action - CV_CV_CAPTURE);
        t->build_taken = 0;
    } else {
        t->build_taken |= BIT(action - CV_CV_TAKE);
    }
    build(t);
}

int cv_cavalloicera_legal(const cv_cavalloicera *t, int action) {
    if (t->done || action < 0 || action >= CV_CV_ACTIONS) return 0;
    if (t->build_card >= 0) return action >= CV_CV_TAKE && (t->take_next >> (action - CV_CV_TAKE) & 1);
    if (action < CV_CV_CAPTURE) return (int)(t->hands[t->current] >> action & 1);
    if (action < CV_CV_TAKE) return (int)(t->caps >> (action - CV_CV_CAPTURE) & 1);
    return 0;
}

/* -- scoring (engine.score, napula, CavalloiceraState.returns) ------------------- */

static int napula(uint64_t pile) {
    int n = 0;
    while (n < 10 && (pile >> (SWORDS_ACE + n) & 1)) n++;
    return n >= 3 ? n : 0;
}

int cv_cavalloicera_score(const cv_cavalloicera *t, int points[2], int breakdown[2][CV_CV_KEYS], int cards[2]) {
    int swords[2];
    for (int team = 0; team < 2; team++) {
        cards[team] = count(t->piles[team]);
        swords[team] = count(t->piles[team] & SUIT_MASK(SWORDS));
    }
    for (int team = 0; team < 2; team++) {
        int o = 1 - team, *b = breakdown[team];
        uint64_t held = t->piles[team];
        for (int k = 0; k < 4; k++) b[k] = t->bonuses[team][k];
        b[4] = cards[team] > cards[o] ? 2 : 0;
        b[5] = swords[team] > swords[o];
        b[6] = (int)(held >> LA_MATA & 1);
        b[7] = (int)(held >> COINS_10 & 1);
        b[8] = (int)(held >> CUPS_FANTE & 1);
        b[9] = napula(held);
        points[team] = 0;
        for (int k = 0; k < CV_CV_KEYS; k++) points[team] += b[k];
    }
    return points[0] > points[1] ? 0 : points[1] > points[0] ? 1 : -1;
}

void cv_cavalloicera_returns(const cv_cavalloicera *t, int reward, float out[4]) {
    int points[2], breakdown[2][CV_CV_KEYS], cards[2];
    cv_cavalloicera_score(t, points, breakdown, cards);
    int d = points[0] - points[1];
    if (reward == CV_CV_REWARD_WIN) d = (d > 0) - (d < 0);
    out[0] = out[2] = (float)d;
    out[1] = out[3] = (float)-d;
}

/* -- random moves (engine.random_playout: rng.choice(state.legal_moves()), as actions) -- */

/* a move drawn among legal_moves(): place c, then c's capture sets, card by card in hand order */
static int random_move(cv_cavalloicera *t, cv_pyrandom *py) {
    uint64_t hand = t->hands[t->current];
    uint32_t total = (uint32_t)count(hand), sets[C];
    for (uint64_t b = t->caps; b; b &= b - 1) {
        int c = lowest(b);
        sets[c] = VALUE(c) ? t->sums[VALUE(c)] : (uint32_t)count(t->table & RANK_MASK(RANK(c)));
        total += sets[c];
    }
    uint32_t k = below(t, py, total);
    for (uint64_t b = hand; b; b &= b - 1) {
        int c = lowest(b);
        if (k == 0) return c;
        k--;
        if (!(t->caps >> c & 1)) continue;
        if (k < sets[c]) {
            t->pending = cv_cavalloicera_kth_set(t->table, c, 0, k);
            t->pending_card = (int8_t)c;
            return CV_CV_CAPTURE + c;
        }
        k -= sets[c];
    }
    return -1; /* not reached */
}

static int pending_fits(const cv_cavalloicera *t) { /* the drawn set still starts with the cards taken */
    uint64_t taken = t->build_taken;
    if (t->pending_card != t->build_card || (t->pending & taken) != taken) return 0;
    return !taken || !(t->pending & ~taken & ((BIT(highest(taken)) << 1) - 1));
}

int cv_cavalloicera_random_action(cv_cavalloicera *t, cv_pyrandom *py) {
    if (t->done) return -1;
    if (t->build_card < 0) return random_move(t, py);
    if (!pending_fits(t)) { /* a capture started elsewhere: draw one of its sets */
        uint32_t cnt[C];
        uint64_t next;
        uint32_t total = consistent(t->table, t->build_card, t->build_taken, cnt, &next);
        t->pending = cv_cavalloicera_kth_set(t->table, t->build_card, t->build_taken, below(t, py, total));
        t->pending_card = t->build_card;
    }
    return CV_CV_TAKE + lowest(t->pending & ~t->build_taken);
}

/* -- the legal-action mask (CavalloiceraActions.legal_mask) ------------------------ */

#define B(b, k) (((b) >> (k)) & 1)
#define S1(b) {B(b, 0), B(b, 1), B(b, 2), B(b, 3), B(b, 4), B(b, 5), B(b, 6), B(b, 7)}
#define S4(b) S1(b), S1((b) + 1), S1((b) + 2), S1((b) + 3)
#define S16(b) S4(b), S4((b) + 4), S4((b) + 8), S4((b) + 12)
#define S64(b) S16(b), S16((b) + 16), S16((b) + 32), S16((b) + 48)
static const uint8_t SPREAD[256][8] = {S64(0), S64(64), S64(128), S64(192)};

static void spread52(uint64_t bits, uint8_t *out) { /* 52 bytes 0/1 from 52 bits */
    for (int k = 0; k < 6; k++) memcpy(out + 8 * k, SPREAD[bits >> (8 * k) & 255], 8);
    memcpy(out + 48, SPREAD[bits >> 48 & 15], 4);
}

void cv_cavalloicera_mask(const cv_cavalloicera *t, uint8_t *mask) {
    if (t->done) {
        memset(mask, 0, CV_CV_ACTIONS);
    } else if (t->build_card < 0) {
        spread52(t->hands[t->current], mask);
        spread52(t->caps, mask + CV_CV_CAPTURE);
        memset(mask + CV_CV_TAKE, 0, C);
    } else {
        memset(mask, 0, CV_CV_TAKE);
        spread52(t->take_next, mask + CV_CV_TAKE); /* the table cards a take may name */
    }
}

/* -- the observation cavalloicera-obs/1 (encoding.py: OBS_BLOCKS, Features) ------ */

enum {
    O_HAND = 0, O_TABLE = 52, O_PILE_OURS = 104, O_PILE_THEIRS = 156, O_PLAYED_BY = 208, O_PLAY_TIME = 416,
    O_UNSEEN = 468, O_PREV = 520, O_CAPTURE_CARD = 572, O_CAPTURE_TAKEN = 624, O_HAND_SIZES = 676,
    O_LAST_CAPTURER = 680, O_BONUSES = 685, O_CARDS = 693, O_SWORDS = 695, O_TURN = 697, O_DEALER = 698
};

static void set_bits(float *out, uint64_t bits) {
    for (; bits; bits &= bits - 1) out[lowest(bits)] = 1.0f;
}

/* a count over its maximum, as Python divides (double) and numpy stores (float32) */
static float ratio(int count, int max) { return (float)((double)count / (double)max); }

static void observe_counts(const cv_cavalloicera *t, int me, float *out) { /* the small blocks at the end */
    int team = me & 1;
    for (int k = 0; k < 4; k++) {
        int seat = (me + k) & 3;
        out[O_HAND_SIZES + k] = ratio(count(t->hands[seat]), CV_CV_HAND);
        out[O_LAST_CAPTURER + k] = t->last_capturer == seat ? 1.0f : 0.0f;
        out[O_DEALER + k] = t->dealer == seat ? 1.0f : 0.0f;
    }
    out[O_LAST_CAPTURER + 4] = t->last_capturer < 0 ? 1.0f : 0.0f;
    for (int side = 0; side < 2; side++) { /* ours, then theirs */
        int tm = team ^ side;
        for (int k = 0; k < 4; k++) out[O_BONUSES + 4 * side + k] = ratio(t->bonuses[tm][k], 10);
        out[O_CARDS + side] = ratio(count(t->piles[tm]), C);
        out[O_SWORDS + side] = ratio(count(t->piles[tm] & SUIT_MASK(SWORDS)), 13);
    }
    out[O_TURN] = ratio(t->turn, CV_CV_TURNS);
}

void cv_cavalloicera_observe(const cv_cavalloicera *t, int me, float *out) {
    int team = me & 1;
    memset(out, 0, CV_CV_OBS_SIZE * sizeof *out);
    set_bits(out + O_HAND, t->hands[me]);
    set_bits(out + O_TABLE, t->table);
    set_bits(out + O_PILE_OURS, t->piles[team]);
    set_bits(out + O_PILE_THEIRS, t->piles[1 - team]);
    for (int k = 0; k < t->turn; k++) { /* who played each card, and when */
        int rel = (t->move_seat[k] - me) & 3, c = t->move_card[k];
        out[O_PLAYED_BY + rel * C + c] = 1.0f;
        out[O_PLAY_TIME + c] = ratio(k + 1, CV_CV_TURNS);
    }
    uint64_t others = 0; /* unseen: the cards in the other hands */
    for (int seat = 0; seat < CV_CV_SEATS; seat++)
        if (seat != me) others |= t->hands[seat];
    set_bits(out + O_UNSEEN, others);
    if (t->prev_placed >= 0) out[O_PREV + t->prev_placed] = 1.0f;
    if (t->build_card >= 0 && me == t->current) {
        out[O_CAPTURE_CARD + t->build_card] = 1.0f;
        set_bits(out + O_CAPTURE_TAKEN, t->build_taken);
    }
    observe_counts(t, me, out);
}

/* -- the full-information vector cavalloicera-state/1 (encoding.py: _STATE_BLOCKS, Features) -- */

enum {
    S_HANDS = 0, S_TABLE = 208, S_PILES = 260, S_PLAYED_BY = 364, S_PLAY_TIME = 572, S_UNSEEN = 624,
    S_PREV = 832, S_CAPTURE_CARD = 884, S_CAPTURE_TAKEN = 936, S_HAND_SIZES = 988, S_LAST_CAPTURER = 992,
    S_BONUSES = 997, S_CARDS = 1005, S_SWORDS = 1007, S_TURN = 1009, S_DEALER = 1010, S_CURRENT = 1014
};

void cv_cavalloicera_state(const cv_cavalloicera *t, float *out) {
    memset(out, 0, CV_CV_STATE_SIZE * sizeof *out);
    uint64_t dealt = t->hands[0] | t->hands[1] | t->hands[2] | t->hands[3];
    for (int seat = 0; seat < CV_CV_SEATS; seat++) {
        set_bits(out + S_HANDS + seat * C, t->hands[seat]);
        set_bits(out + S_UNSEEN + seat * C, dealt & ~t->hands[seat]); /* the cards in the other hands */
        out[S_HAND_SIZES + seat] = ratio(count(t->hands[seat]), CV_CV_HAND);
        out[S_LAST_CAPTURER + seat] = t->last_capturer == seat ? 1.0f : 0.0f;
        out[S_DEALER + seat] = t->dealer == seat ? 1.0f : 0.0f;
    }
    out[S_LAST_CAPTURER + 4] = t->last_capturer < 0 ? 1.0f : 0.0f;
    if (!t->done) out[S_CURRENT + t->current] = 1.0f;
    set_bits(out + S_TABLE, t->table);
    for (int team = 0; team < 2; team++) {
        set_bits(out + S_PILES + team * C, t->piles[team]);
        for (int k = 0; k < 4; k++) out[S_BONUSES + 4 * team + k] = ratio(t->bonuses[team][k], 10);
        out[S_CARDS + team] = ratio(count(t->piles[team]), C);
        out[S_SWORDS + team] = ratio(count(t->piles[team] & SUIT_MASK(SWORDS)), 13);
    }
    for (int k = 0; k < t->turn; k++) { /* who played each card, and when */
        int c = t->move_card[k];
        out[S_PLAYED_BY + t->move_seat[k] * C + c] = 1.0f;
        out[S_PLAY_TIME + c] = ratio(k + 1, CV_CV_TURNS);
    }
    if (t->prev_placed >= 0) out[S_PREV + t->prev_placed] = 1.0f;
    if (t->build_card >= 0) { /* the capture being built, whoever looks (the state hides nothing) */
        out[S_CAPTURE_CARD + t->build_card] = 1.0f;
        set_bits(out + S_CAPTURE_TAKEN, t->build_taken);
    }
    out[S_TURN] = ratio(t->turn, CV_CV_TURNS);
}

/* -- n tables ------------------------------------------------------------------ */

void cv_cavalloicera_reset_seeds(cv_cavalloicera *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds,
                                 const uint8_t *where) {
    for (int64_t i = 0; i < n; i++)
        if (!where || where[i]) cv_cavalloicera_deal_seed(t + i, py ? py + i : NULL, seeds[i]);
}

void cv_cavalloicera_reset_deals(cv_cavalloicera *t, int64_t n, const int8_t *ids, const int8_t *dealers,
                                 const uint8_t *where) {
    for (int64_t i = 0; i < n; i++)
        if (!where || where[i]) cv_cavalloicera_deal(t + i, ids + i * C, dealers[i]);
}

/* -- the batched API (batch.h) ---------------------------------------------------- */

/* apply an action and pay the returns when it ends the deal (the step's act) */
static void act_one(cv_cavalloicera *t, cv_pyrandom *py, int action, int reward, float *rewards) {
    (void)py;
    cv_cavalloicera_act(t, action);
    if (t->done) cv_cavalloicera_returns(t, reward, rewards);
}

static void query_one(const cv_cavalloicera *t, int8_t *current, uint8_t *mask) {
    *current = (int8_t)t->current;
    cv_cavalloicera_mask(t, mask);
}

static void blank_one(cv_cavalloicera *t) { /* no deal yet: like a finished one */
    t->done = 1;
    t->build_card = -1;
}

CV_BATCH(cv_cavalloicera, CV_CV_SEATS, CV_CV_ACTIONS, CV_CV_OBS_SIZE, cv_cavalloicera_legal, act_one, query_one,
         cv_cavalloicera_random_action, cv_cavalloicera_observe, blank_one)
CV_BATCH_STATE(cv_cavalloicera, CV_CV_STATE_SIZE, cv_cavalloicera_state)

const cv_game cv_cavalloicera_game = CV_GAME("Cavalloìcera", cv_cavalloicera, CV_CV_SEATS, CV_CV_ACTIONS,
                                             CV_CV_OBS_SIZE, CV_CV_STATE_SIZE);
