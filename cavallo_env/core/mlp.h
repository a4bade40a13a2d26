/* The forward pass of the shipped policy network (training/model.py PolicyNet) in C, float32,
 * for any game: an MLP over the observation (followed by the heuristic prior when the model
 * reads it), the policy logits (plus the two prior gains times the prior's score and choice
 * halves) and the value head.  The weights are loaded and checked in Python
 * (cavallo_env/bots/search.py) and copied into one cv_mlp by the binding (_mlp.pxi); this file
 * only computes.  Every game's search that is guided by the network calls cv_mlp_policy.
 *
 * A hidden layer's weights are stored transposed, by input ([in][out]): the input of the
 * first layer (one-hot cards) and of the later ones (after a ReLU) is mostly zeros, and a
 * zero input costs nothing.  The sums come in another order than onnxruntime's, so the
 * results agree within float32 rounding, not bit for bit (tests/test_core_mlp.py).
 */
#ifndef CAVALLO_MLP_H
#define CAVALLO_MLP_H

#include <stddef.h>

#define CV_MLP_MAX_HIDDEN 8 /* hidden layers at most */
#define CV_MLP_MAX_WIDTH 4096 /* widest layer (input included) */

enum { CV_MLP_RELU = 0, CV_MLP_TANH = 1, CV_MLP_GELU = 2 };

typedef struct {
    int obs_size, prior_size;        /* prior_size 0: the model does not read the prior */
    int actions, hidden, activation; /* hidden: the number of hidden layers */
    int width[CV_MLP_MAX_HIDDEN + 1]; /* width[0]: the input (obs + prior), width[k]: hidden layer k */
    const float *w[CV_MLP_MAX_HIDDEN]; /* layer k: width[k] x width[k+1], by input */
    const float *b[CV_MLP_MAX_HIDDEN];
    const float *policy_w, *policy_b; /* width[hidden] x actions (by input), actions */
    const float *value_w;             /* width[hidden] */
    float value_b;
    float gain[2];                    /* the prior gains (score, choice) when prior_size > 0 */
} cv_mlp;

/* The logits of every action (unmasked) and the value of one position: obs (obs_size floats)
 * and prior (prior_size floats, or NULL when the model reads none). */
float cv_mlp_forward(const cv_mlp *m, const float *obs, const float *prior, float *logits);

/* The network's policy over the legal actions (n of them): probs[i] = softmax(logits / temp)
 * over actions[0..n), and the value; temp > 0. */
float cv_mlp_policy(const cv_mlp *m, const float *obs, const float *prior, const int *actions, int n,
                    double temp, double *probs);

#endif
