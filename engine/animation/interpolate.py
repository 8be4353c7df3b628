"""Interpolating ComputedStyle values, per the CSS specs: each field by the animation
type of its property's record (style.registry.AnimationType):

* numbers (opacity, border widths, scroll offsets, font sizes) linearly, clamped to
  the record's range, and lengths-percentages (the insets top/right/bottom/left;
  ``auto`` discretely) by their parts;
* colours in premultiplied sRGB (CSS Color 4 §12 for legacy colours);
* transform lists pairwise when their functions match (none counts as identity
  functions), else by decomposing both 2D matrices (CSS Transforms 1 §9), or both 4x4
  matrices when either list is 3D (CSS Transforms 2 §"Interpolation of 3D matrices":
  translate, scale, skew and perspective linearly, the rotation by quaternion slerp);
* filter chains (filter, backdrop-filter) with FilterChain.interpolate (Filter
  Effects 1 §13; Filter Effects 2 gives backdrop-filter the same rules);
* box-shadow lists shadow by shadow (style.box_shadow.interpolate_box_shadows);
* text properties by their CSS animation types (style.text.interpolate_text_field);
* everything else (and two values of different kinds) discretely: the start value
  until half way, then the end value (keywords such as mix-blend-mode and isolation:
  CSS Compositing 1 "Animation type: discrete").
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..css.values import RGBA, LengthPercentage, TransformFunction
from ..filters.chain import FilterChain
from ..geometry import Affine
from ..matrix4 import Matrix4, decompose3d, interpolate_decomposed, recompose3d
from ..style.box_shadow import interpolate_box_shadows
from ..style.properties import LONGHANDS
from ..style.registry import AnimationType, StyleProperty
from ..style.text import interpolate_text_field
from ..style.transforms import is_3d, transform_matrix

__all__ = ["interpolate_field", "decompose", "recompose"]


def _lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


def _color(a: RGBA, b: RGBA, t: float) -> RGBA:
    pa, pb = a.premultiplied(), b.premultiplied()
    alpha = min(max(_lerp(pa[3], pb[3], t), 0.0), 1.0)
    if alpha <= 0:
        return RGBA(0.0, 0.0, 0.0, 0.0)
    rgb = [min(max(_lerp(x, y, t) / alpha, 0.0), 1.0) for x, y in zip(pa[:3], pb[:3])]
    return RGBA(rgb[0], rgb[1], rgb[2], alpha)


def _lp(a: LengthPercentage, b: LengthPercentage, t: float) -> LengthPercentage:
    return LengthPercentage(_lerp(a.px, b.px, t), _lerp(a.percent, b.percent, t))


_IDENTITY_ARGS = {
    "translate": (LengthPercentage(), LengthPercentage()),
    "translate3d": (LengthPercentage(), LengthPercentage(), 0.0),
    "scale": (1.0, 1.0),
    "rotate": (0.0,),
    "skew": (0.0, 0.0),
    "matrix": (1.0, 0.0, 0.0, 1.0, 0.0, 0.0),
    "scale3d": (1.0, 1.0, 1.0),
    "perspective": (None,),
    "matrix3d": (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0),
}
# Interpolated through their matrices, never argument by argument.
_MATRIX_ONLY = frozenset({"matrix", "matrix3d", "perspective"})


def _identity(f: TransformFunction) -> TransformFunction:
    """The identity function of ``f``'s kind (rotate3d keeps its axis, CSS Transforms 2)."""
    if f.name == "rotate3d":
        return TransformFunction("rotate3d", f.args[:3] + (0.0,))
    return TransformFunction(f.name, _IDENTITY_ARGS[f.name])


def _pairwise(x: TransformFunction, y: TransformFunction) -> bool:
    """Can these two interpolate argument by argument? The same kind, not a matrix, and
    rotate3d about the same (normalised) axis."""
    if x.name != y.name or x.name in _MATRIX_ONLY:
        return False
    if x.name == "rotate3d":
        ax, ay = x.args[:3], y.args[:3]
        nx, ny = math.sqrt(sum(v * v for v in ax)), math.sqrt(sum(v * v for v in ay))
        return nx > 0 and ny > 0 and all(abs(p / nx - q / ny) < 1e-9 for p, q in zip(ax, ay))
    return True


def _function(a: TransformFunction, b: TransformFunction, t: float) -> TransformFunction:
    args = []
    for x, y in zip(a.args, b.args):
        args.append(_lp(x, y, t) if isinstance(x, LengthPercentage) else _lerp(x, y, t))
    return TransformFunction(a.name, tuple(args))


def decompose(m: Affine) -> tuple[float, float, float, float, float, float] | None:
    """(tx, ty, sx, sy, skew, angle_degrees) of a 2D matrix, or None if singular
    (the "unmatrix" algorithm of CSS Transforms 1)."""
    if abs(m.determinant) < 1e-12:
        return None
    r0x, r0y, r1x, r1y = m.a, m.b, m.c, m.d
    sx = math.hypot(r0x, r0y)
    r0x, r0y = r0x / sx, r0y / sx
    skew = r0x * r1x + r0y * r1y
    r1x, r1y = r1x - skew * r0x, r1y - skew * r0y
    sy = math.hypot(r1x, r1y)
    r1x, r1y = r1x / sy, r1y / sy
    skew /= sy
    if r0x * r1y - r0y * r1x < 0:
        r0x, r0y, sx, skew = -r0x, -r0y, -sx, -skew
    return (m.e, m.f, sx, sy, skew, math.degrees(math.atan2(r0y, r0x)))


def recompose(tx: float, ty: float, sx: float, sy: float, skew: float, angle: float) -> Affine:
    shear = Affine(1.0, 0.0, skew, 1.0, 0.0, 0.0)
    return Affine.translate(tx, ty) @ Affine.rotate(angle) @ shear @ Affine.scale(sx, sy)


def _transforms(a: tuple, b: tuple, t: float, box: tuple[float, float]) -> tuple:
    if not a and not b:
        return ()
    if not a:
        a = tuple(_identity(f) for f in b)
    if not b:
        b = tuple(_identity(f) for f in a)
    if len(a) == len(b) and all(_pairwise(x, y) for x, y in zip(a, b)):
        return tuple(_function(x, y, t) for x, y in zip(a, b))
    # Different lists: interpolate the decomposed matrices (about the origin; the
    # transform-origin is applied around the result by transform_matrix).
    zero = (LengthPercentage(), LengthPercentage())
    if is_3d(a) or is_3d(b):
        return _matrices_3d(a, b, t, box, zero)
    ma = transform_matrix(a, zero, *box)
    mb = transform_matrix(b, zero, *box)
    da, db = decompose(ma), decompose(mb)
    if da is None or db is None:
        return a if t < 0.5 else b
    angle_a, angle_b = da[5], db[5]
    if abs(angle_b - angle_a) > 180.0:  # take the short way round
        if angle_a > angle_b:
            angle_a -= 360.0
        else:
            angle_b -= 360.0
    parts = [_lerp(x, y, t) for x, y in zip(da[:5], db[:5])] + [_lerp(angle_a, angle_b, t)]
    m = recompose(*parts)
    return (TransformFunction("matrix", m.values()),)


def _matrices_3d(a: tuple, b: tuple, t: float, box: tuple[float, float], zero) -> tuple:
    """Both lists as 4x4 matrices, decomposed, interpolated and recomposed (a matrix3d);
    discrete when either cannot be decomposed (CSS Transforms 2)."""
    ma, mb = transform_matrix(a, zero, *box), transform_matrix(b, zero, *box)
    ma = ma if isinstance(ma, Matrix4) else Matrix4.from_affine(ma)
    mb = mb if isinstance(mb, Matrix4) else Matrix4.from_affine(mb)
    da, db = decompose3d(ma), decompose3d(mb)
    if da is None or db is None:
        return a if t < 0.5 else b
    m = recompose3d(interpolate_decomposed(da, db, t))
    return (TransformFunction("matrix3d", tuple(m.rc(row, col) for col in range(4) for row in range(4))),)


def _discrete(record: StyleProperty, a: Any, b: Any, t: float, box) -> Any:
    return a if t < 0.5 else b


def _number(record: StyleProperty, a: Any, b: Any, t: float, box) -> Any:
    if not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return _discrete(record, a, b, t, box)  # e.g. a keyframe's unresolved font-relative size
    low, high = record.value_range
    return min(max(_lerp(a, b, t), low), high)


def _length_percentage(record: StyleProperty, a: Any, b: Any, t: float, box) -> Any:
    if isinstance(a, LengthPercentage) and isinstance(b, LengthPercentage):
        return _lp(a, b, t)
    return _discrete(record, a, b, t, box)  # auto


def _colour(record: StyleProperty, a: Any, b: Any, t: float, box) -> Any:
    if isinstance(a, RGBA) and isinstance(b, RGBA):
        return _color(a, b, t)
    return _discrete(record, a, b, t, box)  # currentcolor


def _filters(record: StyleProperty, a: Any, b: Any, t: float, box) -> Any:
    chain_a = a if a is not None else FilterChain(())
    chain_b = b if b is not None else FilterChain(())
    result = chain_a.interpolate(chain_b, t)
    return None if result.is_none() else result


_BY_TYPE: dict[AnimationType, Callable[[StyleProperty, Any, Any, float, tuple[float, float]], Any]] = {
    AnimationType.DISCRETE: _discrete,
    AnimationType.NUMBER: _number,
    AnimationType.LENGTH_PERCENTAGE: _length_percentage,
    AnimationType.COLOR: _colour,
    AnimationType.TRANSFORM_LIST: lambda record, a, b, t, box: _transforms(a, b, t, box),
    AnimationType.FILTER_LIST: _filters,
    AnimationType.SHADOW_LIST: lambda record, a, b, t, box: interpolate_box_shadows(a, b, t, _color),
    AnimationType.TEXT_SHADOW_LIST: lambda record, a, b, t, box: interpolate_text_field(record.field, a, b, t, _color),
    AnimationType.LINE_HEIGHT: lambda record, a, b, t, box: interpolate_text_field(record.field, a, b, t, _color),
}


def interpolate_field(field: str, a: Any, b: Any, t: float, box: tuple[float, float]) -> Any:
    """The value of ComputedStyle ``field`` at progress ``t`` from ``a`` to ``b``, by
    the animation type its property's record gives (style.properties.LONGHANDS)."""
    record = LONGHANDS[field]
    return _BY_TYPE[record.animation](record, a, b, t, box)
