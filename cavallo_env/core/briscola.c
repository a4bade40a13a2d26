/* Two-player Briscola in C11: see briscola.h.  Each function names the
 * engine.py code it mirrors; the differential test (tests/test_core_briscola.py)
 * proves them identical. */
#include "briscola.h"

#include <string.h>

#define C CV_BR_CARDS
#define SUIT(c) ((c) / 10)

/* points and strength by card id (cards.py POINTS, STRENGTH) */
#define RANKS10(a, b, c, d, e, f, g, h, i, j) a, b, c, d, e, f, g, h, i, j
#define FOUR_SUITS(r) r, r, r, r
const uint8_t CV_BR_POINTS[C] = {FOUR_SUITS(RANKS10(11, 0, 10, 0, 0, 0, 0, 2, 3, 4))};
const uint8_t CV_BR_STRENGTH[C] = {FOUR_SUITS(RANKS10(9, 0, 8, 1, 2, 3, 4, 5, 6, 7))};

/* -- the deal (engine.random_deal, BriscolaState.__init__) -------------------- */

static void clear(cv_briscola *t) {
    uint64_t rng = t->rng; /* a deal from ids keeps the table's generator */
    memset(t, 0, sizeof *t);
    t->rng = rng;
    t->trump_holder = -1;
    t->lead = -1;
    t->last_winner = -1;
}

void cv_briscola_deal(cv_briscola *t, const int8_t ids[C], int leader, int deck) {
    clear(t);
    for (int seat = 0; seat < 2; seat++) {
        memcpy(t->hands[seat], ids + seat * CV_BR_HAND, CV_BR_HAND);
        t->hand_len[seat] = CV_BR_HAND;
        for (int k = 0; k < CV_BR_HAND; k++) t->hand_bits[seat] |= 1ULL << ids[seat * CV_BR_HAND + k];
    }
    t->trump = ids[6];
    t->trump_suit = (int8_t)SUIT(ids[6]);
    memcpy(t->stock, ids + 7, CV_BR_STOCK);
    t->leader = t->current = (uint8_t)leader;
    t->deck = (uint8_t)deck;
}

void cv_briscola_deal_seed(cv_briscola *t, cv_pyrandom *py, uint64_t seed, int deck) {
    int8_t ids[C];
    if (py) cv_pyrandom_seed(py, seed);
    else t->rng = seed;
    cv_shuffled_ids(ids, C, py, &t->rng);
    int leader = (int)(py ? cv_pyrandom_below(py, 2) : cv_fast_below(&t->rng, 2)); /* rng.randrange(2) */
    cv_briscola_deal(t, ids, leader, deck); /* keeps t->rng */
}

/* -- the rules (BriscolaState.legal_moves, play, trick_winner, returns) -------- */

int cv_briscola_legal(const cv_briscola *t, int card) {
    if (t->done || card < 0 || card >= C) return 0;
    return (int)(t->hand_bits[t->current] >> card & 1);
}

static int beats(int lead, int card, int trump_suit) { /* engine._beats_table, without branches */
    int same = SUIT(card) == SUIT(lead);
    return (same & (CV_BR_STRENGTH[card] > CV_BR_STRENGTH[lead])) | (!same & (SUIT(card) == trump_suit));
}

int cv_briscola_trick_winner(int lead, int card, int trump_suit, int leader) {
    return beats(lead, card, trump_suit) ? 1 - leader : leader;
}

static void take_from_hand(cv_briscola *t, int seat, int card) { /* list.remove: order kept */
    int8_t *hand = t->hands[seat]; /* 3 slots: the ones past hand_len are stale and never read */
    int at0 = hand[0] == card, before2 = at0 | (hand[1] == card);
    hand[0] = at0 ? hand[1] : hand[0];
    hand[1] = before2 ? hand[2] : hand[1];
    t->hand_len[seat]--;
    t->hand_bits[seat] &= ~(1ULL << card);
}

static void give(cv_briscola *t, int seat, int card) {
    t->hands[seat][t->hand_len[seat]++] = (int8_t)card;
    t->hand_bits[seat] |= 1ULL << card;
}

static void draw(cv_briscola *t, int winner) { /* the winner first; the trump card last */
    if (t->drawn >= CV_BR_STOCK) return;
    give(t, winner, t->stock[t->drawn]);
    if (CV_BR_STOCK - t->drawn > 1) {
        give(t, 1 - winner, t->stock[t->drawn + 1]);
        t->drawn += 2;
    } else {
        give(t, 1 - winner, t->trump);
        t->drawn = CV_BR_STOCK;
        t->trump_holder = (int8_t)(1 - winner);
    }
}

void cv_briscola_play(cv_briscola *t, int card) {
    int seat = t->current;
    take_from_hand(t, seat, card);
    t->move_seat[t->turn] = (int8_t)seat;
    t->move_card[t->turn] = (int8_t)card;
    t->turn++;
    t->played[seat] |= 1ULL << card;
    t->last_winner = -1;
    if (t->lead < 0) {
        t->lead = (int8_t)card;
        t->current = (uint8_t)(1 - seat);
        return;
    }
    int lead = t->lead;
    t->lead = -1;
    int winner = beats(lead, card, t->trump_suit) ? seat : 1 - seat;
    t->piles[winner] |= (1ULL << lead) | (1ULL << card);
    t->points[winner] += CV_BR_POINTS[lead] + CV_BR_POINTS[card];
    t->tricks[winner]++;
    draw(t, winner);
    t->leader = t->current = (uint8_t)winner;
    t->last_winner = (int8_t)winner;
    if (t->hand_len[winner] == 0) t->done = 1;
}

void cv_briscola_returns(const cv_briscola *t, int reward, float out[2]) {
    int d = (int)t->points[0] - (int)t->points[1];
    if (reward == CV_BR_REWARD_WIN) d = (d > 0) - (d < 0);
    out[0] = (float)d;
    out[1] = (float)-d;
}

int cv_briscola_random_move(cv_briscola *t, cv_pyrandom *py) { /* engine.random_playout */
    if (t->done) return -1;
    int n = t->hand_len[t->current];
    int k = py ? (int)(cv_pyrandom_random(py) * n) : (int)cv_fast_below(&t->rng, (uint32_t)n);
    return t->hands[t->current][k];
}

/* -- the observation briscola-obs/1 (encoding.py: Features, OBS_BLOCKS) -------- */

enum {
    O_HAND = 0, O_TRUMP_CARD = 40, O_TRUMP_SUIT = 80, O_TRICK = 84, O_WON_MINE = 124, O_WON_THEIRS = 164,
    O_PLAYED_MINE = 204, O_PLAYED_THEIRS = 244, O_KNOWN_THEIRS = 284, O_UNSEEN = 324, O_I_LEAD = 364,
    O_MY_TURN = 365, O_STOCK_SIZE = 366, O_UNDER = 367, O_HAND_SIZES = 368, O_POINTS = 370, O_TRICKS = 372,
    O_TURN = 374, O_DECK = 375
};

static void set_bits(float *out, uint64_t bits) {
    for (; bits; bits &= bits - 1) out[__builtin_ctzll(bits)] = 1.0f;
}

/* a count over its maximum, as Python divides (double) and numpy stores (float32) */
static float ratio(int count, int max) { return (float)((double)count / (double)max); }

static int trump_known_in(const cv_briscola *t, int seat) {
    return t->trump_holder == seat && (t->hand_bits[seat] >> t->trump & 1);
}

void cv_briscola_observe(const cv_briscola *t, int me, float *out) {
    int other = 1 - me;
    uint64_t mine = t->hand_bits[me], trump_bit = 1ULL << t->trump, all = (1ULL << C) - 1;
    memset(out, 0, CV_BR_OBS_SIZE * sizeof *out);
    set_bits(out + O_HAND, mine);
    out[O_TRUMP_CARD + t->trump] = 1.0f;
    out[O_TRUMP_SUIT + t->trump_suit] = 1.0f;
    if (t->lead >= 0) out[O_TRICK + t->lead] = 1.0f;
    set_bits(out + O_WON_MINE, t->piles[me]);
    set_bits(out + O_WON_THEIRS, t->piles[other]);
    set_bits(out + O_PLAYED_MINE, t->played[me]);
    set_bits(out + O_PLAYED_THEIRS, t->played[other]);
    if (trump_known_in(t, other)) out[O_KNOWN_THEIRS + t->trump] = 1.0f;
    set_bits(out + O_UNSEEN, all & ~(trump_bit | t->played[0] | t->played[1] | mine));
    out[O_I_LEAD] = t->leader == me ? 1.0f : 0.0f;
    out[O_MY_TURN] = !t->done && t->current == me ? 1.0f : 0.0f;
    out[O_STOCK_SIZE] = ratio(CV_BR_STOCK - t->drawn, CV_BR_STOCK);
    out[O_UNDER] = t->trump_holder < 0 ? 1.0f : 0.0f;
    out[O_HAND_SIZES] = ratio(t->hand_len[me], CV_BR_HAND);
    out[O_HAND_SIZES + 1] = ratio(t->hand_len[other], CV_BR_HAND);
    out[O_POINTS] = ratio(t->points[me], CV_BR_TOTAL_POINTS);
    out[O_POINTS + 1] = ratio(t->points[other], CV_BR_TOTAL_POINTS);
    out[O_TRICKS] = ratio(t->tricks[me], CV_BR_TRICKS);
    out[O_TRICKS + 1] = ratio(t->tricks[other], CV_BR_TRICKS);
    out[O_TURN] = ratio(t->turn, CV_BR_MOVES);
    out[O_DECK] = t->deck == CV_BR_BRESCIANE ? 1.0f : 0.0f;
}

/* -- the full-information vector briscola-state/1 (encoding.py: STATE_BLOCKS) -- */

enum {
    S_HANDS = 0, S_STOCK = 80, S_STOCK_ORDER = 120, S_TRUMP_CARD = 160, S_TRUMP_SUIT = 200, S_KNOWN = 204,
    S_UNSEEN = 284, S_TRICK = 364, S_PILES = 404, S_PLAYED = 484, S_LEADER = 564, S_CURRENT = 566,
    S_STOCK_SIZE = 568, S_UNDER = 569, S_HAND_SIZES = 570, S_POINTS = 572, S_TRICKS = 574, S_TURN = 576,
    S_DECK = 577
};

void cv_briscola_state(const cv_briscola *t, float *out) {
    uint64_t trump_bit = 1ULL << t->trump, all = (1ULL << C) - 1, played = t->played[0] | t->played[1];
    memset(out, 0, CV_BR_STATE_SIZE * sizeof *out);
    for (int k = t->drawn; k < CV_BR_STOCK; k++) {
        out[S_STOCK + t->stock[k]] = 1.0f;
        out[S_STOCK_ORDER + t->stock[k]] = ratio(k + 1, CV_BR_STOCK); /* its place in the deal's stock */
    }
    out[S_TRUMP_CARD + t->trump] = 1.0f;
    out[S_TRUMP_SUIT + t->trump_suit] = 1.0f;
    if (t->lead >= 0) out[S_TRICK + t->lead] = 1.0f;
    for (int seat = 0; seat < 2; seat++) {
        set_bits(out + S_HANDS + seat * C, t->hand_bits[seat]);
        if (trump_known_in(t, seat)) out[S_KNOWN + seat * C + t->trump] = 1.0f;
        set_bits(out + S_UNSEEN + seat * C, all & ~(trump_bit | played | t->hand_bits[seat]));
        set_bits(out + S_PILES + seat * C, t->piles[seat]);
        set_bits(out + S_PLAYED + seat * C, t->played[seat]);
        out[S_HAND_SIZES + seat] = ratio(t->hand_len[seat], CV_BR_HAND);
        out[S_POINTS + seat] = ratio(t->points[seat], CV_BR_TOTAL_POINTS);
        out[S_TRICKS + seat] = ratio(t->tricks[seat], CV_BR_TRICKS);
    }
    out[S_LEADER + t->leader] = 1.0f;
    if (!t->done) out[S_CURRENT + t->current] = 1.0f;
    out[S_STOCK_SIZE] = ratio(CV_BR_STOCK - t->drawn, CV_BR_STOCK);
    out[S_UNDER] = t->trump_holder < 0 ? 1.0f : 0.0f;
    out[S_TURN] = ratio(t->turn, CV_BR_MOVES);
    out[S_DECK] = t->deck == CV_BR_BRESCIANE ? 1.0f : 0.0f;
}

/* -- n tables ---------------------------------------------------------------- */

void cv_briscola_reset_seeds(cv_briscola *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds,
                             const uint8_t *decks, const uint8_t *where) {
    for (int64_t i = 0; i < n; i++)
        if (!where || where[i]) cv_briscola_deal_seed(t + i, py ? py + i : NULL, seeds[i], decks[i]);
}

void cv_briscola_reset_deals(cv_briscola *t, int64_t n, const int8_t *ids, const int8_t *leaders,
                             const uint8_t *decks, const uint8_t *where) {
    for (int64_t i = 0; i < n; i++)
        if (!where || where[i]) cv_briscola_deal(t + i, ids + i * C, leaders[i], decks[i]);
}

/* SPREAD[b]: the 8 bits of b as 8 bytes 0/1, lowest bit first (a legal mask, 8 cards at a time) */
#define BIT(b, k) (((b) >> (k)) & 1)
#define S1(b) {BIT(b, 0), BIT(b, 1), BIT(b, 2), BIT(b, 3), BIT(b, 4), BIT(b, 5), BIT(b, 6), BIT(b, 7)}
#define S4(b) S1(b), S1((b) + 1), S1((b) + 2), S1((b) + 3)
#define S16(b) S4(b), S4((b) + 4), S4((b) + 8), S4((b) + 12)
#define S64(b) S16(b), S16((b) + 16), S16((b) + 32), S16((b) + 48)
static const uint8_t SPREAD[256][8] = {S64(0), S64(64), S64(128), S64(192)};

static void query_one(const cv_briscola *t, int8_t *current, uint8_t *mask) {
    uint64_t bits = t->done ? 0 : t->hand_bits[t->current];
    *current = (int8_t)t->current;
    for (int k = 0; k < C / 8; k++) memcpy(mask + 8 * k, SPREAD[bits >> (8 * k) & 255], 8);
}

/* play a card and pay the returns when it ends the deal (the step's act) */
static void act_one(cv_briscola *t, cv_pyrandom *py, int card, int reward, float *rewards) {
    (void)py;
    cv_briscola_play(t, card);
    if (t->done) cv_briscola_returns(t, reward, rewards);
}

static void blank_one(cv_briscola *t) { t->done = 1; } /* no deal yet: like a finished one */

CV_BATCH(cv_briscola, 2, C, CV_BR_OBS_SIZE, cv_briscola_legal, act_one, query_one, cv_briscola_random_move,
         cv_briscola_observe, blank_one)
CV_BATCH_STATE(cv_briscola, CV_BR_STATE_SIZE, cv_briscola_state)

const cv_game cv_briscola_game = CV_GAME("Briscola", cv_briscola, 2, C, CV_BR_OBS_SIZE, CV_BR_STATE_SIZE);
