"""shaders/common/blend.glsl against the float64 reference (lamina.blending.reference):
every blend mode, on seeded random premultiplied RGBA8 source and backdrop texels,
within one 8-bit level. Comparisons are in premultiplied RGBA8, the pipeline's own
representation (the straight colour of a nearly transparent pixel is not meaningful)."""

from __future__ import annotations

import re
from pathlib import Path

import moderngl
import numpy as np
import pytest

from lamina.blending import BlendMode
from lamina.blending.reference import blend
from lamina.gpu import shader_source

# The test-only program lives beside this file; the test serves it to the project's
# shader loader under this name so that its #include lines go through
# shader_source.assemble like every real program's.
PROBE_FILE = Path(__file__).with_name("blend_probe.frag")
PROBE_NAME = "tests/gl/blend_probe.frag"
SIZE = (96, 64)  # width, height: 6144 texel pairs per mode


def assemble_probe() -> str:
    real_load = shader_source.load_source

    def load(name: str) -> str:
        return PROBE_FILE.read_text(encoding="utf-8") if name == PROBE_NAME else real_load(name)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shader_source, "load_source", load)
        return shader_source.assemble(PROBE_NAME)


@pytest.fixture(scope="module")
def probe(renderer):
    """The compiled probe program and an attribute-less VAO for its fullscreen triangle."""
    ctx = renderer.gpu.ctx
    renderer.gpu.activate()
    program = ctx.program(
        vertex_shader=shader_source.assemble("common/fullscreen.vert"),
        fragment_shader=assemble_probe(),
    )
    vao = ctx.vertex_array(program, [])
    yield program, vao
    renderer.gpu.activate()
    vao.release()
    program.release()


def run_probe(gl, probe, source: np.ndarray, backdrop: np.ndarray, mode: BlendMode) -> np.ndarray:
    """blend_composite(source, backdrop, mode) per texel, read back as RGBA8 (h, w, 4)."""
    program, vao = probe
    ctx = gl.gpu.ctx
    h, w = source.shape[:2]
    textures = [ctx.texture((w, h), 4, data=np.ascontiguousarray(img).tobytes()) for img in (source, backdrop)]
    target = ctx.texture((w, h), 4)
    fbo = ctx.framebuffer(color_attachments=[target])
    # Bound again before the release: moderngl re-binds "the current framebuffer" after
    # making the next one, a GL error if that one was deleted (framebuffer 0 is always
    # valid, and is what a fresh standalone context has bound).
    previous = ctx.fbo if ctx.fbo is not None else ctx.detect_framebuffer(0)
    try:
        for unit, texture in enumerate(textures):
            texture.filter = (moderngl.NEAREST, moderngl.NEAREST)
            texture.use(unit)
        program["u_source"] = 0
        program["u_backdrop"] = 1
        program["u_mode"] = mode.index
        fbo.use()
        ctx.viewport = (0, 0, w, h)
        ctx.disable(moderngl.BLEND)  # the shader does all of the compositing
        vao.render(moderngl.TRIANGLES, vertices=3)
        # Rows come back from y = 0 up, the order the textures were uploaded in.
        return np.frombuffer(fbo.read(components=4), dtype=np.uint8).reshape(h, w, 4)
    finally:
        previous.use()
        for obj in (fbo, target, *textures):
            obj.release()


def random_premultiplied(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Random premultiplied RGBA8 (colour <= alpha) that hits the formulas' edges often:
    fully transparent, fully opaque and translucent pixels; channels at 0 and at alpha
    (straight 0 and 1: color-dodge/burn's special cases); greys (non-separable ties)."""
    kind = rng.choice(3, size=(h, w), p=[0.15, 0.35, 0.5])  # transparent, opaque, translucent
    alpha = np.select([kind == 0, kind == 1], [0, 255], rng.integers(1, 255, (h, w)))
    colour = np.floor(rng.random((h, w, 3)) * (alpha[..., None] + 1)).astype(np.int64)
    edge = rng.random((h, w, 3))
    colour = np.where(edge < 0.15, 0, np.where(edge > 0.85, alpha[..., None], colour))
    grey = rng.random((h, w)) < 0.1
    colour[grey] = colour[grey][:, :1]
    img = np.concatenate([colour, alpha[..., None]], axis=-1).astype(np.uint8)
    assert np.all(img[..., :3] <= img[..., 3:4])
    return img


def reference_rgba8(source: np.ndarray, backdrop: np.ndarray, mode: BlendMode) -> np.ndarray:
    out = blend(backdrop / 255.0, source / 255.0, mode)
    return np.rint(np.clip(out, 0.0, 1.0) * 255.0).astype(np.int64)


@pytest.mark.parametrize("mode", list(BlendMode), ids=str)
def test_glsl_matches_reference(gl, probe, rng, mode):
    w, h = SIZE
    source = random_premultiplied(rng, h, w)
    backdrop = random_premultiplied(rng, h, w)
    # The inputs hold every alpha case the formula distinguishes, in numbers.
    a_s, a_b = source[..., 3], backdrop[..., 3]
    for name, where in {
        "transparent source": a_s == 0,
        "transparent backdrop": a_b == 0,
        "both opaque": (a_s == 255) & (a_b == 255),
        "both translucent": (a_s > 0) & (a_s < 255) & (a_b > 0) & (a_b < 255),
    }.items():
        assert where.sum() >= 50, name

    out = run_probe(gl, probe, source, backdrop, mode).astype(np.int64)
    ref = reference_rgba8(source, backdrop, mode)
    diff = np.abs(out - ref)
    worst = np.unravel_index(np.argmax(diff.max(axis=-1)), diff.shape[:2])
    assert diff.max() <= 1, (
        f"{mode}: {diff.max()} levels at {worst}: source {source[worst]}, backdrop {backdrop[worst]}, "
        f"GLSL {out[worst]}, reference {ref[worst]}"
    )
    # Off by one only where float32 and float64 round a value near a half level apart.
    assert (diff == 0).mean() >= 0.98, f"{mode}: only {(diff == 0).mean():.3%} of channels exact"


def test_glsl_constants_match_blend_mode_index():
    text = shader_source.load_source("common/blend_modes.h")  # blend.glsl's maths, shared with OpenCL
    defined = {name: int(value) for name, value in re.findall(r"^#define BLEND_(\w+) (\d+)\s*$", text, re.MULTILINE)}
    assert defined == {mode.name: mode.index for mode in BlendMode}


def test_probe_is_assembled_by_the_project_include_mechanism():
    text = assemble_probe()
    assert text.startswith(shader_source.load_source("version.glsl").strip())
    assert "#include" not in text
    assert text.count("vec4 blend_composite(") == 1
    assert text.count("vec4 over(") == 1, "premultiplied.glsl is included twice and must be expanded once"
