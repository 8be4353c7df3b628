"""Benchmark: batch rendering on two dask workers against one process, on this machine.

Two jobs, each run in one process (lamina.batch in-process: the tasks one after another
on this process's renderer) and on a LocalCluster of two single-threaded worker
processes (started and warmed before the clock starts; LP_NUM_THREADS=1 each, so
llvmpipe's own threads do not fight over the two cores):

* scenes: 200 suite scenes (those without image files, copied under unique names);
* frames: 600 frames of tests/scenes/animation-transform.json.

Then the same jobs on one single-threaded worker (LP_NUM_THREADS=1, warmed likewise):
two workers against one of their own kind, apart from llvmpipe's threads.

Reported in ``extra_info``: wall seconds each way, the ratio (one process / two workers),
frames per second, dask's own per-task overhead (a no-op task's round trip, 200 of them)
and Lamina's per task (wall x workers - busy, over the tasks). In the normal suite
(benchmarks disabled) only a small in-process job runs, as a smoke test:

    .venv/bin/python -m pytest -p no:xdist tests/benchmarks/test_batch_bench.py --benchmark-enable --benchmark-only -s
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from lamina.batch import plan_job, run_job

pytestmark = pytest.mark.gl
SCENES = Path(__file__).resolve().parents[1] / "scenes"
ANIMATED = SCENES / "animation-transform.json"


def _scenes(folder: Path, n: int) -> list[Path]:
    plain = [p for p in sorted(SCENES.glob("*.json")) if "url(" not in p.read_text()]
    out = []
    for i in range(n):
        out.append(shutil.copyfile(plain[i % len(plain)], folder / f"scene-{i:03d}.json"))
    return out


def _noop(i: int) -> None:
    return None


def _timed(plan, client=None):
    began = time.perf_counter()
    summary = run_job(plan, client)
    wall = time.perf_counter() - began
    assert summary.ok, summary.lines()
    return wall, summary


def test_two_workers_against_one_process(benchmark, tmp_path):
    benchmark.group = "batch: 200 scenes and 600 frames, 2 dask workers vs one process"
    src = tmp_path / "scenes"
    src.mkdir()
    if not benchmark.enabled:  # the suite's smoke test: a small job, in-process, no cluster
        out = tmp_path / "out"
        out.mkdir()
        benchmark(lambda: _timed(plan_job(_scenes(src, 3), out=out)))
        return
    from distributed import Client, LocalCluster  # import here: only the enabled benchmark starts a cluster

    scenes = _scenes(src, 200)
    jobs = {"scenes": dict(scenes=scenes), "frames": dict(scenes=[ANIMATED], frames=range(600))}
    results: dict[str, float] = {}
    for name, job in jobs.items():  # one process (a warm-up job first: shaders compiled, as the workers' are)
        out = tmp_path / f"serial-{name}"
        out.mkdir()
        _timed(plan_job(job["scenes"][:20], out=out, frames=job.get("frames") and range(20)))
        plan = plan_job(job["scenes"], out=out, frames=job.get("frames"))
        results[f"{name}_serial_s"], _ = _timed(plan)
        results[f"{name}_setup_s"] = plan.setup_s
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                      env={"LP_NUM_THREADS": "1"}) as cluster, Client(cluster) as client:
        warm = tmp_path / "warm"
        warm.mkdir()
        _timed(plan_job(scenes[:40], out=warm, workers=2), client)
        began = time.perf_counter()
        client.gather(client.map(_noop, range(200), pure=False))
        results["dask_task_overhead_ms"] = (time.perf_counter() - began) / 200 * 1000
        summaries = {}
        for name, job in jobs.items():
            out = tmp_path / f"dist-{name}"
            out.mkdir()
            plan = plan_job(job["scenes"], out=out, frames=job.get("frames"), workers=2)
            if name == "frames":
                wall, summary = benchmark.pedantic(_timed, args=(plan, client), rounds=1, iterations=1)
            else:
                wall, summary = _timed(plan, client)
            summaries[name] = summary
            results[f"{name}_workers_s"] = wall
            results[f"{name}_tasks"] = summary.tasks
            busy = sum(w.busy_s for w in summary.workers.values())
            results[f"{name}_lamina_task_overhead_ms"] = max(0.0, wall * 2 - busy) / summary.tasks * 1000
    # One single-threaded worker (LP_NUM_THREADS=1), warmed the same way: what two workers
    # gain over one of their own kind, apart from llvmpipe's own threads (which the
    # one-process run above uses on both cores for its rasterization).
    with LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                      env={"LP_NUM_THREADS": "1"}) as cluster, Client(cluster) as client:
        warm = tmp_path / "warm-one"
        warm.mkdir()
        _timed(plan_job(scenes[:40], out=warm, workers=1), client)
        for name, job in jobs.items():
            out = tmp_path / f"one-{name}"
            out.mkdir()
            results[f"{name}_one_worker_s"], _ = _timed(plan_job(job["scenes"], out=out, frames=job.get("frames"),
                                                                 workers=1), client)
    for name in jobs:
        n = 200 if name == "scenes" else 600
        results[f"{name}_workers_vs_one_worker"] = results[f"{name}_one_worker_s"] / results[f"{name}_workers_s"]
        results[f"{name}_ratio"] = results[f"{name}_serial_s"] / results[f"{name}_workers_s"]
        results[f"{name}_serial_per_s"] = n / results[f"{name}_serial_s"]
        results[f"{name}_workers_per_s"] = n / results[f"{name}_workers_s"]
    benchmark.extra_info.update({k: round(v, 3) for k, v in results.items()})
    for k, v in results.items():
        print(f"{k:36s} {v:9.3f}")
    for name, summary in summaries.items():
        print(name, *summary.lines(), sep="\n  ")
