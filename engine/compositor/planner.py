"""Compositor decisions -> frame graph.

Policy v1 (the simplest correct one): every drawing layer rasters its own content into
its own texture; a stacking context with opacity < 1 over two or more drawing layers gets
a render surface (it is flattened, then faded, as CSS requires); with a single drawing
layer the opacity is applied in that layer's draw instead (viz's single-quad bypass).
Surfaces live in screen space, so transformed content is resampled exactly once.
"""

from __future__ import annotations

import math
from pathlib import Path

from ..errors import TextureTooLargeError, UnsupportedFeatureError
from ..framegraph import (
    ClipShape,
    CompositePass,
    Decision,
    Draw,
    FrameGraph,
    RasterPass,
    SurfaceReason,
    TextureDesc,
    TextureRole,
)
from ..geometry import Affine, Rect
from ..limits import MAX_CLIPS_PER_DRAW, Limits
from ..images import ImageStore
from .paint import layer_paint
from .tree import Clip, LayerNode, StackingContext, resolve_tree

__all__ = ["build_frame_graph"]


class _Planner:
    def __init__(self, scene, limits: Limits, images: ImageStore) -> None:
        self.scene = scene
        self.limits = limits
        self.images = images
        self.base_dir: Path | None = scene.base_dir
        self.passes: list = []
        self.decisions: list[Decision] = []
        self.viewport = Rect(0, 0, scene.width, scene.height)
        self._content: dict[str, TextureDesc] = {}

    # -- textures -----------------------------------------------------------------------
    def _check_size(self, what: str, w: int, h: int) -> None:
        limit = self.limits.max_texture_size
        if w > limit or h > limit:
            raise TextureTooLargeError(
                f"{what} needs a {w}x{h} texture, larger than this GPU's maximum of "
                f"{limit}x{limit} (GL_MAX_TEXTURE_SIZE); make it smaller"
            )

    def content_texture(self, node: LayerNode) -> TextureDesc:
        """Raster the layer's own content (once) and return its texture.

        A layer that is only translated is rastered at its sub-pixel offset and drawn at
        a whole-pixel position (as Chromium does): its edges get exact area coverage and
        its pixels are never resampled. Other transforms sample bilinearly."""
        tex = self._content.get(node.id)
        if tex is None:
            ox, oy = _subpixel(node.to_screen)
            w, h = math.ceil(ox + node.width), math.ceil(oy + node.height)
            self._check_size(f"layer {node.id!r}", w, h)
            tex = TextureDesc(f"layer:{node.id}", w, h, TextureRole.LAYER_CONTENT)
            paint = layer_paint(node, self.images, self.base_dir, (ox, oy), self.limits.max_texture_size)
            self.passes.append(RasterPass(f"raster:{node.id}", node.id, tex, paint))
            self._content[node.id] = tex
        return tex

    # -- clips --------------------------------------------------------------------------
    def clip_shapes(self, clips: tuple[Clip, ...], origin: tuple[int, int], layer_id: str) -> tuple[ClipShape, ...] | None:
        """ClipShapes for a target at ``origin``; None when a clip hides everything."""
        if len(clips) > MAX_CLIPS_PER_DRAW:
            raise UnsupportedFeatureError(
                f"{len(clips)} nested overflow clips; at most {MAX_CLIPS_PER_DRAW} are supported "
                "inside one render surface",
                property="overflow",
                layer=layer_id,
            )
        shapes = []
        to_screen_of_target = Affine.translate(*origin)
        for clip in clips:
            if not clip.to_screen.is_invertible() or clip.rect.is_empty():
                return None
            to_local = clip.to_screen.inverse() @ to_screen_of_target
            # Moving one target pixel perpendicular to an x = const edge changes local x
            # by |(a, c)|; likewise |(b, d)| for y edges (exact for affine maps).
            px = (math.hypot(to_local.a, to_local.c), math.hypot(to_local.b, to_local.d))
            shapes.append(
                ClipShape(
                    clip.layer_id,
                    to_local,
                    (clip.rect.x, clip.rect.y, clip.rect.width, clip.rect.height),
                    clip.radii,
                    px,
                )
            )
        return tuple(shapes)

    def visible_rect(self, node: LayerNode) -> Rect | None:
        """Where the layer can show on screen: its bounds cut to the viewport and to every
        clip above it. None when nothing is left: the layer is culled, not rastered."""
        rect = Rect(0, 0, node.width, node.height).transformed_bounds(node.to_screen).intersect(self.viewport)
        for clip in node.clips:
            if not clip.to_screen.is_invertible():
                return None
            rect = rect.intersect(clip.rect.transformed_bounds(clip.to_screen))
        return None if rect.is_empty() else rect

    # -- drawing ------------------------------------------------------------------------
    def draw_node(self, node: LayerNode, out: list[Draw], origin, opacity: float, inherited_clips: int) -> None:
        if not node.draws_content():
            self._why_not_drawn(node)
            return
        if self.visible_rect(node) is None:
            self.decisions.append(Decision(node.id, "not drawn: outside the viewport or its clips (not rastered)"))
            return
        clips = self.clip_shapes(node.clips[inherited_clips:], origin, node.id)
        if clips is None:
            self.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
            return
        tex = self.content_texture(node)
        m = node.to_screen
        if m.is_translation():
            m = Affine.translate(math.floor(m.e), math.floor(m.f))
        to_target = Affine.translate(-origin[0], -origin[1]) @ m
        out.append(Draw(tex, node.id, to_target, opacity, clips))

    def _why_not_drawn(self, node: LayerNode) -> None:
        if node.style.visibility != "visible":
            why = "own content not drawn: visibility hidden"
        elif node.width <= 0 or node.height <= 0:
            why = None  # an empty box is a plain container: nothing to explain
        elif not node.to_screen.is_invertible():
            why = "not drawn: its transform is not invertible (CSS renders nothing)"
        else:
            why = None  # paints nothing of its own (no background, image or border)
        if why:
            self.decisions.append(Decision(node.id, why))

    def emit_context(self, ctx: StackingContext, out: list[Draw], origin, opacity: float, inherited_clips: int) -> None:
        """Append the draws of a stacking context to ``out`` (a target at ``origin``)."""
        node = ctx.node
        own_opacity = node.style.opacity
        if own_opacity <= 0.0:
            self.decisions.append(Decision(node.id, "not drawn: opacity 0 (with all its descendants)"))
            return
        drawing = ctx.drawing_nodes()
        if own_opacity < 1.0 and len(drawing) >= 2:
            self.emit_surface(ctx, out, origin, opacity * own_opacity, inherited_clips, len(drawing))
            return
        if own_opacity < 1.0 and drawing:
            self.decisions.append(
                Decision(
                    node.id,
                    f"opacity {own_opacity:g} applied in the draw of {drawing[0].id!r}: "
                    "one drawing layer needs no surface",
                )
            )
        self.emit_items(ctx, out, origin, opacity * own_opacity, inherited_clips)

    def emit_surface(self, ctx: StackingContext, out: list[Draw], origin, opacity, inherited_clips, count) -> None:
        node = ctx.node
        # The surface covers what its layers can touch on screen (rounded out to whole
        # pixels, cut to the viewport). Its clips from above the stacking context are
        # applied when the surface is drawn, not to each draw inside it.
        bounds = Rect.union(r for r in map(self.visible_rect, ctx.drawing_nodes()) if r is not None)
        if bounds is None:
            self.decisions.append(Decision(node.id, "not drawn: its group lies outside the viewport or its clips"))
            return
        bounds = bounds.rounded_out()
        clips = self.clip_shapes(node.clips[inherited_clips:], origin, node.id)
        if clips is None:
            self.decisions.append(Decision(node.id, "not drawn: an ancestor's clip is empty"))
            return
        sx, sy = int(bounds.x), int(bounds.y)
        draws: list[Draw] = []
        self.emit_items(ctx, draws, (sx, sy), 1.0, len(node.clips))
        w, h = int(bounds.width), int(bounds.height)
        self._check_size(f"the opacity group of layer {node.id!r}", w, h)
        tex = TextureDesc(f"surface:{node.id}", w, h, TextureRole.RENDER_SURFACE)
        self.passes.append(
            CompositePass(
                f"composite:{node.id}",
                tex,
                (sx, sy),
                (0.0, 0.0, 0.0, 0.0),
                tuple(draws),
                SurfaceReason.OPACITY_GROUP,
                f"layer {node.id!r} opacity {node.style.opacity:g} over {count} drawing layers: flatten, then fade",
            )
        )
        to_target = Affine.translate(sx - origin[0], sy - origin[1])
        out.append(Draw(tex, node.id, to_target, opacity, clips, note="render surface"))

    def emit_items(self, ctx: StackingContext, out: list[Draw], origin, opacity: float, inherited_clips: int, *, own: bool = True) -> None:
        """The context root's own content, then its items in paint order."""
        if own:
            self.draw_node(ctx.node, out, origin, opacity, inherited_clips)
        for item in ctx.items:
            if isinstance(item, StackingContext):
                self.emit_context(item, out, origin, opacity, inherited_clips)
            else:
                self.draw_node(item, out, origin, opacity, inherited_clips)

    # -- the frame ----------------------------------------------------------------------
    def build(self) -> FrameGraph:
        self._check_size("the frame", self.scene.width, self.scene.height)
        root = resolve_tree(self.scene.root)
        frame = TextureDesc("frame", self.scene.width, self.scene.height, TextureRole.FRAME)
        clear = (0.0, 0.0, 0.0, 0.0)
        draws: list[Draw] = []
        node = root.node
        if _is_plain_color(node):
            # The page background is a flat colour: clear to it instead of a raster pass.
            clear = node.style.used_background_color.premultiplied()
            self.decisions.append(Decision(node.id, "background drawn as the frame's clear colour"))
            self.emit_items(root, draws, (0, 0), 1.0, 0, own=False)
        else:
            self.emit_context(root, draws, (0, 0), 1.0, 0)
        self.passes.append(
            CompositePass("composite:frame", frame, (0, 0), clear, tuple(draws), SurfaceReason.ROOT, "the frame")
        )
        graph = FrameGraph(self.scene.width, self.scene.height, self.passes, frame, self.decisions)
        graph.validate()
        return graph


def _subpixel(m: Affine) -> tuple[float, float]:
    if not m.is_translation():
        return (0.0, 0.0)
    return (m.e - math.floor(m.e), m.f - math.floor(m.f))


def _is_plain_color(node: LayerNode) -> bool:
    s = node.style
    return (
        s.visibility == "visible"
        and s.opacity == 1.0
        and not s.transform
        and s.background_image is None
        and s.border_style in ("none", "hidden")
        and all(r == (0.0, 0.0) for r in _radii(node))
    )


def _radii(node: LayerNode):
    from .paint import used_radii

    return used_radii(node.style, node.width, node.height)


def build_frame_graph(scene, limits: Limits | None = None, images: ImageStore | None = None) -> FrameGraph:
    """Make the compositor's decisions for ``scene`` and return the frame graph."""
    return _Planner(scene, limits or Limits(), images or ImageStore()).build()
