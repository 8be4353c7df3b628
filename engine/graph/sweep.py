"""Animation sweeps: where a layer can be over one iteration of the transform animations
running on it or on an ancestor. The browser policy tests overlap against the sweep,
as Blink does, so promotions do not flicker from frame to frame — and since a sweep
depends on the iteration, not on the frame's time, the decisions made from it hold for
the whole iteration (the retained fast path relies on that)."""

from __future__ import annotations

import math

from .. import device_scale
from ..compositor.tree import BACKFACE_CULLED, LayerNode, world
from ..geometry import Affine, Projective, Rect, clipped_polygon
from ..layer import Layer
from ..style.transforms import transform_matrix
from .placement import touched
from .retained import is_transform_animation_running

__all__ = ["SWEEP_SAMPLES", "animated_sweep", "sample_sweep", "sweep_bounds"]

SWEEP_SAMPLES = 16  # samples of one iteration of a transform animation


def sample_sweep(layer: Layer, node: LayerNode, t: float) -> list[Affine | Projective]:
    """Layer px -> screen px of ``layer`` (resolved as ``node`` at ``t``) at
    SWEEP_SAMPLES + 1 points of the current iteration of each running transform
    animation, its container where it is now (placed as the trees place it: a 3D one
    under its container's perspective; a sample showing a hidden back face or not
    invertible draws nothing and is left out); [] when none runs."""
    running = [a for a in layer.animations if is_transform_animation_running(a, t)]
    if not running or not node.to_screen.is_invertible():
        return []
    box = node.box if node.box is not None else layer.box  # device px (lamina.device_scale)
    base = layer.computed_style(None)
    zoom = device_scale.current()
    matrices = []
    for a in running:
        start = a.delay + a.duration * math.floor(max(t - a.delay, 0.0) / a.duration)
        for i in range(SWEEP_SAMPLES + 1):
            style = zoom.style(layer.sampled_style(base, start + a.duration * i / SWEEP_SAMPLES * 0.999999))
            local = transform_matrix(style.transform, style.transform_origin, box.width, box.height)
            m = world(node.container, layer, local, node.is_fixed, node.sticky, style)
            if m is not BACKFACE_CULLED and m.is_invertible():
                matrices.append(m)
    return matrices


def animated_sweep(node: LayerNode, nodes: dict, sweeps: dict[str, list], t: float, plane: str | None = None
                   ) -> tuple[list[Affine | Projective], Affine | Projective] | None:
    """The sampled screen matrices of the transform animation running on ``node``'s
    layer or its nearest animated ancestor, with ``node``'s matrix relative to that
    layer (apply it after each sample); None when none runs or the animated layer is not
    invertible. ``nodes``: the property trees' nodes by layer id; ``sweeps`` caches each
    layer's samples for the frame (each animated layer is sampled once). ``plane``: the
    layer whose plane the target is (a 3D flattening surface): an animation on it or
    above it moves that plane as a whole, which changes no overlap of the layers flat in
    it, so only animations below it sweep."""
    layer = node.layer
    while layer is not None:
        if layer.id == plane and layer is not node.layer:
            return None
        samples = sweeps.get(layer.id)
        if samples is None:
            anim = nodes.get(layer.id)
            samples = sweeps[layer.id] = sample_sweep(layer, anim, t) if anim is not None else []
        if samples:
            break
        layer = layer.parent
    if layer is None:
        return None
    anim = nodes[layer.id]
    if not anim.to_screen.is_invertible():
        return None
    if anim is not node and node.context3d is not None:
        # A member of a 3D rendering context is not a flat map of the animated layer's
        # plane (its depth turns with it): no sweep; members are promoted by Preserve3D.
        return None
    return samples, (Affine() if anim is node else anim.to_screen.inverse() @ node.to_screen)


def sweep_bounds(samples: list[Affine | Projective], rel: Affine | Projective, size: tuple[float, float] | Rect,
                 to_target: Affine) -> Rect:
    """Target pixels a quad of ``size`` (a size, or a rect: a layer's ink rect; placed
    ``rel`` in the animated layer's px) can touch over the samples: each sample grown
    like a transformed quad (``touched``), and the union by a quarter of the longest step
    a corner takes between samples — what an arc can bulge past its chord for steps
    under 100 degrees (translations and scales do not bulge)."""
    rect = size if isinstance(size, Rect) else Rect(0, 0, *size)
    rects, step, previous = [], 0.0, None
    for m in samples:
        m = to_target @ m @ rel
        rects.append(touched(rect, m))
        corners = clipped_polygon(rect, m)
        if previous is not None and corners and len(previous) == len(corners):
            step = max(step, max(math.hypot(a[0] - b[0], a[1] - b[1]) for a, b in zip(corners, previous)))
        previous = corners
    r = Rect.union(rects)
    if r is None:
        return Rect(0, 0, 0, 0)
    g = step / 4
    return Rect(r.x - g, r.y - g, r.width + 2 * g, r.height + 2 * g).rounded_out()
