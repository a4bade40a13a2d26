"""The bounded read of a saved JSON result (``cavallo pool``'s reports, ``cavallo tournament --from``'s
summary): a file far larger than any such result is refused before it is parsed."""

from __future__ import annotations

import json


def read_json_file(path: str, limit: int, what: str):
    """The JSON value in ``path``; a ``ValueError`` naming the file if it cannot be read, is larger than
    ``limit`` bytes (``what`` says what it should have been) or is not JSON."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    if len(data) > limit:
        raise ValueError(f"{path}: larger than {limit} bytes: not {what}")
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} is not JSON: {e}") from None
