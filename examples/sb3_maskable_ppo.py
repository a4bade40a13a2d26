"""Train sb3-contrib's MaskablePPO on one seat of a game, then measure it with ``cavallo eval``.

    pip install -e '.[sb3,train]'        # sb3-contrib + stable-baselines3; torch, onnx, onnxruntime
    python examples/sb3_maskable_ppo.py                       # Briscola vs greedy, 8192 steps
    python examples/sb3_maskable_ppo.py --game scopa --opponent heuristic --steps 20000

1. ``cavallo_env.single.SingleAgentEnv(game, opponents=OPPONENT)``: the learner
   holds seat 0 (in Cavalloìcera both seats of team 0, as ``cavallo eval`` plays it; ``--seat-only``: seat 0), the bot
   OPPONENT the other seats; ``action_masks()`` gives MaskablePPO the legal actions.
2. ``MaskablePPO("MlpPolicy", env).learn(STEPS)`` with a progress bar; the
   model is saved as ``OUT/model.zip`` (SB3's own format; it holds pickles, so
   only ever load your own with ``MaskablePPO.load``).
3. ``training.sb3_export.export_maskable_ppo`` writes the policy as
   ``OUT/model.onnx`` + ``OUT/model.json``: a model ``cavallo`` plays as
   ``policy:OUT/model.onnx`` with onnxruntime, no torch, SB3 or pickle.
4. ``cavallo eval policy:OUT/model.onnx OPPONENT --game GAME --deals N``: the
   duplicate-deal evaluation (every deal played twice, sides swapped), and the
   same for ``random`` vs OPPONENT as a baseline (``--no-baseline`` skips it).
   The results land in ``OUT/eval.json`` and ``OUT/baseline.json`` and in the
   model's sidecar.

The policy bot plays the most likely legal action, which is
``model.predict(obs, action_masks=env.action_masks(), deterministic=True)``.
Scopa is trained and evaluated on single deals (``cavallo eval``'s default).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="briscola", help="cavalloicera, briscola or scopa (default briscola)")
    p.add_argument("--opponent", default="greedy", help="bot spec of the other seats (default greedy)")
    p.add_argument("--seat-only", action="store_true",
                   help="Cavalloìcera: the learner holds seat 0 only, a bot its partner (by default it holds "
                        "seats 0 and 2: cavallo eval plays a policy in both seats of its team)")
    p.add_argument("--steps", type=int, default=8192, help="environment steps to train (default 8192)")
    p.add_argument("--n-steps", type=int, default=512, help="PPO rollout length per update (default 512)")
    p.add_argument("--eval-deals", type=int, default=1000, help="duplicate deals of the evaluation (default 1000)")
    p.add_argument("--no-baseline", action="store_true", help="skip the random-vs-opponent baseline evaluation")
    p.add_argument("--seed", type=int, default=0, help="seed of training and evaluation (default 0)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes of cavallo eval (default: all cores)")
    p.add_argument("--threads", type=int, default=1, help="torch threads while training (default 1)")
    p.add_argument("--out", default=None, help="output folder (default runs/sb3-<game>)")
    return p.parse_args(argv)


def progress_callback(total: int):
    """A tqdm progress bar as an SB3 callback (SB3's own ``progress_bar=True`` needs ``rich``)."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class Progress(BaseCallback):
        def _on_training_start(self):
            self.bar = tqdm(total=total, unit="step", desc="MaskablePPO")

        def _on_step(self) -> bool:
            self.bar.update(self.training_env.num_envs)
            return True

        def _on_training_end(self):
            self.bar.close()

    return Progress()


def cavallo_command() -> list[str]:
    """The ``cavallo`` script beside this Python, else ``python -m cavallo_env.cli``."""
    script = Path(sys.executable).parent / "cavallo"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cavallo_env.cli"]


def cavallo_eval(bot_a: str, args, out_json: Path, game_flags: list[str]) -> tuple[list[str], dict]:
    """Run ``cavallo eval bot_a OPPONENT`` (prints its table); returns the command and its JSON result."""
    cmd = cavallo_command() + ["eval", bot_a, args.opponent, "--game", args.game, *game_flags,
                               "--deals", str(args.eval_deals), "--seed", str(args.seed), "--json", str(out_json)]
    if args.jobs:
        cmd += ["--jobs", str(args.jobs)]
    print(f"\n$ {shlex.join(cmd)}", flush=True)
    subprocess.run(cmd, check=True)
    return cmd, json.loads(out_json.read_text())


def summary(label: str, r: dict) -> str:
    lo, hi = r["score_ci"]
    return (f"{label}: score {100 * r['score']:.1f}% (95% Wilson [{100 * lo:.1f}%, {100 * hi:.1f}%]), "
            f"W/D/L {r['wins']}/{r['draws']}/{r['losses']} over {r['deals']} duplicate deals "
            f"({r['games']} games), points per game {r['mean_diff']:+.2f}")


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.logger import Logger
    except ImportError as e:
        sys.exit(f"this example needs sb3-contrib and torch ({e}): pip install -e '.[sb3,train]'")
    from cavallo_env.bots.policy import add_evaluation
    from cavallo_env.single import SingleAgentEnv
    from training.sb3_export import export_maskable_ppo

    out = Path(args.out or f"runs/sb3-{args.game}")
    out.mkdir(parents=True, exist_ok=True)
    options = {"match": False} if args.game == "scopa" else {}  # single deals, as cavallo eval plays them
    game_flags = ["--single-deal"] if args.game == "scopa" else []
    torch.set_num_threads(args.threads)

    team = args.game == "cavalloicera" and not args.seat_only
    env = SingleAgentEnv(args.game, opponents=args.opponent, team=team, **options)
    config = {"game": args.game, "opponent": args.opponent, "team": team, "options": options,
              "steps": args.steps, "n_steps": args.n_steps, "batch_size": 128, "gamma": 1.0,
              "learning_rate": 3e-4, "seed": args.seed}
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=128, gamma=1.0,
                        learning_rate=3e-4, seed=args.seed, device="cpu", verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default makes a /tmp/SB3-<time> folder per run
    print(f"training MaskablePPO on {env!r} for {args.steps} steps", flush=True)
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=progress_callback(args.steps))
    train_s = time.perf_counter() - t0
    model.save(out / "model.zip")
    onnx_path, json_path = export_maskable_ppo(model, out / "model.onnx", game=args.game, training=config)
    print(f"trained in {train_s:.0f} s; saved {out / 'model.zip'}; exported {onnx_path} and {json_path}")

    cmd, result = cavallo_eval(f"policy:{onnx_path}", args, out / "eval.json", game_flags)
    add_evaluation(onnx_path, {f"vs_{args.opponent}": result})
    lines = [summary(f"policy:{onnx_path} vs {args.opponent}", result)]
    commands = [shlex.join([sys.executable, *sys.argv]), shlex.join(cmd)]
    if not args.no_baseline:
        base_cmd, base = cavallo_eval("random", args, out / "baseline.json", game_flags)
        lines.append(summary(f"baseline random vs {args.opponent}", base))
        commands.append(shlex.join(base_cmd))
    print(f"\n== {args.game}: MaskablePPO, {args.steps} steps ({train_s:.0f} s), learner vs {args.opponent}")
    print("\n".join(lines))
    print("commands:\n  " + "\n  ".join(commands))
    return 0


if __name__ == "__main__":
    sys.exit(main())
