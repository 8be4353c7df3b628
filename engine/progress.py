"""Progress of long work — a frame's passes, its read-back, its PNG encode — for
whoever asked to see it (the CLI shows it on stderr).

Work calls ``step(what, done, total)`` as it goes; that costs one context-variable
look-up when nobody listens. ``report(show)`` listens for the work inside its ``with``
block: ``show`` gets one line of text whenever there is news worth a line, but only
once the work has run for ``after_s`` seconds, so quick renders stay silent.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

__all__ = ["Progress", "report", "step"]


class Progress:
    """Turns steps into lines: at most one per ``every_s`` seconds (and the last step of
    each task), none before the work has run ``after_s`` seconds (counted from when the
    Progress was made: the start of the ``report`` block)."""

    def __init__(self, show: Callable[[str], None], *, after_s: float = 2.0, every_s: float = 0.5,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.show = show
        self.after_s = after_s
        self.every_s = every_s
        self.clock = clock
        self.started = clock()
        self._last_shown = float("-inf")
        self.lines = 0

    def step(self, what: str, done: int, total: int) -> None:
        now = self.clock()
        elapsed = now - self.started
        finished = done >= total
        if elapsed < self.after_s or (now - self._last_shown < self.every_s and not finished):
            return
        self._last_shown = now
        self.lines += 1
        percent = 100.0 * done / total if total else 100.0
        self.show(f"{what}: {done}/{total} ({percent:.0f} %), {elapsed:.1f} s")


_current: ContextVar[Progress | None] = ContextVar("lamina_progress", default=None)


def step(what: str, done: int, total: int) -> None:
    """Note that ``done`` of ``total`` units of ``what`` are finished."""
    progress = _current.get()
    if progress is not None:
        progress.step(what, done, total)


@contextmanager
def report(show: Callable[[str], None] | Progress, **options) -> Iterator[Progress]:
    """Send the progress of the work inside the block to ``show`` (a Progress, or a
    callable taking a line; ``options`` go to Progress then)."""
    progress = show if isinstance(show, Progress) else Progress(show, **options)
    token = _current.set(progress)
    try:
        yield progress
    finally:
        _current.reset(token)
