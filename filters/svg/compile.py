"""SVG filter graphs -> FilterPlan: a first subset of primitives as passes of their own,
for graphs that are not the chains ``filters.svg.lower`` turns into ops.

Each live primitive becomes its passes, reading the images of the primitives it names
(inputs shared by several primitives are computed once; pruned results are never
planned): feColorMatrix and feComponentTransfer as svg colour passes, fused while one
alone reads the other (``filters.svg.compile_color``, which also says what runs in
linearRGB and how), SourceAlpha as
one (colour made black), feGaussianBlur as the downscaled separable blur passes, one
sigma per axis (``filters.plan.blur_levels_axes``; feDropShadow's likewise)
(in linearRGB on an image with colour on a float linear image between two
conversions, and in either space on a float image where what reads it amplifies it —
a gooey colour matrix, lighting: ``filters.svg.compile_linear``; with edgeMode duplicate or wrap as convolve
passes, converting each tap in linearRGB: ``filters.svg.compile_spatial``,
which also plans feDisplacementMap and feConvolveMatrix),
feMorphology and feDropShadow as their passes (feDropShadow in linearRGB as the spec's
graph: blur, then offset, flood and merge in linear light in one shadow pass), feOffset as an offset pass, feFlood,
feImage as an image pass placing its picture (``filters.svg.compile_image``),
feComposite (every operator), feMerge and feBlend (every mode of Compositing 1, the
compositor's blend maths: shaders/common/blend_modes.h) as combine passes; feTile as a
region pass that repeats its input's subregion across its own.

Primitive subregions (x, y, width, height in either primitiveUnits, defaults as
``reference.subregion`` computes them from the spec) become a region pass after the
primitive's passes that keeps its subregion, rounded out to whole pixels, and clears the
rest (``filters.plan.RegionPass``); it is left out where nothing can lie outside: a
subregion that is the whole image, or a per-pixel join (feComposite but arithmetic,
feMerge, feBlend, colour primitives that keep transparent pixels transparent) of inputs
already inside it. Such a colour primitive is clipped before, on its input, so that it
still fuses with the colour primitives reading it (an 8-bit image between two colour
primitives costs up to 2 levels where alpha is low); a colour primitive reading a result
clipped after its passes starts a pass of its own.

What is exact on images the size of the element's box: the filter region must be the
box (``x=0 y=0 width=1 height=1`` in objectBoundingBox units, or the same in user
space) — a larger region keeps content past the box that offsets and blurs bring back,
which box-sized images do not hold — unless the caller gives the box and sizes the image
as the region (``filters.svg.route``); primitives in linearRGB only as compile_color
allows. Anything else is an UnsupportedFeatureError naming the primitive and why, before
any pass runs.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import UnsupportedFeatureError
from ...blending.modes import BlendMode

from ..ops import BLUR_SIGMA_CAP, DropShadow, Morphology, pixel_sigma
from ..plan import (CombineOperator, CombinePass, ColorPass, FilterPlan, ImageFormat, OffsetPass, RegionPass, ShadowPass,
                    SpacePass, _Builder, _plan_morphology, _plan_shadow, color_steps, image_format)
from . import model as m
from .compile_color import SpacePlanner
from .compile_lighting import plan_lighting
from .compile_linear import HeldFor, plan_float_blur
from .compile_image import plan_image
from .compile_noise import plan_turbulence
from .compile_spatial import plan_spatial, spatial_refusal
from .graph import build_graph
from .lower import SOURCE_ALPHA, SvgColorMatrix
from .reference import (Canvas, Rect, color_matrix, filter_region, node_subregion, srgb_to_linear, subregion,
                        transfer)
from ...css.values import RGBA

__all__ = ["plan_graph", "graph_canvas", "COMPILED"]

COMPILED = (m.ColorMatrix, m.ComponentTransfer, m.GaussianBlur, m.Morphology, m.DropShadow, m.Offset, m.Flood,
            m.Composite, m.Merge, m.Blend, m.Tile, m.Turbulence, m.DisplacementMap, m.ConvolveMatrix,
            m.DiffuseLighting, m.SpecularLighting, m.Image)
PixelRect = tuple[int, int, int, int]  # x0, y0, x1, y1 in whole pixels of the plan's images
# Per-pixel joins whose result is transparent wherever all their inputs are: a result
# inside its inputs' pixels needs no clip when they are inside its subregion.
_KEEPS_CLEAR = (m.Merge, m.Blend)
_COMPOSITE = {m.CompositeOperator.OVER: CombineOperator.OVER, m.CompositeOperator.IN: CombineOperator.IN,
              m.CompositeOperator.OUT: CombineOperator.OUT, m.CompositeOperator.ATOP: CombineOperator.ATOP,
              m.CompositeOperator.XOR: CombineOperator.XOR, m.CompositeOperator.LIGHTER: CombineOperator.LIGHTER,
              m.CompositeOperator.ARITHMETIC: CombineOperator.ARITHMETIC}


def _refuse(prim: m.Primitive | m.FilterElement, why: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(f"{prim.describe()}: {why}; SVG filter graphs compile to GPU passes only "
                                   "from feColorMatrix, "
                                   "feComponentTransfer, feGaussianBlur, feMorphology, feDropShadow, feOffset, "
                                   "feFlood, feComposite, feMerge, feBlend (every mode), feImage, feTile, feTurbulence, feDisplacementMap, "
                                   "feConvolveMatrix, feDiffuseLighting and feSpecularLighting so far (backend='reference' runs "
                                   "any graph)", property="filter", value=prim.describe(),
                                   element=prim.describe())


def graph_canvas(element: m.FilterElement, size: tuple[int, int], scale: float,
                 box: tuple[float, float] | None, origin: tuple[int, int] | None = None) -> Canvas:
    """Where the plan's images lie, as the reference's Canvas: the element's box from
    (0, 0), ``scale`` pixels per user unit, image pixel (0, 0) at the element's pixel
    ``origin`` — given (an image grown for a whole chain, ``filters.svg.route``), or the
    filter region's corner rounded out when ``box`` is given, or the box's (whose region
    must then be the box)."""
    w, h = size
    bw, bh = box if box is not None else (w / scale, h / scale)
    region = filter_region(element, (0.0, 0.0, bw, bh))
    if origin is None:
        origin = (0, 0) if box is None else (math.floor(region[0] * scale + 1e-9), math.floor(region[1] * scale + 1e-9))
    return Canvas((0.0, 0.0, bw, bh), scale, origin, (w, h), region)


def _within(inner: PixelRect, outer: PixelRect) -> bool:
    return (inner[2] <= inner[0] or inner[3] <= inner[1]  # empty
            or (inner[0] >= outer[0] and inner[1] >= outer[1] and inner[2] <= outer[2] and inner[3] <= outer[3]))


def _hull(rects: list[PixelRect]) -> PixelRect:
    rects = [r for r in rects if r[2] > r[0] and r[3] > r[1]]
    if not rects:
        return (0, 0, 0, 0)
    return (min(r[0] for r in rects), min(r[1] for r in rects), max(r[2] for r in rects), max(r[3] for r in rects))


def plan_graph(element: m.FilterElement, size: tuple[int, int], scale: float = 1.0,
               box: tuple[float, float] | None = None, origin: tuple[int, int] | None = None,
               source_reach: tuple[int, int, int, int] | None = None, source_tainted: bool = False) -> FilterPlan:
    """The passes of ``element`` on an image of ``size`` px that is the element's box —
    or, given ``box`` (the element's, CSS px), that is the filter region of that box
    (rounded out to whole pixels; ``filters.svg.route`` sizes it) — or, given ``origin``
    too, whose pixel (0, 0) is the element's pixel ``origin``: an image holding the
    region and more (a chain's other functions grew it), where SourceGraphic is cleared
    outside the region first, as the spec's canvas is only the region (unless
    ``source_reach``, the pixels of the input that may not be transparent, lies inside it).
    ``source_tainted``: the source is a backdrop (``FilterGraph.with_tainted_source``: an
    feDisplacementMap whose map reads it passes its ``in`` through, as Chromium's does)."""
    w, h = size
    graph = build_graph(element)
    if source_tainted:
        graph = graph.with_tainted_source()
    if graph.output is None:
        raise _refuse(element, "no primitives (the element is not drawn)")
    if box is None:
        region = filter_region(element, (0.0, 0.0, w / scale, h / scale))
        if not np.allclose(region, (0.0, 0.0, w / scale, h / scale), rtol=0, atol=1e-9):
            raise _refuse(graph.nodes[graph.output].primitive, "a filter region other than the element's box")
    canvas = graph_canvas(element, size, scale, box, origin)
    bw, bh = canvas.bbox[2], canvas.bbox[3]
    units = (bw, bh) if element.primitive_units is m.Units.BOUNDING_BOX else (1.0, 1.0)
    b = _Builder(w * h)
    notes: list[str] = [f"SVG graph {line.strip()}" for line in graph.explain().splitlines()]  # what became the passes
    names: dict[int, str] = {}
    rects: dict[int, Rect] = {}  # each node's subregion, user units (reference.subregion)
    reach: dict[int, PixelRect] = {}  # where each node's image may be other than transparent
    full: PixelRect = (0, 0, w, h)
    region_px = canvas.pixel_rect(canvas.region)
    source: list[str] = []  # SourceGraphic on the region, once planned (the input itself when the region is all of it)
    alpha: list[str] = []  # SourceAlpha's image, once planned
    spaces = SpacePlanner(b, graph)  # colour primitives, linearRGB (compile_color)

    def source_graphic() -> str:
        if not source:
            inside = _within(source_reach if source_reach is not None else full, region_px)
            source.append("source" if inside else _clip(b, "source", region_px, element))
        return source[0]

    def image(i) -> str:
        if i is m.StandardInput.SOURCE_GRAPHIC:
            return source_graphic()
        if i is m.StandardInput.SOURCE_ALPHA:
            if not alpha:
                alpha.append(_color(b, source_graphic(), SvgColorMatrix(values=tuple(SOURCE_ALPHA.reshape(-1)),
                                                                        source="SourceAlpha")))
            return alpha[0]
        return names[i]

    for node in graph.live_nodes():
        prim = node.primitive
        if not isinstance(prim, COMPILED):
            raise _refuse(prim, "this primitive does not compile to GPU passes yet")
        if node.index in graph.passed_through:
            # Filter Effects 1 §16.4: the map is tainted, so the result is ``in`` as it is
            # (Chromium returns the input's filter, without the primitive's crop); its
            # subregion still sets the defaults of what reads it.
            read = node.inputs[0]
            names[node.index] = image(read)
            reach[node.index] = region_px if isinstance(read, m.StandardInput) else reach[read]
            rects[node.index] = node_subregion(graph, canvas, rects, node.index)
            continue
        linear = element.space_of(prim) is m.ColorSpace.LINEAR_RGB
        converts = linear and not all(i in spaces.black for i in node.inputs)  # linear taps of an image with colour
        why = spaces.refusal(prim) or spatial_refusal(prim, (units[0] * scale, units[1] * scale),
                                                                           converts)
        if why:
            raise _refuse(prim, why)
        rect = subregion(prim, element, canvas, [None if isinstance(i, m.StandardInput) else rects[i]
                                                 for i in node.inputs])
        kept = canvas.pixel_rect(rect)
        ins = [image(i) for i in node.inputs]
        in_reach = [region_px if isinstance(i, m.StandardInput) else reach[i] for i in node.inputs]
        keeps_clear = _colour_keeps_clear(prim)
        if keeps_clear and not _within(in_reach[0], kept) and not _fuses(spaces, node.inputs[0]):
            # Clear what lies outside before the colour work, not after: the colour pass
            # then fuses with colour primitives that read it (no 8-bit image between).
            ins[0] = _clip(b, ins[0], kept, prim)
            in_reach = [kept]
        out = spaces.plan(prim, node.index, node.inputs, ins[0] if ins else None, linear)
        if isinstance(prim, m.Turbulence):  # compile_noise
            x0, y0, x1, y1 = rect
            out = plan_turbulence(b, prim, (x0, y0, x1 - x0, y1 - y0), scale, linear, canvas.origin)
        if isinstance(prim, (m.DiffuseLighting, m.SpecularLighting)):  # compile_lighting
            read = node.inputs[0]  # its edge kernels start at the input's subregion (the spec's "input image")
            lit = region_px if isinstance(read, m.StandardInput) else canvas.pixel_rect(rects[read])
            out = plan_lighting(b, prim, ins[0], canvas, element.primitive_units, linear, None if lit == full else lit,
                                _format_of(b, ins[0]))
        if isinstance(prim, m.Tile):
            read = node.inputs[0]
            tile = region_px if isinstance(read, m.StandardInput) else canvas.pixel_rect(rects[read])
            out = _tile(b, prim, ins[0], tile, kept, full)
            out_reach = kept
        elif isinstance(prim, m.Image):  # compile_image: the pass places the picture in its subregion
            out, out_reach = plan_image(b, prim, element, canvas), kept
        else:
            if isinstance(prim, (m.GaussianBlur, m.DropShadow)) and max(
                    v * u * scale for v, u in zip(prim.std_deviation, units)) > BLUR_SIGMA_CAP:
                notes.append(f"{prim.describe()}: stdDeviation capped at {BLUR_SIGMA_CAP:g}px (WebRender's cap)")
            if out is None:  # compile_spatial's primitives (None: not one of them)
                read = node.inputs[0] if node.inputs else None
                in_rect = full if read is None or isinstance(read, m.StandardInput) else canvas.pixel_rect(rects[read])
                out = plan_spatial(b, prim, ins, (units[0] * scale, units[1] * scale), linear, in_rect, full, converts)
            if out is None:
                # a blur whose readers amplify it keeps its result in floats (compile_linear)
                held = spaces.held_for(node.index) if isinstance(prim, m.GaussianBlur) and kept == full \
                    else HeldFor.NOTHING
                out = _plan_primitive(b, prim, ins, units, scale, notes, linear, converts, held)
                if held is HeldFor.COLOUR and isinstance(b.passes[-1], SpacePass) and b.passes[-1].output == out:
                    spaces.color_passes[node.index] = len(b.passes) - 1  # its colour reader joins the pass back
            clear = keeps_clear or isinstance(prim, _KEEPS_CLEAR) or (
                isinstance(prim, m.Composite) and prim.operator is not m.CompositeOperator.ARITHMETIC)
            out_reach = _hull(in_reach) if clear else full
        spaces.planned(prim, node.index, node.inputs, linear)
        if not _within(out_reach, kept):
            out, out_reach = _clip(b, out, kept, prim), kept
            spaces.color_passes.pop(node.index, None)  # a colour primitive reading it runs after the clip
        names[node.index], rects[node.index], reach[node.index] = out, rect, out_reach
    return FilterPlan(tuple(b.passes), names[graph.output], (0, 0, 0, 0), tuple(notes))


def _format_of(b: _Builder, image: str) -> ImageFormat:
    """How the pass that wrote ``image`` holds it (the source: 8-bit)."""
    return next((image_format(p) for p in reversed(b.passes) if p.output == image), ImageFormat.RGBA8)


def _clip(b: _Builder, image: str, kept: PixelRect, prim: m.Primitive | m.FilterElement) -> str:
    """``image`` transparent outside ``kept``: a region pass."""
    out = b.name("region")
    b.passes.append(RegionPass((image,), out, kept, None, prim.describe()))
    return out


def _colour_keeps_clear(prim: m.Primitive) -> bool:
    """A colour primitive that leaves transparent pixels transparent (alpha from 0 is 0):
    clipping its input is clipping its result."""
    if isinstance(prim, m.ColorMatrix):
        return float(color_matrix(prim)[3, 4]) <= 0.0
    if isinstance(prim, m.ComponentTransfer):
        return float(transfer(prim.alpha, np.zeros(1))[0]) <= 0.0
    return False


def _fuses(spaces: SpacePlanner, source) -> bool:
    """Does a colour primitive reading ``source`` join the colour pass that wrote it?"""
    return isinstance(source, int) and source in spaces.color_passes and spaces.uses.get(source) == 1


def _tile(b: _Builder, prim: m.Tile, source: str, tile: PixelRect, kept: PixelRect, full: PixelRect) -> str:
    """feTile: the input's subregion ``tile`` repeated across ``kept`` (nothing to do when
    both are the whole image)."""
    if tile == full and kept == full:
        return source
    out = b.name("tile")
    b.passes.append(RegionPass((source,), out, kept, tile, prim.describe()))
    return out


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


def _sigmas(pair: tuple[float, float], pixels_per_unit: tuple[float, float]) -> tuple[float, float]:
    """A stdDeviation pair (x, y) in pixels, each capped at BLUR_SIGMA_CAP (as the
    reference and compile_spatial cap it; plan_graph notes it)."""
    return (min(pair[0] * pixels_per_unit[0], BLUR_SIGMA_CAP), min(pair[1] * pixels_per_unit[1], BLUR_SIGMA_CAP))


def _linear_shadow(b: _Builder, prim: m.DropShadow, source: str, sigmas: tuple[float, float],
                   offset: tuple[float, float]) -> str:
    """feDropShadow in linearRGB: the spec's graph (alpha blurred and moved, the flood
    colour in it, ``source`` merged over) as the blur passes (alpha alone is read: the same
    in either space) and one shadow pass merging in linear light, the flood colour linear."""
    blurred = b.blur_axes(source, sigmas) if max(sigmas) > 0 else source
    c = prim.flood_color
    a = c.a * prim.flood_opacity
    r, g, bl = (float(v) * a for v in srgb_to_linear(np.array([c.r, c.g, c.b], np.float64)))
    out = b.name("shadow")
    b.passes.append(ShadowPass((source, blurred), out, offset, (r, g, bl, a), linear=True))
    return out


def _plan_primitive(b: _Builder, prim: m.Primitive, ins: list[str], units: tuple[float, float], scale: float,
                    notes: list[str], linear: bool = False, converts: bool = False,
                    held: HeldFor = HeldFor.NOTHING) -> str:
    """The passes of ``prim``; ``linear``: in linearRGB; ``converts``: on an image with colour too;
    ``held``: why a blur's result stays in floats (compile_linear)."""
    ux, uy = units[0] * scale, units[1] * scale  # markup units -> pixels
    # (feColorMatrix and feComponentTransfer never reach here: compile_color plans them.)
    if isinstance(prim, m.GaussianBlur):
        # each axis as CSS blur() plans it: none under MIN_SIGMA (a tiny sigma's weights overflow)
        sigmas = tuple(pixel_sigma(s, 1.0) for s in _sigmas(prim.std_deviation, (ux, uy)))
        if max(sigmas) <= 0:
            return ins[0]
        if converts or held is not HeldFor.NOTHING:
            return plan_float_blur(b, ins[0], sigmas, prim.tag, converts, held)
        return b.blur_axes(ins[0], sigmas)
    if isinstance(prim, m.Morphology):
        if prim.radius[0] <= 0 or prim.radius[1] <= 0:
            return ins[0]  # a zero radius disables it: the result is the input
        op = Morphology(prim.operator.value, prim.radius[0] * ux, prim.radius[1] * uy)
        return _plan_morphology(b, op, ins[0], 1.0, notes, linear=converts)
    if isinstance(prim, m.DropShadow) and linear:
        return _linear_shadow(b, prim, ins[0], _sigmas(prim.std_deviation, (ux, uy)), (prim.dx * ux, prim.dy * uy))
    if isinstance(prim, m.DropShadow):
        sigmas = _sigmas(prim.std_deviation, (ux, uy))
        c = prim.flood_color
        op = DropShadow(prim.dx * ux, prim.dy * uy, sigmas[0], RGBA(c.r, c.g, c.b, c.a * prim.flood_opacity))
        if sigmas[0] == sigmas[1]:
            return _plan_shadow(b, op, ins[0], 1.0, notes)
        blurred = b.blur_axes(ins[0], sigmas)  # per-axis stdDeviation: the shadow pass of _plan_shadow
        out = b.name("shadow")
        b.passes.append(ShadowPass((ins[0], blurred), out, op.pixel_offset(1.0), op.color.premultiplied()))
        return out
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
