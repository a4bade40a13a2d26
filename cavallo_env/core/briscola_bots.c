/* Briscola's bots and prior in C11: see briscola_bots.h.  Each function names
 * the bots.py / endgame.py / prior.py code it mirrors; the scores are computed
 * in double with the Python expressions' order of operations, so they are the
 * same numbers and the same ties. */
#include "briscola_bots.h"

#include <limits.h>
#include <string.h>

#define C CV_BR_CARDS
#define SUIT(c) ((c) / 10)
#define RANK(c) ((c) % 10)
#define CARICO(c) (RANK(c) == 0 || RANK(c) == 2) /* an A or a 3 */
#define BIT(c) (1ULL << (c))

/* HeuristicBot's default parameters (bots.py HeuristicBot.__init__) */
static const double TRUMP_BASE = 4.0, TRUMP_SLOPE = 0.6, CARICO_KEEP = 2.0, LEAD_TAKE_WEIGHT = 1.0,
                    TRUMP_POINT_RISK = 0.6;
static const int WIN_BONUS = 1000; /* endgame._solve's bonus: win first, then points */

static int beats(int lead, int card, int tsuit) { /* engine.BEATS[tsuit][lead * 40 + card] */
    if (SUIT(card) == SUIT(lead)) return CV_BR_STRENGTH[card] > CV_BR_STRENGTH[lead];
    return SUIT(card) == tsuit;
}

static int popcount(uint64_t x) { return __builtin_popcountll(x); }

/* -- what the seat to play knows (bots.Know.from_state) ------------------------ */

typedef struct {
    uint64_t hand, unseen; /* unseen: not played, not in the hand, not the trump card (ids ascending) */
    int trump, tsuit, lead, opp_known, opp_size, stock_size, mine, theirs;
} know;

static void know_of(const cv_briscola *t, know *k) {
    int me = t->current;
    uint64_t played = t->played[0] | t->played[1], all = BIT(C) - 1;
    k->hand = t->hand_bits[me];
    k->trump = t->trump;
    k->tsuit = t->trump_suit;
    k->lead = t->lead;
    k->stock_size = CV_BR_STOCK - t->drawn;
    k->mine = t->points[me];
    k->theirs = t->points[1 - me];
    k->opp_size = t->hand_len[1 - me];
    k->unseen = all & ~(played | k->hand | BIT(t->trump));
    /* the trump card, once drawn, is in the hand of whoever drew it */
    k->opp_known = (k->stock_size == 0 && !((played | k->hand) & BIT(t->trump))) ? t->trump : -1;
}

/* -- greedy (bots.greedy_card) ---------------------------------------------------- */

static int before(const int a[3], const int b[3]) { /* a < b as Python tuples */
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}

static int greedy_card(uint64_t hand, int lead, int tsuit) {
    int best = -1, key[3], best_key[3] = {0, 0, 0};
    if (lead >= 0) { /* win cheaply: a card of the suit led taking most, else the lowest trump */
        for (uint64_t b = hand; b; b &= b - 1) {
            int c = __builtin_ctzll(b), trump = SUIT(c) == tsuit;
            if (!beats(lead, c, tsuit) || CV_BR_POINTS[lead] + CV_BR_POINTS[c] <= 0) continue;
            key[0] = trump, key[1] = trump ? CV_BR_STRENGTH[c] : -CV_BR_POINTS[c], key[2] = c;
            if (best < 0 || before(key, best_key)) best = c, memcpy(best_key, key, sizeof key);
        }
        if (best >= 0) return best;
    }
    for (uint64_t b = hand; b; b &= b - 1) { /* _waste: worth least first, trumps last */
        int c = __builtin_ctzll(b);
        key[0] = CV_BR_POINTS[c] + (SUIT(c) == tsuit ? 12 : 0), key[1] = CV_BR_STRENGTH[c], key[2] = c;
        if (best < 0 || before(key, best_key)) best = c, memcpy(best_key, key, sizeof key);
    }
    return best;
}

int cv_briscola_greedy(const cv_briscola *t) {
    if (t->done) return -1;
    return greedy_card(t->hand_bits[t->current], t->lead, t->trump_suit);
}

/* -- the exact endgame (endgame._solve, endgame_scores) -------------------------- */

/* minimax value for seat 0: h0/h1 hands, leader, lead (-1: none), stock: -1 or the one card left
 * (the trump card is drawn after it), diff: seat 0's points minus seat 1's */
static int solve(uint64_t h0, uint64_t h1, int leader, int lead, int stock, int trump, int tsuit, int diff) {
    int mover;
    if (lead < 0) {
        if (!h0 && !h1) return diff + (diff > 0 ? WIN_BONUS : diff < 0 ? -WIN_BONUS : 0);
        mover = leader;
    } else {
        mover = 1 - leader;
    }
    uint64_t hand = mover == 0 ? h0 : h1;
    int best = mover == 0 ? INT_MIN : INT_MAX;
    for (uint64_t b = hand; b; b &= b - 1) {
        int c = __builtin_ctzll(b), v;
        uint64_t rest = hand & ~BIT(c);
        if (lead < 0) {
            v = mover == 0 ? solve(rest, h1, leader, c, stock, trump, tsuit, diff)
                           : solve(h0, rest, leader, c, stock, trump, tsuit, diff);
        } else { /* c completes the trick: scored, both draw (the winner first), the winner leads */
            int w = beats(lead, c, tsuit) ? mover : leader, pts = CV_BR_POINTS[lead] + CV_BR_POINTS[c];
            int d = w == 0 ? diff + pts : diff - pts;
            uint64_t a0 = mover == 0 ? rest : h0, a1 = mover == 0 ? h1 : rest;
            if (stock >= 0) {
                a0 |= BIT(w == 0 ? stock : trump);
                a1 |= BIT(w == 0 ? trump : stock);
            }
            v = solve(a0, a1, w, -1, -1, trump, tsuit, d);
        }
        if (mover == 0 ? v > best : v < best) best = v;
    }
    return best;
}

/* the layouts of the cards I cannot see: the other hand, and the stock card (-1: none); with the stock
 * empty one layout, with one card in the stock each unseen card as that card (ids ascending) */
static int layouts_of(const know *k, uint64_t opps[C], int stocks[C]) {
    if (k->stock_size == 0) {
        opps[0] = k->unseen | (k->opp_known >= 0 ? BIT(k->opp_known) : 0);
        stocks[0] = -1;
        return 1;
    }
    int n = 0;
    for (uint64_t b = k->unseen; b; b &= b - 1, n++) {
        stocks[n] = __builtin_ctzll(b);
        opps[n] = k->unseen & ~BIT(stocks[n]);
    }
    return n;
}

/* the exact value of playing c (me = seat 0 of the solver), averaged over the layouts */
static double endgame_score(const know *k, int c, int n, const uint64_t *opps, const int *stocks) {
    uint64_t rest = k->hand & ~BIT(c);
    int diff0 = k->mine - k->theirs;
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        int stock = stocks[i];
        if (k->lead < 0) { /* I lead c: the solver's seat 0 leads, the other answers */
            total += solve(rest, opps[i], 0, c, stock, k->trump, k->tsuit, diff0);
            continue;
        }
        /* answer the lead: resolve the trick now, then solve */
        int w = beats(k->lead, c, k->tsuit) ? 0 : 1, pts = CV_BR_POINTS[k->lead] + CV_BR_POINTS[c];
        int d = w == 0 ? diff0 + pts : diff0 - pts;
        uint64_t h0 = rest, h1 = opps[i];
        if (stock >= 0) {
            h0 |= BIT(w == 0 ? stock : k->trump);
            h1 |= BIT(w == 0 ? k->trump : stock);
        }
        total += solve(h0, h1, w, -1, -1, k->trump, k->tsuit, d);
    }
    return total / n;
}

/* -- the mid-game heuristic (HeuristicBot.keep_value, _score, _p_holds_any) ------ */

static double keep_value(const know *k, int c) {
    if (SUIT(c) == k->tsuit) {
        int carichi_out = 0, higher = 0;
        for (uint64_t b = k->unseen; b; b &= b - 1) {
            int u = __builtin_ctzll(b);
            carichi_out += CARICO(u) && SUIT(u) != k->tsuit;
            higher |= SUIT(u) == k->tsuit && CV_BR_STRENGTH[u] > CV_BR_STRENGTH[c];
        }
        int m = carichi_out < 6 ? carichi_out : 6;
        double power = (TRUMP_BASE + TRUMP_SLOPE * CV_BR_STRENGTH[c]) * (0.5 + 0.5 * m / 6);
        if (CV_BR_POINTS[c]) power += CV_BR_POINTS[c] * (higher ? TRUMP_POINT_RISK : 1.0);
        return power;
    }
    if (CARICO(c)) return CARICO_KEEP;
    return 0.1 * CV_BR_STRENGTH[c];
}

static double comb(int n, int r) { /* exact below 2**53: here n <= 37, r <= 3 */
    double out = 1.0;
    for (int i = 0; i < r; i++) out = out * (n - i) / (i + 1);
    return out;
}

static double p_holds_any(int n_good, int pool, int hand) {
    if (n_good <= 0 || hand <= 0 || pool <= 0) return 0.0;
    if (hand >= pool || n_good > pool - hand) return 1.0;
    return 1.0 - comb(pool - n_good, hand) / comb(pool, hand);
}

static double midgame_score(const know *k, int c) {
    double keep = keep_value(k, c);
    if (k->lead >= 0) {
        int gain = CV_BR_POINTS[k->lead] + CV_BR_POINTS[c];
        return (beats(k->lead, c, k->tsuit) ? gain : -gain) - keep;
    }
    /* leading: the chance the other hand beats c, from the cards still out */
    int n_beat = 0;
    for (uint64_t b = k->unseen; b; b &= b - 1) n_beat += beats(c, __builtin_ctzll(b), k->tsuit);
    double p;
    if (k->opp_known >= 0 && beats(c, k->opp_known, k->tsuit)) p = 1.0;
    else p = p_holds_any(n_beat, popcount(k->unseen), k->opp_size - (k->opp_known >= 0));
    int pts = CV_BR_POINTS[c];
    return (1 - p) * pts - p * pts * LEAD_TAKE_WEIGHT - keep;
}

/* -- the bot and the prior (HeuristicBot.know_scores, prior.card_scores, action_prior) -- */

int cv_briscola_heuristic_scores(const cv_briscola *t, int8_t legal[CV_BR_HAND], double scores[CV_BR_HAND]) {
    if (t->done) return 0;
    know k;
    know_of(t, &k);
    uint64_t opps[C];
    int stocks[C], layouts = k.stock_size <= 1 ? layouts_of(&k, opps, stocks) : 0, n = t->hand_len[t->current];
    for (int i = 0; i < n; i++) {
        int c = legal[i] = t->hands[t->current][i];
        scores[i] = layouts ? endgame_score(&k, c, layouts, opps, stocks) : midgame_score(&k, c);
    }
    return n;
}

static int best_of(int n, const int8_t *legal, const double *scores) { /* ties to the lowest card id */
    int b = 0;
    for (int i = 1; i < n; i++)
        if (scores[i] > scores[b] || (scores[i] == scores[b] && legal[i] < legal[b])) b = i;
    return b;
}

int cv_briscola_heuristic(const cv_briscola *t) {
    int8_t legal[CV_BR_HAND];
    double scores[CV_BR_HAND];
    int n = cv_briscola_heuristic_scores(t, legal, scores);
    if (n == 0) return -1;
    if (n == 1) return legal[0];
    return legal[best_of(n, legal, scores)];
}

void cv_briscola_prior(const cv_briscola *t, float *out) {
    int8_t legal[CV_BR_HAND];
    double scores[CV_BR_HAND];
    memset(out, 0, CV_BR_PRIOR_SIZE * sizeof *out);
    int n = cv_briscola_heuristic_scores(t, legal, scores);
    if (n == 0) return;
    int b = best_of(n, legal, scores);
    for (int i = 0; i < n; i++) { /* games/priors.write_prior: relative to the top, clipped */
        double d = scores[i] - scores[b];
        out[legal[i]] = (float)(d > -CV_BR_PRIOR_CLIP ? d : -CV_BR_PRIOR_CLIP);
    }
    out[C + legal[b]] = 1.0f;
}

void cv_briscola_bot_actions(const cv_briscola *t, int64_t n, int kind, const uint8_t *where, int32_t *actions) {
    for (int64_t i = 0; i < n; i++) {
        if (where && !where[i]) actions[i] = -1;
        else actions[i] = kind == CV_BOT_GREEDY ? cv_briscola_greedy(t + i) : cv_briscola_heuristic(t + i);
    }
}

void cv_briscola_prior_many(const cv_briscola *t, int64_t n, const uint8_t *where, float *out) {
    for (int64_t i = 0; i < n; i++) {
        if (where && !where[i]) memset(out + i * CV_BR_PRIOR_SIZE, 0, CV_BR_PRIOR_SIZE * sizeof *out);
        else cv_briscola_prior(t + i, out + i * CV_BR_PRIOR_SIZE);
    }
}
