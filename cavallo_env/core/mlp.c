/* The policy network's forward pass: see mlp.h. */
#include "mlp.h"

#include <math.h>
#include <string.h>

static float activate(float x, int kind) {
    if (kind == CV_MLP_RELU) return x > 0.0f ? x : 0.0f;
    if (kind == CV_MLP_TANH) return tanhf(x);
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); /* nn.GELU(): the exact erf form */
}

/* out = b + sum over the nonzero inputs of x[i] * w[i][.] (w by input: n_in x n_out) */
static void affine(const float *x, int n_in, const float *w, const float *b, int n_out, float *out) {
    memcpy(out, b, sizeof(float) * (size_t)n_out);
    for (int i = 0; i < n_in; i++) {
        float xi = x[i];
        if (xi == 0.0f) continue;
        const float *row = w + (size_t)i * (size_t)n_out;
        for (int j = 0; j < n_out; j++) out[j] += xi * row[j];
    }
}

float cv_mlp_forward(const cv_mlp *m, const float *obs, const float *prior, float *logits) {
    float a[CV_MLP_MAX_WIDTH], h[CV_MLP_MAX_WIDTH];
    memcpy(a, obs, sizeof(float) * (size_t)m->obs_size);
    if (m->prior_size) memcpy(a + m->obs_size, prior, sizeof(float) * (size_t)m->prior_size);
    for (int k = 0; k < m->hidden; k++) {
        affine(a, m->width[k], m->w[k], m->b[k], m->width[k + 1], h);
        for (int j = 0; j < m->width[k + 1]; j++) a[j] = activate(h[j], m->activation);
    }
    int top = m->width[m->hidden];
    affine(a, top, m->policy_w, m->policy_b, m->actions, logits);
    if (m->prior_size) {
        int n = m->actions;
        for (int j = 0; j < n; j++) logits[j] += m->gain[0] * prior[j] + m->gain[1] * prior[n + j];
    }
    float v = m->value_b;
    for (int j = 0; j < top; j++) v += a[j] * m->value_w[j];
    return v;
}

float cv_mlp_policy(const cv_mlp *m, const float *obs, const float *prior, const int *actions, int n,
                    double temp, double *probs) {
    float logits[CV_MLP_MAX_WIDTH];
    float v = cv_mlp_forward(m, obs, prior, logits);
    double top = -1e300, total = 0.0;
    for (int i = 0; i < n; i++)
        if (logits[actions[i]] > top) top = logits[actions[i]];
    for (int i = 0; i < n; i++) total += probs[i] = exp((logits[actions[i]] - top) / temp);
    for (int i = 0; i < n; i++) probs[i] /= total;
    return v;
}
