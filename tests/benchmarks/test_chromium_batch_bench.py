"""Benchmark: a batch of small scenes, Lamina against headless Chromium rendering the same
scenes written as HTML, in the same run, scenes per second each way.

The scenes are the 67 cases of tests/chromium/compare.py (blend modes, isolation,
backdrop-filter, conic gradients, dashed and dotted borders; 140x90 to 200x140 px), each
written as a Lamina scene file and as the HTML page compare.py makes of it (every layer
an absolutely positioned div with the same CSS). Every way writes one PNG per scene.

* Lamina, one process, end to end: ``lamina render *.json --out DIR`` as a subprocess
  (Python's start, imports, the GL context and every shader compile included);
* Lamina, one warm process: ``plan_job`` + ``run_job`` in this process, after a warm-up
  job (bundling and costing included);
* Lamina, 2 dask workers: a LocalCluster of two single-threaded processes
  (LP_NUM_THREADS=1 each), started and warmed before the clock; planning included;
* Chromium, a process per page: ``chromium --headless --screenshot`` (demos.chromium),
  two at a time (the machine's cores), as tests/chromium/compare.py runs it;
* Chromium, one warm browser: one tab, page after page over the DevTools protocol on a
  pipe (demos.chromium.ChromiumPages), started and warmed before the clock.

Each round runs every way once, in that order; three rounds; ``extra_info`` has each
way's median seconds and scenes per second, and the per-round ratios of Lamina's warm
ways to Chromium's warm browser (paired, same round). Chromium is optional (skipped
without the binary; .ci/setup installs it). In the normal suite (benchmarks disabled)
only a smoke run of three scenes each way runs:

    .venv/bin/python -m pytest -p no:xdist tests/benchmarks/test_chromium_batch_bench.py --benchmark-enable --benchmark-only -s
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from demos.chromium import ChromiumPages, chromium_screenshot, chromium_version, find_chromium
from lamina.batch import plan_job, run_job
from tests.chromium.compare import all_cases, case_html, scene_layers

pytestmark = pytest.mark.gl
ROUNDS = 3


def _write(folder: Path, cases) -> list[tuple[Path, Path, int, int]]:
    """Each case as NAME.json and NAME.html: (scene, page, width, height)."""
    folder.mkdir()
    out = []
    for case in cases:
        scene = folder / f"{case.name}.json"
        scene.write_text(json.dumps({"lamina": 1, "width": case.width, "height": case.height,
                                     "background": case.background, "layers": scene_layers(case.layers)}))
        page = folder / f"{case.name}.html"
        page.write_text(case_html(case))
        out.append((scene, page, case.width, case.height))
    return out


def _fresh(folder: Path) -> Path:
    """An empty output folder (each way and round its own)."""
    folder.mkdir(parents=True)
    return folder


def _lamina(jobs, out: Path, client=None) -> float:
    began = time.perf_counter()
    summary = run_job(plan_job([s for s, _, _, _ in jobs], out=out, workers=2 if client else 1), client)
    wall = time.perf_counter() - began
    assert summary.ok, summary.lines()
    return wall


def _lamina_cli(jobs, out: Path) -> float:
    began = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "lamina", "render", *(str(s) for s, _, _, _ in jobs),
                          "--out", str(out), "--progress", "never"], capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - began
    assert run.returncode == 0, run.stderr
    return wall


def _chromium_per_page(binary: str, jobs, out: Path, at_once: int = 2) -> float:
    began = time.perf_counter()
    with ThreadPoolExecutor(at_once) as pool:
        list(pool.map(lambda j: chromium_screenshot(binary, j[1], out / f"{j[0].stem}.png", j[2], j[3]), jobs))
    return time.perf_counter() - began


def _chromium_warm(browser: ChromiumPages, jobs, out: Path) -> float:
    began = time.perf_counter()
    for scene, page, w, h in jobs:
        browser.screenshot(page, out / f"{scene.stem}.png", w, h)
    return time.perf_counter() - began


def _same_pictures(a: Path, b: Path) -> None:
    """Both ways wrote every scene, at the same size."""
    names = sorted(p.name for p in a.glob("*.png"))
    assert names == sorted(p.name for p in b.glob("*.png")) and names
    for name in names:
        with Image.open(a / name) as x, Image.open(b / name) as y:
            assert x.size == y.size, name


def test_lamina_against_chromium_on_a_batch_of_small_scenes(benchmark, tmp_path):
    benchmark.group = "batch: 67 small scenes, Lamina vs headless Chromium (same run)"
    cases = all_cases()
    binary = find_chromium()
    if not benchmark.enabled:  # the suite's smoke test: three scenes each way
        jobs = _write(tmp_path / "scenes", cases[:3])
        lamina = _fresh(tmp_path / "lamina")
        benchmark(lambda: _lamina(jobs, lamina))
        if binary is None:
            pytest.skip("no chromium binary: the Chromium half is optional (apt-get install chromium)")
        chrome = _fresh(tmp_path / "chromium")
        with ChromiumPages(binary) as browser:
            _chromium_warm(browser, jobs, chrome)
        _same_pictures(lamina, chrome)
        return
    if binary is None:
        pytest.skip("no chromium binary: the comparison needs it (apt-get install chromium)")
    from distributed import Client, LocalCluster  # import here: only the enabled benchmark starts a cluster

    jobs = _write(tmp_path / "scenes", cases)
    n = len(jobs)
    times: dict[str, list[float]] = {k: [] for k in ("lamina_cli", "lamina_warm", "lamina_2_workers",
                                                    "chromium_per_page", "chromium_warm")}
    _lamina(jobs[:20], _fresh(tmp_path / "warm-lamina"))  # this process's shaders compiled
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                      env={"LP_NUM_THREADS": "1"}) as cluster, Client(cluster) as client, \
            ChromiumPages(binary) as browser:
        _lamina(jobs, _fresh(tmp_path / "warm-workers"), client)  # each worker's shaders compiled
        _chromium_warm(browser, jobs[:3], _fresh(tmp_path / "warm-chromium"))
        for r in range(ROUNDS):
            d = tmp_path / f"round{r}"
            times["lamina_cli"].append(_lamina_cli(jobs, _fresh(d / "lamina-cli")))
            times["lamina_warm"].append(_lamina(jobs, _fresh(d / "lamina-warm")))
            times["lamina_2_workers"].append(_lamina(jobs, _fresh(d / "lamina-workers"), client))
            times["chromium_per_page"].append(_chromium_per_page(binary, jobs, _fresh(d / "chromium-per-page")))
            if r == ROUNDS - 1:
                wall = benchmark.pedantic(_chromium_warm, args=(browser, jobs, _fresh(d / "chromium-warm")),
                                          rounds=1, iterations=1)
            else:
                wall = _chromium_warm(browser, jobs, _fresh(d / "chromium-warm"))
            times["chromium_warm"].append(wall)
            _same_pictures(d / "lamina-warm", d / "chromium-warm")
            _same_pictures(d / "lamina-cli", d / "chromium-per-page")
    results: dict[str, float] = {"scenes": n}
    for way, walls in times.items():
        results[f"{way}_s"] = statistics.median(walls)
        results[f"{way}_scenes_per_s"] = n / statistics.median(walls)
    for way in ("lamina_warm", "lamina_2_workers"):  # paired: the same round's Chromium
        ratios = [c / w for c, w in zip(times["chromium_warm"], times[way])]
        results[f"{way}_vs_chromium_warm_x"] = statistics.median(ratios)
    ratios = [c / w for c, w in zip(times["chromium_per_page"], times["lamina_cli"])]
    results["lamina_cli_vs_chromium_per_page_x"] = statistics.median(ratios)
    benchmark.extra_info.update({k: round(v, 3) for k, v in results.items()})
    benchmark.extra_info["chromium"] = chromium_version(binary)
    print(chromium_version(binary))
    for way, walls in times.items():
        print(f"{way:20s} " + " ".join(f"{w:7.2f}" for w in walls) + " s")
    for k, v in results.items():
        print(f"{k:40s} {v:9.3f}")
