"""Scene: the viewport, its background and the root of the layer tree.

``scene.render()`` runs the whole pipeline (compositor decisions -> frame graph ->
GPU execution) and returns a ``Frame``. A scene knows where its image files may be read
from (``file_access``, see lamina.file_access) and, when it was loaded from a file, where
each layer was written (``source``), so errors found while rendering name the place.
"""

from __future__ import annotations

import json
import math
import numbers
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

from .graph import ExecutorFacts, build_frame_graph
from .limits import MAX_LAYERS
from .errors import (FontUnavailableError, GeometryError, ImageLoadError, LaminaError, LaminaInputError, LayerTreeError,
                     SceneFileError, StyleError, SvgFilterError, TextureTooLargeError)
from .device_scale import check_frame_fits, device_size, parse_device_scale
from .file_access import FileAccess
from .animation.svg_attributes import MAX_SVG_ANIMATIONS, SvgAttributeAnimation
from .filters.svg import SvgDocument, parse_svg
from .frame import Frame
from .framegraph import FrameGraph
from .images import ImageStore
from .layer import Layer
from .renderer import Renderer, current_limits, default_renderer
from .request import FrameRequest
from .scene_writer import scene_to_dict
from .suggest import did_you_mean

__all__ = ["Scene", "SceneSource", "MAX_VIEWPORT", "TOO_LARGE_HINT"]

MAX_VIEWPORT = 16384  # the frame must fit in one texture; the GPU limit is checked too
# What to do instead of a frame over MAX_VIEWPORT: what a browser does with a long page.
TOO_LARGE_HINT = (f"a frame is at most {MAX_VIEWPORT} px on a side; for a larger page, give the scene the "
                  "viewport's size and make the root a scroller (style it 'overflow: auto' and scroll with "
                  "'scroll-top' or root.scroll_to()): its contents may be any size and are tiled "
                  "(README: Long pages and scrolling)")


@dataclass
class SceneSource:
    """Where a scene loaded from a file was written: the file, each layer's JSON path and
    the JSON paths of the strings in a layer that hold a ``url()`` (so that an image error
    found at render time names the text that named the image)."""

    file: str | None = None
    layers: dict[str, str] = field(default_factory=dict)
    urls: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def path_of(self, layer: str | None, url: str | None = None) -> str | None:
        """The JSON path of the text holding ``url`` in ``layer``, else of the layer."""
        if layer is None:
            return None
        if url:
            texts = self.urls.get(layer, ())
            # The url as a whole token first ("a.png" must not match "url(banana.png)").
            delimited = [f"{a}{url}{b}" for a, b in (("(", ")"), ('"', '"'), ("'", "'"))]
            for path, text in texts:
                if any(d in text for d in delimited):
                    return path
            for path, text in texts:
                if url in text:
                    return path
        return self.layers.get(layer)


# Errors found while rendering that name a layer: located in the scene file they came from.
_IDS_LISTED = 12  # an unknown-id error lists this many of the scene's ids
_LOCATED = (ImageLoadError, TextureTooLargeError, FontUnavailableError)


class Scene:
    """A viewport of ``width`` x ``height`` CSS px whose root layer paints ``background``.

    ``device_scale_factor`` (the device pixel ratio, lamina.device_scale) is device px
    per CSS px of its frames: a frame is ``device_size`` px, everything in it scaled as a
    browser at that ratio draws it (Chromium's ``--force-device-scale-factor``).

    ``base_dir`` is where relative ``url()`` image paths are looked up (a scene file's
    folder when loaded from one, else the current directory); ``file_access`` says which
    files they may reach: anything for a scene built in Python, the scene file's folder
    (and what the caller allowed) for one loaded from a file. Give one or the other.
    """

    def __init__(
        self,
        width: int,
        height: int,
        background: str = "white",
        *,
        base_dir: str | Path | None = None,
        file_access: FileAccess | None = None,
        device_scale_factor: float = 1.0,
    ) -> None:
        for name, v in (("width", width), ("height", height)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise GeometryError(f"scene {name} must be a number, got {v!r}")
            if not (isinstance(v, numbers.Integral) or math.isfinite(v)) or v != int(v) or not 1 <= v <= MAX_VIEWPORT:
                hint = f"; {TOO_LARGE_HINT}" if isinstance(v, numbers.Real) and v > MAX_VIEWPORT else ""
                raise GeometryError(f"scene {name} must be a whole number from 1 to {MAX_VIEWPORT}, got {v!r}{hint}")
        self.width = int(width)
        self.height = int(height)
        self.device_scale_factor = device_scale_factor  # checked by the property
        if file_access is not None and base_dir is not None:
            raise LaminaInputError("give a scene base_dir or file_access, not both (file_access has its base_dir)")
        if file_access is not None and not isinstance(file_access, FileAccess):
            raise LaminaInputError(f"file_access must be a lamina.file_access.FileAccess, got {file_access!r}")
        self.file_access = file_access if file_access is not None else FileAccess.unrestricted(base_dir)
        self.source: SceneSource | None = None  # set by lamina.scene_file for a loaded scene
        self.version = 0
        self.description = ""  # what the scene shows (scene files' "description")
        self.filter_backend = "gl"  # where filter passes run: "gl", "opencl", "auto"
        # How golden tests render and compare it: {"t", "policy", "max_diff", ...}
        self.golden: dict = {}
        self._svg: SvgDocument | None = None  # its SVG <filter> elements (add_svg)
        self.svg_markup: list[str] = []  # each markup given to add_svg, as given (scene files keep it)
        self.svg_animations: list[SvgAttributeAnimation] = []  # animate_svg, in the order given
        self._ids: dict[str, Layer] = {}
        # What changed, for renderers that keep resolved state between frames (property
        # trees): (scene version, layer) per change, None for a change of the tree's
        # shape. Bounded: a reader older than _log_floor starts again from scratch.
        self._log: list[tuple[int, Layer | None]] = []
        self._log_floor = 0
        self._animated: dict[str, Layer] = {}  # layers with animations, sampled every frame
        # Held while a renderer plans this scene: planning reads the layers and fills
        # their memos, so renderers of several threads planning one scene take turns
        # (their execution, of their own graphs, runs at the same time).
        self.planning = threading.RLock()
        self.root = Layer("root", (0, 0, self.width, self.height), {"background-color": background})
        self.root.scene = self
        self._ids["root"] = self.root

    @property
    def device_scale_factor(self) -> float:
        """Device px per CSS px of its frames (lamina.device_scale): the scene stays in CSS
        px, a frame is ``device_size`` device px. A finite number in (0, 8], and the frame
        must fit one texture (16384 px a side): else a typed error naming it."""
        return self._device_scale_factor

    @device_scale_factor.setter
    def device_scale_factor(self, value: float) -> None:
        scale = parse_device_scale(value)
        check_frame_fits(self.width, self.height, scale, MAX_VIEWPORT)
        self._device_scale_factor = scale
        if hasattr(self, "_log"):
            self._note(None)  # every node is resolved anew at the new scale

    @property
    def device_size(self) -> tuple[int, int]:
        """The frame's size in device px: (width, height) x ``device_scale_factor``, rounded."""
        return device_size(self.width, self.height, self._device_scale_factor)

    @property
    def background(self) -> str:
        return self.root.style.get("background-color", "transparent")

    @property
    def base_dir(self) -> Path | None:
        """Where relative ``url()`` paths start: ``file_access``'s folder."""
        return self.file_access.base_dir

    @base_dir.setter
    def base_dir(self, value: str | Path | None) -> None:
        # The same policy from another folder (a confined scene is confined there now).
        self.file_access = replace(self.file_access, base_dir=None if value is None else Path(value))

    # -- error locations ----------------------------------------------------------------
    def locate(self, err: LaminaError) -> LaminaError:
        """``err`` (an image, texture-size or font error from rendering) with this scene's file
        and the JSON path of its layer filled in; unchanged for a scene built in Python."""
        if self.source is None or not isinstance(err, _LOCATED):
            return err
        return err.located(path=self.source.path_of(err.layer, getattr(err, "url", None)), file=self.source.file)

    @contextmanager
    def located_errors(self) -> Iterator[None]:
        """Inside: image, texture-size and font errors are re-raised ``locate``d, and style
        errors of a layer from a scene file as SceneFileErrors at its style (the original
        is their cause)."""
        try:
            yield
        except _LOCATED as err:
            located = self.locate(err)
            if located is err:
                raise
            raise located from err
        except StyleError as err:
            # A style that parsed but cannot be drawn as it is (an offset on a box that
            # does not scroll, effects Lamina cannot combine): from a scene file, a
            # SceneFileError at the layer's style, as a style that does not parse is.
            where = self.source.path_of(err.layer) if self.source is not None else None
            if where is None:
                raise
            raise SceneFileError(str(err), path=f"{where}.style", file=self.source.file) from err

    # -- registry -----------------------------------------------------------------------
    def _register(self, layer: Layer) -> None:
        new = list(layer.walk())
        if len(self._ids) + len(new) > MAX_LAYERS:
            raise LayerTreeError(f"adding layer {layer.id!r} ({len(new)} with its descendants) makes "
                                 f"{len(self._ids) + len(new)} layers, more than the {MAX_LAYERS} a scene may have "
                                 "(lamina.limits.MAX_LAYERS)")
        seen: set[str] = set()
        for node in new:
            if node.id in self._ids or node.id in seen:
                raise LayerTreeError(f"duplicate layer id {node.id!r}: ids must be unique in a scene")
            seen.add(node.id)
        for node in new:
            node.scene = self
            self._ids[node.id] = node
            if node.animations:
                self._animated[node.id] = node
        self._note(None)

    def _unregister(self, layer: Layer) -> None:
        for node in layer.walk():
            node.scene = None
            self._ids.pop(node.id, None)
            self._animated.pop(node.id, None)
        self._note(None)

    def _changed(self, layer: Layer) -> None:
        if layer.animations:
            self._animated[layer.id] = layer
        else:
            self._animated.pop(layer.id, None)
        self._note(layer)

    _LOG_LIMIT = 4096

    def _note(self, layer: Layer | None) -> None:
        self.version += 1
        if len(self._log) >= self._LOG_LIMIT:
            self._log.clear()
            self._log_floor = self.version - 1
        self._log.append((self.version, layer))

    def changes_since(self, version: int) -> list[Layer] | None:
        """The layers changed after scene ``version`` (each once), or None when the
        tree's shape changed since (or the log no longer reaches that far back)."""
        if version < self._log_floor:
            return None
        out: dict[int, Layer] = {}
        for v, layer in reversed(self._log):
            if v <= version:
                break
            if layer is None:
                return None
            out[id(layer)] = layer
        return list(out.values())

    def animated_layers(self) -> list[Layer]:
        """Layers that have animations (sampled at every frame's time)."""
        return list(self._animated.values())

    def find(self, id: str) -> Layer | None:
        return self._ids.get(id)

    def __getitem__(self, id: str) -> Layer:
        try:
            return self._ids[id]
        except KeyError:
            raise KeyError(self.no_layer_message(id)) from None

    def no_layer_message(self, id: str) -> str:
        """``no layer with id 'x'``, with the near match and the ids there are: what an
        error about an unknown layer id says."""
        ids = list(self._ids)
        hint = did_you_mean(str(id), ids)
        shown = ", ".join(repr(i) for i in ids[:_IDS_LISTED])
        more = f" and {len(ids) - _IDS_LISTED} more" if len(ids) > _IDS_LISTED else ""
        return f"no layer with id {id!r}" + (f"; {hint}" if hint else "") + f" (the layers: {shown}{more})"

    # -- SVG filters --------------------------------------------------------------------
    @property
    def svg(self) -> SvgDocument | None:
        """The scene's SVG filters (``add_svg``), or None."""
        return self._svg

    def add_svg(self, markup: str) -> SvgDocument:
        """Add SVG markup (an ``<svg>`` holding ``<filter>`` elements, as a page inlines
        it) whose filters layers name with ``filter: url(#id)``. It is read and checked now
        (a typed error names the element, attribute and line); its filters join those
        added before, and an id given twice is refused."""
        document = parse_svg(markup)
        if self._svg is not None:
            twice = sorted(set(self._svg.filters) & set(document.filters))
            if twice:
                raise SvgFilterError(f"the scene already has a <filter id={twice[0]!r}>", attribute="id", value=twice[0])
            document = SvgDocument({**self._svg.filters, **document.filters})
        self._svg = document
        self.svg_markup.append(markup)
        self._note(None)
        return document

    def animate_svg(self, filter_ref: str, keyframes, *, duration, **options) -> SvgAttributeAnimation:
        """Animate attributes of the primitives of the scene's ``<filter>`` ``filter_ref``
        ("#id"): keyframes map offsets to {"PRIMITIVE.ATTRIBUTE": value} (PRIMITIVE a
        result name or [n]; lamina.animation.svg_attributes), with the timing options of
        Layer.animate. Checked now: a typed SvgFilterError names an unknown filter,
        primitive or attribute, or one that is not animatable. ``render(t=...)`` samples it."""
        if len(self.svg_animations) >= MAX_SVG_ANIMATIONS:
            raise LayerTreeError(f"the scene has {len(self.svg_animations)} SVG attribute animations already, the most "
                                 "it may have (lamina.animation.svg_attributes.MAX_SVG_ANIMATIONS)")
        animation = SvgAttributeAnimation.create(self._svg, filter_ref, keyframes, duration=duration, **options)
        self.svg_animations.append(animation)
        self._note(None)
        return animation

    def svg_at(self, t: float) -> SvgDocument | None:
        """The scene's SVG filters with their attribute animations sampled at ``t``
        (later animations of an attribute win, as later CSS animations do)."""
        document = self._svg
        for animation in self.svg_animations:
            document = animation.apply(t, document)
        return document

    def layers(self) -> list[Layer]:
        """All layers in tree order, root first."""
        return list(self.root.walk())

    # -- pipeline -----------------------------------------------------------------------
    def plan(self, renderer: Renderer | None = None, request: FrameRequest | None = None, **options) -> FrameGraph:
        """The frame graph of a first frame for ``request`` (a FrameRequest, or its
        fields as keywords: ``t``, ``policy``, ``filter_backend``, ``limits``,
        ``cost_model``), built without touching the GPU: the graph a fresh renderer
        would run for the same request (limits default to ``renderer``'s, else to the
        current renderer's). Filter backend "auto" without a ``cost_model`` keeps the
        passes on GL here and says so; ``renderer.plan`` measures."""
        request = FrameRequest.of(request, **options)
        limits = request.limits or (renderer.limits if renderer is not None else current_limits())
        images = ImageStore()
        images.begin_frame(self.file_access)
        # A fresh executor as the planner sees it: nothing kept; "auto" prices by the request's model.
        facts = ExecutorFacts(limits=limits, filter_costs=request.cost_model)
        with self.located_errors():
            return build_frame_graph(self, request, limits, images, facts=facts)

    def render(self, renderer: Renderer | None = None, request: FrameRequest | None = None, **options) -> Frame:
        """Render the frame for ``request`` (or its fields as keywords, as ``plan``
        takes them: ``t`` seconds where animations are sampled, the compositing
        ``policy`` — see lamina.compositor.policy — and ``filter_backend``, which
        overrides the scene's own), on the shared default renderer unless one is given."""
        return (renderer or default_renderer()).render(self, request, **options)

    # -- files --------------------------------------------------------------------------
    def to_dict(self, *, embed_images: bool = False) -> dict[str, Any]:
        """Scene-file data (see lamina.scene_writer.scene_to_dict)."""
        with self.located_errors():
            return scene_to_dict(self, embed_images=embed_images)

    def to_json(self, *, indent: int | None = 2, embed_images: bool = False) -> str:
        return json.dumps(self.to_dict(embed_images=embed_images), indent=indent)

    def __repr__(self) -> str:
        return f"Scene({self.width}x{self.height}, layers={len(self._ids)})"
