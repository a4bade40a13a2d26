"""The round robin's Elo fit: the likelihood's top, its intervals, and what it does with lopsided results."""

import math
import random

import numpy as np
import pytest

from cavallo_env import ratings


def _log_likelihood(elos, pairs):
    total = 0.0
    for (i, j), (s, g) in pairs.items():
        s, g = s + ratings.PRIOR_DRAWS / 2, g + ratings.PRIOR_DRAWS
        p = 1 / (1 + 10 ** ((elos[j] - elos[i]) / 400))
        total += s * math.log(p) + (g - s) * math.log(1 - p)
    return total


def test_two_bots_the_fit_is_the_elo_of_the_score():
    """Two bots: the rating gap is exactly the Elo of the (prior-smoothed) score, split evenly about 0."""
    r = ratings.fit(["a", "b"], {(0, 1): (150, 200)})
    p = (150 + 0.5) / 201
    assert r["a"]["elo"] - r["b"]["elo"] == pytest.approx(400 * math.log10(p / (1 - p)), abs=1e-9)
    assert r["a"]["elo"] == pytest.approx(-r["b"]["elo"], abs=1e-9)
    lo, hi = r["a"]["elo_ci"]
    assert lo < r["a"]["elo"] < hi and hi - r["a"]["elo"] == pytest.approx(r["a"]["elo"] - lo)


def test_the_fit_is_the_top_of_the_likelihood():
    """Any nudge of any rating makes the results less likely; the ratings average 0."""
    rng = random.Random(3)
    pairs = {(i, j): (rng.randint(0, 200) / 2, 100) for i in range(5) for j in range(i + 1, 5)}
    r = ratings.fit(list("abcde"), pairs)
    elos = [r[b]["elo"] for b in "abcde"]
    assert sum(elos) == pytest.approx(0.0, abs=1e-6)
    best = _log_likelihood(elos, pairs)
    for k in range(5):
        for d in (-1.0, 1.0):
            nudged = list(elos)
            nudged[k] += d
            assert _log_likelihood(nudged, pairs) < best


def test_the_order_of_the_results_does_not_matter_and_orientation_is_consistent():
    """(i, j) with score s is the same result as (j, i) with score g - s; the dict's order is irrelevant."""
    pairs = {(0, 1): (120, 200), (0, 2): (90.5, 200), (1, 2): (70, 200)}
    flipped = {(1, 0): (80, 200), (2, 1): (130, 200), (2, 0): (109.5, 200)}
    a, b = ratings.fit(["x", "y", "z"], pairs), ratings.fit(["x", "y", "z"], flipped)
    for k in "xyz":
        assert a[k]["elo"] == pytest.approx(b[k]["elo"], abs=1e-6)


def test_lopsided_results_stay_finite_and_intervals_shrink_with_games():
    """A bot that lost every game gets a finite rating far below; more games, narrower intervals."""
    r = ratings.fit(["random", "b", "c"], {(0, 1): (0, 200), (0, 2): (0, 200), (1, 2): (100, 200)})
    assert all(math.isfinite(v["elo"]) for v in r.values())
    assert r["random"]["elo"] < -600 and r["b"]["elo"] == pytest.approx(r["c"]["elo"], abs=1e-6)
    small = ratings.fit(["a", "b"], {(0, 1): (60, 100)})
    big = ratings.fit(["a", "b"], {(0, 1): (600, 1000)})
    width = lambda f: f["a"]["elo_ci"][1] - f["a"]["elo_ci"][0]  # noqa: E731
    assert width(big) < width(small) / 3


def test_the_interval_covers_the_truth_about_95_percent_of_the_time():
    """Simulated round robins of known strengths: each 95 % interval of a rating gap holds the true one."""
    truth = np.array([-300.0, -50.0, 0.0, 100.0])
    rng = np.random.default_rng(0)
    covered = 0
    runs = 200
    for _ in range(runs):
        pairs = {}
        for i in range(4):
            for j in range(i + 1, 4):
                p = 1 / (1 + 10 ** ((truth[j] - truth[i]) / 400))
                pairs[(i, j)] = (float(rng.binomial(200, p)), 200)
        r = ratings.fit(list("abcd"), pairs)
        lo, hi = r["d"]["elo_ci"]
        covered += lo <= truth[3] - truth.mean() <= hi
    assert 0.88 <= covered / runs <= 0.995


def test_bad_results_are_refused_and_unplayed_bots_have_no_interval():
    with pytest.raises(ValueError, match="a score of 5 in 4 games is not a result"):
        ratings.fit(["a", "b"], {(0, 1): (5, 4)})
    with pytest.raises(ValueError, match="is not a result"):
        ratings.fit(["a", "b"], {(0, 1): (-1, 4)})
    r = ratings.fit(["a", "b", "alone"], {(0, 1): (3, 4)})
    assert r["alone"]["elo"] == pytest.approx(0.0, abs=1e-9) and r["alone"]["elo_ci"] == [-math.inf, math.inf]
