"""The golden suite at device pixel ratio 2 vs 1: every scene of tests/scenes rendered as
its golden is (lamina.golden.check.render_scene_for_golden), at DPR 1 and at DPR 2, each
frame on a fresh renderer (the suite's first frames: planning, rasters, filters, read-back),
timed best of ``--repeat`` after one warm-up (shader JIT out of the way). Prints per-scene
and total times, the pixel ratio and the time ratio. Not a pytest module; run it by hand:

    .venv/bin/python -m tests.benchmarks.golden_suite_dpr [--repeat 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from lamina import Renderer, load_scene
from lamina.golden.check import render_scene_for_golden

SCENES = Path(__file__).resolve().parents[1] / "scenes"


def _time(path: Path, dpr: float, repeat: int) -> tuple[float, int]:
    best, pixels = float("inf"), 0
    for i in range(repeat + 1):
        scene = load_scene(path)
        scene.device_scale_factor = dpr
        with Renderer() as renderer:
            t0 = time.perf_counter()
            frame = render_scene_for_golden(scene, renderer)
            ms = (time.perf_counter() - t0) * 1e3
        pixels = frame.image.shape[0] * frame.image.shape[1]
        if i:  # the first is the warm-up
            best = min(best, ms)
    return best, pixels


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("-k", default="", help="only scenes whose name contains this")
    args = parser.parse_args(argv)
    rows = []
    for path in sorted(SCENES.glob("*.json")):
        if args.k not in path.stem:
            continue
        t1, p1 = _time(path, 1, args.repeat)
        t2, p2 = _time(path, 2, args.repeat)
        rows.append({"scene": path.stem, "ms_dpr1": round(t1, 2), "ms_dpr2": round(t2, 2), "px_dpr1": p1, "px_dpr2": p2})
        print(f"{path.stem:40s} {t1:8.1f} ms  {t2:8.1f} ms  x{t2 / t1:5.2f}", flush=True)
    total1, total2 = sum(r["ms_dpr1"] for r in rows), sum(r["ms_dpr2"] for r in rows)
    px1, px2 = sum(r["px_dpr1"] for r in rows), sum(r["px_dpr2"] for r in rows)
    ratios = sorted(r["ms_dpr2"] / r["ms_dpr1"] for r in rows)
    summary = {"scenes": len(rows), "total_ms_dpr1": round(total1, 1), "total_ms_dpr2": round(total2, 1),
               "time_ratio": round(total2 / total1, 2), "pixel_ratio": round(px2 / px1, 2),
               "median_scene_ratio": round(ratios[len(ratios) // 2], 2), "rows": rows}
    print(f"{len(rows)} scenes: DPR 1 {total1:.0f} ms, DPR 2 {total2:.0f} ms: x{total2 / total1:.2f} the time "
          f"for x{px2 / px1:.2f} the pixels (median scene x{summary['median_scene_ratio']})")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
