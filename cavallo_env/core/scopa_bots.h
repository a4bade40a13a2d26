/* Scopa's fixed bots and heuristic prior in C11: the compiled twins of
 * cavallo_env/scopa/bots.py (greedy_move, heuristic_scores, heuristic_move)
 * and prior.py (action_prior, scopa-prior/1).  They read only what the seat
 * to act sees (its hand, the table, the piles, the sizes of the other hand
 * and the stock, the plays so far), as prior.info_of does, and choose exactly
 * as the Python bots do (the same scores in double precision, the same
 * tie-breaks); the prior is written as float32.
 *
 * A capture with a choice is played through several actions (actions.py):
 * between turns a bot's action is its move's first (place c, or capture with
 * c); while a capture is built, the take towards the bot's best move among
 * the sets still consistent with the cards taken (its own move when the bot
 * started the capture). */
#ifndef CAVALLO_SCOPA_BOTS_H
#define CAVALLO_SCOPA_BOTS_H

#include <stdint.h>

#include "scopa.h"

enum { CV_SC_BOT_GREEDY = 0, CV_SC_BOT_HEURISTIC = 1 };
#define CV_SC_PRIOR_SIZE 240 /* scopa-prior/1: score (120) and choice (120) */
#define CV_SC_PRIOR_CLIP 8.0
#define CV_SC_MAX_SETS 2048 /* capture sets of one card value on any table (at most 1698) */

/* the next action of the bot kind's move for the seat to act (-1 once over) */
int cv_scopa_bot_action(const cv_scopa *t, int kind);
/* the bot kind's whole move for the seat to play between turns: its card (-1 once over) and
 * *capture, the table cards it takes (0: the card is placed) */
int cv_scopa_bot_move(const cv_scopa *t, int kind, uint64_t *capture);
/* ScopaDeal.legal_moves of the seat to play (by card id, each card's capture sets in the engine's
 * order, capture 0: placed) into cards/captures (room for CV_SC_HAND * CV_SC_MAX_SETS); how many */
int cv_scopa_moves(const cv_scopa *t, int8_t *cards, uint64_t *captures);
/* the prior (240 floats) of the seat to act: zeros once over */
void cv_scopa_prior(const cv_scopa *t, float *out);

/* -- n tables (where == NULL: every table; elsewhere -1 / zeros) -- */
void cv_scopa_bot_actions(const cv_scopa *t, int64_t n, int kind, const uint8_t *where, int32_t *actions);
void cv_scopa_prior_many(const cv_scopa *t, int64_t n, const uint8_t *where, float *out);

#endif
