"""The soak (tests/soak/soak.py): 10,000 animated frames with paint changes, resizes and
policy and backend switches leave memory, textures, images, GL objects and OpenCL buffers flat
after the warm-up (growth under 5%)."""

from __future__ import annotations

import pytest

from lamina.renderer import Renderer

from .soak import grew, run

pytestmark = [pytest.mark.slow, pytest.mark.gl, pytest.mark.opencl]


def test_ten_thousand_frames_keep_memory_and_gpu_objects_flat():
    renderer = Renderer()  # its own: the suite's shared one holds other tests' state
    try:
        start, end = run(10_000, renderer=renderer)
    finally:
        renderer.release()
    growth = grew(start, end)
    for key in ("pool_textures", "kept_textures", "images", "gl_objects", "opencl_buffers"):
        assert end[key] <= start[key] + 1, f"{key}: {start[key]} after warm-up, {end[key]} at the end"
    assert growth["rss"] < 0.05, f"resident memory grew {growth['rss']:.1%}: {start['rss']} -> {end['rss']} bytes"
