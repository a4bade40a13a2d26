"""PyTorch self-play training for cavallo-env (imports the package, never the reverse).

- ``training.model``       the policy/value network (and the optional centralised critic)
- ``training.checkpoint``  safetensors weights + JSON sidecar, written atomically
- ``training.config``      the YAML config schema, validated before anything runs
- ``training.selfplay``    many deals in lockstep with batched, masked sampling; GAE
- ``training.league``      frozen snapshots (prioritised) + fixed bots as opponents
- ``training.ppo``         the training loop (``cavallo train``), logs, checkpoints, resume
- ``training.policy_bot``  ``checkpoint:<path>`` bot (numpy) for duplicate evaluation
- ``training.ship``        copy an evaluated checkpoint to ``checkpoints/`` and evaluate it
"""
