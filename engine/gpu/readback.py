"""A frame's pixels out of the GPU: premultiplied RGBA8 as the passes left them, and
straight RGBA8 from an un-premultiply pass on the GPU (lamina.gpu.pixels) — not a host
loop over the frame (but for a frame that outlived its renderer: no GPU is left).

The executor hands each frame's texture to its ``FrameReader`` and gets back the
frame's ``FramePixels``. While that frame is the latest (no other execution has run),
its pixels are read from its texture:

* a frame up to ``LARGE_FRAME_BYTES`` is read back premultiplied at once (as the
  executor always did) and un-premultiplied into a straight copy the reader keeps on
  the GPU — only where the frame changed since that copy was last brought up to date
  (the frame pass's damage rects), so an animation frame converts what moved, not
  the frame;
* a larger frame is read lazily and in strips, premultiplied or straight, so the host
  never holds more than the result and a strip (a 16384 x 16384 frame is 1 GiB).

Before anything else runs on the GPU the reader ``settle()``s the latest frame: a
large frame that is still referenced and not read yet is read back then, so a frame
always keeps its pixels. A frame that is no longer the latest converts its
premultiplied host copy on the GPU, in strips.
"""

from __future__ import annotations

import time
import weakref
from typing import Iterator

import numpy as np

from ..framegraph import CompositePass, FrameGraph
from ..images import unpremultiply
from ..progress import step
from .pixels import PixelPasses, Rect, strips
from .pool import PooledTarget, TexturePool
from .programs import UNPREMULTIPLY

__all__ = ["FramePixels", "FrameReader", "LARGE_FRAME_BYTES", "changed_rects", "UNPREMULTIPLY_WORK", "ENCODE_WORK",
           "READBACK_WORK"]

# The kinds of work on a frame's pixels after its execution (ExecutionStats.after, the
# trace's spans after the read-back).
UNPREMULTIPLY_WORK = "un-premultiply"
ENCODE_WORK = "encode PNG"
READBACK_WORK = "read back"  # a large frame's premultiplied pixels, read when first asked for

LARGE_FRAME_BYTES = 64 << 20  # 4096 x 4096 RGBA8: above, frames are read lazily, in strips
_MAX_RECTS = 16  # damage rects kept apart; more are merged into their bounding box


def changed_rects(graph: FrameGraph) -> list[Rect] | None:
    """Where ``graph`` wrote its output texture over what the last frame left there:
    the damage rects of the passes drawing into it, or None when one of them redrew
    the whole (or wrote it otherwise)."""
    rects: list[Rect] = []
    for p in graph.passes:
        if p.target.name != graph.output.name:
            continue
        if not isinstance(p, CompositePass) or p.damage is None:
            return None
        x, y, w, h = p.damage
        if w > 0 and h > 0:
            rects.append((x, y, w, h))
    return rects


class FramePixels:
    """One frame's pixels, read on first use: ``premultiplied()``, ``straight()`` and,
    for writing files without a second whole copy, ``straight_strips()``. A late
    read-back is timed in the frame's ``stats`` (ExecutionStats.after)."""

    def __init__(self, reader: "FrameReader", version: int, width: int, height: int,
                 premultiplied: np.ndarray | None, stats) -> None:
        self._reader = reader
        self._version = version
        self.width = width
        self.height = height
        self._premultiplied = premultiplied
        self.stats = stats

    @property
    def current(self) -> bool:
        """Is this frame's texture still on the GPU as the frame left it?"""
        return self._reader.version == self._version

    @property
    def large(self) -> bool:
        return self.width * self.height * 4 > self._reader.large_bytes

    def premultiplied(self) -> np.ndarray:
        if self._premultiplied is None:
            started = time.perf_counter()
            self._premultiplied = self._reader.read_premultiplied(self)
            self.stats.record(READBACK_WORK, started)
        return self._premultiplied

    def straight(self) -> np.ndarray:
        """(H, W, 4) uint8 straight RGBA, un-premultiplied on the GPU (on the host only
        for a frame that outlived its renderer: there is no GPU left to ask)."""
        if self._reader.released:
            return unpremultiply(self._premultiplied)
        out = np.empty((self.height, self.width, 4), np.uint8)
        self._reader.activate()
        if self.current:
            self._reader.read_straight(out)
        else:
            self._reader.passes.unpremultiply_host(self._premultiplied, out)
        return out

    def straight_strips(self) -> Iterator[np.ndarray]:
        """The straight frame a strip of rows at a time, top first (each strip is
        overwritten by the next: use it before asking for another)."""
        if not self.large or not self.current:
            image = self.straight()
            for y0, y1 in strips(self.width, self.height, self._reader.passes.strip_bytes):
                yield image[y0:y1]
            return
        reader = self._reader
        spans = list(strips(self.width, self.height, reader.passes.strip_bytes))
        buffer = np.empty((spans[0][1], self.width, 4), np.uint8)  # one strip, used again and again
        for y0, y1 in spans:
            if not self.current:
                raise RuntimeError("another frame was rendered while this one was being written out")
            reader.activate()
            strip = buffer[:y1 - y0]
            reader.passes.read_straight_rows(reader.source.texture, y0, y1, strip)
            yield strip

    def detach(self) -> None:
        """The texture is about to change: keep the pixels (read them now if needed)."""
        self.premultiplied()


class FrameReader:
    """The latest frame's texture and the straight copy of it, for one executor.
    ``version`` counts the times the GPU's textures may have changed under a frame."""

    def __init__(self, passes: PixelPasses, pool: TexturePool, activate, large_bytes: int = LARGE_FRAME_BYTES) -> None:
        self.passes = passes
        self.pool = pool
        self.activate = activate  # makes the reader's GL context current
        self.large_bytes = large_bytes
        self.version = 0
        self.released = False
        self.source: PooledTarget | None = None  # the latest frame's texture
        self._owned = False  # the source goes back to the pool when the next frame starts
        self._mirror: PooledTarget | None = None  # straight copy of the source, but for _dirty (not pooled)
        self._mirror_of: PooledTarget | None = None
        self._dirty: list[Rect] | None = None  # None: all of it
        self._latest: weakref.ref | None = None

    def settle(self) -> None:
        """Call before anything may write or free a texture: the latest frame keeps
        its pixels, and stops being read from the GPU."""
        frame = self._latest() if self._latest is not None else None
        self._latest = None
        if frame is not None:
            frame.detach()
        self.version += 1
        if self._owned and self.source is not None:
            self.pool.release(self.source)
            self._mirror_of = None  # the pool may hand it to anyone now
        self.source, self._owned = None, False

    def frame_done(self, graph: FrameGraph, target: PooledTarget, *, owned: bool, stats) -> FramePixels:
        """``target`` holds the frame ``graph`` made (it goes back to the pool at the
        next ``settle`` when ``owned``): read it back if it is small, and return it."""
        self.source, self._owned = target, owned
        rects = changed_rects(graph) if target is self._mirror_of else None
        if rects is None or self._dirty is None:
            self._dirty = None
        else:
            self._dirty.extend(rects)
            if len(self._dirty) > _MAX_RECTS:
                self._dirty = [_bounds(self._dirty)]
        self._mirror_of = target
        w, h = graph.width, graph.height
        premultiplied = None
        if w * h * 4 <= self.large_bytes:
            premultiplied = np.empty((h, w, 4), np.uint8)
            target.texture.read_into(premultiplied, alignment=1)
        frame = FramePixels(self, self.version, w, h, premultiplied, stats)
        self._latest = weakref.ref(frame)
        return frame

    def read_premultiplied(self, frame: FramePixels) -> np.ndarray:
        if not frame.current:
            raise RuntimeError("a large frame's pixels are gone: it was neither read nor kept")  # settle() prevents it
        self.activate()
        out = np.empty((frame.height, frame.width, 4), np.uint8)
        framebuffer = self.source.framebuffer
        for y0, y1 in strips(frame.width, frame.height, self.passes.strip_bytes):
            # Rows of the texture straight into the array: no second copy.
            framebuffer.read_into(out[y0:y1], viewport=(0, y0, frame.width, y1 - y0), components=4, alignment=1)
            step("reading back", y1, frame.height)
        return out

    def read_straight(self, out: np.ndarray) -> None:
        """The latest frame, straight, into ``out``."""
        self.activate()
        h, w = out.shape[:2]
        if w * h * 4 > self.large_bytes:
            self.passes.read_straight(self.source.texture, out)
            return
        mirror = self._mirror
        if mirror is None or mirror.key[:2] != (w, h):
            self._drop_mirror()
            mirror = self._mirror = _own_target(self.passes.ctx, w, h)
            self._dirty = None
        for rect in [(0, 0, w, h)] if self._dirty is None else self._dirty:
            self.passes.convert(UNPREMULTIPLY, self.source.texture, rect, mirror, rect[:2])
        self._dirty = []
        mirror.texture.read_into(out, alignment=1)

    def release(self) -> None:
        """Give back the reader's textures (the executor is closing)."""
        self.settle()
        self._drop_mirror()
        self._mirror_of = None
        self.released = True

    def _drop_mirror(self) -> None:
        if self._mirror is not None:
            self.pool.park()  # never release the bound framebuffer (see TexturePool.park)
            self._mirror.framebuffer.release()
            self._mirror.texture.release()
        self._mirror, self._dirty = None, None


def _own_target(ctx, width: int, height: int) -> PooledTarget:
    """A texture the reader keeps for itself (the straight copy), outside the pool, so
    the pool's count of textures in use stays the frames' own."""
    texture = ctx.texture((width, height), 4, dtype="f1")
    return PooledTarget(texture, ctx.framebuffer(color_attachments=[texture]), (width, height, "rgba8"))


def _bounds(rects: list[Rect]) -> Rect:
    x0 = min(r[0] for r in rects)
    y0 = min(r[1] for r in rects)
    x1 = max(r[0] + r[2] for r in rects)
    y1 = max(r[1] + r[3] for r in rects)
    return (x0, y0, x1 - x0, y1 - y0)
