"""Bounded reads of the files users hand to the commands: a file far larger than what it should be is
refused after reading one byte past the bound, whatever its size (a pipe or a device has none)."""

from __future__ import annotations

import json


def read_capped(path, limit: int, not_what: str, error: type[Exception] = ValueError) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them; ``error`` naming the file if it cannot be read
    or holds more (the message then ends ``not_what``: what such a file is not)."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise error(f"{path}: cannot read it ({e.strerror or e})") from None
    if len(data) > limit:
        raise error(f"{path}: more than {byte_words(limit)}: {not_what}")
    return data


def read_json_file(path, limit: int, what: str):
    """The JSON value in ``path``; a ``ValueError`` naming the file if it cannot be read, holds more than
    ``limit`` bytes (``what``: what it should have been) or is not JSON."""
    data = read_capped(path, limit, f"not {what}")
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} is not JSON: {e}") from None


def byte_words(n: int) -> str:
    """A bound in bytes as the errors name it: ``1048576 bytes (1 MiB)``."""
    return f"{n} bytes ({n / (1 << 20):g} MiB)"
