"""Every relative link in README.md and docs/**/*.md resolves, inside the repository.

A link is ``[text](target)`` or ``![alt](target)`` outside code (fenced blocks
and inline code are skipped). ``http(s):``/``mailto:`` targets are not
followed. A relative target must name an existing file or folder of this
repository (never a path outside it, such as ``../shared``), and its
``#anchor``, where it has one and names a Markdown file, must be a heading of
that file, spelled as GitHub spells heading anchors.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(text: str, blank_code: bool = True):
    """(line number, line) outside fenced code, with inline code blanked (unless told)."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        yield n, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line) if blank_code else line


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lowercased, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    text = text.lower()
    out = []
    for ch in text:
        if ch in " -_" or ch.isalnum() or unicodedata.category(ch).startswith("M"):
            out.append("-" if ch == " " else ch)
    return "".join(out)


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    result = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8"), blank_code=False):
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(2))
        k = seen.get(base, 0)
        seen[base] = k + 1
        result.add(base if k == 0 else f"{base}-{k}")
    return result


def links(path: Path):
    text = path.read_text(encoding="utf-8")
    for n, line in prose_lines(text):
        for m in LINK.finditer(line):
            yield n, m.group(1)


def test_the_docs_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in DOCS}
    assert {"README.md", "docs/training.md", "docs/bots.md", "docs/experiments/README.md"} <= names


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(doc: Path):
    problems = []
    for n, target in links(doc):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        where = f"{doc.relative_to(ROOT)}:{n}: {target}"
        path_part, _, anchor = target.partition("#")
        dest = (doc.parent / unquote(path_part)).resolve() if path_part else doc
        try:
            dest.relative_to(ROOT)
        except ValueError:
            problems.append(f"{where} points outside the repository")
            continue
        if not dest.exists():
            problems.append(f"{where} does not exist")
            continue
        if anchor and dest.is_file() and dest.suffix == ".md" and unquote(anchor) not in anchors(dest):
            problems.append(f"{where}: no heading with anchor #{anchor} in {dest.relative_to(ROOT)}")
    assert not problems, "\n".join(problems)


def test_slugs_follow_github():
    assert slug("Checkpoints: layout, hashes, atomic saves") == "checkpoints-layout-hashes-atomic-saves"
    assert slug("ismcts (Scopa)") == "ismcts-scopa"
    assert slug("The generic ISMCTS and each game's hooks") == "the-generic-ismcts-and-each-games-hooks"
    assert slug("Cavalloìcera — `python -m training.ship`") == "cavalloìcera--python--m-trainingship"
