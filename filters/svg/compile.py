"""SVG filter graphs -> FilterPlan: a first subset of primitives as passes of their own,
for graphs that are not the chains ``filters.svg.lower`` turns into ops.

Each live primitive becomes its passes, reading the images of the primitives it names
(inputs shared by several primitives are computed once; pruned results are never
planned): feColorMatrix and feComponentTransfer as svg colour passes, fused while one
alone reads the other (``filters.svg.compile_color``, which also says what runs in
linearRGB and how), SourceAlpha as
one (colour made black), feGaussianBlur as the downscaled separable blur passes,
feMorphology and feDropShadow as their passes, feOffset as an offset pass, feFlood,
feImage as an image pass placing its picture (``filters.svg.compile_image``),
feComposite (every operator), feMerge and feBlend (every mode of Compositing 1, the
compositor's blend maths: shaders/common/blend_modes.h) as combine passes; feTile,
without subregions, is its input, and of an feImage placed by x, y, width, height, that
picture's pass tiling its rect (the one input that makes a subregion here).

What is exact on images the size of the element's box: the filter region must be the
box (``x=0 y=0 width=1 height=1`` in objectBoundingBox units, or the same in user
space), unless the plan is given the box and so runs on the region — a larger region keeps content past the box that offsets and blurs bring back,
which box-sized images do not hold — primitives in linearRGB only as compile_color
allows, and no primitive subregions. Anything else is an
UnsupportedFeatureError naming the primitive and why, before any pass runs.
"""

from __future__ import annotations

import numpy as np

from ...errors import UnsupportedFeatureError
from ...blending.modes import BlendMode

from ..ops import DropShadow, Morphology
from ..plan import (CombineOperator, CombinePass, ColorPass, FilterPlan, OffsetPass, _Builder, _plan_morphology,
                    _plan_shadow, color_steps)
from . import model as m
from .compile_color import SpacePlanner
from .compile_image import plan_image
from .compile_noise import plan_turbulence
from .graph import build_graph
from .lower import SOURCE_ALPHA, SvgColorMatrix, one_sigma
from .reference import filter_region
from ...css.values import RGBA

__all__ = ["plan_graph", "COMPILED"]

COMPILED = (m.ColorMatrix, m.ComponentTransfer, m.GaussianBlur, m.Morphology, m.DropShadow, m.Offset, m.Flood,
            m.Composite, m.Merge, m.Blend, m.Tile, m.Turbulence, m.Image)
_COMPOSITE = {m.CompositeOperator.OVER: CombineOperator.OVER, m.CompositeOperator.IN: CombineOperator.IN,
              m.CompositeOperator.OUT: CombineOperator.OUT, m.CompositeOperator.ATOP: CombineOperator.ATOP,
              m.CompositeOperator.XOR: CombineOperator.XOR, m.CompositeOperator.LIGHTER: CombineOperator.LIGHTER,
              m.CompositeOperator.ARITHMETIC: CombineOperator.ARITHMETIC}


def _refuse(prim: m.Primitive | m.FilterElement, why: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(f"{prim.describe()}: {why}; SVG filter graphs compile to GPU passes only "
                                   "with the filter region the element's box and no subregions, from feColorMatrix, "
                                   "feComponentTransfer, feGaussianBlur, feMorphology, feDropShadow, feOffset, "
                                   "feFlood, feComposite, feMerge, feBlend (every mode), feImage and feTile so far (backend='reference' runs "
                                   "any graph)", property="filter", value=prim.describe())


def plan_graph(element: m.FilterElement, size: tuple[int, int], scale: float = 1.0,
               box: tuple[float, float] | None = None) -> FilterPlan:
    """The passes of ``element`` on an image of ``size`` px that is the element's box —
    or, given ``box`` (the element's, CSS px), that is the filter region of that box
    (rounded out to whole pixels; ``filters.svg.route`` sizes it)."""
    w, h = size
    graph = build_graph(element)
    if graph.output is None:
        raise _refuse(element, "no primitives (the element is not drawn)")
    if box is None:
        box = (w / scale, h / scale)
        region = filter_region(element, (0.0, 0.0, w / scale, h / scale))
        if not np.allclose(region, (0.0, 0.0, w / scale, h / scale), rtol=0, atol=1e-9):
            raise _refuse(graph.nodes[graph.output].primitive, "a filter region other than the element's box")
    units = box if element.primitive_units is m.Units.BOUNDING_BOX else (1.0, 1.0)
    b = _Builder(w * h)
    notes: list[str] = [f"SVG graph {line.strip()}" for line in graph.explain().splitlines()]  # what became the passes
    names: dict[int, str] = {}
    partial: set[m.Input | int] = set()  # feImages placed by x, y, width, height: results within that rect
    alpha: list[str] = []  # SourceAlpha's image, once planned
    spaces = SpacePlanner(b, (units[0] * scale, units[1] * scale), graph)  # colour primitives, linearRGB (compile_color)

    def image(i) -> str:
        if i is m.StandardInput.SOURCE_GRAPHIC:
            return "source"
        if i is m.StandardInput.SOURCE_ALPHA:
            if not alpha:
                alpha.append(_color(b, "source", SvgColorMatrix(values=tuple(SOURCE_ALPHA.reshape(-1)),
                                                                source="SourceAlpha")))
            return alpha[0]
        return names[i]

    for node in graph.live_nodes():
        prim = node.primitive
        if not isinstance(prim, COMPILED):
            raise _refuse(prim, "this primitive does not compile to GPU passes yet")
        linear = element.space_of(prim) is m.ColorSpace.LINEAR_RGB
        why = spaces.refusal(prim, node.inputs, linear)
        if why:
            raise _refuse(prim, why)
        placed = any(getattr(prim.subregion, k) is not None for k in ("x", "y", "width", "height"))
        if placed and not isinstance(prim, m.Image):
            raise _refuse(prim, "a primitive subregion")
        if placed:
            partial.add(node.index)
        if node.inputs and all(i in partial for i in node.inputs) and not isinstance(prim, m.Tile):
            # Its default subregion would be the feImage's rect, clipping its result there.
            raise _refuse(prim, "reading only an feImage placed by x, y, width, height (its own subregion would be "
                                "that rect: primitive subregions are not planned yet; feTile of it is)")
        ins = [image(i) for i in node.inputs]
        out = spaces.plan(prim, node.index, node.inputs, ins[0] if ins else None, linear)
        if isinstance(prim, m.Turbulence):  # compile_noise
            out = plan_turbulence(b, prim, (0.0, 0.0, w / scale, h / scale), scale, linear)
        if isinstance(prim, m.Image):  # compile_image: its x, y, width, height place the picture
            out = plan_image(b, prim, element, box, scale)
        if isinstance(prim, m.Tile) and node.inputs[0] in partial:  # the placed picture, tiled from its rect
            out = plan_image(b, graph.nodes[node.inputs[0]].primitive, element, box, scale, tiled=True)
        names[node.index] = out if out is not None else _plan_primitive(b, prim, ins, units, scale, notes)
        spaces.planned(prim, node.index, node.inputs, linear)
    return FilterPlan(_read(b.passes, names[graph.output]), names[graph.output], (0, 0, 0, 0), tuple(notes))


def _read(passes: list, output: str) -> tuple:
    """The passes whose images reach ``output`` (an feImage only an feTile reads is
    planned tiled, in a pass of its own: its plain pass is then read by nothing)."""
    needed, kept = {output}, []
    for p in reversed(passes):
        if p.output in needed:
            kept.append(p)
            needed.update(p.inputs)
    return tuple(reversed(kept))


def _color(b: _Builder, source: str, op: SvgColorMatrix) -> str:
    steps, alpha = color_steps([op])
    out = b.name("color")
    b.passes.append(ColorPass((source,), out, tuple(steps), alpha, (op.css(),)))
    return out


def _combine(b: _Builder, a: str, c: str, operator: CombineOperator, source: str, k=(0.0, 0.0, 0.0),
             k4=(0.0, 0.0, 0.0, 0.0)) -> str:
    out = b.name("combine")
    b.passes.append(CombinePass((a, c), out, operator, tuple(float(v) for v in k), tuple(float(v) for v in k4), source))
    return out


def _plan_primitive(b: _Builder, prim: m.Primitive, ins: list[str], units: tuple[float, float], scale: float,
                    notes: list[str]) -> str:
    ux, uy = units[0] * scale, units[1] * scale  # markup units -> pixels
    if isinstance(prim, m.GaussianBlur):
        if prim.edge_mode is not m.EdgeMode.NONE:
            raise _refuse(prim, f"edgeMode {prim.edge_mode.value}")
        sigma = one_sigma(prim, prim.std_deviation, (ux, uy))
        return b.blur(ins[0], min(sigma, 100.0)) if sigma > 0 else ins[0]
    if isinstance(prim, m.Morphology):
        if prim.radius[0] <= 0 or prim.radius[1] <= 0:
            return ins[0]  # a zero radius disables it: the result is the input
        op = Morphology(prim.operator.value, prim.radius[0] * ux, prim.radius[1] * uy)
        return _plan_morphology(b, op, ins[0], 1.0, notes)
    if isinstance(prim, m.DropShadow):
        sigma = one_sigma(prim, prim.std_deviation, (ux, uy))
        c = prim.flood_color
        op = DropShadow(prim.dx * ux, prim.dy * uy, sigma, RGBA(c.r, c.g, c.b, c.a * prim.flood_opacity))
        return _plan_shadow(b, op, ins[0], 1.0, notes)
    if isinstance(prim, m.Offset):
        dx, dy = prim.dx * ux, prim.dy * uy
        if dx == 0 and dy == 0:
            return ins[0]
        out = b.name("offset")
        b.passes.append(OffsetPass((ins[0],), out, (dx, dy)))
        return out
    if isinstance(prim, m.Flood):
        c = prim.flood_color
        a = c.a * prim.flood_opacity
        return _combine(b, "source", "source", CombineOperator.ARITHMETIC, prim.tag, k4=(c.r * a, c.g * a, c.b * a, a))
    if isinstance(prim, m.Composite):
        return _combine(b, ins[0], ins[1], _COMPOSITE[prim.operator], prim.tag, (prim.k1, prim.k2, prim.k3),
                        (prim.k4,) * 4)
    if isinstance(prim, m.Tile):
        return ins[0]  # without subregions its input already covers its region: the tile is the input
    if isinstance(prim, m.Blend):
        if prim.mode is BlendMode.NORMAL:
            return _combine(b, ins[0], ins[1], CombineOperator.OVER, prim.tag)
        out = b.name("combine")  # in blended over in2 (Compositing 1 #blending, as Filter Effects 1 says)
        b.passes.append(CombinePass((ins[0], ins[1]), out, CombineOperator.BLEND, source=prim.tag,
                                    blend_mode=prim.mode))
        return out
    assert isinstance(prim, m.Merge)
    if not ins:
        return _combine(b, "source", "source", CombineOperator.ARITHMETIC, prim.tag)  # nothing: transparent
    current = ins[0]
    for top in ins[1:]:
        current = _combine(b, top, current, CombineOperator.OVER, prim.tag)
    return current
