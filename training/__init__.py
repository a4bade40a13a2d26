"""PyTorch self-play training for cavallo-env, for every game (imports the package, never the reverse).

Read ``training.ppo`` top to bottom; the seams it stands on:

- ``training.config``      the YAML config schema (game, model, ppo, league, eval, warm start), validated first
- ``training.run``         ``Run``: model, optimizer, league, generators, counters; save, load, evaluate
- ``training.rollout``     the driver: games in lockstep, batched masked sampling, the learner's decisions
                           into a ``Buffer`` (per game and team)
- ``training.advantages``  ``gae`` and ``paired`` advantages over the buffer, and the PPO batch
- ``training.warmstart``   the warm start: imitation of a teacher bot (a search, with its visit counts)
- ``training.ppo``         the loop (``cavallo train``) and the clipped PPO update
- ``training.league``      frozen snapshots (prioritised) + fixed bots as opponents
- ``training.model``       the policy/value network; its ``forward`` is the one forward pass
- ``training.logs``        metrics.csv, TensorBoard scalars, learning_curve.png
- ``training.checkpoint``  safetensors weights + JSON sidecar, written atomically, checked on load
- ``training.export``      the ONNX export of the in-game AI, checked against torch
- ``training.policy_bot``  the ``checkpoint:<path>`` bot (torch), for evaluation without an export
- ``training.ship``        copy an evaluated checkpoint to ``checkpoints/`` and evaluate it
- ``training.rllib``       the same training on Ray RLlib (``cavallo train --backend rllib``, docs/rllib.md)

What is game-specific (observation, actions, heuristic prior, deals) comes
from the game's ``Learning`` (``cavallo_env.games.learning``).
"""
