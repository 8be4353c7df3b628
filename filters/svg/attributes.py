"""Animatable attributes of SVG filter primitives: which attribute of which primitive a
keyframe names, its typed value, and the filter with values set.

An attribute is addressed inside one ``<filter>`` as ``PRIMITIVE.ATTRIBUTE``, or
``PRIMITIVE.feFuncX.ATTRIBUTE`` for a transfer function of feComponentTransfer;
PRIMITIVE is the primitive's ``result`` name or ``[n]``, its index among the filter's
primitives (0 first, document order): ``blur.stdDeviation``, ``[0].values``,
``tone.feFuncR.slope``. ``AttributePath.parse`` reads that text; ``resolve`` checks it
against a filter (a typed SvgFilterError naming the filter, the primitive and the
attribute: unknown primitive, unknown attribute, or one that is not animatable).

What animates is what only changes values the passes upload: numbers, number lists and
colours (``ANIMATABLE``). Attributes that pick the graph or the program — inputs
(``in``, ``in2``), ``result``, ``operator``, ``type``, ``mode``, ``edgeMode``,
channel selectors, ``stitchTiles``, ``numOctaves``, regions — are refused as not
animatable. feTurbulence ``seed`` animates discretely (its lattice is a different noise,
not a blend of two). Values are read by the markup reader itself
(``filters.svg.markup``), so a keyframe value is checked as the attribute in markup is,
and set with ``dataclasses.replace``, so the primitive's own checks run on it.

Nothing here knows time: ``lamina.animation.svg_attributes`` interpolates values over
keyframes; ``with_values`` builds the filter a frame plans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Union

from ...errors import SvgFilterError
from ...css.values import RGBA
from . import markup as mk
from . import model as m

__all__ = ["AttributePath", "ANIMATABLE", "FUNCTION_ATTRIBUTES", "DISCRETE", "AttributeValue", "with_values",
           "default_value"]

# tag -> animatable attribute -> the primitive's field
ANIMATABLE: dict[str, dict[str, str]] = {
    "feGaussianBlur": {"stdDeviation": "std_deviation"},
    "feColorMatrix": {"values": "values"},
    "feOffset": {"dx": "dx", "dy": "dy"},
    "feTurbulence": {"baseFrequency": "base_frequency", "seed": "seed"},
    "feFlood": {"flood-color": "flood_color", "flood-opacity": "flood_opacity"},
    "feDropShadow": {"dx": "dx", "dy": "dy", "stdDeviation": "std_deviation", "flood-color": "flood_color",
                     "flood-opacity": "flood_opacity"},
    "feComposite": {"k1": "k1", "k2": "k2", "k3": "k3", "k4": "k4"},
    "feMorphology": {"radius": "radius"},
    "feDisplacementMap": {"scale": "scale"},
    "feDiffuseLighting": {"surfaceScale": "surface_scale", "diffuseConstant": "diffuse_constant",
                          "lighting-color": "lighting_color"},
    "feSpecularLighting": {"surfaceScale": "surface_scale", "specularConstant": "specular_constant",
                           "specularExponent": "specular_exponent", "lighting-color": "lighting_color"},
}
# feFuncR/G/B/A attribute -> TransferFunction field (tableValues keeps its length)
FUNCTION_ATTRIBUTES = {"slope": "slope", "intercept": "intercept", "amplitude": "amplitude", "exponent": "exponent",
                       "offset": "offset", "tableValues": "table_values"}
_FUNCTIONS = {"feFuncR": "red", "feFuncG": "green", "feFuncB": "blue", "feFuncA": "alpha"}
# (tag, attribute) pairs that animate discretely: the start value until half way.
DISCRETE = frozenset({("feTurbulence", "seed")})

# A typed attribute value: a number, a pair or list of numbers, or a colour.
AttributeValue = Union[float, tuple[float, ...], RGBA]
_INDEX = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class AttributePath:
    """One attribute of one primitive: ``primitive`` its result name or index,
    ``function`` the feFuncX child (feComponentTransfer) or None, ``attribute`` as SVG
    spells it. ``str()`` gives the text back."""

    primitive: str | int
    attribute: str
    function: str | None = None

    @classmethod
    def parse(cls, text: Any, filter_id: str = "") -> "AttributePath":
        if not isinstance(text, str) or "." not in text:
            raise SvgFilterError(f"an animated SVG attribute is written PRIMITIVE.ATTRIBUTE (PRIMITIVE a result name or "
                                 f"[n]; e.g. blur.stdDeviation, [0].values, tone.feFuncR.slope), got {text!r}",
                                 element=f"<filter id=\"{filter_id}\">" if filter_id else None, value=str(text))
        head, attribute = text.rsplit(".", 1)
        function = None
        if "." in head and head.rsplit(".", 1)[1] in _FUNCTIONS:
            head, function = head.rsplit(".", 1)
        index = _INDEX.fullmatch(head.strip())
        return cls(int(index.group(1)) if index else head.strip(), attribute.strip(), function)

    def __str__(self) -> str:
        head = f"[{self.primitive}]" if isinstance(self.primitive, int) else self.primitive
        return ".".join(p for p in (head, self.function, self.attribute) if p)

    def primitive_index(self, element: m.FilterElement) -> int:
        """Where the primitive is in ``element``, or an SvgFilterError saying what it has."""
        if isinstance(self.primitive, int):
            if self.primitive < len(element.primitives):
                return self.primitive
        else:
            for i, prim in enumerate(element.primitives):
                if prim.result == self.primitive:
                    return i
        names = ", ".join(f"[{i}] {p.describe()}" for i, p in enumerate(element.primitives)) or "none"
        raise SvgFilterError(f"{str(self)!r}: no primitive {self._which()} in this filter (it has: {names})",
                             element=element.describe(), attribute=self.attribute, value=str(self))

    def _which(self) -> str:
        return f"[{self.primitive}]" if isinstance(self.primitive, int) else f"with result=\"{self.primitive}\""

    def resolve(self, element: m.FilterElement) -> tuple[int, str]:
        """(primitive index, the field set) for this path in ``element``; an SvgFilterError
        naming the filter, primitive and attribute when it is unknown or not animatable."""
        i = self.primitive_index(element)
        prim = element.primitives[i]
        where = f"{element.describe()} {prim.describe()}"
        if self.function is not None or isinstance(prim, m.ComponentTransfer):
            if not isinstance(prim, m.ComponentTransfer) or self.function is None:
                raise SvgFilterError(f"{where}: attributes of transfer functions are addressed as "
                                     f"PRIMITIVE.feFuncR.ATTRIBUTE (feFuncR/G/B/A of an feComponentTransfer)",
                                     element=prim.describe(), attribute=self.attribute, value=str(self))
            field = FUNCTION_ATTRIBUTES.get(self.attribute)
            if field is None:
                known = "type" if self.attribute == "type" else None
                raise self._refused(where + f" <{self.function}>", known is not None, sorted(FUNCTION_ATTRIBUTES), prim)
            if getattr(prim, _FUNCTIONS[self.function]).type is m.TransferType.IDENTITY:
                # A missing feFuncX is the identity, which reads no attribute: animating one would do nothing.
                raise SvgFilterError(f"{where}: has no <{self.function}> (or an identity one), so its "
                                     f"{self.attribute!r} does nothing; add <{self.function} type=...> to animate it",
                                     element=prim.describe(), attribute=self.attribute, value=str(self))
            return i, field
        field = ANIMATABLE.get(prim.tag, {}).get(self.attribute)
        if field is None:
            own = mk.READERS[prim.tag][0] | mk.COMMON
            raise self._refused(where, self.attribute in own, sorted(ANIMATABLE.get(prim.tag, {})), prim)
        return i, field

    def _refused(self, where: str, known: bool, animatable: list[str], prim: m.Primitive) -> SvgFilterError:
        can = ", ".join(animatable) or "none"
        if known:
            why = (f"{where}: {self.attribute!r} is not animatable (it picks the graph or the program, not a value "
                   f"the passes upload); animatable here: {can}")
        else:
            why = f"{where}: {self.attribute!r} is not an attribute of <{self.function or prim.tag}> (animatable: {can})"
        return SvgFilterError(why, element=prim.describe(), attribute=self.attribute, value=str(self))

    def discrete(self, element: m.FilterElement) -> bool:
        return (element.primitives[self.primitive_index(element)].tag, self.attribute) in DISCRETE

    def read(self, element: m.FilterElement, text: Any) -> AttributeValue:
        """``text`` (attribute text, or a number) as this attribute's typed value, read
        by the markup reader and checked by the primitive (an SvgFilterError naming the
        filter, primitive, attribute and value otherwise)."""
        i, field = self.resolve(element)
        prim = element.primitives[i]
        value = text if isinstance(text, str) else repr(float(text)) if isinstance(text, (int, float)) \
            and not isinstance(text, bool) else None
        if value is None:
            raise SvgFilterError(f"{element.describe()} {prim.describe()}: {self.attribute} takes SVG attribute text or "
                                 f"a number, got {type(text).__name__}", element=prim.describe(),
                                 attribute=self.attribute, value=repr(text))
        try:
            if self.function is not None:
                func = getattr(prim, _FUNCTIONS[self.function])
                node = mk._Node(self.function, {"type": func.type.value, self.attribute: value}, prim.line or 0)
                typed = getattr(mk._read_func(node), field)
            else:
                attrs = {self.attribute: value}
                if isinstance(prim, m.ColorMatrix):
                    attrs["type"] = prim.type.value
                node = mk._Node(prim.tag, attrs, prim.line or 0)
                typed = mk.READERS[prim.tag][1](node)[field]
            with_values(element, {self: typed})  # the primitive's own checks
        except SvgFilterError as exc:
            raise SvgFilterError(f"{element.describe()} {prim.describe()}: {exc.reason}", element=prim.describe(),
                                 attribute=self.attribute, value=value) from None
        return typed


def default_value(element: m.FilterElement, path: AttributePath) -> AttributeValue:
    """The value ``path`` has in ``element`` (what a keyframe without it interpolates from:
    the markup's value, or the attribute's initial value where the markup wrote none)."""
    i, field = path.resolve(element)
    prim = element.primitives[i]
    if path.function is not None:
        return getattr(getattr(prim, _FUNCTIONS[path.function]), field)
    value = getattr(prim, field)
    if isinstance(prim, m.ColorMatrix) and value is None:  # not written: the identity of its type
        return {m.ColorMatrixType.MATRIX: tuple(float(v) for v in (1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0,
                                                                     0, 0, 0, 1, 0)),
                m.ColorMatrixType.SATURATE: (1.0,), m.ColorMatrixType.HUE_ROTATE: (0.0,),
                m.ColorMatrixType.LUMINANCE_TO_ALPHA: ()}[prim.type]
    return value


def with_values(element: m.FilterElement, values: dict[AttributePath, AttributeValue]) -> m.FilterElement:
    """``element`` with each path set to its value (its primitives' checks run on them)."""
    if not values:
        return element
    prims = list(element.primitives)
    for path, value in values.items():
        i, field = path.resolve(element)
        prim = prims[i]
        if path.function is not None:
            name = _FUNCTIONS[path.function]
            prims[i] = replace(prim, **{name: replace(getattr(prim, name), **{field: value})})
        else:
            prims[i] = replace(prim, **{field: value})
    return replace(element, primitives=tuple(prims))
