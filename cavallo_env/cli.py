"""The ``cavallo`` command line.

Each subcommand lives in ``cavallo_env/commands/<name>.py`` and provides
``add_arguments(parser)`` and ``run(args) -> int``; heavy imports (torch,
onnxruntime, matplotlib) happen inside ``run`` so ``cavallo --help`` is fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from .bots import BotSpecError, register, registered

# name -> one-line help, in the order shown by `cavallo --help`
COMMANDS = {
    "simulate": "play deals between bots, print a summary, save records",
    "replay": "check game records (moves and results) and report the first problem",
    "eval": "duplicate evaluation of bot A against bot B",
    "pool": "pool duplicate evaluations of the same two bots on different seeds into one result",
    "tournament": "round robin of several bots with ratings and a chart",
    "train": "self-play PPO training of a team policy from a YAML config",
    "expert": "expert iteration: a search plays, the network learns it, the next search uses the network",
    "export": "export a training checkpoint to a single-file ONNX policy",
    "play": "play in the terminal: Cavalloìcera with an AI partner against two AIs, Briscola or Scopa against one",
    "serve": "serve an AI policy over HTTP for a game to call, and the table in the browser",
    "table": "play in the browser: serve the table and open it in the default browser",
    "people": "the AI against people: the games finished at the table, per game, deck and AI",
    "demo": "the main job: quick training, evaluation, export and one AI deal of each game",
}


def _checkpoint_bot(arg, seed):
    """``checkpoint:<path>``: a training checkpoint played in numpy (``training.policy_bot``),
    so ``cavallo eval``/``tournament``/``simulate``/``play`` take a run's checkpoints as they are,
    without an export.  The training package is imported on first use only."""

    try:
        from training.policy_bot import from_spec  # lazy: the trainer package, never imported by cavallo_env at module level
    except ImportError as e:
        raise BotSpecError(f"checkpoint: bots need the training package next to cavallo_env: {e}") from None
    return from_spec(arg, seed)


def _expert_bot(arg, seed, game=None):
    """``expert:<ismcts spec>;bias=W;model=<checkpoint>``: the search of ``cavallo expert`` with a
    network as its root prior (``training.expert_bot``), so ``cavallo eval`` and the others play
    it as a run does.  The training package is imported on first use only."""
    try:
        from training.expert_bot import from_spec  # lazy: the trainer package, never imported by cavallo_env at module level
    except ImportError as e:
        raise BotSpecError(f"expert: bots need the training package next to cavallo_env: {e}") from None
    return from_spec(arg, seed, game=game)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # lazy: slow to load, only --version needs it

    try:
        return version("cavallo-env")
    except PackageNotFoundError:  # run from a checkout without an install
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cavallo",
        description="cavallo-env: rules, bots, evaluation, training and in-game AI for Cavalloìcera, Briscola and Scopa.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        try:
            module = importlib.import_module(f"cavallo_env.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"cavallo_env.commands.{name}":
                continue
            raise
        # the module docstring, as written (its own line breaks; ``code`` marks dropped)
        p = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip().replace("``", ""),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv=None) -> int:
    if "checkpoint" not in registered():
        register("checkpoint", _checkpoint_bot)
    if "expert" not in registered():
        register("expert", _expert_bot)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `cavallo eval ... | head`: the reader left, nothing to say
        sys.stderr.close()
        return 0
    except (ValueError, OSError) as e:
        # Bad input: a clear one-line error, never a traceback from deep inside.
        print(f"cavallo {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
