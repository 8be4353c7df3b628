"""Benchmark: the exact-area edge coverage of projected quads (composite/quad.frag),
drawn whole (every pixel of the quad runs the area code: llvmpipe runs it whatever
per-pixel branch surrounds it) against drawn as nine cells (executor._projected_cells:
an inset centre at coverage 1 that skips it, the fringe around it), in the same run,
alternating, as medians of process CPU per frame (llvmpipe's threads are this
process's):

1. six large projected cards turning a little at 1280x720;
2. tests/benchmarks/test_preserve3d_bench.py's 12-card preserve-3d carousel at
   960x540, against its 2D carousel: the 3D / 2D ratio either way.

Asserted: both ways draw the same pixels (but a few pixels 1 level off, and at most 4
per frame 2 levels: the source position is interpolated over other triangles), the split is taken, and it is
cheaper where the cards are large.

    .venv/bin/python -m pytest tests/benchmarks/test_projected_edges_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

import lamina.gpu.executor as executor
from lamina import Layer, Scene
from tests.benchmarks.test_preserve3d_bench import carousel

ROUNDS = int(os.environ.get("LAMINA_BENCH_ROUNDS", "9"))
pytestmark = pytest.mark.gl


def six_cards() -> Scene:
    """Six 360x260 gradient cards in two rows, each turned 35-60 degrees about y or x,
    their turn animated by a few degrees (so every frame composites them again)."""
    scene = Scene(1280, 720, "#111")
    stage = scene.root.add(Layer("stage", (0, 0, 1280, 720), "perspective: 900px"))
    for i in range(6):
        x, y = 40 + 410 * (i % 3), 60 + 330 * (i // 3)
        axis, angle = ("Y", "X")[i % 2], (35, -45, 60, -40, 50, -55)[i]
        card = stage.add(Layer(f"six-{i}", (x, y, 360, 260),
                               f"background: linear-gradient({40 * i}deg, hsl({60 * i} 80% 60%), #224)"))
        card.animate({"0%": {"transform": f"rotate{axis}({angle}deg)"},
                      "100%": {"transform": f"rotate{axis}({angle + 8}deg)"}}, duration=10.0, iterations="infinite")
    return scene


def _cpu_per_frame(gl, scene: Scene, times) -> tuple[float, np.ndarray]:
    """Median process CPU seconds per frame over ``times``, and the last frame."""
    seconds = []
    for t in times:
        start = time.process_time()
        frame = scene.render(gl, t=float(t))
        seconds.append(time.process_time() - start)
    return float(np.median(seconds)), frame.image.copy()


def _alternating(gl, monkeypatch, scenes: dict[str, Scene], rounds: int) -> tuple[dict[str, list[float]], int]:
    """Per scene and way ("whole", "split"), ``rounds`` medians of 5 frames, the ways
    taking turns; asserts each way's last frame of a scene is the other's. How many
    draws split."""
    cells_of = executor._projected_cells
    split = 0

    def counting(*args):
        nonlocal split
        cells = cells_of(*args)
        split += cells is not None
        return cells

    out: dict[str, list[float]] = {f"{name} {way}": [] for name in scenes for way in ("whole", "split")}
    for name, scene in scenes.items():
        gl.drop_caches()
        scene.render(gl, t=0.0)  # rasters and programs once
    for r in range(rounds):
        times = np.linspace(0.05 + r, 0.95 + r, 5)
        for name, scene in scenes.items():
            last = {}
            for way, fn in (("whole", lambda *args: None), ("split", counting)):
                monkeypatch.setattr(executor, "_projected_cells", fn)
                cpu, last[way] = _cpu_per_frame(gl, scene, times)
                out[f"{name} {way}"].append(cpu)
            diff = np.abs(last["whole"].astype(int) - last["split"].astype(int))
            # A pixel shaded twice or never is far more; a bilinear read at a sharp texel
            # step (a card's rounded corner) can move 2 levels with the interpolation.
            assert diff.max() <= 2, f"{name}: split draws differ by {diff.max()} levels"
            assert (diff > 0).any(axis=-1).sum() <= 1e-3 * diff.shape[0] * diff.shape[1]
            assert (diff > 1).any(axis=-1).sum() <= 4
    monkeypatch.setattr(executor, "_projected_cells", cells_of)
    return out, split


def test_projected_edge_coverage_split_vs_whole(benchmark, gl, monkeypatch):
    benchmark.group = "projected edges: exact-area coverage, whole vs split draws"
    scenes = {"six": six_cards(), "carousel3d": carousel(True), "carousel2d": carousel(False)}
    # The suite's smoke run (--benchmark-disable) checks the pixels on one round.
    runs, split = _alternating(gl, monkeypatch, scenes, 1 if benchmark.disabled else ROUNDS)
    assert split > 0, "projected draws were split"
    ms = {key: float(np.median(v)) * 1000 for key, v in runs.items()}
    benchmark.extra_info.update({f"cpu_ms {k}": round(v, 2) for k, v in ms.items()})
    benchmark.extra_info["six split/whole"] = round(ms["six split"] / ms["six whole"], 3)
    benchmark.extra_info["carousel 3d/2d whole"] = round(ms["carousel3d whole"] / ms["carousel2d whole"], 3)
    benchmark.extra_info["carousel 3d/2d split"] = round(ms["carousel3d split"] / ms["carousel2d split"], 3)
    print({k: round(v, 2) for k, v in benchmark.extra_info.items()})
    if not benchmark.disabled:
        assert ms["six split"] < ms["six whole"], "skipping the area code inside large cards saves CPU"
    scene = scenes["six"]
    times = iter(np.linspace(0.05, 9.0, 100000))
    benchmark.pedantic(lambda: scene.render(gl, t=float(next(times))), rounds=3, warmup_rounds=1)
