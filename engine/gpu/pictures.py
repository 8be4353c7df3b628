"""Device copies of feImage pictures, kept by the picture's content key.

An feImage pass carries its picture's pixels and key (its href and content checksum,
``filters.svg.images.Picture``): equal keys, equal pixels. The GL runner keeps textures
and the OpenCL runner buffers by that key, so a frame drawing the same picture again
(an animation, a retained frame replanned) uploads nothing, and a changed picture, a
new key, is uploaded again. Like the runners' pools, what is kept is bounded: at most
``PICTURES_KEPT`` pictures (the latest used kept), and, where the runner ages its pool
by frames, none left unused for longer than its pool keeps a free buffer.
"""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

import numpy as np

__all__ = ["KeptPictures", "PICTURES_KEPT"]

PICTURES_KEPT = 8  # feImage pictures kept uploaded per runner
Copy = TypeVar("Copy")


class KeptPictures(Generic[Copy]):
    """Pictures uploaded by ``make`` (pixels -> the device's copy) and freed by ``free``,
    by key, the latest used last; ``uploads`` counts the copies made."""

    def __init__(self, make: Callable[[np.ndarray], Copy], free: Callable[[Copy], None],
                 kept: int = PICTURES_KEPT) -> None:
        self._make, self._free, self.kept = make, free, kept
        self._copies: dict[str, tuple[Copy, int]] = {}  # key -> (copy, frame it was last used in)
        self.uploads = 0

    def get(self, key: str, pixels: np.ndarray, frame: int = 0) -> Copy:
        """The device's copy of the picture ``key`` (``pixels``), uploaded if not kept."""
        entry = self._copies.pop(key, None)
        if entry is None:
            while len(self._copies) >= self.kept:
                self._free(self._copies.pop(next(iter(self._copies)))[0])
            entry = (self._make(np.ascontiguousarray(pixels, np.uint8)), frame)
            self.uploads += 1
        self._copies[key] = (entry[0], frame)
        return entry[0]

    def __len__(self) -> int:
        return len(self._copies)

    def age(self, frame: int, keep_frames: int) -> None:
        """Free the pictures not used for more than ``keep_frames`` frames before ``frame``."""
        for key, (copy, used) in list(self._copies.items()):
            if frame - used > keep_frames:
                self._free(copy)
                del self._copies[key]

    def clear(self) -> None:
        """Free every picture."""
        for copy, _ in self._copies.values():
            self._free(copy)
        self._copies.clear()
