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

from ..compositor.groups import has_backdrop_readers, has_blend_readers, is_backdrop_root, is_isolated_group
from ..compositor.mask_paint import has_mask
from ..compositor.tree import LayerNode, StackingContext, extends_3d
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
        return _backdrop_route(ctx, as_one_draw=as_one_draw, backdrop_root=backdrop_root)
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
    if node.context3d is not None and not extends_3d(node) and (len(drawing) >= 2 or (drawing and drawing[0] is not node)):
        # cc's 3D flattening: its subtree is drawn into its plane (a surface), and that
        # plane is what its 3D rendering context sorts and splits (graph.contexts3d).
        detail = (f"layer {node.id!r} is a flat member of the 3D rendering context of {node.context3d!r} with "
                  f"{len(drawing)} drawing layers: flattened into its plane, then sorted as one")
        if own_opacity < 1.0:
            detail += f" and faded (opacity {own_opacity:g})"
        return ContextRoute(node.id, Route.GROUP_SURFACE, SurfaceReason.FLATTENING_3D, detail)
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


def _backdrop_route(ctx: StackingContext, *, as_one_draw: bool, backdrop_root: bool) -> ContextRoute:
    """A backdrop-filter (Filter Effects 2 §2.1): the backdrop root image under the border
    box, filtered and clipped to it (radii included), then the element drawn over it
    (T', step 5) — blended with it where the element has a mix-blend-mode; the element's
    filter, polygon clip-path and mask, and opacity then act on T' — both together — in
    CSS order (step 6), which is what ``applies`` lists; T' is composited source-over
    (step 7). Where the target is an isolated group that is not a backdrop root (isolation,
    a z-index or transformed container that a blending descendant makes a surface),
    the backdrop is read from that group's surface, as Chromium reads it (cc reads the
    render pass the element draws into): the page under the group does not show."""
    node = ctx.node
    s = node.style
    applies: list[str] = []
    if s.filter is not None:
        applies.append(f"filter {s.filter}")
    if s.clip_path is not None and s.clip_path.is_polygon:
        applies.append("clip-path polygon")  # (clip, then mask: CSS Masking 1 §3)
    if s.mask_image is not None:
        applies.append("mask-image")
    if s.opacity < 1.0:
        applies.append(f"opacity {s.opacity:g}")
    details = []
    if as_one_draw:
        # Step 5 draws B into T' and step 7 composites T' with source-over: the element
        # blends with its filtered backdrop inside T' (as Chromium draws it; step 6's
        # "effects" cannot mean a blend of T' itself without contradicting step 7).
        details.append(f"the element blends (mix-blend-mode {s.mix_blend_mode}) with its filtered backdrop inside T', "
                       "T' is composited source-over")
    if not backdrop_root:
        details.append("reads the isolated group it is drawn in (not a backdrop root; read as Chromium reads it: the "
                       "group's surface, not the page under it)")
    detail = "; ".join(details)
    return ContextRoute(node.id, Route.BACKDROP_FILTER, SurfaceReason.BACKDROP_FILTER, detail, applies=tuple(applies))
