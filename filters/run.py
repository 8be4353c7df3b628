"""``filters.apply`` on the GPU: upload, run the plan, read back."""

from __future__ import annotations

import numpy as np

from ..images import premultiply, unpremultiply
from ..css.values import RGBA

from .chain import FilterChain

__all__ = ["apply_gl"]


def apply_gl(image: np.ndarray, chain: FilterChain, *, premultiplied: bool, current_color: RGBA, renderer=None) -> np.ndarray:
    from ..errors import TextureTooLargeError
    from ..renderer import default_renderer

    renderer = renderer or default_renderer()
    h, w = image.shape[:2]
    limit = renderer.limits.max_texture_size
    if w > limit or h > limit:
        raise TextureTooLargeError(f"a {w}x{h} image is larger than this GPU's {limit}x{limit} texture limit")
    plan = chain.plan(current_color=current_color, size=(w, h))
    renderer.gpu.activate()
    executor = renderer.executor
    runner = executor.filter_runner
    source = executor.pool.acquire(w, h)
    out = None
    try:
        data = image if premultiplied else premultiply(image)
        source.texture.write(np.ascontiguousarray(data))  # buffer protocol: no extra copy
        out = runner.run(plan, source, w, h)
        result = np.empty((h, w, 4), np.uint8)
        out.texture.read_into(result, alignment=1)
    finally:
        if out is not None and out is not source:
            executor.pool.release(out)
        executor.pool.release(source)
        executor.pool.end_frame()
    renderer.gpu.check_errors("filters.apply")
    return result if premultiplied else unpremultiply(result)
