"""Scene -> scene-file data: the inverse of lamina.scene_file (``Scene.to_dict``,
``Scene.to_json``). It reads a scene's public attributes and needs nothing above them."""

from __future__ import annotations

from typing import Any

from .errors import LaminaInputError
from .file_access import FileAccess
from .images import encode_png_data_url, load_image
from .layer import Layer

__all__ = ["FORMAT_VERSION", "scene_to_dict"]

FORMAT_VERSION = 1  # the "lamina" key of a scene file

def _number(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _layer_style(layer: Layer, access: FileAccess, embed_images: bool) -> str:
    css = layer.style.to_css()
    ref = layer.image
    if ref is not None:
        if ref.data is not None or embed_images:
            # In-memory pixels have no path to write: they are always embedded.
            url = encode_png_data_url(load_image(ref, access.base_dir, layer=layer.id, access=access))
        else:
            url = ref.url
        image = f"background-image: url({_css_string(url)})"
        css = f"{css}; {image}" if css else image
    return css


def _layer_to_dict(layer: Layer, access: FileAccess, embed_images: bool) -> dict[str, Any]:
    b = layer.box
    out: dict[str, Any] = {"id": layer.id, "box": [_number(v) for v in (b.x, b.y, b.width, b.height)]}
    css = _layer_style(layer, access, embed_images)
    if css:
        out["style"] = css
    if layer.text is not None:
        out["text"] = layer.text
    if layer.content is not None:
        out["content"] = layer.content
    if layer.animations:
        out["animations"] = [a.to_dict() for a in layer.animations]
    if layer.children:
        out["children"] = [_layer_to_dict(c, access, embed_images) for c in layer.children]
    return out


def scene_to_dict(scene, *, embed_images: bool = False) -> dict[str, Any]:
    """The scene as scene-file JSON data.

    Images given to layers as arrays or Pillow images are written as PNG data: URLs;
    with ``embed_images`` images given as file paths are embedded the same way, so the
    file no longer depends on its folder. ``url()`` text in styles is kept as written."""
    scene.root.check_tree()  # written recursively: a cycle made by hand is refused first
    root_style = scene.root.style
    background = root_style.get("background-color", "transparent")
    out: dict[str, Any] = {"lamina": FORMAT_VERSION, "width": scene.width, "height": scene.height, "background": background}
    if scene.device_scale_factor != 1.0:
        out["device_scale_factor"] = scene.device_scale_factor
    if set(root_style) - {"background-color"}:
        # All root declarations, in order, so shorthands and longhands keep their effect.
        out["style"] = root_style.to_css()
    if scene.root.image is not None:
        raise LaminaInputError("the root layer cannot have an image= source in a scene file; use its style")
    if scene.description:
        out["description"] = scene.description
    if scene.filter_backend != "gl":
        out["filter_backend"] = scene.filter_backend
    if scene.golden:
        out["golden"] = dict(scene.golden)
    markups = scene.svg_markup  # as given to add_svg: re-read on load
    if markups:
        out["svg"] = markups[0] if len(markups) == 1 else list(markups)
    if scene.svg_animations:
        out["svg_animations"] = [a.to_dict() for a in scene.svg_animations]
    out["layers"] = [_layer_to_dict(c, scene.file_access, embed_images) for c in scene.root.children]
    return out
