"""A frame on GL + one OpenCL device against the same frame on GL + two (issue 22: a
second OpenCL device), same run, medians. PoCL offers two devices only when started with
``POCL_DEVICES="pthread pthread"`` (read as the ICD loads), so this is a script, run in a
process of its own:

    POCL_DEVICES="pthread pthread" .venv/bin/python -m tests.benchmarks.multi_opencl_bench [ROUNDS]

The scene is the overlap benchmark's (1280x720: a blur-heavy layer, a colour-heavy layer,
a backdrop-filter panel; filters animated by a hair each frame so nothing is reused).
Placements, forced so the comparison is of devices, not of the model's choices:

* all GL;
* GL + 1 device: every filter pass on OpenCL device 0:0;
* GL + 2 devices: the same passes, each layer's on 0:0 or 0:1 in turn (photo 0:0, tint
  0:1, panel 0:0): the two layers' chains can run at once.

Each round renders the three in a rotating order, so all see the same machine; every
frame has a time of its own, so none reuses a filter result of the frame before. Each
placement's last frame is checked against all GL (within 2 levels).
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from lamina.renderer import Renderer

from .test_overlap_bench import overlap_scene


def main(rounds: int = 11) -> None:
    renderer = Renderer(opencl_devices="all")
    if len(renderer.opencl_devices) < 2:
        sys.exit("needs two OpenCL devices: POCL_DEVICES=\"pthread pthread\"")
    scene = overlap_scene()
    layers = ("photo", "tint", "panel")

    def placement(kind: str, t: float) -> dict[str, str] | str:
        passes = renderer.plan(scene, t=t, filter_backend="gl").filter_passes()
        if kind == "GL + 1 device":
            return {p.name: "opencl:0:0" for p in passes}
        return {p.name: f"opencl:0:{layers.index(p.layer_id) % 2}" for p in passes}

    kinds = ("all GL", "GL + 1 device", "GL + 2 devices")
    times: dict[str, list[float]] = {k: [] for k in kinds}
    frames = {}
    for k in kinds:  # warm-up: raster, compile, first buffers
        renderer.render(scene, t=0.0, **({"filter_backend": "gl"} if k == "all GL" else {"placement": placement(k, 0.0)}))
    for r in range(rounds):
        order = kinds[r % 3:] + kinds[:r % 3]
        for j, k in enumerate(order):
            # A time of its own for every frame, inside the animations: every filter
            # changes, so no frame reuses a result the one before made.
            t = 0.9 * (3 * r + j + 1) / (3 * rounds + 1)
            request = {"filter_backend": "gl"} if k == "all GL" else {"placement": placement(k, t)}
            began = time.perf_counter()
            frame = renderer.render(scene, t=t, **request)
            times[k].append((time.perf_counter() - began) * 1000)
            frames[k] = (t, frame)
    # Same pixels: the last frame of each placement against all GL at its time.
    for k in kinds[1:]:
        t = frames[k][0]
        gl = renderer.render(scene, t=t, filter_backend="gl").premultiplied.astype(np.int16)
        worst = int(np.abs(frames[k][1].premultiplied.astype(np.int16) - gl).max())
        assert worst <= 2, f"{k}: {worst} levels from all GL"
    frames = {k: f for k, (_, f) in frames.items()}
    for k in kinds:
        devices = sorted({p.device or "-" for p in frames[k].graph.filter_passes() if p.executor.value == "opencl"})
        print(f"{k:<16} median {statistics.median(times[k]):7.1f} ms  (min {min(times[k]):6.1f}, max "
              f"{max(times[k]):6.1f}; n={rounds}; OpenCL devices: {', '.join(devices) or 'none'})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 11)
