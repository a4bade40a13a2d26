"""Ctrl-C during ``cavallo train``: stop cleanly, keep the last finished update.

``Guard`` holds a copy of the run's state as of the last finished update
(``finished``, called once an update's evaluation and metrics row are done).
When Ctrl-C comes (in a rollout, an evaluation, a warm start or a save), the
work of the unfinished update is dropped and that copy is written to
``checkpoints/last`` (atomic, with Ctrl-C ignored while it is written), so
``cavallo train --resume RUN_DIR`` continues from it bit for bit as if the
run had not stopped.  ``Interrupted`` says which update was kept.

While a guard is open, SIGINT raises ``KeyboardInterrupt`` in the main process
only: the processes it forks (prior workers, evaluation and teacher pools)
inherit a handler that ignores it, so they print no traceback; the main
process closes them as it unwinds.
"""

from __future__ import annotations

import copy
import os
import signal
import threading
from pathlib import Path

from . import checkpoint as ckpt


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C; ``update``: the last finished update, saved in ``run_dir``."""

    def __init__(self, run_dir: Path, update: int):
        super().__init__(f"interrupted: {run_dir} saved at update {update}")
        self.run_dir = Path(run_dir)
        self.update = update


class Guard:
    """See the module doc; ``with Guard(run): ...`` around a run's work."""

    def __init__(self, run):
        self.run = run
        self.kept = None  # (tensors, meta) of the last finished update
        self._main = os.getpid()
        self._previous = None

    def finished(self):
        """The run has finished an update (or its setup, or its warm start): keep a copy of its
        state; returns it, as ``(tensors, meta)`` for ``training.checkpoint.save``."""
        tensors, meta = self.run.state()
        self.kept = ({k: v.detach().clone() for k, v in tensors.items()}, copy.deepcopy(meta))
        return self.kept

    def save(self, path=None) -> None:
        """Write the kept state (default ``checkpoints/last``), Ctrl-C ignored meanwhile."""
        path = self.run.last_path if path is None else path
        if not _in_main_thread():  # only the main thread may change a signal's handler
            ckpt.save(path, *self.kept)
            return
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            ckpt.save(path, *self.kept)
        finally:
            signal.signal(signal.SIGINT, previous)

    def _on_sigint(self, signum, frame):
        if os.getpid() == self._main:
            raise KeyboardInterrupt
        # a forked worker: its parent stops it

    def __enter__(self):
        self.finished()
        # started with Ctrl-C ignored (nohup, `&`): leave it so; in another thread, Ctrl-C is the main one's
        if _in_main_thread() and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def __exit__(self, kind, exc, tb):
        try:
            if kind is not None and issubclass(kind, KeyboardInterrupt) and not isinstance(exc, Interrupted):
                self.save()  # before the old handler is back: a second Ctrl-C meanwhile is ignored
                raise Interrupted(self.run.run_dir, self.kept[1]["step"]) from None
        finally:
            if self._previous is not None:
                signal.signal(signal.SIGINT, self._previous)
        return False


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()
