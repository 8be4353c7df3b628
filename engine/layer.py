"""Layer: one CSS-styled box of the layer tree (the user-facing node).

A layer has an id, a box (x, y, width, height) relative to its parent's box, children in
paint order, a ``Style`` (CSS text or a dict of properties, parsed on assignment) and
optionally an in-memory image used as its ``background-image`` and a text laid out in its
box.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import replace
from typing import Any, Iterator, Mapping, Protocol, Sequence

import numpy as np

from .animation import Animation
from .errors import GeometryError, ImageLoadError, InvalidValueError, LayerTreeError, StyleError
from .geometry import Rect
from .images import check_image_array
from .limits import MAX_ANIMATIONS_PER_LAYER, MAX_TEXT_LENGTH
from .style import ComputedStyle, Style
from .css.bounds import lone_surrogate_at
from .css.values import ImageRef

__all__ = ["Layer", "LayerChildren", "LayerHost", "MAX_COORDINATE", "MAX_TREE_DEPTH"]


class LayerHost(Protocol):
    """What a layer tree is attached to (a Scene): it keeps the id registry and hears of
    every change (``_changed(layer)``: that layer's box, style, image, animations or
    children). Layers know only this, so the layer tree sits below the scene."""

    root: "Layer"

    def _register(self, layer: "Layer") -> None: ...

    def _unregister(self, layer: "Layer") -> None: ...

    def _changed(self, layer: "Layer") -> None: ...

# Coordinates beyond this are certainly a mistake (and lose float32 precision on the GPU).
MAX_COORDINATE = 1_000_000.0
# Deeper trees are refused with a clear error rather than a RecursionError somewhere.
MAX_TREE_DEPTH = 256


def _check_box(box: Any, where: str) -> Rect:
    if isinstance(box, Rect):
        values = (box.x, box.y, box.width, box.height)
    else:
        try:
            values = tuple(box)
        except TypeError:
            raise GeometryError(f"{where}: box must be (x, y, width, height), got {box!r}") from None
    if len(values) != 4:
        raise GeometryError(f"{where}: box must have 4 numbers (x, y, width, height), got {len(values)}")
    out = []
    for name, v in zip(("x", "y", "width", "height"), values):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise GeometryError(f"{where}: box {name} must be a number, got {v!r}")
        try:
            v = float(v)
        except OverflowError:
            raise GeometryError(f"{where}: box {name} is too large") from None
        if not math.isfinite(v):
            raise GeometryError(f"{where}: box {name} is {v} (must be finite)")
        if name in ("width", "height") and v < 0:
            raise GeometryError(f"{where}: box {name} is negative ({v:g})")
        if abs(v) > MAX_COORDINATE:
            raise GeometryError(f"{where}: box {name} = {v:g} is beyond ±{MAX_COORDINATE:g} px")
        out.append(v)
    return Rect(*out)


def _met_twice(layer: "Layer", top: "Layer") -> LayerTreeError:
    return LayerTreeError(
        f"layer {layer.id!r} is met twice in the tree under {top.id!r}: a children list holds one of its own "
        "ancestors (a cycle) or a layer another list holds; change children with add() and remove(), which refuse both")


class LayerChildren(list):
    """A layer's children in paint order: a list to read (index, iterate, ``len``),
    changed only through ``Layer.add`` and ``Layer.remove``, which keep the tree a tree
    (no cycle, no layer in two lists, a bounded depth) and tell its scene. Changed
    directly it raises LayerTreeError, at the change: no frame has to walk the whole tree
    to find a cycle made by hand."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise LayerTreeError("a layer's children change through add() and remove() (which keep the tree a tree "
                             "and tell its scene), not by changing the children list")

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self) -> tuple:
        return (LayerChildren, (list(self),))  # (list.__init__ fills it without extend)


class Layer:
    """A box in the layer tree. ``add`` children in paint order; set ``style`` entries
    with CSS text (``layer.style["opacity"] = "0.5"``)."""

    def __init__(
        self,
        id: str,
        box: Sequence[float] | Rect = (0.0, 0.0, 0.0, 0.0),
        style: str | Mapping[str, str] | None = None,
        *,
        image: Any = None,
        children: Sequence["Layer"] = (),
        content: str | None = None,
        text: str | None = None,
    ) -> None:
        self.scene: LayerHost | None = None  # (before the id: renaming checks it)
        self.id = id
        self._box = _check_box(box, f"layer {id!r}")
        self.parent: Layer | None = None
        self.children: LayerChildren = LayerChildren()
        self.version = 0
        self._style = Style(style, on_change=self._changed, owner=id)
        self._image: ImageRef | None = None
        self._text: str | None = None
        self.animations: list = []
        if content not in (None, "video", "canvas"):
            raise LayerTreeError(f"layer {id!r}: content must be 'video', 'canvas' or None, got {content!r}")
        # External content that changes on its own (a video's frames, a canvas drawn by
        # script): browsers give it a layer of its own; so does the browser policy.
        self.content = content
        if image is not None:
            self.image = image
        if text is not None:
            self.text = text
        for child in children:
            self.add(child)

    # -- properties ---------------------------------------------------------------------
    @property
    def box(self) -> Rect:
        return self._box

    @box.setter
    def box(self, value: Sequence[float] | Rect) -> None:
        self._box = _check_box(value, f"layer {self.id!r}")
        self._changed()

    @property
    def style(self) -> Style:
        return self._style

    @style.setter
    def style(self, value: str | Mapping[str, str] | None) -> None:
        self._style = Style(value, on_change=self._changed, owner=self.id)
        self._changed()

    @property
    def image(self) -> ImageRef | None:
        """Background image given through the API: a numpy array, a Pillow image,
        encoded image bytes or a file path (read wherever it points: the caller wrote
        it; a scene file's confinement covers only its ``url()`` text)."""
        return self._image

    @image.setter
    def image(self, value: Any) -> None:
        if value is None:
            self._image = None
        elif isinstance(value, ImageRef):
            self._image = value
        elif isinstance(value, str) or hasattr(value, "__fspath__"):
            self._image = ImageRef(url=str(value), unconfined=True)
        elif isinstance(value, (bytes, bytearray)) or (hasattr(value, "convert") and hasattr(value, "size")):
            self._image = ImageRef(data=value)  # encoded bytes / Pillow: checked when decoded
        elif isinstance(value, (np.ndarray, list, tuple)) or hasattr(value, "__array__"):
            # Refused now, not at the first render: the mistake is on this line.
            try:
                check_image_array(np.asarray(value), layer=self.id)
            except (ValueError, TypeError) as exc:
                raise ImageLoadError(f"not an image array ({exc})", layer=self.id) from None
            self._image = ImageRef(data=value)
        else:
            raise ImageLoadError(
                "expected a numpy array, a Pillow image, encoded image bytes or a file path, "
                f"got {type(value).__name__} {repr(value)[:40]}", layer=self.id)
        self._changed()

    @property
    def text(self) -> str | None:
        """The layer's text content, laid out in its box and painted after its background
        and border with its text properties (color, font-*, line-height, text-align,
        letter-spacing, white-space, text-shadow); None for no text."""
        return self._text

    @text.setter
    def text(self, value: str | None) -> None:
        if value is not None and not isinstance(value, str):
            raise InvalidValueError(f"text must be a string or None, got {type(value).__name__}",
                                    property="text", layer=self.id)
        if value is not None and len(value) > MAX_TEXT_LENGTH:  # HarfBuzz refuses paragraphs not much longer
            raise InvalidValueError(f"text is {len(value)} characters long; at most {MAX_TEXT_LENGTH} are supported "
                                    "(lamina.limits.MAX_TEXT_LENGTH)", property="text", layer=self.id)
        bad = None if value is None else lone_surrogate_at(value)
        if bad is not None:  # the shaper and every report would fail on it
            raise InvalidValueError(f"text must be valid Unicode: it has a lone surrogate (U+{ord(value[bad]):04X}) "
                                    f"at index {bad}", property="text", layer=self.id)
        self._text = value
        self._changed()

    def scroll_to(self, x: float | None = None, y: float | None = None) -> None:
        """Set the scroll offset (the DOM's scrollLeft / scrollTop; the style properties
        ``scroll-left`` / ``scroll-top``). The layer must be a scroll container
        (overflow hidden, scroll or auto); offsets past the end are clamped when the
        frame is planned, and the report says so."""
        for name, value in (("x", x), ("y", y)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise GeometryError(f"layer {self.id!r}: scroll {name} must be a finite number of px, got {value!r}")
            if value < 0:
                raise GeometryError(f"layer {self.id!r}: scroll {name} is negative ({value:g})")
        if x is not None:
            self._style["scroll-left"] = f"{float(x)!r}px"
        if y is not None:
            self._style["scroll-top"] = f"{float(y)!r}px"

    # -- animations ---------------------------------------------------------------------
    def animate(self, keyframes, *, duration, **options):
        """Add a keyframe animation (see lamina.animation.Animation.create) and return
        it; ``scene.render(t=seconds)`` samples it."""
        if len(self.animations) >= MAX_ANIMATIONS_PER_LAYER:
            raise LayerTreeError(f"layer {self.id!r} has {len(self.animations)} animations already, the most one layer "
                                 f"may have (lamina.limits.MAX_ANIMATIONS_PER_LAYER)")
        try:
            animation = Animation.create(keyframes, duration=duration, **options)
        except StyleError as err:
            raise err.located(layer=self.id) from None
        self.animations.append(animation)
        self._changed()
        return animation

    def sampled_style(self, style: ComputedStyle, t: float, parent: ComputedStyle | None = None) -> ComputedStyle:
        """``style`` with this layer's animations applied at time ``t`` (seconds);
        ``parent`` is the parent's style (for ``inherit`` in keyframes)."""
        if not self.animations:
            return style
        box = (self._box.width, self._box.height)
        for animation in self.animations:
            overrides = animation.sample(t, style, box, parent)
            if overrides:
                style = replace(style, **overrides)
        return style

    # -- tree ---------------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        # The id keys the scene's lookups, the property trees and the renderer's kept
        # textures: a layer in a scene keeps its id (renamed under them, another layer's
        # paint would be drawn for it). Checked here, not in a property, so reading
        # ``layer.id`` (thousands of times a frame) stays a plain attribute read.
        if name == "id":
            if not isinstance(value, str) or not value.strip():
                raise LayerTreeError(f"layer id must be a non-empty string, got {value!r}"[:200])
            bad = lone_surrogate_at(value)
            if bad is not None:  # it could not be printed, written or encoded (--explain, reports)
                raise LayerTreeError(f"a layer id must be valid Unicode: it has a lone surrogate (U+{ord(value[bad]):04X}) "
                                     f"at index {bad}")
            if self.__dict__.get("scene") is not None and self.__dict__.get("parent") is None:
                raise LayerTreeError(f"the root layer {self.__dict__['id']!r} of a scene keeps its id (renamed to {value!r})")
            if self.__dict__.get("scene") is not None:
                raise LayerTreeError(
                    f"layer {self.__dict__['id']!r} cannot be renamed to {value!r} while it is in a scene: ids key "
                    "the scene's lookups and the renderer's kept textures; remove it from its parent, rename it, "
                    "then add it again")
            style = self.__dict__.get("_style")
            if style is not None:
                style.owner = value  # its errors name the layer by its new id
        elif name == "children" and "children" in self.__dict__:
            raise LayerTreeError(f"layer {self.__dict__['id']!r}: children change through add() and remove(), "
                                 "not by replacing the list")
        object.__setattr__(self, name, value)

    def add(self, child: "Layer") -> "Layer":
        """Append ``child`` (painted after existing children) and return it."""
        if not isinstance(child, Layer):
            raise LayerTreeError(f"layer {self.id!r}: can only add Layer objects, got {type(child).__name__}")
        if child.parent is not None or child.scene is not None and child is child.scene.root:
            raise LayerTreeError(f"layer {child.id!r} already has a parent; remove it first")
        node: Layer | None = self
        depth = 0
        while node is not None:
            if node is child:
                raise LayerTreeError(f"adding layer {child.id!r} under {self.id!r} would make a cycle")
            node = node.parent
            depth += 1
        if depth + child.height() > MAX_TREE_DEPTH:
            raise LayerTreeError(
                f"adding layer {child.id!r} under {self.id!r} makes the tree deeper than {MAX_TREE_DEPTH} levels"
            )
        if self.scene is not None:
            self.scene._register(child)
        child.parent = self
        list.append(self.children, child)  # (the list refuses changes made by others)
        self._changed()
        return child

    def remove(self, child: "Layer") -> None:
        if child.parent is not self:
            raise LayerTreeError(f"layer {child.id!r} is not a child of {self.id!r}")
        list.remove(self.children, child)
        child.parent = None
        if self.scene is not None:
            self.scene._unregister(child)
        self._changed()

    def walk(self) -> Iterator["Layer"]:
        """This layer and its descendants, in tree (pre-)order. A layer met twice (a
        ``children`` list changed by hand into a cycle, or two lists sharing a layer) is
        a LayerTreeError, not an endless walk."""
        stack, seen = [self], set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                raise _met_twice(node, self)
            seen.add(id(node))
            yield node
            stack.extend(reversed(node.children))

    def height(self) -> int:
        """Levels in this subtree (1 for a leaf); a LayerTreeError for a cycle, as walk."""
        best, stack, seen = 0, [(self, 1)], set()
        while stack:
            node, level = stack.pop()
            if id(node) in seen:
                raise _met_twice(node, self)
            seen.add(id(node))
            best = max(best, level)
            stack.extend((c, level + 1) for c in node.children)
        return best

    def check_tree(self) -> None:
        """Raise LayerTreeError unless the tree under this layer is a tree however it
        was made (``children`` lists can be changed without ``add``): no layer met twice
        (so no cycle) and no deeper than MAX_TREE_DEPTH. The planner recurses along it."""
        stack, seen = [(self, 1)], set()
        while stack:
            node, level = stack.pop()
            if id(node) in seen:
                raise _met_twice(node, self)
            if level > MAX_TREE_DEPTH:
                raise LayerTreeError(f"layer {node.id!r} is {level} levels deep under {self.id!r}, deeper than the "
                                     f"{MAX_TREE_DEPTH} levels a tree may have (lamina.layer.MAX_TREE_DEPTH)")
            seen.add(id(node))
            stack.extend((c, level + 1) for c in node.children)

    def find(self, id: str) -> "Layer | None":
        return next((layer for layer in self.walk() if layer.id == id), None)

    # -- style --------------------------------------------------------------------------
    def computed_style(self, parent: ComputedStyle | None = None) -> ComputedStyle:
        """The layer's ComputedStyle given its parent's (for inherited properties)."""
        style = self._style.computed(parent)
        if self._image is not None:
            memo = getattr(self, "_image_memo", None)
            if memo is not None and memo[0] is style and memo[1] is self._image:
                style = memo[2]  # (and on to the text: a layer may have both)
            else:
                if style.background_image is not None:
                    raise StyleError(
                        "the layer has both an image= source and a background-image in its style",
                        property="background-image",
                        layer=self.id,
                    )
                base = style
                style = replace(style, background_image=self._image)
                self._image_memo = (base, self._image, style)
        if self._text is not None:
            # Carried in the style like image=, so a new text is a style change that the
            # property trees and the paint cache see (and nothing else has to look).
            memo = getattr(self, "_text_memo", None)
            if memo is not None and memo[0] is style and memo[1] is self._text:
                return memo[2]
            base = style
            style = replace(style, text=self._text)
            self._text_memo = (base, self._text, style)
        return style

    def _changed(self) -> None:
        self.version += 1
        if self.scene is not None:
            self.scene._changed(self)

    def __repr__(self) -> str:
        b = self._box
        return f"Layer({self.id!r}, box=({b.x:g}, {b.y:g}, {b.width:g}, {b.height:g}), style={self._style.to_css()!r}, children={len(self.children)})"
