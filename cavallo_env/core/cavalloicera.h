/* Cavalloìcera (docs/rules/cavalloicera.md) in C11: the compiled twin of
 * cavallo_env/cavalloicera/engine.py and actions.py, which stay the reference
 * and the readable spec.  Card ids are the engine's (id = suit * 13 + rank,
 * suits coins cups swords clubs, ranks A 2 .. 10 F C R; one 52-card deck);
 * four seats, teams seat & 1.
 *
 * A table is stepped with the env's Discrete(156) action ids
 * (cavalloicera-actions/1): 0..51 place card a, 52..103 capture with card
 * a - 52, 104..155 take table card a - 104 into the capture being built; a
 * capture is executed as soon as one legal set is consistent with the cards
 * taken.  Hands, the table and the piles are sets of cards (uint64 masks, bit
 * c = card c): the engine keeps hands and table sorted, so the masks are the
 * same lists; piles are compared as sets.
 *
 * Capture sets are never listed: the sets of table numerals summing to a
 * card's value that start with a given prefix are counted by a subset-sum
 * pass over the table (at most 11 sums), which gives the legal take actions,
 * the unique set once one is left and the k-th set of legal_moves() for
 * random_playout's choice.
 *
 * Randomness as in briscola.h: with a cv_pyrandom (py != NULL), a seed deals
 * as random_deal(seed) and random moves are random_playout's
 * (rng.choice(state.legal_moves())) spelled as actions; without, splitmix64.
 */
#ifndef CAVALLO_CAVALLOICERA_H
#define CAVALLO_CAVALLOICERA_H

#include <stdint.h>

#include "batch.h"
#include "pyrandom.h"

#define CV_CV_CARDS 52
#define CV_CV_SEATS 4
#define CV_CV_HAND 12
#define CV_CV_TABLE 4
#define CV_CV_TURNS 48
#define CV_CV_ACTIONS 156
#define CV_CV_CAPTURE 52
#define CV_CV_TAKE 104
#define CV_CV_OBS_SIZE 702 /* cavalloicera-obs/1 */
#define CV_CV_STATE_SIZE 1018 /* cavalloicera-state/1 */
#define CV_CV_KEYS 10 /* engine.BREAKDOWN_KEYS: scua picada simili quadriglia, then the six awards */

enum { CV_CV_REWARD_POINTS = 0, CV_CV_REWARD_WIN = 1 };

typedef struct {
    uint64_t hands[CV_CV_SEATS]; /* bit c: card c in that hand (sorted, as the engine's lists) */
    uint64_t table;              /* the cards on the table */
    uint64_t piles[2];           /* each team's captured cards */
    uint64_t unclaimed;          /* cards left on the table when nobody captured */
    uint64_t caps;               /* hand cards of the seat to play that can capture (between turns) */
    uint64_t build_taken;        /* table cards taken into the capture being built */
    uint64_t take_next;          /* the table cards a take may name while building (per-decision cache) */
    uint64_t pending;            /* the capture set random moves are building (with pending_card) */
    uint64_t move_capture[CV_CV_TURNS];
    int8_t move_seat[CV_CV_TURNS], move_card[CV_CV_TURNS];
    int8_t build_card;           /* the card capturing while a capture is built; -1: between turns */
    int8_t pending_card;
    int8_t last_capturer, prev_placed; /* -1: None */
    uint8_t dealer, current, turn, done;
    uint8_t bonuses[2][4];       /* scua, picada, simili, quadriglia per team */
    int8_t scored[4];            /* what the last completed move scored (play's return); -1s: a place */
    uint8_t completed;           /* whether the last action completed a move */
    uint16_t sums[11];           /* per-turn cache: the sets of table numerals by sum (sums[0]: the empty set) */
    uint64_t rng;                /* splitmix64 when no cv_pyrandom is given */
} cv_cavalloicera;

/* -- one table ---------------------------------------------------------------- */
/* a deal from 52 ids: hands ids[0:12], ids[12:24], ids[24:36], ids[36:48], table ids[48:52] */
void cv_cavalloicera_deal(cv_cavalloicera *t, const int8_t ids[CV_CV_CARDS], int dealer);
/* random_deal(seed) with py; the same from splitmix64 without */
void cv_cavalloicera_deal_seed(cv_cavalloicera *t, cv_pyrandom *py, uint64_t seed);
/* whether action is legal now (CavalloiceraActions.legal_actions) */
int cv_cavalloicera_legal(const cv_cavalloicera *t, int action);
/* apply a legal action (trusted) */
void cv_cavalloicera_act(cv_cavalloicera *t, int action);
/* play a whole move (CavalloiceraState.play; trusted) */
void cv_cavalloicera_play(cv_cavalloicera *t, int card, uint64_t capture);
/* the number of legal capture sets of card on the table, and the k-th of them in legal_moves() order */
uint32_t cv_cavalloicera_count_sets(const cv_cavalloicera *t, int card);
uint64_t cv_cavalloicera_kth_set(uint64_t table, int card, uint64_t taken, uint32_t k);
/* engine.score: team points, the breakdown by BREAKDOWN_KEYS, card counts; returns the winner or -1 */
int cv_cavalloicera_score(const cv_cavalloicera *t, int points[2], int breakdown[2][CV_CV_KEYS], int cards[2]);
void cv_cavalloicera_returns(const cv_cavalloicera *t, int reward, float out[4]);
/* a random legal action (random_playout's move, one action at a time; -1 once over) */
int cv_cavalloicera_random_action(cv_cavalloicera *t, cv_pyrandom *py);
/* the legal-action mask (156 bytes) */
void cv_cavalloicera_mask(const cv_cavalloicera *t, uint8_t *mask);
/* the observation cavalloicera-obs/1 of seat (702 floats), as encoding.encode_observation(state, seat,
 * building): the capture being built shows only to the seat building it */
void cv_cavalloicera_observe(const cv_cavalloicera *t, int seat, float *out);
/* the full-information vector cavalloicera-state/1 (1018 floats, absolute seats), as the env's state():
 * encoding.Features with the capture being built */
void cv_cavalloicera_state(const cv_cavalloicera *t, float *out);

/* -- n tables (row i is table i; where == NULL: every table; py: NULL or n generators) -- */
void cv_cavalloicera_reset_seeds(cv_cavalloicera *t, cv_pyrandom *py, int64_t n, const uint64_t *seeds,
                                 const uint8_t *where);
void cv_cavalloicera_reset_deals(cv_cavalloicera *t, int64_t n, const int8_t *ids, const int8_t *dealers,
                                 const uint8_t *where);
/* step, query, random actions, observations and state vectors over n tables (batch.h) */
extern const cv_game cv_cavalloicera_game;

#endif
