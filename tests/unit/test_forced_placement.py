"""Forced placements (lamina.forced_placement, graph.placed.place_by) as plain data,
planned without a GPU: what each strategy assigns, that the planned graph runs each pass
where it was forced with a transfer at every crossing, and bad input — an unknown
strategy, seed, pass or device — as a PlacementError naming it."""

from __future__ import annotations

import pytest

from lamina import FrameRequest, LaminaInputError, load_scene
from lamina.errors import PlacementError
from lamina.forced_placement import EXPLICIT, STRATEGIES, ForcedPlacement
from lamina.framegraph import Executor
from lamina.textures import Place
from lamina.graph.placed import place_by

GL, CL = Place(Executor.GL), Place(Executor.OPENCL)  # (assign gives devices: the renderer's own OpenCL one here)


def planned(**request):
    return load_scene("tests/scenes/filter-drop-shadow.json").plan(**request)


def test_each_strategy_assigns_as_its_name_says():
    passes = planned().filter_passes()
    layers = list(dict.fromkeys(p.layer_id for p in passes))
    assert len(passes) == 23 and len(layers) == 8
    on = {label: list(ForcedPlacement.parse(label).assign(passes).values()) for label in STRATEGIES}
    assert on["all-gl"] == [GL] * 23 and on["all-opencl"] == [CL] * 23
    assert on["alternate"] == [CL if i % 2 == 0 else GL for i in range(23)]
    assert on["alternate-layers"] == [CL if layers.index(p.layer_id) % 2 == 0 else GL for p in passes]
    assert {GL, CL} <= set(on["random"])
    same = ForcedPlacement.parse("random:5").assign(passes)
    assert same == ForcedPlacement.parse("random:5").assign(passes)  # seeded: the same every time
    assert same != ForcedPlacement.parse("random:6").assign(passes)


@pytest.mark.parametrize("label", ["all-opencl", "alternate", "alternate-layers", "random:3"])
def test_a_forced_placement_runs_each_pass_where_forced_with_a_transfer_at_each_crossing(label):
    graph = planned(placement=label)
    wanted = ForcedPlacement.parse(label).assign(planned().filter_passes())
    assert {p.name: p.place for p in graph.filter_passes()} == wanted
    for p in graph.filter_passes():
        assert all(t.location is p.executor for t in (*p.inputs, p.target)), p.name
        assert p.why == f"forced placement {ForcedPlacement.parse(label).label}"
    assert graph.transfer_passes() and graph.schedule is None
    assert any(d.text.startswith("filter: forced placement") for d in graph.decisions)


def test_all_gl_is_the_graph_as_planned_and_an_explicit_assignment_moves_only_what_it_names():
    gl = planned(filter_backend="gl")
    same = planned(placement="all-gl")
    assert [p.name for p in same.passes] == [p.name for p in gl.passes] and not same.transfer_passes()
    first = gl.filter_passes()[0].name
    graph = planned(placement={first: "OpenCL"})
    assert [p.name for p in graph.filter_passes() if p.place == CL] == [first]
    assert ForcedPlacement.parse({first: "opencl"}).strategy == EXPLICIT


@pytest.mark.parametrize("value, name, words", [
    ("fastest", "fastest", "unknown placement 'fastest' (choose from all-gl, all-opencl"),
    ("alternate:3", "alternate:3", "takes no seed"),
    ("random:x", "x", "seed must be a whole number"),
    ("random:-1", "-1", "seed must be a whole number"),
    ({"filter:a:b": "vulkan"}, "vulkan", "unknown device 'vulkan' for pass 'filter:a:b' (choose from gl, opencl)"),
    (3, "3", "placement must be a strategy name"),
])
def test_a_bad_placement_is_a_placement_error_naming_it(value, name, words):
    with pytest.raises(PlacementError) as caught:
        FrameRequest(placement=value)
    assert caught.value.name == name and words in str(caught.value)
    assert isinstance(caught.value, LaminaInputError)


def test_a_placement_naming_a_pass_the_frame_lacks_is_an_error_naming_it():
    with pytest.raises(PlacementError, match="placement names pass 'filter:nope:blur', which this frame does not "
                                             "have") as caught:
        planned(placement={"filter:nope:blur": "opencl"})
    assert caught.value.name == "filter:nope:blur"
    with pytest.raises(PlacementError, match="'filter:nope:blur'"):
        place_by(planned(), {"filter:nope:blur": "gl"})


def test_a_placement_with_another_filter_backend_is_refused():
    with pytest.raises(LaminaInputError, match="placement 'alternate' forces where each filter pass runs"):
        FrameRequest(placement="alternate", filter_backend="auto")
    assert FrameRequest(placement="alternate", filter_backend="gl").backend_for("opencl").value == "gl"
