"""A frame placed over GL and two OpenCL devices, as data (no GPU): the rewrite names the
device of every OpenCL pass and texture, copies each texture at most once to each device
(GL <-> each device, and device <-> device through the host), forced placements and the
frame-wide schedule can name a device, and the run-time offloads know theirs."""

from __future__ import annotations

import re

import pytest

from lamina import load_scene
from lamina.devices import Device
from lamina.errors import OpenCLDevicesError, PlacementError
from lamina.filter_costs import CostModel
from lamina.forced_placement import ForcedPlacement
from lamina.frame_costs import ExecutorCosts, frame_costs
from lamina.framegraph import Executor, FilterPass, FrameGraph, TransferPass
from lamina.graph.frame_schedule import schedule_frame
from lamina.gpu.device_set import DEVICES_ENV, opencl_devices_in_use, parse_device_list
from lamina.graph.placed import place_by, place_frame, scheduled
from lamina.textures import Place

GL = Place()
D0, D1 = Place(Executor.OPENCL, "0:0"), Place(Executor.OPENCL, "0:1")
DEVICES = tuple(Device(Executor.OPENCL, "pthread", "PoCL", "3.1", index) for index in ("0:0", "0:1"))


def planned() -> FrameGraph:
    return load_scene("tests/scenes/filter-drop-shadow.json").plan(filter_backend="gl")


def check_devices(graph: FrameGraph) -> None:
    """Every OpenCL pass reads and writes its own device's buffers; every copy joins two
    different places; no texture content is copied twice to one place."""
    for p in graph.filter_passes():
        for t in (*p.inputs, p.target):
            assert t.place == p.place, (p.name, t.name)
    seen = set()
    written: dict[str, int] = {}
    for i, p in enumerate(graph.passes):
        if isinstance(p, TransferPass):
            assert p.source.place != p.target.place, p.name
            base = p.source.name.partition("@cl")[0]
            key = (base, written.get(base, -1), p.target.place)
            assert key not in seen, f"{p.name}: {base} copied twice to {p.target.place.label}"
            seen.add(key)
        else:
            written[p.target.name.partition("@cl")[0]] = i
    graph.validate()


def test_places_read_and_write_as_devices_are_named():
    assert Place.of("opencl:0:1") == D1 and Place.of("CL:0:1") == D1 and Place.of("gl") == GL
    assert Place.of(Executor.OPENCL) == Place(Executor.OPENCL)
    assert (D1.key, D1.label, D1.suffix, D1.short) == ("opencl:0:1", "OpenCL 0:1", "@cl0:1", "cl0:1")
    assert (Place(Executor.OPENCL).suffix, Place(Executor.OPENCL).label) == ("@cl", "OpenCL")  # as before: one device
    with pytest.raises(ValueError, match="P:D"):
        Place.of("opencl:first")
    with pytest.raises(ValueError, match="GL is one device"):
        Place(Executor.GL, "0:1")


def test_a_layer_split_over_two_devices_copies_between_them_through_one_transfer():
    graph = planned()
    passes = graph.filter_passes()
    layer = next(p.layer_id for p in passes if sum(q.layer_id == p.layer_id for q in passes) >= 2)
    chain = [p for p in passes if p.layer_id == layer]  # a layer of two passes or more
    on = {chain[0].name: "opencl:0:0", **{p.name: "opencl:0:1" for p in chain[1:]}}
    placed = place_by(graph, on, DEVICES)
    check_devices(placed)
    ran = {p.name: p.place for p in placed.filter_passes()}
    assert ran[chain[0].name] == D0 and all(ran[p.name] == D1 for p in chain[1:])
    across = [t for t in placed.transfer_passes() if t.source.place == D0 and t.target.place == D1]
    assert across, "the chain's second pass reads the first's result on the other device"
    assert across[0].target.name.endswith("@cl0:1") and across[0].source.name.endswith("@cl0:0")
    assert "OpenCL 0:0 buffer -> host -> OpenCL 0:1 buffer" in across[0].describe()
    assert across[0].to_dict()["from_device"] == "0:0" and across[0].to_dict()["to_device"] == "0:1"
    first = next(p for p in placed.filter_passes() if p.name == chain[0].name)
    assert first.to_dict()["device"] == "0:0"
    assert "[OpenCL 0:0]" in placed.describe()


def test_spread_layers_goes_round_gl_and_each_device():
    graph = planned()
    layers = list(dict.fromkeys(p.layer_id for p in graph.filter_passes()))
    placed = place_by(graph, "spread-layers", DEVICES)
    check_devices(placed)
    ring = (GL, D0, D1)
    for p in placed.filter_passes():
        assert p.place == ring[layers.index(p.layer_id) % 3], p.name
    assert {p.place for p in placed.filter_passes()} == {GL, D0, D1}
    # The report says how many passes went to each device, per layer.
    assert any("(0:1: " in d.text for d in placed.decisions)


def test_a_placement_naming_a_device_not_in_use_is_an_error_naming_it():
    graph = planned()
    first = graph.filter_passes()[0].name
    with pytest.raises(PlacementError, match="opencl:0:2, a device this renderer does not use") as caught:
        place_by(graph, {first: "opencl:0:2"}, DEVICES)
    assert caught.value.name == "opencl:0:2"
    with pytest.raises(PlacementError, match="does not use"):
        place_by(graph, {first: "opencl:0:1"})  # one device in use: its own


def two_device_model() -> CostModel:
    """OpenCL far cheaper than GL (both devices alike) and copies nearly free: a
    schedule uses both OpenCL devices, the frame's independent layers spread over them."""
    kinds = ("color", "blur", "down", "up", "shadow", "morphology")
    passes = {f"gl:{k}": (1.0, 1e-4) for k in kinds} | {f"opencl:{k}": (0.1, 1e-5) for k in kinds}
    return CostModel("two devices", passes, {"gl->cl": (0.001, 1e-12), "cl->gl": (0.001, 1e-12)})


def test_the_frame_wide_schedule_places_passes_on_gl_and_both_devices():
    graph = planned()
    costs = frame_costs(two_device_model(), DEVICES)
    assert costs.names == ("GL", "OpenCL 0:0", "OpenCL 0:1")
    assert costs.copy_ms(1, 2, 1 << 20) == pytest.approx(costs.copy_ms(1, 0, 1 << 20) + costs.copy_ms(0, 2, 1 << 20))
    placed = scheduled(graph, two_device_model(), DEVICES)
    check_devices(placed)
    used = {p.place for p in placed.filter_passes()}
    assert {D0, D1} <= used, used
    slots = {s.name: s.device for s in placed.schedule.slots}
    for p in placed.filter_passes():
        assert slots[p.name] == ("GL" if p.place == GL else p.place.label)  # the report's device is where it runs
    for o in placed.offloads:
        assert o.device in ("0:0", "0:1")
        devices = {p.device for p in placed.filter_passes() if p.name in o.cl_passes}
        assert devices == {o.device}, o.name


def test_one_device_keeps_the_names_it_always_had():
    graph = planned()
    placed = scheduled(graph, two_device_model())
    cl = [p for p in placed.filter_passes() if p.executor is Executor.OPENCL]
    assert cl and all(p.device == "" and p.target.name.endswith("@cl") for p in cl)


def test_two_opencl_devices_without_indices_cannot_both_run():
    graph = planned()
    same = Device(Executor.OPENCL, "OpenCL", "cost model", "")
    costs = ExecutorCosts(two_device_model(), (ExecutorCosts.devices[0], same, same), ("GL", "A", "B"))
    with pytest.raises(Exception, match="'A' and 'B' .* are both OpenCL"):
        place_frame(graph, schedule_frame(graph, costs), costs)


# -- which devices a renderer uses (gpu.device_set): parsed once, typed errors -------------

def test_a_device_list_reads_all_or_indices_and_names_a_bad_entry():
    assert parse_device_list("all", DEVICES) == DEVICES
    assert parse_device_list(" 0:1 , 0:0 ", DEVICES) == DEVICES[::-1]  # in the order given
    assert parse_device_list(["0:1"], DEVICES) == DEVICES[1:]
    for value, bad, words in [("0:2", "0:2", "no OpenCL device has index '0:2'"),
                              ("0:0,,0:1", "", "an empty entry"),
                              ("0:0,0:0", "0:0", "named twice"),
                              ("gpu", "gpu", "this machine has: 0:0 (PoCL / pthread), 0:1 (PoCL / pthread)")]:
        with pytest.raises(OpenCLDevicesError, match=re.escape(words)) as caught:
            parse_device_list(value, DEVICES)
        assert caught.value.value == bad and caught.value.where == DEVICES_ENV
    with pytest.raises(OpenCLDevicesError, match="no OpenCL device"):
        parse_device_list("all", ())


def test_the_setting_comes_from_the_option_else_the_environment(monkeypatch):
    monkeypatch.delenv(DEVICES_ENV, raising=False)
    assert opencl_devices_in_use(None, DEVICES) == ()  # default: the renderer's one selected device
    monkeypatch.setenv(DEVICES_ENV, "0:1")
    assert opencl_devices_in_use(None, DEVICES) == DEVICES[1:]
    assert opencl_devices_in_use("all", DEVICES) == DEVICES  # the option wins
    with pytest.raises(OpenCLDevicesError) as caught:
        opencl_devices_in_use("9:9", DEVICES)
    assert caught.value.where == "opencl_devices"
