"""The GL context: fingerprint, limits, every shader variant compiling, and the clear
error when EGL is missing."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import moderngl
import pytest

import lamina.gpu.context
from lamina.errors import GPUUnavailableError
from lamina.gpu.context import GPUContext
from lamina.gpu.programs import VARIANTS, ProgramCache


def test_fingerprint_and_limits(gl):
    info = gl.info
    assert info.renderer and info.renderer != "unknown"
    assert info.version and info.version != "unknown"
    assert info.version_code >= 330
    assert info.max_texture_size >= 2048
    assert info.fingerprint == {"GL_RENDERER": info.renderer, "GL_VERSION": info.version}
    assert gl.limits.max_texture_size == info.max_texture_size


def test_renderer_info_is_exposed_by_engine(gl):
    import lamina

    assert lamina.renderer_info() is gl.info


def test_every_variant_compiles_once(gl):
    cache = ProgramCache(gl.gpu.ctx)
    cache.warm_up()
    assert cache.compiles == len(VARIANTS)
    cache.warm_up()
    assert cache.compiles == len(VARIANTS), "a second warm-up must compile nothing"
    gl.gpu.check_errors("compiling every variant")


# Every uniform the executor sets must exist in at least one variant, so that the
# executor's "skip uniforms the compiler removed" rule cannot hide a misspelt name.
EXECUTOR_UNIFORMS = [
    "u_size", "u_offset", "u_background", "u_radii_x", "u_radii_y", "u_border",
    "u_border_color", "u_tile", "u_repeat", "u_background_clip", "u_stop_color", "u_stop_pos", "u_stop_hint",
    "u_stop_count", "u_repeating", "u_line_start", "u_line_dir", "u_line_length",
    "u_center", "u_radius", "u_image", "u_transform", "u_quad_size", "u_target_size",
    "u_draw_rect", "u_opacity", "u_clip_to_local", "u_clip_rect", "u_clip_rx", "u_clip_ry",
    "u_clip_px", "u_source", "u_backdrop", "u_backdrop_origin", "u_blend_mode", "u_to_source", "u_mirror",
    "u_exact", "u_hard_edges", "u_edges", "u_projected", "u_cell",
    # conic gradients, dashed / dotted borders
    "u_conic_center", "u_conic_from", "u_dash_start", "u_dash_period", "u_dash_length",
    "u_dash_count", "u_dash_dots", "u_dash_caps", "u_corner_arc",
    "u_clip_kind", "u_mask", "u_mask_to_texel", "u_mask_mode", "u_points", "u_point_count", "u_evenodd",
    # pieces of a layer split in a 3D rendering context (preserve-3d)
    "u_split_count", "u_split_planes",
]


def test_executor_uniform_names_exist(gl):
    import inspect

    from lamina.compositor import paint_data
    from lamina.gpu import executor

    # The raster program's uniforms are named by the paint's call (LayerPaint.raster_call).
    source = inspect.getsource(executor) + inspect.getsource(paint_data)
    used = set(__import__("re").findall(r'"(u_[a-z_]+)"', source))
    assert used == set(EXECUTOR_UNIFORMS), "update EXECUTOR_UNIFORMS with the executor"
    cache = ProgramCache(gl.gpu.ctx)
    missing = [u for u in EXECUTOR_UNIFORMS if not any(u in cache.get(v) for v in VARIANTS)]
    assert missing == []


def test_missing_egl_raises_clear_error(monkeypatch):
    def fail(**kwargs):
        raise Exception("libEGL.so: cannot open shared object file")

    monkeypatch.setattr(moderngl, "create_standalone_context", fail)
    # No released context of this thread's to use again: a new one must be made.
    monkeypatch.setattr(lamina.gpu.context, "_idle", threading.local())
    with pytest.raises(GPUUnavailableError) as info:
        GPUContext.headless()
    message = str(info.value)
    assert "apt-get install" in message and "libegl" in message.lower()
    assert "cannot open shared object" in message


def test_cli_reports_missing_egl_without_traceback(tmp_path):
    # A real failure: point glcontext at a libEGL that does not exist.
    env = {**os.environ, "GLCONTEXT_LINUX_LIBEGL": str(tmp_path / "libEGL.so.1")}
    proc = subprocess.run(
        [sys.executable, "-m", "lamina", "info"], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "apt-get install" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_renderer_draws_in_its_own_context_when_another_is_current(gl):
    # A second context (a window's, say) becomes current on creation; rendering must
    # still go to the renderer's own context and leave no GL error behind.
    from lamina import Layer, Scene

    scene = Scene(8, 8, "red")
    scene.root.add(Layer("a", (0, 0, 4, 4), "background: blue; opacity: .5"))
    before = scene.render(gl).image.copy()
    other = moderngl.create_standalone_context(backend="egl")
    try:
        after = scene.render(gl).image
        assert (after == before).all()
        assert tuple(after[0, 0]) == (127, 0, 128, 255)
        assert other.error == "GL_NO_ERROR"
    finally:
        other.release()
