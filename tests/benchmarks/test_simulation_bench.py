"""The simulator's numbers for issue 22: HEFT against greedy and single-device placements
on the suite's heaviest filtered scenes for two device profiles, and the simulator's
prediction against frames measured on this machine.

* Makespans (lamina.simulate on ``profiles/``): plain arithmetic, no GPU. Every HEFT
  schedule is checked valid (graph.heft.check); the table is in extra_info.
* Predicted against measured: this machine's calibrated history model (GL llvmpipe and
  PoCL, measured before the clock) predicts each scene's frame with every pass on GL,
  one after another; the frame is then rendered on GL with nothing kept (median of a
  few). The ratio says how far the model's proxy for GL-only passes (a one-step colour
  pass per pixel written) and its per-pass fits are from a real frame here.

    .venv/bin/python -m pytest tests/benchmarks/test_simulation_bench.py --benchmark-enable --benchmark-only -s
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest

from lamina import load_scene
from lamina.frame_costs import frame_costs
from lamina.graph.frame_schedule import frame_dag, schedule_frame
from lamina.graph.heft import check, heft, upward_ranks
from lamina.simulate import simulate

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "tests" / "scenes"
PROFILES = ["discrete-gpu-cpu-opencl", "integrated-gpu"]
HEAVIEST = 6


def heaviest(n: int = HEAVIEST) -> list[str]:
    """The suite's scenes with the most filter passes (their frames' graphs planned on GL)."""
    counted = []
    for path in sorted(SCENES.glob("*.json")):
        try:
            graph = load_scene(path).plan(filter_backend="gl")
        except Exception:  # noqa: BLE001 - a scene whose files this plan cannot read is not a candidate
            continue
        counted.append((len(graph.filter_passes()), path.stem))
    return [name for count, name in sorted(counted, reverse=True)[:n] if count]


def test_simulated_makespans(benchmark):
    benchmark.group = "simulation: HEFT vs greedy vs single device"
    names = heaviest()
    rows = {}

    def run():
        for profile in PROFILES:
            for name in names:
                sim = simulate(load_scene(SCENES / f"{name}.json"), ROOT / "profiles" / f"{profile}.json")
                s = sim.schedule
                rows[profile, name] = {"heft": s.makespan_ms, **{k: v for k, v in s.baselines}}
        return rows

    benchmark.pedantic(run, rounds=1, iterations=1)
    for profile in PROFILES:
        for name in names:
            graph = load_scene(SCENES / f"{name}.json").plan(filter_backend="gl")
            from lamina.device_profile import load_profile

            dag = frame_dag(graph, load_profile(ROOT / "profiles" / f"{profile}.json").costs()).dag
            check(dag, heft(dag, upward_ranks(dag)))  # a valid schedule, every time
    lines = [f"{'profile':<26} {'scene':<28} {'HEFT':>8} {'greedy':>8} {'all GL':>8} {'all CL':>8}"]
    for (profile, name), r in rows.items():
        lines.append(f"{profile:<26} {name:<28} {r['heft']:8.2f} {r['greedy']:8.2f} {r['all GL']:8.2f} "
                     f"{r['all OpenCL']:8.2f}")
    print("\n" + "\n".join(lines))
    benchmark.extra_info["makespans_ms"] = {f"{p}/{n}": {k: round(v, 3) for k, v in r.items()} for (p, n), r in rows.items()}
    assert len(rows) == len(PROFILES) * len(names) and names


@pytest.mark.gl
@pytest.mark.opencl
def test_predicted_against_measured_here(benchmark, gl):
    benchmark.group = "simulation: predicted vs measured on this machine"
    names = heaviest()
    facts = gl.snapshot(load_scene(SCENES / f"{names[0]}.json"), filter_backend="auto")  # calibrated before the clock
    costs = frame_costs(facts.filter_costs)
    rows = {}

    def run():
        for name in names:
            scene = load_scene(SCENES / f"{name}.json")
            predicted = schedule_frame(scene.plan(filter_backend="gl"), costs).gl_serial_ms
            measured = []
            for _ in range(5):
                gl.drop_caches()  # a first frame each time (shaders stay compiled)
                graph = gl.plan(scene, filter_backend="gl")
                began = time.perf_counter()
                gl.executor.execute(graph)
                measured.append((time.perf_counter() - began) * 1000)
            rows[name] = (predicted, statistics.median(measured))
        return rows

    benchmark.pedantic(run, rounds=1, iterations=1)
    lines = [f"{'scene':<28} {'predicted':>10} {'measured':>10} {'ratio':>7}"]
    for name, (p, m) in rows.items():
        lines.append(f"{name:<28} {p:10.2f} {m:10.2f} {m / p:7.2f}")
    print("\n" + "\n".join(lines))
    benchmark.extra_info["predicted_vs_measured_ms"] = {n: [round(p, 3), round(m, 3)] for n, (p, m) in rows.items()}
    assert all(p > 0 and m > 0 for p, m in rows.values())
