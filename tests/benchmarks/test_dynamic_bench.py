"""Benchmark (issue 22, item 4): with one device slowed about 3x by a competing load the
benchmark starts, the number of frames until the scheduler moves work off it (at most
5), and the frame time before and after the move; also how much the load slows the
device, and how many frames after the load ends the work comes back.

The scenario runs in a process of its own (tests.benchmarks.competing_load, whose
docstring says what a competing load on one device means on 2 shared cores): it pins
threads to cores, sets PoCL to one worker thread and calibrates into a fresh cache
folder, none of which may leak into the test process. It starts busy processes, so it
runs only when benchmarks are enabled:

    .venv/bin/python -m pytest tests/benchmarks/test_dynamic_bench.py --benchmark-enable --benchmark-only -s
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.opencl
def test_a_loaded_device_loses_its_work(benchmark, tmp_path):
    if benchmark.disabled:
        pytest.skip("starts busy processes pinned to a core: runs only with --benchmark-enable")
    env = {**os.environ, "POCL_MAX_PTHREAD_COUNT": "1", "LAMINA_CACHE_DIR": str(tmp_path / "cache")}

    def scenario() -> dict:
        done = subprocess.run([sys.executable, "-m", "tests.benchmarks.competing_load"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    out = benchmark.pedantic(scenario, rounds=1, iterations=1)
    if "skipped" in out:
        pytest.skip(out["skipped"])
    report = out.pop("report", [])
    trace = out.pop("trace", [])
    out.pop("cpu_ticks_while_opencl_ran", None)
    benchmark.extra_info.update(out)
    print("\n" + json.dumps(out, indent=1), *report, *trace, sep="\n")  # for the note
    device, other = out["loaded_device"], "gl" if out["loaded_device"] == "opencl" else "opencl"
    # The other device's slowdown and the frame times before and after the move are
    # reported, not asserted: on 2 cores shared with other sessions they swing by half
    # from run to run (see the note), while the move itself must happen every time the
    # load slows the device.
    if "error" in out or out[f"{device}_slowdown_steady"] < 2.0:
        # The premise, not the scheduler: other work on the 2 cores left the load no
        # device to slow cleanly (it slows an already busy core less).
        pytest.skip(out.get("error") or f"the competing load slowed {device} only {out[f'{device}_slowdown_steady']}x "
                    f"(load average {out['load_average_at_start']} before it started): nothing clean to measure")
    assert out["frames_until_moved"] is not None and out["frames_until_moved"] <= 5
    names = {"gl": "GL", "opencl": "OpenCL"}
    assert any(line.lstrip().startswith("moved") and f"{names[device]} -> {names[other]}" in line for line in report)
    assert out["frames_until_back_after_load_ends"] is not None, "the work comes back once the load is gone"
