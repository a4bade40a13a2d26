"""Ship a trained model: copy one evaluated checkpoint of a run to ``checkpoints/``
and evaluate it on 1,000 fresh duplicate deals against the fixed bots.

    python -m training.ship runs/default-20261130-202623 [--update N | --pick best] [--deals 1000]
    python -m training.ship runs/scopa-20261202-040354 --pick best         # -> checkpoints/scopa.*
    python -m training.ship runs/expert-briscola-q10k --generation 9       # a generation of cavallo expert

Writes ``checkpoints/<game>.json`` and the ``<game>.<16 hex>.safetensors`` it
names (``--out``; the ``model.*`` weights only, a few MB): the JSON sidecar
holds the game, config, seed, step, observation layout version, how it was
trained and the evaluation results.  Then prints the evaluation table
for the README.  Scopa is evaluated on single deals (``--deals``) and on
whole matches to 11 (``--match-deals``).  The evaluation deals use ``--seed``
(default 0), not the run's periodic-evaluation seed, so picking an update by
its periodic score does not bias the shipped numbers.  ``--pick best`` chooses
the update itself: every evaluated checkpoint of the run plays ``--pick-deals``
duplicate deals against ``--pick-opponent`` on ``--pick-seed`` (default 1,
again not the shipping seed), and the best score is shipped.  A run of
``cavallo expert`` (``checkpoints/gen-NNNNN.json``) ships its last generation,
``--generation N``, or the best generation by the same selection.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cavallo_env import games
from cavallo_env.evaluation import duplicate_eval, format_result


class PickError(ValueError):
    """A run folder whose checkpoint cannot be picked as asked; the message names the path to give."""


def evaluated_checkpoints(run: Path) -> list[Path]:
    """The run's evaluated checkpoints (``checkpoints/update-NNNNN.json``), oldest first."""
    return sorted((Path(run) / "checkpoints").glob("update-*.json"))


def pick_checkpoint(run: Path, *, update: int | None = None, pick: str = "last", select=None,
                    evaluated_only: bool = True) -> Path:
    """The checkpoint of run folder ``run`` to ship or export (its ``.json``).

    ``update``: that evaluated update; else ``pick="last"``: the last evaluated
    update (without ``evaluated_only``, ``checkpoints/last.json`` where the run has
    no evaluated one; where last.json is further than the last evaluated one, an
    interrupted run, which to take is ambiguous: ``PickError`` names both);
    ``pick="best"``: the evaluated update with the best ``select(path) -> score``.
    """
    run = Path(run)
    if not (run / "checkpoints").is_dir():
        found = sorted(run.glob("*.json"))
        hint = f"one of its checkpoints, e.g. {found[0]}" if found else "a checkpoint's .json or a run folder"
        raise PickError(f"{run}: not a run folder (no checkpoints/ in it); give {hint}")
    cks = evaluated_checkpoints(run)
    last = run / "checkpoints" / "last.json"
    if update is not None:
        src = run / "checkpoints" / f"update-{update:05d}.json"
        if not src.exists():
            raise PickError(f"{src}: no such evaluated checkpoint; the run has "
                            f"{', '.join(p.name for p in cks) or 'none'}")
        return src
    if pick == "best":
        if not cks:
            raise PickError(f"{run}: no evaluated checkpoints (checkpoints/update-*.json) to pick the best of")
        return max(cks, key=select)
    if evaluated_only or not last.exists():
        if not cks:
            raise PickError(f"{run}: no evaluated checkpoints (checkpoints/update-*.json)"
                            + ("" if evaluated_only else " and no checkpoints/last.json: nothing to export"))
        return cks[-1]
    step = _step(last)
    if not cks:
        return last
    if step is not None and step > _step(cks[-1]):
        raise PickError(f"{run}: ambiguous: {last} is at update {step}, past the last evaluated checkpoint "
                        f"{cks[-1]} (update {_step(cks[-1])}); give one of those paths, or --update N")
    return cks[-1]


def single_deal_options(cfg) -> dict:
    """The options a run's model is evaluated with when shipped: a game of matches (Scopa) on single deals."""
    options = dict(cfg.game_options)
    return dict(options, match=False) if "match" in options or _has_matches(cfg.game) else options


def _has_matches(game: str) -> bool:
    """Whether ``game`` plays matches of several deals (its option ``match``: Scopa)."""
    return "match" in games.get(game).options


def selector(game: str, options: dict, opponent: str, deals: int, seed: int, jobs: int, record: list | None = None):
    """``select`` for ``pick_checkpoint(pick="best")``: a checkpoint's duplicate score and point
    difference against ``opponent`` on ``deals`` deals from ``seed`` (printed, and added to ``record``)."""

    def select(ck: Path) -> tuple:
        r = duplicate_eval(f"checkpoint:{ck}", opponent, deals, seed=seed, jobs=jobs, game=game, **options)
        if record is not None:
            record.append({"checkpoint": ck.name, "score": r.score, "mean_diff": r.mean_diff})
        print(f"selection: {ck.stem} vs {opponent}: {100 * r.score:.1f}% ({r.mean_diff:+.2f} pts), "
              f"{deals} deals, seed {seed}")
        return r.score, r.mean_diff

    return select


def _step(manifest: Path) -> int | None:
    """The update a checkpoint manifest records (``step``), None if unreadable."""
    try:
        return int(json.loads(manifest.read_text(encoding="utf-8"))["step"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m training.ship",
                                 description="copy an evaluated checkpoint of a run to checkpoints/ and evaluate it")
    ap.add_argument("run_dir", help="the run directory (runs/<name>-<time>/)")
    ap.add_argument("--update", type=int, default=None, help="which evaluated update (default: the last one)")
    ap.add_argument("--generation", type=int, default=None,
                    help="a run of cavallo expert: which generation (default: the last one)")
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
                         "cavallo train --config configs/<the run's config name>.yaml, or cavallo expert "
                         "--config ... for an expert run)")
    ap.add_argument("--match-deals", type=int, default=200,
                    help="Scopa: duplicate whole matches to 11 per opponent, besides the --deals single deals "
                         "(default 200; 0 = none)")
    return ap


def main(argv=None) -> int:
    args = _parser().parse_args(argv)

    from . import checkpoint as ckpt  # lazy: torch, after the arguments parse
    from . import policy_bot  # noqa: F401  (lazy: registers the checkpoint:<path> bot kind)

    run = Path(args.run_dir)
    try:
        src, cfg, info = (_expert_source if expert_generations(run) else _ppo_source)(run, args)
    except PickError as e:
        raise SystemExit(str(e)) from None
    tensors, meta = ckpt.load(src)
    model = {k: v for k, v in tensors.items() if k.startswith("model.")}
    game, options = cfg.game, dict(cfg.game_options)
    out = Path(args.out or f"checkpoints/{game}")
    ship_meta = {"game": game, "config": meta["config"], "seed": meta["seed"], "step": meta["step"],
                 "kind": "model", "training": info, "evals": []}
    ckpt.save(out, model, ship_meta)
    modes = [(single_deal_options(cfg), args.deals)]
    if _has_matches(game) and args.match_deals:
        modes.append((dict(options, match=True), args.match_deals))
    ship_meta["evals"] = _evaluate(out, game, modes, args)
    ckpt.save(out, model, ship_meta)
    _print_table(ship_meta["evals"])
    print(json.dumps({k: v for k, v in info.items() if k != "periodic_evals"}, indent=1))
    return 0


def expert_generations(run: Path) -> list[Path]:
    """The generations of an expert run (``cavallo expert``: ``checkpoints/gen-NNNNN.json``), oldest first."""
    return sorted((Path(run) / "checkpoints").glob("gen-*.json"))


def _selection(args, cfg) -> tuple[list | None, object]:
    """The selection record (None unless ``--pick best`` without a named update) and its ``select``."""
    selection = [] if args.update is None and args.generation is None and args.pick == "best" else None
    return selection, selector(cfg.game, single_deal_options(cfg), args.pick_opponent, args.pick_deals,
                               args.pick_seed, args.jobs, selection)


def _selected(selection: list | None, src: Path, args) -> dict | None:
    if selection is None:
        return None
    print(f"selection: shipping {src.stem}")
    return {"opponent": args.pick_opponent, "deals": args.pick_deals, "seed": args.pick_seed, "results": selection}


def _ppo_source(run: Path, args) -> tuple[Path, object, dict]:
    """The checkpoint of a ``cavallo train`` run to ship, its config and how it was trained."""
    from . import checkpoint as ckpt
    from .run import config_of_run

    if args.generation is not None:
        raise PickError(f"{run}: --generation is for runs of cavallo expert; this run's updates are picked "
                        "with --update N or --pick")
    cfg = config_of_run(run)
    selection, select = _selection(args, cfg)
    src = pick_checkpoint(run, update=args.update, pick=args.pick, select=select)
    meta, last_meta = ckpt.read_manifest(src)[0], ckpt.read_manifest(run / "checkpoints" / "last")[0]
    counters = meta["counters"]
    return src, cfg, {
        "command": args.command or f"cavallo train --config configs/{cfg.name}.yaml",
        "run": run.name,
        "seed": meta["seed"],
        "updates": counters["update"],
        "decisions": counters["decisions"],
        "learner_decisions": counters["learner_decisions"],
        "training_wall_s": counters["wall_s"],
        "pretrain": counters.get("pretrain"),  # the warm start: deals, time, imitation accuracy
        "run_updates_total": last_meta["counters"]["update"],
        "selection": _selected(selection, src, args),
        "periodic_evals": meta.get("evals", []),
    }


def _expert_source(run: Path, args) -> tuple[Path, object, dict]:
    """The generation of a ``cavallo expert`` run to ship (``--generation N``, else the last, or
    ``--pick best`` among them), its config and how it was trained."""
    from . import checkpoint as ckpt
    from . import expert_log
    from .config import ConfigError
    from .expert_config import from_dict

    if args.update is not None:
        raise PickError(f"{run}: a run of cavallo expert has generations, not updates: give --generation N")
    if args.generation is not None and args.pick == "best":
        raise PickError("give --generation N or --pick best, not both")
    gens = expert_generations(run)
    last = ckpt.read_manifest(run / "checkpoints" / "last.json")[0]
    try:
        cfg = from_dict(last["config"], where=f"{run / 'checkpoints' / 'last.json'} config")
    except ConfigError as e:
        raise PickError(str(e)) from None
    selection, select = _selection(args, cfg)
    if args.generation is not None:
        src = run / "checkpoints" / f"gen-{args.generation:05d}.json"
        if not src.exists():
            raise PickError(f"{src}: no such generation; the run has {', '.join(p.name for p in gens)}")
    else:
        src = max(gens, key=select) if selection is not None else gens[-1]
    meta = ckpt.read_manifest(src)[0]
    generation = meta["step"]
    return src, cfg, {
        "command": args.command or f"cavallo expert --config configs/{cfg.name}.yaml",
        "run": run.name,
        "seed": meta["seed"],
        "generation": generation,
        # generation 0 is the network the run started from (config init), whatever its file is called now
        "start": {"init": cfg.init, "weights_sha256": ckpt.read_manifest(gens[0])[0].get("weights_sha256")},
        "decisions": meta["counters"]["decisions"],
        "training_wall_s": expert_log.wall_s(run, generation),
        "run_generations_total": last["step"],
        "selection": _selected(selection, src, args),
        # a generation's network is saved before its own evaluation: the run's last manifest has it
        "periodic_evals": [e for e in last.get("evals", []) if e.get("generation", 0) <= generation],
    }


def _evaluate(out: Path, game: str, modes: list, args) -> list[dict]:
    """The shipped model's duplicate evaluation against each opponent, in each ``(options, deals)`` mode."""
    results = []
    for opts, deals in modes:
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
    return results


def _print_table(results: list[dict]) -> None:
    """The evaluation as the README's markdown table."""
    print("| opponent | deals | W / D / L | score (draws 1/2) | 95% CI | points/game (model - bot) |")
    print("|---|---|---|---|---|---|")
    for d in results:
        lo, hi = d["score_ci"]
        dlo, dhi = d["mean_diff_ci"]
        what = d["bot_b"] + (" (matches)" if d["options"].get("match") else "")
        print(f"| {what} | {d['deals']} | {d['wins']} / {d['draws']} / {d['losses']} | {100 * d['score']:.1f}% | "
              f"[{100 * lo:.1f}%, {100 * hi:.1f}%] | {d['mean_diff']:+.2f} [{dlo:+.2f}, {dhi:+.2f}] |")


if __name__ == "__main__":
    sys.exit(main())
