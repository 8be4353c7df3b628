"""``scene.plan(request)`` builds, without the GPU, the frame graph that rendering the same
request on a fresh renderer executes — for every suite scene under every policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from lamina import FrameRequest, load_scene
from lamina.compositor.policy import POLICIES, BudgetPolicy, parse_policy
from lamina.filters.backend import FilterBackend
from lamina.gpu.calibrate import calibrate

SCENES = sorted((Path(__file__).resolve().parents[1] / "scenes").glob("*.json"))


def _request(scene, policy, gl) -> FrameRequest:
    cost_model = None
    if FilterBackend.parse(scene.filter_backend) is FilterBackend.AUTO:
        # "auto" places passes by measured costs: the request carries the model, so the
        # plan and the render place them alike.
        cost_model = calibrate(gl, gl.executor.opencl_runner)
    return FrameRequest(t=scene.golden.get("t", 0.0), policy=policy, cost_model=cost_model)


@pytest.mark.gl
@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_plan_is_the_graph_render_runs(gl, path):
    scene = load_scene(path)
    for name in POLICIES:
        request = _request(scene, parse_policy(name), gl)
        planned = scene.plan(gl, request)
        gl.drop_caches()  # a first frame, as the plan describes
        rendered = scene.render(gl, request).graph
        assert planned.to_dict() == rendered.to_dict(), f"policy {name}"
        assert planned.describe() == rendered.describe()


def test_keywords_and_request_are_one_thing():
    scene = load_scene(SCENES[0])
    request = FrameRequest(t=0.5, policy="all")
    assert scene.plan(request=request).to_dict() == scene.plan(t=0.5, policy="all").to_dict()
    assert FrameRequest(policy="budget").policy == BudgetPolicy()
    assert str(FrameRequest(policy=BudgetPolicy(2**20)).policy) == "budget(1 MB)"
