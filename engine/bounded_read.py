"""Reading input with a cap: at most ``limit + 1`` bytes are ever read, so a file that
is a pipe or a character device (``/dev/zero``: endless) is refused as too large after
that much, not read until memory runs out. A ``stat`` cannot say how much a pipe or a
device holds, and a file may grow between the stat and the read, so the size is what
was read."""

from __future__ import annotations

import os

__all__ = ["InputTooLarge", "read_bounded"]


class InputTooLarge(Exception):
    """More than ``limit`` bytes were there to read; callers raise their typed error
    (SceneFileError, ImageLoadError) naming the limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"more than {limit} bytes")


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path``: InputTooLarge when it holds more than ``limit``; OSError
    as ``open`` and ``read`` raise it."""
    chunks, total = [], 0
    with open(path, "rb") as f:
        while total <= limit:
            chunk = f.read(min(limit + 1 - total, 16 * 2**20))  # a pipe returns what it has: loop
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    if total > limit:
        raise InputTooLarge(limit)
    return b"".join(chunks)
