"""The switch between the compiled core and the Python engines: ``CAVALLO_CORE`` (cavallo_env.core:
``choice``, ``enabled``, ``require``).  Runs whether or not the core is built (the build is faked)."""

from __future__ import annotations

import pytest

from cavallo_env import core

BUILT, NOT_BUILT = (lambda: None), (lambda: f"{core.BUILD_HINT} (no module named _briscola)")


@pytest.mark.parametrize("value,built,expected", [
    (None, BUILT, True), ("", BUILT, True), ("auto", BUILT, True), (" Auto ", BUILT, True), ("core", BUILT, True),
    ("python", BUILT, False), ("PYTHON", BUILT, False),
    (None, NOT_BUILT, False), ("auto", NOT_BUILT, False), ("python", NOT_BUILT, False),
])
def test_enabled_follows_the_switch_and_the_build(monkeypatch, value, built, expected):
    if value is None:
        monkeypatch.delenv(core.SWITCH, raising=False)
    else:
        monkeypatch.setenv(core.SWITCH, value)
    monkeypatch.setattr(core, "missing_reason", built)
    assert core.enabled() is expected


def test_core_wanted_but_not_built_says_how_to_build(monkeypatch):
    monkeypatch.setenv(core.SWITCH, "core")
    monkeypatch.setattr(core, "missing_reason", NOT_BUILT)
    with pytest.raises(ImportError, match=r"CAVALLO_CORE=core but the compiled core .* is not built: run `pip"):
        core.enabled()
    with pytest.raises(ImportError, match="is not built"):
        core.require()


@pytest.mark.parametrize("value", ["c", "fast", "1", "pyhton"])
def test_unknown_values_are_an_error(monkeypatch, value):
    monkeypatch.setenv(core.SWITCH, value)
    monkeypatch.setattr(core, "missing_reason", BUILT)
    for call in (core.choice, core.enabled, core.require):
        with pytest.raises(ValueError, match=rf"CAVALLO_CORE must be one of auto, python, core \(or unset\), "
                                             rf"got '{value}'"):
            call()


def test_require(monkeypatch):
    monkeypatch.setattr(core, "missing_reason", BUILT)
    monkeypatch.delenv(core.SWITCH, raising=False)
    assert core.require() is None
    monkeypatch.setenv(core.SWITCH, "python")
    with pytest.raises(RuntimeError, match="CAVALLO_CORE=python switches it off"):
        core.require()
    monkeypatch.setenv(core.SWITCH, "auto")
    monkeypatch.setattr(core, "missing_reason", NOT_BUILT)
    with pytest.raises(ImportError, match="is not built"):
        core.require()
