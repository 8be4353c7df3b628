"""Scene files: JSON that mirrors the API (see engine/schema/scene.schema.json).

``load_scene`` validates as it builds, so every error names its JSON path
(``$.layers[1].children[0].box``) and, for CSS, the column inside the style text; it
records where each layer was written (``Scene.source``), so errors found while rendering
(a missing image) name the place too. A scene loaded from a file reads images only
inside its folder and the folders the caller allowed (lamina.file_access).
``scene_to_dict`` writes the same format; in-memory images become PNG data: URLs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable

from .compositor.policy import POLICIES
from .errors import (GeometryError, GoldenError, LayerTreeError, SceneFileError, StyleError, SvgFilterError,
                     TextureTooLargeError, UnsupportedFeatureError)
from .limits import MAX_SCENE_FILE_BYTES
from .bounded_read import InputTooLarge, read_bounded
from .css.bounds import lone_surrogate_at
from .file_access import FileAccess
from .filters.backend import FILTER_BACKENDS
from .fuzzy import FuzzyRange, parse_ratio
from .layer import MAX_TREE_DEPTH, Layer
from .scene import MAX_VIEWPORT, TOO_LARGE_HINT, Scene, SceneSource
from .scene_writer import FORMAT_VERSION, scene_to_dict

__all__ = ["load_scene", "scene_from_dict", "scene_to_dict", "SCHEMA_PATH", "FORMAT_VERSION"]

SCHEMA_PATH = Path(__file__).parent / "schema" / "scene.schema.json"
_TOP_KEYS = {"$schema", "lamina", "width", "height", "device_scale_factor", "background", "style", "layers", "description", "golden",
             "filter_backend", "svg", "svg_animations"}
_GOLDEN_KEYS = {"t", "policy", "max_diff", "max_pixels", "max_alpha_diff", "max_pixel_ratio"}
_LAYER_KEYS = {"id", "box", "style", "children", "animations", "content", "text"}
_ANIMATION_KEYS = {"keyframes", "duration", "delay", "easing", "iterations", "direction", "fill", "name"}
_SVG_ANIMATION_KEYS = _ANIMATION_KEYS | {"filter"}


class _JSONObject(dict):
    """A JSON object that remembers a repeated key, so the error can name its path."""

    duplicate: str | None = None


def _no_duplicates(pairs):
    out = _JSONObject()
    for key, value in pairs:
        if key in out and out.duplicate is None:
            out.duplicate = key
        out[key] = value
    return out


def _check_object(obj: dict, allowed: set[str] | None, where: str, file: str | None) -> None:
    """Repeated keys and keys the format does not have are errors at their path."""
    duplicate = getattr(obj, "duplicate", None)
    if duplicate is not None:
        raise SceneFileError(f"duplicate key {duplicate!r}", path=f"{where}.{duplicate}", file=file)
    if allowed is None:
        return
    extra = sorted(set(obj) - allowed)
    if extra:
        raise SceneFileError(
            f"unknown key {extra[0]!r} (allowed: {', '.join(sorted(allowed))})", path=f"{where}.{extra[0]}", file=file
        )


def load_scene(path: str | Path, *, allow_files: Iterable[str | Path] = ()) -> Scene:
    """Read a scene file; relative image paths resolve against its folder.

    Its ``url()`` images may only be files inside that folder, or inside a folder (or
    file) of ``allow_files``: absolute paths, ``..`` and symlinks leading elsewhere are
    refused with a FileAccessError when the scene is rendered (see lamina.file_access)."""
    path = Path(path)
    access = FileAccess.confined_to(path.parent, allow_files, scene_file=str(path))
    try:
        if path.is_dir():
            raise SceneFileError("this is a folder, not a scene file", file=str(path))
        # Read with a cap, not after a stat: a pipe or a device has no size to stat.
        text = read_bounded(path, MAX_SCENE_FILE_BYTES).decode("utf-8")
    except InputTooLarge:
        raise SceneFileError(f"the file holds more than the {MAX_SCENE_FILE_BYTES // 2**20} MB a scene file may "
                             "(lamina.limits.MAX_SCENE_FILE_BYTES)", file=str(path)) from None
    except FileNotFoundError:
        raise SceneFileError("file not found", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SceneFileError(f"cannot read the file ({exc})", file=str(path)) from None
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise SceneFileError(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", file=str(path)) from None
    except RecursionError:
        raise SceneFileError("invalid JSON: nested too deeply (deeper than any scene within the layer tree's "
                             f"depth limit of {MAX_TREE_DEPTH} levels)", file=str(path)) from None
    except ValueError as exc:
        raise SceneFileError(f"invalid JSON: {exc}", file=str(path)) from None
    return scene_from_dict(data, file_access=access, file=str(path))


def _int(value: Any, where: str, file: str | None) -> int:
    whole = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value) and value == int(value))
    if isinstance(value, bool) or not whole:
        raise SceneFileError(f"expected a whole number, got {json.dumps(value)[:40]}", path=where, file=file)
    if not 1 <= value <= MAX_VIEWPORT:
        hint = f"; {TOO_LARGE_HINT}" if value > MAX_VIEWPORT else ""
        raise SceneFileError(f"must be from 1 to {MAX_VIEWPORT}, got {value}{hint}", path=where, file=file)
    return int(value)


def _style_error(err: StyleError, where: str, file: str | None) -> SceneFileError:
    return SceneFileError(str(err), path=where, file=file)


def _apply_style(layer: Layer, style: Any, where: str, file: str | None) -> None:
    if isinstance(style, str):
        try:
            layer.style.update_css(style)
        except StyleError as err:
            raise _style_error(err, where, file) from err
    elif isinstance(style, dict):
        _check_object(style, None, where, file)
        for name, value in style.items():
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise SceneFileError(f"expected CSS text, got {json.dumps(value)}", path=f"{where}.{name}", file=file)
            try:
                layer.style[name] = value
            except StyleError as err:
                raise _style_error(err, f"{where}.{name}", file) from err
    else:
        raise SceneFileError(f"style must be CSS text or an object, got {json.dumps(style)}", path=where, file=file)


def _animation_error_path(err: StyleError, at: str) -> str:
    """The JSON path of what an animation's error is about: ``at.keyframes[1].transform``
    (a list of keyframes), ``at.keyframes['50%'].transform`` (a mapping), ``at.duration``."""
    key = {"animation-timing-function": "easing"}.get(err.property or "", err.property)
    if err.keyframe is None:
        return f"{at}.{key}" if key in _ANIMATION_KEYS else at
    place = f"[{err.keyframe}]" if isinstance(err.keyframe, int) else f"[{err.keyframe!r}]"
    inside = "" if key in (None, "keyframes") else f".{key}"
    return f"{at}.keyframes{place}{inside}"


def _url_texts(obj: Any, where: str) -> list[tuple[str, str]]:
    """(JSON path, text) of each string under ``obj`` that holds a url(), children aside."""
    out, stack = [], [(obj, where)]
    while stack:  # iterative: keyframes may nest deeper than Python's recursion allows
        value, at = stack.pop()
        if isinstance(value, str):
            if "url(" in value.lower():
                out.append((at, value))
        elif isinstance(value, dict):  # pushed in reverse, so found in document order
            stack.extend(reversed([(v, f"{at}.{k}") for k, v in value.items() if not (at == where and k == "children")]))
        elif isinstance(value, list):
            stack.extend(reversed([(v, f"{at}[{i}]") for i, v in enumerate(value)]))
    return out


def _check_unicode(data: Any, file: str | None) -> None:
    """Refuse a lone surrogate (JSON's ``"\\ud800"`` escape makes one) in any string or
    key of the scene, at its JSON path: it is not text, and the ids, styles and names
    holding it would fail wherever they are printed or encoded (``--explain``, reports)."""
    stack = [(data, "$")]
    while stack:  # iterative: keyframes may nest deeper than Python's recursion allows
        value, at = stack.pop()
        if isinstance(value, str):
            bad = lone_surrogate_at(value)
            if bad is not None:
                raise SceneFileError(f"a lone surrogate (U+{ord(value[bad]):04X}) at index {bad} is not text: "
                                     "strings must be valid Unicode", path=at, file=file)
        elif isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                if lone_surrogate_at(key) is not None:
                    raise SceneFileError("a key with a lone surrogate is not text: keys must be valid Unicode",
                                         path=at, file=file)
                stack.append((item, f"{at}.{key}"))
        elif isinstance(value, list):
            stack.extend(reversed([(v, f"{at}[{i}]") for i, v in enumerate(value)]))


def _layer(obj: Any, where: str, file: str | None, seen: dict[str, str], depth: int = 2,
           source: SceneSource | None = None) -> Layer:
    if depth > MAX_TREE_DEPTH:
        raise SceneFileError(f"layers nest deeper than {MAX_TREE_DEPTH} levels", path=where, file=file)
    if not isinstance(obj, dict):
        raise SceneFileError(f"a layer must be an object, got {json.dumps(obj)[:40]}", path=where, file=file)
    _check_object(obj, _LAYER_KEYS, where, file)
    if "id" not in obj:
        raise SceneFileError("a layer needs an 'id'", path=where, file=file)
    lid = obj["id"]
    if not isinstance(lid, str) or not lid.strip():
        raise SceneFileError(f"id must be a non-empty string, got {json.dumps(lid)}", path=f"{where}.id", file=file)
    box = obj.get("box", [0, 0, 0, 0])
    if not isinstance(box, list):
        raise SceneFileError(f"box must be [x, y, width, height], got {json.dumps(box)}", path=f"{where}.box", file=file)
    content = obj.get("content")
    if content not in (None, "video", "canvas"):
        raise SceneFileError(f"content must be 'video' or 'canvas', got {json.dumps(content)}", path=f"{where}.content", file=file)
    try:
        layer = Layer(lid, box, content=content)
    except GeometryError as err:
        raise SceneFileError(str(err), path=f"{where}.box", file=file) from None
    if lid in seen:
        raise SceneFileError(f"duplicate layer id {lid!r} (first at {seen[lid]})", path=f"{where}.id", file=file)
    seen[lid] = where
    if source is not None:
        source.layers[lid] = where
        urls = _url_texts(obj, where)
        if urls:
            source.urls[lid] = urls
    if "text" in obj:
        if not isinstance(obj["text"], str):
            raise SceneFileError(f"text must be a string, got {json.dumps(obj['text'])[:40]}", path=f"{where}.text", file=file)
        try:
            layer.text = obj["text"]
        except StyleError as err:
            raise SceneFileError(str(err), path=f"{where}.text", file=file) from None
    if "style" in obj:
        _apply_style(layer, obj["style"], f"{where}.style", file)
    animations = obj.get("animations", [])
    if not isinstance(animations, list):
        raise SceneFileError("animations must be an array", path=f"{where}.animations", file=file)
    for i, spec in enumerate(animations):
        at = f"{where}.animations[{i}]"
        if not isinstance(spec, dict):
            raise SceneFileError("an animation must be an object", path=at, file=file)
        _check_object(spec, _ANIMATION_KEYS, at, file)
        if "keyframes" not in spec or "duration" not in spec:
            raise SceneFileError("an animation needs 'keyframes' and 'duration'", path=at, file=file)
        options = {k: v for k, v in spec.items() if k not in ("keyframes", "duration")}
        try:
            layer.animate(spec["keyframes"], duration=spec["duration"], **options)
        except StyleError as err:
            raise SceneFileError(str(err), path=_animation_error_path(err, at), file=file) from err
    children = obj.get("children", [])
    if not isinstance(children, list):
        raise SceneFileError("children must be an array", path=f"{where}.children", file=file)
    for i, child in enumerate(children):
        layer.add(_layer(child, f"{where}.children[{i}]", file, seen, depth + 1, source))
    return layer


def scene_from_dict(
    data: Any,
    *,
    base_dir: str | Path | None = None,
    file: str | None = None,
    file_access: FileAccess | None = None,
) -> Scene:
    """Build a Scene from parsed scene JSON (errors carry JSON paths).

    Image paths resolve against ``base_dir`` and are read wherever they point, unless
    ``file_access`` says otherwise (``FileAccess.confined_to(folder)`` for JSON from
    someone else; load_scene confines scene files that way)."""
    if not isinstance(data, dict):
        raise SceneFileError("a scene must be a JSON object", file=file)
    _check_unicode(data, file)
    _check_object(data, _TOP_KEYS, "$", file)
    if "lamina" in data and (type(data["lamina"]) is not int or data["lamina"] != FORMAT_VERSION):
        raise SceneFileError(f"unsupported scene format {json.dumps(data['lamina'])} (this Lamina reads {FORMAT_VERSION})", path="$.lamina", file=file)
    for key in ("width", "height"):
        if key not in data:
            raise SceneFileError(f"missing required key {key!r}", path="$", file=file)
    width = _int(data["width"], "$.width", file)
    height = _int(data["height"], "$.height", file)
    background = data.get("background", "white")
    if not isinstance(background, str):
        raise SceneFileError(f"background must be a CSS colour string, got {json.dumps(background)}", path="$.background", file=file)
    try:
        scene = Scene(width, height, background, base_dir=base_dir, file_access=file_access)
    except StyleError as err:
        raise _style_error(err, "$.background", file) from err
    if "device_scale_factor" in data:
        try:
            scene.device_scale_factor = data["device_scale_factor"]
        except (GeometryError, TextureTooLargeError) as err:
            raise SceneFileError(str(err), path="$.device_scale_factor", file=file) from None
    scene.source = SceneSource(file)
    scene.source.layers["root"] = "$"
    scene.source.urls["root"] = _url_texts({k: v for k, v in data.items() if k != "layers"}, "$")
    if "style" in data:
        _apply_style(scene.root, data["style"], "$.style", file)
    if "description" in data:
        if not isinstance(data["description"], str):
            raise SceneFileError("description must be a string", path="$.description", file=file)
        scene.description = data["description"]
    if "golden" in data:
        scene.golden = _golden_options(data["golden"], file)
    if "filter_backend" in data:
        if data["filter_backend"] not in FILTER_BACKENDS:
            raise SceneFileError(f"filter_backend must be one of {', '.join(FILTER_BACKENDS)}, got "
                                 f"{json.dumps(data['filter_backend'])}", path="$.filter_backend", file=file)
        scene.filter_backend = data["filter_backend"]
    if "svg" in data:
        _read_svg(scene, data["svg"], file)
    layers = data.get("layers", [])
    if not isinstance(layers, list):
        raise SceneFileError("layers must be an array", path="$.layers", file=file)
    seen: dict[str, str] = {"root": "the root layer"}
    for i, obj in enumerate(layers):
        where = f"$.layers[{i}]"
        layer = _layer(obj, where, file, seen, source=scene.source)
        try:
            scene.root.add(layer)
        except LayerTreeError as err:
            raise SceneFileError(str(err), path=where, file=file) from None
    _check_svg_references(scene, file)
    if "svg_animations" in data:
        _read_svg_animations(scene, data["svg_animations"], file)
    return scene


def _read_svg_animations(scene: Scene, value: Any, file: str | None) -> None:
    """``"svg_animations"``: keyframe animations of the SVG filters' attributes."""
    if not isinstance(value, list):
        raise SceneFileError("svg_animations must be an array", path="$.svg_animations", file=file)
    for i, spec in enumerate(value):
        at = f"$.svg_animations[{i}]"
        if not isinstance(spec, dict):
            raise SceneFileError("an SVG attribute animation must be an object", path=at, file=file)
        _check_object(spec, _SVG_ANIMATION_KEYS, at, file)
        if not {"filter", "keyframes", "duration"} <= set(spec):
            raise SceneFileError("an SVG attribute animation needs 'filter', 'keyframes' and 'duration'", path=at,
                                 file=file)
        options = {k: v for k, v in spec.items() if k not in ("filter", "keyframes", "duration")}
        try:
            scene.animate_svg(spec["filter"], spec["keyframes"], duration=spec["duration"], **options)
        except StyleError as err:  # SvgFilterError is one: it names the primitive and attribute
            raise SceneFileError(str(err), path=_svg_animation_error_path(err, at), file=file) from err


def _svg_animation_error_path(err: StyleError, at: str) -> str:
    """``at.filter``, ``at.keyframes['50%']['blur.stdDeviation']`` or a timing key's path."""
    if err.property == "filter" and err.keyframe is None:
        return f"{at}.filter"
    if err.keyframe is None or err.property in (None, "keyframes", "easing", "animation-timing-function"):
        return _animation_error_path(err, at)
    place = f"[{err.keyframe}]" if isinstance(err.keyframe, int) else f"[{err.keyframe!r}]"
    return f"{at}.keyframes{place}[{err.property!r}]"


def _read_svg(scene: Scene, value: Any, file: str | None) -> None:
    """``"svg"``: SVG markup holding ``<filter>`` elements, or a list of such markups."""
    items = value if isinstance(value, list) else [value]
    for i, markup in enumerate(items):
        path = f"$.svg[{i}]" if isinstance(value, list) else "$.svg"
        if not isinstance(markup, str):
            raise SceneFileError(f"svg must be SVG markup (a string) or a list of them, got {json.dumps(markup)[:60]}",
                                 path=path, file=file)
        try:
            scene.add_svg(markup)
        except (SvgFilterError, UnsupportedFeatureError) as err:
            raise SceneFileError(str(err), path=path, file=file) from None


def _check_svg_references(scene: Scene, file: str | None) -> None:
    """Every ``url(#id)`` of a layer's filter or backdrop-filter names a filter of the
    scene's ``"svg"`` (checked at load, where the file can be named)."""
    for layer in scene.layers():
        written = (layer.style.get("filter"), layer.style.get("backdrop-filter"))
        if not any(isinstance(v, str) and "url(" in v for v in written):
            continue
        computed = layer.style.computed()
        for chain in (computed.filter, computed.backdrop_filter):
            for ident in chain.svg_ids() if chain is not None else ():
                if scene.svg is None or ident not in scene.svg.filters:
                    known = ", ".join(f"#{k}" for k in sorted(scene.svg.filters)) if scene.svg else "no \"svg\" markup"
                    path = scene.source.layers.get(layer.id, "$") + ".style" if scene.source else "$"
                    raise SceneFileError(f"url(#{ident}) names no <filter> of the scene's SVG ({known})", path=path,
                                         file=file)


def _golden_options(obj: Any, file: str | None) -> dict[str, Any]:
    """How golden tests render and compare this scene: time, policy, WPT fuzzy ranges."""
    if not isinstance(obj, dict):
        raise SceneFileError("golden must be an object", path="$.golden", file=file)
    _check_object(obj, _GOLDEN_KEYS, "$.golden", file)
    out: dict[str, Any] = {}
    if "t" in obj:
        t = obj["t"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
            raise SceneFileError(f"t must be a time in seconds >= 0, got {json.dumps(t)}", path="$.golden.t", file=file)
        out["t"] = float(t)
    if "policy" in obj:
        if obj["policy"] not in POLICIES:
            raise SceneFileError(f"policy must be one of {', '.join(POLICIES)}, got {json.dumps(obj['policy'])}",
                                 path="$.golden.policy", file=file)
        out["policy"] = obj["policy"]
    for key in ("max_diff", "max_pixels", "max_alpha_diff"):
        if key in obj:
            if not isinstance(obj[key], (str, int)) or isinstance(obj[key], bool):
                raise SceneFileError(f"{key} must be a WPT range like \"0-2\" or a whole number, got "
                                     f"{json.dumps(obj[key])}", path=f"$.golden.{key}", file=file)
            try:
                out[key] = str(FuzzyRange.parse(obj[key], key))
            except GoldenError as err:
                raise SceneFileError(str(err), path=f"$.golden.{key}", file=file) from None
    if "max_pixel_ratio" in obj:
        try:
            out["max_pixel_ratio"] = parse_ratio(obj["max_pixel_ratio"])
        except GoldenError as err:
            raise SceneFileError(str(err), path="$.golden.max_pixel_ratio", file=file) from None
    return out
