/* Two-player Briscola (docs/rules/briscola.md) in C11: the compiled twin of
 * cavallo_env/briscola/engine.py, which stays the reference and the readable
 * spec.  Card ids, decks, seats and the order of every list are the engine's:
 * card id = suit * 10 + rank (A 2 3 4 5 6 7 J/F Q/C K/R), both decks have
 * the same rules (the deck is a name, kept for the observation's last value).
 *
 * One table is a cv_briscola; the batched functions step n tables at once
 * over flat arrays (row i is table i), as the Cython binding hands them in.
 *
 * Randomness (the deal from a seed, random moves) comes from one of two
 * generators.  Given a cv_pyrandom (py != NULL, one per table), it is
 * Python's random.Random: a seed deals exactly as random_deal(seed) and the
 * random moves are random_playout's, card for card.  Without (py == NULL), it
 * is the table's own splitmix64 stream: the same kind of uniform deals and
 * moves, reproducible from the seed, not Python's, and seeded in nanoseconds
 * where Python's Mersenne Twister takes microseconds.
 */
#ifndef CAVALLO_BRISCOLA_H
#define CAVALLO_BRISCOLA_H

#include <stdint.h>

#include "batch.h"
#include "pyrandom.h"

#define CV_BR_CARDS 40
#define CV_BR_HAND 3
#define CV_BR_STOCK 33
#define CV_BR_MOVES 40
#define CV_BR_TRICKS 20
#define CV_BR_TOTAL_POINTS 120
#define CV_BR_OBS_SIZE 376   /* briscola-obs/1 */
#define CV_BR_STATE_SIZE 578 /* briscola-state/1 */

enum { CV_BR_REWARD_POINTS = 0, CV_BR_REWARD_WIN = 1 };
enum { CV_BR_MILANESI = 0, CV_BR_BRESCIANE = 1 };

typedef struct {
    int8_t hands[2][CV_BR_HAND]; /* in the order received, as the engine's lists */
    uint8_t hand_len[2];
    uint64_t hand_bits[2];       /* bit c set: card c in that hand (the same hands, as sets) */
    int8_t stock[CV_BR_STOCK];   /* the deal's stock, top first, without the trump card */
    uint8_t drawn;               /* stock cards drawn so far: stock[drawn..32] remain */
    int8_t trump, trump_suit;
    int8_t trump_holder;         /* -1 while the trump card lies under the stock */
    uint8_t leader, current;
    int8_t lead;                 /* the card led in the current trick; -1: none */
    int8_t last_winner;          /* the winner of the trick the last card completed; -1: none */
    uint8_t points[2], tricks[2];
    uint8_t turn;                /* cards played (0..40) */
    uint8_t done, deck;
    uint64_t piles[2];           /* bit c set: card c won by that seat */
    uint64_t played[2];          /* bit c set: card c played by that seat */
    int8_t move_seat[CV_BR_MOVES], move_card[CV_BR_MOVES];
    uint64_t rng;                /* the fast generator (splitmix64) when no cv_pyrandom is given */
} cv_briscola;

/* card tables (by id) */
extern const uint8_t CV_BR_POINTS[CV_BR_CARDS];
extern const uint8_t CV_BR_STRENGTH[CV_BR_CARDS];

/* -- one table ---------------------------------------------------------------- */
/* a deal from 40 ids: hands ids[0:3], ids[3:6], trump ids[6], stock ids[7:] */
void cv_briscola_deal(cv_briscola *t, const int8_t ids[CV_BR_CARDS], int leader, int deck);
/* a deal from a seed: with py, random_deal(seed, deck) (the 40 ids shuffled as
 * random.Random(seed).shuffle, the leader randrange(2)); without, the same from splitmix64 */
void cv_briscola_deal_seed(cv_briscola *t, cv_pyrandom *py, uint64_t seed, int deck);
/* whether card is in the hand of the seat to play (and the deal not over) */
int cv_briscola_legal(const cv_briscola *t, int card);
/* play a legal card (trusted: check with cv_briscola_legal) */
void cv_briscola_play(cv_briscola *t, int card);
/* the seat winning a trick led by leader with lead, answered with card */
int cv_briscola_trick_winner(int lead, int card, int trump_suit, int leader);
/* per-seat returns of a finished deal: point difference, or its sign with CV_BR_REWARD_WIN */
void cv_briscola_returns(const cv_briscola *t, int reward, float out[2]);
/* a uniformly random card of the hand to play (-1 once over); with py, random_playout's:
 * hand[int(random() * len(hand))] */
int cv_briscola_random_move(cv_briscola *t, cv_pyrandom *py);
/* the observation briscola-obs/1 of seat (376 floats) */
void cv_briscola_observe(const cv_briscola *t, int seat, float *out);
/* the full-information vector briscola-state/1 (578 floats, absolute seats) */
void cv_briscola_state(const cv_briscola *t, float *out);

/* -- n tables (row i is table i; where == NULL: every table; py: NULL or n generators) -- */
void cv_briscola_reset_seeds(cv_briscola *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds,
                             const uint8_t *decks, const uint8_t *where);
void cv_briscola_reset_deals(cv_briscola *t, int64_t n, const int8_t *ids, const int8_t *leaders,
                             const uint8_t *decks, const uint8_t *where);
/* step, query, random actions, observations and state vectors over n tables (batch.h) */
extern const cv_game cv_briscola_game;

#endif
