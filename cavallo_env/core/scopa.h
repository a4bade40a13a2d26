/* Two-player Scopa (docs/rules/scopa.md) in C11: the compiled twin of
 * cavallo_env/scopa/engine.py (ScopaDeal, ScopaState) driven through the
 * action ids of cavallo_env/scopa/actions.py (ScopaActions: place / capture
 * with / take, capture building included), which stay the reference and the
 * readable spec.  Card ids, decks, seats and orders are the engine's: card id
 * = suit * 10 + rank, value = rank + 1 (A 1 .. 7, J/F 8, Q/C 9, K/R 10); the
 * money suit is 1 (diamonds, milanesi) or 0 (coins, bresciane).
 *
 * Card sets are bit masks with card c at bit c (so increasing bits are
 * increasing ids: a hand's mask read from bit 0 up is the engine's sorted list).
 *
 * One table is a cv_scopa: a match to 11 (or one deal, match == 0) and its
 * current deal.  The batched functions step n tables at once over flat arrays.
 *
 * Randomness (deals from a seed, later deals of a match, random moves) comes
 * from one generator a table.  Given a cv_pyrandom (py != NULL), it is
 * Python's random.Random(seed): a seed deals exactly as random_state(seed),
 * the later deals are the state's rng's (draw_deal), and the random moves are
 * random_playout(state, state.rng)'s, move for move (one generator, as the
 * state's).  Without (py == NULL), it is the table's own splitmix64 stream.
 */
#ifndef CAVALLO_SCOPA_H
#define CAVALLO_SCOPA_H

#include <stdint.h>

#include "batch.h"
#include "pyrandom.h"

#define CV_SC_CARDS 40
#define CV_SC_HAND 3
#define CV_SC_TABLE 4
#define CV_SC_STOCK 30
#define CV_SC_PLAYS 36
#define CV_SC_TARGET 11
#define CV_SC_ACTIONS 120 /* scopa-actions/1 */
#define CV_SC_PLACE 0
#define CV_SC_CAPTURE 40
#define CV_SC_TAKE 80
#define CV_SC_AWARDS 5
#define CV_SC_OBS_SIZE 388 /* scopa-obs/1 */
#define CV_SC_STATE_SIZE 420 /* scopa-state/1 */ /* scope, most_cards, most_money, settebello, primiera */

enum { CV_SC_REWARD_WIN = 0, CV_SC_REWARD_POINTS = 1 };
enum { CV_SC_MILANESI = 0, CV_SC_BRESCIANE = 1 };

typedef struct {
    /* the current deal (ScopaDeal) */
    int8_t initial[CV_SC_CARDS]; /* as dealt: hands 0:3 and 3:6, table 6:10, stock 10:40 (top first) */
    uint64_t hands[2];           /* bit c: card c in that hand */
    uint64_t table;
    uint64_t piles[2];           /* the cards captured (leftovers not included) */
    uint64_t leftovers;          /* the table at the end of the deal */
    uint8_t dealer, stock_pos, turn, scope[2], deal_done;
    int8_t last_capturer, leftovers_to; /* -1: nobody */
    int8_t move_seat[CV_SC_PLAYS], move_card[CV_SC_PLAYS];
    uint64_t move_capture[CV_SC_PLAYS];
    /* the capture being built (ScopaActions.building): card -1 between turns */
    int8_t build_card;
    uint64_t taken;
    /* the random move being played through its take actions (random_actions) */
    int8_t plan_card;
    uint64_t plan;
    /* the match (ScopaState) */
    uint8_t match, deck, money, current, done;
    int8_t winner;               /* -1: none (not over, or a drawn single deal) */
    int16_t base[2], totals[2];  /* totals: base + every completed deal */
    uint16_t deals;              /* completed deals */
    uint8_t ended_deal;          /* the last action completed a deal (its result below) */
    uint8_t res_points[2], res_cards[2], res_breakdown[2][CV_SC_AWARDS]; /* the last completed deal's */
    uint32_t sums[11];           /* sums[s]: how many sets of table cards add up to s, kept move by move */
    uint64_t legal[2];           /* the legal actions (bit a of legal[a / 64]), refreshed after every change */
    uint32_t acted;              /* actions applied since the table was reset (benchmarks count decisions) */
    uint64_t rng;                /* the fast generator (splitmix64) when no cv_pyrandom is given */
} cv_scopa;

extern const uint8_t CV_SC_VALUE[CV_SC_CARDS];
extern const uint8_t CV_SC_PRIMIERA[CV_SC_CARDS];

/* -- one table ---------------------------------------------------------------- */
/* a match (or single deal) from a first deal of 40 ids (split_deck's order) and its dealer,
 * with totals carried in (base); later deals from the table's generator */
void cv_scopa_deal(cv_scopa *t, const int8_t ids[CV_SC_CARDS], int dealer, int deck, int match, int base0,
                   int base1);
/* random_state(seed, deck, match): with py, Python's; without, the same from splitmix64 */
void cv_scopa_deal_seed(cv_scopa *t, cv_pyrandom *py, uint64_t seed, int deck, int match);
/* whether action is legal for the seat to act (and the match not over); a bit test of t->legal */
int cv_scopa_legal(const cv_scopa *t, int action);
/* apply a legal action (trusted); returns 1 when it completed a move (a card played) */
int cv_scopa_act(cv_scopa *t, cv_pyrandom *py, int action);
/* play a legal move whole (trusted): card and the table cards it takes (0: placed); a later deal
 * of a match comes from the table's own generator */
void cv_scopa_play(cv_scopa *t, int card, uint64_t capture);
/* the legal mask (120 bytes) */
void cv_scopa_mask(const cv_scopa *t, uint8_t *mask);
/* the legal capture sets of card (in the hand to play) on the table, in the engine's order;
 * returns how many there are, writes at most max of them */
int cv_scopa_captures(const cv_scopa *t, int card, uint64_t *out, int max);
/* a random action: between turns a uniformly random legal move (random_playout's, with py),
 * played through its actions on the following calls; -1 once over */
int cv_scopa_random_action(cv_scopa *t, cv_pyrandom *py);
/* the observation scopa-obs/1 of seat (388 floats; encoding.fill_observation) */
void cv_scopa_observe(const cv_scopa *t, int seat, float *out);
/* the full-information vector scopa-state/1 (420 floats, absolute seats; encoding.state_vector) */
void cv_scopa_state(const cv_scopa *t, float *out);
/* the primiera of a pile (engine.primiera_value) */
int cv_scopa_primiera(uint64_t pile);

/* -- n tables ----------------------------------------------------------------- */
void cv_scopa_reset_seeds(cv_scopa *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds, const uint8_t *decks,
                          int match, const uint8_t *where);
/* ids (n x 40), dealers (n), bases (n x 2, or NULL); each table's generator is seeded from seeds[i] */
void cv_scopa_reset_deals(cv_scopa *t, cv_pyrandom *py, int64_t n, const int8_t *ids, const int8_t *dealers,
                          const uint64_t *seeds, const uint8_t *decks, int match, const int16_t *bases,
                          const uint8_t *where);
/* step (rewards "win": +1/0/-1 when the match, or the single deal, ends; "points": each deal's point
 * difference when that deal ends), query, random actions, observations and state vectors (batch.h) */
extern const cv_game cv_scopa_game;

#endif
