"""Planning is pure (issue 21): what the planner knows of the executor is a snapshot taken
before planning (``Renderer.snapshot``: kept texture names, limits, the filter cost
model, why OpenCL is missing), so planning every suite scene on a renderer whose GL
context raises on any use works, and plans what ``scene.plan`` plans; filter_backend
"auto"'s cost model is measured before the frame is planned, and only once a layer
filters."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

import lamina.renderer
from lamina import FrameRequest, Layer, Renderer, Scene, load_scene
from lamina.filters.backend import FilterBackend
from lamina.graph import ExecutorFacts

SCENES = sorted((Path(__file__).resolve().parents[1] / "scenes").glob("*.json"))


class GPUUsedWhilePlanning(AssertionError):
    pass


class RaisingContext:
    """Stands for a moderngl context: any use of it (an attribute, a call, ``with``)
    raises, naming what was asked for."""

    def __getattribute__(self, name: str):
        raise GPUUsedWhilePlanning(f"the GL context was used while planning (ctx.{name})")

    def __call__(self, *args, **kwargs):
        raise GPUUsedWhilePlanning("the GL context was called while planning")

    def __enter__(self):
        raise GPUUsedWhilePlanning("the GL context was made current while planning")

    def __exit__(self, *exc):
        raise GPUUsedWhilePlanning("the GL context was used while planning")


def swap_context(renderer: Renderer, old: object, new: object) -> None:
    """Put ``new`` wherever ``renderer``'s objects (the GPU context, the executor and its
    parts: programs, pool, pixel passes, painters, filter runner...) hold ``old``, its
    moderngl context."""
    _replace(renderer, old, new, set())


def _replace(obj: object, old: object, new: object, seen: set[int]) -> None:
    if id(obj) in seen or not type(obj).__module__.startswith("lamina") or not hasattr(obj, "__dict__"):
        return
    seen.add(id(obj))
    for name, value in list(vars(obj).items()):
        if value is old:
            setattr(obj, name, new)
        elif type(value) is not RaisingContext:
            _replace(value, old, new, seen)


@contextmanager
def no_gpu(renderer: Renderer) -> Iterator[None]:
    """While inside, ``renderer``'s GL context raises on any use."""
    real, raising = renderer.gpu.ctx, RaisingContext()
    swap_context(renderer, real, raising)
    try:
        yield
    finally:
        swap_context(renderer, raising, real)


@pytest.fixture(scope="module")
def offline():
    """A renderer of its own whose GL context is taken away while it plans."""
    with Renderer() as renderer:
        yield renderer


def test_the_raising_context_catches_gpu_work(offline):
    real = offline.gpu.ctx
    with no_gpu(offline):
        with pytest.raises(GPUUsedWhilePlanning):
            offline.warm_up()
        assert offline.executor.programs.ctx is not real and offline.executor.pool.ctx is not real
        assert offline.executor.text.ctx is not real
    assert offline.executor.programs.ctx is real and offline.warm_up() >= 0, "its context is its own again"


def _request(scene: Scene, backend: str | None) -> FrameRequest:
    return FrameRequest(t=scene.golden.get("t", 0.0), filter_backend=backend)


@pytest.mark.gl
@pytest.mark.parametrize("backend", [None, "auto"], ids=["own-backend", "auto"])
@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_planning_does_no_gpu_work(offline, path, backend):
    """Every suite scene, on its own filter backend and on "auto" (whose cost model must
    then come from the snapshot), planned while the context raises on any use: the
    graph ``scene.plan`` gives for the same request and model."""
    scene = load_scene(path)
    request = _request(scene, backend)
    offline.drop_caches()  # a first frame
    snapshot = offline.snapshot(scene, request)  # GPU work allowed here: it may measure the costs
    assert isinstance(snapshot.retained, frozenset) and snapshot.limits == offline.limits
    with no_gpu(offline):
        planned = offline.plan(scene, request, snapshot=snapshot)
    planned.validate()
    auto = request.backend_for(scene.filter_backend) is FilterBackend.AUTO
    if auto and snapshot.opencl_unavailable is None and planned.filter_passes():
        assert snapshot.filter_costs is not None, "a scene that filters gets the measured model"
        assert not any("no cost model" in d.text for d in planned.decisions)
    if snapshot.opencl_unavailable is None:
        same = FrameRequest(t=request.t, filter_backend=backend, cost_model=snapshot.filter_costs)
        assert planned == scene.plan(offline, same)


def test_a_snapshot_is_data_and_planning_only_looks_names_up():
    facts = ExecutorFacts(retained=frozenset({"layer:a", "frame"}))
    assert facts.available("frame") and not facts.available("layer:b")
    assert facts == ExecutorFacts(retained=frozenset({"frame", "layer:a"})), "plain data: compared by value"


def test_the_snapshot_names_the_textures_the_executor_keeps(fresh):
    scene = Scene(64, 48)
    scene.root.add(Layer("card", (8, 8, 20, 20), "background: red; will-change: transform"))
    assert fresh.snapshot(scene).retained == frozenset()
    scene.render(fresh)
    kept = fresh.snapshot(scene).retained
    assert kept == fresh.executor.retained_names() and kept == frozenset(fresh.executor.retained_sizes())
    assert any(name.startswith("layer:") for name in kept)


@pytest.mark.opencl
def test_auto_measures_its_costs_before_planning_and_only_once_a_layer_filters(fresh, monkeypatch):
    """filter_backend "auto": no layer filters, nothing is measured (and nothing is
    placed); a layer that starts to filter is measured for before the frame is planned,
    once; the later frames use the model the renderer holds."""
    events: list[str] = []
    real_calibrate, real_build = lamina.renderer.calibrate, lamina.renderer.build_frame_graph

    def calibrate(renderer, runner, **kw):
        events.append("calibrate")
        return real_calibrate(renderer, runner, **kw)

    def build_frame_graph(scene, request, limits, images, state, facts):
        events.append("plan")
        assert not callable(facts.filter_costs), "the model is measured, not a promise to measure"
        return real_build(scene, request, limits, images, state, facts)

    monkeypatch.setattr(lamina.renderer, "calibrate", calibrate)
    monkeypatch.setattr(lamina.renderer, "build_frame_graph", build_frame_graph)
    scene = Scene(96, 64)
    scene.filter_backend = "auto"
    card = scene.root.add(Layer("card", (8, 8, 40, 30), "background: #48f"))
    scene.render(fresh)
    scene.render(fresh)
    assert events == ["plan", "plan"], "no layer filters: nothing to measure"
    card.style["filter"] = "blur(2px) sepia(0.5)"
    frame = scene.render(fresh)
    assert events[2:] == ["calibrate", "plan"], "measured before the frame is planned"
    assert any(d.text.startswith(("filter: auto placed", "filter: auto kept")) for d in frame.graph.decisions)
    card.style["filter"] = "blur(3px)"
    scene.render(fresh)
    assert events[4:] == ["plan"], "the renderer holds the model"


@pytest.mark.opencl
def test_a_filter_that_only_an_animation_adds_is_measured_for(fresh, monkeypatch):
    calls = []
    real = lamina.renderer.calibrate
    monkeypatch.setattr(lamina.renderer, "calibrate", lambda *a, **k: calls.append(1) or real(*a, **k))
    scene = Scene(96, 64)
    scene.filter_backend = "auto"
    card = scene.root.add(Layer("card", (8, 8, 40, 30), "background: #48f"))
    card.animate({"from": {"filter": "blur(0px)"}, "to": {"filter": "blur(4px)"}}, duration=1.0)
    frame = scene.render(fresh, t=0.5)
    assert calls == [1] and frame.graph.filter_passes()
