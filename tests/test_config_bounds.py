"""Training configs past their stated limits: one-line errors from ``cavallo train``, before a run folder exists.

The file's limits (``training.config.read_yaml``: size, binary, encoding,
nesting, duplicated keys, aliases) and the sizes that cost memory
(``TrainConfig.check``: network, parameters, deals, snapshots, processes).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from cavallo_env import games  # noqa: E402
from cavallo_env.cli import main  # noqa: E402
from training import config as config_mod  # noqa: E402
from training.config import ConfigError, from_dict, read_yaml  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
QUICK = (ROOT / "configs" / "quick-cavalloicera.yaml").read_text(encoding="utf-8")


def quick_with(old: str, new: str) -> str:
    """configs/quick-cavalloicera.yaml with one line's text replaced (it must be there)."""
    assert old in QUICK, old
    return QUICK.replace(old, new, 1)


# (name, file content, what the one-line error says)
REFUSED = [
    ("deep mapping", "name: x\nmodel: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n",
     r"deep mapping\.yaml: not valid YAML at line 2, column \d+: nested more than 32 levels deep"),
    ("deep list", "name: x\nmodel:\n  hidden: " + "[" * 5000 + "]" * 5000 + "\n",
     r"deep list\.yaml: not valid YAML at line 3, column \d+: nested more than 32 levels deep"),
    ("duplicate key", QUICK + "seed: 5\n",
     r"duplicate key\.yaml: not valid YAML at line \d+, column 1: duplicate key 'seed' \(first at line \d+\)"),
    ("duplicate nested key", "name: x\nppo:\n  lr: 0.1\n  clip: 0.2\n  lr: 0.2\n",
     r"not valid YAML at line 5, column 3: duplicate key 'lr' \(first at line 3\)"),
    ("alias", "name: &n x\nseed: 1\npretrain:\n  teacher: *n\n",
     r"alias\.yaml: not valid YAML at line 4, column 12: an alias \(\*n\): a config writes each value out"),
    ("huge layers", quick_with("hidden: [256, 256]", "hidden: [100000000, 100000000]"),
     r"huge layers\.yaml\.model\.hidden: a non-empty list of 1 to 8 layer widths, each 1 to 8192, "
     r"got \[100000000, 100000000\]"),
    ("many parameters", quick_with("hidden: [256, 256]", "hidden: [8192, 8192, 8192]"),
     r"model\.hidden: \[8192, 8192, 8192\] makes a network of [\d,]+ parameters for cavalloicera, "
     r"more than 50,000,000"),
    ("snapshots in memory", quick_with("hidden: [256, 256]", "hidden: [4096, 4096]").replace(
        "max_snapshots: 6", "max_snapshots: 40"),
     r"league\.max_snapshots: 40 snapshots of a network of [\d,]+ parameters, .* more than 500,000,000"),
    ("many games", quick_with("games: 192", "games: 100000"), r"many games\.yaml\.games: must be >= 1 and <= 4096"),
    ("huge integer", "name: x\nseed: " + "1" * 5000 + "\n", r"huge integer\.yaml: not a usable value \(Exceeds the limit"),
]


@pytest.mark.parametrize("name, content, error", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_configs_are_one_line_and_make_no_run_folder(tmp_path, capsys, name, content, error):
    path = tmp_path / f"{name}.yaml"
    path.write_text(content, encoding="utf-8")
    runs = tmp_path / "runs"
    assert main(["train", "--config", str(path), "--runs", str(runs)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("cavallo train: error: ") and re.search(error, err), err
    assert not runs.exists()


@pytest.mark.parametrize("content, error", [
    (b"name: x\n\x00\x01\x02\x03", "a binary file (a NUL byte at byte 8), not a YAML config"),
    (b"name: \xe9t\xe9\n", "not a text file (invalid continuation byte at byte 6)"),
    (b"# " + b"x" * (1 << 20) + b"\n", "more than 1048576 bytes (1 MiB): not a config (a config is a few KiB)"),
])
def test_files_that_are_not_configs(tmp_path, capsys, content, error):
    path = tmp_path / "odd.yaml"
    path.write_bytes(content)
    runs = tmp_path / "runs"
    assert main(["train", "--config", str(path), "--runs", str(runs)]) == 2
    err = capsys.readouterr().err
    assert err == f"cavallo train: error: {path}: {error}\n"
    assert not runs.exists()


def test_the_nesting_limit_is_exact(tmp_path):
    path = tmp_path / "deep.yaml"
    limit = config_mod.MAX_CONFIG_DEPTH
    path.write_text("a: " + "[" * (limit - 1) + "]" * (limit - 1) + "\n")  # the top mapping is level 1
    data = read_yaml(path)
    for _ in range(limit - 1):
        data = data["a"] if isinstance(data, dict) else data[0] if data else data
    assert data == []
    path.write_text("a: " + "[" * limit + "]" * limit + "\n")
    with pytest.raises(ConfigError, match=f"nested more than {limit} levels deep"):
        read_yaml(path)


def test_keys_written_once_and_merge_keys_refused(tmp_path):
    """Other YAML reads as before; a merge key is refused (its keys would silently give way to the mapping's)."""
    path = tmp_path / "ok.yaml"
    path.write_text("mix: {self: 1, snapshots: 1}\n'1': a\n1: b\n")
    assert read_yaml(path) == {"mix": {"self": 1, "snapshots": 1}, "1": "a", 1: "b"}
    path.write_text("ppo: {lr: 1, <<: {lr: 2, clip: 0.3}}\n")
    with pytest.raises(ConfigError, match=r"line 1, column 14: a merge key \(<<\)"):
        read_yaml(path)
    path.write_text("ppo:\n  lr: 0.1\n  clip: 0.3\n  clip: 0.2\n")
    with pytest.raises(ConfigError, match=r"line 4, column 3: duplicate key 'clip' \(first at line 3\)"):
        read_yaml(path)


def test_shipped_configs_read_the_same_with_the_strict_loader():
    import yaml

    paths = sorted((ROOT / "configs").rglob("*.yaml"))
    assert len(paths) > 10
    for path in paths:
        assert read_yaml(path) == yaml.safe_load(path.read_text(encoding="utf-8")), path


# (key, largest accepted, smallest refused) for the ranges that bound memory, processes or time
EDGES = [
    ("games", 4096, 4097),
    ("updates", 1_000_000, 1_000_001),
    ("checkpoint_every", 1_000_000, 1_000_001),
    ("ppo.minibatch_size", 65536, 65537),
    ("league.max_snapshots", 64, 65),
    ("league.snapshot_every", 1_000_000, 1_000_001),
    ("eval.deals", 100_000, 100_001),
    ("eval.every", 1_000_000, 1_000_001),
    ("eval.jobs", 64, 65),
    ("pretrain.games", 20_000, 20_001),
    ("pretrain.jobs", 64, 65),
    ("pretrain.minibatch_size", 65536, 65537),
    ("model.hidden", [8] * 8, [8] * 9),
    ("model.hidden", [8192], [8193]),
    ("model.prior_gain", [-1000, 1000], [0, 1001]),
    ("eval.opponents", ["greedy"] * 16, ["greedy"] * 17),
    ("name", "n" * 100, "n" * 101),
]


def _set(data: dict, key: str, value) -> dict:
    *sections, last = key.split(".")
    node = data
    for sec in sections:
        node = node.setdefault(sec, {})
    node[last] = value
    return data


@pytest.mark.parametrize("key, ok, bad", EDGES, ids=[f"{k}={b!r}"[:40] for k, _, b in EDGES])
def test_stated_ranges_are_exact(key, ok, bad):
    base = {"name": "edge", "model": {"hidden": [32]}}
    from_dict(_set(dict(base, model=dict(base["model"])), key, ok))
    with pytest.raises(ConfigError, match=re.escape(f"config.{key}")):
        from_dict(_set(dict(base, model=dict(base["model"])), key, bad))


@pytest.mark.parametrize("game", games.names())
def test_parameter_count_is_the_networks(game):
    torch = pytest.importorskip("torch")  # noqa: F841
    from training.model import ModelConfig, build_policy

    learning = games.get(game).learning()
    assert ModelConfig is config_mod.ModelSection  # one model config: the network's is the config file's
    for hidden, prior in [([256, 256], False), ([32], True), ([8, 16, 4], False)]:
        section = config_mod.ModelSection(hidden=hidden, prior=prior)
        net = build_policy(section, learning)
        assert section.parameters(learning.obs_size, learning.num_actions, learning.prior_size) == sum(
            p.numel() for p in net.parameters())


def test_every_number_has_its_range_in_the_docs():
    """docs/training.md's "Config limits" names every numeric key of a config and the file limits."""
    import dataclasses
    import typing

    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    section = text.split("### Config limits", 1)[1].split("\n## ", 1)[0]

    def numeric_keys(cls, prefix=""):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            tp = hints[f.name]
            if dataclasses.is_dataclass(tp):
                yield from numeric_keys(tp, f"{f.name}.")
            elif tp in (int, float, typing.Optional[float], list[int], list[float]):
                yield prefix + f.name

    keys = list(numeric_keys(config_mod.TrainConfig))
    assert "ppo.lr" in keys and "model.hidden" in keys
    missing = [k for k in keys if f"`{k}`" not in section]
    assert not missing, missing
    for limit in ("1 MiB", f"{config_mod.MAX_CONFIG_DEPTH} levels", "duplicate", "alias",
                  f"{config_mod.MAX_PARAMETERS:,}", f"{config_mod.MAX_HELD_PARAMETERS:,}"):
        assert limit in section, limit
