"""Training on Ray RLlib (new API stack): the same games, network and checkpoints, on a cluster.

    pip install -e '.[rllib]'
    cavallo train --backend rllib --config configs/rllib/briscola.yaml [--address auto]

RLlib scales the project's self-play PPO out: env runners (one process each,
on any machine of a Ray cluster) play the games, a learner updates the
network.  What it learns comes back as an ordinary checkpoint of the project
(``checkpoints/update-NNNNN``, ``last``), so ``cavallo export``, ``cavallo
eval checkpoint:...``, ``policy:`` bots and ``cavallo serve`` take it as they
take one of ``cavallo train``.  The pieces, one small module each:

- ``training.rllib.config``   the YAML schema (``configs/rllib/<game>.yaml``): the project's
                              model/ppo/league/eval sections plus an ``rllib`` section
- ``training.rllib.env``      the adapter: the game's PettingZoo AEC env with RLlib's masking
                              keys, fixed bots played inside it, wrapped in RLlib's ``PettingZooEnv``
- ``training.rllib.module``   ``MaskedPolicyModule``: a PPO RLModule around ``training.model.PolicyNet``
- ``training.rllib.selfplay`` the league: who plays whom per episode (main, frozen snapshots,
                              greedy, heuristic), team-aware agent-to-module mapping, snapshots
- ``training.rllib.convert``  RLModule weights <-> the project's checkpoint format
- ``training.rllib.train``    the PPOConfig and the training loop (``cavallo train --backend rllib``)

Nothing here is imported by ``cavallo_env``; only ``convert``'s checkpoint half
and ``config`` work without Ray installed.  See docs/rllib.md.
"""

from __future__ import annotations

INSTALL_HINT = "pip install -e '.[rllib]'"


def require_ray():
    """Import ray (and RLlib) or raise ``ImportError`` saying how to install it."""
    try:
        import ray  # noqa: F401  (lazy: ray, the optional rllib extra)
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401  (lazy: ray)
    except ImportError as e:
        raise ImportError(f"the RLlib backend needs Ray RLlib ({e}); install it with: {INSTALL_HINT}") from None
    return ray
