"""The decision stage for stacking contexts: how each one is drawn (a ``ContextRoute``),
decided from its style and its subtree alone — no geometry, no cache, no GPU — before
any of its passes is emitted. graph.effects emits the passes of the route it is handed.

CSS applies an element's effects in one order (Filter Effects 1 §4, Compositing 1 §3):
backdrop-filter, filter, clip and mask, opacity, then blending. The first effect the
context has decides its route; what comes after it in that order is applied to that
route's result by its emitter. Where an effect does nothing at the place it lands (a
filter whose plan has no passes, a backdrop-filter whose box reads nothing), its
emitter declines it and the next route is decided without it (``declined``).

The surfaces a route needs follow cc's render-surface rules: opacity over two or more
drawing layers is flattened then faded, over one it goes into that layer's draw (viz's
single-quad bypass); an isolated group with a blending descendant and a backdrop root
with a backdrop-filtered one are surfaces of their own; a blended element with
descendants is flattened, then blended.
"""

from __future__ import annotations

from typing import Callable

from ..blending import BlendMode
from ..compositor.groups import has_backdrop_readers, has_blend_readers, is_backdrop_root, is_isolated_group
from ..compositor.mask_paint import has_mask
from ..compositor.tree import LayerNode, StackingContext
from ..errors import UnsupportedFeatureError
from ..framegraph import ContextRoute, Route, SurfaceReason

__all__ = ["route_context", "group_reason"]


def group_reason(ctx: StackingContext) -> SurfaceReason | None:
    """Why the context must be a surface of its own for what reads inside it."""
    if ctx.node.layer.parent is None:
        return None  # the page: the frame holds it
    if is_isolated_group(ctx.node) and has_blend_readers(ctx):
        return SurfaceReason.ISOLATION
    if is_backdrop_root(ctx.node) and has_backdrop_readers(ctx):
        return SurfaceReason.BACKDROP_ROOT
    return None


def route_context(ctx: StackingContext, *, as_one_draw: bool, backdrop_root: bool, tiled: Callable[[LayerNode], bool],
                  declined: frozenset[Route] = frozenset()) -> ContextRoute:
    """How ``ctx`` (opacity > 0) is drawn into its target. ``as_one_draw``: it must end
    as one draw (it blends with its backdrop); ``backdrop_root``: the target is a
    backdrop root (a backdrop-filter may read it); ``tiled``: is a layer too large for one
    texture; ``declined``: routes whose effect turned out to do nothing here."""
    node = ctx.node
    s = node.style
    if s.backdrop_filter is not None and Route.BACKDROP_FILTER not in declined:
        _check_backdrop_filter(node, backdrop_root)
        return ContextRoute(node.id, Route.BACKDROP_FILTER, SurfaceReason.BACKDROP_FILTER)
    if s.filter is not None and Route.FILTER not in declined:
        return ContextRoute(node.id, Route.FILTER, SurfaceReason.FILTER)
    drawing = ctx.drawing_nodes()
    group = group_reason(ctx)
    if has_mask(node.style) and drawing and Route.MASK not in declined:
        alone = len(drawing) == 1 and drawing[0] is node and group is None and not tiled(node)
        return ContextRoute(node.id, Route.MASK, None if alone else SurfaceReason.MASK)
    own_opacity = s.opacity
    if own_opacity < 1.0 and len(drawing) >= 2:
        return ContextRoute(node.id, Route.GROUP_SURFACE, SurfaceReason.OPACITY_GROUP,
                            f"layer {node.id!r} opacity {own_opacity:g} over {len(drawing)} drawing layers: flatten, then fade")
    if group is not None or (as_one_draw and (len(drawing) != 1 or drawing[0] is not node)):
        reason = group or SurfaceReason.BLEND
        detail = {
            SurfaceReason.ISOLATION: f"layer {node.id!r} is an isolated group that a descendant blends with",
            SurfaceReason.BACKDROP_ROOT: f"layer {node.id!r} is the backdrop root a descendant's backdrop-filter reads",
            SurfaceReason.BLEND: f"layer {node.id!r} mix-blend-mode {s.mix_blend_mode}: "
                                 f"{len(drawing)} drawing layers flattened, then blended",
        }[reason]
        if own_opacity < 1.0:
            detail += f", then faded (opacity {own_opacity:g})"
        return ContextRoute(node.id, Route.GROUP_SURFACE, reason, detail)
    if as_one_draw:
        return ContextRoute(node.id, Route.ONE_DRAW)
    into = drawing[0].id if own_opacity < 1.0 and drawing else None
    return ContextRoute(node.id, Route.IN_TARGET, opacity_into=into)


def _check_backdrop_filter(node: LayerNode, backdrop_root: bool) -> None:
    """Refuse the backdrop-filters whose stacking with other effects is not planned yet."""
    s = node.style
    for other, value in (("filter", s.filter), ("mix-blend-mode", s.mix_blend_mode is not BlendMode.NORMAL),
                         ("a mask-image or a polygon clip-path", has_mask(node.style))):
        if value:
            raise UnsupportedFeatureError(f"backdrop-filter together with {other} on one element is not supported yet",
                                          property="backdrop-filter", layer=node.id)
    if not backdrop_root:
        raise UnsupportedFeatureError(
            "a backdrop-filter inside an isolated group that is not a backdrop root (a transformed or z-index "
            "container that a blending element also needs) is not supported yet", property="backdrop-filter",
            layer=node.id)
