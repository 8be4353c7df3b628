"""Runs a demo: in a glfw window (resizable, vsync, HiDPI-aware) or headless, one loop.

Each frame the demo's scene is rendered by Lamina's renderer on the same GL context the
window (or, headless, EGL) gives, the frame is drawn into the scene viewport, the panels
are drawn over the rest with Dear ImGui, and — headless — the whole picture is written
out. There is one pipeline: the window adopts its context with
``GPUContext.from_current()``.

Keys (as every demo's help says): H help, Space pause, Right step one frame, R reset,
S screenshot (into the runner's screenshot folder: ``--out``, by default
``~/Pictures/lamina-demos``), Ctrl+= and Ctrl+- a larger or smaller UI (Ctrl+0 back to
the starting size; ``--ui-scale`` sets it at start, for a projector), Esc quit.

On a HiDPI screen the scene is rendered at the display's device pixel ratio (its content
scale) and drawn 1:1 into the framebuffer; the panels are laid out in window units and
ImGui's font is rasterized at the framebuffer's density (demos.ui.display_scale says
which unit is which). ``device_scale_factor`` forces the ratio (``--dpr``): headless, a
Retina-like framebuffer; in a window, the window's units follow it.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import glfw
import moderngl
import numpy as np
from imgui_bundle import imgui, implot
from PIL import Image

from lamina import Frame, FrameRequest, Renderer
from lamina.gpu.context import GPUContext
from lamina.output_files import atomic_file

from ..options import SCREENSHOTS, UI_SCALES
from .display_scale import DisplayScale
from .glfw_input import install_input
from .imgui_gl import ImGuiRenderer
from .panels import HELP, PanelState, draw_panels
from .recording import write_gif

__all__ = ["Demo", "Runner", "DisplayUnavailable", "HELP", "PANEL_WIDTH", "UI_SCALES", "SCREENSHOTS"]
PANEL_WIDTH = 480  # px at UI scale 1: the panels' column right of the scene


class DisplayUnavailable(RuntimeError):
    """No window can be opened here (no display); the message says what to do."""


@dataclass
class Demo:
    """What a demo provides; subclasses override ``build``, ``update`` and ``controls``.

    ``script`` is the sequence a headless recording follows: (frame number, action)
    pairs, each action a function of the demo, so a recording shows the lesson."""

    name: str = "demo"
    title: str = "Lamina demo"
    lesson: str = ""
    scene_size: tuple[int, int] = (860, 720)
    script: list[tuple[int, Callable[["Demo"], None]]] = field(default_factory=list)
    runner: Any = field(default=None, repr=False, compare=False)  # the Runner showing it
    # Screen rect (x0, y0, x1, y1) of the demo's main slider, as last drawn: the windowed
    # test drags it with real (xdotool) mouse events.
    probe: tuple[float, float, float, float] | None = field(default=None, repr=False, compare=False)
    probe_value: float | None = field(default=None, repr=False, compare=False)

    def mark_probe(self, value: float) -> None:
        """Call right after drawing the demo's main slider, with its value."""
        (x0, y0), (x1, y1) = imgui.get_item_rect_min(), imgui.get_item_rect_max()
        self.probe, self.probe_value = (x0, y0, x1, y1), value

    def start(self) -> None:
        """Called once the runner is ready (``self.runner``): set the panels' initial
        state (an overlay, a policy) here."""

    def rendered(self, frame) -> None:
        """Called with each frame right after ``scene.render()``, before the panels are
        drawn; ``self.runner.advanced`` says whether time moved for it (not paused)."""

    def build(self):
        """Make the scene (called at start and on R)."""
        raise NotImplementedError

    def update(self, scene, t: float) -> None:
        """Change the scene for time ``t`` (seconds) before it is rendered."""

    def controls(self) -> None:
        """Draw the demo's own ImGui controls (inside its panel)."""

    def request_options(self) -> dict:
        """More FrameRequest fields for its frames (a tiling, say); none by default."""
        return {}


class Runner:
    """Owns the GL context, Lamina's renderer, ImGui and the loop."""

    def __init__(self, demo: Demo, *, headless: bool, ui_scale: float = 1.0,
                 screenshots: Path | None = None, device_scale_factor: float | None = None) -> None:
        if not UI_SCALES[0] <= ui_scale <= UI_SCALES[-1]:
            raise ValueError(f"ui_scale {ui_scale} is outside {UI_SCALES[0]}-{UI_SCALES[-1]}")
        self.demo = demo
        self.headless = headless
        self.window = None
        self.ui_scale = self.start_ui_scale = ui_scale
        self.screenshot_folder = (screenshots or SCREENSHOTS).expanduser()
        self.forced_dpr = device_scale_factor  # None: the display's own
        if headless:
            self.display = DisplayScale.headless(device_scale_factor)
            self.gpu = GPUContext.headless()
            self.size = self._window_size()
        else:
            self.display = DisplayScale.of_window(1.0, (1, 1), (1, 1), device_scale_factor)  # checked before opening
            self.gpu, self.size = self._open_window(demo.title)
        self.ctx: moderngl.Context = self.gpu.ctx
        self.renderer = Renderer(self.gpu)
        imgui.create_context()
        implot.create_context()
        io = imgui.get_io()
        io.set_ini_filename("")  # no imgui.ini written next to the user's files
        io.display_size = self.size
        self._apply_ui_scale()
        self.imgui = ImGuiRenderer(self.ctx)
        self.offscreen = self.ctx.simple_framebuffer(self._pixels(self.size)) if headless else None
        self.scene_texture: moderngl.Texture | None = None
        self.blit = _Blit(self.ctx)
        self._readback: moderngl.Framebuffer | None = None  # a window's snapshots, see snapshot()
        self.state = PanelState()
        self.paused = False
        self.step = False
        self.advanced = False  # whether the last frame moved time (not paused, or a step)
        self.t = 0.0
        self.frames = 0
        self.screenshots = 0  # taken so far: they are numbered
        self.last_frame: Frame | None = None
        demo.runner = self
        demo.start()
        self.reset()
        if self.window is not None:
            self._install_input()

    # -- setup -------------------------------------------------------------------------
    def _open_window(self, title: str):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # glfw warns, then init() says no: we say why
            ready = glfw.init()
        if not ready:
            raise DisplayUnavailable(
                "no display to open a window on: run with --headless (writes PNG/GIF files), "
                "or start one (for example: Xvfb :99 & export DISPLAY=:99)"
            )
        glfw.window_hint(glfw.CONTEXT_VERSION_MAJOR, 3)
        glfw.window_hint(glfw.CONTEXT_VERSION_MINOR, 3)
        glfw.window_hint(glfw.OPENGL_PROFILE, glfw.OPENGL_CORE_PROFILE)
        glfw.window_hint(glfw.OPENGL_FORWARD_COMPAT, True)
        # HiDPI: where window units are pixels (X11, Windows) the window asks for as many
        # more as the monitor's content scale; a forced ratio sizes it below instead.
        glfw.window_hint(glfw.SCALE_TO_MONITOR, self.forced_dpr is None)
        window = glfw.create_window(*self._window_size(), title, None, None)
        if not window:
            glfw.terminate()
            raise DisplayUnavailable("the display refused an OpenGL 3.3 window: run with --headless")
        glfw.make_context_current(window)
        glfw.swap_interval(1)  # vsync
        self.window = window
        self.display = self._window_display()
        wanted = self._window_size()
        if tuple(glfw.get_window_size(window)) != wanted:
            glfw.set_window_size(window, *wanted)
        return GPUContext.from_current(), tuple(glfw.get_window_size(window))

    def _window_display(self) -> DisplayScale:
        """The window's DisplayScale now (its monitor's content scale, its framebuffer)."""
        window = self.window
        return DisplayScale.of_window(glfw.get_window_content_scale(window)[0], glfw.get_window_size(window),
                                      glfw.get_framebuffer_size(window), self.forced_dpr)

    def _follow_display(self) -> None:
        """A window moved to a monitor of another scale (or resized): the frames' ratio,
        the panels' units and ImGui's font density follow."""
        display = self._window_display()
        if display != self.display:
            self.display = display
            self._apply_ui_scale()
        self.size = tuple(glfw.get_window_size(self.window))

    def _pixels(self, size: tuple[float, float]) -> tuple[int, int]:
        """Window units -> framebuffer px."""
        return self.display.pixels(size)

    @property
    def device_scale_factor(self) -> float:
        """The frames' device pixel ratio (framebuffer px per scene CSS px)."""
        return self.display.device_scale_factor

    @property
    def scene_extent(self) -> tuple[float, float]:
        """The scene's viewport in window units (where the panels start, where the mouse is)."""
        return self.display.units(self.demo.scene_size)

    def scene_point(self, x: float, y: float) -> tuple[float, float]:
        """A window point (glfw's cursor, ImGui's mouse) in the scene's CSS px."""
        return self.display.css_from_units(x, y)

    # -- UI scale ------------------------------------------------------------------------
    @property
    def panel_width(self) -> int:
        """Width of the panels' column at the current UI scale (window units)."""
        return round(PANEL_WIDTH * self.layout_scale)

    @property
    def layout_scale(self) -> float:
        """What ImGui's sizes are multiplied by: the UI scale times window units per CSS px."""
        return self.ui_scale * self.display.units_per_css

    def _window_size(self) -> tuple[int, int]:
        """The window (units): the scene's viewport and the panels' column beside it."""
        scene_w, scene_h = self.scene_extent
        return round(scene_w) + self.panel_width, round(scene_h)

    def _apply_ui_scale(self) -> None:
        """ImGui's sizes (padding, spacing, scrollbars...) from a default style scaled
        once, never scaled again and again (ImGui rounds each time, so steps would drift),
        and its font at the same scale (ImGui 1.92 rasterizes glyphs at the size used)."""
        fresh = imgui.Style()
        fresh.scale_all_sizes(self.layout_scale)
        style = imgui.get_style()
        for name in dir(fresh):
            if name.startswith("_") or name.startswith("font_") or name in ("color_", "set_color_"):
                continue
            value = getattr(fresh, name)
            if not callable(value):
                setattr(style, name, value)
        style.font_scale_main = self.ui_scale
        style.font_scale_dpi = self.display.units_per_css
        # ImGui rasterizes its font at this density: crisp on a Retina framebuffer.
        imgui.get_io().display_framebuffer_scale = (self.display.pixel_ratio, self.display.pixel_ratio)

    def set_ui_scale(self, scale: float) -> None:
        """Scale the panels (font and layout) by ``scale`` (clamped to UI_SCALES' ends);
        the panels' column widens with it, so the window (or the headless picture) does."""
        scale = min(max(scale, UI_SCALES[0]), UI_SCALES[-1])
        if scale == self.ui_scale:
            return
        self.ui_scale = scale
        self._apply_ui_scale()
        self.size = self._window_size()
        if self.window is not None:
            glfw.set_window_size(self.window, *self.size)
        else:
            old, self.offscreen = self.offscreen, self.ctx.simple_framebuffer(self._pixels(self.size))
            self.offscreen.use()  # never delete the bound framebuffer (GL then reports the next draw)
            old.release()

    def _ui_step(self, direction: int) -> float:
        """The next UI size up (+1) or down (-1) from the current one."""
        if direction > 0:
            return next((s for s in UI_SCALES if s > self.ui_scale + 1e-6), UI_SCALES[-1])
        return next((s for s in reversed(UI_SCALES) if s < self.ui_scale - 1e-6), UI_SCALES[0])

    def reset(self) -> None:
        self.scene = self.demo.build()
        self.t = 0.0
        self.renderer.drop_caches()

    # -- one frame ---------------------------------------------------------------------
    def render_frame(self, dt: float) -> Frame:
        """Advance by ``dt`` seconds (unless paused), render the scene and the panels."""
        self.advanced = not self.paused or self.step
        if self.advanced:
            self.t += dt
            self.step = False
        self.demo.update(self.scene, self.t)
        request = FrameRequest(t=self.t, policy=self.state.policy, filter_backend=self.state.filter_backend,
                               device_scale_factor=self.device_scale_factor, **self.demo.request_options())
        started = time.perf_counter()
        frame = self.scene.render(self.renderer, request)
        render_ms = (time.perf_counter() - started) * 1000
        self.last_frame = frame
        self.demo.rendered(frame)
        started = time.perf_counter()
        self.present(frame, render_ms, dt)
        self.state.record(render_ms, (time.perf_counter() - started) * 1000, frame)
        self.frames += 1
        return frame

    def present(self, frame: Frame, render_ms: float = 0.0, dt: float = 1 / 60) -> None:
        """Draw ``frame`` into the scene's viewport and the panels over the rest: what
        the runner adds to ``scene.render()`` each frame."""
        # The frame's premultiplied pixels go up as they are: no un-premultiplying or
        # flipping on the CPU (the blit shader flips). An overlay is a straight picture.
        image = frame.overlay(self.state.overlay) if self.state.overlay else frame.premultiplied
        target = self._target()
        self._draw_scene(image, target)
        imgui.get_io().display_size = self.size
        imgui.get_io().delta_time = max(dt, 1e-3)
        imgui.new_frame()
        draw_panels(self, frame, render_ms)
        imgui.render()
        self.imgui.render(target, self.framebuffer_size())

    def _target(self) -> moderngl.Framebuffer:
        # The window's default framebuffer, asked for by number (0): a bare
        # ``detect_framebuffer()`` returns whatever is bound, and after ``scene.render()``
        # that is one of Lamina's pooled framebuffers, so the scene and panels went into
        # a scene-sized texture, not the window (and a snapshot read past its edge:
        # pixels GL leaves unwritten, so whatever memory held, different run to run).
        if self.offscreen is not None:
            return self.offscreen
        return self.ctx.detect_framebuffer(0)

    def framebuffer_size(self) -> tuple[int, int]:
        """Pixels of what is drawn into (the window's framebuffer, or the offscreen one)."""
        if self.offscreen is not None:
            return self.offscreen.size
        return glfw.get_framebuffer_size(self.window)

    def _draw_scene(self, image: np.ndarray, target: moderngl.Framebuffer) -> None:
        h, w = image.shape[:2]
        if self.scene_texture is None or self.scene_texture.size != (w, h):
            if self.scene_texture is not None:
                self.scene_texture.release()
            self.scene_texture = self.ctx.texture((w, h), 4)
        self.scene_texture.write(np.ascontiguousarray(image))
        target.use()
        fw, fh = self.framebuffer_size()
        self.ctx.viewport = (0, 0, fw, fh)
        # Only the panels' side needs the background: the frame covers the rest. The frame
        # is rendered at the framebuffer's ratio, so it is drawn 1:1, top-left.
        target.clear(0.11, 0.11, 0.13, 1.0, viewport=(min(w, fw), 0, max(fw - w, 0), fh))
        self.blit.draw(self.scene_texture, (0, fh - h, w, h))

    def snapshot(self) -> np.ndarray:
        """The picture as shown: scene and panels, (H, W, 4) uint8, top row first."""
        w, h = self.framebuffer_size()
        source = self._target()
        if self.offscreen is None:
            # moderngl's read() selects GL_COLOR_ATTACHMENT0, which the window's default
            # framebuffer lacks (GL_INVALID_OPERATION, which Lamina's next render then
            # reports): blit the window's back buffer into a framebuffer of ours and read
            # that. Call before swap_buffers, while the back buffer holds this frame.
            if self._readback is None or self._readback.size != (w, h):
                if self._readback is not None:
                    source.use()  # never delete the bound framebuffer
                    self._readback.release()
                self._readback = self.ctx.simple_framebuffer((w, h))
            self.ctx.copy_framebuffer(self._readback, source)
            source = self._readback
        data = source.read(viewport=(0, 0, w, h), components=4, alignment=1)
        return np.frombuffer(data, np.uint8).reshape(h, w, 4)[::-1].copy()

    def screenshot(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        self.screenshots += 1
        path = folder / f"{self.demo.name}-{self.screenshots:03d}.png"
        with atomic_file(path) as out:
            Image.fromarray(self.snapshot(), "RGBA").save(out, format="PNG")
        return path

    # -- keys --------------------------------------------------------------------------
    def key(self, name: str) -> None:
        """The standard keys, by name: "H", "Space", "Right", "R", "S", "Escape", and
        "Ctrl+=", "Ctrl+-", "Ctrl+0" (UI scale up, down, back to the start)."""
        if name == "H":
            self.state.show_help = not self.state.show_help
        elif name == "Space":
            self.paused = not self.paused
        elif name == "Right":
            self.paused, self.step = True, True
        elif name == "R":
            self.reset()
        elif name == "S":
            print(f"screenshot: {self.screenshot(self.screenshot_folder)}")
        elif name == "Escape":
            self.state.quit = True
        elif name == "Ctrl+=":
            self.set_ui_scale(self._ui_step(+1))
        elif name == "Ctrl+-":
            self.set_ui_scale(self._ui_step(-1))
        elif name == "Ctrl+0":
            self.set_ui_scale(self.start_ui_scale)

    # -- loops -------------------------------------------------------------------------
    def run_window(self) -> None:
        last = time.perf_counter()
        while not glfw.window_should_close(self.window) and not self.state.quit:
            glfw.poll_events()
            self._follow_display()  # the user may resize it, or move it to another monitor
            now = time.perf_counter()
            self.render_frame(now - last)
            last = now
            glfw.swap_buffers(self.window)
        self.close()

    def run_headless(self, frames: int, out: Path, *, fps: float = 30.0, gif: bool = False) -> list[Path]:
        """Render ``frames`` frames at ``fps`` following the demo's script; write each
        picture as PNG (and all of them as one GIF)."""
        out.mkdir(parents=True, exist_ok=True)
        script = sorted(self.demo.script, key=lambda step: step[0])
        paths = []
        for i in range(frames):
            for at, action in script:
                if at == i:
                    action(self.demo)
            self.render_frame(0.0 if i == 0 else 1.0 / fps)
            path = out / f"{self.demo.name}-{i:04d}.png"
            with atomic_file(path) as stream:
                Image.fromarray(self.snapshot(), "RGBA").save(stream, format="PNG")
            paths.append(path)
        if gif and paths:
            split = self._pixels(self.scene_extent)[0]  # the scene's own half of each frame's palette
            paths.append(write_gif(list(paths), out / f"{self.demo.name}.gif", fps, split=split))
        return paths

    def close(self) -> None:
        self.imgui.release()
        self.blit.release()
        if self._readback is not None:
            self._readback.release()
        if self.scene_texture is not None:
            self.scene_texture.release()
        implot.destroy_context()
        imgui.destroy_context()
        if self.window is not None:
            glfw.destroy_window(self.window)
            glfw.terminate()
            self.window = None
        else:
            self.renderer.release()

    def _install_input(self) -> None:
        install_input(self)


_SHADERS = Path(__file__).resolve().parent / "shaders"


class _Blit:
    """Draws a frame's texture (top row first) into a rectangle of the bound framebuffer."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self.program = ctx.program(vertex_shader=(_SHADERS / "blit.vert").read_text(),
                                   fragment_shader=(_SHADERS / "blit.frag").read_text())
        self.vao = ctx.vertex_array(self.program, [])

    def draw(self, texture: moderngl.Texture, rect: tuple[int, int, int, int]) -> None:
        self.ctx.viewport = rect
        self.ctx.disable(moderngl.BLEND)
        texture.use(0)
        self.vao.render(moderngl.TRIANGLE_STRIP, vertices=4)

    def release(self) -> None:
        self.vao.release()
        self.program.release()
