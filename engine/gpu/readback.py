"""A frame's pixels out of the GPU: premultiplied RGBA8 as the passes left them, and
straight RGBA8 from an un-premultiply pass on the GPU (lamina.gpu.pixels) — not a host
loop over the frame (but for a frame that outlived its renderer: no GPU is left).

The executor hands each frame's texture to its ``FrameReader`` and gets back the
frame's ``FramePixels``:

* a frame up to ``LARGE_FRAME_BYTES`` is read back premultiplied at once (as the
  executor always did). While it is the latest frame (no other execution has run) its
  straight pixels come from a straight copy the reader keeps on the GPU, brought up to
  date only where the frame changed since (the frame pass's damage rects), so an
  animation frame converts what moved, not the frame; once another execution has run,
  from its own premultiplied host copy, converted on the GPU in strips;
* while the frame texture is one the executor keeps (a damaged frame is composited
  into last frame's), the reader reads from the GPU only where the frame changed (the
  damage rects), so the bus carries the damage rect, not the frame: a frame's
  premultiplied pixels are last frame's with the rects it read on top (``Patched``,
  put together when first asked for, so a frame that is only shown straight never
  copies them), and its straight pixels are a copy of the reader's host copy of its
  straight texture, brought up to date where the frame changed since it was read. A
  frame's arrays are its own: no later frame changes them, and what the reader keeps
  is never handed out;
* a larger frame is read lazily and in strips, premultiplied or straight, so the host
  never holds more than the result and a strip (a 16384 x 16384 frame is 1 GiB).

How a large frame keeps its pixels is its own lifecycle, not the next execution's
business: the frame *holds* its texture (a ``_Hold``) until it has read its
premultiplied pixels, is dropped, or its renderer is released. A texture made for the
frame alone stays out of the pool while held, so nothing else draws into it. A texture
the executor keeps for later frames (the kept frame texture a damaged frame is
composited into) stays the executor's: when an execution is about to draw into it, the
reader first copies it on the GPU into a pooled texture the hold then owns (copy on
write), and when the executor lets go of it the hold takes it over. So the next
execution never reads back an earlier frame: nothing crosses to the host that its
frame did not ask for (only releasing the renderer reads held frames, since their
textures go with the context). Holds of frames no longer referenced are given back to
the pool at the start of the next execution.
"""

from __future__ import annotations

import threading

import weakref
from typing import Iterable, Iterator

import numpy as np

from ..framegraph import CompositePass, FrameGraph
from ..images import unpremultiply
from ..progress import step
from .pixels import PixelPasses, Rect, strips
from .pool import PooledTarget, TexturePool
from .programs import UNPREMULTIPLY

__all__ = ["FramePixels", "FrameReader", "Patched", "LARGE_FRAME_BYTES", "changed_rects", "UNPREMULTIPLY_WORK", "ENCODE_WORK",
           "READBACK_WORK"]

# The kinds of work on a frame's pixels after its execution (ExecutionStats.after, the
# trace's spans after the read-back).
UNPREMULTIPLY_WORK = "un-premultiply"
ENCODE_WORK = "encode PNG"
READBACK_WORK = "read back"  # premultiplied pixels asked for after the execution: a large frame's
# (read from the GPU in strips) or a damaged frame's (last frame's with its damage rects on top)

LARGE_FRAME_BYTES = 64 << 20  # 4096 x 4096 RGBA8: above, frames are read lazily, in strips
_MAX_RECTS = 16  # damage rects kept apart; more are merged into their bounding box
_MAX_PATCHES = 32  # patches on one base; with more (or over a quarter of the frame), a new base


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


class Patched:
    """Premultiplied pixels of a kept frame texture on the host, as patches on a base:
    ``base`` is never written after it was made, nor handed out, and each of
    ``patches`` ((x, y, w, h), pixels), in order, holds what a later frame read of its
    damage rect. Frames share them; each gets its own array from ``pixels()``."""

    __slots__ = ("base", "patches", "patched_px")

    def __init__(self, base: np.ndarray, patches: tuple[tuple[Rect, np.ndarray], ...] = ()) -> None:
        self.base = base
        self.patches = patches
        self.patched_px = sum(r[2] * r[3] for r, _ in patches)

    def with_patches(self, more: list[tuple[Rect, np.ndarray]]) -> "Patched":
        patched = Patched(self.base, self.patches + tuple(more))
        h, w = self.base.shape[:2]
        if len(patched.patches) > _MAX_PATCHES or patched.patched_px * 4 > w * h:
            return Patched(patched.pixels())  # a new base: patches do not pile up
        return patched

    def pixels(self) -> np.ndarray:
        out = self.base.copy()
        for (x, y, w, h), pixels in self.patches:
            out[y:y + h, x:x + w] = pixels
        return out


class _Hold:
    """A large frame's claim on the texture that holds its pixels: ``target``, and
    whether the hold ``owns`` it (it goes back to the pool when the hold ends) or the
    executor keeps it (a retained texture: copied before it is drawn into again)."""

    __slots__ = ("frame", "target", "owns")

    def __init__(self, frame: "FramePixels", target: PooledTarget, owns: bool) -> None:
        self.frame = weakref.ref(frame)
        self.target = target
        self.owns = owns


class FramePixels:
    """One frame's pixels, read on first use: ``premultiplied()``, ``straight()`` and,
    for writing files without a second whole copy, ``straight_strips()``. Whoever asks
    times the work (the Frame records it in its stats)."""

    def __init__(self, reader: "FrameReader", version: int, width: int, height: int,
                 premultiplied: np.ndarray | Patched | None, read_px: int = 0) -> None:
        self._reader = reader
        self._version = version
        self.width = width
        self.height = height
        # The pixels on the host, or patches of last frame's, put together when asked for.
        self._patched = premultiplied if isinstance(premultiplied, Patched) else None
        self._premultiplied = premultiplied if isinstance(premultiplied, np.ndarray) else None
        self.large = premultiplied is None  # read lazily, in strips (else read at once)
        self._hold: _Hold | None = None  # a large frame's texture, until it has its pixels
        # The work on these pixels so far, in pixels (the Frame copies them into its stats):
        self.read_px = read_px  # premultiplied pixels read from the GPU
        self.unpremultiplied_px = 0  # pixels the un-premultiply converted (and read back straight)

    @property
    def current(self) -> bool:
        """Can this frame's pixels still be read from a texture on the GPU (its own, held
        for it, or, for a small frame, the latest frame's, unchanged since)?"""
        return self._hold is not None or (not self.large and self._reader.version == self._version)

    @property
    def read_back(self) -> bool:
        """Are the premultiplied pixels an array on the host already (else they are read
        from the GPU, or put together from patches, when first asked for)?"""
        return self._premultiplied is not None

    def premultiplied(self) -> np.ndarray:
        if self._premultiplied is None and self._patched is not None:
            self._premultiplied, self._patched = self._patched.pixels(), None
        if self._premultiplied is None:
            self._premultiplied = self._reader.read_premultiplied(self)
            self.read_px += self.width * self.height
            self._reader.let_go(self)  # its pixels are on the host: the texture is not needed
        return self._premultiplied

    def straight(self) -> np.ndarray:
        """(H, W, 4) uint8 straight RGBA, un-premultiplied on the GPU (on the host only
        for a frame that outlived its renderer: there is no GPU left to ask)."""
        if self._reader.released or (not self._reader.owned_here() and not self.large):
            # No GPU to ask (released), or not this thread's: a small frame's pixels are
            # on the host already (a large one's are not: reading them raises
            # RendererThreadError, in premultiplied()).
            self.unpremultiplied_px += self.width * self.height
            return unpremultiply(self.premultiplied())
        out = np.empty((self.height, self.width, 4), np.uint8)
        self._reader.activate()
        if self._hold is not None:
            self._reader.passes.read_straight(self._hold.target.texture, out)
            self.unpremultiplied_px += self.width * self.height
        elif self.current:
            self.unpremultiplied_px += self._reader.read_straight(out)
        else:
            self._reader.passes.unpremultiply_host(self.premultiplied(), out)
            self.unpremultiplied_px += self.width * self.height
        return out

    def straight_strips(self) -> Iterator[np.ndarray]:
        """The straight frame a strip of rows at a time, top first (each strip is
        overwritten by the next: use it before asking for another)."""
        if self._hold is None:
            image = self.straight()
            for y0, y1 in strips(self.width, self.height, self._reader.passes.strip_bytes):
                yield image[y0:y1]
            return
        reader = self._reader
        spans = list(strips(self.width, self.height, reader.passes.strip_bytes))
        buffer = np.empty((spans[0][1], self.width, 4), np.uint8)  # one strip, used again and again
        self.unpremultiplied_px += self.width * self.height
        for y0, y1 in spans:
            strip = buffer[:y1 - y0]
            hold = self._hold  # another execution may have moved it to a copy meanwhile
            if hold is None:  # the renderer was released meanwhile: its pixels came to the host
                strip[...] = unpremultiply(self._premultiplied[y0:y1])
            else:
                reader.activate()
                reader.passes.read_straight_rows(hold.target.texture, y0, y1, strip)
            yield strip


class FrameReader:
    """The latest frame's texture and the straight copy of it, and the textures large
    frames hold, for one executor. ``version`` counts the executions, after each of
    which the latest small frame's texture may have changed."""

    def __init__(self, passes: PixelPasses, pool: TexturePool, activate, large_bytes: int = LARGE_FRAME_BYTES) -> None:
        self.passes = passes
        self.pool = pool
        self.activate = activate  # makes the reader's GL context current (its thread's only)
        self.thread = threading.get_ident()  # the thread whose context it reads
        self.large_bytes = large_bytes
        self.version = 0
        self.released = False
        self.source: PooledTarget | None = None  # the latest small frame's texture
        self._owned = False  # the source goes back to the pool when the next execution starts
        self._mirror: PooledTarget | None = None  # straight copy of the source, but for _dirty (not pooled)
        self._mirror_of: PooledTarget | None = None
        self._dirty: list[Rect] | None = None  # None: all of it
        self._holds: list[_Hold] = []
        # What the reader keeps on the host of a kept frame texture, never handed out
        # (frames get copies): its premultiplied pixels as the last small frame left them,
        # and the straight copy's pixels as the mirror was last read (None: not kept).
        self._kept_premultiplied: Patched | None = None
        self._kept_straight: np.ndarray | None = None

    def owned_here(self) -> bool:
        """Is this the thread whose GL context the reader reads (may it ask the GPU)?"""
        return threading.get_ident() == self.thread

    def begin(self, writes: Iterable[PooledTarget] = (), *, frame: bool = True) -> None:
        """Call before an execution (or anything else) may write or free textures;
        ``writes`` are the kept textures it will draw into, and ``frame`` says whether
        the execution ends in ``frame_done`` (which learns where it drew). The latest
        small frame stops reading from its texture (its pixels are on the host already);
        a large frame whose kept texture is about to be drawn into gets a copy of its
        own; the textures of frames no longer referenced go back to the pool."""
        self.version += 1
        if self._owned and self.source is not None:
            self.pool.release(self.source)
            self._mirror_of = None  # the pool may hand it to anyone now
        self.source, self._owned = None, False
        written = {id(t) for t in writes}
        if not frame and self._mirror_of is not None and id(self._mirror_of) in written:
            # Drawn into where the reader cannot see: what it keeps of it is no guide
            # to the next frame, which is read whole.
            self._mirror_of = None
        for hold in list(self._holds):
            if hold.frame() is None:
                self._end(hold)
            elif not hold.owns and id(hold.target) in written:
                w, h, fmt = hold.target.key
                copy = self.pool.acquire(w, h, fmt)
                self.passes.ctx.copy_framebuffer(copy.framebuffer, hold.target.framebuffer)
                hold.target, hold.owns = copy, True

    def adopt(self, target: PooledTarget) -> bool:
        """The executor lets go of kept ``target``: a frame holding it takes it over (True),
        else the caller gives it back to the pool (False)."""
        for hold in self._holds:
            if hold.target is target and not hold.owns and hold.frame() is not None:
                hold.owns = True
                return True
        return False

    def frame_done(self, graph: FrameGraph, target: PooledTarget, *, owned: bool) -> FramePixels:
        """``target`` holds the frame ``graph`` made (made for this frame alone when
        ``owned``, else kept by the executor): read it back if it is small, else let the
        frame hold it, and return the frame's pixels."""
        rects = changed_rects(graph) if target is self._mirror_of else None
        if rects is None or self._dirty is None:
            self._dirty = None
        else:
            self._dirty.extend(rects)
            if len(self._dirty) > _MAX_RECTS:
                self._dirty = [_bounds(self._dirty)]
        self._mirror_of = target
        w, h = graph.width, graph.height
        kept = self._kept_premultiplied
        self._kept_premultiplied = None  # until it is brought up to date below
        if w * h * 4 > self.large_bytes:
            frame = FramePixels(self, self.version, w, h, None)
            frame._hold = _Hold(frame, target, owned)
            self._holds.append(frame._hold)
            return frame
        self.source, self._owned = target, owned
        if rects is not None and kept is not None and kept.base.shape == (h, w, 4):
            # Last frame's pixels are on the host already: only what this frame changed
            # crosses the bus, as patches on them.
            patches = _read_rects(target, rects)
            self._kept_premultiplied = kept.with_patches(patches)
            return FramePixels(self, self.version, w, h, self._kept_premultiplied,
                               sum(r[2] * r[3] for r, _ in patches))
        premultiplied = np.empty((h, w, 4), np.uint8)
        target.texture.read_into(premultiplied, alignment=1)
        if owned:  # a frame's own texture is not drawn into again: nothing to build on
            self._kept_premultiplied = None
            return FramePixels(self, self.version, w, h, premultiplied, w * h)
        # A texture kept for the next frame, which may change only part of it: its pixels
        # are the base of the next frames' patches, and this frame's copy is made from
        # them when asked for.
        self._kept_premultiplied = Patched(premultiplied)
        return FramePixels(self, self.version, w, h, self._kept_premultiplied, w * h)

    def read_premultiplied(self, frame: FramePixels) -> np.ndarray:
        hold = frame._hold
        if hold is None:
            raise AssertionError("a large frame without its texture or its pixels")  # held until it has them
        self.activate()
        out = np.empty((frame.height, frame.width, 4), np.uint8)
        framebuffer = hold.target.framebuffer
        for y0, y1 in strips(frame.width, frame.height, self.passes.strip_bytes):
            # Rows of the texture straight into the array: no second copy.
            framebuffer.read_into(out[y0:y1], viewport=(0, y0, frame.width, y1 - y0), components=4, alignment=1)
            step("reading back", y1, frame.height)
        return out

    def let_go(self, frame: FramePixels) -> None:
        """``frame`` has its pixels on the host: its texture is not held for it any more."""
        hold, frame._hold = frame._hold, None
        if hold is not None and hold in self._holds:
            self._end(hold)

    def read_straight(self, out: np.ndarray) -> int:
        """The latest small frame, straight, into ``out``; returns how many pixels were
        un-premultiplied: where the frame changed since the straight copy was last
        brought up to date (all of it the first time)."""
        self.activate()
        h, w = out.shape[:2]
        mirror = self._mirror
        if mirror is None or mirror.key[:2] != (w, h):
            self._drop_mirror()
            mirror = self._mirror = _own_target(self.passes.ctx, w, h)
            self._dirty = None
        rects = [(0, 0, w, h)] if self._dirty is None else self._dirty
        for rect in rects:
            self.passes.convert(UNPREMULTIPLY, self.source.texture, rect, mirror, rect[:2])
        kept = self._kept_straight
        if self._dirty is not None and kept is not None and not self._owned:
            # The host copy matches the mirror but for the rects just converted: read
            # those into it, and give the frame a copy.
            for (x, y, rw, rh), pixels in _read_rects(mirror, rects):
                kept[y:y + rh, x:x + rw] = pixels
            np.copyto(out, kept)
        else:
            mirror.texture.read_into(out, alignment=1)
            # Kept only while the frame texture is kept: a frame's own texture is not
            # drawn into again, so its successor starts from a whole read anyway.
            self._kept_straight = None if self._owned else out.copy()
        self._dirty = []
        return sum(r[2] * r[3] for r in rects)

    def release(self) -> None:
        """Give back the reader's textures (the executor is closing): a frame still
        holding one reads its pixels now, since the textures go with the context."""
        for hold in list(self._holds):
            frame = hold.frame()
            if frame is not None:
                frame.premultiplied()  # ends the hold
            else:
                self._end(hold)
        self.begin()
        self._drop_mirror()
        self._mirror_of = None
        self._kept_premultiplied = None
        self.released = True

    def _end(self, hold: _Hold) -> None:
        self._holds.remove(hold)
        if hold.owns:
            self.pool.release(hold.target)

    def _drop_mirror(self) -> None:
        if self._mirror is not None:
            self.pool.park()  # never release the bound framebuffer (see TexturePool.park)
            self._mirror.framebuffer.release()
            self._mirror.texture.release()
        self._mirror, self._dirty, self._kept_straight = None, None, None


def _own_target(ctx, width: int, height: int) -> PooledTarget:
    """A texture the reader keeps for itself (the straight copy), outside the pool, so
    the pool's count of textures in use stays the frames' own."""
    texture = ctx.texture((width, height), 4, dtype="f1")
    return PooledTarget(texture, ctx.framebuffer(color_attachments=[texture]), (width, height, "rgba8"))


def _read_rects(source: PooledTarget, rects: list[Rect]) -> list[tuple[Rect, np.ndarray]]:
    """``rects`` of ``source``, cut to its size, read from the GPU: (rect, pixels) each."""
    w, h = source.key[:2]
    read = []
    for x, y, rw, rh in rects:
        x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + rw), min(h, y + rh)
        if x0 >= x1 or y0 >= y1:
            continue
        pixels = np.empty((y1 - y0, x1 - x0, 4), np.uint8)
        source.framebuffer.read_into(pixels, viewport=(x0, y0, x1 - x0, y1 - y0), components=4, alignment=1)
        read.append(((x0, y0, x1 - x0, y1 - y0), pixels))
    return read


def _bounds(rects: list[Rect]) -> Rect:
    x0 = min(r[0] for r in rects)
    y0 = min(r[1] for r in rects)
    x1 = max(r[0] + r[2] for r in rects)
    y1 = max(r[1] + r[3] for r in rects)
    return (x0, y0, x1 - x0, y1 - y0)
