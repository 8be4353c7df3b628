"""Keyframe animations of SVG filter primitive attributes, sampled at a time.

    scene.animate_svg("#glow", {"0%": {"blur.stdDeviation": 2}, "100%": {"blur.stdDeviation": 8}},
                      duration="2s", iterations="infinite", direction="alternate")

The CSS model, as layer animations have it: keyframes (offset -> declarations, each
optionally with its own easing) on one ``<filter>``, whose "properties" are attribute
paths (``filters.svg.attributes.AttributePath``: ``blur.stdDeviation``,
``[0].values``, ``tone.feFuncR.slope``), and the same timing (duration, delay, easing,
iterations, direction, fill: ``timeline.parse_timing``). Keyframes without a 0% or
100% use the markup's value there. Numbers interpolate linearly, as CSS filter amounts
do, clamped to the attribute's range (an easing that overshoots cannot make a negative
blur); number lists number by number when their lengths match, else discretely; colours
in premultiplied sRGB, as CSS colours do; feTurbulence's seed discretely.

Chosen over SMIL ``<animate>`` inside the markup: one timing model for a scene (a
second one — begin/end events, calcMode, additive, values/keyTimes — would need its own
tests and could not share easing, direction or fill with layer animations), scene files
keep the markup as given, and a keyframe names its primitive by ``result`` as a selector
would. Sampling only changes values: the filter's graph and the program variants its
passes use are fixed (attributes that would change them are refused), so a frame plans
the same passes with new uniforms and compiles nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..css.values import RGBA
from ..errors import InvalidValueError, StyleError, SvgFilterError
from ..filters.svg.attributes import AttributePath, AttributeValue, default_value, with_values
from ..filters.svg.model import ColorMatrix, ColorMatrixType, FilterElement, SvgDocument
from .easing import parse_easing
from .interpolate import _color
from .timeline import Animation, Keyframe, _offset, keyframe_items, parse_timing

__all__ = ["SvgAttributeAnimation", "MAX_SVG_ANIMATIONS", "interpolate_value"]

MAX_SVG_ANIMATIONS = 256  # per scene: each is sampled every frame
# attribute -> the range its interpolated values are clamped to (as CSS clamps amounts)
_RANGES: dict[str, tuple[float, float]] = {
    "stdDeviation": (0.0, float("inf")), "radius": (0.0, float("inf")), "flood-opacity": (0.0, 1.0),
    "baseFrequency": (0.0, float("inf")), "diffuseConstant": (0.0, float("inf")),
    "specularConstant": (0.0, float("inf")), "specularExponent": (1.0, 128.0),
}


def _lerp(a: float, b: float, t: float, bounds: tuple[float, float]) -> float:
    return min(max(a + (b - a) * t, bounds[0]), bounds[1])


def _bounds(element: FilterElement, path: AttributePath) -> tuple[float, float]:
    prim = element.primitives[path.primitive_index(element)]
    if isinstance(prim, ColorMatrix) and prim.type is ColorMatrixType.SATURATE:
        return (0.0, float("inf"))
    return _RANGES.get(path.attribute, (-float("inf"), float("inf")))


def interpolate_value(a: AttributeValue, b: AttributeValue, t: float, bounds: tuple[float, float],
                      discrete: bool = False) -> AttributeValue:
    """The value ``t`` of the way from ``a`` to ``b``, numbers clamped to ``bounds``
    (see the module docstring)."""
    if discrete:
        return a if t < 0.5 else b
    if isinstance(a, RGBA) and isinstance(b, RGBA):
        return _color(a, b, t)
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            return a if t < 0.5 else b
        return tuple(_lerp(x, y, t, bounds) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return _lerp(float(a), float(b), t, bounds)
    return a if t < 0.5 else b


@dataclass
class SvgAttributeAnimation:
    """A keyframe animation of attributes of one ``<filter>``'s primitives. ``timing`` is
    the CSS timing model (an Animation without keyframes of its own: its ``progress``);
    each Keyframe's ``updates`` map AttributePaths to typed values and its
    ``declarations`` keep the text as written (``to_dict``)."""

    filter_id: str
    keyframes: list[Keyframe]
    timing: Animation
    discrete: frozenset[AttributePath] = frozenset()

    @classmethod
    def create(cls, document: SvgDocument | None, filter_ref: str, keyframes: Mapping[Any, Mapping[str, Any]] | list,
               *, duration: Any, delay: Any = 0.0, easing: Any = "linear", iterations: Any = 1,
               direction: str = "normal", fill: str = "none", name: str = "") -> "SvgAttributeAnimation":
        """Check everything against ``document`` (typed errors naming the filter, the
        primitive, the attribute and the keyframe) and build the animation."""
        ident = filter_ref[1:] if isinstance(filter_ref, str) and filter_ref.startswith("#") else filter_ref
        if not isinstance(ident, str) or not ident:
            raise SvgFilterError(f"an SVG attribute animation names its filter as '#id', got {filter_ref!r}",
                                 attribute="filter", value=repr(filter_ref))
        if document is None:
            raise SvgFilterError(f"#{ident}: the scene has no SVG markup (scene.add_svg) to animate",
                                 attribute="filter", value=f"#{ident}")
        element = document.filter(ident)
        items = keyframe_items(keyframes)
        frames = []
        for place, key, decls in items:
            try:
                frames.append(_keyframe(element, key, decls))
            except StyleError as err:
                raise err.located(keyframe=place) from None
        frames.sort(key=lambda f: f.offset)
        if not any(f.updates for f in frames):
            raise InvalidValueError(f"an animation of #{ident} needs keyframes with at least one attribute",
                                    property="keyframes")
        paths = {p for f in frames for p in f.updates}
        timing = Animation([], name=name, **parse_timing(duration, delay, easing, iterations, direction, fill))
        return cls(ident, frames, timing, frozenset(p for p in paths if p.discrete(element)))

    @property
    def paths(self) -> frozenset[AttributePath]:
        return frozenset(p for f in self.keyframes for p in f.updates)

    def is_active(self, t: float) -> bool:
        return self.timing.is_active(t)

    def values(self, t: float, element: FilterElement) -> dict[AttributePath, AttributeValue]:
        """The attribute values at ``t`` ({} when the animation has no effect then);
        keyframes without 0% / 100% hold ``element``'s value there."""
        p = self.timing.progress(t)
        if p is None:
            return {}
        out: dict[AttributePath, AttributeValue] = {}
        for path in self.paths:
            underlying = default_value(element, path)
            points = [(f.offset, f.updates[path], f.easing) for f in self.keyframes if path in f.updates]
            if points[0][0] > 0.0:
                points.insert(0, (0.0, underlying, None))
            if points[-1][0] < 1.0:
                points.append((1.0, underlying, None))
            if p <= points[0][0]:
                lo, hi = points[0], points[1] if len(points) > 1 else points[0]
            elif p >= points[-1][0]:
                lo, hi = points[-2] if len(points) > 1 else points[-1], points[-1]
            else:
                i = max(j for j in range(len(points)) if points[j][0] <= p)
                lo, hi = points[min(i, len(points) - 2)], points[min(i, len(points) - 2) + 1]
            span = hi[0] - lo[0]
            local = (p - lo[0]) / span if span > 0 else 1.0
            if lo[2] is not None:  # a keyframe's own easing applies to the segment it starts
                local = lo[2](local)
            out[path] = interpolate_value(lo[1], hi[1], local, _bounds(element, path), path in self.discrete)
        return out

    def apply(self, t: float, document: SvgDocument) -> SvgDocument:
        """``document`` with this animation's values at ``t`` set on its filter."""
        values = self.values(t, document.filter(self.filter_id))
        if not values:
            return document
        element = with_values(document.filter(self.filter_id), values)
        return SvgDocument({**document.filters, self.filter_id: element}, document.markup)

    def to_dict(self) -> dict[str, Any]:
        """Scene-file JSON for this animation (what a scene file's "svg_animations" take)."""
        out = self.timing.to_dict()
        frames = []
        for f in self.keyframes:
            entry: dict[str, Any] = dict(f.declarations)
            if f.easing is not None:
                entry["easing"] = f.easing.css()
            frames.append({"offset": f"{f.offset * 100!r}%".replace(".0%", "%"), **entry})
        out["keyframes"] = frames
        return {"filter": f"#{self.filter_id}", **out}


def _keyframe(element: FilterElement, key: Any, decls: Any) -> Keyframe:
    if not isinstance(decls, Mapping):
        raise InvalidValueError(f"keyframe {key!r} must map attributes to values", property="keyframes")
    easing = None
    updates: dict[AttributePath, AttributeValue] = {}
    pairs = []
    for name, value in decls.items():
        if str(name).strip() in ("easing", "animation-timing-function"):
            easing = parse_easing(value)
            continue
        try:
            path = AttributePath.parse(str(name).strip(), element.id)
            updates[path] = path.read(element, value)
        except SvgFilterError as err:  # the property is the keyframe's key as written (a scene file's path)
            raise SvgFilterError(err.reason, element=err.element, attribute=str(name), value=err.value,
                                 line=err.line) from None
        pairs.append((str(path), value if isinstance(value, str) else repr(float(value))))
    return Keyframe(_offset(key), tuple(pairs), updates, easing)
