"""The main job, end to end: train from scratch, watch it learn, export, evaluate, watch the AI play.

1. trains a policy with ``--config`` (``configs/demo-briscola.yaml``: Briscola
   from scratch, about a minute on two CPU cores) into a new run directory
   under ``--runs``, and prints its learning curve: the duplicate score of
   the untrained network and of every periodic evaluation against ``greedy``
   (the run's ``learning_curve.png`` draws it);
2. exports its final checkpoint to ``<run>/model.onnx`` + ``model.json``
   (``cavallo export``: one ONNX file, checked against torch);
3. evaluates the *exported* model (``policy:<run>/model.onnx``, no torch)
   against ``greedy`` over ``--eval-deals`` duplicate deals and adds the
   result to the model's sidecar;
4. prints one deal of the trained game played by the exported AI, move by
   move: against ``--eval-opponent`` in a two-player game, in all four seats
   in Cavalloìcera (after a short legend of the bonus and award names, with
   the bonuses of every capture and the final breakdown);
5. plays one deal of each other game with its shipped AI (``--ai``, default
   ``policy:default``: ``cavallo_env/models/<game>.onnx``; ``ismcts:300`` for
   a game whose model is not installed), against the ``heuristic`` in the
   two-player games, move by move.

``--checkpoint PATH`` skips the training and starts from an existing
checkpoint.  ``make demo`` runs ``cavallo demo``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from .. import games
from ..bots import make
from ..cavalloicera.engine import CavalloiceraState
from ..cavalloicera.views import make_view, move_from_dict
from ..evaluation import check_deals, check_jobs, derive_seed, duplicate_eval, format_result
from ..cavalloicera import GAME as CAVALLOICERA, card_list as _cards, move_text
from ._terminal import breakdown_table


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default="configs/demo-briscola.yaml", metavar="YAML",
                   help="training config (default configs/demo-briscola.yaml: Briscola from scratch)")
    p.add_argument("--runs", default="runs", metavar="DIR", help="where the run directory goes (default runs)")
    p.add_argument("--checkpoint", metavar="PATH", default=None, help="skip training: export and show this checkpoint")
    p.add_argument("--eval-deals", type=int, default=None, metavar="N",
                   help="duplicate deals of the evaluation (default: the training config's eval.deals, else 200)")
    p.add_argument("--eval-seed", type=int, default=None,
                   help="seed of the evaluation deals (default: the training config's eval.seed, else 0)")
    p.add_argument("--eval-opponent", default="greedy", metavar="SPEC",
                   help="opponent of the evaluation and of the trained AI's deal (default greedy)")
    p.add_argument("--jobs", type=int, default=None, help="evaluation worker processes (default: all cores)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deal shown at the end (default 0)")
    p.add_argument("--ai", "--search", dest="ai", default="policy:default", metavar="SPEC",
                   help="the bot shown in the other games, against the heuristic in Briscola and Scopa "
                        "(default policy:default, each game's shipped model)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


STEPS = 5


def _step(n: int, text: str) -> None:
    print(f"\n=== {n}/{STEPS}  {text}", flush=True)


def _shipped_ai(spec: str, game: str) -> str:
    """``spec`` if it plays ``game`` (checked now, before any training); ``policy:default`` without
    the game's shipped model falls back to ``ismcts:300``, saying so."""
    from ..bots.policy import ModelError  # lazy: numpy, kept out of `cavallo --help`

    try:
        make(spec, seed=0, game=game)
    except ModelError as e:
        if spec != "policy:default":
            raise
        print(f"note: {e}; the demo shows ismcts:300 in {game} instead", file=sys.stderr)
        return "ismcts:300"
    return spec if spec != "policy:default" else f"policy:{game}"


def show_two_player(game_name: str, specs, seed: int, out=None, names=None) -> dict:
    """Play one deal of a two-player game (``specs[s]`` in seat ``s``, called ``names[s]``, default the specs),
    printing every move; returns the outcome."""

    out = out or sys.stdout
    game = games.get(game_name)
    options = {"match": False} if "match" in game.options else {}
    state = game.new_state(derive_seed("demo", game_name, seed), **options)
    bots = [make(spec, seed=derive_seed("demo", game_name, seed, s), game=game_name) for s, spec in enumerate(specs)]
    names = list(names or specs)
    deck = game.deck_of(state)
    out.write(game.legend + "\n" + game.deal_notes(game.make_view(state, state.current)))
    n = 0
    while not state.done:
        seat = state.current
        view = game.make_view(state, seat)
        move = game.move_from_dict(bots[seat].choose(view), deck)
        n += 1
        game.play(state, move)
        extra = game.move_note(view, game.make_view(state, seat))
        out.write(f"  {n:>2}. seat {seat} ({names[seat]}): {game.describe_move(move, deck)}{extra}\n")
    res = game.outcome(state)
    p = res["points"]
    w = res["winner"]
    verdict = "a draw" if w is None else f"seat {w} ({names[w]}) wins"
    details = ", ".join(f"{k} {b0}-{b1}" for k, b0, b1 in
                        ((k, res["breakdown"][0][k], res["breakdown"][1][k]) for k in game.breakdown_keys))
    out.write(f"  {game.title}: {p[0]} - {p[1]}, {verdict} ({details})\n")
    return res


def show_deal(bot_spec: str, seed: int, out=None) -> dict:
    """Play deal ``seed`` with ``bot_spec`` in every seat, printing each move; returns the result."""

    out = out or sys.stdout
    w = out.write
    bots = [make(bot_spec, seed=derive_seed("demo", seed, s)) for s in range(4)]
    state = CavalloiceraState.new(seed)
    w(f"deal seed {seed}: seat {state.dealer} deals, seat {state.current} plays first; "
      f"team 0 = seats 0+2, team 1 = seats 1+3\n")
    w(f"table: {_cards(state.table)}\n")
    for s in range(4):
        w(f"seat {s} holds: {_cards(state.hands[s])}\n")
    w("\n" + CAVALLOICERA.legend + "\n\n")
    while not state.done:
        seat = state.current
        answer = bots[seat].choose(make_view(state, seat))
        card, capture = move_from_dict(answer)
        text = move_text(card, capture, state.table, state.prev_placed)
        table = _cards(state.table)
        state.play_checked(card, capture)
        w(f"{state.turn:>2}. seat {seat} (team {seat % 2}): {text:<46} on {table}\n")
    res = state.result()
    if state.unclaimed:
        w(f"\nnobody captured: {_cards(state.unclaimed)} stay unclaimed\n")
    elif state.last_capturer is not None:
        w(f"\nthe cards left on the table go to the last capturer, seat {state.last_capturer} "
          f"(team {state.last_capturer % 2}), with no bonus\n")
    w(breakdown_table(CAVALLOICERA, CAVALLOICERA.outcome(state), ("team 0 (0+2)", "team 1 (1+3)")))
    winner = res["winner"]
    w(f"\n{'a draw' if winner is None else f'team {winner} wins'}, "
      f"{res['team_points'][0]} - {res['team_points'][1]}\n")
    out.flush()
    return res


def compare_with_training(result, evals: list) -> str:
    """Does the exported model score exactly what training measured for the checkpoint (same deals)?"""
    same = [e for e in evals if e.get("opponent") == result.bot_b and e.get("deals") == result.deals
            and e.get("seed") == result.seed]
    if not same:
        return "(the training did not evaluate this checkpoint on the same deals: nothing to compare)"
    e = same[-1]
    got = (result.wins, result.draws, result.losses)
    want = (e.get("wins"), e.get("draws"), e.get("losses"))
    if got == want:
        return (f"the exported model scores exactly what training measured for the checkpoint on the same deals "
                f"({got[0]}/{got[1]}/{got[2]}): the export plays like the trained network")
    return (f"note: the exported model's {got[0]}/{got[1]}/{got[2]} differs from the training's {want[0]}/{want[1]}/"
            f"{want[2]} on the same deals (near-tied actions can flip between float implementations)")


def _train(args) -> tuple[Path, Path]:
    """Step 1: train ``args.config`` (or start from ``args.checkpoint``); the checkpoint and the folder for the model."""
    if args.checkpoint:
        checkpoint = Path(args.checkpoint)
        _step(1, f"training skipped: starting from {checkpoint}")
        return checkpoint, checkpoint.parent
    from training.config import load  # lazy: the trainer package, never imported by cavallo_env at module level
    from training.ppo import train  # lazy: the trainer package, never imported by cavallo_env at module level
    from training.run import new_run_dir  # lazy: the trainer package, never imported by cavallo_env at module level

    cfg = load(args.config)
    run_dir = new_run_dir(cfg, args.runs)
    start = "from scratch" if not cfg.pretrain.games else f"after a warm start imitating {cfg.pretrain.teacher}"
    _step(1, f"training {args.config}: {cfg.game} {start}, {cfg.updates} updates x {cfg.games} games -> {run_dir}")
    summary = train(cfg, run_dir, progress=not args.no_progress, log=lambda m: print(m, file=sys.stderr, flush=True))
    checkpoint = Path(summary["run_dir"]) / "checkpoints" / f"update-{summary['update']:05d}"
    out_dir = Path(summary["run_dir"])
    print(f"trained {summary['update']} updates, {summary['learner_decisions']} learner decisions in "
          f"{summary['wall_s'] / 60:.1f} min; final checkpoint {checkpoint}")
    print(learning_curve(summary["evals"], out_dir / "learning_curve.png"), end="")
    return checkpoint, out_dir


def learning_curve(evals: list, png: Path, width: int = 40) -> str:
    """The training's duplicate evaluations as text: one line per evaluation and opponent, a bar for the score."""
    if not evals:
        return "(the training made no evaluation: no learning curve)\n"
    deals = sorted({e["deals"] for e in evals})
    lines = [f"learning curve: duplicate score of the network as it trains ({'/'.join(map(str, deals))} deals), "
             f"drawn in {png}",
             f"  {'update':>6}  {'learner decisions':>17}  {'opponent':<10} {'score':>6}   0%{' ' * (width - 6)}100%"]
    for e in evals:
        n = round(e["score"] * width)
        lines.append(f"  {e['update']:>6}  {e['learner_decisions']:>17,}  {e['opponent']:<10} {100 * e['score']:>5.1f}%"
                     f"   |{'#' * n}{' ' * (width - n)}|")
    return "\n".join(lines) + "\n"


def _evaluate(args, spec: str, onnx_path: Path, json_path: Path) -> str:
    """Step 3: the exported model's duplicate evaluation, written into its sidecar and compared with
    training's; the model's game."""
    from ..bots.policy import add_evaluation  # lazy: numpy, kept out of `cavallo --help`

    meta = json.loads(json_path.read_text(encoding="utf-8"))
    train_cfg = meta.get("training_config") or {}
    game, options = meta.get("game", games.DEFAULT_GAME), train_cfg.get("game_options") or {}
    ev_cfg = train_cfg.get("eval") or {}
    deals = args.eval_deals if args.eval_deals is not None else int(ev_cfg.get("deals", 200))
    seed = args.eval_seed if args.eval_seed is not None else int(ev_cfg.get("seed", 0))
    _step(3, f"duplicate evaluation of the exported model against {args.eval_opponent} ({deals} deals, seed {seed})")
    bar = progress = None
    if not args.no_progress:
        from tqdm import tqdm  # lazy: tqdm (~40 ms), only with a progress bar; kept out of `cavallo --help`

        bar = tqdm(total=deals, unit="deal", file=sys.stderr)
        progress = bar.update
    try:
        result = duplicate_eval(spec, args.eval_opponent, deals, seed=seed, jobs=args.jobs, progress=progress,
                                game=game, **options)
    finally:
        if bar is not None:
            bar.close()
    print(format_result(result))
    add_evaluation(onnx_path, {f"demo_vs_{args.eval_opponent}": result.to_dict()})
    print(compare_with_training(result, (meta.get("evaluation") or {}).get("evals") or []))
    return game


def show_game(game: str, ai: str, opponent: str, seed: int, name: str | None = None) -> None:
    """One deal of ``game``: ``ai`` (called ``name``) against ``opponent`` in a two-player game, in all
    four seats in Cavalloìcera."""
    if game == CAVALLOICERA.name:
        show_deal(ai, seed)
    else:
        show_two_player(game, [ai, opponent], seed, names=[name or ai, opponent])


def run(args) -> int:
    from training.export import export_checkpoint  # lazy: the trainer package, never imported by cavallo_env at module level

    if args.eval_deals is not None:
        check_deals(args.eval_deals)
    check_jobs(args.jobs)
    for name in games.names():  # a bad opponent spec fails before the training
        make(args.eval_opponent, seed=0, game=name)
    ai = {name: _shipped_ai(args.ai, name) for name in games.names()}
    started = time.perf_counter()

    checkpoint, out_dir = _train(args)

    model_path = out_dir / "model.onnx"
    _step(2, f"export -> {model_path}")
    onnx_path, json_path = export_checkpoint(checkpoint, model_path)
    print(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.2f} MB, one file) and {json_path}; "
          f"play it with policy:{onnx_path}")

    spec = f"policy:{onnx_path}"
    game = _evaluate(args, spec, onnx_path, json_path)

    title = games.get(game).title
    who = "in all four seats" if game == CAVALLOICERA.name else f"(seat 0) against {args.eval_opponent} (seat 1)"
    _step(4, f"one {title} deal, the exported AI {who}")
    show_game(game, spec, args.eval_opponent, args.seed, name="the trained AI")
    others = [name for name in games.names() if name != game]
    _step(5, f"{' and '.join(games.get(n).title for n in others)}: the shipped AI of each "
             f"(seat 0 against the heuristic in a two-player game)")
    for name in others:
        show_game(name, ai[name], "heuristic", args.seed)
    print(f"\ndemo done in {(time.perf_counter() - started) / 60:.1f} min; model: {onnx_path}")
    return 0
