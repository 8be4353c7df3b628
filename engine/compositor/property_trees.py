"""Property trees, as Chromium's cc keeps them: every layer's resolved state (its style
at the frame's time, its layer-to-screen matrix, the clip chain above it) and the
stacking contexts in CSS paint order, kept between frames and updated where something
changed.

A frame asks the scene what changed since the version it last saw (``changes_since``)
and samples only the layers that have animations. A change the trees can absorb in
place — a new transform, opacity, filter or paint colour that does not create or
remove a stacking context — updates that layer's node; a transform also updates its descendants'
matrices and clips (the transform subtree), and nothing else is touched, so an
animation frame costs about what changed, not O(layers). A scroll offset moves its
scroller's descendants the same way, unless the update is asked to defer scrolls (the
planner under a policy that scrolls contents as one tiled backing does): then only the
scroll node is updated and noted in ``deferred``, as cc moves a scroll node and not the
layers under it; ``refresh`` places one descendant when something reads it, and
``settle`` places them all (what an eager update would have done, reported as moved). Anything else (the tree's
shape, a box, z-index, an inherited property, a stacking context appearing) rebuilds
the trees from the layer tree, and ``TreeChanges`` says why.

``TreeChanges`` is also the frame's damage at the property level: which layers moved,
faded or filtered, and which animations started, stopped or began a new iteration.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field, fields
from typing import Mapping

from .. import device_scale
from ..layer import Layer
from ..style import ComputedStyle
from ..style.properties import LONGHANDS, fields_invalidating
from ..style.registry import Invalidation
from .tree import (
    LayerNode,
    StackingContext,
    clip_chain,
    clips_below,
    context_of,
    own_transform,
    resolve_tree,
    sticky_offset,
    used_scroll,
    world,
)

__all__ = ["PropertyTrees", "TreeChanges", "IN_PLACE_FIELDS", "TRANSFORM_FIELDS", "SCROLL_FIELDS", "PAINT_FIELDS"]

# Made from the properties' records (style.registry.Invalidation): the fields whose
# change moves a subtree, moves a scroller's descendants, changes what one layer paints
# and nothing else (its box, ink, clips, stacking and what it passes on stay: the
# planner re-rasters what it paints into, graph.fast_path), and those whose change the
# trees absorb in place (transform, scroll, effect — a backdrop-filter's too: only the planner reads it — and paint) without a rebuild.
TRANSFORM_FIELDS = fields_invalidating(Invalidation.TRANSFORM)
SCROLL_FIELDS = fields_invalidating(Invalidation.SCROLL)
IN_PLACE_FIELDS = frozenset(field for field, record in LONGHANDS.items() if record.in_place)
PAINT_FIELDS = fields_invalidating(Invalidation.PAINT) & IN_PLACE_FIELDS
_STYLE_FIELDS = tuple(f.name for f in fields(ComputedStyle))
# What TreeChanges.fields says for a node moved by an ancestor's transform, and for an
# animation whose running state or iteration changed.
MOVED = "to_screen"
ANIMATION_STATE = "animation-state"


@dataclass(frozen=True)
class TreeChanges:
    """What one update changed. ``rebuilt``: the trees were made anew (``why`` says
    what forced it; every node counts as changed). Otherwise ``fields`` maps each
    changed layer id to what changed: style field names, ``"to_screen"`` (moved with
    an ancestor's transform) or ``"animation-state"``."""

    rebuilt: bool
    why: str = ""
    fields: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def merged(self, more: Mapping[str, frozenset[str]]) -> "TreeChanges":
        """These changes and ``more`` (what settling deferred scrolls moved)."""
        if not more:
            return self
        out = {k: set(v) for k, v in self.fields.items()}
        for k, v in more.items():
            out.setdefault(k, set()).update(v)
        return TreeChanges(self.rebuilt, self.why, {k: frozenset(v) for k, v in out.items()})

    @property
    def nodes(self) -> frozenset[str]:
        return frozenset(self.fields)

    def __bool__(self) -> bool:
        return self.rebuilt or bool(self.fields)


class PropertyTrees:
    """The resolved layer tree of one scene, kept by a renderer between frames."""

    def __init__(self) -> None:
        self.root: StackingContext | None = None
        self.nodes: dict[str, LayerNode] = {}
        self.scroll_containers: list[LayerNode] = []  # overflow hidden / scroll / auto
        self._scene: weakref.ref | None = None
        self._version = -1
        self._scale = 1.0  # the device scale the nodes were resolved at (lamina.device_scale)
        self._t: float | None = None
        self._animation_state: dict[str, tuple] = {}
        self.rebuilds = 0  # how often the trees were made from scratch (tests, reports)
        # Scroll nodes whose offset changed while their descendants were left where they
        # were (update with defer_scrolls): placed by refresh (one) or settle (all).
        self.deferred: dict[str, LayerNode] = {}
        self._defer = False
        self._has_3d: bool | None = None  # made on first ask after each update

    @property
    def has_3d_contexts(self) -> bool:
        """Is any layer a member of a 3D rendering context (transform-style: preserve-3d)?"""
        if self._has_3d is None:
            self._has_3d = any(n.context3d is not None for n in self.nodes.values())
        return self._has_3d

    def update(self, scene, t: float, defer_scrolls: bool = False) -> TreeChanges:
        """Bring the trees to ``scene`` at time ``t``; return what changed. A typed error
        raised on the way (a style that cannot be laid out) leaves no half-updated trees:
        they are dropped, and the next update builds them from scratch. With
        ``defer_scrolls``, a change of scroll offsets alone leaves the scrollers'
        descendants unplaced (``deferred``); any other change places them first."""
        self._defer = defer_scrolls
        self._has_3d = None
        try:
            return self._update(scene, t)
        except BaseException:
            self.root, self.nodes, self.scroll_containers, self.deferred = None, {}, [], {}
            raise
        finally:
            self._defer = False

    def settle(self) -> dict[str, frozenset[str]]:
        """Place the descendants of every deferred scroll node, as an eager update would
        have; returns them as moved (TreeChanges.fields)."""
        out: dict[str, set[str]] = {}
        for node in self.deferred.values():
            self._move_subtree(node, out)
        self.deferred = {}
        return {k: frozenset(v) for k, v in out.items()}

    def refresh(self, node: LayerNode) -> None:
        """Place ``node`` and the containers between it and the deferred scroll node above
        it (if any) as settle would: the very matrices and clips an eager update gives."""
        chain, top = [], 0
        n = node
        while n is not None:  # up to the root: a deferred scroller may hold another
            if n.id in self.deferred:
                top = len(chain)
            chain.append(n)
            n = n.container
        for n in reversed(chain[:top]):  # below the topmost deferred scroller (none: nothing)
            parent = self.nodes[n.layer.parent.id]
            _place(n)
            n.clips = clips_below(parent) if n.container is parent and n.style.clip_path is None else clip_chain(n, parent)

    def _update(self, scene, t: float) -> TreeChanges:
        scale = device_scale.current().s
        same_scene = (self._scene is not None and self._scene() is scene and self.root is not None
                      and self._scale == scale)
        changed = scene.changes_since(self._version) if same_scene else None
        if changed is None:
            why = ("the device scale changed" if self.root is not None and self._scale != scale
                   else "first frame" if not same_scene else "the layer tree's shape changed")
            return self._rebuild(scene, t, why)
        candidates = {layer.id: layer for layer in changed}
        if t != self._t:
            for layer in scene.animated_layers():
                candidates.setdefault(layer.id, layer)
        out: dict[str, set[str]] = {}
        # Parents first: a child's style is computed from its parent's.
        for layer in sorted(candidates.values(), key=lambda l: self.nodes[l.id].depth if l.id in self.nodes else -1):
            why = self._update_layer(layer, t, out)
            if why:
                return self._rebuild(scene, t, why)
        if self.deferred and (not self._defer or any(k not in self.deferred or v - SCROLL_FIELDS for k, v in out.items())):
            # Not deferring now, or something else changed: every node is placed (one
            # updated under a deferred scroller was placed from stale containers).
            for k, v in self.settle().items():
                out.setdefault(k, set()).update(v)
        self._version, self._t = scene.version, t
        return TreeChanges(False, fields={k: frozenset(v) for k, v in out.items()})

    # -- in place ----------------------------------------------------------------------
    def _update_layer(self, layer: Layer, t: float, out: dict[str, set[str]]) -> str | None:
        """Update one layer's node; the reason to rebuild instead, if any."""
        node = self.nodes.get(layer.id)
        if node is None or node.layer is not layer:
            return f"layer {layer.id!r} is new"
        zoom = device_scale.current()
        if zoom.box(layer.box) != node.box:
            return f"the box of {layer.id!r} changed"
        parent = self.nodes.get(layer.parent.id) if layer.parent is not None else None
        parent_style = parent.inherited_style if parent is not None else None
        css_style = layer.sampled_style(layer.computed_style(parent_style), t, parent_style)
        style = zoom.style(css_style)
        state = _animation_state(layer, t)
        if state != self._animation_state.get(layer.id, ()):
            self._animation_state[layer.id] = state
            out.setdefault(layer.id, set()).add(ANIMATION_STATE)
        if style is node.style:
            return None
        diff = {f for f in _STYLE_FIELDS if getattr(style, f) != getattr(node.style, f)}
        if not diff:
            node.style, node.css_style = style, None if style is css_style else css_style
            return None
        if diff - IN_PLACE_FIELDS:
            return f"{', '.join(sorted(diff - IN_PLACE_FIELDS))} of {layer.id!r} changed"
        was_context = node.creates_stacking_context()
        old_style, node.style = node.style, style
        if node.creates_stacking_context() != was_context:
            node.style = old_style
            return f"{layer.id!r} {'now creates' if not was_context else 'no longer creates'} a stacking context"
        node.css_style = None if style is css_style else css_style
        out.setdefault(layer.id, set()).update(diff)
        if diff & SCROLL_FIELDS:
            node.scroll = used_scroll(node)
        if diff & TRANSFORM_FIELDS:
            node.local = own_transform(layer, style)
        if self._defer and diff <= SCROLL_FIELDS:
            self.deferred[node.id] = node  # its descendants are placed when read (refresh, settle)
        elif diff & (TRANSFORM_FIELDS | SCROLL_FIELDS):
            self._move_subtree(node, out)
        return None

    def _move_subtree(self, node: LayerNode, out: dict[str, set[str]]) -> None:
        """New matrices for ``node`` and everything under it, and the clips they carry
        (a scroll offset moves the descendants, not the node)."""
        _place(node)
        if node.style.clip_path is not None:
            parent = self.nodes.get(node.layer.parent.id) if node.layer.parent is not None else None
            node.clips = clip_chain(node, parent)  # its clip-path moves with it
        stack = [node]
        while stack:
            above = stack.pop()
            below = clips_below(above)  # once for all the children placed in ``above``
            for child_layer in above.layer.children:
                child = self.nodes[child_layer.id]
                _place(child)
                if child.container is above and child.style.clip_path is None:
                    child.clips = below
                else:  # its own clip-path, or a fixed layer's (and its ancestors' clip-paths)
                    child.clips = clip_chain(child, above)
                out.setdefault(child.id, set()).add(MOVED)
                stack.append(child)

    # -- from scratch ------------------------------------------------------------------
    def _rebuild(self, scene, t: float, why: str) -> TreeChanges:
        self.nodes, self.deferred = {}, {}
        # A children list cannot be changed but through add() (LayerChildren); a tree forced
        # past that (list.append on it) is refused here, before the walk that recurses
        # along it: once per rebuild, which walks every layer anyway.
        scene.root.check_tree()
        self.root = resolve_tree(scene.root, t, self.nodes)
        self.scroll_containers = [n for n in self.nodes.values() if n.style.overflow.is_scroll_container]
        self._animation_state = {layer.id: _animation_state(layer, t) for layer in scene.animated_layers()}
        self._scene = weakref.ref(scene)
        self._version, self._t = scene.version, t
        self._scale = device_scale.current().s
        self.rebuilds += 1
        return TreeChanges(True, why, {})


def _animation_state(layer: Layer, t: float) -> tuple:
    """Which of the layer's animations run at ``t``, and in which iteration: what the
    browser policy's promotion and overlap decisions depend on besides the style."""
    state = []
    for a in layer.animations:
        active = a.is_active(t)
        iteration = math.floor((t - a.delay) / a.duration) if active and a.duration > 0 else -1
        state.append((active, iteration))
    return tuple(state)


def _place(node: LayerNode) -> None:
    """A node's matrix again, with a sticky layer's shift measured anew (its scroller,
    an ancestor, may have moved it), as resolve_tree places it."""
    if node.is_sticky:
        node.sticky = sticky_offset(node.layer, node.style, node.container)
    node.to_screen = world(node.container, node.layer, node.local, node.is_fixed, node.sticky, node.style)
    node.context3d = context_of(node.container, node.id, node.style)
