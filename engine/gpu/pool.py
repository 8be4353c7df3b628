"""A pool of render-target textures keyed by (width, height, format).

The executor acquires a texture when a virtual texture of the frame graph is first
written and releases it after its last reader; released textures are reused by later
passes and frames instead of being reallocated (as WebRender and TextureMapper do).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import moderngl

__all__ = ["PooledTarget", "TexturePool"]

_COMPONENTS = {"rgba8": ("f1", 4), "rgba16f": ("f2", 8), "rgba32f": ("f4", 16)}


@dataclass(eq=False)
class PooledTarget:
    texture: moderngl.Texture
    framebuffer: moderngl.Framebuffer
    key: tuple[int, int, str]

    @property
    def bytes(self) -> int:
        w, h, fmt = self.key
        return w * h * _COMPONENTS[fmt][1]


class TexturePool:
    """Free textures are kept for ``keep_frames`` frames after their last use, then
    released, so animating a size does not leave a texture per size behind."""

    def __init__(self, ctx: moderngl.Context, keep_frames: int = 2) -> None:
        self.ctx = ctx
        self.keep_frames = keep_frames
        self._free: dict[tuple[int, int, str], list[PooledTarget]] = defaultdict(list)
        self._released_at: dict[int, int] = {}  # id(target) -> frame it was freed in
        self.frame = 0
        self.allocations = 0
        self.reuses = 0
        self.evictions = 0
        self.in_use = 0
        self._parking: tuple[moderngl.Texture, moderngl.Framebuffer] | None = None

    def acquire(self, width: int, height: int, fmt: str = "rgba8") -> PooledTarget:
        key = (width, height, fmt)
        free = self._free[key]
        self.in_use += 1
        if free:
            self.reuses += 1
            target = free.pop()
            self._released_at.pop(id(target), None)
            return target
        dtype, _ = _COMPONENTS[fmt]
        texture = self.ctx.texture((width, height), 4, dtype=dtype)
        texture.filter = (moderngl.LINEAR, moderngl.LINEAR)
        texture.repeat_x = False
        texture.repeat_y = False
        framebuffer = self.ctx.framebuffer(color_attachments=[texture])
        self.allocations += 1
        return PooledTarget(texture, framebuffer, key)

    def release(self, target: PooledTarget) -> None:
        self.in_use -= 1
        self._free[target.key].append(target)
        self._released_at[id(target)] = self.frame

    @property
    def free_count(self) -> int:
        return sum(len(items) for items in self._free.values())

    @property
    def free_bytes(self) -> int:
        return sum(t.bytes for items in self._free.values() for t in items)

    def end_frame(self) -> None:
        """Release free textures nobody used for ``keep_frames`` frames."""
        self.frame += 1
        self._evict(lambda t: self.frame - self._released_at.get(id(t), self.frame) > self.keep_frames)

    def trim(self) -> None:
        """Release every texture not in use (e.g. after a scene with big surfaces)."""
        self._evict(lambda t: True)

    def close(self) -> None:
        """Release everything, the parking framebuffer too (the pool is done)."""
        self.trim()
        if self._parking is not None:
            self._parking[1].release()
            self._parking[0].release()
            self._parking = None

    def park(self) -> None:
        """Bind a framebuffer the pool never frees. moderngl re-binds "the previous"
        framebuffer after creating one; if that was just deleted, GL reports
        GL_INVALID_OPERATION. Parking first keeps the binding valid."""
        if self._parking is None:
            texture = self.ctx.texture((1, 1), 4)
            self._parking = (texture, self.ctx.framebuffer(color_attachments=[texture]))
        self._parking[1].use()

    def _evict(self, stale) -> None:
        if not any(stale(t) for items in self._free.values() for t in items):
            return
        self.park()
        for key in list(self._free):
            keep = []
            for t in self._free[key]:
                if stale(t):
                    self._released_at.pop(id(t), None)
                    t.framebuffer.release()
                    t.texture.release()
                    self.evictions += 1
                else:
                    keep.append(t)
            if keep:
                self._free[key] = keep
            else:
                del self._free[key]
