"""Imitate the search with another mix of its move and its root visit counts, without a new search.

    .venv/bin/python experiments/soft_mix.py CONFIG SOFT

Runs ``cavallo train --config CONFIG --stop-at 0`` (the warm start only), but reads the
teacher's recorded deals as recorded with ``pretrain.soft: 0.5`` (``runs/teacher-cache``,
the 2,400 ``ismcts:1000`` deals of ``configs/default.yaml``) and re-mixes their targets as
``(1 - SOFT) * move + SOFT * visits``.  The visit distribution is recovered from the 0.5
mix as ``(target - 0.5 * move) / 0.5``.  Use it with a config whose deals, seed and teacher
are default.yaml's (e.g. ``configs/experiments/ensemble-4.yaml``), then score the run:

    cavallo eval checkpoint:runs/<run>/checkpoints/update-00000 heuristic --deals 4000 --seed 2 --jobs 2

docs/training.md, step 10, has what it measured.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RECORDED_SOFT = 0.5


def remix(data: dict, soft: float) -> dict:
    """``data`` (recorded with ``RECORDED_SOFT``) with targets ``(1 - soft) * move + soft * visits``."""
    import numpy as np

    move = np.zeros_like(data["targets"])
    move[np.arange(len(data["actions"])), data["actions"]] = 1.0
    visits = (data["targets"] - (1.0 - RECORDED_SOFT) * move) / RECORDED_SOFT
    data["targets"] = ((1.0 - soft) * move + soft * visits).astype(np.float32)
    return data


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    config, soft = argv[0], float(argv[1])
    if not 0.0 <= soft <= 1.0:
        print(f"SOFT must be in 0..1, got {soft}", file=sys.stderr)
        return 2

    import training.pretrain as pretrain
    from cavallo_env.cli import main as cavallo

    recorded = pretrain.teacher_games

    def remixed(*args, **kwargs):
        kwargs["soft"] = RECORDED_SOFT  # the recorded blocks' key
        return remix(recorded(*args, **kwargs), soft)

    pretrain.teacher_games = remixed  # training.ppo imports it when the warm start begins
    return cavallo(["train", "--config", config, "--stop-at", "0"])


if __name__ == "__main__":
    sys.exit(main())
