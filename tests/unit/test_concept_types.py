"""Concepts are types, parsed once at the edge (issue 21, item 5): the cost model's keys,
transfer directions and mask kinds. Their stored and reported spellings stay as they were:
a cost model stored by the code before them still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lamina.cost_store as cost_store
import lamina.gpu.calibrate as calibrate_mod
from lamina import Layer, Scene, filters
from lamina.filter_costs import KINDS, CostModel, PassCost
from lamina.filters.plan import PassKind
from lamina.textures import Executor, MaskKind, Transfer

STORED = Path(__file__).parent / "fixtures" / "filter-costs-model3.json"  # written by the string-keyed code


def test_a_cost_key_is_its_executor_and_pass_kind_spelled_as_stored():
    key = PassCost.parse("opencl:color_step")
    assert (key.executor, key.kind, key.per_step) == (Executor.OPENCL, PassKind.COLOR, True)
    assert str(key) == "opencl:color_step" and key == "opencl:color_step" and hash(key) == hash("opencl:color_step")
    assert PassCost("gl", "blur") == PassCost(Executor.GL, PassKind.BLUR) == "gl:blur"
    assert PassCost.parse(key) is key and {key: 1}["opencl:color_step"] == 1
    assert set(KINDS) == set(PassKind) and all(isinstance(k, PassKind) for k in KINDS)
    for bad in ("gl", "gl:sharpen", "metal:blur", "gl:blur_step"):
        with pytest.raises(ValueError):
            PassCost.parse(bad)


def test_transfer_directions_are_typed_and_spelled_as_before():
    assert Transfer.to(Executor.OPENCL) is Transfer.TO_OPENCL and Transfer.to("gl") is Transfer.TO_GL
    assert Transfer("gl->cl") is Transfer.TO_OPENCL and f"{Transfer.TO_GL}" == "cl->gl"
    assert (Transfer.TO_OPENCL.source, Transfer.TO_OPENCL.target) == (Executor.GL, Executor.OPENCL)
    assert json.dumps({Transfer.TO_GL: [Transfer.TO_OPENCL]}) == '{"cl->gl": ["gl->cl"]}'


def test_a_linear_model_stored_by_the_string_keyed_code_still_reads_as_a_hand_written_model():
    """The linear CostModel stays, for models written by hand; what the string-keyed code
    stored reads into it and writes back the same."""
    text = STORED.read_text(encoding="utf-8")
    (label, entry), = json.loads(text).items()
    model = CostModel.from_dict(entry)
    assert all(type(k) is PassCost for k in model.passes) and all(type(k) is Transfer for k in model.transfers)
    assert model.passes[PassCost(Executor.OPENCL, PassKind.COLOR, per_step=True)] == (0.0, 1.25e-7)
    assert model.transfers[Transfer.TO_GL] == (0.3, 2e-7) and model.transfer_ms("gl->cl", 10) == pytest.approx(0.2 + 1e-6)
    sepia = filters.parse("sepia(.5) brightness(1.2) sepia(.3)").plan(size=(50, 40)).passes[0]
    assert model.pass_ms("gl", sepia, 50, 40) == pytest.approx(0.01 + 1e-6 * 2000 + 2.5e-7 * 2000 * (len(sepia.steps) - 1))
    assert json.dumps({label: model.to_dict()}, indent=2) + "\n" == text, "stored as the old code stored it"


def test_the_stored_linear_model_is_not_migrated_to_the_history_model(monkeypatch, tmp_path):
    """filter-costs.json holds fits without samples or spread: the history store never
    reads it (it is left for older versions sharing the cache) and says so."""
    (tmp_path / "filter-costs.json").write_text(STORED.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    loaded = cost_store.load(cost_store.Stamp({"GL_RENDERER": "llvmpipe", "GL_VERSION": "4.5"}))
    assert loaded.status is cost_store.LoadStatus.MISSING and not loaded.model.passes
    assert "filter-costs.json" in loaded.reason and "not migrated" in loaded.reason
    assert (tmp_path / "filter-costs.json").read_text(encoding="utf-8") == STORED.read_text(encoding="utf-8")


def test_a_stored_model_naming_an_unknown_kind_is_measured_again():
    data = json.loads(STORED.read_text(encoding="utf-8"))
    (entry,) = data.values()
    entry["passes"]["gl:sharpen"] = [0.0, 1.0]
    with pytest.raises(ValueError):  # calibrate catches it and measures again
        CostModel.from_dict(entry)


def test_calibration_samples_are_keyed_by_kind_and_steps():
    samples = calibrate_mod._samples()
    assert {(s.kind, s.steps) for s in samples} == {(k, 1) for k in PassKind} | {(PassKind.COLOR, 8)}
    assert all(calibrate_mod.Sample.of(step) == key for key, step in samples.items())


def test_mask_kinds_are_an_enum_spelled_as_in_reports():
    assert MaskKind("clip-path") is MaskKind.CLIP_PATH and f"{MaskKind.MASK_IMAGE}" == "mask-image"
    assert json.dumps([MaskKind.CLIP_PATH]) == '["clip-path"]'
    scene = Scene(200, 150, "white")
    scene.root.add(Layer("card", (20, 30, 100, 80), "background: #36c; mask-image: linear-gradient(black, transparent); "
                                                  "clip-path: polygon(0 0, 100% 0, 0 100%)"))
    graph = scene.plan(policy="none")
    (draw,) = [d for p in graph.composite_passes() for d in p.draws if d.layer_id == "card"]
    assert [m.what for m in draw.masks] == [MaskKind.MASK_IMAGE, MaskKind.CLIP_PATH]
    assert all(type(m.what) is MaskKind for m in draw.masks)
    assert "(mask-image of card, alpha)" in graph.describe() and '"what": "clip-path"' in json.dumps(graph.to_dict())


def test_planned_pass_axes_and_resample_directions_are_typed():
    from lamina.filters.plan import Axis, BlurPass, MorphologyPass, ResamplePass
    from lamina.filters.ops import MorphologyOperator
    blur = BlurPass(("source",), "out", "y", 2.0, 6)
    assert blur.axis is Axis.Y and blur.gl().uniforms[0] == ("u_axis", (0, 1)) and blur.label == "blur-y"
    assert blur == BlurPass(("source",), "out", Axis.Y, 2.0, 6)
    dilate = MorphologyPass(("source",), "out", "x", 3, MorphologyOperator.DILATE)
    assert dilate.axis is Axis.X and dilate.describe().startswith(f"{dilate.label}  ") and dilate.label == "dilate-x"
    down = ResamplePass(("source",), "h", "down", 2, 1)
    assert down.direction is PassKind.DOWNSAMPLE is down.pass_kind and down.describe().startswith("down    halve")
    with pytest.raises(ValueError):
        ResamplePass(("source",), "h", "blur", 2, 1)
    plan = filters.parse("blur(20px) drop-shadow(1px 1px 2px red)").plan(size=(300, 200))
    assert all(p.describe().startswith(p.label) for p in plan.passes)


def test_a_tiled_texture_says_what_it_holds_as_a_tile_kind():
    from lamina.framegraph import TileKind
    scene = Scene(100, 100)
    scene.root.add(Layer("big", (0, 0, 9000, 40), "background: red"))
    (tiles,) = scene.plan(policy="none").tiles
    assert tiles.kind is TileKind.LAYER and tiles.to_dict()["kind"] == "layer"
    assert json.dumps(tiles.to_dict()).startswith('{"owner": "big", "kind": "layer"')


def test_overlays_are_parsed_once_into_an_enum():
    from lamina.errors import InvalidValueError
    from lamina.overlays import LEGENDS, OVERLAYS, Overlay
    assert Overlay.parse("paint") is Overlay.PAINT and OVERLAYS == ("borders", "paint", "overdraw", "surfaces", "raster-scale", "splits")
    assert LEGENDS["paint"] is LEGENDS[Overlay.PAINT] and all(type(k) is Overlay for k in LEGENDS)
    with pytest.raises(InvalidValueError, match=r"unknown overlay 'xray' \(choose from borders, paint, overdraw, surfaces, raster-scale, splits\)"):
        Overlay.parse("xray")


def test_image_keys_name_their_source_as_a_type():
    import numpy as np
    from lamina.css.values import ImageRef
    from lamina.images import ImageKey, ImageSource, ImageStore
    pixels = np.zeros((2, 3, 4), np.uint8)
    store = ImageStore()
    key, _ = store.get(ImageRef(data=pixels), None, "card")
    assert type(key) is ImageKey and key.source is ImageSource.DATA and key[:2] == ("data", id(pixels))
    assert key.identity == ImageKey(ImageSource.DATA, id(pixels)) and key.version[1] == (2, 3, 4)
    pixels[0, 0] = 255  # changed in place: the next frame sees a new version of the same source
    store.begin_frame()
    again, _ = store.get(ImageRef(data=pixels), None, "card")
    assert again != key and again.identity == key.identity
    url = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
    (source, where, version), _ = store.get(ImageRef(url=url), None, "card")
    assert (source, where, version) == (ImageSource.URL, url, None)


def test_animation_direction_and_fill_are_parsed_once_into_enums():
    from lamina.animation.timeline import Animation, FillMode, PlaybackDirection
    anim = Animation.create({"from": {"opacity": 0}, "to": {"opacity": 1}}, duration=1, iterations=3,
                            direction="alternate-reverse", fill="backwards")
    assert anim.direction is PlaybackDirection.ALTERNATE_REVERSE and anim.fill is FillMode.BACKWARDS
    assert [anim.direction.reverses(i) for i in range(3)] == [True, False, True]
    assert anim.fill.backwards and not anim.fill.forwards
    out = anim.to_dict()
    assert (type(out["direction"]), out["direction"], out["fill"]) == (str, "alternate-reverse", "backwards")
    assert "direction" not in Animation.create({"to": {"opacity": 1}}, duration=1).to_dict()
