"""Lamina engine: a browser-style GPU compositor for CSS-styled layer trees.

Pipeline (one direction): style -> compositor decisions -> raster -> frame graph ->
executors -> frame. Public API::

    from lamina import Scene, Layer, load_scene
    scene = Scene(800, 600, background="#fff")
    scene.root.add(Layer("card", box=(40, 40, 200, 120), style="background: red"))
    frame = scene.render()
"""

from .errors import (
    CSSSyntaxError,
    FilterSyntaxError,
    GeometryError,
    GPUOutOfMemoryError,
    GPUUnavailableError,
    ImageLoadError,
    InvalidValueError,
    LaminaEnvironmentError,
    LaminaError,
    LaminaInputError,
    LayerTreeError,
    SceneFileError,
    StyleError,
    TextureTooLargeError,
    UnknownPropertyError,
    UnsupportedFeatureError,
)
from .frame import Frame
from .layer import Layer
from .scene import Scene

__version__ = "0.1.0"

__all__ = [
    "Scene",
    "Layer",
    "Frame",
    "load_scene",
    "renderer_info",
    "Renderer",
    "LaminaError",
    "LaminaInputError",
    "LaminaEnvironmentError",
    "StyleError",
    "CSSSyntaxError",
    "FilterSyntaxError",
    "UnknownPropertyError",
    "InvalidValueError",
    "UnsupportedFeatureError",
    "GeometryError",
    "LayerTreeError",
    "SceneFileError",
    "ImageLoadError",
    "GPUUnavailableError",
    "GPUOutOfMemoryError",
    "TextureTooLargeError",
    "__version__",
]


def __getattr__(name: str):
    # GPU-touching modules load lazily so `import engine` works without EGL.
    if name == "load_scene":
        from .scene_file import load_scene

        return load_scene
    if name == "renderer_info":
        from .renderer import renderer_info

        return renderer_info
    if name == "Renderer":
        from .renderer import Renderer

        return Renderer
    raise AttributeError(f"module 'lamina' has no attribute {name!r}")
