"""The planner's mask work (a part of graph.planner.Planner, kept apart so each file
has one job): ``mask-image`` and ``clip-path`` (CSS Masking 1).

* A clip-path that is a rounded rect (inset, circle, ellipse, a bare reference box) is
  a clip in the clip chain (compositor.tree): every draw of the layer and of its
  descendants is clipped per pixel, after a filter (the filtered result is clipped).
  Nothing is planned here for it but the report's line.
* A ``mask-image`` or a ``polygon()`` clip-path is a mask: the layer and its
  descendants are flattened into a render surface (reason "mask") and the surface is
  drawn with the mask multiplied in (a DrawMask: the mask texture, rastered in the
  layer's own px times its raster scale (graph.scaled: a scaled layer's mask is as
  sharp as its content) and kept while it is unchanged, read through the draw's own
  mapping). With one drawing layer (the element itself, no descendants) the mask goes
  into that layer's draw instead: no surface, as viz draws a single quad with a mask.
  A filtered element's mask is applied to the filtered result (filter, clip, mask,
  then opacity, as CSS orders them).

The methods read the planner's inputs (cache, images) and emit into its FrameOutput
(passes, decisions: graph.output).
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..compositor.clip_path import describe_clip_path, polygon_points
from ..compositor.mask_paint import MASK_PAD, PolygonPaint, has_mask, mask_image_paint
from ..compositor.tree import LayerNode, StackingContext
from ..css.shapes import FillRule
from ..css.values import ImageRef
from ..errors import UnsupportedFeatureError
from ..compositor.paint_data import ImagePaint
from ..framegraph import Decision, Draw, DrawMask, RasterPass, SurfaceReason, TextureDesc, TextureRole
from ..geometry import Affine, Rect
from ..limits import MAX_MASKS_PER_DRAW
from ..textures import MaskKind
from .placement import clean, snap, subpixel
from .targets import Target

__all__ = ["MaskedDrawing", "describe_mask"]


def describe_mask(node: LayerNode) -> str:
    """The layer's masks in words, for reports."""
    s = node.style
    parts = []
    if s.mask_image is not None:
        image = s.mask_image
        if isinstance(image, ImageRef):
            source = f"url({image.url})" if image.url else "an image"
        else:
            kind = type(image).__name__.removesuffix("Gradient").lower()
            source = f"{'repeating-' if getattr(image, 'repeating', False) else ''}{kind}-gradient()"
        mode = "luminance" if s.mask_mode.luminance else "alpha"
        parts.append(f"mask-image {source} ({mode})")
    if s.clip_path is not None and s.clip_path.is_polygon:
        parts.append(describe_clip_path(s.clip_path))
    return " and ".join(parts)


class MaskedDrawing:
    """Masks and clip-paths, for the Planner."""

    def note_clip_path(self, node: LayerNode) -> None:
        """Say in the report how a rounded-rect clip-path is applied (a clip: no pass)."""
        clip = node.style.clip_path
        if clip is None or clip.is_polygon:
            return
        after = " (to the filtered result)" if node.style.filter is not None else ""
        self.out.decisions.append(Decision(node.id, (
            f"{describe_clip_path(clip)} is a rounded rect: a clip in the clip chain, applied per pixel in the "
            f"draws of {node.id!r} and its descendants{after}; the clip needs no surface")))

    def emit_masked(self, ctx: StackingContext, route, out: list, target: Target, opacity: float) -> bool:
        """Plan a masked context (see the module docstring): through the mask in its one
        draw, or a surface of its layers drawn through it, as its route says."""
        node = ctx.node
        what = describe_mask(node)
        if not node.to_screen.is_invertible():
            self.out.decisions.append(Decision(node.id, node.why_not_invertible()))
            return True
        drawing = ctx.drawing_nodes()
        if route.surface is None:  # alone: its one drawing layer is itself
            pending: list = []
            self.draw_node(node, pending, target, opacity)
            for p in pending:
                masked = self.masked(self._layer_draw(p, target.space, target.origin, p.clips), ctx, target)
                if masked is not None:
                    out.append(masked)
                    self.out.decisions.append(Decision(node.id, (
                        f"{what}: multiplied into the draw of {node.id!r}; one drawing layer needs no surface")))
            return True
        before = len(out)
        detail = (f"{what} of {node.id!r}: {len(drawing)} drawing layers flattened, then drawn through the mask")
        if node.style.opacity < 1.0:
            detail += f", faded (opacity {node.style.opacity:g})"
        self.emit_group_surface(ctx, out, target, opacity, SurfaceReason.MASK, detail)
        if len(out) > before:
            masked = self.masked(out[-1], ctx, target)
            if masked is None:
                del out[-1]
            else:
                out[-1] = masked
                self.out.decisions.append(Decision(node.id, (
                    f"{what}: a render surface (reason mask) holds {node.id!r} and its descendants; the mask is "
                    "multiplied in when the surface is drawn")))
        return True

    def masked(self, draw: Draw, ctx: StackingContext, target: Target) -> Draw | None:
        """``draw`` (the context's content in ``target``: a layer's raster, a surface or a
        filter's result) with the context root's masks; None when a polygon clip-path
        covers nothing the context paints (then nothing of it shows)."""
        node = ctx.node
        if not has_mask(node.style):
            return draw
        to_target = clean(target.from_screen() @ node.to_screen)  # layer px -> target px
        masks = []
        s = node.style
        if s.mask_image is not None:
            k = self._mask_scale(node, node.width, node.height)
            m = self.unscaled(to_target, k)  # mask px (layer px x k) -> target px
            offset = subpixel(m)
            tex = self._mask_image_texture(self.at_scale(node, k), offset)
            to_texel = snap(Affine.translate(offset[0] + MASK_PAD, offset[1] + MASK_PAD) @ clean(m.inverse()))
            masks.append(DrawMask(tex, node.id, to_texel, s.mask_mode.luminance, MaskKind.MASK_IMAGE))
        if s.clip_path is not None and s.clip_path.is_polygon:
            made = self._polygon_texture(ctx, to_target)
            if made is None:
                self.out.decisions.append(Decision(node.id, (
                    f"not drawn: its {describe_clip_path(s.clip_path)} covers nothing it paints")))
                return None
            tex, origin, m = made
            to_texel = snap(Affine.translate(-origin[0], -origin[1]) @ clean(m.inverse()))
            masks.append(DrawMask(tex, node.id, to_texel, False, MaskKind.CLIP_PATH))
        if len(draw.masks) + len(masks) > MAX_MASKS_PER_DRAW:
            raise UnsupportedFeatureError(
                f"more than {MAX_MASKS_PER_DRAW} masks on one draw are not supported", property="mask-image",
                layer=node.id)
        return replace(draw, masks=draw.masks + tuple(masks))

    # -- mask textures --------------------------------------------------------------------
    def _mask_image_texture(self, node: LayerNode, offset: tuple[float, float]) -> TextureDesc:
        """The mask-image rastered like a background into the border box of ``node``
        (the layer zoomed to its mask's scale: graph.scaled.at_scale), at its sub-pixel
        ``offset`` (so a draw that is a translation reads whole texels)."""
        ox, oy = offset
        w = math.ceil(ox + node.width) + 2 * MASK_PAD
        h = math.ceil(oy + node.height) + 2 * MASK_PAD
        self._check_size(f"the mask-image of layer {node.id!r}", w, h, node.id)
        paint = mask_image_paint(node, self.images, self.base_dir, (ox + MASK_PAD, oy + MASK_PAD),
                                 self.limits.max_texture_size)
        if isinstance(paint.image, ImagePaint):
            self.out.images_seen.append((paint.image.ref, node.id, paint.image.key))
        return self._mask_texture(node, MaskKind.MASK_IMAGE, paint, w, h, f"mask-image of layer {node.id}")

    def _polygon_texture(self, ctx: StackingContext, to_target: Affine):
        """A polygon clip-path's coverage texture, the mask px of its texel (0, 0)'s
        corner and the mapping of mask px (layer px times the mask's scale) to the
        target; None when the polygon misses everything the context can paint. The
        texture covers the polygon where the context paints (descendants may overflow
        the box), found in the layer's own space, so moving the layer keeps it."""
        node = ctx.node
        clip = node.style.clip_path
        points = polygon_points(node.style, node.width, node.height)
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        bounds = Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        extent = self._mask_extent(ctx)
        if extent is None:
            return None
        bounds = bounds.intersect(extent)
        if bounds.is_empty():
            return None
        # At the layer's raster scale, as its content: the polygon's lengths (px and
        # percentages of the box alike) are k times longer, so its points are.
        k = self._mask_scale(node, bounds.width, bounds.height)
        m = self.unscaled(to_target, k)
        ox, oy = subpixel(m)
        bounds = Rect(bounds.x * k, bounds.y * k, bounds.width * k, bounds.height * k)
        kx, ky = math.floor(bounds.x + ox) - MASK_PAD, math.floor(bounds.y + oy) - MASK_PAD
        w = math.ceil(bounds.right + ox) + MASK_PAD - kx
        h = math.ceil(bounds.bottom + oy) + MASK_PAD - ky
        self._check_size(f"the clip-path polygon of layer {node.id!r}", w, h, node.id)
        # Rounded: the offset comes from screen matrices, and float noise must not make
        # a new texture of the same polygon.
        texel_points = tuple((round(x * k + ox - kx, 6), round(y * k + oy - ky, 6)) for x, y in points)
        paint = PolygonPaint(texel_points, clip.shape.fill_rule is FillRule.EVENODD, w, h)
        tex = self._mask_texture(node, MaskKind.CLIP_PATH, paint, w, h,
                                 f"clip-path polygon of layer {node.id} ({clip.shape.fill_rule.value})")
        return tex, (kx - ox, ky - oy), m

    def _mask_scale(self, node: LayerNode, width: float, height: float) -> float:
        """The scale a mask of ``width`` x ``height`` layer px is rastered at: the
        layer's raster scale (graph.scaled), so a scaled layer's mask edge is as sharp
        as its content's; lowered (never below 1) where the mask would outgrow the
        largest texture (a polygon around overflowing descendants can be larger than
        the layer's box, which bounds the raster scale)."""
        k = self.raster_scale(node).scale
        room = self.limits.max_texture_size - 2 * MASK_PAD - 1  # the pad and a sub-pixel offset
        return max(1.0, min(k, room / max(width, height, 1.0)))

    def _mask_extent(self, ctx: StackingContext) -> Rect | None:
        """What the context can paint, in its root's own px, uncut by the viewport or by
        clips above it (so it does not change as the layer moves), grown by its filter's
        reach (a mask applies to the filtered result)."""
        node = ctx.node
        space = node.to_screen.inverse()
        extent = self._content_bounds(ctx, space, None, len(node.clips))
        if extent is None:
            return None
        if node.style.filter is not None:
            scale = node.to_screen.max_scale()
            plan = node.style.filter.plan(current_color=node.style.color, scale=scale)
            top, right, bottom, left = (v / max(scale, 1e-6) for v in plan.outsets)
            extent = Rect(extent.x - left, extent.y - top, extent.width + left + right, extent.height + top + bottom)
        return extent

    def _mask_texture(self, node: LayerNode, kind: MaskKind, paint, w: int, h: int, reason: str) -> TextureDesc:
        """Raster a mask (once, and kept while its paint is unchanged, like a layer's
        raster) and return its texture."""
        cache_id = f"{kind}:{node.id}"
        if self.cache is None:
            tex = TextureDesc(f"{kind}:{node.id}", w, h, TextureRole.MASK)
            self.out.passes.append(RasterPass(f"raster:{kind}:{node.id}", node.id, tex, paint, reason))
            return tex
        key = (w, h, paint)
        tex = self.cache.lookup(cache_id, key, self.available)
        if tex is not None:
            self.out.reused.append(tex.name)
            return tex
        tex = TextureDesc(self.cache.new_name(node.id, prefix=kind), w, h, TextureRole.MASK, retained=True)
        self.out.passes.append(RasterPass(f"raster:{kind}:{node.id}", node.id, tex, paint, reason))
        self.cache.store(cache_id, key, tex)
        return tex
