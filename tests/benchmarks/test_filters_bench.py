"""Benchmarks: Lamina's CSS filter pipeline (GL and OpenCL) against CPU peers, 1920x1080 RGBA8.

Each ``benchmark.group`` is one row of the comparison: Lamina and every installed peer
doing the same work on the same image in the same run. Peers come with the ``bench``
extra (``pip install -e '.[test,bench]'``); without it their benchmarks are skipped.

In the normal test suite ``--benchmark-disable`` (pyproject addopts) runs every body
once, untimed, as a smoke test. Real measurements:

    .venv/bin/python -m pytest tests/benchmarks --benchmark-enable --benchmark-only

(``LAMINA_BENCH_ROUNDS=N`` changes the number of timed rounds; compare medians.)

Every implementation gets a premultiplied RGBA8 array and returns a new (H, W, 4) uint8
array: Lamina's time includes the texture upload and the read-back, the peers' times
include wrapping the array and allocating the output.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from lamina import filters

W, H = 1920, 1080
SEED = 20240611
ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "15"))
WARMUP = 2  # Lamina's first call compiles shaders and allocates its textures

COLOR_CHAIN = "grayscale(.5) sepia(.3) saturate(1.4) hue-rotate(30deg) brightness(1.1) contrast(1.2)"
BLUR_SIGMAS = (2, 4, 8, 32, 64)
SHADOW = "drop-shadow(4px 4px 6px rgba(0,0,0,.5))"
SHADOW_ARGS = (4.0, 4.0, 6.0, (0.0, 0.0, 0.0, 0.5))  # dx, dy, sigma, straight RGBA

BENCH_EXTRA = "install the bench extra: pip install -e '.[test,bench]'"


def make_image(seed: int = SEED) -> np.ndarray:
    """A photo-like premultiplied RGBA8 image: smooth colour gradients with sensor-like
    noise, alpha that is opaque in places, fades out, is a soft checkerboard elsewhere
    and fully transparent in a band on the left."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    r = 0.5 + 0.5 * np.sin(x / W * 3.1 + y / H * 1.7)
    g = 0.5 + 0.5 * np.cos(x / W * 2.3 - y / H * 2.9)
    b = (x + y) / (W + H)
    rgb = np.stack([r, g, b], axis=-1) * 220.0 + rng.normal(0.0, 12.0, (H, W, 3)).astype(np.float32)
    alpha = np.clip(1.5 - np.hypot(x - 0.7 * W, y - 0.4 * H) / (0.35 * H), 0.0, 1.0)
    alpha = np.maximum(alpha, ((x // 160 + y // 160) % 2 == 0) * 0.8)
    alpha[:, :200] = 0.0
    a = np.clip(np.rint(alpha * 255.0 + rng.normal(0.0, 4.0, (H, W))), 0, 255)
    a[:, :200] = 0
    rgb = np.clip(np.rint(rgb), 0, 255)
    premultiplied = np.rint(rgb * (a[..., None] / 255.0))
    return np.ascontiguousarray(np.dstack([premultiplied, a]).astype(np.uint8))


@pytest.fixture(scope="module")
def image() -> np.ndarray:
    img = make_image()
    img.setflags(write=False)  # every implementation must leave the input alone
    return img


def run(benchmark, group: str, fn, *args):
    """Time ``fn(*args)``: WARMUP untimed calls, then ROUNDS timed calls of one iteration."""
    benchmark.group = group
    out = benchmark.pedantic(fn, args=args, rounds=ROUNDS, iterations=1, warmup_rounds=WARMUP)
    assert out.shape == (H, W, 4) and out.dtype == np.uint8
    # The work was done, into a new array: every filter here changes this image.
    assert not np.shares_memory(out, args[0]) and not np.array_equal(out, args[0]), "a new, filtered image"
    return out


def blur_group(sigma: float) -> str:
    return f"blur sigma={sigma:02d}px"


# --- Lamina (GL) --------------------------------------------------------------------


def lamina(img: np.ndarray, chain) -> np.ndarray:
    return filters.apply(img, chain, premultiplied=True)


@pytest.mark.gl
def test_color_chain_lamina(benchmark, gl, image):
    run(benchmark, "color chain", lamina, image, filters.parse(COLOR_CHAIN))


@pytest.mark.gl
@pytest.mark.parametrize("sigma", BLUR_SIGMAS)
def test_blur_lamina(benchmark, gl, image, sigma):
    run(benchmark, blur_group(sigma), lamina, image, filters.parse(f"blur({sigma}px)"))


@pytest.mark.gl
def test_drop_shadow_lamina(benchmark, gl, image):
    run(benchmark, "drop-shadow", lamina, image, filters.parse(SHADOW))


# --- Lamina (OpenCL: the same plans as kernels, upload and read-back included) ----------


def lamina_opencl(img: np.ndarray, chain) -> np.ndarray:
    return filters.apply(img, chain, "opencl", premultiplied=True)


def test_color_chain_lamina_opencl(benchmark, image):
    run(benchmark, "color chain", lamina_opencl, image, filters.parse(COLOR_CHAIN))


@pytest.mark.parametrize("sigma", BLUR_SIGMAS)
def test_blur_lamina_opencl(benchmark, image, sigma):
    run(benchmark, blur_group(sigma), lamina_opencl, image, filters.parse(f"blur({sigma}px)"))


def test_drop_shadow_lamina_opencl(benchmark, image):
    run(benchmark, "drop-shadow", lamina_opencl, image, filters.parse(SHADOW))


# --- OpenCV -------------------------------------------------------------------------


def color_chain_affine() -> np.ndarray:
    """The chain's colour matrices multiplied into one 4x5 affine map for 8-bit values
    (the RGB rows are the 3x4 product; alpha passes through). Unlike CSS (and Lamina)
    there is no clamp between the steps."""
    product = np.eye(5)
    for op in filters.parse(COLOR_CHAIN):
        step = np.vstack([op.matrix(), [0.0, 0.0, 0.0, 0.0, 1.0]])
        product = step @ product
    m = product[:4].copy()
    m[:, 4] *= 255.0  # offsets are in [0, 1] units; cv2.transform works on 0..255
    return m


def test_color_chain_opencv(benchmark, image):
    cv2 = pytest.importorskip("cv2", reason=f"OpenCV is not installed ({BENCH_EXTRA})")
    m = color_chain_affine()
    run(benchmark, "color chain", cv2.transform, image, m)


@pytest.mark.parametrize("sigma", BLUR_SIGMAS)
def test_blur_opencv(benchmark, image, sigma):
    cv2 = pytest.importorskip("cv2", reason=f"OpenCV is not installed ({BENCH_EXTRA})")
    run(benchmark, blur_group(sigma), lambda img: cv2.GaussianBlur(img, (0, 0), sigma), image)


# --- skia-python --------------------------------------------------------------------


def skia_draw(skia, paint):
    """The idiomatic raster path: wrap the array as a premultiplied skia.Image and draw
    it with ``paint`` (colour or image filter) into a surface on a new array."""

    def draw(img: np.ndarray) -> np.ndarray:
        source = skia.Image.fromarray(img, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType, copy=False)
        out = np.zeros_like(img)
        surface = skia.Surface(out, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
        with surface as canvas:
            canvas.drawImage(source, 0, 0, skia.SamplingOptions(), paint)
        return out

    return draw


def test_color_chain_skia(benchmark, image):
    skia = pytest.importorskip("skia", reason=f"skia-python is not installed ({BENCH_EXTRA})")
    composed = None
    for op in filters.parse(COLOR_CHAIN):
        # Skia's colour matrix is the CSS one: row-major 4x5 on straight RGBA, offsets
        # in [0, 1], result clamped; Compose(outer, inner) applies inner first.
        step = skia.ColorFilters.Matrix(np.asarray(op.matrix(), dtype=float).ravel().tolist())
        composed = step if composed is None else skia.ColorFilters.Compose(step, composed)
    run(benchmark, "color chain", skia_draw(skia, skia.Paint(ColorFilter=composed)), image)


@pytest.mark.parametrize("sigma", BLUR_SIGMAS)
def test_blur_skia(benchmark, image, sigma):
    skia = pytest.importorskip("skia", reason=f"skia-python is not installed ({BENCH_EXTRA})")
    paint = skia.Paint(ImageFilter=skia.ImageFilters.Blur(sigma, sigma))
    run(benchmark, blur_group(sigma), skia_draw(skia, paint), image)


def test_drop_shadow_skia(benchmark, image):
    skia = pytest.importorskip("skia", reason=f"skia-python is not installed ({BENCH_EXTRA})")
    dx, dy, sigma, rgba = SHADOW_ARGS
    color = skia.Color4f(*rgba).toColor()
    paint = skia.Paint(ImageFilter=skia.ImageFilters.DropShadow(dx, dy, sigma, sigma, color))
    run(benchmark, "drop-shadow", skia_draw(skia, paint), image)


# --- Pillow -------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", BLUR_SIGMAS)
def test_blur_pillow(benchmark, image, sigma):
    pil = pytest.importorskip("PIL.Image", reason=f"Pillow is not installed ({BENCH_EXTRA})")
    from PIL import ImageFilter

    gaussian = ImageFilter.GaussianBlur(radius=sigma)  # Pillow's radius is ~ sigma

    def blur(img: np.ndarray) -> np.ndarray:
        # "RGBa" is Pillow's premultiplied mode.
        source = pil.frombuffer("RGBa", (W, H), img, "raw", "RGBa", 0, 1)
        return np.asarray(source.filter(gaussian))

    run(benchmark, blur_group(sigma), blur, image)
