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
#include "mlp.h"

enum { CV_BRS_POINTS = 0, CV_BRS_WIN = 1, CV_BRS_MIXED = 2 };

typedef struct {
    int64_t iterations;
    double c;               /* exploration */
    int expand_greedy;      /* 1: expand the untried move quick_score likes best; 0: a random one */
    int reward;             /* CV_BRS_POINTS, CV_BRS_WIN, CV_BRS_MIXED */
    double scale;           /* points per unit of reward */
    int depth;              /* rollout plies */
    int halving;            /* 1: sequential halving at the root; 0: UCB */
    const double *bias;     /* NULL or 40 root biases by card (reward units) */
    double epsilon;         /* the rollout's random-move rate */
    int smart;              /* 1: the smart rollout; 0: the greedy one */
    double win;             /* the evaluation's bonus for the side ahead */
    const double *weights;  /* NULL (uniform deals) or 40 hold weights of the other seat's cards */
    uint64_t seed;          /* the fast generator's seed */
    const uint32_t *mt;     /* NULL, or Python's random.Random state (getstate()[1]: 624 words and the
                             * index): then the search draws Python's numbers, as the Python search */
    double seconds;         /* time allowed (<= 0: unbounded); past it the search stops */
    /* the network-guided search (search:briscola), all unused where net == NULL (ismcts:N) */
    const cv_mlp *net;      /* NULL: today's search; else the policy network guides it (PUCT) */
    double c_puct;          /* PUCT's exploration: Q + c_puct * P * sqrt(avail) / (1 + visits) */
    double temp;            /* the softmax temperature of the network's policy as the prior */
    double lambda;          /* a leaf's value: lambda * value head + (1 - lambda) * rollout and evaluation */
    double value_scale;     /* points of one unit of the value head (the model's reward_scale) */
    double fpu;             /* the value (reward units) of a move not visited yet */
    double budget;          /* > 0: seconds of this thread's CPU time after which the search stops and
                             * plays its best move (the same search on a busy machine as on an idle one) */
    double budget_wall;     /* with budget: the wall-clock seconds after which it stops all the same (<= 0: budget) */
    double *means;          /* NULL, or 40 doubles that receive each root card's mean reward (total / visits,
                             * the seat to play's reward units; 0 where not visited): what halving ranks by */
} cv_brs_params;

/* The move of the seat to play in base (its legal cards, more than one) and
 * the root visit count of every card (visits[40]).  Returns the card, or -1
 * when the time ran out (the search is abandoned), -2 when out of memory.
 *
 * With a network (p->net), the search is PUCT over the same information-set
 * tree (AlphaZero, Expert Iteration): an iteration walks down the tree by
 * Q + c_puct * P * sqrt(avail) / (1 + visits) (avail: how often the move was
 * legal when its parent was visited), and where a move legal in its
 * determinization has no node yet, the network evaluates that position for
 * the seat to play: its policy (softmax over the legal cards) becomes the
 * prior P of the new nodes, and the position's value is lambda times the
 * value head (its seat's expected final point difference / value_scale) plus
 * 1 - lambda times the rollout and evaluation; a position with at most one
 * card in the stock is solved exactly instead.  The root is PUCT too and
 * plays the card visited most, or (halving) today's sequential halving with
 * common random numbers over PUCT subtrees, which plays the best mean;
 * iterations, seconds and budget bound it. */
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
