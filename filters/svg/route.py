"""``url(#id)`` inside a filter chain that a layer plans (``filter`` or
``backdrop-filter``): which GPU route each SVG filter takes, or why none does yet.

A chain is planned where no scene is at hand (``FilterChain.plan``), so the scene's SVG
markup is put in force around planning (``svg_document``, entered by the frame planner);
an unresolved ``url(#id)`` is resolved against it. Then, for each ``url(#id)``:

* a filter that lowers (``filters.svg.lower``) to colour work only, before any spatial
  op of the chain, becomes those colour ops: they fuse with the CSS functions around it
  and are exact anywhere (the filter region, holding the box, clips nothing a colour op
  can make visible: transparent pixels stay transparent);
* a filter that is the whole chain compiles as its own passes (``filters.svg.compile``);
  on a layer, whose box is known, they run on the filter region (filterUnits, x, y,
  width, height) around the box, rounded out to pixels: the plan's outsets grow the
  layer's bounds by it, and the plan is marked ``region`` so the surface is exactly
  that; a region that does not hold the box (inside it, or a userSpaceOnUse rect
  cutting it) clips the result, planned as a graph in a mixed chain is (below), on the
  box grown by any part of the region past it. ``filters.apply`` plans a lone url() the
  same way with the image as the box, pads the image by the outsets and cuts the result
  back to it;
* a spatial SVG filter mixed with CSS functions (or with other SVG filters) cuts the
  chain into runs of functions and graphs planned on one image (``_chain_plan``): each
  graph runs on its filter region of the element's box, reading the chain's image so far
  cleared outside it; on a layer the image is the box grown to hold every stage (the
  functions' outsets and each region), marked ``region``; in ``filters.apply`` the image
  is the input's size unless a region reaches past it: then it holds every region
  (marked ``region``, the outsets padding the input) and each stage's result is cut to
  the input, as the reference runs each function and graph on the input alone (a
  drop-shadow() there is refused: its blur past the input would be offset into it);
* a ``backdrop-filter`` plans the same way on its element's box: the read-back holds the
  plan's image (the box grown by the region, or by the mixed chain's hull), the backdrop
  mirrored past the box's edges, and the result is clipped to the box. That is what
  Chromium 156 draws (measured with tests/chromium/compare.py: feOffset (4,3) under the
  default region over 2 px stripes shows the mirrored stripes shifted in at the box's
  edge); Chromium crops the backdrop input with a mirror tile mode, so a mixed chain's
  functions read the mirror without end: the image grows by their reach for that. The
  backdrop taints each graph (Filter Effects 1 §16.3): an feDisplacementMap whose map
  reads it passes its input through, as Chromium 156's does (``FilterGraph.with_tainted_source``).
"""

from __future__ import annotations

import math

import numpy as np
from contextlib import contextmanager
from dataclasses import replace
from contextvars import ContextVar
from typing import Iterator

from ...errors import UnsupportedFeatureError

from ...css.values import RGBA

from ..ops import ColorOp, DropShadow, FilterOp
from ..plan import FilterPlan, RegionPass, plan_chain
from . import model as m
from .compile import plan_graph
from .graph import build_graph
from .lower import lower_filter
from .op import SvgFilterRef
from .reference import filter_region

__all__ = ["svg_document", "document_in_force", "route_svg"]

BLACK = RGBA(0.0, 0.0, 0.0, 1.0)
_DOCUMENT: ContextVar[m.SvgDocument | None] = ContextVar("lamina_svg_document", default=None)


@contextmanager
def svg_document(document: m.SvgDocument | None) -> Iterator[None]:
    """Plan with ``document``'s filters resolving ``url(#id)`` (a scene's SVG)."""
    token = _DOCUMENT.set(document)
    try:
        yield
    finally:
        _DOCUMENT.reset(token)


def document_in_force() -> m.SvgDocument | None:
    return _DOCUMENT.get()


def _resolved(op: SvgFilterRef) -> SvgFilterRef:
    if op.element is not None:
        return op
    document = _DOCUMENT.get()
    if document is None:
        raise op.plan_error()
    return op.resolved_svg(document)  # SvgFilterError for an id it lacks


def _box(element: m.FilterElement, size: tuple[int, int] | None, scale: float) -> tuple[float, float]:
    """The element box in CSS px: the input's size when known; otherwise (a plan asked
    only for its reach) one whose filter region the graph route accepts, as a box-sized
    region is size-free in objectBoundingBox units."""
    if size is not None:
        return size[0] / scale, size[1] / scale
    if element.filter_units is m.Units.BOUNDING_BOX:
        return 64.0, 64.0
    _, _, x1, y1 = filter_region(element, (0.0, 0.0, 64.0, 64.0))
    return max(1.0, x1), max(1.0, y1)


def _holds_box(element: m.FilterElement, box: tuple[float, float], scale: float) -> bool:
    """Whether ``element``'s filter region around ``box`` holds the whole box (to the pixel)."""
    bw, bh = box
    x0, y0, x1, y1 = filter_region(element, (0.0, 0.0, bw, bh))
    return min(-y0 * scale, (x1 - bw) * scale, (y1 - bh) * scale, -x0 * scale) >= -1e-9


def _region_plan(element: m.FilterElement, box: tuple[float, float], size: tuple[int, int] | None,
                 scale: float, backdrop: bool = False) -> FilterPlan:
    """The graph run on its filter region around ``box``, a region that holds the box:
    the outsets are the region's past the box, rounded out to whole pixels; on a
    ``backdrop``, which taints the graph (``compile.plan_graph``'s ``source_tainted``).
    (A region that cuts the box runs as ``_chain_plan`` runs a graph: on the box grown by
    the part of the region past it, the input cleared outside the region.)"""
    bw, bh = box
    x0, y0, x1, y1 = filter_region(element, (0.0, 0.0, bw, bh))
    past = (-y0 * scale, (x1 - bw) * scale, (y1 - bh) * scale, -x0 * scale)  # top, right, bottom, left
    top, right, bottom, left = (max(0, math.ceil(v - 1e-6)) for v in past)
    if size is None:
        size = (math.ceil(bw * scale - 1e-6) + left + right, math.ceil(bh * scale - 1e-6) + top + bottom)
    plan = plan_graph(element, size, scale, box=box, source_tainted=backdrop)
    return replace(plan, outsets=(top, right, bottom, left), region=True,
                   notes=(*plan.notes, f"the filter region grows the input by {top}/{right}/{bottom}/{left} px"))


def route_svg(ops: tuple[FilterOp, ...], *, size: tuple[int, int] | None, scale: float,
              box: tuple[float, float] | None = None, current_color: RGBA = BLACK, backdrop: bool = False,
              device_scale: float = 1.0):
    """``ops`` with each ``url(#id)`` replaced by the colour ops it lowers to, or the
    FilterPlan of a chain with an SVG filter that does not (on its filter region when
    ``box``, the element's, is given: a layer's filter); UnsupportedFeatureError when
    that cannot be exact (``backdrop``: a backdrop-filter's chain, see ``_backdrop_refusal``).
    ``device_scale``: device px per CSS px of ``box`` and of the CSS lengths; SVG user
    units are CSS px, so graphs run at ``scale * device_scale`` pixels per user unit."""
    css_scale = scale
    scale = scale * device_scale  # pixels per SVG user unit
    if box is not None:
        box = (box[0] / device_scale, box[1] / device_scale)  # the box in user units
    out: list[FilterOp] = []
    spatial_before = False
    for op in ops:
        if not isinstance(op, SvgFilterRef):
            spatial_before |= not isinstance(op, ColorOp)
            out.append(op)
            continue
        op = _resolved(op)
        element_box = box if box is not None and len(ops) == 1 else _box(op.element, size, scale)
        lowered = _lowered(op.element, element_box)
        if lowered is not None and not spatial_before:
            out.extend(lowered)
            continue
        if backdrop and box is None:
            _backdrop_refusal(op, ops, size, scale)
        if len(ops) == 1 and box is None and not backdrop:
            # No element's box (the chain planned alone: FilterChain.plan(), or with the
            # input's size): the input is the element, as filters.apply takes an image.
            box = element_box
        if len(ops) == 1 and box is not None:
            if _holds_box(op.element, box, scale):
                return _region_plan(op.element, box, size, scale, backdrop)
            # A region inside the box, or one cutting it, clips the result: planned as a
            # graph in a chain is, on the box (grown by any part of the region past it).
            return _chain_plan((op,), box=box, size=size, scale=scale, current_color=current_color,
                               css_scale=css_scale, backdrop=backdrop)
        if len(ops) == 1:
            px = size if size is not None else (max(1, round(element_box[0] * scale)), max(1, round(element_box[1] * scale)))
            return plan_graph(op.element, px, scale, source_tainted=backdrop)
        if box is None and size is None:
            raise UnsupportedFeatureError(
                f"{op.css()} mixed with other filter functions where the element's box is not known (the filter of an "
                "element with a backdrop-filter, which acts on its backdrop and content together): not planned yet; "
                "a layer's filter is", property="filter", value=op.css(), element=op.element.describe())
        return _chain_plan(ops, box=box, size=size, scale=scale, current_color=current_color, css_scale=css_scale,
                           backdrop=backdrop)
    return tuple(out)


def _backdrop_refusal(op: SvgFilterRef, ops: tuple[FilterOp, ...], size: tuple[int, int] | None,
                      scale: float) -> None:
    """Raise for a backdrop-filter SVG graph planned without the element's box (a
    layer's read-back passes it, ``engine.graph.reads.backdrop_region``): one mixed with
    other functions, or one whose filter region is not the element's box, needs the box
    to place its region. The region being the box is exact without it."""
    if len(ops) > 1:
        raise UnsupportedFeatureError(
            f"backdrop-filter: {op.css()} ({op.element.describe()}) mixed with other filter functions, planned without "
            "the element's box: each graph's filter region is placed on the box", property="backdrop-filter",
            value=op.css(), element=op.element.describe())
    bw, bh = _box(op.element, size, scale)
    if not np.allclose(filter_region(op.element, (0.0, 0.0, bw, bh)), (0.0, 0.0, bw, bh), rtol=0, atol=1e-9):
        raise UnsupportedFeatureError(
            f"backdrop-filter: {op.css()}: its filter region is not the element's box (the default is -10%/-10%/120%/"
            "120%), planned without the element's box to place it on", property="backdrop-filter", value=op.css(),
            element=op.element.describe())


def _lowered(element: m.FilterElement, box: tuple[float, float]) -> tuple[FilterOp, ...] | None:
    """The colour ops ``element`` lowers to (None: it has spatial work, or does not lower)."""
    try:
        lowered = lower_filter(element, box)
    except UnsupportedFeatureError:
        return None
    if lowered is None or not all(isinstance(o, ColorOp) for o in lowered):
        return None
    return tuple(lowered)


Segment = tuple[FilterOp, ...] | m.FilterElement  # CSS ops planned together, or one SVG filter's graph


def _segments(ops: tuple[FilterOp, ...], box: tuple[float, float]) -> list[Segment]:
    """The chain cut into runs of CSS functions (with the SVG filters that lower to colour
    ops before any spatial work) and SVG filters run as graphs."""
    segments: list[Segment] = []
    pending: list[FilterOp] = []
    spatial_before = False
    for op in ops:
        if isinstance(op, SvgFilterRef):
            op = _resolved(op)
            lowered = _lowered(op.element, box)
            if lowered is not None and not spatial_before:
                pending.extend(lowered)
                continue
            if pending:
                segments.append(tuple(pending))
                pending = []
            segments.append(op.element)
            spatial_before = True
            continue
        spatial_before |= not isinstance(op, ColorOp)
        pending.append(op)
    if pending:
        segments.append(tuple(pending))
    return segments


PixelRect = tuple[int, int, int, int]


def _region_pixels(element: m.FilterElement, box: tuple[float, float], scale: float) -> PixelRect:
    x0, y0, x1, y1 = filter_region(element, (0.0, 0.0, box[0], box[1]))
    return (math.floor(x0 * scale + 1e-9), math.floor(y0 * scale + 1e-9), math.ceil(x1 * scale - 1e-9),
            math.ceil(y1 * scale - 1e-9))


def _reach(plan: FilterPlan) -> tuple[int, int, int, int]:
    """How far (top, right, bottom, left, whole px) a function chain's output spreads or
    its input is read past an output pixel, whichever is further on each side: a
    drop-shadow moved right and down spreads there but reads left and up, and a backdrop's
    image must hold the mirrored backdrop it reads."""
    x0, y0, x1, y1 = plan.needed_input((0.0, 0.0, 0.0, 0.0))
    read = (math.ceil(-y0), math.ceil(x1), math.ceil(y1), math.ceil(-x0))
    return tuple(max(a, b, 0) for a, b in zip(plan.outsets, read))


def _chain_plan(ops: tuple[FilterOp, ...], *, box: tuple[float, float] | None, size: tuple[int, int] | None,
                scale: float, current_color: RGBA, css_scale: float | None = None, backdrop: bool = False) -> FilterPlan:
    """A chain mixing SVG filter graphs with CSS functions, as one plan on one image
    size. Each SVG filter runs on its own filter region (of the element's box, whatever
    the functions before did to the image: Filter Effects 1 computes the region from the
    element), reading the chain's image so far as SourceGraphic, cleared outside the
    region; CSS functions run on the image as it stands. On a layer (``box`` given) the
    image is the box grown to hold every stage's reach: the functions' outsets and each
    region (the plan is marked ``region``: the surface is exactly that). Without a box
    (``filters.apply``) the image is the input, or, when a region reaches past it, the
    hull of the input and the regions (marked ``region``, its outsets padding the input),
    each stage's result cut to the input (``cut``): each CSS function that is not a colour
    one is then a stage of its own.
    ``scale`` is pixels per SVG user unit (``box``'s unit); ``css_scale`` (default
    ``scale``) pixels per unit of the CSS functions' lengths.
    ``backdrop``: the input is the backdrop mirrored past the box without end (Chromium
    crops a backdrop-filter's input with a mirror tile mode), so the image grows further
    by every function's reach: a function's output anywhere in the hull then reads the
    mirrored backdrop past it, not a transparent edge (graphs clear past their region);
    functions after a graph read its output mirrored at the box, as Chromium's do
    (measured: url(#id) blur(2px) over stripes, 34 levels at the box's edge from
    Chromium against 110 reading the graph's output past the box)."""
    css_scale = scale if css_scale is None else css_scale
    grow = box is not None
    if box is None:
        element = next(op for op in ops if isinstance(op, SvgFilterRef))
        box = _box(_resolved(element).element, size, scale)
    bw, bh = box
    box_px: PixelRect = (0, 0, max(1, math.ceil(bw * scale - 1e-6)), max(1, math.ceil(bh * scale - 1e-6)))
    if size is not None and not grow:
        box_px = (0, 0, size[0], size[1])
    segments = _segments(ops, box)
    extent, hull = box_px, box_px
    regions = box_px  # the image and every graph's filter region (filters.apply's image)
    for segment in segments:
        if isinstance(segment, m.FilterElement):
            extent = _region_pixels(segment, box, scale)
            regions = _union(regions, extent)
        else:
            t, r, b, l = plan_chain(segment, current_color=current_color, scale=css_scale).outsets
            extent = (extent[0] - l, extent[1] - t, extent[2] + r, extent[3] + b)
        hull = _union(hull, extent)
    cut = not grow and regions != box_px  # each stage cut to the image, on an image holding the regions
    if not grow:
        hull = regions
        if cut:
            _drop_shadow_refusal(segments, box, scale)
            segments = _one_spatial_op_each(segments)
    elif backdrop:
        reach_all = [0, 0, 0, 0]  # top, right, bottom, left: the functions' reaches summed
        for segment in segments:
            if not isinstance(segment, m.FilterElement):
                reach_all = [a + b for a, b in zip(reach_all, _reach(plan_chain(segment, current_color=current_color,
                                                                                 scale=css_scale)))]
        t, r, b, l = reach_all
        hull = (hull[0] - l, hull[1] - t, hull[2] + r, hull[3] + b)
    if size is None or cut:
        size = (hull[2] - hull[0], hull[3] - hull[1])
    origin = (hull[0], hull[1])
    box_img = (box_px[0] - origin[0], box_px[1] - origin[1], box_px[2] - origin[0], box_px[3] - origin[1])
    passes: list = []
    notes: list[str] = []
    current = "source"
    reach = (box_px[0] - origin[0], box_px[1] - origin[1], box_px[2] - origin[0], box_px[3] - origin[1])  # image px
    if backdrop:
        reach = (0, 0, size[0], size[1])  # the mirrored backdrop fills the whole image
    for k, segment in enumerate(segments, 1):
        if isinstance(segment, m.FilterElement):
            plan = plan_graph(segment, size, scale, box=box, origin=origin, source_reach=reach, source_tainted=backdrop)
            x0, y0, x1, y1 = _region_pixels(segment, box, scale)
            reach = (x0 - origin[0], y0 - origin[1], x1 - origin[0], y1 - origin[1])
            notes.append(f"{segment.describe()} runs on its filter region: pixels {_region_pixels(segment, box, scale)} "
                         "of the element")
        else:
            plan = plan_chain(segment, current_color=current_color, scale=css_scale, size=size)
            t, r, b, l = plan.outsets
            reach = (reach[0] - l, reach[1] - t, reach[2] + r, reach[3] + b)
            if backdrop and k > 1:
                # Chromium's functions tile their input by the backdrop's mirror mode at the
                # box (the crop of a backdrop-filter): a graph's output past the box is not read.
                passes.append(RegionPass((current,), f"mirror.{k}", (0, 0, size[0], size[1]), box_img,
                                         "the box, mirrored", mirror=True))
                current = f"mirror.{k}"
                notes.append("the functions after a graph read its output mirrored at the box (as Chromium does)")
        names = {"source": current}
        for p in plan.passes:
            names[p.output] = f"{p.output}.{k}"  # each segment's images apart from the others'
            passes.append(replace(p, inputs=tuple(names[i] for i in p.inputs), output=names[p.output]))
        current = names[plan.output]
        notes.extend(plan.notes)
        if cut and not _within(reach, box_img):
            # filters.apply: the reference runs each function and graph on the image and
            # keeps only the image of its result.
            passes.append(RegionPass((current,), f"image.{k}", box_img, None, "the image"))
            current, reach = f"image.{k}", box_img
    outsets = (-hull[1], hull[2] - box_px[2], hull[3] - box_px[3], -hull[0])
    if grow:
        notes.append("the chain's stages grow the input by {}/{}/{}/{} px".format(*outsets))
    elif cut:
        notes.append("filter regions reach past the image by {}/{}/{}/{} px: each stage is cut to the image".format(
            *outsets))
    return FilterPlan(tuple(passes), current, outsets if grow or cut else (0, 0, 0, 0), tuple(notes),
                      region=grow or cut)


def _drop_shadow_refusal(segments: list[Segment], box: tuple[float, float], scale: float) -> None:
    """Raise for drop-shadow() in filters.apply's chain whose SVG filter regions reach past
    the image: the image then holds more than the input, and the shadow's blur past the
    image would be offset into it, where filters.apply's reference (each function on the
    image alone) has nothing. On a layer it runs."""
    shadow = next((op for s in segments if not isinstance(s, m.FilterElement) for op in s
                   if isinstance(op, DropShadow)), None)
    if shadow is None:
        return
    wide = next(s for s in segments if isinstance(s, m.FilterElement)
                and not _within(_region_pixels(s, box, scale), (0, 0, math.ceil(box[0] * scale - 1e-6),
                                                                math.ceil(box[1] * scale - 1e-6))))
    raise UnsupportedFeatureError(
        f"{shadow.css()} with {wide.describe()}, whose filter region reaches past the image, in filters.apply: not "
        "planned yet (the graph runs on an image holding its region, and the shadow's blur past the input would "
        "be offset into it); on a layer it runs", property="filter", value=shadow.css(), element=wide.describe())


def _union(a: PixelRect, b: PixelRect) -> PixelRect:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _within(inner: PixelRect, outer: PixelRect) -> bool:
    return inner[0] >= outer[0] and inner[1] >= outer[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def _one_spatial_op_each(segments: list[Segment]) -> list[Segment]:
    """The CSS runs cut after each spatial function (colour ones stay with it), so each
    stage's result can be cut to the image before the next spatial one reads it."""
    out: list[Segment] = []
    for segment in segments:
        if isinstance(segment, m.FilterElement):
            out.append(segment)
            continue
        run: list[FilterOp] = []
        for op in segment:
            if not isinstance(op, ColorOp) and any(not isinstance(o, ColorOp) for o in run):
                out.append(tuple(run))
                run = []
            run.append(op)
        out.append(tuple(run))
    return out
