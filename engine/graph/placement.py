"""Where draws land, in whole pixels: the small geometric rules the planner applies to
every draw and backing — snapping float noise off matrices, the pixels a quad can
touch (with the anti-aliasing fringe of transformed quads), sub-pixel raster offsets,
clip shapes in a target's space, and the keys that say a draw is unchanged."""

from __future__ import annotations

import math

from ..css.values import ClipKind
from ..framegraph import ClipShape, Draw
from ..geometry import Affine, Projective, Rect

__all__ = ["snap", "touched", "clean", "draw_key", "rounded", "reframe", "clip_shape", "subpixel", "whole_pixel"]


def snap(m: Affine) -> Affine:
    """Round float noise off a translation that is meant to be whole pixels; a truly
    fractional one is kept (it is then sampled, not shifted)."""
    m = clean(m)
    if m.is_translation() and abs(m.e - round(m.e)) < 1e-6 and abs(m.f - round(m.f)) < 1e-6:
        return Affine.translate(round(m.e), round(m.f))
    return m


def touched(rect: Rect, m: Affine) -> Rect:
    """The whole pixels a quad drawn with ``m`` can write: its bounds rounded out, and
    two more pixels around transformed quads, whose anti-aliased edges reach past them."""
    r = rect.transformed_bounds(m).rounded_out()
    if not m.is_translation():
        r = Rect(r.x - 2, r.y - 2, r.width + 4, r.height + 4)
    return r


def clean(m: Affine | Projective) -> Affine | Projective:
    """A matrix made from a product with an inverse carries float noise (0.9999999 for 1,
    1e-14 for 0): round it, so that whole-pixel placements and exact translations are
    recognised as such (and a projective map whose perspective cancelled, a layer drawn
    into its projected parent's backing, as the affine map it is)."""
    if m.__class__ is Projective:
        # Normalised by |i| (a positive scale keeps which points lie in front, w > 0), so a
        # cancelled one ends as i = 1.
        k = 1.0 / abs(m.i) if m.i != 0.0 else 1.0
        return Projective(*(round(v * k, 9) + 0.0 for v in m.values())).simplified()
    if m.a == 1.0 and m.b == 0.0 and m.c == 0.0 and m.d == 1.0:  # a translation (most layers): two roundings
        return Affine(1.0, 0.0, 0.0, 1.0, round(m.e, 9) + 0.0, round(m.f, 9) + 0.0)
    return Affine(*(round(v, 9) + 0.0 for v in m.values()))


def draw_key(d: Draw):
    """What a frame draw puts on screen, or None when that cannot be known from names
    (its source is remade every frame, like an opacity group's surface)."""
    if not d.source.retained:
        return None
    clips = tuple((c.layer_id, rounded(c.to_local), c.rect, c.radii, c.kind) for c in d.clips)
    masks = tuple((m.texture.name, rounded(m.to_texel), m.luminance) for m in d.masks)
    planes = tuple(tuple(round(v, 5) for v in plane) for plane in d.split_planes)
    return (d.source.name, rounded(d.transform), round(d.opacity, 6), clips, d.blend, masks, planes)


def rounded(m: Affine) -> tuple[float, ...]:
    return tuple(round(v, 5) for v in m.values())


def reframe(clip: ClipShape, to_target: Affine) -> ClipShape:
    """The same clip for draws into a texture whose pixels map to the target's by
    ``to_target``."""
    return clip_shape(clip.layer_id, clip.to_local @ to_target, clip.rect, clip.radii, clip.kind)


def clip_shape(layer_id: str, to_local: Affine | Projective, rect, radii, kind: ClipKind = ClipKind.OVERFLOW) -> ClipShape:
    # Moving one target pixel perpendicular to an x = const edge changes local x by
    # |(a, c)|; likewise |(b, d)| for y edges (exact for affine maps).
    if to_local.__class__ is Projective:
        px = _projected_px(to_local, rect)
        return ClipShape(layer_id, to_local, rect, radii, px, kind)
    px = (math.hypot(to_local.a, to_local.c), math.hypot(to_local.b, to_local.d))
    return ClipShape(layer_id, to_local, rect, radii, px, kind)


def _projected_px(to_local: Projective, rect) -> tuple[float, float]:
    """One target px in a projected clip's px, measured at the clip rect's centre (it
    varies across a projected clip: its edges' anti-aliasing is that wide everywhere)."""
    cx, cy = rect[0] + rect[2] / 2.0, rect[1] + rect[3] / 2.0
    if not to_local.is_invertible():
        return (1.0, 1.0)
    X, Y, W = to_local.inverse().homogeneous(cx, cy)
    if not W > 0.0:
        return (1.0, 1.0)
    X, Y, W = to_local.homogeneous(X / W, Y / W)
    w2 = W * W
    # d(local x)/d(target x, y) and d(local y)/d(target x, y) at that point.
    dxx, dxy = (to_local.a * W - X * to_local.g) / w2, (to_local.c * W - X * to_local.h) / w2
    dyx, dyy = (to_local.b * W - Y * to_local.g) / w2, (to_local.d * W - Y * to_local.h) / w2
    return (math.hypot(dxx, dxy), math.hypot(dyx, dyy))


def subpixel(m: Affine) -> tuple[float, float]:
    """The fraction of a pixel a translated layer is rastered at (see content_texture)."""
    if not m.is_translation():
        return (0.0, 0.0)
    return (m.e - math.floor(m.e), m.f - math.floor(m.f))


def whole_pixel(m: Affine) -> Affine:
    """Where a layer rastered at ``subpixel(m)`` is drawn: translations are floored,
    other transforms kept (they are sampled)."""
    return Affine.translate(math.floor(m.e), math.floor(m.f)) if m.is_translation() else m
