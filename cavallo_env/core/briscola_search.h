/* Briscola's ISMCTS decision in C: the whole search of `ismcts:<n>` (the
 * generic SO-ISMCTS of cavallo_env/bots/ismcts.py with Briscola's hooks,
 * cavallo_env/briscola/search.py) run over cv_briscola tables.
 *
 * Python stays the reference: the same tree (one for all determinizations,
 * availability counts, UCB with the team's mean reward, greedy or random
 * expansion, the prior as a fading bias at the root), the same sequential
 * halving at the root with common random numbers, the same determinizations
 * (uniform, or by the inference weights the Python hooks compute once per
 * decision), the same rollout policies (smart, greedy, epsilon-random) and
 * the same evaluation (the exact minimax once at most one card is left in the
 * stock, else the estimate).  Given the state of the Python search's
 * random.Random (mt), it draws the same numbers in the same order: the same
 * visits and the same move as the Python search, bit for bit.  Without, the
 * fast generator (splitmix64): the same search on other random numbers.
 */
#ifndef CAVALLO_BRISCOLA_SEARCH_H
#define CAVALLO_BRISCOLA_SEARCH_H

#include <stdint.h>

#include "briscola.h"
#include "ismcts_tree.h"

/* the search's settings (ismcts_tree.h: its bias unused, the root's by card below) and the hooks' options */
typedef struct {
    cv_search_params search;
    const double *bias;     /* NULL or 40 root biases by card (reward units) */
    double epsilon;         /* the rollout's random-move rate */
    int smart;              /* 1: the smart rollout; 0: the greedy one */
    double win;             /* the evaluation's bonus for the side ahead */
    const double *weights;  /* NULL (uniform deals) or 40 hold weights of the other seat's cards */
} cv_brs_params;

/* The move of the seat to play in base (its legal cards, more than one) and
 * the root visit count of every card (visits[40]).  Returns the card, or -1
 * when the time ran out (the search is abandoned), -2 when out of memory. */
int cv_briscola_search(const cv_briscola *base, const cv_brs_params *p, int64_t visits[CV_BR_CARDS]);

/* The rollout then the evaluation of one full-information state, as the
 * search does below its tree (for the tests): seat 0's expected difference. */
double cv_briscola_rollout_value(const cv_briscola *state, const cv_brs_params *p, uint64_t seed);

/* One determinization of base for the seat to play (weights: NULL or the other seat's 40 hold
 * weights), drawn from *rng, into out (for the tests). */
void cv_briscola_determinize(const cv_briscola *base, const double *weights, cv_briscola *out, uint64_t *rng);

/* The exact minimax value (seat 0's) of a state with at most one card in the stock. */
double cv_briscola_solve(const cv_briscola *state, double bonus);

#endif
