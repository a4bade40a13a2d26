"""The learning step of expert iteration: the network fitted to the expert's decisions.

``fit`` runs ``epochs`` passes over the replay window in minibatches (their
order from the run's torch generator): cross-entropy between the network's
masked policy and the expert's root visit distribution, plus ``vf_coef``
times half the squared error of the value head against the decision's final
result, one Adam step per minibatch with the gradient norm clipped.
``agreement`` measures, before a generation's training, how often the
network's most probable action is the expert's most visited one.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F


def _tensors(data: dict) -> tuple:
    prior = data.get("prior")
    return (torch.from_numpy(data["obs"]), torch.from_numpy(data["mask"]),
            None if prior is None else torch.from_numpy(prior),
            torch.from_numpy(data["targets"]), torch.from_numpy(data["returns"]))


def fit(model, opt, data: dict, cfg, gen: torch.Generator) -> dict:
    """Train ``model`` on ``data`` (``cfg``: the config's ``train`` section); the mean losses."""
    obs, mask, prior, targets, returns = _tensors(data)
    n = len(returns)
    n_mb = max(1, n // cfg.minibatch_size)
    for group in opt.param_groups:
        group["lr"] = cfg.lr
    model.train()
    total = {"loss_policy": 0.0, "loss_value": 0.0}
    for _ in range(cfg.epochs):
        for idx in torch.tensor_split(torch.randperm(n, generator=gen), n_mb):
            logits, value = model(obs[idx], mask[idx], None if prior is None else prior[idx])
            ce = -(targets[idx] * torch.log_softmax(logits, dim=-1)).sum(-1).mean()
            lv = 0.5 * F.mse_loss(value, returns[idx])
            opt.zero_grad(set_to_none=True)
            (ce + cfg.vf_coef * lv).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            opt.step()
            total["loss_policy"] += ce.item()
            total["loss_value"] += lv.item()
    model.eval()
    return {k: v / (cfg.epochs * n_mb) for k, v in total.items()}


@torch.no_grad()
def agreement(model, data: dict) -> dict:
    """How often the network's top action is the expert's most visited one (decisions with a
    choice), and the mean entropy of the expert's visit distribution there."""
    obs, mask, prior, targets, _ = _tensors(data)
    choice = mask.sum(-1) > 1
    if not bool(choice.any()):
        return {"agreement": 1.0, "target_entropy": 0.0}
    logits, _ = model(obs[choice], mask[choice], None if prior is None else prior[choice])
    t = targets[choice]
    agree = (logits.argmax(-1) == t.argmax(-1)).float().mean().item()
    t64 = t.double()
    entropy = -(t64 * torch.log(torch.where(t64 > 0, t64, torch.ones_like(t64)))).sum(-1).mean().item()
    return {"agreement": agree, "target_entropy": float(np.float64(entropy))}
