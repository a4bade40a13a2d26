/* Cavalloìcera's greedy bot in C11: the compiled twin of
 * cavallo_env/cavalloicera/bots.py's GreedyBot (the move worth the most
 * points now: the bonuses it scores and the award value of the cards it
 * takes, CARD_VALUE; ties to the bigger capture, then the least valuable card
 * placed, then the lower card id, then the lower set).  It reads only what
 * the seat to act sees and chooses exactly as the Python bot does.
 *
 * A capture with a choice is played through several actions (actions.py):
 * between turns the bot's action is its move's first (place c, or capture
 * with c); while a capture is built, the take towards its best move among the
 * sets still consistent with the cards taken.
 *
 * The heuristic bot and the heuristic prior of Cavalloìcera are not in the
 * core yet (docs/core.md, "The bots in the core"). */
#ifndef CAVALLO_CAVALLOICERA_BOTS_H
#define CAVALLO_CAVALLOICERA_BOTS_H

#include <stdint.h>

#include "cavalloicera.h"

enum { CV_CV_BOT_GREEDY = 0 };

/* whether sums of floats are added as Python >= 3.12's sum() does (pysum.h); set by the binding */
extern int cv_cavalloicera_pysum_compensated;

/* the next action of the greedy bot's move for the seat to act (-1 once over) */
int cv_cavalloicera_greedy_action(const cv_cavalloicera *t);
/* n tables (where == NULL: every table; elsewhere -1) */
void cv_cavalloicera_bot_actions(const cv_cavalloicera *t, int64_t n, int kind, const uint8_t *where,
                                 int32_t *actions);

#endif
