"""Resolve the layer tree for compositing: computed styles, layer-to-screen matrices,
clip chains, scroll offsets, and stacking contexts with their CSS paint order (CSS 2.1
Appendix E).

A scroll container's descendants are placed in its *contents space*: its own space
moved by minus its scroll offset (``LayerNode.content_to_screen``), while the clip it
applies stays put. A ``position: fixed`` layer is placed in its containing block's own
space instead (the viewport's, or the nearest transformed or preserve-3d ancestor's), so
it does not scroll with the content it sits in.

3D (CSS Transforms 2, flat elements only): a layer's own transform is a ``Matrix4``
when it is 3D, and a container's ``perspective`` is applied to its children; the
child's matrix is then flattened into the container's plane (a ``Projective``), so
every layer's ``to_screen`` is a 2D map, affine wherever no perspective reaches it. A
layer with ``backface-visibility: hidden`` whose back face is toward the viewer is
placed with ``BACKFACE_CULLED`` (a singular matrix: it and what is flattened into it
draw nothing, and the report says why). A layer whose 4x4 (its own transform, or its
accumulated one in a 3D rendering context) is singular is placed with ``SINGULAR_3D``
even when its flattened plane map is invertible (scaleZ(0)): CSS Transforms "not
rendered", as Chromium's property trees skip a non-invertible transform node.

3D rendering contexts (CSS Transforms 2 §10, ``transform-style: preserve-3d``): an
element whose used transform-style is preserve-3d (``extends_3d``: no grouping property
forces it flat, ``flattening_property``) establishes a context, or extends its parent's.
Its children are members of that context (``LayerNode.context3d``: the establishing
element's id; the establishing element is a member too), a fixed child too: the
preserve-3d element is its containing block. A member's accumulated 4x4
(``screen_matrix3d``) is *not* flattened at its parent: it is the parent's accumulated
4x4 times the member's own, and only its plane map (``to_screen``) is flattened, so
members keep their depth for lamina.graph.contexts3d to sort and split. A member's hidden
back face is judged on that accumulated matrix."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import attrgetter

from .. import device_scale
from ..geometry import Affine, Projective, Rect
from ..errors import StyleError, UnsupportedFeatureError
from ..blending import BlendMode, Isolation
from ..css.values import BackfaceVisibility, ClipKind, Overflow, Position, TransformStyle
from ..matrix4 import Matrix4
from ..layer import Layer
from ..style import ComputedStyle
from ..style.properties import LONGHANDS, SHORTHANDS, STACKING_FIELDS
from ..style.transforms import transform_matrix
from .clip_path import rounded_shape
from .paint import used_radii
from .shadows import shadow_outsets
from .sticky import StickyInsets, check_insets, sticky_shift

# The positions compared with for every layer, read once: on Python 3.11 ``Position.FIXED``
# goes through EnumType.__getattr__'s attribute hook (about 100 ns, five times a plain
# class attribute's), several times per layer on a frame planned from scratch.
_FIXED, _STICKY = Position.FIXED, Position.STICKY
_STACKING_POSITIONS = (Position.FIXED, Position.STICKY)

__all__ = ["Clip", "LayerNode", "StackingContext", "resolve_tree", "own_transform", "world", "clips_below",
           "clip_chain", "containing_block", "scroll_range", "used_scroll", "nearest_scroller", "sticky_offset",
           "STACKING_WILL_CHANGE", "BACKFACE_CULLED", "SINGULAR_3D", "perspective_matrix", "flattening_property", "extends_3d",
           "screen_matrix3d"]

# The matrix a layer showing a hidden back face is placed with (compared by identity).
BACKFACE_CULLED = Affine(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
SINGULAR_3D = Affine(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  # (a 4x4 not invertible: see the docstring)
_SINGULAR = 1e-12  # |det| relative to the product of the row lengths (Hadamard's bound)
_HIDDEN = BackfaceVisibility.HIDDEN
_PRESERVE_3D = TransformStyle.PRESERVE_3D

# A field other than its initial value makes a stacking context (the records say which);
# read all at once and compared as one tuple (every layer asks, on every rebuild).
_stacking_values = attrgetter(*STACKING_FIELDS)
_STACKING_INITIALS = tuple(LONGHANDS[f].initial for f in STACKING_FIELDS)
# will-change names a property whose non-initial value would create a stacking context
# -> it creates one now (CSS Will Change 1 §3.1): those of the records, the shorthands
# of them, and such properties Lamina does not implement yet.
STACKING_WILL_CHANGE = frozenset(
    {LONGHANDS[f].name for f in STACKING_FIELDS}
    | {name for name, shorthand in SHORTHANDS.items() if set(shorthand.fields) & set(STACKING_FIELDS)}
    | {"translate", "rotate", "scale", "perspective", "contain"}
)


@dataclass(frozen=True)
class Clip:
    """A clip of one layer, in its local px: its overflow clip (the padding box with
    inner radii, applied to its descendants), or a ``clip-path`` that is a rounded rect
    (kind CLIP_PATH: applied to the layer itself and its descendants)."""

    layer_id: str
    to_screen: Affine | Projective
    rect: Rect
    radii: tuple[tuple[float, float], ...]
    kind: ClipKind = ClipKind.OVERFLOW


@dataclass(eq=False)
class LayerNode:
    """One layer, resolved: style, size, local->screen matrix, and the clips above it.
    ``local`` is its own transform (about its transform-origin, layer px), so
    ``to_screen`` is ``world(container, layer, local)``; ``box`` is the box it was
    resolved for. ``container`` is the node it is placed in (its parent, or a fixed
    layer's containing block); ``scroller`` the id of the nearest scroll container
    whose offset moves it. A scroll container's ``scroll`` is its used offset (clamped
    to ``scroll_max``, the end of its scrollable overflow; ``scroll_asked`` is what the
    style asked for). Property trees update these in place (compositor.property_trees)."""

    layer: Layer
    style: ComputedStyle
    to_screen: Affine | Projective
    clips: tuple[Clip, ...]
    depth: int
    local: Affine | Matrix4 = Affine()
    box: Rect | None = None
    container: "LayerNode | None" = None
    scroller: str | None = None
    scroll: tuple[float, float] = (0.0, 0.0)
    scroll_max: tuple[float, float] = (0.0, 0.0)
    scroll_asked: tuple[float, float] = (0.0, 0.0)
    sticky: tuple[float, float] = (0.0, 0.0)  # position: sticky's shift (compositor.sticky), in its parent's px
    # The style in CSS px (``style`` is it in device px, lamina.device_scale): what the
    # children inherit from. None: the same as ``style`` (device scale 1).
    css_style: ComputedStyle | None = None
    # The 3D rendering context it is a member of (the id of the element establishing
    # it), or None: a flat layer, drawn in paint order.
    context3d: str | None = None
    _m3_memo: tuple | None = field(default=None, repr=False)  # (what it was made of..., its Matrix4)
    _clip_memo: tuple | None = field(default=None, repr=False)
    _paints_memo: tuple | None = field(default=None, repr=False)  # (style, does it paint)

    @property
    def id(self) -> str:
        return self.layer.id

    @property
    def width(self) -> float:
        return (self.box if self.box is not None else self.layer.box).width

    @property
    def height(self) -> float:
        return (self.box if self.box is not None else self.layer.box).height

    @property
    def inherited_style(self) -> ComputedStyle:
        """What its children's styles are computed from: its style in CSS px."""
        return self.css_style if self.css_style is not None else self.style

    @property
    def backface_culled(self) -> bool:
        """Is it hidden because its back face is toward the viewer (backface-visibility)?"""
        return self.to_screen is BACKFACE_CULLED

    def why_not_invertible(self) -> str:
        """Why a node whose matrix is not invertible draws nothing, for the report: its
        own back face, an ancestor's (it is flattened into that), or its transform."""
        node: LayerNode | None = self
        while node is not None:
            if node.backface_culled:
                if node is self:
                    return "not drawn: backface-visibility: hidden and its back face is toward the viewer"
                return f"not drawn: flattened into {node.id!r}, whose back face is toward the viewer and hidden"
            node = node.container
        return "not drawn: its transform is not invertible (CSS renders nothing)"

    @property
    def content_to_screen(self) -> Affine | Projective:
        """Where its descendants are placed: its own space, moved by its scroll offset."""
        sx, sy = self.scroll
        return self.to_screen if sx == 0.0 and sy == 0.0 else self.to_screen @ Affine.translate(-sx, -sy)

    @property
    def is_fixed(self) -> bool:
        return self.style.position is _FIXED and self.layer.parent is not None

    @property
    def is_sticky(self) -> bool:
        return self.style.position is _STICKY and self.layer.parent is not None

    def can_scroll(self) -> bool:
        """A user-scrollable container (overflow: scroll | auto) with overflow to scroll."""
        return self.style.overflow is Overflow.SCROLL and (self.scroll_max[0] > 0.0 or self.scroll_max[1] > 0.0)

    def draws_content(self) -> bool:
        """Does the layer paint anything of its own (background, image, border, text or box shadow)?"""
        s = self.style
        memo = self._paints_memo
        if memo is None or memo[0] is not s:
            memo = self._paints_memo = (s, self._style_paints())
        return memo[1] and self.to_screen.is_invertible()

    def _style_paints(self) -> bool:
        """What the style alone says: visible, a box, and something to paint."""
        s = self.style
        if s.visibility != "visible" or self.width <= 0 or self.height <= 0:
            return False
        widths = (s.border_top_width, s.border_right_width, s.border_bottom_width, s.border_left_width)
        border = s.border_style not in ("none", "hidden") and any(widths) and s.used_border_color.a > 0
        shadow = any(s.used_color(b.color).a > 0 for b in s.box_shadow)
        return s.used_background_color.a > 0 or s.background_image is not None or border or bool(s.text) or shadow

    @property
    def ink_outsets(self) -> tuple[int, int, int, int]:
        """How far (whole px: left, top, right, bottom) its own paint reaches past its
        box: the outer box shadows' ink overflow (CSS Overflow 3 §2.2)."""
        return shadow_outsets(self.style.box_shadow) if self.style.box_shadow else (0, 0, 0, 0)

    @property
    def ink_rect(self) -> Rect:
        """What its own paint can cover, in its px: the border box, grown by the ink
        overflow. Culling, backings, surfaces and damage use this, not the box."""
        if not self.style.box_shadow:
            return Rect(0, 0, self.width, self.height)
        left, top, right, bottom = self.ink_outsets
        return Rect(-left, -top, self.width + left + right, self.height + top + bottom)

    def creates_stacking_context(self) -> bool:
        s = self.style
        return (
            self.layer.parent is None
            # z-index other than auto, opacity < 1, a transform, a filter; CSS Compositing
            # 1: a blend mode other than normal, isolation: isolate; Filter Effects 2: a
            # backdrop-filter; CSS Masking 1 §3, §6: a clip-path or mask-image.
            or _stacking_values(s) != _STACKING_INITIALS
            or any(p in STACKING_WILL_CHANGE for p in s.will_change)
            or s.position in _STACKING_POSITIONS  # fixed or sticky, as in every current browser
        )

    def clip(self) -> Clip | None:
        """The clip this layer applies to its descendants (overflow other than visible);
        made once for the style and matrix it has (every child asks for it)."""
        if not self.style.overflow.clips:
            return None
        memo = self._clip_memo
        if memo is not None and memo[0] is self.style and memo[1] is self.to_screen:
            return memo[2]
        clip = self._make_clip()
        self._clip_memo = (self.style, self.to_screen, clip)
        return clip

    def shape_clips(self) -> tuple[Clip, ...]:
        """The clip-path this layer applies to itself and its descendants, when it is a
        rounded rect (a polygon is a mask: graph.masks); () when there is none."""
        shape = rounded_shape(self.style, self.width, self.height)
        if shape is None:
            return ()
        rect, radii = shape
        return (Clip(self.id, self.to_screen, rect, radii, ClipKind.CLIP_PATH),)

    def _make_clip(self) -> Clip:
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


def own_transform(layer: Layer, style: ComputedStyle) -> Affine | Matrix4:
    """The layer's transform about its transform-origin, in its own px (a Matrix4 when
    it is 3D)."""
    box = device_scale.current().box(layer.box)
    return transform_matrix(style.transform, style.transform_origin, box.width, box.height)


def perspective_matrix(node: LayerNode) -> Matrix4 | None:
    """The perspective ``node`` gives its children, in its px (CSS Transforms 2 §8:
    translate(origin) * perspective(d) * translate(-origin)); None for none."""
    depth = node.style.perspective
    if depth is None:
        return None
    ox, oy = node.style.perspective_origin[0].resolve(node.width), node.style.perspective_origin[1].resolve(node.height)
    return Matrix4.translate(ox, oy) @ Matrix4.perspective(depth.px) @ Matrix4.translate(-ox, -oy)


def flattening_property(style: ComputedStyle) -> str | None:
    """The grouping property that makes a ``preserve-3d`` element flat (CSS Transforms 2
    §"Grouping property values": its children are drawn into its plane as a group), or
    None. The spec's list (overflow other than visible, opacity < 1, filter, clip-path,
    mask, mix-blend-mode, isolation), plus backdrop-filter; Chromium 156 flattens for each
    of these, overflow: clip included (tests/chromium/test_preserve3d_chromium.py)."""
    if style.overflow.clips:
        return "overflow"
    if style.opacity < 1.0:
        return "opacity"
    if style.filter is not None:
        return "filter"
    if style.clip_path is not None:
        return "clip-path"
    if style.mask_image is not None:
        return "mask-image"
    if style.mix_blend_mode is not BlendMode.NORMAL:
        return "mix-blend-mode"
    if style.isolation is Isolation.ISOLATE:
        return "isolation"
    if style.backdrop_filter is not None:
        return "backdrop-filter"
    return None


def extends_3d(node: LayerNode) -> bool:
    """Is the used transform-style of ``node`` preserve-3d: do its children share its 3D
    rendering context?"""
    return node.style.transform_style is _PRESERVE_3D and flattening_property(node.style) is None


def context_of(container: LayerNode | None, node_id: str, style: ComputedStyle) -> str | None:
    """The 3D rendering context a layer (``node_id``, ``style``) placed in ``container``
    is a member of: its container's when that one extends a context (or establishes it),
    its own when it establishes one, else None. A fixed layer's container is its
    containing block (a preserve-3d element is one): a fixed child of a context's element
    is a member at z = 0 of that element's plane, as Chromium sorts it."""
    if container is not None and extends_3d(container):
        return container.context3d or container.id
    if style.transform_style is _PRESERVE_3D and flattening_property(style) is None:
        return node_id
    return None


def screen_matrix3d(node: LayerNode) -> Matrix4:
    """The layer's accumulated 4x4 to the screen (layer px -> screen px, z toward the
    viewer): inside a 3D rendering context, its container's accumulated 4x4 times its
    own placement (perspective, box offset, transform), unflattened; outside one, its
    flat plane map with z left alone. ``to_screen`` is this matrix flattened. Made once
    per matrix the node has (its members ask for it)."""
    container = node.container
    if node.context3d is None or container is None:
        base = None
    else:
        base = screen_matrix3d(container) if extends_3d(container) else container.to_screen
    memo = node._m3_memo
    # Keyed by what it is made of (a culled member's to_screen is one shared object).
    if memo is not None and memo[0] is node.to_screen and memo[1] is node.local and memo[2] is base:
        return memo[3]
    if base is None:
        matrix = Matrix4.from_plane_map(node.to_screen)
    else:
        matrix = _accumulated(container, node.box, node.sticky, node.local)
    node._m3_memo = (node.to_screen, node.local, base, matrix)
    return matrix


def _accumulated(container: LayerNode, box: Rect, sticky: tuple[float, float], local: Affine | Matrix4) -> Matrix4:
    """A member's accumulated 4x4: its container's (unflattened when the container
    extends the context, its plane map otherwise), its perspective, the box offset and
    the own transform."""
    base = screen_matrix3d(container) if extends_3d(container) else Matrix4.from_plane_map(container.to_screen)
    sx, sy = container.scroll
    local4 = local if local.__class__ is Matrix4 else Matrix4.from_affine(local)
    m = Matrix4.translate(box.x + sticky[0] - sx, box.y + sticky[1] - sy) @ local4
    persp = perspective_matrix(container) if container.style.perspective is not None else None
    if persp is not None:
        m = persp @ m
    return base @ m


def _singular(m: Matrix4) -> bool:
    """Whether the 4x4 is not invertible: its determinant zero, relative to the product
    of its row lengths (so a large scale or a perspective row does not decide it)."""
    p = m.m
    bound = math.prod(math.hypot(p[4 * r], p[4 * r + 1], p[4 * r + 2], p[4 * r + 3]) for r in range(4))
    return not abs(m.determinant()) > _SINGULAR * bound


def world(container: LayerNode | None, layer: Layer, local: Affine | Matrix4, fixed: bool = False,
          sticky: tuple[float, float] = (0.0, 0.0), style: ComputedStyle | None = None) -> Affine | Projective:
    """Layer px -> screen px: the container's matrix (its scrolled contents space, or
    for a fixed layer its own), the box offset (plus a sticky layer's shift), the own
    transform (multiplied in this order, so an update gives the very floats a rebuild
    does). With a 3D transform or the container's perspective, the product is taken in
    4x4 (the accumulated 3D matrix of CSS Transforms 2) and flattened into the
    container's plane; ``style`` (the layer's) says whether a back face is hidden."""
    box = device_scale.current().box(layer.box)
    if container is not None and extends_3d(container):
        # A member of its container's 3D rendering context: unflattened up to here (a
        # fixed one too: its containing block is the context's element, never a scroller).
        accumulated = _accumulated(container, box, sticky, local)
        if style is not None and style.backface_visibility is _HIDDEN and accumulated.is_back_facing():
            return BACKFACE_CULLED
        if _singular(accumulated):
            return SINGULAR_3D
        return accumulated.flattened()
    if container is None:
        base = Affine()
    else:
        base = container.to_screen if fixed else container.content_to_screen
    persp = perspective_matrix(container) if container is not None and container.style.perspective is not None else None
    if persp is None and local.__class__ is Affine:
        return base @ Affine.translate(box.x + sticky[0], box.y + sticky[1]) @ local
    sx, sy = (0.0, 0.0) if fixed or container is None else container.scroll
    local4 = local if local.__class__ is Matrix4 else Matrix4.from_affine(local)
    if local.__class__ is Matrix4 and _singular(local4):
        return SINGULAR_3D
    accumulated = Matrix4.translate(box.x + sticky[0] - sx, box.y + sticky[1] - sy) @ local4
    if persp is not None:
        accumulated = persp @ accumulated
    if style is not None and style.backface_visibility is _HIDDEN and accumulated.is_back_facing():
        return BACKFACE_CULLED
    outer = container.to_screen if container is not None else Affine()
    flat = outer @ accumulated.flattened()
    return flat.simplified() if flat.__class__ is Projective else flat


def nearest_scroller(container: LayerNode) -> LayerNode:
    """The scroll container whose scrollport a sticky child of ``container`` sticks to:
    the nearest one, else the root (the viewport)."""
    node = container
    while node.container is not None and not node.style.overflow.is_scroll_container:
        node = node.container
    return node


def sticky_offset(layer: Layer, style: ComputedStyle, container: LayerNode) -> tuple[float, float]:
    """The shift of a sticky ``layer`` (resolved ``style``) in ``container`` (its
    parent's node) at the scroll offsets the nodes hold now: the boxes measured in the
    nearest scroller's contents space for compositor.sticky.sticky_shift. Boxes, not
    matrices: transforms between the layer and its scroller do not change the shift
    (it is layout, as in Blink; checked with Chromium 156 under rotate and scale), they
    only turn it with the layer."""
    scroller = nearest_scroller(container)
    clip = scroller.clip()
    port = clip.rect if clip is not None else Rect(0, 0, scroller.width, scroller.height)
    x = y = 0.0  # the container's box origin in the scroller's contents space
    node = container
    while node is not scroller:
        if node.is_fixed:  # it does not scroll with the scroller: its contents space is not the scroller's
            raise UnsupportedFeatureError(
                f"position: sticky inside a fixed layer ({node.id!r}) within its scroll container is not supported yet",
                property="position", layer=layer.id)
        x, y = x + node.box.x + node.sticky[0], y + node.box.y + node.sticky[1]
        node = node.container
    if container is scroller:  # the containing block is all of the scrollable overflow (inside the borders)
        block = Rect(port.x, port.y, port.width + scroller.scroll_max[0], port.height + scroller.scroll_max[1])
    else:
        block = _content_box(container, x, y)
    sx, sy = scroller.scroll
    box = device_scale.current().box(layer.box)
    return sticky_shift(Rect(x + box.x, y + box.y, box.width, box.height), StickyInsets.of(style, port),
                        Rect(port.x + sx, port.y + sy, port.width, port.height), block)


def _content_box(node: LayerNode, x: float, y: float) -> Rect:
    """The node's box inside its borders, its origin placed at (x, y)."""
    s = node.style
    if s.border_style in ("none", "hidden"):
        return Rect(x, y, node.width, node.height)
    left, top, right, bottom = s.border_left_width, s.border_top_width, s.border_right_width, s.border_bottom_width
    return Rect(x + left, y + top, max(node.width - left - right, 0.0), max(node.height - top - bottom, 0.0))


def clips_below(parent: LayerNode | None) -> tuple[Clip, ...]:
    """The clip chain of a child of ``parent``: the parent's own and its own clip."""
    if parent is None:
        return ()
    own = parent.clip()
    return parent.clips if own is None else parent.clips + (own,)


def clip_chain(node: LayerNode, parent: LayerNode | None = None) -> tuple[Clip, ...]:
    """The clips applying to ``node``'s own content: those of its container, then its
    own clip-path (in that order, so a filter's surface, which starts below the node's
    clips, filters it unclipped and the clip-path cuts the filtered result). A fixed
    layer escapes the overflow clips between it and its containing block, but not the
    clip-paths there: it paints inside those elements' stacking contexts, and browsers
    clip it (``parent``: its parent's node)."""
    chain = clips_below(node.container)
    if parent is not None and node.container is not parent:
        chain += tuple(c for c in parent.clips if c.kind is ClipKind.CLIP_PATH and c not in chain)
    return chain + node.shape_clips()


def containing_block(parent: LayerNode) -> LayerNode:
    """A fixed layer's containing block: the nearest ancestor with a transform (or one
    promised by will-change), a filter, a perspective or a computed transform-style of
    preserve-3d (CSS Transforms 2 §10: it establishes a containing block for all
    descendants, so a fixed child of a context's element is placed, and sorted, in its
    plane), else the root (the viewport)."""
    node = parent
    while node.container is not None:
        s = node.style
        if (s.transform or "transform" in s.will_change or s.filter is not None or s.perspective is not None
                or s.transform_style is _PRESERVE_3D):
            return node
        node = node.container
    return node


def scroll_range(layer: Layer, clip: Clip | None) -> tuple[float, float]:
    """How far a scroll container can scroll: the end of its scrollable overflow (the
    boxes of its descendants, where they are laid out; transforms do not move it, and
    a descendant's overflow counts only where no clip of its own hides it; fixed
    layers do not count) past its padding box."""
    if clip is None:
        return (0.0, 0.0)
    zoom = device_scale.current()
    right = bottom = 0.0
    stack = [(child, 0.0, 0.0) for child in layer.children]
    while stack:
        child, x, y = stack.pop()
        # The declared values (neither inherits): computing each child's whole style
        # here would cost as much as resolving it.
        position, overflow = child.style.cascaded("position"), child.style.cascaded("overflow")
        if position is None or overflow is None:  # written as inherit
            style = child.computed_style(None)
            position, overflow = style.position, style.overflow
        if position is Position.FIXED:
            continue
        box = zoom.box(child.box)
        x0, y0 = x + box.x, y + box.y
        right, bottom = max(right, x0 + box.width), max(bottom, y0 + box.height)
        if not overflow.clips:
            stack.extend((c, x0, y0) for c in child.children)
    return (max(0.0, right - clip.rect.right), max(0.0, bottom - clip.rect.bottom))


def used_scroll(node: LayerNode) -> tuple[float, float]:
    """The node's scroll offset from its style, clamped to its range as browsers clamp
    scrollTop and rounded to whole px; an offset on a box that is not a scroll
    container is an error."""
    s = node.style
    asked = (s.scroll_left, s.scroll_top)
    node.scroll_asked = asked
    if asked == (0.0, 0.0):
        return asked
    if not s.overflow.is_scroll_container:
        prop = "scroll-top" if s.scroll_top else "scroll-left"
        value = s.scroll_top if s.scroll_top else s.scroll_left
        raise StyleError(
            f"{prop} {value:g}px needs a scroll container (overflow: hidden, scroll or auto); "
            f"this layer's overflow is {s.overflow.value}",
            property=prop, value=f"{value:g}px", layer=node.id,
        )
    # Whole px, as composited scrolling snaps offsets to device pixels: a smooth scroll
    # then moves kept tiles instead of rastering them at a new sub-pixel phase.
    return (float(round(min(asked[0], node.scroll_max[0]))), float(round(min(asked[1], node.scroll_max[1]))))


def resolve_tree(root: Layer, t: float = 0.0, nodes: dict[str, LayerNode] | None = None) -> StackingContext:
    """Walk the layer tree once (animations sampled at ``t`` seconds) and return the
    root stacking context; every resolved node is also put in ``nodes`` by id."""

    zoom = device_scale.current()

    def node_for(layer: Layer, parent: LayerNode | None, depth: int) -> LayerNode:
        parent_style = parent.inherited_style if parent else None
        css_style = layer.sampled_style(layer.computed_style(parent_style), t, parent_style)
        style = zoom.style(css_style)
        local = own_transform(layer, style)
        fixed = parent is not None and style.position is _FIXED
        check_insets(layer.id, style)
        if parent is None and style.position is _STICKY:
            raise StyleError("position: sticky on the root layer: the root is the viewport, it has nothing to "
                             "stick in", property="position", value="sticky", layer=layer.id)
        container = containing_block(parent) if fixed else parent
        shift = (sticky_offset(layer, style, parent) if parent is not None and style.position is _STICKY
                 else (0.0, 0.0))
        scroller = None
        if container is not None:
            scroller = container.scroller if fixed else (
                container.id if container.style.overflow.is_scroll_container else container.scroller)
        node = LayerNode(layer, style, world(container, layer, local, fixed, shift, style), clips_below(container), depth,
                         local, zoom.box(layer.box), container, scroller)
        node.sticky = shift
        node.context3d = context_of(container, layer.id, style)
        node.css_style = None if style is css_style else css_style
        if style.clip_path is not None or (fixed and any(c.kind is ClipKind.CLIP_PATH for c in parent.clips)):
            node.clips = clip_chain(node, parent)
        if style.overflow.is_scroll_container:
            node.scroll_max = scroll_range(layer, node.clip())
            node.scroll = used_scroll(node)
        elif style.scroll_left or style.scroll_top:
            used_scroll(node)  # raises: an offset needs a scroll container
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
