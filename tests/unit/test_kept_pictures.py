"""gpu.pictures: the feImage pictures a runner keeps uploaded by content key, bounded as
its pool is (no GPU here; tests/gl/test_svg_blend_image_gl.py counts an OpenCL runner's
uploads across frames)."""

from __future__ import annotations

import numpy as np

from lamina.gpu.pictures import KeptPictures


def test_kept_pictures_are_bounded_by_count_and_by_the_frames_a_pool_keeps():
    """No GPU: the latest used stay (a count bound); ageing frees what a frame range
    left unused; each copy made is counted once."""
    freed: list[str] = []
    kept = KeptPictures(lambda p: str(p[0, 0, 0]), freed.append, kept=2)
    picture = lambda v: np.full((1, 1, 4), v, np.uint8)  # noqa: E731
    assert kept.get("a", picture(1), frame=0) == "1" and kept.get("b", picture(2), frame=0) == "2"
    kept.get("a", picture(1), frame=1)  # used again: kept, and now the latest
    kept.get("c", picture(3), frame=1)  # a third: the least recently used one goes
    assert freed == ["2"] and kept.uploads == 3 and len(kept) == 2
    kept.age(frame=3, keep_frames=2)  # used two frames ago: a pool keeps that long
    assert len(kept) == 2
    kept.age(frame=4, keep_frames=2)
    assert freed == ["2", "1", "3"] and len(kept) == 0
