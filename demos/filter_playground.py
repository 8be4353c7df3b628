"""Filter playground: one photo and two shapes under a CSS filter chain you build.

What the student learns: a ``filter`` value is a list of functions applied in order;
Lamina compiles it into GPU passes — consecutive colour functions fuse into one pass
(with the clamps between them, so it stays exact), a blur becomes two separable passes
and, above 4px, is computed at half or quarter size and scaled back up, a drop-shadow
blurs the alpha and is composited under the source — and the layer's surface grows by
the blur's reach. Every pass and what it cost is listed; a frame that changes nothing
reuses the filter's result (its texture is kept), and the list says so, marking each
pass of the plan "reused" with what it cost when it last ran.

Drive it: pick a function and "add" it; tune each function's amount with its slider;
move it up or down, or remove it. The chain is shown as the CSS you would write.

Classic SVG filters (demos/filters/classics/*.svg: grain, duotone, glow, displacement,
emboss): "load" one and the stage's filter is ``url(#name)``; the panel shows its
primitive graph (what reads what) and the passes it became, and a slider sets one of its
attributes through the scene's SVG attribute animation (``scene.animate_svg``: the
passes keep their programs; only uniforms change), or "animate" plays it. A classic whose
primitives have no GPU pass in this build (feDisplacementMap, for now) shows its graph
and the typed reason, and the stage keeps the CSS chain: nothing to flip when the pass
lands, as loading plans it anew.

The headless recording adds grayscale, a blur that it ramps up, a drop-shadow, then
loads the glow and widens it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from imgui_bundle import imgui

from lamina import Frame, Layer, Scene, filters
from lamina.errors import UnsupportedFeatureError
from lamina.filters.svg import build_graph, parse_svg

from .ui.runner import Demo

__all__ = ["FilterPlayground", "FUNCTIONS", "CLASSICS", "Classic", "executed_passes", "reused_filter", "plan_lines"]

PHOTO = Path(__file__).resolve().parent / "showcase" / "sunset.png"
CLASSICS_DIR = Path(__file__).resolve().parent / "filters" / "classics"


@dataclass(frozen=True)
class Classic:
    """A classic SVG filter (CLASSICS_DIR/<name>.svg, ``<filter id="name">``) and the
    attribute its slider drives: each path's value text is its format of the slider's
    value (a slider may drive several attributes, e.g. both arithmetic weights)."""

    attributes: dict[str, str]  # "PRIMITIVE.ATTRIBUTE" -> value text format
    low: float
    high: float
    default: float
    label: str

    def values(self, amount: float) -> dict[str, str]:
        return {path: fmt.format(amount) for path, fmt in self.attributes.items()}


CLASSICS: dict[str, Classic] = {
    "grain": Classic({"grain.feFuncA.slope": "{:.3f}"}, 0.0, 1.0, 0.35, "grain strength (feFuncA slope)"),
    "duotone": Classic({"tone.feFuncB.tableValues": "0.38 {:.3f}"}, 0.0, 1.0, 0.30, "highlight blue (feFuncB table)"),
    "glow": Classic({"blur.stdDeviation": "{:.2f}"}, 0.5, 16.0, 6.0, "glow radius (stdDeviation)"),
    "displacement": Classic({"moved.scale": "{:.1f}"}, 0.0, 60.0, 24.0, "displacement (scale)"),
    "emboss": Classic({"relief.k2": "{:.3f}", "relief.k3": "-{:.3f}"}, 0.0, 3.0, 1.0, "relief depth (k2, -k3)"),
}

# function -> (slider minimum, maximum, default, CSS text of an amount)
FUNCTIONS: dict[str, tuple[float, float, float, str]] = {
    "blur": (0.0, 24.0, 4.0, "{:.1f}px"),
    "grayscale": (0.0, 1.0, 1.0, "{:.2f}"),
    "sepia": (0.0, 1.0, 0.8, "{:.2f}"),
    "saturate": (0.0, 4.0, 2.5, "{:.2f}"),
    "hue-rotate": (0.0, 360.0, 140.0, "{:.0f}deg"),
    "invert": (0.0, 1.0, 0.9, "{:.2f}"),
    "brightness": (0.0, 3.0, 1.3, "{:.2f}"),
    "contrast": (0.0, 3.0, 1.8, "{:.2f}"),
    "opacity": (0.0, 1.0, 0.6, "{:.2f}"),
    "drop-shadow": (0.0, 24.0, 6.0, "8px 10px {:.1f}px rgb(40 20 80 / 60%)"),
}


def executed_passes(frame: Frame) -> list[str]:
    """The filter passes the frame ran — planned for the real surface size, so blurs
    may be halved more often than a plan without a size shows — with their times."""
    times = frame.stats.pass_ms
    lines = [f"{len(frame.graph.filter_passes())} filter pass(es) this frame:"]
    for i, p in enumerate(frame.graph.filter_passes(), 1):
        lines.append(f"{i:>2}. {p.step.describe()}  {p.target.width}x{p.target.height}  {times.get(p.name, 0.0):.2f} ms")
    return lines


def reused_filter(frame: Frame) -> bool:
    """Whether the frame drew a filter result kept from an earlier frame (and so ran no
    filter pass for it)."""
    return any(name.startswith("filter:") for name in frame.graph.reused)


def plan_lines(frame: Frame, last_run: list[str] | None, css: str) -> list[str]:
    """What "Watch the plan" shows: the passes the frame ran; or, when it reused the
    filter's result, the plan that made it — the lines of the frame that last ran it
    (``last_run``, from executed_passes), each marked reused, or without one the chain's
    plan for no particular size — so a frame at rest still shows its plan."""
    if frame.graph.filter_passes() or not reused_filter(frame):
        return executed_passes(frame)
    if last_run:
        # "<n>. <step>  <size>  <ms> ms": the time becomes what it cost when it ran.
        steps = [f"{head}  reused ({ms} when it ran)" for head, ms in (line.rsplit("  ", 1) for line in last_run[1:])]
    else:
        steps = [f"{line}  (reused)" for line in str(filters.parse(css).plan()).splitlines()[1:]
                 if line.lstrip()[:1].isdigit()]
    return [f"{len(steps)} filter pass(es) planned, none ran this frame: the result is reused", *steps]


@dataclass
class Step:
    function: str
    amount: float

    def css(self) -> str:
        return f"{self.function}({FUNCTIONS[self.function][3].format(self.amount)})"


@dataclass
class FilterPlayground(Demo):
    name: str = "filter-playground"
    title: str = "Filter playground"
    lesson: str = (
        "A filter chain becomes GPU passes: colour functions fuse into one pass, blurs are "
        "separable and downscaled above 4px, drop-shadows blur the alpha. Watch the plan."
    )
    steps: list[Step] = field(default_factory=lambda: [Step("saturate", 1.6)])
    choice: int = 0
    # The lines of the last frame that ran the filter, and the chain they were for.
    last_run: list[str] | None = field(default=None, repr=False)
    last_run_css: str | None = field(default=None, repr=False)
    shown: list[str] = field(default_factory=list, repr=False)  # "Watch the plan"'s lines (tests read them)
    # The classic SVG filter loaded (None: the CSS chain), its slider's amount, whether
    # it plays, and why it cannot run on the GPU here (None: it runs).
    classic: str | None = None
    classic_amount: float = 0.0
    classic_plays: bool = False
    classic_refused: str | None = field(default=None, repr=False)
    classic_choice: int = 0
    _applied: tuple | None = field(default=None, repr=False)  # (classic, amount, plays) the scene holds

    def __post_init__(self) -> None:
        self.script = [
            (2, lambda d: d.add("grayscale", 0.7)),
            (5, lambda d: d.add("blur", 1.0)),
            *[(6 + i, (lambda a: lambda d: d.set_amount("blur", a))(2.0 + 2.0 * i)) for i in range(6)],
            (13, lambda d: d.add("drop-shadow", 8.0)),
            (14, lambda d: d.load_classic("glow")),
            (15, lambda d: d.set_classic_amount(14.0)),
        ]

    # -- classic SVG filters -----------------------------------------------------------
    def load_classic(self, name: str | None) -> None:
        """Filter the stage with a classic SVG filter (None: back to the CSS chain)."""
        if name is not None and name not in CLASSICS:
            raise KeyError(f"no classic SVG filter {name!r} (there are: {', '.join(CLASSICS)})")
        self.classic, self.classic_plays, self.classic_refused = name, False, None
        if name is not None:
            self.classic_amount = CLASSICS[name].default

    def set_classic_amount(self, amount: float) -> None:
        self.classic_amount = amount

    def classic_lines(self) -> list[str]:
        """The loaded classic's primitive graph, and why it does not run where it does not."""
        if self.classic is None:
            return []
        element = parse_svg((CLASSICS_DIR / f"{self.classic}.svg").read_text()).filter(self.classic)
        lines = [f"url(#{self.classic}): primitive graph", *build_graph(element).explain().splitlines()]
        if self.classic_refused:
            lines.append(f"not on the GPU in this build, the stage keeps the CSS chain: {self.classic_refused}")
        return lines

    def _apply_classic(self, scene: Scene) -> None:
        """The classic's attribute values as the scene's SVG attribute animation: held at
        the slider's amount, or played from its low to its high value and back."""
        state = (self.classic, self.classic_amount, self.classic_plays)
        if state == self._applied:
            return
        self._applied = state
        scene.svg_animations.clear()
        if self.classic is None:
            return
        spec = CLASSICS[self.classic]
        if self.classic_plays:
            scene.animate_svg(f"#{self.classic}", {"0%": spec.values(spec.low), "100%": spec.values(spec.high)},
                              duration="2s", iterations="infinite", direction="alternate", easing="ease-in-out")
        else:
            held = spec.values(self.classic_amount)
            scene.animate_svg(f"#{self.classic}", {"0%": held, "100%": held}, duration="1s", fill="both")

    # -- the chain -----------------------------------------------------------------------
    def css(self) -> str:
        return " ".join(step.css() for step in self.steps) or "none"

    def add(self, function: str, amount: float | None = None) -> None:
        self.steps.append(Step(function, FUNCTIONS[function][2] if amount is None else amount))

    def set_amount(self, function: str, amount: float) -> None:
        for step in self.steps:
            if step.function == function:
                step.amount = amount

    # -- Demo ----------------------------------------------------------------------------
    def build(self) -> Scene:
        scene = Scene(*self.scene_size, background="#f4f1ea")
        stage = scene.root.add(Layer("stage", (60, 60, 740, 600), "border-radius: 18px; background: #fffdf8"))
        stage.add(Layer("photo", (40, 40, 420, 280), f"background: url({PHOTO.as_posix()}) center / cover; border-radius: 14px"))
        stage.add(Layer("disc", (500, 80, 180, 180), "background: radial-gradient(circle at 35% 35%, #ffd36b, #e8505b); border-radius: 50%"))
        stage.add(Layer("bar", (40, 380, 640, 120), "background: linear-gradient(90deg, #2b59c3, #5bd1d7); border-radius: 24px"))
        for name in CLASSICS:
            scene.add_svg((CLASSICS_DIR / f"{name}.svg").read_text())
        self._applied = None
        return scene

    def update(self, scene: Scene, t: float) -> None:
        self._apply_classic(scene)
        text = self.css()
        if self.classic is not None and self.classic_refused is None:
            text = f"url(#{self.classic})"
            if scene["stage"].style.get("filter", "none") != text:
                scene["stage"].style["filter"] = text
                try:  # planned before the frame: a primitive without a GPU pass is a typed error
                    scene.plan(t=t)
                except UnsupportedFeatureError as err:
                    self.classic_refused = str(err)
                    text = self.css()
        if scene["stage"].style.get("filter", "none") != text:
            scene["stage"].style["filter"] = text

    def rendered(self, frame: Frame) -> None:
        if frame.graph.filter_passes():
            self.last_run, self.last_run_css = executed_passes(frame), self.css()

    def controls(self) -> None:
        names = list(FUNCTIONS)
        _, self.choice = imgui.combo("function", self.choice, names)
        imgui.same_line()
        if imgui.button("add"):
            self.add(names[self.choice])
        for i, step in enumerate(list(self.steps)):
            imgui.push_id(i)
            low, high, _, _ = FUNCTIONS[step.function]
            _, step.amount = imgui.slider_float(step.function, step.amount, low, high)
            if i == 0:
                self.mark_probe(step.amount)
            imgui.same_line()
            if imgui.arrow_button("up", imgui.Dir.up) and i > 0:
                self.steps[i - 1], self.steps[i] = self.steps[i], self.steps[i - 1]
            imgui.same_line()
            if imgui.arrow_button("down", imgui.Dir.down) and i + 1 < len(self.steps):
                self.steps[i + 1], self.steps[i] = self.steps[i], self.steps[i + 1]
            imgui.same_line()
            if imgui.small_button("x"):
                self.steps.remove(step)
            imgui.pop_id()
        self._classic_controls()
        imgui.text_wrapped(f"filter: {self.css() if self.classic is None or self.classic_refused else 'url(#' + self.classic + ')'}")
        for line in self.classic_lines():
            imgui.text_wrapped(line)
        frame = self.runner.last_frame
        if frame is None:
            lines = str(filters.parse(self.css()).plan()).splitlines()
        else:
            last_run = self.last_run if self.last_run_css == self.css() else None
            lines = plan_lines(frame, last_run, self.css())
        self.shown = lines
        for line in lines:
            imgui.text_wrapped(line)

    def _classic_controls(self) -> None:
        names = list(CLASSICS)
        _, self.classic_choice = imgui.combo("classic SVG filter", self.classic_choice, names)
        imgui.same_line()
        if imgui.button("load"):
            self.load_classic(names[self.classic_choice])
        if self.classic is None:
            return
        imgui.same_line()
        if imgui.button("CSS chain"):
            self.load_classic(None)
            return
        spec = CLASSICS[self.classic]
        _, self.classic_amount = imgui.slider_float(spec.label, self.classic_amount, spec.low, spec.high)
        _, self.classic_plays = imgui.checkbox("animate", self.classic_plays)
