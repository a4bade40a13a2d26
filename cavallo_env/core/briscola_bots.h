/* Briscola's fixed bots and heuristic prior in C11: the compiled twins of
 * cavallo_env/briscola/bots.py (GreedyBot, HeuristicBot with its default
 * parameters, and endgame.py's exact endgame) and prior.py
 * (action_prior, briscola-prior/1).  They read only what the seat to play
 * knows, as the Python bots do, and choose exactly as they do (same scores in
 * double precision, same tie-breaks); the prior is written as float32.
 * tests/test_core_bots.py proves them identical on positions of random and
 * bot play. */
#ifndef CAVALLO_BRISCOLA_BOTS_H
#define CAVALLO_BRISCOLA_BOTS_H

#include <stdint.h>

#include "briscola.h"

enum { CV_BOT_GREEDY = 0, CV_BOT_HEURISTIC = 1 };
#define CV_BR_PRIOR_SIZE 80 /* briscola-prior/1: score (40) and choice (40) */
#define CV_BR_PRIOR_CLIP 22.0

/* GreedyBot's card for the seat to play (-1 once the deal is over) */
int cv_briscola_greedy(const cv_briscola *t);
/* HeuristicBot's scores of the legal cards (the hand in order, written to legal); returns their number */
int cv_briscola_heuristic_scores(const cv_briscola *t, int8_t legal[CV_BR_HAND], double scores[CV_BR_HAND]);
/* HeuristicBot's card (-1 once over): the highest score, ties to the lowest card id */
int cv_briscola_heuristic(const cv_briscola *t);
/* the prior (80 floats) of the seat to play: zeros once over */
void cv_briscola_prior(const cv_briscola *t, float *out);

/* -- n tables (where == NULL: every table; elsewhere -1 / zeros) -- */
void cv_briscola_bot_actions(const cv_briscola *t, int64_t n, int kind, const uint8_t *where, int32_t *actions);
void cv_briscola_prior_many(const cv_briscola *t, int64_t n, const uint8_t *where, float *out);

#endif
