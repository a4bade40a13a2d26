/* Cavalloìcera's fixed bots and heuristic prior in C11: the compiled twins of
 * cavallo_env/cavalloicera/bots.py's GreedyBot (the move worth the most
 * points now: the bonuses it scores and the award value of the cards it
 * takes, CARD_VALUE; ties to the bigger capture, then the least valuable card
 * placed, then the lower card id, then the lower set) and HeuristicBot with
 * its default parameters (award values, the next player's expected best
 * reply, the exact endgame of the last round: endgame.py, capped as there),
 * and of prior.py (action_prior, heuristic-prior/1).  They read only what
 * the seat to act sees and choose exactly as the Python bots do (the same
 * scores in double precision, the same tie-breaks); the prior is float32.
 *
 * A capture with a choice is played through several actions (actions.py):
 * between turns the bot's action is its move's first (place c, or capture
 * with c); while a capture is built, the take towards its best move among the
 * sets still consistent with the cards taken.
 */
#ifndef CAVALLO_CAVALLOICERA_BOTS_H
#define CAVALLO_CAVALLOICERA_BOTS_H

#include <stdint.h>

#include "cavalloicera.h"

enum { CV_CV_BOT_GREEDY = 0, CV_CV_BOT_HEURISTIC = 1 };
#define CV_CV_PRIOR_SIZE 312 /* heuristic-prior/1: score (156) and choice (156) */
#define CV_CV_PRIOR_CLIP 8.0

/* the next action of the greedy bot's move for the seat to act (-1 once over) */
int cv_cavalloicera_greedy_action(const cv_cavalloicera *t);
/* the next action of the heuristic bot's move (-1 once over; -2 without memory for the legal moves) */
int cv_cavalloicera_heuristic_action(const cv_cavalloicera *t);
/* the prior (312 floats) of the seat to act: zeros once over; returns -1 without memory */
int cv_cavalloicera_prior(const cv_cavalloicera *t, float *out);
/* bots.CARD_VALUE[c] and bots.expected_napula_diff(p) (p: the chances of owning A..10 of swords),
 * for the search (cavalloicera_search.c) */
double cv_cavalloicera_card_value(int c);
double cv_cavalloicera_expected_napula_diff(const double p[10]);

/* HeuristicBot.move_scores: the one-ply scores (no endgame) of the n legal moves of the seat to play,
 * in legal_moves() order; 0, -1 without memory or when n is not the number of legal moves, -2 once
 * seconds (> 0) have passed */
int cv_cavalloicera_move_scores(const cv_cavalloicera *t, double *out, int n, double seconds);

/* -- n tables (where == NULL: every table; elsewhere -1 / zeros) -- */
void cv_cavalloicera_prior_many(const cv_cavalloicera *t, int64_t n, const uint8_t *where, float *out);
void cv_cavalloicera_bot_actions(const cv_cavalloicera *t, int64_t n, int kind, const uint8_t *where,
                                 int32_t *actions);

#endif
