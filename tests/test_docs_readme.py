"""Every command in README.md runs as written.

The README's ``sh`` blocks: each ``make X`` is a target of the Makefile; each
``cavallo ...`` (or ``.venv/bin/cavallo ...``) line parses with the real
``cavallo`` command line, and the files it names that the repository ships
(configs, checkpoints, examples) exist; each ``python FILE`` names a file of
the repository and each ``python -m MODULE`` an importable module. Commands in
the README's tables (inline code starting ``cavallo `` or ``python ``) are
held to the same. The ``python`` blocks are run, in a subprocess, from the
repository root. The README stays short: at most 200 lines.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

# paths the repository ships; other paths in commands (runs/..., games.jsonl) are made by earlier commands
SHIPPED_PREFIXES = ("configs/", "checkpoints/", "examples/", "benchmarks/", "cavallo_env/")


def blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README, re.S | re.M)


def shell_commands() -> list[str]:
    out = []
    for block in blocks("sh"):
        for line in block.splitlines():
            line = line.split(" # ", 1)[0].split("\t#", 1)[0].strip()
            if line and not line.startswith("#"):
                out.append(line)
    # commands written inline in the results tables
    for cell in re.findall(r"\|\s*`((?:cavallo|python) [^`]+)`\s*\|", README):
        out.append(cell)
    return out


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z][\w-]*):", text, re.M))


def check_cavallo(argv: list[str]) -> None:
    from cavallo_env.cli import build_parser

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse says why on stderr
        pytest.fail(f"cavallo {' '.join(argv)}: does not parse (exit {e.code})")
    assert getattr(args, "_run", None), f"cavallo {' '.join(argv)}: no subcommand"
    for word in argv:
        for part in word.split("="):
            if part.startswith(SHIPPED_PREFIXES) and "<" not in part and "RUN" not in part:
                path = ROOT / part
                candidates = [path, path.with_suffix(".json"), path.with_suffix(".safetensors"),
                              path.parent / (path.name + ".json")]
                assert any(c.exists() for c in candidates), f"cavallo {' '.join(argv)}: {part} is not in the repository"


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = README.splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines"
    first = shell_commands()[:2]
    assert [c.split()[:2] for c in first] == [["make", "demo"], ["make", "test"]]
    assert "docs/img/" in README


def test_there_are_commands():
    cmds = shell_commands()
    assert sum(c.startswith("cavallo ") for c in cmds) >= 10


@pytest.mark.parametrize("command", shell_commands())
def test_every_readme_command_runs_as_written(command):
    argv = shlex.split(command)
    head = argv[0]
    if head == "make":
        assert set(argv[1:]) <= makefile_targets(), command
    elif head in ("cavallo", ".venv/bin/cavallo"):
        check_cavallo(argv[1:])
    elif head in ("python", ".venv/bin/python"):
        if argv[1] == "-m":
            assert importlib.util.find_spec(argv[2]) is not None, command
        else:
            assert (ROOT / argv[1]).is_file(), command
    elif head == "source":
        assert argv[1] == ".venv/bin/activate", command
    else:
        pytest.fail(f"README command of an unknown kind: {command}")


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_every_readme_python_block_runs(index, tmp_path):
    code = blocks("python")[index]
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
