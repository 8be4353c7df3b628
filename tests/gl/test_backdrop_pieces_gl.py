"""A split member's backdrop-filter on GL against a hand-composed float64 reference
(tests.backdrop_reference, tests.projection_reference): what lies under the context,
m's far piece (its blurred backdrop, then m), x drawn in perspective, then m's near
piece reading and blurring all of that. The cut lies on the frame column x = 100 (x
turns about its centre line, which lies in m's plane), so the pieces are the two
sides of it."""

from __future__ import annotations

import numpy as np
import pytest

import lamina.graph.backed as backed
from lamina.blending.reference import source_over
from lamina.framegraph import BackdropPass
from tests import backdrop_reference as br
from tests import projection_reference as pr
from tests.unit.test_backdrop_pieces import split_backdrop_member

W, H = 200, 160
BOX = (30, 30, 140, 100)  # m in the frame: flat at z = 0, so perspective leaves it be
CUT = 100


def opaque(rgb: tuple[int, int, int], w: int, h: int) -> np.ndarray:
    img = np.empty((h, w, 4), np.uint8)
    img[...] = (*rgb, 255)
    return img


def expected(opacity: float) -> tuple[np.ndarray, np.ndarray]:
    """(straight RGB float64 in levels, x's coverage) of the frame, composed step by step."""
    frame = np.zeros((H, W, 4))
    frame[...] = (1, 1, 1, 1)
    frame[:, :60] = (1, 0, 0, 1)  # "under"
    eye = pr.translate(20, 20) @ pr.translate(80, 60) @ pr.perspective(300) @ pr.translate(-80, -60)
    mx = eye @ pr.translate(30, 10) @ pr.translate(50, 50) @ pr.rotate((0, 1, 0), 50) @ pr.translate(-50, -50)
    x_premul, x_cover = pr.draw((W, H), pr.flatten(mx), opaque((0, 0, 255), 100, 100), background=(0, 0, 0))
    x0, y0, w, h = BOX
    element = np.zeros((H, W, 4))
    element[y0:y0 + h, x0:x0 + w] = (0.5, 0.5, 0, 0.5)  # rgba(255,255,0,.5), premultiplied
    cols = np.arange(W)[None, :] + 0.5
    for side in (cols < CUT, cols >= CUT):  # the far piece, then (after x) the near one
        piece = br.filtered_backdrop(frame, BOX, "blur(2px)")
        piece = source_over(piece, element) * opacity  # T': the filtered backdrop, then m; its opacity
        inside = np.zeros((H, W), bool)
        inside[y0:y0 + h, x0:x0 + w] = True
        inside &= np.broadcast_to(side, (H, W))
        frame[inside] = source_over(frame, piece)[inside]
        if side[0, 0]:
            x = np.concatenate([x_premul / 255.0, x_cover[..., None]], axis=2)
            frame = source_over(frame, x)
    return frame[..., :3] * 255.0, x_cover


@pytest.mark.parametrize("member_style, opacity", [("", 1.0), ("opacity: 0.5", 0.5)])
def test_each_split_piece_blurs_what_lies_behind_it_when_it_is_drawn(gl, member_style, opacity):
    image = split_backdrop_member(member_style).render(gl).image[..., :3].astype(float)
    want, x_cover = expected(opacity)
    diff = np.abs(image - want).max(axis=2)
    x0, y0, w, h = BOX
    # Away from x's anti-aliased edges (the model's coverage is exact, GL's is not quite).
    edge = (x_cover > 0.001) & (x_cover < 0.999)
    grown = edge.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            grown |= np.roll(np.roll(edge, dy, 0), dx, 1)
    far = np.zeros((H, W), bool)
    far[y0:y0 + h, x0:CUT] = True
    near = np.zeros((H, W), bool)
    near[y0:y0 + h, CUT:x0 + w] = True
    # What makes the test bite: the far piece blurs the red edge at x = 60, the near piece x's edge.
    assert np.ptp(want[far & (x_cover == 0)][:, 1]) > 100 and (near & (x_cover > 0.999)).sum() > 300
    print(f"max diff {diff[~grown].max():.2f}, mean {diff[~grown].mean():.3f}")
    assert (diff[~grown] > 2).sum() == 0, f"{(diff[~grown] > 2).sum()} px differ by more than 2 levels"


@pytest.mark.parametrize("sigma", [5, 12, 25])
def test_a_piece_copying_only_the_part_under_it_draws_what_copying_all_draws(gl, monkeypatch, sigma):
    """Each piece's read copies only its part, grown by the reach (graph.reads.piece_region):
    the frame is the one copying the whole region for each piece gives, to the level, also
    for blurs that downscale (sigma > 4) and reach past a piece by more than its width."""
    def scene():
        s = split_backdrop_member(f"backdrop-filter: blur({sigma}px)")
        s.find("under").style["background"] = "repeating-linear-gradient(90deg, #e33 0px, #e33 7px, #fff 7px, #fff 13px)"
        return s

    graph = scene().plan()
    regions = [p.region for p in graph.passes if isinstance(p, BackdropPass)]
    assert len(regions) == 2 and all(r is not None and r[2] < p.target.width
                                     for r, p in zip(regions, [p for p in graph.passes if isinstance(p, BackdropPass)]))
    clipped = scene().render(gl).image
    monkeypatch.setattr(backed, "piece_region", lambda draw, read: None)
    whole = scene().render(gl).image
    assert np.array_equal(clipped, whole), f"{(clipped != whole).any(axis=2).sum()} px differ"
