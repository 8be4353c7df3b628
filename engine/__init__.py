"""Lamina engine: a browser-style GPU compositor for CSS-styled layer trees.

The public face: every name below is importable from ``lamina``. Nothing inside the
package imports this module (see README "How it works" for the layers). Public API::

    from lamina import Scene, Layer, load_scene
    scene = Scene(800, 600, background="#fff")
    scene.root.add(Layer("card", box=(40, 40, 200, 120), style="background: red"))
    frame = scene.render()
"""

from .errors import (
    CSSSyntaxError,
    FileAccessError,
    FilterSyntaxError,
    FontUnavailableError,
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
from . import filters
from .compositor.policy import AllPolicy, BrowserPolicy, BudgetPolicy, NoRetentionPolicy, Policy
from .frame import Frame
from .layer import Layer
from .renderer import Renderer, default_renderer, renderer_info
from .request import FrameRequest
from .scene import Scene
from .scene_file import load_scene
from .version import __version__


__all__ = [
    "Scene",
    "Layer",
    "Frame",
    "load_scene",
    "renderer_info",
    "default_renderer",
    "Renderer",
    "FrameRequest",
    "Policy",
    "BrowserPolicy",
    "BudgetPolicy",
    "AllPolicy",
    "NoRetentionPolicy",
    "filters",
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
    "FileAccessError",
    "GPUUnavailableError",
    "GPUOutOfMemoryError",
    "TextureTooLargeError",
    "FontUnavailableError",
    "__version__",
]
