"""The pass protocol (lamina.passes): one class per TaskKind, each presenting itself
(describe, to_dict, DOT, trace, overlays); every executor has a handler for each kind it
claims; one Reason type on every pass; the model names no compositor type. No GPU."""

from __future__ import annotations

import json
import typing

import numpy as np
import pytest

import lamina.gpu.executor as gl_executor
import lamina.gpu.gl_filters as gl_filters
import lamina.gpu.opencl as cl_filters
from lamina import Layer, Scene, filters
from lamina.filters.plan import PassKind, PlannedPass
from lamina.passes import CapturePass
from lamina.framegraph import (
    PASS_TYPES,
    BackdropPass,
    CompositePass,
    Draw,
    Executor,
    FilterPass,
    FrameGraph,
    GraphPass,
    NoPolicy,
    OverlayPart,
    Pass,
    RasterPass,
    Reason,
    ShadowPass,
    SurfaceReason,
    TaskKind,
    TextureDesc,
    TextureRole,
    TransferPass,
    UploadPass,
)
from lamina.geometry import Affine
from lamina.graph.filter_tasks import apply_graph
from tests.unit import test_import_layers as layers

# The modules that make up the frame-graph model: a leaf that names no compositor type.
MODEL = ("lamina.textures", "lamina.passes", "lamina.graph_report", "lamina.framegraph")


def unhandled(claims, handlers) -> set:
    """The kinds an executor claims but has no handler for."""
    return set(claims) - set(handlers)


# -- one class per kind, one handler per claimed kind ---------------------------------------

def test_every_task_kind_is_one_pass_class():
    classes = typing.get_args(Pass)
    assert len(classes) == len(TaskKind) == len(PASS_TYPES)
    assert {cls.kind.fget(None) for cls in classes} == set(TaskKind)
    assert all(PASS_TYPES[kind].kind.fget(None) is kind for kind in TaskKind)
    assert all(issubclass(cls, GraphPass) for cls in classes)


@pytest.mark.parametrize("cls", typing.get_args(Pass), ids=lambda c: c.__name__)
def test_every_pass_class_presents_itself(cls):
    """A pass class writes its own describe line, to_dict fields and DOT label (the
    defaults only raise): reports need no branch per kind."""
    for method in ("describe_line", "own_fields", "dot_label"):
        assert getattr(cls, method) is not getattr(GraphPass, method), f"{cls.__name__} lacks {method}"


@pytest.mark.parametrize("name, claims, handlers", [
    ("GL executor: frame-graph passes", gl_executor.CLAIMS, gl_executor.TASK_HANDLERS),
    ("GL filter runner: planned filter passes", gl_filters.CLAIMS, gl_filters.HANDLERS),
    ("OpenCL filter runner: planned filter passes", cl_filters.CLAIMS, cl_filters.HANDLERS),
])
def test_every_executor_handles_every_kind_it_claims(name, claims, handlers):
    assert not unhandled(claims, handlers), f"{name}: no handler for {sorted(unhandled(claims, handlers))}"
    assert set(handlers) <= set(claims), f"{name}: handlers for kinds it does not claim"


def test_who_claims_what():
    assert gl_executor.CLAIMS == frozenset(TaskKind), "the GL executor runs whole graphs"
    assert gl_filters.CLAIMS == cl_filters.CLAIMS == frozenset(PassKind), "both run every planned filter pass"
    assert set(gl_executor.FILTER_EXECUTORS) == set(Executor), "a filter pass goes on to its executor's runner"


def test_a_claimed_kind_without_a_handler_is_found():
    table = {k: None for k in TaskKind if k is not TaskKind.BACKDROP}
    assert unhandled(frozenset(TaskKind), table) == {TaskKind.BACKDROP}


# -- one reason type; a typed filter step --------------------------------------------------

def _planned_graphs():
    scene = Scene(160, 120, "white")
    scene.root.add(Layer("a", (10, 10, 60, 40), "background: red; filter: blur(3px) sepia(.5)"))
    scene.root.add(Layer("b", (30, 30, 60, 40), "background: blue; mix-blend-mode: multiply; opacity: .5"))
    scene.root.add(Layer("c", (90, 60, 40, 30), "background: #fff; box-shadow: 0 4px 8px rgb(0 0 0 / 50%); "
                                                "clip-path: polygon(0 0, 40px 0, 0 30px)"))
    for backend in ("gl", "opencl"):
        yield scene.plan(filter_backend=backend)
    yield apply_graph(filters.parse("drop-shadow(2px 2px 1px red)").plan(size=(20, 10)), np.zeros((10, 20, 4), np.uint8),
                      Executor.OPENCL, straight=True)


def test_every_pass_reason_is_a_reason_and_every_step_is_planned():
    kinds = set()
    for graph in _planned_graphs():
        for p in graph.passes:
            kinds.add(p.kind)
            assert isinstance(p.reason, Reason), p
            if isinstance(p, CompositePass):
                assert isinstance(p.reason, SurfaceReason)
            if isinstance(p, FilterPass):
                assert isinstance(p.step, PlannedPass)
    assert {TaskKind.RASTER, TaskKind.FILTER, TaskKind.TRANSFER, TaskKind.UPLOAD, TaskKind.COMPOSITE,
            TaskKind.BACKDROP} <= kinds, "the graphs above hold the kinds a first frame plans"


def test_plain_text_reasons_become_reasons():
    tex = TextureDesc("t", 4, 4, TextureRole.BACKDROP)
    p = BackdropPass("backdrop:x", "x", tex, tex, Affine(), reason="mix-blend-mode multiply")
    assert type(p.reason) is Reason and p.reason == "mix-blend-mode multiply"
    assert p == BackdropPass("backdrop:x", "x", tex, tex, Affine(), reason=Reason("mix-blend-mode multiply"))
    assert str(SurfaceReason.FILTER) == "filter" and f"{SurfaceReason.ROOT}" == "root"


# -- what each pass says of itself -------------------------------------------------------------

class _Paint:
    """Any paint the RasterPaint protocol describes: the model needs no compositor type."""

    summary = "color + 1 box-shadow"
    shader_variant = "color"


def _one_of_each() -> FrameGraph:
    frame = TextureDesc("frame", 8, 8, TextureRole.FRAME)
    layer = TextureDesc("layer:a", 8, 8, TextureRole.LAYER_CONTENT)
    shadow = TextureDesc("shadow:a", 8, 8, TextureRole.SHADOW)
    on_cl = TextureDesc("layer:a@cl", 8, 8, TextureRole.FILTER_OUTPUT, location=Executor.OPENCL)
    up = TextureDesc("up", 8, 8, TextureRole.UPLOAD, location=Executor.OPENCL)
    out_cl = TextureDesc("filter:a:out", 8, 8, TextureRole.FILTER_OUTPUT, location=Executor.OPENCL)
    back = TextureDesc("filter:a:result", 8, 8, TextureRole.FILTER_OUTPUT)
    copy = TextureDesc("backdrop:a", 8, 8, TextureRole.BACKDROP)
    step = filters.parse("invert(1)").plan(size=(8, 8)).passes[0]
    passes = [
        ShadowPass("shadow:a", "a", shadow, _Paint()),
        RasterPass("raster:a", "a", layer, _Paint(), shadows=shadow),
        TransferPass("transfer:a", "a", on_cl, layer),
        UploadPass("upload:a", "a", up, np.zeros((8, 8, 4), np.uint8)),
        FilterPass("filter:a:1:color", "a", out_cl, (on_cl,), step, executor=Executor.OPENCL, why="filter_backend opencl"),
        TransferPass("transfer:a:result", "a", back, out_cl),
        CompositePass("composite:frame", frame, (0, 0), (0, 0, 0, 0), (Draw(back, "a", Affine(), 1.0),), SurfaceReason.ROOT),
        BackdropPass("backdrop:a", "a", frame, copy, Affine(), reason="mix-blend-mode: multiply"),
        CompositePass("composite:frame+", frame, (0, 0), (0, 0, 0, 0),
                      (Draw(layer, "a", Affine.translate(1, 1), 0.5, backdrop=copy),), SurfaceReason.ROOT, continues=True),
        CapturePass("capture:layer:a", "a", layer, TextureDesc("capture:layer:a", 8, 8, TextureRole.LAYER_CONTENT,
                                                               straight=True)),
    ]
    # A new kind of pass adds its sample here (after these: the tests read them by index).
    assert {p.kind for p in passes} == set(TaskKind), "a sample of every kind"
    return FrameGraph(8, 8, passes, frame)


def test_each_pass_writes_its_own_report_entries():
    graph = _one_of_each()
    graph.validate()
    text = graph.describe(timings={p.name: 0.5 for p in graph.passes})
    data = json.loads(json.dumps(graph.to_dict()))
    dot = graph.to_dot()
    for i, (p, entry) in enumerate(zip(graph.passes, data["passes"]), 1):
        assert f"{i:>2}. {p.kind:<9} {p.describe_line('  0.50 ms')}" in text
        assert entry == {**entry, "name": p.name, "kind": p.kind.value, "reason": str(p.reason), **p.own_fields()}
        node = f'"pass:{p.name}"'
        assert f'{node} -> "tex:{p.target.name}";' in dot
        assert all(f'"tex:{t.name}" -> {node};' in dot for t in p.reads())
        args = json.loads(json.dumps(p.trace_args()))
        assert args["kind"] == p.kind and args["target"] == p.target.name and "name" not in args
    assert "color + 1 box-shadow, shadows from shadow:a" in text, "a raster says what it paints, in its paint's words"
    assert "        - layer:a (opacity 0.5)" in text, "a composite lists its draws under its line"
    assert data["passes"][6]["draws"][0]["source"] == "filter:a:result"
    assert graph.passes[6].trace_args()["draws"] == 1
    lanes = [p.trace_lane() for p in graph.passes]
    assert lanes == ["GL", "GL", "transfers", "transfers", "OpenCL", "transfers", "GL", "GL", "GL", "readback"]
    assert str(graph.policy) == "no policy" and not graph.policy.uses_backings


def test_each_pass_says_what_it_adds_to_the_overlays():
    graph = _one_of_each()
    shift = Affine.translate(3, 0)
    raster, transfer, filter_pass, composite = graph.passes[1], graph.passes[5], graph.passes[4], graph.passes[8]
    part = composite.overlay(shift)
    (draw, to_frame), = part.quads
    assert draw is composite.draws[0] and to_frame == shift @ draw.transform
    assert part.sources == ((draw.source, to_frame),)
    assert transfer.overlay(shift).sources == ((transfer.source, shift),), "the same pixels on the other executor"
    assert filter_pass.overlay(shift).sources == ((filter_pass.inputs[0], shift),)
    assert raster.overlay(shift).quads == () and raster.repaints
    assert graph.passes[9].overlay(shift) == OverlayPart(), "a capture adds nothing to the overlays"
    assert [p.repaints for p in graph.passes] == [False, True, False, False, False, False, False, False, False, False]


def test_a_filters_apply_graph_presents_itself_too():
    """It has no compositing policy: a NoPolicy named after what made it."""
    graph = apply_graph(filters.parse("blur(1px)").plan(size=(6, 4)), np.zeros((4, 6, 4), np.uint8), Executor.GL)
    assert graph.policy == NoPolicy("filters.apply") and str(graph.policy) == "filters.apply"
    assert "filter    apply" in graph.describe() and graph.to_dict()["policy"] == "filters.apply"


# -- the model is a leaf ---------------------------------------------------------------------------

def test_the_frame_graph_model_imports_nothing_of_the_compositor():
    _, found = layers.all_imports()
    wrong = [f"{i.path}:{i.line}: {i.target}" for i in found
             if i.source in MODEL and (i.target == "lamina.compositor" or i.target.startswith("lamina.compositor."))]
    assert not wrong, "the frame-graph model imports the compositor:\n" + "\n".join(wrong)
    imported = {i.target for i in found if i.source == "lamina.graph_report"}
    assert not {t for t in imported if t.startswith("lamina")}, "the report reads the graph it is mixed into only"
