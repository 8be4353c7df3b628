"""RasterCache: which layers' rasters (and filter results) are kept as textures between
frames, and for what.

A layer's raster is reused while what it paints is unchanged — the LayerPaint (colours,
gradients, image content, radii, border, sub-pixel offset) and its size. Moving,
rotating, fading or filtering a layer does not change its LayerPaint, so those frames
re-raster nothing, as in browsers' compositors. A filtered layer's result is kept the
same way while its input (the retained rasters it is made of, where they are drawn) and
the filter's plan are unchanged. The cache holds only names and keys (plain data); the
executor holds the textures.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..framegraph import TextureDesc
from ..geometry import Rect
from .damage import DrawnFrame

__all__ = ["RasterCache", "raster_id", "shadow_id"]


def raster_id(layer_id: str) -> str:
    """The cache id of a layer's own kept raster."""
    return f"layer:{layer_id}"


def shadow_id(layer_id: str) -> str:
    """The cache id of a layer's outer box shadows, kept for its next repaint."""
    return _SHADOW + layer_id


_SHADOW = "shadow:"


class RasterCache:
    def __init__(self) -> None:
        self._entries: dict[str, tuple[Any, TextureDesc]] = {}
        # The frame texture is kept too, with the draws it was made of, so the next frame
        # can redraw only where those changed (a damage rect).
        self.frame_state: DrawnFrame | None = None
        self.backing_bounds: dict[str, list] = {}  # member bounds of kept backings (for damage)
        self._boxes: dict[int, tuple[list, np.ndarray]] = {}  # id(member bounds) -> (them, as an array)
        self._generation = 0
        self._used: set[str] = set()
        self._last_used: set[str] = set()
        self._released: list[str] = []
        self.frames = 0  # frames ended: a plan kept for the fast path knows which it was
        # While a list, every entry used is noted in it too: what one part of a frame used
        # (the retained fast path plans a context alone again and must know its entries).
        self.noting: list[str] | None = None

    def begin_frame(self) -> None:
        self._used = set()
        self._released = []

    def carry_over(self, but: frozenset[str] = frozenset()) -> None:
        """Everything the last frame used is used by this one too (the retained fast
        path keeps those draws without looking each up again), but the entries in ``but``
        (those of what it plans again: they are used now only if looked up again)."""
        self._used |= self._last_used - but if but else self._last_used

    def let_go_of_shadows(self, rastered: set[str]) -> None:
        """After carry_over: the box shadows kept for a layer's next repaint stay only
        with the layer's own kept raster (looked up or made this frame) or a raster of it
        made this frame (``rastered``: layer ids), as planning from scratch keeps them; a
        backing member's, used last frame by a paint that is not made again, end here."""
        for key_id in [k for k in self._used if k.startswith(_SHADOW)]:
            layer_id = key_id[len(_SHADOW):]
            if raster_id(layer_id) not in self._used and layer_id not in rastered:
                self._used.discard(key_id)

    def _use(self, key_id: str) -> None:
        self._used.add(key_id)
        if self.noting is not None:
            self.noting.append(key_id)

    def lookup(self, layer_id: str, key: Any, available: Callable[[str], bool]) -> TextureDesc | None:
        entry = self._entries.get(layer_id)
        if entry is not None and entry[0] == key and available(entry[1].name):
            self._use(layer_id)
            return entry[1]
        return None

    def keep(self, key_id: str) -> None:
        """Keep an entry this frame without looking it up (a layer's shadows, while its
        raster is reused: the next repaint will want them)."""
        if key_id in self._entries:
            self._use(key_id)

    def new_name(self, key: str, prefix: str = "layer") -> str:
        self._generation += 1
        return f"{prefix}:{key}#{self._generation}"

    def store(self, layer_id: str, key: Any, desc: TextureDesc) -> None:
        old = self._entries.get(layer_id)
        if old is not None:
            self._released.append(old[1].name)
        self._entries[layer_id] = (key, desc)
        self._use(layer_id)

    def peek(self, key_id: str) -> tuple[Any, TextureDesc] | None:
        return self._entries.get(key_id)

    def update(self, key_id: str, key: Any) -> None:
        """The same texture now holds new content (repainted in place)."""
        _, desc = self._entries[key_id]
        self._entries[key_id] = (key, desc)
        self._use(key_id)

    def end_frame(self) -> list[str]:
        """Forget layers not drawn this frame; return every texture name to free."""
        for layer_id in [i for i in self._entries if i not in self._used]:
            self._released.append(self._entries.pop(layer_id)[1].name)
        for key_id in [k for k in self.backing_bounds if k not in self._entries]:
            del self.backing_bounds[key_id]
        self._last_used = set(self._used)
        self.frames += 1
        return list(self._released)

    def snapshot(self) -> tuple:
        return (dict(self._entries), self.frame_state, dict(self.backing_bounds), set(self._used), list(self._released),
                set(self._last_used), self.frames, self._generation)

    def restore(self, saved: tuple) -> None:
        """Back to ``saved``, the names given since included: a plan given up (the fast
        path's, then planned from scratch) leaves the names the next textures get as they were."""
        entries, frame_state, bounds, used, released, last_used, frames, generation = saved
        self._entries, self.frame_state = dict(entries), frame_state
        # In place: a planner that gave up its fast path plans on with the dict it holds.
        self.backing_bounds.clear()
        self.backing_bounds.update(bounds)
        self._used, self._released = set(used), list(released)
        self._last_used, self.frames, self._generation = set(last_used), frames, generation

    def boxes(self, bounds: list[Rect]) -> np.ndarray:
        """A backing's member bounds as an (n, 4) array of x0, y0, x1, y1 (each x1 = x +
        width as Rect.right computes it), made once per list: a repaint looks for the
        members touching its rect without a loop over the whole backing."""
        hit = self._boxes.get(id(bounds))
        if hit is None or hit[0] is not bounds:
            xywh = np.array([(r.x, r.y, r.width, r.height) for r in bounds], dtype=np.float64).reshape(-1, 4)
            boxes = np.column_stack([xywh[:, 0], xywh[:, 1], xywh[:, 0] + xywh[:, 2], xywh[:, 1] + xywh[:, 3]])
            live = {id(b) for b in self.backing_bounds.values()}
            self._boxes = {k: v for k, v in self._boxes.items() if k in live}
            hit = self._boxes[id(bounds)] = (bounds, boxes)
        return hit[1]

    def forget(self, names) -> None:
        """Drop entries whose textures no longer exist (after a failed frame)."""
        names = set(names)
        for layer_id in [i for i, (_, d) in self._entries.items() if d.name in names]:
            del self._entries[layer_id]

    def __len__(self) -> int:
        return len(self._entries)
