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
