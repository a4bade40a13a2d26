"""Export a training checkpoint as the in-game AI: a single-file ONNX model + JSON sidecar.

CHECKPOINT is the checkpoint's ``<name>.json`` (its manifest), a ``.safetensors``
file of it or their common stem, or a run folder (``runs/<name>-<time>``): its
last evaluated checkpoint, ``--update N`` or ``--pick best`` (the best of its
evaluated checkpoints against ``--pick-opponent``, as ``python -m training.ship``
picks); where that is ambiguous (an interrupted run whose last.json is past
its last evaluation) or the folder has none, the error names the path to
give.  The checkpoint must verify (``training.checkpoint.load``:
its sha256, finite weights), or nothing is written.  Writes ``--out`` (one
self-contained .onnx, checked with onnx.checker, for finite weights and
against the torch model within 1e-5) and ``<out stem>.json`` (observation
layout and action contract versions, training config, evaluation results,
source checkpoint, sha256).  ``--eval-deals N`` also plays N duplicate deals of
the exported model against ``--eval-opponent`` and adds the result to the
sidecar.  The exported model plays as ``policy:<out>`` without torch.

``cavallo export --rehash FILE`` writes nothing else: it records the sha256 of
a file the user vouches for in a sidecar that has none (a checkpoint's
``.json``/``.safetensors``/stem, or an exported ``.onnx``), after checking that
the file reads and its weights are finite.  A recorded hash is never replaced.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..bots import make
from ..evaluation import duplicate_eval, format_result


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("checkpoint", metavar="CHECKPOINT",
                   help="training checkpoint (.json, .safetensors or their stem) or a run folder; with --rehash "
                        "also a .onnx")
    p.add_argument("--update", type=int, default=None, metavar="N",
                   help="a run folder: export its evaluated checkpoint of update N (default: the last one)")
    p.add_argument("--pick", choices=("last", "best"), default="last",
                   help="a run folder: its last evaluated checkpoint, or the best on a selection evaluation")
    p.add_argument("--pick-deals", type=int, default=1000, metavar="N",
                   help="--pick best: duplicate deals per checkpoint (default 1000, seed 1)")
    p.add_argument("--pick-opponent", default="heuristic", metavar="SPEC",
                   help="--pick best: the opponent (default heuristic)")
    p.add_argument("--out", metavar="MODEL.onnx", help="the ONNX file to write (its sidecar is MODEL.json); required "
                                                      "unless --rehash")
    p.add_argument("--rehash", action="store_true",
                   help="only record the sha256 of CHECKPOINT (or of a .onnx) in its sidecar where it is missing, "
                        "for a file you vouch for; a recorded hash is never replaced")
    p.add_argument("--eval-deals", type=int, default=0, metavar="N",
                   help="also evaluate the exported model over N duplicate deals and record it (default 0: no)")
    p.add_argument("--eval-opponent", default="greedy", metavar="SPEC", help="opponent of that evaluation (default greedy)")
    p.add_argument("--eval-seed", type=int, default=0, help="seed of that evaluation (default 0)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes of the evaluation (default: all cores)")


def run(args) -> int:
    if args.rehash:
        return rehash(args)
    if not args.out:
        raise ValueError("give --out MODEL.onnx, the file to write (or --rehash to only record a hash)")
    from training.export import export_checkpoint  # lazy: the trainer package, never imported by cavallo_env at module level

    from ..bots.policy import add_evaluation  # lazy: numpy, kept out of `cavallo --help`

    if args.eval_deals < 0:
        raise ValueError(f"--eval-deals must be >= 0, got {args.eval_deals}")
    if args.eval_deals:
        make(args.eval_opponent, seed=0)  # a bad spec fails before anything is written
    onnx_path, json_path = export_checkpoint(checkpoint_of(args), args.out)
    print(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.2f} MB) and {json_path}")
    if args.eval_deals:
        spec = f"policy:{onnx_path}"
        result = duplicate_eval(spec, args.eval_opponent, args.eval_deals, seed=args.eval_seed, jobs=args.jobs)
        print(format_result(result))
        add_evaluation(onnx_path, {f"vs_{args.eval_opponent}": result.to_dict()})
        print(f"added the evaluation to {json_path}")
    return 0


def checkpoint_of(args) -> Path:
    """``args.checkpoint``, or for a run folder the checkpoint picked from it (module doc)."""
    path = Path(args.checkpoint)
    if not path.is_dir():
        if args.update is not None or args.pick != "last":
            raise ValueError("--update and --pick choose a checkpoint of a run folder; CHECKPOINT is a file")
        return path
    if args.update is not None and args.pick != "last":
        raise ValueError("--update N and --pick best each choose the checkpoint: give one of them")
    if args.update is not None and args.update < 0:
        raise ValueError(f"--update must be an update number (0 or more), not {args.update}")
    from training.run import config_of_run  # lazy: the trainer package, never imported by cavallo_env at module level
    from training.ship import pick_checkpoint, selector, single_deal_options  # lazy: the trainer package

    select = None
    if args.pick == "best":
        cfg = config_of_run(path)
        select = selector(cfg.game, single_deal_options(cfg), args.pick_opponent, args.pick_deals, 1, args.jobs or 2)
    chosen = pick_checkpoint(path, update=args.update, pick=args.pick, select=select, evaluated_only=False)
    print(f"{path}: exporting {chosen}")
    return chosen


def rehash(args) -> int:
    """``--rehash``: record the sha256 of a checkpoint's tensors or of an exported model."""
    if args.out or args.eval_deals:
        raise ValueError("--rehash only records a hash: leave out --out and --eval-deals")
    path = Path(args.checkpoint)
    if path.suffix == ".onnx":
        from ..bots.policy import rehash_model  # lazy: numpy, kept out of `cavallo --help`

        where, sha, changed = rehash_model(path)
    else:
        from training.checkpoint import rehash as rehash_checkpoint  # lazy: the trainer package, never imported by cavallo_env at module level

        where, sha, changed = rehash_checkpoint(path)
    if changed:
        print(f"recorded sha256 {sha} in {where}")
    else:
        print(f"{where} already records sha256 {sha}, which the file matches: nothing to do")
    return 0
