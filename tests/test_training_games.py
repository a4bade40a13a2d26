"""Training, export, the torch-free runtime and serving, for Briscola and Scopa (Cavalloìcera: test_training.py).

Each game's quick config (``configs/quick-<game>.yaml``), shrunk to a few
games, trains, stops and resumes to exactly the weights of a straight run, is
exported to ONNX (the export itself checks onnxruntime against torch within
1e-5 on random inputs and on real positions of the game), plays whole games
in a process without torch, and is served by ``cavallo serve``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("yaml")

from cavallo_env import games  # noqa: E402
from training import checkpoint as ckpt  # noqa: E402
from training.config import load  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["briscola", "scopa"]


def shrunk(game: str):
    """The game's quick config, a few games long."""
    cfg = load(ROOT / "configs" / f"quick-{game}.yaml")
    cfg.updates, cfg.games = 2, 8
    cfg.pretrain.games, cfg.pretrain.epochs = 3, 1
    cfg.eval.every, cfg.eval.deals, cfg.eval.jobs = 0, 2, 1
    cfg.model.hidden = [32, 32]
    cfg.check()
    return cfg


@pytest.fixture(scope="module", params=GAMES)
def trained(request, tmp_path_factory):
    """(game, run dir) of a straight 2-update run of the game's shrunk quick config."""
    from training.ppo import train

    game = request.param
    tmp = tmp_path_factory.mktemp(f"train-{game}")
    out = train(shrunk(game), tmp / "straight", progress=False, log=lambda *a: None)
    assert out["update"] == 2
    return game, tmp / "straight"


def test_quick_config_trains_and_resumes_exactly(trained, tmp_path):
    from training.ppo import train

    game, straight = trained
    cfg = shrunk(game)
    assert train(cfg, tmp_path / "part", progress=False, stop_after=1, log=lambda *a: None)["update"] == 1
    assert train(cfg, tmp_path / "part", resume=True, progress=False, log=lambda *a: None)["update"] == 2
    a, meta = ckpt.load(straight / "checkpoints" / "last")
    b, _ = ckpt.load(tmp_path / "part" / "checkpoints" / "last")
    assert meta["game"] == game and meta["obs_version"] == games.get(game).learning().obs_version
    for k in a:
        if k.startswith(("model.", "optim.")):
            assert torch.equal(a[k], b[k]), k
    # the periodic evaluation ran on the game (the last update is always evaluated)
    assert {e["opponent"] for e in meta["evals"]} == {"greedy", "heuristic"}
    assert (straight / "learning_curve.png").stat().st_size > 1000


def test_a_checkpoint_of_another_game_is_not_resumed(trained, tmp_path):
    import shutil

    from training.ppo import train

    game, straight = trained
    other = "scopa" if game == "briscola" else "briscola"
    shutil.copytree(straight, tmp_path / "run")
    with pytest.raises(ckpt.CheckpointError, match=f"a checkpoint of {game}, but the config trains {other}"):
        train(shrunk(other), tmp_path / "run", resume=True, progress=False, log=lambda *a: None)


NO_TORCH = textwrap.dedent("""
    import json, random, sys
    import cavallo_env.bots as bots
    from cavallo_env import games

    spec, name = sys.argv[1], sys.argv[2]
    game = games.get(name)
    ai = bots.make(spec, seed=1)
    other = bots.make("random", seed=2)
    out = []
    for k in range(2):
        state = game.new_state(100 + k)
        while not state.done:
            view = json.loads(json.dumps(game.make_view(state, state.current)))
            move = (ai if state.current == k % 2 else other).choose(view)
            assert move in view["legal_moves"], (move, view["legal_moves"])
            game.play(state, game.move_from_dict(move, game.deck_of(view)))
        out.append(game.outcome(state)["points"])
    print(json.dumps({"results": out, "torch": "torch" in sys.modules}))
""")


def test_export_plays_without_torch_and_is_served(trained, tmp_path):
    import httpx
    from test_serve import start, stop

    from cavallo_env.bots import make
    from cavallo_env.bots.policy import PolicyBot
    from training.export import export_checkpoint

    game, straight = trained
    onnx, meta_path = export_checkpoint(straight / "checkpoints" / "last", tmp_path / f"{game}.onnx", check_deals=32)
    meta = json.loads(meta_path.read_text())
    learning = games.get(game).learning()
    assert meta["game"] == game and meta["obs_size"] == learning.obs_size
    for check in ("random_inputs", "game_positions"):
        assert meta["check"][check]["max_scaled"] <= 1e-5 and meta["check"][check]["max_prob"] <= 1e-5
    bot = make(f"policy:{onnx}")
    assert isinstance(bot, PolicyBot) and bot.game == game
    # a view of another game is refused, naming both
    other = "scopa" if game == "briscola" else "briscola"
    g = games.get(other)
    from cavallo_env.errors import ViewError

    with pytest.raises(ViewError, match=f"plays {game}, but the view is of {other}"):
        bot.choose(g.make_view(g.new_state(1), 0))

    proc = subprocess.run([sys.executable, "-c", NO_TORCH, f"policy:{onnx}", game], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["torch"] is False and len(got["results"]) == 2

    server, url = start(f"policy:{onnx}")
    try:
        gm = games.get(game)
        state = gm.new_state(7)
        rng = random.Random(0)
        with httpx.Client(base_url=url, timeout=30) as client:
            for _ in range(6):
                view = gm.make_view(state, state.current)
                r = client.post("/v1/move", json=view)
                assert r.status_code == 200, r.text
                assert r.json() in view["legal_moves"]
                gm.play(state, rng.choice(state.legal_moves()))
            r = client.post("/v1/move", json=g.make_view(g.new_state(1), 0))
            assert r.status_code == 422 and other in r.json()["detail"]
    finally:
        stop(server)


SHIPPED = [("briscola", "briscola"), ("scopa", "scopa")]


@pytest.mark.parametrize("game,name", SHIPPED)
def test_shipped_model_matches_its_checkpoint_and_plays_without_torch(game, name):
    """cavallo_env/models/<game>.onnx is the export of checkpoints/<game>: same outputs within 1e-5 on
    random inputs and real positions; policy:default plays the game's views with it, without torch."""
    from cavallo_env.bots.policy import file_sha256, shipped_model
    from training.export import compare, game_inputs, load_policy_net, random_inputs

    model, ck = shipped_model(game), ROOT / "checkpoints" / name
    if not (model.is_file() and ck.with_suffix(".json").is_file()):
        pytest.skip(f"the shipped {game} model or its checkpoint is not in this checkout")
    net, meta = load_policy_net(ck)
    side = json.loads(model.with_suffix(".json").read_text())
    assert side["game"] == game == meta["game"]
    assert side["source"]["checkpoint_sha256"] == file_sha256(ckpt.read_manifest(ck)[1]), (
        f"checkpoints/{name} changed since {model.name} was exported: run `cavallo export "
        f"checkpoints/{name}.json --out cavallo_env/models/{model.name}`")
    learning = games.get(game).learning()
    for inputs in (random_inputs(100, seed=9, prior=net.uses_prior, learning=learning),
                   game_inputs(2, seed=5, prior=net.uses_prior, learning=learning)):
        c = compare(net, model, *inputs)
        assert c["max_scaled"] <= 1e-5 and c["max_prob"] <= 1e-5, c
    proc = subprocess.run([sys.executable, "-c", NO_TORCH, "policy:default", game], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["torch"] is False
