"""SVG markup -> SvgDocument: the edge where filter markup is read, once.

The XML is untrusted (a scene file, a user's page), so it is read with expat directly and
set up the way defusedxml sets it up, more strictly: a document type declaration (where
every entity, internal or external, is declared) is refused as soon as the parser meets
it, so an entity bomb costs nothing; external entities and parameter entities are never
resolved; the markup's size, depth and element count are bounded. Namespaces are those
of SVG (or none) and XLink (``xlink:href``).

Each element and attribute is read into the typed model of ``filters.svg.model``; an
unknown element or attribute, a value that does not parse, a legacy input
(``BackgroundImage`` ...) or ``filterRes`` is a typed error naming the element, the
attribute, the value and the line (``SvgFilterError``; ``UnsupportedFeatureError`` for
what the spec has and Lamina does not). The graph's own checks (results used before they
are defined) run in ``filters.svg.graph`` when the document is built.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable
from xml.parsers import expat

import tinycss2

from ...errors import SvgFilterError, UnsupportedFeatureError
from ...css.colors import parse_color_token
from ...css.values import RGBA
from ...blending.modes import BlendMode

from . import model as m
from .graph import check_filter

__all__ = ["parse_svg", "MAX_MARKUP_CHARS", "MAX_ELEMENTS", "MAX_DEPTH"]

MAX_MARKUP_CHARS = 1 << 20  # 1 MiB of markup
MAX_ELEMENTS = 10_000
MAX_DEPTH = 32

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_SEP = "\x1f"  # expat's namespace separator: a character no name can hold
LEGACY_INPUTS = ("BackgroundImage", "BackgroundAlpha", "FillPaint", "StrokePaint")
METADATA = ("title", "desc", "metadata")


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list["_Node"] = field(default_factory=list)
    text: str = ""

    def describe(self) -> str:
        key = self.attrs.get("id") or self.attrs.get("result")
        label = f' {"id" if "id" in self.attrs else "result"}="{key}"' if key else ""
        return f"<{self.tag}{label}>"


def _error(node: _Node | None, message: str, attribute: str | None = None, value: str | None = None,
           cls=SvgFilterError) -> Exception:
    if cls is SvgFilterError:
        return SvgFilterError(message, element=node.describe() if node else None, attribute=attribute, value=value,
                              line=node.line if node else None)
    where = f"line {node.line}, {node.describe()}: " if node else ""
    if issubclass(cls, UnsupportedFeatureError):
        return cls(where + message, element=node.describe() if node else None, property=attribute, value=value)
    return cls(where + message, property=attribute, value=value)


def _read_tree(markup: str) -> _Node:
    """The element tree of ``markup``, read with expat set up for untrusted input."""
    if not isinstance(markup, str):
        raise SvgFilterError(f"SVG markup must be text, got {type(markup).__name__}")
    if len(markup) > MAX_MARKUP_CHARS:
        raise SvgFilterError(f"SVG markup of {len(markup)} characters is over the limit of {MAX_MARKUP_CHARS}")
    parser = expat.ParserCreate("utf-8", namespace_separator=_SEP)
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[_Node] = []
    root: list[_Node] = []
    count = 0

    def refuse(what: str) -> Callable:
        def handler(*_args) -> None:
            raise SvgFilterError(f"{what} in SVG markup are refused (entities can expand without bound); "
                                 "write the markup without a <!DOCTYPE>", line=parser.CurrentLineNumber)
        return handler

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal count
        count += 1
        if count > MAX_ELEMENTS:
            raise SvgFilterError(f"more than {MAX_ELEMENTS} elements in SVG markup", line=parser.CurrentLineNumber)
        if len(stack) >= MAX_DEPTH:
            raise SvgFilterError(f"elements nested deeper than {MAX_DEPTH}", line=parser.CurrentLineNumber)
        node = _Node(_local(name, parser.CurrentLineNumber), _attributes(attrs, name, parser.CurrentLineNumber),
                     parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(node)
        stack.append(node)

    def end(_name: str) -> None:
        stack.pop()

    def text(data: str) -> None:
        if stack:
            stack[-1].text += data

    parser.StartDoctypeDeclHandler = refuse("document type declarations (<!DOCTYPE>)")
    parser.EntityDeclHandler = refuse("entity declarations")
    parser.UnparsedEntityDeclHandler = refuse("entity declarations")
    parser.ExternalEntityRefHandler = refuse("external entities")
    parser.ProcessingInstructionHandler = None
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(markup.encode("utf-8"), True)
    except expat.ExpatError as exc:
        raise SvgFilterError(f"malformed XML: {expat.ErrorString(exc.code)} at column {exc.offset + 1}",
                             line=exc.lineno) from None
    if not root:
        raise SvgFilterError("SVG markup has no element")
    return root[0]


def _local(name: str, line: int) -> str:
    ns, _, local = name.rpartition(_SEP)
    if ns and ns != SVG_NS:
        raise SvgFilterError(f"element <{local}> in namespace {ns!r}: only SVG elements are read", line=line)
    return local


def _attributes(attrs: dict[str, str], element: str, line: int) -> dict[str, str]:
    out = {}
    for name, value in attrs.items():
        ns, _, local = name.rpartition(_SEP)
        if ns == XLINK_NS and local == "href":
            local = "href"
        elif ns:
            raise SvgFilterError(f"attribute {local!r} in namespace {ns!r} is not an SVG filter attribute",
                                 element=f"<{_local(element, line)}>", attribute=local, value=value, line=line)
        out[local] = value
    return out


# -- attribute values ------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_SPLIT = re.compile(r"\s*,\s*|\s+")


def _numbers(node: _Node, attr: str, lo: int = 1, hi: int | None = None) -> tuple[float, ...]:
    text = node.attrs[attr].strip()
    parts = [p for p in _SPLIT.split(text) if p] if text else []
    if not lo <= len(parts) <= (hi if hi is not None else len(parts)):
        want = f"{lo}" if hi == lo else f"{lo} to {hi}" if hi is not None else f"at least {lo}"
        raise _error(node, f"takes {want} number(s), got {len(parts)}", attr, node.attrs[attr])
    out = []
    for p in parts:
        if not _NUMBER.fullmatch(p):
            raise _error(node, f"{p!r} is not a number", attr, node.attrs[attr])
        v = float(p)
        if not math.isfinite(v):
            raise _error(node, f"{p!r} is not finite", attr, node.attrs[attr])
        out.append(v)
    return tuple(out)


def _number(node: _Node, attr: str) -> float:
    return _numbers(node, attr, 1, 1)[0]


def _pair(node: _Node, attr: str) -> tuple[float, float]:
    """A number-optional-number: one number for both, or two."""
    v = _numbers(node, attr, 1, 2)
    return (v[0], v[-1])


def _integer(node: _Node, attr: str, value: float) -> int:
    if not value.is_integer():
        raise _error(node, f"must be a whole number, got {value:g}", attr, node.attrs[attr])
    return int(value)


def _enum(node: _Node, attr: str, enum_type):
    text = node.attrs[attr].strip()
    for member in enum_type:
        if member.value == text:
            return member
    known = ", ".join(repr(e.value) for e in enum_type)
    raise _error(node, f"must be one of {known}", attr, text)


def _color(node: _Node, attr: str) -> RGBA:
    text = node.attrs[attr]
    tokens = [t for t in tinycss2.parse_component_value_list(text, skip_comments=True)
              if t.type not in ("whitespace",)]
    try:
        color = parse_color_token(tokens[0]) if len(tokens) == 1 else None
    except ValueError as exc:
        raise _error(node, str(exc), attr, text, UnsupportedFeatureError) from None
    if color == "currentcolor":
        raise _error(node, "currentcolor in SVG filter markup is not supported yet: write the colour",
                     attr, text, UnsupportedFeatureError)
    if not isinstance(color, RGBA):
        raise _error(node, "is not a CSS colour", attr, text)
    return color


def _coordinate(node: _Node, attr: str) -> m.Coordinate:
    text = node.attrs[attr].strip()
    match = re.fullmatch(r"(" + _NUMBER.pattern + r")(%|px)?", text)
    if not match:
        raise _error(node, "must be a number, a px length or a percentage", attr, text)
    value = float(match.group(1))
    if not math.isfinite(value):
        raise _error(node, "is not finite", attr, text)
    return m.Coordinate(value, match.group(2) == "%")


def _region(node: _Node) -> m.Region:
    return m.Region(*(_coordinate(node, a) if a in node.attrs else None for a in ("x", "y", "width", "height")))


def _input(node: _Node, attr: str) -> m.Input:
    if attr not in node.attrs:
        return None
    text = node.attrs[attr].strip()
    for keyword in m.StandardInput:
        if text == keyword.value:
            return keyword
    if text in LEGACY_INPUTS:
        raise _error(node, f"the input {text} (the canvas behind the element) is not supported: "
                           "use SourceGraphic, SourceAlpha or a result", attr, text, UnsupportedFeatureError)
    if not text:
        raise _error(node, "names no input", attr, node.attrs[attr])
    return text


def _color_space(node: _Node, default: m.ColorSpace | None) -> m.ColorSpace | None:
    text = node.attrs.get("color-interpolation-filters", "").strip()
    if not text or text == "inherit":
        return default
    if text == "auto":
        return m.ColorSpace.SRGB  # the user agent's choice: the space its pixels are in
    return _enum(node, "color-interpolation-filters", m.ColorSpace)


def _no_children(node: _Node) -> None:
    for child in node.children:
        if child.tag not in METADATA:
            raise _error(child, f"is not allowed inside <{node.tag}>")
    if node.text.strip():
        raise _error(node, f"has text {node.text.strip()[:40]!r}; filter elements hold only elements")


def _children(node: _Node, allowed: tuple[str, ...]) -> list[_Node]:
    out = []
    for child in node.children:
        if child.tag in METADATA:
            continue
        if child.tag not in allowed:
            raise _error(child, f"is not allowed inside <{node.tag}> (allowed: {', '.join(allowed)})")
        out.append(child)
    if node.text.strip():
        raise _error(node, f"has text {node.text.strip()[:40]!r}; filter elements hold only elements")
    return out


def _check_attributes(node: _Node, allowed: set[str]) -> None:
    for attr in node.attrs:
        if attr not in allowed:
            if attr == "style":
                raise _error(node, "style attributes are not read: write presentation attributes "
                                   "(flood-color, color-interpolation-filters...)", attr, node.attrs[attr],
                             UnsupportedFeatureError)
            raise _error(node, f"<{node.tag}> has no attribute {attr!r}", attr, node.attrs[attr])


# -- elements ---------------------------------------------------------------------------

COMMON = {"id", "class", "x", "y", "width", "height", "result", "color-interpolation-filters"}
# Each primitive's own attributes, with their readers: (node) -> dict of field values.
Reader = Callable[[_Node], dict]


def _read_blend(n: _Node) -> dict:
    out = {"in_": _input(n, "in"), "in2": _input(n, "in2")}
    if "mode" in n.attrs:
        mode = _enum(n, "mode", BlendMode)
        if mode is BlendMode.PLUS_LIGHTER:
            raise _error(n, "plus-lighter is a compositing operator, not a blend mode (use feComposite lighter)",
                         "mode", n.attrs["mode"])
        out["mode"] = mode
    return out


def _read_color_matrix(n: _Node) -> dict:
    out: dict = {"in_": _input(n, "in")}
    if "type" in n.attrs:
        out["type"] = _enum(n, "type", m.ColorMatrixType)
    if "values" in n.attrs:
        out["values"] = _numbers(n, "values", 0)
    return out


_FUNC_FIELDS = {"tableValues": "table_values", "slope": "slope", "intercept": "intercept", "amplitude": "amplitude",
                "exponent": "exponent", "offset": "offset"}


def _read_func(n: _Node) -> m.TransferFunction:
    _check_attributes(n, {"id", "type", *_FUNC_FIELDS})
    _no_children(n)
    if "type" not in n.attrs:
        raise _error(n, "needs a type (identity, table, discrete, linear or gamma)", "type")
    values: dict = {"type": _enum(n, "type", m.TransferType)}
    for attr, name in _FUNC_FIELDS.items():
        if attr in n.attrs:
            values[name] = _numbers(n, attr, 0) if attr == "tableValues" else _number(n, attr)
    try:
        return m.TransferFunction(**values)
    except SvgFilterError as exc:
        raise _error(n, exc.reason, exc.property, exc.value) from None


def _read_component_transfer(n: _Node) -> dict:
    out: dict = {"in_": _input(n, "in")}
    names = {"feFuncR": "red", "feFuncG": "green", "feFuncB": "blue", "feFuncA": "alpha"}
    for child in _children(n, tuple(names)):
        key = names[child.tag]
        if key in out:
            raise _error(child, f"<{n.tag}> has two <{child.tag}> elements")
        out[key] = _read_func(child)
    return out


def _read_composite(n: _Node) -> dict:
    out: dict = {"in_": _input(n, "in"), "in2": _input(n, "in2")}
    if "operator" in n.attrs:
        out["operator"] = _enum(n, "operator", m.CompositeOperator)
    for k in ("k1", "k2", "k3", "k4"):
        if k in n.attrs:
            out[k] = _number(n, k)
    return out


def _read_convolve(n: _Node) -> dict:
    out: dict = {"in_": _input(n, "in")}
    if "kernelUnitLength" in n.attrs:
        out["kernel_unit_length"] = _pair(n, "kernelUnitLength")
    if "order" in n.attrs:
        ox, oy = _pair(n, "order")
        out["order"] = (_integer(n, "order", ox), _integer(n, "order", oy))
        if min(out["order"]) < 1 or max(out["order"]) > m.MAX_KERNEL_ORDER:
            raise _error(n, f"must be whole numbers from 1 to {m.MAX_KERNEL_ORDER}", "order", n.attrs["order"])
    if "kernelMatrix" not in n.attrs:
        raise _error(n, "needs a kernelMatrix", "kernelMatrix")
    order = out.get("order", (3, 3))
    if len(_SPLIT.split(n.attrs["kernelMatrix"].strip())) > order[0] * order[1]:
        raise _error(n, f"order {order[0]}x{order[1]} needs {order[0] * order[1]} numbers, got more",
                     "kernelMatrix", n.attrs["kernelMatrix"][:80])
    out["kernel"] = _numbers(n, "kernelMatrix", 0)
    for attr, name in (("divisor", "divisor"), ("bias", "bias")):
        if attr in n.attrs:
            out[name] = _number(n, attr)
    for attr, name in (("targetX", "target_x"), ("targetY", "target_y")):
        if attr in n.attrs:
            out[name] = _integer(n, attr, _number(n, attr))
    if "edgeMode" in n.attrs:
        out["edge_mode"] = _enum(n, "edgeMode", m.EdgeMode)
    if "preserveAlpha" in n.attrs:
        text = n.attrs["preserveAlpha"].strip()
        if text not in ("true", "false"):
            raise _error(n, "must be 'true' or 'false'", "preserveAlpha", text)
        out["preserve_alpha"] = text == "true"
    return out


def _kernel_unit_length(n: _Node) -> None:
    if "kernelUnitLength" in n.attrs:
        raise _error(n, "kernelUnitLength (a resolution of its own for the kernel) is not supported",
                     "kernelUnitLength", n.attrs["kernelUnitLength"], UnsupportedFeatureError)


def _read_light(n: _Node) -> m.LightSource:
    _no_children(n)
    if n.tag == "feDistantLight":
        _check_attributes(n, {"id", "azimuth", "elevation"})
        return m.DistantLight(**{a: _number(n, a) for a in ("azimuth", "elevation") if a in n.attrs})
    if n.tag == "fePointLight":
        _check_attributes(n, {"id", "x", "y", "z"})
        return m.PointLight(**{a: _number(n, a) for a in ("x", "y", "z") if a in n.attrs})
    _check_attributes(n, {"id", "x", "y", "z", "pointsAtX", "pointsAtY", "pointsAtZ", "specularExponent",
                          "limitingConeAngle"})
    values: dict = {a: _number(n, a) for a in ("x", "y", "z") if a in n.attrs}
    values["points_at"] = tuple(_number(n, a) if a in n.attrs else 0.0 for a in ("pointsAtX", "pointsAtY", "pointsAtZ"))
    if "specularExponent" in n.attrs:
        values["specular_exponent"] = _number(n, "specularExponent")
    if "limitingConeAngle" in n.attrs:
        values["limiting_cone_angle"] = _number(n, "limitingConeAngle")
    try:
        return m.SpotLight(**values)
    except SvgFilterError as exc:
        raise _error(n, exc.reason, exc.property, exc.value) from None


def _read_lighting(n: _Node, specular: bool) -> dict:
    out: dict = {"in_": _input(n, "in")}
    if "kernelUnitLength" in n.attrs:
        out["kernel_unit_length"] = _pair(n, "kernelUnitLength")
    lights = _children(n, ("feDistantLight", "fePointLight", "feSpotLight"))
    if len(lights) != 1:
        raise _error(n, f"needs exactly one light source element, got {len(lights)}")
    try:
        out["light"] = _read_light(lights[0])
    except SvgFilterError as exc:
        if exc.element:
            raise
        raise _error(lights[0], exc.reason, exc.property, exc.value) from None
    if "surfaceScale" in n.attrs:
        out["surface_scale"] = _number(n, "surfaceScale")
    if "lighting-color" in n.attrs:
        out["lighting_color"] = _color(n, "lighting-color")
    names = (("specularConstant", "specular_constant"), ("specularExponent", "specular_exponent")) if specular \
        else (("diffuseConstant", "diffuse_constant"),)
    for attr, name in names:
        if attr in n.attrs:
            out[name] = _number(n, attr)
    return out


def _read_displacement(n: _Node) -> dict:
    out: dict = {"in_": _input(n, "in"), "in2": _input(n, "in2")}
    if "scale" in n.attrs:
        out["scale"] = _number(n, "scale")
    for attr, name in (("xChannelSelector", "x_channel"), ("yChannelSelector", "y_channel")):
        if attr in n.attrs:
            out[name] = _enum(n, attr, m.Channel)
    return out


def _flood(n: _Node, out: dict) -> dict:
    if "flood-color" in n.attrs:
        out["flood_color"] = _color(n, "flood-color")
    if "flood-opacity" in n.attrs:
        text = n.attrs["flood-opacity"].strip()
        c = _coordinate(n, "flood-opacity")  # a number or a percentage
        if text.endswith("px"):
            raise _error(n, "must be a number or a percentage", "flood-opacity", text)
        out["flood_opacity"] = min(max(c.fraction(), 0.0), 1.0)  # clamped, as CSS opacity is
    return out


def _read_drop_shadow(n: _Node) -> dict:
    out: dict = {"in_": _input(n, "in")}
    for attr in ("dx", "dy"):
        if attr in n.attrs:
            out[attr] = _number(n, attr)
    if "stdDeviation" in n.attrs:
        out["std_deviation"] = _pair(n, "stdDeviation")
    return _flood(n, out)


def _read_blur(n: _Node) -> dict:
    out: dict = {"in_": _input(n, "in")}
    if "stdDeviation" in n.attrs:
        out["std_deviation"] = _pair(n, "stdDeviation")
    if "edgeMode" in n.attrs:
        out["edge_mode"] = _enum(n, "edgeMode", m.EdgeMode)
    return out


def _read_image(n: _Node) -> dict:
    out: dict = {"href": n.attrs.get("href", "").strip()}
    if out["href"].startswith("#"):
        raise _error(n, "feImage referring to an element of the document is not supported: give an image file",
                     "href", out["href"], UnsupportedFeatureError)
    if "preserveAspectRatio" in n.attrs:
        text = " ".join(n.attrs["preserveAspectRatio"].split())
        align, _, mode = text.partition(" ")
        aligns = {"none"} | {f"x{x}Y{y}" for x in ("Min", "Mid", "Max") for y in ("Min", "Mid", "Max")}
        if align not in aligns or mode not in ("", "meet", "slice"):
            raise _error(n, "must be an alignment (none, xMidYMid...) and optionally meet or slice",
                         "preserveAspectRatio", text)
        out["preserve_aspect_ratio"] = f"{align} {mode or 'meet'}"
    return out


def _read_merge(n: _Node) -> dict:
    nodes = []
    for child in _children(n, ("feMergeNode",)):
        _check_attributes(child, {"id", "in"})
        _no_children(child)
        nodes.append(_input(child, "in"))
    return {"nodes": tuple(nodes)}


def _read_morphology(n: _Node) -> dict:
    out: dict = {"in_": _input(n, "in")}
    if "operator" in n.attrs:
        out["operator"] = _enum(n, "operator", m.MorphologyOperator)
    if "radius" in n.attrs:
        out["radius"] = _pair(n, "radius")
    return out


def _read_offset(n: _Node) -> dict:
    return {"in_": _input(n, "in"), **{a: _number(n, a) for a in ("dx", "dy") if a in n.attrs}}


def _read_turbulence(n: _Node) -> dict:
    out: dict = {}
    if "baseFrequency" in n.attrs:
        out["base_frequency"] = _pair(n, "baseFrequency")
    if "numOctaves" in n.attrs:
        out["num_octaves"] = _integer(n, "numOctaves", _number(n, "numOctaves"))
    if "seed" in n.attrs:
        out["seed"] = _number(n, "seed")
    if "stitchTiles" in n.attrs:
        text = n.attrs["stitchTiles"].strip()
        if text not in ("stitch", "noStitch"):
            raise _error(n, "must be 'stitch' or 'noStitch'", "stitchTiles", text)
        out["stitch_tiles"] = text == "stitch"
    if "type" in n.attrs:
        out["type"] = _enum(n, "type", m.TurbulenceType)
    return out


# tag -> (its attributes beyond COMMON, its reader, whether it has child elements)
READERS: dict[str, tuple[set[str], Reader, bool]] = {
    "feBlend": ({"in", "in2", "mode"}, _read_blend, False),
    "feColorMatrix": ({"in", "type", "values"}, _read_color_matrix, False),
    "feComponentTransfer": ({"in"}, _read_component_transfer, True),
    "feComposite": ({"in", "in2", "operator", "k1", "k2", "k3", "k4"}, _read_composite, False),
    "feConvolveMatrix": ({"in", "order", "kernelMatrix", "divisor", "bias", "targetX", "targetY", "edgeMode",
                          "kernelUnitLength", "preserveAlpha"}, _read_convolve, False),
    "feDiffuseLighting": ({"in", "surfaceScale", "diffuseConstant", "kernelUnitLength", "lighting-color"},
                          lambda n: _read_lighting(n, False), True),
    "feSpecularLighting": ({"in", "surfaceScale", "specularConstant", "specularExponent", "kernelUnitLength",
                            "lighting-color"}, lambda n: _read_lighting(n, True), True),
    "feDisplacementMap": ({"in", "in2", "scale", "xChannelSelector", "yChannelSelector"}, _read_displacement, False),
    "feDropShadow": ({"in", "dx", "dy", "stdDeviation", "flood-color", "flood-opacity"}, _read_drop_shadow, False),
    "feFlood": ({"flood-color", "flood-opacity"}, lambda n: _flood(n, {}), False),
    "feGaussianBlur": ({"in", "stdDeviation", "edgeMode"}, _read_blur, False),
    "feImage": ({"href", "preserveAspectRatio", "crossorigin"}, _read_image, False),
    "feMerge": (set(), _read_merge, True),
    "feMorphology": ({"in", "operator", "radius"}, _read_morphology, False),
    "feOffset": ({"in", "dx", "dy"}, _read_offset, False),
    "feTile": ({"in"}, lambda n: {"in_": _input(n, "in")}, False),
    "feTurbulence": ({"baseFrequency", "numOctaves", "seed", "stitchTiles", "type"}, _read_turbulence, False),
}
assert set(READERS) == set(m.PRIMITIVES)


def _read_primitive(n: _Node) -> m.Primitive:
    entry = READERS.get(n.tag)
    if entry is None:
        known = ", ".join(sorted(READERS))
        raise _error(n, f"<{n.tag}> is not a filter primitive (known: {known})")
    own, reader, has_children = entry
    _check_attributes(n, COMMON | own)
    if not has_children:
        _no_children(n)
    values = reader(n)
    result = n.attrs.get("result", "").strip() or None
    try:
        return m.PRIMITIVES[n.tag](subregion=_region(n), result=result, color_space=_color_space(n, None),
                                   line=n.line, **values)
    except SvgFilterError as exc:
        if exc.line is not None:
            raise
        raise _error(n, exc.reason, exc.property, exc.value) from None


FILTER_ATTRIBUTES = {"id", "class", "x", "y", "width", "height", "filterUnits", "primitiveUnits",
                     "color-interpolation-filters", "filterRes", "href"}


def _read_filter(n: _Node) -> m.FilterElement:
    _check_attributes(n, FILTER_ATTRIBUTES)
    fid = n.attrs.get("id", "").strip()
    if not fid:
        raise _error(n, "a <filter> needs an id (url(#id) names it)", "id")
    if "filterRes" in n.attrs:
        raise _error(n, "filterRes was removed from SVG (Filter Effects 1): filters run at the layer's resolution",
                     "filterRes", n.attrs["filterRes"], UnsupportedFeatureError)
    if "href" in n.attrs:
        raise _error(n, "a <filter> inheriting another's primitives (href) is not supported", "href",
                     n.attrs["href"], UnsupportedFeatureError)
    space = _color_space(n, m.ColorSpace.LINEAR_RGB)
    assert space is not None
    units = {}
    for attr, name in (("filterUnits", "filter_units"), ("primitiveUnits", "primitive_units")):
        if attr in n.attrs:
            units[name] = _enum(n, attr, m.Units)
    children = [c for c in n.children if c.tag not in METADATA]
    if n.text.strip():
        raise _error(n, f"has text {n.text.strip()[:40]!r}; a <filter> holds only primitives")
    if len(children) > m.MAX_PRIMITIVES:
        raise _error(n, f"has {len(children)} primitives, more than the {m.MAX_PRIMITIVES} one filter may")
    primitives = tuple(_read_primitive(c) for c in children)
    region = _region(n)
    for name in ("width", "height"):
        c = getattr(region, name)
        if c is not None and c.value < 0:
            raise _error(n, "must not be negative", name, n.attrs[name])
    element = m.FilterElement(fid, primitives, region, color_space=space, line=n.line, **units)
    check_filter(element)
    return element


def parse_svg(markup: str) -> m.SvgDocument:
    """The filters of SVG ``markup`` (an ``<svg>`` holding ``<filter>`` elements, directly
    or in ``<defs>``), checked: a typed error names the first problem."""
    root = _read_tree(markup)
    if root.tag != "svg":
        raise _error(root, "SVG markup must have an <svg> root element")
    filters: dict[str, m.FilterElement] = {}

    def visit(node: _Node) -> None:
        for child in node.children:
            if child.tag in METADATA:
                continue
            if child.tag == "defs":
                visit(child)
            elif child.tag == "filter":
                element = _read_filter(child)
                if element.id in filters:
                    raise _error(child, f"a second <filter> with id {element.id!r}", "id", element.id)
                filters[element.id] = element
            else:
                raise _error(child, f"<{child.tag}> is not read: SVG markup here holds <filter> elements "
                                    "(directly or in <defs>)", cls=UnsupportedFeatureError)

    visit(root)
    return m.SvgDocument(filters, markup)
