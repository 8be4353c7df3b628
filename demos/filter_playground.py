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
move it up or down, or remove it. The chain is shown as the CSS you would write. The
headless recording adds grayscale, a blur that it ramps up, then a drop-shadow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from imgui_bundle import imgui

from lamina import Frame, Layer, Scene, filters

from .ui.runner import Demo

__all__ = ["FilterPlayground", "FUNCTIONS", "executed_passes", "reused_filter", "plan_lines"]

PHOTO = Path(__file__).resolve().parent / "showcase" / "sunset.png"

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

    def __post_init__(self) -> None:
        self.script = [
            (2, lambda d: d.add("grayscale", 0.7)),
            (5, lambda d: d.add("blur", 1.0)),
            *[(6 + i, (lambda a: lambda d: d.set_amount("blur", a))(2.0 + 2.0 * i)) for i in range(6)],
            (13, lambda d: d.add("drop-shadow", 8.0)),
        ]

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
        return scene

    def update(self, scene: Scene, t: float) -> None:
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
        imgui.text_wrapped(f"filter: {self.css()}")
        frame = self.runner.last_frame
        if frame is None:
            lines = str(filters.parse(self.css()).plan()).splitlines()
        else:
            last_run = self.last_run if self.last_run_css == self.css() else None
            lines = plan_lines(frame, last_run, self.css())
        self.shown = lines
        for line in lines:
            imgui.text_wrapped(line)
