"""Self-play of one generation of expert iteration: the expert in every seat, every decision recorded.

Each decision is kept as the network reads it (the seat's observation, the
legal-action mask, the heuristic prior when the model reads it: the warm
start's recorder, ``training.warmstart._teacher_chunk``), with the expert's root
visit distribution carried over to actions as the policy target (``targets``,
rows summing to 1; ``soft`` below 1 mixes in the move played) and the deciding
team's final result as the value target (``returns``: its point difference / ``reward_scale``, or +1/0/-1 for
``reward: win``, the units of the value head).  Deals and bot seeds are drawn
from the run's generator before any is played, and the deals are played in
chunks collected in order, so the data is the same for any number of
processes.
"""

from __future__ import annotations

import multiprocessing as mp

import numpy as np

from .warmstart import _teacher_chunk, concat_decisions

#: deals per task handed to a worker process
CHUNK_DEALS = 4
#: the arrays of a generation's data (``prior`` only for a network that reads the prior)
KEYS = ("obs", "mask", "prior", "targets", "returns", "actions")


def draw_deals(rng: np.random.Generator, deals: int, seats: int) -> list:
    """``deals`` pairs ``(deal seed, [bot seed of each seat])`` from ``rng``."""
    return [(int(rng.integers(1 << 62)), [int(rng.integers(1 << 62)) for _ in range(seats)]) for _ in range(deals)]


def play_chunk(seeds: list, game_name: str, options: dict, spec: str, reward: str, scale: float,
               prior: bool, soft: float = 1.0) -> dict:
    """The decisions of the deals ``seeds`` played by the expert ``spec`` in every seat: the warm
    start's teacher games (``soft``: the visit distribution's weight in the target, the rest on
    the move played)."""
    import torch  # lazy: only where a network is read

    torch.set_num_threads(1)  # one thread per worker process
    from . import expert_bot  # noqa: F401  (lazy: registers the expert bot kind in this process)

    return _teacher_chunk(seeds, game_name, options, spec, reward, scale, prior, soft)


def _chunk_args(args):
    return play_chunk(*args)


def self_play(seeds: list, game_name: str, options: dict, spec: str, reward: str, scale: float, prior: bool,
              soft: float = 1.0, jobs: int = 1, advance=None) -> dict:
    """Every decision of the deals ``seeds`` (see the module doc); ``advance(n)`` after each chunk."""
    chunks = [seeds[i:i + CHUNK_DEALS] for i in range(0, len(seeds), CHUNK_DEALS)]
    work = (game_name, options, spec, reward, scale, prior, soft)
    parts = []
    if jobs <= 1 or len(chunks) < 2:
        for c in chunks:
            parts.append(play_chunk(c, *work))
            if advance is not None:
                advance(len(c))
    else:
        with mp.get_context("fork").Pool(min(jobs, len(chunks))) as pool:
            for c, part in zip(chunks, pool.imap(_chunk_args, [(c, *work) for c in chunks])):
                parts.append(part)
                if advance is not None:
                    advance(len(c))
    data = concat_decisions(parts)
    return {k: data[k] for k in KEYS if data.get(k) is not None}
