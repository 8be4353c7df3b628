"""Benchmarks: a 1920x1080 filtered layer in a scene with filter_backend gl, opencl and
auto, in the same run. The filter animates by a hair every frame so its result is never
reused: each frame rasters nothing and runs the filter plan (plus transfers on OpenCL).

    .venv/bin/python -m pytest tests/benchmarks/test_filter_backend_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools

import pytest

from lamina import Layer, Scene

from .test_filters_bench import COLOR_CHAIN, ROUNDS, make_image

# Each chain and the hair it animates to (a blur stays on the same side of sigma 4).
CHAINS = {
    "color chain": (COLOR_CHAIN, COLOR_CHAIN.replace("contrast(1.2)", "contrast(1.201)")),
    "blur 4px": ("blur(4px)", "blur(3.99px)"),
    "blur 8px": ("blur(8px)", "blur(8.01px)"),
    "drop-shadow": ("drop-shadow(4px 4px 6px rgba(0,0,0,.5))", "drop-shadow(4px 4px 6.01px rgba(0,0,0,.5))"),
    "blur + colour": ("blur(3px) " + COLOR_CHAIN, "blur(2.99px) " + COLOR_CHAIN),
}


def scene_for(chain: tuple[str, str]) -> Scene:
    scene = Scene(1920, 1080, "white")
    layer = scene.root.add(Layer("photo", (0, 0, 1920, 1080), f"filter: {chain[0]}", image=make_image()))
    layer.animate({"from": {"filter": chain[0]}, "to": {"filter": chain[1]}}, duration=1000.0)
    return scene


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl", "auto"])
@pytest.mark.parametrize("name", list(CHAINS))
def test_filtered_layer_frame(benchmark, gl, name, backend):
    benchmark.group = f"filtered 1080p layer, per frame: {name}"
    scene = scene_for(CHAINS[name])
    times = itertools.count(1)
    scene.render(gl, t=0.0, filter_backend=backend)  # raster, calibrate (auto), compile

    def frame():
        return scene.render(gl, t=next(times) * 0.37, filter_backend=backend)

    result = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=1)
    assert result.graph.raster_passes() == [] and result.graph.filter_passes()
    benchmark.extra_info["opencl_passes"] = result.graph.totals()["opencl_filter_passes"]
    benchmark.extra_info["transfers"] = result.graph.totals()["transfers"]
