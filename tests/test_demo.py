"""cavallo demo end to end on a tiny config: train, export, evaluate, show a deal."""

from __future__ import annotations

import json
import re

from policy_fixtures import make_checkpoint

from cavallo_env.cli import main
from cavallo_env.records import replay

TINY = """\
name: tiny
seed: 3
device: cpu
threads: 1
updates: 2
games: 8
model: {hidden: [32], activation: relu}
ppo: {minibatch_size: 64, epochs: 1}
league: {mix: {self: 0.5, greedy: 0.5}, snapshot_every: 1, max_snapshots: 2}
eval: {every: 0, deals: 4, opponents: [random, greedy], seed: 7, jobs: 1}
"""


TINY_BRISCOLA = """\
name: tiny-briscola
game: briscola
seed: 3
device: cpu
threads: 1
updates: 2
games: 8
model: {hidden: [32], activation: relu, prior: true, prior_gain: [0.0, 0.0]}
ppo: {minibatch_size: 64, epochs: 1}
league: {mix: {self: 0.5, greedy: 0.5}, snapshot_every: 1, max_snapshots: 2}
eval: {every: 1, deals: 4, opponents: [greedy], seed: 7, jobs: 1, untrained: true}
"""


def moves_shown(out: str) -> list[str]:
    return re.findall(r"^\s*\d+\. seat (\d) \(team \d\): (.*?)\s+on ", out, re.M)


def test_demo_trains_exports_evaluates_and_shows_a_deal(tmp_path, capsys):
    (tmp_path / "tiny.yaml").write_text(TINY)
    code = main(["demo", "--config", str(tmp_path / "tiny.yaml"), "--runs", str(tmp_path / "runs"),
                 "--no-progress", "--jobs", "1", "--seed", "4"])
    out = capsys.readouterr().out
    assert code == 0
    for n in range(1, 6):
        assert f"=== {n}/5" in out
    assert re.search(r"Briscola: \d+ - \d+, ", out) and re.search(r"Scopa: \d+ - \d+, ", out)
    run_dir = next((tmp_path / "runs").iterdir())
    model = run_dir / "model.onnx"
    assert model.is_file() and (run_dir / "model.json").is_file()
    meta = json.loads((run_dir / "model.json").read_text())
    demo_eval = meta["evaluation"]["demo_vs_greedy"]
    # by default the evaluation replays the training's own final evaluation deals...
    assert demo_eval["deals"] == 4 and demo_eval["seed"] == 7
    # ...and the exported model scores exactly what training measured for the checkpoint
    assert "scores exactly what training measured" in out
    train_eval = [e for e in meta["evaluation"]["evals"] if e["opponent"] == "greedy"][-1]
    assert (demo_eval["wins"], demo_eval["draws"], demo_eval["losses"]) == \
        (train_eval["wins"], train_eval["draws"], train_eval["losses"])
    assert len(moves_shown(out)) == 48
    assert re.search(r"^  total\s+\d+\s+\d+$", out, re.M)
    assert "Napula" in out and "La Mata" in out
    # eval.every 0: the one evaluation, at the end, is the learning curve
    assert re.findall(r"^\s+(\d+)\s+[\d,]+\s+(random|greedy)\s+[\d.]+%\s+\|#*\s*\|$", out, re.M) == \
        [("2", "random"), ("2", "greedy")]
    assert (run_dir / "learning_curve.png").stat().st_size > 1000


def test_demo_default_config_is_briscola_from_scratch():
    from training.config import load

    cfg = load("configs/demo-briscola.yaml")
    assert (cfg.game, cfg.pretrain.games, cfg.model.prior_gain, cfg.eval.opponents) == ("briscola", 0, [0.0, 0.0], ["greedy"])


def test_demo_prints_the_learning_curve_from_the_untrained_network(tmp_path, capsys):
    """A run from scratch is evaluated before its first update (update 0), then every eval.every updates:
    the curve printed and drawn has a point for each; the trained game's deal is shown, then the other games'."""
    (tmp_path / "tiny.yaml").write_text(TINY_BRISCOLA)
    assert main(["demo", "--config", str(tmp_path / "tiny.yaml"), "--runs", str(tmp_path / "runs"),
                 "--no-progress", "--jobs", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "briscola from scratch" in out
    curve = re.findall(r"^\s+(\d+)\s+([\d,]+)\s+greedy\s+([\d.]+)%\s+\|(#*)\s*\|$", out, re.M)
    assert [u for u, _, _, _ in curve] == ["0", "1", "2"]
    decisions = [int(d.replace(",", "")) for _, d, _, _ in curve]
    assert decisions[0] == 0 < decisions[1] < decisions[2]
    assert all(len(bar) == round(float(score) * 40 / 100) for _, _, score, bar in curve)
    run_dir = next((tmp_path / "runs").iterdir())
    assert f"drawn in {run_dir / 'learning_curve.png'}" in out
    assert (run_dir / "learning_curve.png").stat().st_size > 1000
    meta = json.loads((run_dir / "model.json").read_text())
    assert [e["update"] for e in meta["evaluation"]["evals"]] == [2]
    assert "scores exactly what training measured" in out
    assert "one Briscola deal, the exported AI (seat 0) against greedy (seat 1)" in out
    assert re.search(r"Briscola: \d+ - \d+, ", out) and "seat 0 (the trained AI): play " in out
    assert re.search(r"Scopa: \d+ - \d+, ", out) and len(moves_shown(out)) == 48  # the Cavalloìcera deal


def test_demo_from_a_checkpoint_shows_a_legal_replayable_deal(tmp_path, capsys):
    from cavallo_env.bots import make
    from cavallo_env.commands.demo import show_deal
    from cavallo_env.cavalloicera.engine import CavalloiceraState

    ckpt = make_checkpoint(tmp_path / "c")
    assert main(["demo", "--checkpoint", str(ckpt), "--eval-deals", "2", "--eval-seed", "1", "--jobs", "1",
                 "--no-progress", "--seed", "9"]) == 0
    out = capsys.readouterr().out
    assert "training skipped" in out
    assert "did not evaluate this checkpoint on the same deals" in out
    # the printed deal is deal 9 played by the exported model in all four seats
    shown = moves_shown(out)
    bots = [make(f"policy:{tmp_path / 'model.onnx'}") for _ in range(4)]
    from cavallo_env.cavalloicera import move_text
    from cavallo_env.cavalloicera.records import to_record
    from cavallo_env.cavalloicera.views import make_view, move_from_dict

    state = CavalloiceraState.new(9)
    for seat_text, text in shown:
        seat = state.current
        assert int(seat_text) == seat
        card, capture = move_from_dict(bots[seat].choose(make_view(state, seat)))
        assert text == move_text(card, capture, state.table, state.prev_placed)
        state.play(card, capture)
    assert state.done
    replay(to_record(state))
    tp = state.result()["team_points"]
    assert re.search(rf"^  total\s+{tp[0]}\s+{tp[1]}$", out, re.M)
    with open(tmp_path / "again.txt", "w") as f:
        res = show_deal(f"policy:{tmp_path / 'model.onnx'}", 9, out=f)
    assert res["team_points"] == tp


def test_demo_bad_config(tmp_path, capsys):
    assert main(["demo", "--config", str(tmp_path / "missing.yaml"), "--no-progress"]) == 2
    assert "not found" in capsys.readouterr().err
