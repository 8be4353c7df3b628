"""A notebook explorer (ipywidgets): sliders for one layer's filter and transform, the
compositing policy, and the frame beside its explanation — for teaching in Jupyter.

    from lamina.explorer import explore
    explore(scene, "card")          # the widget; it re-renders on every change

Needs the ``notebook`` extra (``pip install 'lamina[notebook]'``: ipywidgets). A frame
alone shows inline in a notebook anyway (``Frame._repr_png_``).
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as widgets

from .compositor.policy import POLICIES
from .errors import LaminaInputError
from .frame import Frame
from .renderer import Renderer
from .scene import Scene

__all__ = ["Explorer", "explore"]


@dataclass(frozen=True)
class _Slider:
    label: str
    low: float
    high: float
    step: float
    initial: float


# Filter functions and transform parts the explorer offers, with their ranges.
FILTER_SLIDERS = {
    "blur": _Slider("blur (px)", 0.0, 20.0, 0.5, 0.0),
    "grayscale": _Slider("grayscale", 0.0, 1.0, 0.05, 0.0),
    "sepia": _Slider("sepia", 0.0, 1.0, 0.05, 0.0),
    "hue-rotate": _Slider("hue-rotate (deg)", 0.0, 360.0, 5.0, 0.0),
    "saturate": _Slider("saturate", 0.0, 4.0, 0.1, 1.0),
    "opacity": _Slider("opacity()", 0.0, 1.0, 0.05, 1.0),
}
TRANSFORM_SLIDERS = {
    "rotate": _Slider("rotate (deg)", -180.0, 180.0, 1.0, 0.0),
    "scale": _Slider("scale", 0.25, 2.0, 0.05, 1.0),
    "translate-x": _Slider("translate x (px)", -200.0, 200.0, 1.0, 0.0),
    "translate-y": _Slider("translate y (px)", -200.0, 200.0, 1.0, 0.0),
}
_UNITS = {"blur": "px", "hue-rotate": "deg"}


class Explorer:
    """The widgets and what they drive: ``widget`` to display, ``frame`` the last render.
    The explorer owns the layer's ``filter`` and ``transform`` (it sets them from its
    sliders, starting from none)."""

    def __init__(self, scene: Scene, layer_id: str, renderer: Renderer | None = None) -> None:
        if not isinstance(scene, Scene):
            raise LaminaInputError(f"explore() needs a lamina.Scene, got {type(scene).__name__}")
        if scene.find(layer_id) is None:
            raise LaminaInputError(f"explore(): {scene.no_layer_message(layer_id)}")
        self.scene, self.layer, self.renderer = scene, scene[layer_id], renderer
        slider = lambda s: widgets.FloatSlider(value=s.initial, min=s.low, max=s.high, step=s.step,  # noqa: E731
                                              description=s.label, continuous_update=False)
        self.filters = {name: slider(s) for name, s in FILTER_SLIDERS.items()}
        self.transform = {name: slider(s) for name, s in TRANSFORM_SLIDERS.items()}
        self.policy = widgets.Dropdown(options=list(POLICIES), value="browser", description="policy")
        self.image = widgets.Image(format="png")
        self.css = widgets.HTML()
        self.explanation = widgets.Textarea(layout=widgets.Layout(width="100%", height="360px"))
        for control in (*self.filters.values(), *self.transform.values(), self.policy):
            control.observe(lambda _change: self.update(), names="value")
        controls = widgets.VBox([widgets.HTML(f"<b>layer {layer_id!r}</b>"), *self.filters.values(),
                                 *self.transform.values(), self.policy, self.css])
        self.widget = widgets.VBox([widgets.HBox([controls, self.image]), self.explanation])
        self.frame: Frame | None = None
        self.update()

    def filter_css(self) -> str:
        parts = [f"{name}({w.value:g}{_UNITS.get(name, '')})" for name, w in self.filters.items()
                 if w.value != FILTER_SLIDERS[name].initial]
        return " ".join(parts) or "none"

    def transform_css(self) -> str:
        t = {name: w.value for name, w in self.transform.items()}
        return f"translate({t['translate-x']:g}px, {t['translate-y']:g}px) rotate({t['rotate']:g}deg) scale({t['scale']:g})"

    def update(self) -> None:
        """Apply the controls to the layer, render, and show the frame and explanation."""
        self.layer.style["filter"] = self.filter_css()
        self.layer.style["transform"] = self.transform_css()
        self.frame = self.scene.render(self.renderer, policy=self.policy.value)
        self.image.value = self.frame._repr_png_()
        self.css.value = (f"<code>filter: {self.filter_css()}</code><br>"
                          f"<code>transform: {self.transform_css()}</code>")
        self.explanation.value = self.frame.explain()


def explore(scene: Scene, layer_id: str, renderer: Renderer | None = None) -> widgets.Widget:
    """The explorer's widget for ``scene``'s layer ``layer_id`` (display it in a notebook)."""
    return Explorer(scene, layer_id, renderer).widget
