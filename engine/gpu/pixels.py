"""Pixels in and out of the GPU: straight <-> premultiplied RGBA8 as fragment passes
(shaders/pixels/convert.frag), rounded exactly as ``lamina.images`` rounds on the host,
and run in strips, so a large image or frame never needs a second whole copy of itself
on either side.

Images go up straight and are premultiplied by a pass into their texture; frames come
down through an un-premultiply pass, from the GPU texture (``convert``) or, for a frame
whose texture is gone, from its premultiplied host copy (``unpremultiply_host``).
"""

from __future__ import annotations

from typing import Iterator

import moderngl
import numpy as np

from ..progress import step
from .pool import PooledTarget, TexturePool
from .programs import PREMULTIPLY, UNPREMULTIPLY, NamedProgram, ProgramCache

__all__ = ["PixelPasses", "STRIP_BYTES", "strips"]

# Rows per strip are chosen so one strip holds about this many bytes: a 16384-px-wide
# frame goes in 256 strips of 64 rows, a 1080p one in 2. Smaller strips keep less in
# flight (the PNG encoder holds a few, with their filtered copies); at 4 MiB a pass
# per strip still costs nothing next to the pixels it converts.
STRIP_BYTES = 4 << 20

Rect = tuple[int, int, int, int]  # x, y, width, height in texels, row 0 at the top


def strips(width: int, height: int, strip_bytes: int = STRIP_BYTES) -> Iterator[tuple[int, int]]:
    """(first row, end row) of each strip of a ``width`` x ``height`` RGBA8 image."""
    rows = max(1, strip_bytes // max(1, width * 4))
    for y0 in range(0, height, rows):
        yield y0, min(height, y0 + rows)


class PixelPasses:
    """The conversion passes of one GL context: programs from its ProgramCache, scratch
    textures from its pool (a strip each, returned as soon as the strip is done)."""

    def __init__(self, ctx: moderngl.Context, programs: ProgramCache, pool: TexturePool,
                 strip_bytes: int = STRIP_BYTES) -> None:
        self.ctx = ctx
        self.programs = programs
        self.pool = pool
        self.strip_bytes = strip_bytes

    def convert(self, name: NamedProgram, source: moderngl.Texture, rect: Rect, target: PooledTarget,
                at: tuple[int, int]) -> None:
        """Draw ``rect`` of ``source`` converted by program ``name`` (PREMULTIPLY or
        UNPREMULTIPLY) into ``target`` with its top-left at ``at``."""
        x, y, w, h = rect
        program = self.programs.get(name)
        target.framebuffer.use()
        self.ctx.viewport = (at[0], at[1], w, h)
        self.ctx.disable(moderngl.BLEND)
        source.use(location=0)
        program["u_source"].value = 0
        program["u_offset"].value = (at[0] - x, at[1] - y)
        self.programs.vertex_array(name).render(moderngl.TRIANGLES, vertices=3)

    def premultiply_into(self, straight: np.ndarray, target: PooledTarget) -> None:
        """Upload straight (H, W, 4) uint8 pixels into ``target``, premultiplied on the
        GPU: each strip goes up into a scratch texture and one pass converts it."""
        h, w = straight.shape[:2]
        for y0, y1 in strips(w, h, self.strip_bytes):
            scratch = self.pool.acquire(w, y1 - y0)
            try:
                scratch.texture.write(np.ascontiguousarray(straight[y0:y1]))
                self.convert(PREMULTIPLY, scratch.texture, (0, 0, w, y1 - y0), target, (0, y0))
            finally:
                self.pool.release(scratch)

    def read_straight(self, source: moderngl.Texture, out: np.ndarray, what: str = "reading back") -> None:
        """Un-premultiply ``source`` into ``out`` ((H, W, 4) uint8, or a row range of a
        larger frame's array), a strip at a time through one scratch texture."""
        h, w = out.shape[:2]
        for y0, y1 in strips(w, h, self.strip_bytes):
            self.read_straight_rows(source, y0, y1, out[y0:y1])
            step(what, y1, h)

    def read_straight_rows(self, source: moderngl.Texture, y0: int, y1: int, out: np.ndarray) -> None:
        """Rows ``y0``..``y1`` of ``source`` un-premultiplied into ``out`` ((y1 - y0, W, 4))."""
        w = out.shape[1]
        scratch = self.pool.acquire(w, y1 - y0)
        try:
            self.convert(UNPREMULTIPLY, source, (0, y0, w, y1 - y0), scratch, (0, 0))
            scratch.texture.read_into(out, alignment=1)
        finally:
            self.pool.release(scratch)

    def unpremultiply_host(self, premultiplied: np.ndarray, out: np.ndarray, what: str = "un-premultiplying") -> None:
        """Premultiplied host pixels -> straight ``out``, converted on the GPU a strip at
        a time (up into one scratch texture, through the pass into another, back)."""
        h, w = premultiplied.shape[:2]
        for y0, y1 in strips(w, h, self.strip_bytes):
            rows = y1 - y0
            up, down = self.pool.acquire(w, rows), self.pool.acquire(w, rows)
            try:
                up.texture.write(np.ascontiguousarray(premultiplied[y0:y1]))
                self.convert(UNPREMULTIPLY, up.texture, (0, 0, w, rows), down, (0, 0))
                down.texture.read_into(out[y0:y1], alignment=1)
            finally:
                self.pool.release(up)
                self.pool.release(down)
            step(what, y1, h)
