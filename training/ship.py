"""Ship a trained model: copy one evaluated checkpoint of a run to ``checkpoints/``
and evaluate it on 1,000 fresh duplicate deals against the fixed bots.

    python -m training.ship runs/default-20261130-202623 [--update N | --pick best] [--deals 1000]
    python -m training.ship runs/briscola-20261202-040354 --pick best      # -> checkpoints/briscola.*

Writes ``checkpoints/cavalloicera.safetensors`` (Cavalloìcera; other games
``checkpoints/<game>.*``: the ``model.*`` weights only, a few MB) and the
JSON sidecar (game, config, seed, step, observation layout version, how it
was trained, and the evaluation results), then prints the evaluation table
for the README.  Scopa is evaluated on single deals (``--deals``) and on
whole matches to 11 (``--match-deals``).  The evaluation deals use ``--seed``
(default 0), not the run's periodic-evaluation seed, so picking an update by
its periodic score does not bias the shipped numbers.  ``--pick best`` chooses
the update itself: every evaluated checkpoint of the run plays ``--pick-deals``
duplicate deals against ``--pick-opponent`` on ``--pick-seed`` (default 1,
again not the shipping seed), and the best score is shipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cavallo_env.evaluation import duplicate_eval, format_result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.ship",
                                 description="copy an evaluated checkpoint of a run to checkpoints/ and evaluate it")
    ap.add_argument("run_dir", help="the run directory (runs/<name>-<time>/)")
    ap.add_argument("--update", type=int, default=None, help="which evaluated update (default: the last one)")
    ap.add_argument("--pick", choices=["last", "best"], default="last",
                    help="without --update: ship the last evaluated update, or the best on a separate selection evaluation")
    ap.add_argument("--pick-deals", type=int, default=1000, help="duplicate deals of the selection evaluation (default 1000)")
    ap.add_argument("--pick-seed", type=int, default=1,
                    help="seed of the selection deals, apart from the reported ones (default 1)")
    ap.add_argument("--pick-opponent", default="heuristic", help="opponent of the selection evaluation (default heuristic)")
    ap.add_argument("--out", default=None,
                    help="where to write the model (default checkpoints/<game>)")
    ap.add_argument("--deals", type=int, default=1000, help="duplicate deals of the reported evaluation (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the reported evaluation (default 0)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--opponents", default="greedy,heuristic",
                    help="the reported evaluation's opponents, comma-separated (default greedy,heuristic)")
    ap.add_argument("--command", default=None,
                    help="the command that trained the run (recorded in the sidecar; default: "
                         "cavallo train --config configs/<the run's config name>.yaml)")
    ap.add_argument("--match-deals", type=int, default=200,
                    help="Scopa: duplicate whole matches to 11 per opponent, besides the --deals single deals "
                         "(default 200; 0 = none)")
    args = ap.parse_args(argv)

    from . import checkpoint as ckpt  # lazy: torch, after the arguments parse
    from . import policy_bot  # noqa: F401  (lazy: registers the checkpoint:<path> bot kind)

    run = Path(args.run_dir)
    from .run import config_of_run  # lazy: torch, after the arguments parse

    cfg = config_of_run(run)
    game = cfg.game
    options = dict(cfg.game_options)
    if args.out is None:
        args.out = f"checkpoints/{game}"
    if args.command is None:
        args.command = f"cavallo train --config configs/{cfg.name}.yaml"
    # Scopa's shipped numbers are on single deals (and on whole matches, below)
    eval_options = dict(options, match=False) if "match" in options or game == "scopa" else options
    cks = sorted((run / "checkpoints").glob("update-*.json"))
    if not cks:
        raise SystemExit(f"{run}: no evaluated checkpoints (checkpoints/update-*.json)")
    src = cks[-1] if args.update is None else run / "checkpoints" / f"update-{args.update:05d}.json"
    selection = None
    if args.update is None and args.pick == "best":
        selection = []
        for ck in cks:
            r = duplicate_eval(f"checkpoint:{ck}", args.pick_opponent, args.pick_deals, seed=args.pick_seed,
                               jobs=args.jobs, game=game, **eval_options)
            selection.append({"checkpoint": ck.name, "score": r.score, "mean_diff": r.mean_diff})
            print(f"selection: {ck.stem} vs {args.pick_opponent}: {100 * r.score:.1f}% ({r.mean_diff:+.2f} pts), "
                  f"{args.pick_deals} deals, seed {args.pick_seed}")
        best = max(selection, key=lambda d: (d["score"], d["mean_diff"]))
        src = run / "checkpoints" / best["checkpoint"]
        print(f"selection: shipping {src.stem}")
    tensors, meta = ckpt.load(src)
    last_tensors, last_meta = ckpt.load(run / "checkpoints" / "last")
    model = {k: v for k, v in tensors.items() if k.startswith("model.")}
    counters = meta["counters"]
    info = {
        "command": args.command,
        "run": run.name,
        "seed": meta["seed"],
        "updates": counters["update"],
        "decisions": counters["decisions"],
        "learner_decisions": counters["learner_decisions"],
        "training_wall_s": counters["wall_s"],
        "pretrain": counters.get("pretrain"),  # the warm start: deals, time, imitation accuracy
        "run_updates_total": last_meta["counters"]["update"],
        "selection": None if selection is None else {
            "opponent": args.pick_opponent, "deals": args.pick_deals, "seed": args.pick_seed, "results": selection},
        "periodic_evals": meta.get("evals", []),
    }
    out = Path(args.out)
    ship_meta = {"game": game, "config": meta["config"], "seed": meta["seed"], "step": meta["step"],
                 "kind": "model", "training": info, "evals": []}
    ckpt.save(out, model, ship_meta)
    results = []
    modes = [("", eval_options, args.deals)]
    if game == "scopa" and args.match_deals:
        modes.append(("matches to 11", dict(options, match=True), args.match_deals))
    for label, opts, deals in modes:
        for spec in args.opponents.split(","):
            r = duplicate_eval(f"checkpoint:{out.with_suffix('.json')}", spec, deals, seed=args.seed, jobs=args.jobs,
                               game=game, **opts)
            print(format_result(r))
            print()
            d = r.to_dict()
            d.pop("timing", None)
            d["bot_a"] = str(out)
            d["game"], d["options"] = game, opts
            results.append(d)
    ship_meta["evals"] = results
    ckpt.save(out, model, ship_meta)
    print("| opponent | deals | W / D / L | score (draws 1/2) | 95% CI | points/game (model - bot) |")
    print("|---|---|---|---|---|---|")
    for d in results:
        lo, hi = d["score_ci"]
        dlo, dhi = d["mean_diff_ci"]
        what = d["bot_b"] + (" (matches)" if d["options"].get("match") else "")
        print(f"| {what} | {d['deals']} | {d['wins']} / {d['draws']} / {d['losses']} | {100 * d['score']:.1f}% | "
              f"[{100 * lo:.1f}%, {100 * hi:.1f}%] | {d['mean_diff']:+.2f} [{dlo:+.2f}, {dhi:+.2f}] |")
    print(json.dumps({k: v for k, v in info.items() if k != "periodic_evals"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
