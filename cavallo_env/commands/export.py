"""Export a training checkpoint as the in-game AI: a single-file ONNX model + JSON sidecar.

CHECKPOINT is ``<name>.safetensors``, ``<name>.json`` or their common stem.
Writes ``--out`` (one self-contained .onnx, checked with onnx.checker and
against the torch model within 1e-5) and ``<out stem>.json`` (observation
layout and action contract versions, training config, evaluation results,
source checkpoint, sha256).  ``--eval-deals N`` also plays N duplicate deals of
the exported model against ``--eval-opponent`` and adds the result to the
sidecar.  The exported model plays as ``policy:<out>`` without torch.
"""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("checkpoint", metavar="CHECKPOINT", help="training checkpoint (.safetensors, .json or their stem)")
    p.add_argument("--out", required=True, metavar="MODEL.onnx", help="the ONNX file to write (its sidecar is MODEL.json)")
    p.add_argument("--eval-deals", type=int, default=0, metavar="N",
                   help="also evaluate the exported model over N duplicate deals and record it (default 0: no)")
    p.add_argument("--eval-opponent", default="greedy", metavar="SPEC", help="opponent of that evaluation (default greedy)")
    p.add_argument("--eval-seed", type=int, default=0, help="seed of that evaluation (default 0)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes of the evaluation (default: all cores)")


def run(args) -> int:
    from training.export import export_checkpoint

    from ..bots.policy import add_evaluation

    if args.eval_deals < 0:
        raise ValueError(f"--eval-deals must be >= 0, got {args.eval_deals}")
    if args.eval_deals:
        from ..bots import make

        make(args.eval_opponent, seed=0)  # a bad spec fails before anything is written
    onnx_path, json_path = export_checkpoint(args.checkpoint, args.out)
    print(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.2f} MB) and {json_path}")
    if args.eval_deals:
        from ..evaluation import duplicate_eval, format_result

        spec = f"policy:{onnx_path}"
        result = duplicate_eval(spec, args.eval_opponent, args.eval_deals, seed=args.eval_seed, jobs=args.jobs)
        print(format_result(result))
        add_evaluation(onnx_path, {f"vs_{args.eval_opponent}": result.to_dict()})
        print(f"added the evaluation to {json_path}")
    return 0
