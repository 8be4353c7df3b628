"""Raster scale: the scale each layer's own content is rastered at, as Chromium's cc
chooses it (``PictureLayerImpl::RecalculateRasterScales`` / ``ShouldAdjustRasterScale``),
written anew here as pure functions of plain values.

A layer's *ideal* scale is what its screen-space transform (its own and its ancestors')
does to a unit of its px, per axis, as ``gfx::ComputeTransform2dScaleComponents`` measures
it: the lengths of the images of the x and y unit vectors (the matrix's first two
columns). The frame is already in device px (lamina.device_scale zooms the scene before
this), so the contents scale cc would report is ``device_scale x ideal``; the decisions
here are relative to the device-px raster (1 = no extra scale).

``scale_components`` takes any matrix: an ``Affine`` (a, b, c, d, e, f), a
``Projective`` (a flattened 3D transform: the fallback under perspective), or a 3x3 or
4x4 row-major array-like (a 4x4 with perspective has no 2D scale: the fallback), so a
3D transform can be fed to it as it is.

Lamina's paint zooms a layer's style and box uniformly (the same path as the device
scale: text laid out by Blink's rule at that scale, borders, radii, gradients, shadows,
images at their resolution), so a layer is rastered at one scale, the larger of the two
axes' (cc's "scale key"): sharp on both axes, at the cost of memory on the smaller one.

The policy (``decide``), in order:

1. **Animating** (a running transform animation on the layer or an ancestor): the raster
   scale is fixed for the animation at the largest scale it reaches where that is known
   (cc's ``MaximumAnimationToScreenScale``: here the animation's sampled matrices), else
   at the scale of the frame it started in. It changes only when the ideal outgrows it by
   more than ``ANIMATION_ADJUST_RATIO`` (cc's kRatioToAdjustRasterScaleForTransformAnimation,
   1.5), under cc's memory cap (below).
2. **will-change: transform** (not animating): the scale it was first rastered at is kept
   (cc: no re-raster while the raster scale is at least the native scale, here 1), so a
   script changing the scale each frame never re-rasters; below 1 it follows the ideal.
3. **Settled**: the first frame after an animation (or a will-change hint) ended, the layer
   is re-rastered once at its ideal scale -- only when that differs from the held scale by
   more than ``KEEP_RATIO`` (cc re-rasters when the raster scale would change); else the
   held raster is kept and the reason says "ideal" (or "kept"), never "settled".
4. **Static**: the ideal scale, but a change of less than ``KEEP_RATIO`` (2%) from the
   scale it is rastered at keeps that raster (a ratio, as cc's thresholds are: a 2%
   resampling is invisible, a re-raster is not free).

The **memory cap** is cc's and applies to animating layers only: the raster is at most the
area of the viewport's longer side squared (``memory_cap``; "capped by memory at X
(wanted Y)"). A static layer rasters at its ideal, as cc's does (up to ``MAX_SCALE``): a
raster larger than the tiling threshold is cut into tiles (lamina.tiling) and only the
tiles near the viewport are rastered, so its memory is bounded by the viewport, not by
its scale -- a cap there would blur what is on screen and save nothing. graph.scaled
still holds one texture side within what textures and tiles can address ("capped by
texture size"). Scales are held in [``MIN_SCALE``, ``MAX_SCALE``] (cc clamps its ideal
to 10000 and its minimum to 1/16 or one px).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from ..geometry import Affine, Projective
from ..named import NamedEnum

__all__ = [
    "ANIMATION_ADJUST_RATIO",
    "KEEP_RATIO",
    "MIN_VIEWPORT_DIMENSION",
    "MIN_SCALE",
    "MAX_SCALE",
    "RasterScaleReason",
    "RasterScale",
    "ScaleInputs",
    "scale_components",
    "scale_key",
    "memory_cap",
    "decide",
    "carried",
]

ANIMATION_ADJUST_RATIO = 1.5  # cc: kRatioToAdjustRasterScaleForTransformAnimation
KEEP_RATIO = 1.02  # a static layer's ideal within 2% of its raster scale keeps its raster
MIN_VIEWPORT_DIMENSION = 500  # cc: AdjustRasterScaleForTransformAnimation's kMinViewportDimension
MIN_SCALE = 1.0 / 16.0  # cc's min_contents_scale default (0.0625)
MAX_SCALE = 10000.0  # cc: kMaxIdealContentsScale


class RasterScaleReason(NamedEnum):
    """Why a layer is rastered at the scale it is (a ``str``, as reports print it)."""

    IDEAL = "ideal"
    ANIMATING = "animating: fixed"
    WILL_CHANGE = "will-change: transform: kept"
    SETTLED = "settled: re-rastered"
    KEPT = "kept: within 2% of ideal"


@dataclass(frozen=True)
class ScaleInputs:
    """What one layer's raster scale depends on this frame (plain values; the planner
    gathers them). ``ideal``: per-axis scale of its screen-space transform (device px
    per layer px). ``animating``: a transform animation runs on it or an ancestor;
    ``animation_max``: the largest scale key that animation reaches (None: unknown).
    ``will_change``: will-change: transform on it or an ancestor. ``size``: its raster
    at scale 1 (device px). ``viewport``: the frame in device px."""

    ideal: tuple[float, float]
    size: tuple[float, float]
    viewport: tuple[int, int]
    animating: bool = False
    animation_max: float | None = None
    will_change: bool = False


@dataclass(frozen=True)
class RasterScale:
    """The decision for one layer: ``scale`` (uniform; relative to the device-px
    raster), why, the per-axis ideal it was made from, and, when the memory rule cut
    it, the scale it would otherwise have been (``capped_from``). ``animating`` and
    ``will_change`` say under which regime it was made (the next frame's decision reads
    them: leaving one settles)."""

    scale: float
    reason: RasterScaleReason
    ideal: tuple[float, float]
    device_scale: float = 1.0
    capped_from: float | None = None
    animating: bool = False
    will_change: bool = False
    capped_by: str = "memory"  # what cut it: "memory" (an animation's, cc) or "texture size"

    @property
    def contents_scale(self) -> float:
        """Texture px per CSS px, as cc reports a tiling's contents scale (device scale x raster scale)."""
        return self.scale * self.device_scale

    def __str__(self) -> str:
        s = _num(self.contents_scale)
        ideal = _num(scale_key(self.ideal) * self.device_scale)
        if self.reason is RasterScaleReason.IDEAL:
            text = f"ideal {s}"
        elif self.reason is RasterScaleReason.ANIMATING:
            text = f"animating: fixed at {s} (ideal now {ideal})"
        elif self.reason is RasterScaleReason.WILL_CHANGE:
            text = f"will-change: transform: kept at {s} (ideal now {ideal})"
        elif self.reason is RasterScaleReason.SETTLED:
            text = f"settled: re-rastered at {s}"
        else:
            text = f"kept at {s}: within {KEEP_RATIO - 1:.0%} of ideal {ideal}"
        if self.capped_from is not None:
            wanted = _num(self.capped_from * self.device_scale)
            capped = f"capped by {self.capped_by} at {s} ({'wanted' if self.animating else 'ideal'} {wanted})"
            # A capped "ideal" is not its ideal: the cap alone says what it is and what it wanted.
            text = capped if self.reason is RasterScaleReason.IDEAL else f"{text}; {capped}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"raster_scale": round(self.contents_scale, 6), "reason": self.reason.value,
                "ideal": [round(v * self.device_scale, 6) for v in self.ideal],
                "capped_from": None if self.capped_from is None else round(self.capped_from * self.device_scale, 6),
                "capped_by": None if self.capped_from is None else self.capped_by,
                "text": str(self)}


def _num(v: float) -> str:
    """3 significant digits, and a decimal point always ("3.0", "2.66", "10.1")."""
    text = f"{v:.3g}"
    return text if "." in text or "e" in text else f"{text}.0"


def scale_components(matrix: Any, fallback: float = 1.0) -> tuple[float, float]:
    """Per-axis scale of ``matrix`` (cc's ComputeTransform2dScaleComponents): the lengths
    of its first two columns (x, y and, for a 4x4, z rows). ``matrix``: an ``Affine``, or a
    3x3 / 4x4 row-major array-like. A 4x4 with perspective (a non-zero bottom row but the
    last entry, or w != 1) gives (fallback, fallback), as cc does."""
    if isinstance(matrix, Affine):
        return (math.hypot(matrix.a, matrix.b), math.hypot(matrix.c, matrix.d))
    if isinstance(matrix, Projective):  # a flattened 3D transform: perspective (g, h) has no 2D scale
        if matrix.g or matrix.h or matrix.i <= 0.0:
            return (fallback, fallback)
        return (math.hypot(matrix.a, matrix.b) / matrix.i, math.hypot(matrix.c, matrix.d) / matrix.i)
    rows = [[float(v) for v in row] for row in matrix]
    n = len(rows)
    if n not in (3, 4) or any(len(r) != n for r in rows):
        raise ValueError(f"scale_components takes an Affine or a 3x3 / 4x4 matrix, got {n} rows")
    if n == 4:
        bottom = rows[3]
        if bottom[0] or bottom[1] or bottom[2] or bottom[3] != 1.0:
            return (fallback, fallback)
        return (math.sqrt(rows[0][0] ** 2 + rows[1][0] ** 2 + rows[2][0] ** 2),
                math.sqrt(rows[0][1] ** 2 + rows[1][1] ** 2 + rows[2][1] ** 2))
    return (math.hypot(rows[0][0], rows[1][0]), math.hypot(rows[0][1], rows[1][1]))


def scale_key(scales: tuple[float, float]) -> float:
    """The one scale a layer is rastered at for per-axis ``scales``: the larger (cc's
    ideal_contents_scale_key), held in [MIN_SCALE, MAX_SCALE]; 1 for NaN."""
    k = max(scales)
    if not math.isfinite(k):
        return 1.0 if math.isnan(k) else MAX_SCALE
    return min(max(k, MIN_SCALE), MAX_SCALE)


def memory_cap(size: tuple[float, float], viewport: tuple[int, int]) -> float:
    """The largest raster scale an animating layer of ``size`` (device px at scale 1) may
    have (cc's AdjustRasterScaleForTransformAnimation): its raster's area at most D^2, D
    the viewport's longer side (at least MIN_VIEWPORT_DIMENSION). As cc, the layer's sides
    count up to D (a huge layer's far parts are tiles never rastered). A static layer has
    no such cap: it rasters at its ideal and tiles bound its memory to what is near the
    viewport."""
    d = float(max(viewport[0], viewport[1], MIN_VIEWPORT_DIMENSION))
    w, h = min(max(size[0], 1.0), d), min(max(size[1], 1.0), d)
    return math.sqrt(d * d / (w * h))


def _near(a: float, b: float) -> bool:
    """``a`` and ``b`` within KEEP_RATIO of each other (a raster at one serves the other)."""
    return b / KEEP_RATIO <= a <= b * KEEP_RATIO


def decide(inputs: ScaleInputs, previous: RasterScale | None, device_scale: float = 1.0) -> RasterScale:
    """The raster scale of one layer this frame, from ``inputs`` and the decision of the
    frame it was last rastered in (None: never). Pure: the same inputs give the same
    decision (see the module docstring for the rules). The reason says what this frame
    does: "settled" only on the frame whose scale changes when a held scale is let go."""
    ideal = inputs.ideal
    key = scale_key(ideal)
    was_held = previous is not None and (previous.animating or previous.will_change)
    capped_from = None
    if inputs.animating:
        if previous is not None and previous.animating and key <= previous.scale * ANIMATION_ADJUST_RATIO:
            scale = previous.capped_from if previous.capped_from is not None else previous.scale
        else:
            scale = max(key, inputs.animation_max) if inputs.animation_max is not None else key
        reason = RasterScaleReason.ANIMATING
        scale = min(max(scale, MIN_SCALE), MAX_SCALE)
        cap = memory_cap(inputs.size, inputs.viewport)  # cc caps only animation scales
        if scale > cap:
            capped_from, scale = scale, cap
    elif inputs.will_change:
        if previous is not None and previous.will_change and previous.scale >= 1.0:
            scale = previous.scale
        else:
            scale = key
        reason = RasterScaleReason.WILL_CHANGE
    elif previous is not None and previous.capped_from is None and _near(key, previous.scale):
        # The raster made last frame serves this one (cc re-rasters only when the raster
        # scale would change): plainly "ideal" when it is the ideal, else "kept" -- also
        # on the frame a held scale is let go, as its ideal is that held scale.
        scale = previous.scale
        reason = RasterScaleReason.IDEAL if math.isclose(scale, key, rel_tol=1e-6) else RasterScaleReason.KEPT
    elif was_held:
        scale, reason = key, RasterScaleReason.SETTLED
    else:
        scale, reason = key, RasterScaleReason.IDEAL
    return RasterScale(scale, reason, ideal, device_scale, capped_from, inputs.animating,
                       inputs.will_change and not inputs.animating)


def carried(decision: RasterScale) -> RasterScale:
    """``decision`` as it holds on a later frame that re-made nothing (graph.fast_path,
    graph.scrolled reuse last frame's rasters): the settle is over, the scale it settled at
    is the layer's ideal."""
    if decision.reason is RasterScaleReason.SETTLED:
        return replace(decision, reason=RasterScaleReason.IDEAL)
    return decision
