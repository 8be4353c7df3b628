"""The planner's raster scales (a part of graph.planner.Planner, kept apart so each file
has one job): for each layer drawn, the scale its own content is rastered at
(compositor.raster_scale decides it from the layer's screen-space transform, its
animation and last frame's decision), and the layer as it is rastered at that scale —
its box and style zoomed, as the device scale zooms the scene — so every raster path
(a layer's own raster, its tiles, a backing's members) paints the larger texture and
draws it with its matrix divided by the scale.

Decisions are made once a frame per layer (``raster_scale``), recorded in the frame
graph (``FrameGraph.raster_scales``) and kept in the FrameState for the next frame
(an animation's fixed scale, a settle)."""

from __future__ import annotations

import weakref
from dataclasses import replace

from ..compositor.raster_scale import RasterScale, ScaleInputs, decide, scale_components, scale_key
from ..compositor.tree import LayerNode
from ..device_scale import zoomed_style
from ..geometry import Affine, Rect
from .placement import clean
from .retained import runs_transform_animation
from .sweep import animated_sweep

__all__ = ["ScaledRaster"]


class ScaledRaster:
    """Raster scales, for the Planner."""

    def raster_scale(self, node: LayerNode) -> RasterScale:
        """The raster-scale decision for ``node`` this frame (made once a frame)."""
        made = self.out.raster_scales.get(node.id)
        if made is not None and self._scaled.get(node.id) is made:
            return made
        animating, will_change = self._scale_regime(node)
        left, top, right, bottom = node.ink_outsets
        inputs = ScaleInputs(scale_components(node.to_screen), (node.width + left + right, node.height + top + bottom),
                             self.frame_size, animating, self._animation_max(node) if animating else None, will_change)
        kept = self.state.raster_scales.get(node.id)
        # Last frame's decision for this very layer (an id reused by another scene's layer
        # is a new layer: its history is not this one's).
        previous = kept[1] if kept is not None and kept[0]() is node.layer else None
        decision = decide(inputs, previous, self.device_scale)
        # (Never below 1: a layer too large at 1 is refused or tiled as it always was.)
        cap = max(1.0, self.limits.max_texture_size / max(inputs.size[0], inputs.size[1], 1.0))
        if decision.scale > cap:  # one texture side (a tile set's too) stays addressable
            decision = replace(decision, scale=cap, capped_from=decision.capped_from or decision.scale,
                               capped_by="texture size")
        self.out.raster_scales[node.id] = self._scaled[node.id] = decision
        self._scaled_layers[node.id] = weakref.ref(node.layer)
        return decision

    def keep_raster_scales(self) -> None:
        """Record this frame's decisions for the next frame's (FrameState.raster_scales:
        layer id -> (a weak reference to its Layer, its RasterScale))."""
        for layer_id, decision in self.out.raster_scales.items():
            ref = self._scaled_layers.get(layer_id)
            if ref is not None:
                self.state.raster_scales[layer_id] = (ref, decision)

    def rastered(self, node: LayerNode) -> tuple[LayerNode, float]:
        """``node`` as it is rastered (box and style zoomed by its raster scale; itself at
        scale 1) and that scale."""
        s = self.raster_scale(node).scale
        return self.at_scale(node, s), s

    def at_scale(self, node: LayerNode, s: float) -> LayerNode:
        """``node`` with its box and style zoomed by ``s`` (its raster scale, or a mask's
        scale lowered to fit a texture: graph.masks); the zoomed style is kept while the
        style and scale are unchanged."""
        if s == 1.0:
            return node
        memo = self.state.zoomed.get(node.id)
        if memo is not None and memo[0] is node.style and memo[1] == s:
            style = memo[2]
        else:
            style = zoomed_style(node.style, s)
            self.state.zoomed[node.id] = (node.style, s, style)
        box = node.box if node.box is not None else node.layer.box
        zoomed = replace(node, style=style, box=Rect(box.x * s, box.y * s, box.width * s, box.height * s),
                         to_screen=node.to_screen @ Affine.scale(1.0 / s, 1.0 / s), _clip_memo=None, _paints_memo=None)
        return zoomed

    @staticmethod
    def unscaled(m: Affine, s: float) -> Affine:
        """``m`` (layer px -> target) for the layer's raster at scale ``s``: cleaned of
        float noise where that makes it a translation (the raster is then drawn 1:1, on
        whole pixels), else as it is."""
        if s == 1.0:
            return m
        out = m @ Affine.scale(1.0 / s, 1.0 / s)
        cleaned = clean(out)
        return cleaned if cleaned.is_translation() else out

    def _scale_regime(self, node: LayerNode) -> tuple[bool, bool]:
        """(a transform animation runs on it or an ancestor, will-change: transform on it
        or an ancestor)."""
        animating = will_change = False
        layer = node.layer
        while layer is not None and not animating:
            animating = runs_transform_animation(layer, self.t)
            n = self.trees.nodes.get(layer.id)
            will_change = will_change or (n is not None and "transform" in n.style.will_change)
            layer = layer.parent
        return animating, will_change

    def _animation_max(self, node: LayerNode) -> float | None:
        """The largest scale key the layer's screen matrix reaches over the iteration of
        the transform animation running on it or its nearest animated ancestor (cc's
        MaximumAnimationToScreenScale), from the animation's samples; None: unknown."""
        swept = animated_sweep(node, self.trees.nodes, self._sweeps, self.t)
        if swept is None:
            return None
        samples, rel = swept
        return max(scale_key(scale_components(m @ rel)) for m in samples)
