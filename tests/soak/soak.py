"""Soak: many animated frames of one scene with paint changes, box resizes, policy and
filter-backend switches, measuring what could leak: the process's resident memory, the
GL texture pool, kept textures, uploaded images, every live GL object of the renderer's
context (textures, framebuffers, buffers, vertex arrays, programs, samplers, queries) and
OpenCL buffers. After a warm-up every figure must stay flat.

    .venv/bin/python -m tests.soak.soak --frames 10000      # prints the figures
"""

from __future__ import annotations

import argparse
import gc
import os
import resource

import moderngl
import numpy as np

from lamina import Layer, Scene
from lamina.renderer import Renderer

POLICIES = ("browser", "all", "none")
BACKENDS = ("gl", "opencl")
COLORS = ("#f06", "#48f", "#0a8", "#fc0", "#333")
SIZES = ((120, 80), (96, 70), (140, 90))


def soak_scene() -> Scene:
    scene = Scene(320, 240, "#eee")
    spin = scene.root.add(Layer("spin", (20, 20, 120, 80), "background: linear-gradient(#f06, #48f); border-radius: 10px"))
    spin.animate({"from": {"transform": "rotate(0deg)"}, "to": {"transform": "rotate(360deg)"}}, duration=2,
                 iterations="infinite")
    fade = scene.root.add(Layer("fade", (170, 20, 120, 80), "background: #0a8; box-shadow: 0 4px 12px black"))
    fade.animate({"from": {"opacity": "1"}, "to": {"opacity": "0.2"}}, duration=1.5, iterations="infinite",
                 direction="alternate")
    blur = scene.root.add(Layer("blur", (20, 130, 120, 80), "background: radial-gradient(#fc0, #f60); filter: blur(3px)"))
    blur.animate({"from": {"filter": "blur(0px)"}, "to": {"filter": "blur(6px)"}}, duration=3, iterations="infinite")
    scene.root.add(Layer("blend", (80, 100, 160, 60), "background: #48f; mix-blend-mode: multiply"))
    scene.root.add(Layer("words", (170, 130, 130, 80), "font-size: 14px; color: #123", text="soak test frames"))
    scene.root.add(Layer("pic", (260, 200, 48, 32), "background-size: cover", image=np.zeros((16, 24, 4), np.uint8)))
    return scene


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# What a moderngl context hands out; a released one holds an InvalidObject.
GL_TYPES = (moderngl.Texture, moderngl.TextureArray, moderngl.Texture3D, moderngl.TextureCube, moderngl.Framebuffer,
            moderngl.Renderbuffer, moderngl.Buffer, moderngl.VertexArray, moderngl.Program, moderngl.Sampler,
            moderngl.Query)


def gl_objects(ctx: moderngl.Context) -> int:
    """Live (not released) GL objects of ``ctx`` that Python still reaches."""
    gc.collect()
    return sum(1 for o in gc.get_objects()
               if isinstance(o, GL_TYPES) and o.ctx is ctx and not isinstance(o.mglo, moderngl.mgl.InvalidObject))


def measure(renderer: Renderer) -> dict[str, int]:
    executor = renderer.executor
    pool = executor.pool
    cl = executor._opencl
    return {
        "rss": rss_bytes(),
        "pool_textures": pool.free_count + pool.in_use,
        "kept_textures": len(executor._retained),
        "images": len(executor._images),
        "gl_objects": gl_objects(executor.gpu.ctx),
        "opencl_buffers": cl.free_count if cl is not None else 0,
    }


def run(frames: int = 10_000, warmup: int = 4000, renderer: Renderer | None = None) -> tuple[dict, dict]:
    """Render ``frames`` frames; return the figures after the warm-up and at the end —
    compare at the same point of the 3000-frame cycle (the defaults: frame 3999 and
    9999, both GL, policy "all", in the same place of every other schedule)."""
    renderer = renderer or Renderer()
    scene = soak_scene()
    start = None
    for i in range(frames):
        if i % 7 == 0:
            scene["blend"].style["background-color"] = COLORS[(i // 7) % len(COLORS)]
        if i % 250 == 0:  # in-memory pixels changed in place: uploaded again, not added
            pixels = scene["pic"].image.data
            pixels[...] = (i // 250 * 37 % 256, 80, 160, 255)
        if i % 97 == 0:
            w, h = SIZES[(i // 97) % len(SIZES)]
            scene["words"].box = (170, 130, w, h)
        # One cycle is 3000 frames: each policy for 500 frames, on GL then on OpenCL.
        policy = POLICIES[(i // 500) % len(POLICIES)]
        backend = BACKENDS[(i // 1500) % len(BACKENDS)]
        scene.render(renderer, t=i / 60, policy=policy, filter_backend=backend)
        if i + 1 == warmup:
            start = measure(renderer)
    return start, measure(renderer)


def grew(start: dict, end: dict) -> dict[str, float]:
    """How much each figure grew, as a fraction of its warm-up value."""
    return {k: (end[k] - start[k]) / max(start[k], 1) for k in start}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10_000)
    args = parser.parse_args()
    start, end = run(args.frames)
    for key in start:
        print(f"{key:<16} after warm-up {start[key]:>12}  at the end {end[key]:>12}  ({grew(start, end)[key]:+.1%})")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
