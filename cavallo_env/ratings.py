"""Elo ratings of a round robin, fitted to all its games at once (Bradley-Terry).

A bot's strength is a number ``r``; bot i scores against bot j with the
probability ``1 / (1 + 10 ** ((r_j - r_i) / 400))`` (Elo's scale: 200 points
ahead scores 76 %).  The ratings are those under which the round robin's
results are most likely (maximum likelihood), a draw counting as half a win
for each side, with one virtual draw added to every pair that played (the
prior of BayesElo: it keeps a bot that lost every game finite, and moves a
pair of 200 games by well under a point).  They average 0 over the bots.

Unlike a rating updated game by game, the fit does not depend on the order
in which the games are fed, and it agrees with the score matrix: it uses
only each pair's games and total score.  The 95 % interval of each rating
comes from the curvature of the likelihood at its top (the observed
information), relative to the field's mean; games of one duplicate deal are
counted as independent, which makes the interval a little wide, not narrow.
"""

from __future__ import annotations

import math

import numpy as np

from .evaluation import Z95

ELO = 400.0 / math.log(10.0)  # Elo points per unit of the natural log-odds
PRIOR_DRAWS = 1.0  # virtual draws added to each pair that played
MAX_NEWTON = 200
MAX_STEP = 2.0  # the longest Newton step, in natural log-odds (870 Elo)


def fit(bots: list[str], pairs: dict) -> dict:
    """``{bot: {"elo", "elo_ci": [lo, hi]}}`` from ``pairs[(i, j)] = (score of i, games)``.

    ``i`` and ``j`` index ``bots``; the score counts a win 1 and a draw 1/2.
    Bots that no game connects to the others keep rating 0 (with an infinite
    interval): nothing says how strong they are against the rest.
    """
    n = len(bots)
    score = np.zeros((n, n))
    games = np.zeros((n, n))
    for (i, j), (s, g) in pairs.items():
        if not (0 <= s <= g) or i == j:
            raise ValueError(f"pair {bots[i]} vs {bots[j]}: a score of {s} in {g} games is not a result")
        if g:
            score[i, j] += s + PRIOR_DRAWS / 2
            score[j, i] += g - s + PRIOR_DRAWS / 2
            games[i, j] = games[j, i] = games[i, j] + g + PRIOR_DRAWS
    theta = _newton(score, games)
    cov = np.linalg.pinv(_information(theta, games))
    connected = games.sum(axis=1) > 0
    out = {}
    for k, b in enumerate(bots):
        half = Z95 * math.sqrt(max(float(cov[k, k]), 0.0)) * ELO if connected[k] else math.inf
        elo = float(ELO * theta[k])
        out[b] = {"elo": elo, "elo_ci": [elo - half, elo + half]}
    return out


def _win_probability(theta: np.ndarray) -> np.ndarray:
    """``p[i, j]``: the probability that i scores against j, from the log-strengths ``theta``."""
    return 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))


def _information(theta: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Minus the Hessian of the log-likelihood in natural units: sum of N p (1 - p) (e_i - e_j)(e_i - e_j)^T."""
    p = _win_probability(theta)
    w = games * p * (1.0 - p)
    return np.diag(w.sum(axis=1)) - w


def _newton(score: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The log-strengths (mean 0) that maximize the likelihood: Newton's method on a concave function."""
    theta = np.zeros(len(score))
    for _ in range(MAX_NEWTON):
        grad = score.sum(axis=1) - (games * _win_probability(theta)).sum(axis=1)
        step = np.linalg.pinv(_information(theta, games)) @ grad
        step *= min(1.0, MAX_STEP / max(np.max(np.abs(step)), 1e-300))  # damped: no overshoot from a flat start
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-12:
            break
    return theta
