/* Cavalloìcera's ISMCTS decision in C: the whole search of `ismcts:<n>` (the
 * generic SO-ISMCTS of cavallo_env/bots/ismcts.py with Cavalloìcera's hooks,
 * cavallo_env/cavalloicera/search.py) run over cv_cavalloicera tables.
 *
 * Python stays the reference: the same tree (one for all determinizations,
 * availability counts, UCB with the team's mean reward, greedy or random
 * expansion, the prior as a fading bias at the root), the same sequential
 * halving at the root with common random numbers, the same determinizations
 * (uniform, or leaning on the ranks each other seat likely lacks, which the
 * Python hooks infer once per decision: infer_missing_ranks), the same
 * rollouts (greedy with epsilon-random moves, or random) and the same
 * evaluation (static_eval; exact once the deal is over).  Given the state of
 * the Python search's random.Random (mt), it draws the same numbers in the
 * same order: the same visits and the same move as the Python search, bit
 * for bit.  Without, the fast generator (splitmix64): the same search on
 * other random numbers.
 *
 * Moves are (card, capture mask); the root's moves are numbered in
 * CavalloiceraState.legal_moves() order (by card, the place first, then the
 * capture sets as increasing sorted tuples), and so are bias and visits.
 */
#ifndef CAVALLO_CAVALLOICERA_SEARCH_H
#define CAVALLO_CAVALLOICERA_SEARCH_H

#include <stdint.h>

#include "cavalloicera.h"
#include "ismcts_tree.h"
#include "mlp.h"

/* the search's settings (ismcts_tree.h; bias and visits by root move in legal_moves() order) and
 * the hooks' options */
typedef struct {
    cv_search_params search;
    int random_rollout;      /* 1: random_rollout; 0: greedy_rollout */
    double epsilon;          /* the greedy rollout's random-move rate */
    double hand_p;           /* static_eval's chance that a card in hand ends with its holder's team */
    const uint16_t *missing; /* NULL (uniform deals) or 4 rank masks by seat: the ranks a seat likely lacks */
    double infer;            /* how often a card avoids a seat that likely lacks its rank (with missing) */
    const cv_mlp *net;       /* NULL, or the policy network (search.puct: the network-guided search) */
    double temp;             /* with net: the policy's softmax temperature (> 0) */
    double value_scale;      /* with net: points of one unit of the value head */
} cv_cvs_params;

/* The number of legal moves of the seat to play (len(legal_moves())). */
int cv_cavalloicera_count_moves(const cv_cavalloicera *t);

/* The decision of the seat to play in base (n_root legal moves, two or more): the index of the
 * move in legal_moves() order and the root visit count of every move (visits[n_root]); or
 * CV_SEARCH_LATE when the time ran out (the search is abandoned), CV_SEARCH_NO_MEMORY,
 * CV_SEARCH_BAD_ROOT when base has not n_root legal moves (cv_search).  With p->search.puct, the
 * network-guided search (PUCT, ismcts_tree.h) with p->net's policy and value (cv_cavalloicera_net_eval);
 * CV_SEARCH_BAD_ROOT without a network. */
int cv_cavalloicera_search(const cv_cavalloicera *base, const cv_cvs_params *p, int n_root, int64_t *visits);

/* The network's view of the seat to play in t (its observation and heuristic prior, cavalloicera-obs/1
 * and heuristic-prior/1: what that seat sees, whatever the other hands hold), as the search's net
 * hook gives it: the policy over the n legal moves (probs[n], legal_moves() order; a capture's sets
 * share the probability of its first action, capture with the card, equally) and the value as team
 * 0's expected final difference (the value head times value_scale).  0; -1 without memory, or
 * when t has not n legal moves. */
int cv_cavalloicera_net_eval(const cv_cavalloicera *t, const cv_cvs_params *p, int n, double *probs, double *value);

/* The rollout then the evaluation of one full-information state, as the search does below its
 * tree (for the tests): team 0's expected difference; mt as in the params (NULL: seed). */
double cv_cavalloicera_rollout_value(const cv_cavalloicera *state, const cv_cvs_params *p, uint64_t seed);

/* static_eval(state, 1.5, hand_p) */
double cv_cavalloicera_static_eval(const cv_cavalloicera *t, double hand_p);

/* n determinizations of base for the seat to play, one after the other as the search draws them:
 * hands[4 * i + s] the hand of seat s in the i-th. */
void cv_cavalloicera_determinizations(const cv_cavalloicera *base, const cv_cvs_params *p, int n, uint64_t *hands);

/* a table loaded field by field (hands, table, piles, unclaimed, moves, bonuses, seats, turn, done):
 * its caches (the sums of table numerals, the cards that capture) and no capture being built */
void cv_cavalloicera_prepare(cv_cavalloicera *t);

#endif
