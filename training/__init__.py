"""PyTorch self-play training for cavallo-env (imports the package, never the reverse).

- ``training.model``       the policy/value network
- ``training.checkpoint``  safetensors weights + JSON sidecar, written atomically
"""
