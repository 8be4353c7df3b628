"""Resolve the layer tree for compositing: computed styles, layer-to-screen matrices,
clip chains, and stacking contexts with their CSS paint order (CSS 2.1 Appendix E)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..blending import BlendMode, Isolation
from ..geometry import Affine, Rect
from ..layer import Layer
from ..style import ComputedStyle
from ..style.transforms import transform_matrix
from .paint import used_radii

__all__ = ["Clip", "LayerNode", "StackingContext", "resolve_tree", "own_transform", "world", "clips_below", "STACKING_WILL_CHANGE"]

# will-change names a property whose non-initial value would create a stacking context
# -> it creates one now (CSS Will Change 1 §3.1).
STACKING_WILL_CHANGE = frozenset(
    {
        "opacity", "transform", "translate", "rotate", "scale", "filter", "backdrop-filter",
        "mix-blend-mode", "isolation", "mask", "mask-image", "clip-path", "perspective",
        "z-index", "contain",
    }
)


@dataclass(frozen=True)
class Clip:
    """The overflow clip of one layer: its padding box with inner radii, local px."""

    layer_id: str
    to_screen: Affine
    rect: Rect
    radii: tuple[tuple[float, float], ...]


@dataclass(eq=False)
class LayerNode:
    """One layer, resolved: style, size, local->screen matrix, and the clips above it.
    ``local`` is its own transform (about its transform-origin, layer px), so
    ``to_screen`` is ``world(parent, layer, local)``; ``box`` is the box it was
    resolved for. Property trees update these in place (compositor.property_trees)."""

    layer: Layer
    style: ComputedStyle
    to_screen: Affine
    clips: tuple[Clip, ...]
    depth: int
    local: Affine = Affine()
    box: Rect | None = None

    @property
    def id(self) -> str:
        return self.layer.id

    @property
    def width(self) -> float:
        return self.layer.box.width

    @property
    def height(self) -> float:
        return self.layer.box.height

    def draws_content(self) -> bool:
        """Does the layer paint anything of its own (background, image or border)?"""
        s = self.style
        if s.visibility != "visible" or self.width <= 0 or self.height <= 0:
            return False
        if not self.to_screen.is_invertible():
            return False
        widths = (s.border_top_width, s.border_right_width, s.border_bottom_width, s.border_left_width)
        border = s.border_style not in ("none", "hidden") and any(widths) and s.used_border_color.a > 0
        return s.used_background_color.a > 0 or s.background_image is not None or border

    def creates_stacking_context(self) -> bool:
        s = self.style
        return (
            self.layer.parent is None
            or s.z_index is not None
            or s.opacity < 1.0
            or bool(s.transform)
            or s.filter is not None
            # CSS Compositing 1: a blend mode other than normal, isolation: isolate;
            # Filter Effects 2: a backdrop-filter other than none.
            or s.mix_blend_mode != BlendMode.NORMAL
            or s.isolation == Isolation.ISOLATE
            or s.backdrop_filter is not None
            or any(p in STACKING_WILL_CHANGE for p in s.will_change)
        )

    def clip(self) -> Clip | None:
        """The clip this layer applies to its descendants (overflow: hidden)."""
        if self.style.overflow != "hidden":
            return None
        s = self.style
        top, right, bottom, left = (
            s.border_top_width, s.border_right_width, s.border_bottom_width, s.border_left_width,
        ) if s.border_style not in ("none", "hidden") else (0.0, 0.0, 0.0, 0.0)
        outer = used_radii(s, self.width, self.height)
        inner = (
            (max(outer[0][0] - left, 0.0), max(outer[0][1] - top, 0.0)),
            (max(outer[1][0] - right, 0.0), max(outer[1][1] - top, 0.0)),
            (max(outer[2][0] - right, 0.0), max(outer[2][1] - bottom, 0.0)),
            (max(outer[3][0] - left, 0.0), max(outer[3][1] - bottom, 0.0)),
        )
        rect = Rect(left, top, max(self.width - left - right, 0.0), max(self.height - top - bottom, 0.0))
        return Clip(self.id, self.to_screen, rect, inner)


@dataclass
class StackingContext:
    """A stacking context: its root node, then items painted in order above the root's
    own content. Items are LayerNodes (painted flat) or nested StackingContexts (atomic)."""

    node: LayerNode
    items: list = field(default_factory=list)

    def drawing_nodes(self) -> list[LayerNode]:
        """Every node in this context (nested ones included) that paints content: its
        own, or a filtered backdrop."""
        if self.node.style.opacity <= 0.0:
            return []
        shows = self.node.draws_content() or self.node.style.backdrop_filter is not None
        out = [self.node] if shows else []
        for item in self.items:
            if isinstance(item, StackingContext):
                out.extend(item.drawing_nodes())
            elif item.draws_content():
                out.append(item)
        return out


def own_transform(layer: Layer, style: ComputedStyle) -> Affine:
    """The layer's transform about its transform-origin, in its own px."""
    box = layer.box
    return transform_matrix(style.transform, style.transform_origin, box.width, box.height)


def world(parent: LayerNode | None, layer: Layer, local: Affine) -> Affine:
    """Layer px -> screen px: the parent's matrix, the box offset, the own transform
    (multiplied in this order, so an update gives the very floats a rebuild does)."""
    box = layer.box
    parent_m = parent.to_screen if parent is not None else Affine()
    return parent_m @ Affine.translate(box.x, box.y) @ local


def clips_below(parent: LayerNode | None) -> tuple[Clip, ...]:
    """The clip chain of a child of ``parent``: the parent's own and its own clip."""
    if parent is None:
        return ()
    own = parent.clip()
    return parent.clips if own is None else parent.clips + (own,)


def resolve_tree(root: Layer, t: float = 0.0, nodes: dict[str, LayerNode] | None = None) -> StackingContext:
    """Walk the layer tree once (animations sampled at ``t`` seconds) and return the
    root stacking context; every resolved node is also put in ``nodes`` by id."""

    def node_for(layer: Layer, parent: LayerNode | None, depth: int) -> LayerNode:
        parent_style = parent.style if parent else None
        style = layer.sampled_style(layer.computed_style(parent_style), t, parent_style)
        local = own_transform(layer, style)
        node = LayerNode(layer, style, world(parent, layer, local), clips_below(parent), depth, local, layer.box)
        if nodes is not None:
            nodes[layer.id] = node
        return node

    def build(ctx_node: LayerNode) -> StackingContext:
        ctx = StackingContext(ctx_node)
        entries: list[tuple[int, int, object]] = []
        order = 0

        def collect(parent_node: LayerNode) -> None:
            nonlocal order
            for child in parent_node.layer.children:
                node = node_for(child, parent_node, parent_node.depth + 1)
                z = node.style.z_index or 0
                if node.creates_stacking_context():
                    entries.append((z, order, build(node)))
                    order += 1
                else:
                    entries.append((z, order, node))
                    order += 1
                    collect(node)

        collect(ctx_node)
        # Stable sort: negative z first, then z = 0/auto in tree order, then positive.
        entries.sort(key=lambda e: (e[0], e[1]))
        ctx.items = [e[2] for e in entries]
        return ctx

    return build(node_for(root, None, 0))
