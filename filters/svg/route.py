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
  that (elsewhere the region must be the box);
* anything else (a spatial SVG filter mixed with CSS functions, whose filter region
  would have to clip a surface grown for the others) is an UnsupportedFeatureError naming
  the filter and its first primitive, before any pass runs.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import replace
from contextvars import ContextVar
from typing import Iterator

from ...errors import UnsupportedFeatureError

from ..ops import ColorOp, FilterOp
from ..plan import FilterPlan
from . import model as m
from .compile import plan_graph
from .graph import build_graph
from .lower import lower_filter
from .op import SvgFilterRef
from .reference import filter_region

__all__ = ["svg_document", "document_in_force", "route_svg"]

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


def _first_primitive(op: SvgFilterRef) -> str:
    graph = build_graph(op.element)
    live = graph.live_nodes()
    return live[0].primitive.describe() if live else op.element.describe()


def _region_plan(element: m.FilterElement, box: tuple[float, float], size: tuple[int, int] | None,
                 scale: float) -> FilterPlan:
    """The graph run on its filter region around ``box``: the outsets are the region's
    past the box, rounded out to whole pixels (the region must hold the box)."""
    bw, bh = box
    x0, y0, x1, y1 = filter_region(element, (0.0, 0.0, bw, bh))
    past = (-y0 * scale, (x1 - bw) * scale, (y1 - bh) * scale, -x0 * scale)  # top, right, bottom, left
    if min(past) < -1e-9:
        first = build_graph(element).live_nodes()
        prim = first[0].primitive if first else element
        raise UnsupportedFeatureError(f"{prim.describe()}: a filter region that does not hold the element's box "
                                      "(in a layer, the region grows the bounds; clipping inside the box is not "
                                      "planned yet)", property="filter", value=prim.describe())
    top, right, bottom, left = (max(0, math.ceil(v - 1e-6)) for v in past)
    if size is None:
        size = (math.ceil(bw * scale - 1e-6) + left + right, math.ceil(bh * scale - 1e-6) + top + bottom)
    plan = plan_graph(element, size, scale, box=box)
    return replace(plan, outsets=(top, right, bottom, left), region=True,
                   notes=(*plan.notes, f"the filter region grows the input by {top}/{right}/{bottom}/{left} px"))


def route_svg(ops: tuple[FilterOp, ...], *, size: tuple[int, int] | None, scale: float,
              box: tuple[float, float] | None = None):
    """``ops`` with each ``url(#id)`` replaced by the colour ops it lowers to, or the
    FilterPlan of a chain that is one SVG filter (on its filter region when ``box``, the
    element's, is given: a layer's filter); UnsupportedFeatureError otherwise."""
    out: list[FilterOp] = []
    spatial_before = False
    for op in ops:
        if not isinstance(op, SvgFilterRef):
            spatial_before |= not isinstance(op, ColorOp)
            out.append(op)
            continue
        op = _resolved(op)
        element_box = box if box is not None and len(ops) == 1 else _box(op.element, size, scale)
        try:
            lowered = lower_filter(op.element, element_box)
        except UnsupportedFeatureError:
            lowered = None
        if lowered is not None and all(isinstance(o, ColorOp) for o in lowered) and not spatial_before:
            out.extend(lowered)
            continue
        if len(ops) == 1 and box is not None:
            return _region_plan(op.element, box, size, scale)
        if len(ops) == 1:
            px = size if size is not None else (max(1, round(element_box[0] * scale)), max(1, round(element_box[1] * scale)))
            return plan_graph(op.element, px, scale)
        raise UnsupportedFeatureError(
            f"{op.css()} ({_first_primitive(op)}) mixed with other filter functions: an SVG filter with spatial "
            "primitives (or after a spatial function) compiles in a layer only as the whole filter value so far "
            "(its filter region would have to clip a surface grown for the others)", property="filter",
            value=op.css())
    return tuple(out)
