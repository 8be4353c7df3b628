"""Filter plans as render-task graph nodes (graph/filter_tasks.py), the pass-kind protocol and
its handler tables, the seam ``filters.apply`` runs through (filters/runners.py), and
the constants the GLSL and OpenCL passes share. No GPU: nothing here renders."""

from __future__ import annotations

import re
import typing

import numpy as np
import pytest

import lamina.gpu.gl_filters as gl_filters
import lamina.gpu.opencl as cl_filters
import lamina.filters.runners as runners
from lamina import filters
from lamina.errors import LaminaInputError
from lamina.filters.backend import FilterBackend
from lamina.filters.ops import Morphology
from lamina.filters.svg import parse_svg
from lamina.images import encode_png_data_url
from lamina.filters.svg.compile import plan_graph
from lamina.filters.plan import SHADER_CONSTANTS, MAX_BLUR_RADIUS, BlurPass, PassKind, ResamplePass, image_size
from lamina.filter_costs import KINDS, Placement, place
from lamina.graph.filter_tasks import apply_graph, filter_tasks
from lamina.framegraph import Executor, FilterPass, Pass, TextureDesc, TextureRole, TransferPass, UploadPass
from lamina.gpu.executor import FILTER_EXECUTORS, TASK_HANDLERS
from lamina.gpu.shader_source import load_source, shaders_dir

CHAINS = [
    "sepia(.6) saturate(1.5) hue-rotate(40deg) contrast(1.2) opacity(.7)",
    "blur(1.5px)",
    "blur(30px)",
    "drop-shadow(3px 4px 5px rgb(0 0 0 / 60%))",
    "drop-shadow(2.5px -1.5px 0 red) blur(1px) invert(.3)",
    # An SVG primitive with no CSS function: a chain of typed ops.
    filters.FilterChain((Morphology("dilate", 3, 1), filters.Sepia(0.5), Morphology("erode", 0, 2))),
]


# An SVG filter graph planned as its own passes (filters.svg.compile): every SVG pass kind,
# an feImage among them (a data: URL: no file, no policy needed).
PICTURE = encode_png_data_url(np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4) * 10)
SVG_GRAPH = parse_svg('<svg xmlns="http://www.w3.org/2000/svg"><filter id="f" x="0" y="0" width="1" height="1" '
                      'color-interpolation-filters="sRGB"><feOffset dx="2" result="o"/><feFlood flood-color="red" x="10" width="100"/>'
                      '<feComposite in2="o" operator="in"/><feColorMatrix type="luminanceToAlpha" result="l"/>'
                      '<feTurbulence/><feComposite in2="l"/><feDisplacementMap in2="SourceGraphic" scale="4"/>'
                      '<feConvolveMatrix kernelMatrix="0 1 0 1 1 1 0 1 0" result="c"/>'
                      '<feDiffuseLighting><feDistantLight/></feDiffuseLighting><feComposite in2="c" result="t"/>'
                      f'<feImage href="{PICTURE}"/><feBlend in2="t" mode="screen"/>'
                      '<feGaussianBlur stdDeviation="2" color-interpolation-filters="linearRGB"/></filter></svg>').filter("f")


def plan_of(chain: "str | filters.FilterChain", w: int = 300, h: int = 200):
    if chain is SVG_GRAPH:
        return plan_graph(SVG_GRAPH, (w, h))
    return (chain if isinstance(chain, filters.FilterChain) else filters.parse(chain)).plan(size=(w, h))


# -- one handler per kind, on every executor ---------------------------------------------

def test_every_planned_pass_kind_has_a_handler_on_every_executor():
    assert set(gl_filters.HANDLERS) == set(PassKind) == set(cl_filters.HANDLERS)
    assert set(FILTER_EXECUTORS) == set(Executor)
    seen = {p.pass_kind for chain in (*CHAINS, SVG_GRAPH) for p in plan_of(chain).passes}
    assert seen == set(PassKind), "the chains above exercise every kind"
    assert set(KINDS) == {k.value for k in PassKind}, "the cost model prices every kind"


def test_every_frame_graph_pass_kind_has_a_task_handler():
    kinds = {cls.kind.fget(None) for cls in typing.get_args(Pass)}
    assert kinds == set(TASK_HANDLERS)


def test_executors_are_typed_but_read_as_their_names():
    assert Executor("opencl") is Executor.OPENCL and Executor.of("cl") is Executor.OPENCL
    assert f"{Executor.GL}" == "gl" and {Executor.GL: 1}["gl"] == 1
    placed = place(plan_of("blur(2px)"), 300, 200, "opencl")
    assert all(e is Executor.OPENCL for e in placed.executors)
    assert place(plan_of("blur(2px)"), 300, 200, FilterBackend.GL).executors == (Executor.GL, Executor.GL)
    with pytest.raises(LaminaInputError, match="unknown filter backend 'cl'"):
        place(plan_of("blur(2px)"), 300, 200, "cl")


# -- plans become tasks ---------------------------------------------------------------------

@pytest.mark.parametrize("chain", CHAINS)
@pytest.mark.parametrize("executor", list(Executor))
def test_apply_graph_is_upload_then_the_plan_on_one_executor(chain, executor):
    plan = plan_of(chain, 64, 48)
    image = np.zeros((48, 64, 4), np.uint8)
    graph = apply_graph(plan, image, executor)
    graph.validate()
    upload, *rest = graph.passes
    assert isinstance(upload, UploadPass) and upload.image is image
    assert upload.target.location is executor and (upload.target.width, upload.target.height) == (64, 48)
    assert [p.step for p in rest] == list(plan.passes), "one FilterPass per planned pass, in order"
    assert all(isinstance(p, FilterPass) and p.executor is executor for p in rest), "no transfers"
    assert graph.output is rest[-1].target and graph.output.location is executor
    assert (graph.width, graph.height) == (64, 48)


def test_a_chain_that_does_nothing_reads_back_its_upload():
    graph = apply_graph(plan_of("blur(0px) opacity(1)"), np.zeros((4, 5, 4), np.uint8), Executor.GL)
    assert [p.kind for p in graph.passes] == ["upload"] and graph.output is graph.passes[0].target


@pytest.mark.parametrize("executor", list(Executor))
def test_straight_pixels_are_converted_by_the_passes_themselves(executor):
    """filters.apply of straight RGBA: the upload and the result are straight textures;
    passes reading each source texel once premultiply as they read, and the last pass
    un-premultiplies as it writes, so a colour chain costs no extra pass."""
    image = np.zeros((48, 64, 4), np.uint8)
    plan = plan_of("sepia(.6) opacity(.7)", 64, 48)
    graph = apply_graph(plan, image, executor, straight=True)
    graph.validate()
    upload, *rest = graph.passes
    assert upload.target.straight and upload.image is image
    assert [p.step for p in rest] == list(plan.passes), "no conversion pass of its own"
    assert rest[0].inputs[0].straight and graph.output.straight and graph.output is rest[-1].target
    assert not any(t.straight for p in rest for t in (*p.inputs, p.target) if t not in (upload.target, graph.output))
    shadow = apply_graph(plan_of("drop-shadow(3px 4px 9px red)", 64, 48), image, executor, straight=True)
    assert [p.step for p in shadow.passes[1:]] == list(plan_of("drop-shadow(3px 4px 9px red)", 64, 48).passes), \
        "the halving and the shadow read the source straight: fused"


def test_a_blur_or_nothing_gets_a_conversion_pass_of_its_own():
    image = np.zeros((48, 64, 4), np.uint8)
    plan = plan_of("blur(2px) invert(1)", 64, 48)
    graph = apply_graph(plan, image, Executor.GL, straight=True)
    first, *rest = graph.passes[1:]
    # A blur reads each texel 2 r + 1 times: converting once first is cheaper.
    assert first.step.steps == () and first.inputs[0].straight and not first.target.straight
    assert [p.step.inputs for p in rest] == [("premultiplied",), *[p.inputs for p in plan.passes[1:]]]
    assert graph.output.straight and not any(t.straight for p in rest for t in p.inputs)
    nothing = apply_graph(plan_of("blur(0px)"), image, Executor.GL, straight=True)
    (roundtrip,) = nothing.passes[1:]
    assert roundtrip.inputs[0].straight and roundtrip.target.straight and nothing.output is roundtrip.target, \
        "an empty chain still rounds through premultiplied 8 bits, as a layer texture does"
    plain = apply_graph(plan, image, Executor.GL)
    assert [p.step for p in plain.passes[1:]] == list(plan.passes) and not plain.output.straight


def test_mixed_placement_crosses_with_one_transfer_per_image_and_side():
    plan = plan_of("sepia(.5) blur(3px) invert(.2)")
    kinds = [p.pass_kind for p in plan.passes]
    assert kinds == [PassKind.COLOR, PassKind.BLUR, PassKind.BLUR, PassKind.COLOR]
    placement = Placement((Executor.GL, Executor.OPENCL, Executor.OPENCL, Executor.GL), ("",) * 4, "")
    source = TextureDesc("surface:a", 300, 200, TextureRole.RENDER_SURFACE)
    tasks = filter_tasks(plan, source, placement, "a")
    transfers = [p for p in tasks.passes if isinstance(p, TransferPass)]
    assert [t.direction for t in transfers] == ["gl->cl", "cl->gl"]
    assert tasks.result.location is Executor.GL and tasks.result is tasks.passes[-1].target
    names = [p.name for p in tasks.passes if isinstance(p, FilterPass)]
    assert names == [f"filter:a:{i}:{s.kind}" for i, s in enumerate(plan.passes, 1)]
    kept = TextureDesc("kept", 300, 200, TextureRole.FILTER_OUTPUT, retained=True)
    on_cl = Placement((Executor.OPENCL,) * 4, ("",) * 4, "")
    tasks = filter_tasks(plan, source, on_cl, "a", result_texture=lambda w, h: kept)
    assert tasks.result is kept and tasks.passes[-1].name == "transfer:a:result:cl-gl"


def test_the_scene_planner_emits_the_same_tasks_as_filter_tasks():
    """Scenes and filters.apply share one function: a filtered layer's passes in the
    scene graph are exactly filter_tasks of its plan on its surface."""
    from lamina import Layer, Scene

    scene = Scene(120, 90, "white")
    scene.root.add(Layer("a", (10, 10, 40, 30), "background: red; filter: blur(3px) sepia(.5)"))
    graph = scene.plan(filter_backend="opencl")
    emitted = [p for p in graph.passes if isinstance(p, (FilterPass, TransferPass))]
    first = emitted[0]
    source = first.source if isinstance(first, TransferPass) else first.inputs[0]
    plan = filters.parse("blur(3px) sepia(.5)").plan(size=(source.width, source.height))
    placement = place(plan, source.width, source.height, "opencl")
    expected = filter_tasks(plan, source, placement, "a", result_texture=lambda w, h: emitted[-1].target)
    assert list(expected.passes) == emitted


# -- the seam ------------------------------------------------------------------------------

def test_apply_hands_the_plan_to_the_runner_registered_for_its_backend(monkeypatch):
    calls = []

    def fake(image, plan, *, renderer, device, straight):
        calls.append((image.copy(), plan, renderer, device, straight))
        return image

    monkeypatch.setattr(runners, "_RUNNERS", {runners.ApplyBackend.OPENCL: fake})
    img = np.full((3, 4, 4), 128, np.uint8)
    img[..., 3] = 100
    out = filters.apply(img, "blur(1px)", "opencl", device="dev")
    (seen, plan, renderer, device, straight), = calls
    # Straight pixels go to the runner as they are: its graph converts them on the device.
    assert np.array_equal(seen, img) and np.array_equal(out, img) and straight
    assert plan == filters.parse("blur(1px)").plan(size=(4, 3)) and renderer is None and device == "dev"
    filters.apply(img, "blur(1px)", "opencl", premultiplied=True)
    assert calls[-1][4] is False
    with pytest.raises(RuntimeError, match="no executor is registered for filter backend 'gl'"):
        filters.apply(img, "blur(1px)", "gl")
    with pytest.raises(LaminaInputError, match=r"unknown filter backend 'cuda' \(choose from gl, opencl, reference\)"):
        filters.apply(img, "blur(1px)", "cuda")
    assert filters.BACKENDS == ("gl", "opencl", "reference")


def test_lamina_registers_graph_runners_for_gl_and_opencl():
    import lamina.renderer  # noqa: F401 - registers them (lamina/__init__ imports it)
    from lamina.gpu.apply import GraphPlanRunner

    for backend, executor in ((runners.ApplyBackend.GL, Executor.GL), (runners.ApplyBackend.OPENCL, Executor.OPENCL)):
        runner = runners.plan_runner(backend)
        assert isinstance(runner, GraphPlanRunner) and runner.executor is executor
    with pytest.raises(ValueError, match="oracle"):
        runners.register_plan_runner(runners.ApplyBackend.REFERENCE, lambda *a, **k: None)


# -- what GLSL and OpenCL agree on ---------------------------------------------------------

def test_shared_constants_come_from_one_source():
    cl_source = load_source("opencl/filters.cl")
    glsl = {p.name: p.read_text() for p in (shaders_dir() / "filters").glob("*.frag")}
    for name, value in cl_filters.KERNEL_DEFINES.items():
        for file, text in [("filters.cl", cl_source), *glsl.items()]:
            assert not re.search(rf"#\s*define\s+{name}\b", text), f"{file} defines {name} itself"
    assert SHADER_CONSTANTS.items() <= cl_filters.KERNEL_DEFINES.items()
    used_in_cl = {n for n in cl_filters.KERNEL_DEFINES if re.search(rf"\b{n}\b", cl_source.split("*/")[-1])}
    assert {"DOWN_RUN", "COLOR_STEP_FLOATS"} <= used_in_cl
    assert "MAX_COLOR_STEPS" in glsl["color.frag"]
    from lamina.gpu.programs import VARIANTS_BY_NAME as VARIANTS

    for name, variant in VARIANTS.items():
        if name.startswith("filter."):
            assert SHADER_CONSTANTS.items() <= dict(variant.defines).items(), name


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.5, 4.0])
def test_blur_weights_and_norm_are_computed_once_for_both_executors(sigma):
    radius = int(np.ceil(3 * sigma))
    p = BlurPass(("source",), "out", "x", sigma, radius)
    w = p.weights()
    assert len(w) == 2 * radius + 1 and w.sum() == pytest.approx(1.0, abs=1e-12)
    assert w[radius] == pytest.approx(p.norm) and np.allclose(w, w[::-1])
    for chain in ("blur(40px)", "blur(4px)", "drop-shadow(0 0 100px red)"):
        assert all(q.radius <= MAX_BLUR_RADIUS for q in plan_of(chain, 2000, 2000).passes if q.pass_kind is PassKind.BLUR)


def test_resample_offsets_come_from_the_plan():
    assert ResamplePass(("source",), "h", "down", 2, 1).input_offset == -2
    assert ResamplePass(("h",), "q", "down", 4, 2).input_offset == -1
    assert ResamplePass(("q",), "up", "up", 1, 4).pass_kind is PassKind.UPSAMPLE


# -- the cost model asks each pass type, not the blur ----------------------------------------

def test_calibration_measures_every_pass_kind_from_the_pass_types_own_samples():
    from lamina.filter_costs import work_units
    from lamina.gpu import calibrate
    from lamina.filters.plan import CostKind
    samples = calibrate._samples()
    assert set(samples) - {"color8"} == set(KINDS), "one sample per cost-model kind (and the 8-step colour pass)"
    assert all(step.pass_kind.value == key for key, step in samples.items() if key != "color8")
    for step in samples.values():
        px = np.prod(image_size(40, 30, step.scale))
        taps = step.taps if step.cost is CostKind.PIXEL_TAPS else 1
        assert work_units(step, 40, 30) == px * taps
    assert samples["blur"].cost is CostKind.PIXEL_TAPS and work_units(samples["blur"], 40, 30) == 40 * 30 * 13
    from lamina.cost_history import HistoryModel
    full = HistoryModel()
    for sample in samples:
        full = full.observe_pass(sample, "gl:x", 1000, 1.0)
    assert full.has_passes("gl:x", samples)
    stale = HistoryModel()
    for sample in samples:
        if sample != "shadow":
            stale = stale.observe_pass(sample, "gl:x", 1000, 1.0)
    assert not stale.has_passes("gl:x", samples), "a stored model that lacks a kind is measured again"
