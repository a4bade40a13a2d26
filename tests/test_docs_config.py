"""docs/training.md's "Config keys" table is training/config.py's: every key, its type and its default.

A key added to a config dataclass without a row, a row for a key that is
gone, or a type or default that no longer matches fails here.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

import yaml

from training import config as config_mod

ROOT = Path(__file__).resolve().parent.parent

TYPE_NAMES = {
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    list[int]: "list of int",
    list[float]: "list of float",
    list[str]: "list of str",
    dict[str, float]: "mapping of str to float",
    dict[str, typing.Any]: "mapping",
    typing.Optional[float]: "float or null",
    typing.Optional[str]: "str or null",
}


def config_keys(cls=config_mod.TrainConfig, prefix=""):
    """(dotted key, type, default) of every leaf field of the config."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        if dataclasses.is_dataclass(tp):
            yield from config_keys(tp, f"{prefix}{f.name}.")
        else:
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            yield prefix + f.name, tp, default


def documented_rows() -> dict[str, tuple[str, str, str]]:
    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    assert "### Config keys" in text, "docs/training.md lost its 'Config keys' section"
    section = text.split("### Config keys", 1)[1].split("\n#", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"^\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|(.*)\|\s*$", line)
        if m:
            key = m.group(1)
            assert key not in rows, f"{key} has two rows"
            rows[key] = (m.group(2).strip(), m.group(3).strip(), m.group(4).strip())
    return rows


def parse_default(cell: str):
    value = cell.strip().strip("`")
    for number in (int, float):  # YAML 1.1 reads 3e-4 as a string
        try:
            return number(value)
        except ValueError:
            pass
    return yaml.safe_load(value)


def test_every_key_has_one_row_and_no_row_is_stale():
    rows = documented_rows()
    keys = [k for k, _, _ in config_keys()]
    missing = [k for k in keys if k not in rows]
    stale = [k for k in rows if k not in keys]
    assert not missing, f"config keys without a row in docs/training.md: {missing}"
    assert not stale, f"rows in docs/training.md for keys training/config.py does not have: {stale}"


def test_types_defaults_and_meanings_match():
    rows = documented_rows()
    for key, tp, default in config_keys():
        doc_type, doc_default, meaning = rows[key]
        assert tp in TYPE_NAMES, f"{key}: add a name for {tp} to TYPE_NAMES"
        assert doc_type == TYPE_NAMES[tp], f"{key}: documented as {doc_type!r}, is {TYPE_NAMES[tp]!r}"
        assert parse_default(doc_default) == default, f"{key}: documented default {doc_default}, is {default!r}"
        assert len(meaning) > 10, f"{key}: say what it means"


def test_the_documented_defaults_make_a_valid_config():
    """The defaults as documented, read back through the config loader, give the dataclass defaults."""
    data: dict = {}
    for key, (_, cell, _) in documented_rows().items():
        *sections, name = key.split(".")
        node = data
        for sec in sections:
            node = node.setdefault(sec, {})
        node[name] = parse_default(cell)
    cfg = config_mod.from_dict(data)
    assert dataclasses.asdict(cfg) == dataclasses.asdict(config_mod.TrainConfig())
