"""Benchmarks for issue 22's overlap: a 1280x720 scene with two independent filtered
layers (one blur-heavy, one colour-heavy) and a backdrop-filter panel, their filters
animated by a hair each frame so no result is reused.

* The same placement (every filter pass on OpenCL) run overlapped (the default: OpenCL
  work queued on the device while GL draws, gpu.cl_queue) and serialised
  (``overlap=False``: each OpenCL item waited for as it is queued): same graphs, same
  pixels, frames interleaved so both see the same machine.
* The default call, ``scene.render`` with filter_backend gl, opencl and auto, frames
  interleaved: auto against the best fixed placement.

On this machine GL (llvmpipe) and OpenCL (PoCL) both run on the same 2 CPU cores: while
both work, each gets part of the cores, so overlap gains only what one device leaves
idle (the GL thread's Python between passes, transfers, waits), not a second device's
throughput. auto knows (graph.placed.overlaps) and places by the serial prediction.

    .venv/bin/python -m pytest tests/benchmarks/test_overlap_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import itertools
import statistics
import time

import pytest

from lamina import Layer, Renderer, Scene

from .test_filters_bench import COLOR_CHAIN, ROUNDS

BLUR = ("blur(12px)", "blur(12.01px)")
COLOUR = (COLOR_CHAIN, COLOR_CHAIN.replace("contrast(1.2)", "contrast(1.201)"))
BACKDROP = ("blur(8px)", "blur(8.01px)")


def overlap_scene() -> Scene:
    scene = Scene(1280, 720, "white")
    photo = scene.root.add(Layer("photo", (40, 40, 560, 400),
                                 f"background: linear-gradient(45deg, #f80, #08f); filter: {BLUR[0]}"))
    tint = scene.root.add(Layer("tint", (680, 40, 560, 400),
                                f"background: radial-gradient(#0a4, #fe2); border-radius: 24px; filter: {COLOUR[0]}"))
    panel = scene.root.add(Layer("panel", (200, 320, 880, 340),
                                 f"background: rgba(255,255,255,.3); backdrop-filter: {BACKDROP[0]}"))
    photo.animate({"from": {"filter": BLUR[0]}, "to": {"filter": BLUR[1]}}, duration=1000.0)
    tint.animate({"from": {"filter": COLOUR[0]}, "to": {"filter": COLOUR[1]}}, duration=1000.0)
    panel.animate({"from": {"backdrop-filter": BACKDROP[0]}, "to": {"backdrop-filter": BACKDROP[1]}}, duration=1000.0)
    return scene


def _overlapping_ms(stats, graph) -> float:
    """How long the OpenCL device and the GL thread worked at the same time."""
    cl, gl = [], []
    for p in graph.passes:
        if p.name not in stats.pass_ms:
            continue
        span = (stats.pass_start_ms[p.name], stats.pass_start_ms[p.name] + stats.pass_ms[p.name])
        (cl if p.trace_lane() == "OpenCL" else gl).append(span)
    return sum(max(0.0, min(a1, b1) - max(a0, b0)) for a0, a1 in cl for b0, b1 in gl)


@pytest.mark.gl
@pytest.mark.opencl
def test_overlap_against_serialised(benchmark, gl):
    """Frame time of the all-OpenCL placement overlapped, with the serialised run of the
    same graph interleaved (extra_info: medians and their ratio); both draw the same
    pixels, and the overlapped frames have OpenCL spans overlapping GL's."""
    benchmark.group = "1280x720 two filtered layers + backdrop panel: overlap"
    scene = overlap_scene()
    times = itertools.count(1)
    scene.render(gl, t=0.0, filter_backend="opencl")  # raster, compile
    serial_ms: list[float] = []
    overlapped_ms: list[float] = []
    overlapped_spans: list[float] = []

    def frame():
        t = next(times) * 0.37
        graph = gl.plan(scene, t=t, filter_backend="opencl")
        runs = {}
        for overlap in ((True, False) if len(serial_ms) % 2 else (False, True)):  # alternate who goes first
            began = time.perf_counter()
            pixels, stats = gl.executor.execute(graph, overlap=overlap)
            ms = (time.perf_counter() - began) * 1000
            runs[overlap] = (pixels, stats)
            (overlapped_ms if overlap else serial_ms).append(ms)
        overlapped_spans.append(_overlapping_ms(runs[True][1], graph))
        return graph, runs

    graph, runs = benchmark.pedantic(frame, rounds=ROUNDS, warmup_rounds=1)
    assert graph.filter_passes() and all(p.executor.value == "opencl" for p in graph.filter_passes())
    assert (runs[True][0] == runs[False][0]).all(), "overlap changes no pixel"
    assert statistics.median(overlapped_spans) > 0, "the devices' work overlapped"
    assert _overlapping_ms(runs[False][1], graph) < 0.5, "serialised: nothing overlaps"
    median_serial, median_overlap = statistics.median(serial_ms), statistics.median(overlapped_ms)
    benchmark.extra_info.update(serialised_ms=round(median_serial, 2), overlapped_ms=round(median_overlap, 2),
                                speedup=round(median_serial / median_overlap, 3),
                                overlapping_ms=round(statistics.median(overlapped_spans), 2))


@pytest.mark.gl
@pytest.mark.opencl
def test_auto_against_the_fixed_placements(benchmark, gl):
    """``scene.render`` (what a user pays: planning, scheduling under auto, execution)
    with filter_backend gl, opencl and auto, one renderer each, frames interleaved in a
    rotating order so all three see the same machine; extra_info has each one's median
    and auto's against the best fixed placement."""
    benchmark.group = "1280x720 two filtered layers + backdrop panel: scene.render"
    backends = ("gl", "opencl", "auto")
    renderers = {b: Renderer() for b in backends}
    scenes = {b: overlap_scene() for b in backends}
    times = itertools.count(1)
    measured: dict[str, list[float]] = {b: [] for b in backends}
    last = {}
    try:
        for b in backends:
            scenes[b].render(renderers[b], t=0.0, filter_backend=b)  # raster, calibrate (auto), compile

        def round_of_frames():
            t = next(times) * 0.37
            k = len(measured["gl"]) % len(backends)
            for b in backends[k:] + backends[:k]:
                began = time.perf_counter()
                last[b] = scenes[b].render(renderers[b], t=t, filter_backend=b)
                measured[b].append((time.perf_counter() - began) * 1000)

        benchmark.pedantic(round_of_frames, rounds=ROUNDS, warmup_rounds=1)
    finally:
        for r in renderers.values():
            r.release()
        gl.gpu.activate()
    medians = {b: statistics.median(v) for b, v in measured.items()}
    best = min(medians["gl"], medians["opencl"])
    assert all(len(last[b].graph.filter_passes()) >= 3 for b in backends)
    assert not any(p.executor.value == "opencl" for p in last["gl"].graph.filter_passes())
    benchmark.extra_info.update({f"{b}_ms": round(m, 2) for b, m in medians.items()})
    benchmark.extra_info["auto_vs_best_fixed"] = round(medians["auto"] / best, 3)
    benchmark.extra_info["auto_opencl_passes"] = last["auto"].graph.totals()["opencl_filter_passes"]
