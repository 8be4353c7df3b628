"""position: sticky drawn: a scrolled page with a sticky header (in a bordered section)
and footer, under every policy, against the same page laid out already moved (the
sticky layers static at the places worked out by hand in tests/unit/test_sticky.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import Layer, Scene

SECTION = "background: linear-gradient(#abc, #345); border: 5px solid #123; border-radius: 8px"
HEAD = "background: rgba(255, 0, 100, 0.85); border-radius: 6px"
FOOT = "background: #0a8; box-shadow: 0 -4px 10px rgba(0, 0, 0, 0.4)"


def page(scroll: float) -> Scene:
    scene = Scene(400, 300, "#eee")
    scene.root.style["overflow"] = "auto"
    _content(scene.root, 0.0, "position: sticky; top: 10px; ", "position: sticky; bottom: 0; ", 0.0, 0.0)
    scene.root.scroll_to(y=scroll)
    return scene


def reference(scroll: float, head_dy: float, foot_dy: float) -> Scene:
    """The page moved up by ``scroll`` by hand, the sticky layers static and shifted."""
    scene = Scene(400, 300, "#eee")
    _content(scene.root, -scroll, "", "", head_dy, foot_dy)
    return scene


def _content(page: Layer, dy: float, head: str, foot: str, head_dy: float, foot_dy: float) -> None:
    page.add(Layer("tall", (0, dy, 400, 3000), "background: repeating-linear-gradient(#fff 0 40px, #ccd 40px 80px)"))
    section = page.add(Layer("section", (0, 200 + dy, 400, 600), SECTION))
    section.add(Layer("head", (0, 40 + head_dy, 400, 40), head + HEAD, text="Section"))
    page.add(Layer("footer", (0, 1500 + dy + foot_dy, 400, 30), foot + FOOT))


@pytest.mark.parametrize("policy", ["browser", "all", "none"])
@pytest.mark.parametrize("scroll, head_dy, foot_dy", [(0, 0, -1230), (300, 70, -930), (760, 515, -470), (1400, 515, 0)])
def test_sticky_layers_match_the_page_laid_out_moved(gl, policy, scroll, head_dy, foot_dy):
    frame = page(scroll).render(gl, policy=policy)
    expected = reference(scroll, head_dy, foot_dy).render(gl, policy="none").image
    diff = np.abs(frame.image.astype(int) - expected.astype(int)).max()
    assert diff <= 1, (policy, scroll, diff)


def test_scrolling_frame_by_frame_moves_the_kept_sticky_textures(gl):
    scene = page(0)
    scene.render(gl)
    for scroll, head_dy, foot_dy in ((300, 70, -930), (301, 71, -929), (760, 515, -470)):
        scene.root.scroll_to(y=scroll)
        frame = scene.render(gl)
        rastered = {p.layer_id for p in frame.graph.raster_passes()}
        assert not rastered & {"head", "footer"}, rastered
        expected = reference(scroll, head_dy, foot_dy).render(gl, policy="none").image
        assert np.abs(frame.image.astype(int) - expected.astype(int)).max() <= 1, scroll
