"""OpenCL execution of filter plans: against GL, in scenes with transfer passes, the
executor placement of filter_backend="auto", devices and the missing-device errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lamina import filters
import lamina.gpu.calibrate as backend_mod
import lamina.gpu.opencl as ocl
from lamina import Layer, Renderer, Scene, load_scene
from lamina.cli import main
from lamina.errors import LaminaInputError, OpenCLUnavailableError, SceneFileError
from lamina.scene_file import scene_from_dict
from lamina.cost_history import SizeClass
from lamina.filter_costs import CostModel, _price, place
from lamina.filters.plan import BlurPass

CHAINS = [
    "sepia(.6) saturate(1.5) hue-rotate(40deg) contrast(1.2) opacity(.7)",
    "blur(1.5px)",
    "blur(4px)",
    "blur(9px)",
    "blur(30px)",
    "drop-shadow(3px 4px 5px rgb(0 0 0 / 60%))",
    "drop-shadow(2.5px -1.5px 0 red) blur(1px) invert(.3)",
]


def random_image(rng, h, w):
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
    return img


@pytest.mark.parametrize("chain", CHAINS)
def test_opencl_matches_gl_within_a_level(gl, rng, chain):
    img = random_image(rng, int(rng.integers(20, 90)), int(rng.integers(20, 90)))
    a = filters.apply(img, chain, "opencl", premultiplied=True).astype(int)
    b = filters.apply(img, chain, "gl", premultiplied=True).astype(int)
    # Halved blurs round at four more steps (halvings, level blur, upsample), and GL's
    # weights come from a recurrence: there the two may sit on either side of the
    # reference (about 1 image in 150 has a pixel 2 apart).
    resampled = any(p.kind == "resample" for p in filters.parse(chain).plan(size=img.shape[1::-1]).passes)
    assert np.abs(a - b).max() <= (2 if resampled else 1)


@pytest.mark.parametrize("backend", ["gl", "opencl"])
@pytest.mark.parametrize("chain", ["grayscale(1) drop-shadow(2px 2px 0 red)",
                                   "drop-shadow(1px 1px 0 red) drop-shadow(-1px 2px 0 blue)"])
def test_a_shadow_reading_one_image_twice(gl, rng, backend, chain):
    img = random_image(rng, 24, 30)
    out = filters.apply(img, chain, backend, premultiplied=True).astype(int)
    ref = filters.apply(img, chain, "reference", premultiplied=True).astype(int)
    assert np.abs(out - ref).max() <= 2


def test_idle_opencl_buffers_are_freed_after_a_few_frames():
    scene = Scene(120, 90, "white")
    layer = scene.root.add(Layer("grow", (10, 10, 20, 20), "background: red; filter: blur(2px)"))
    runner = ocl.default_runner()
    with Renderer() as r:
        for i in range(30):
            layer.box = (10, 10, 20 + i * 2, 20)  # a new surface size every frame
            scene.render(r, filter_backend="opencl")
        assert runner.free_count <= 12, "sizes unused for a few frames are released"
        r.drop_caches()
        assert runner.free_count == 0


def test_misplaced_arguments_are_errors_not_ignored(gl):
    img = np.zeros((4, 4, 4), np.uint8)
    with pytest.raises(LaminaInputError, match="device= chooses an OpenCL device"):
        filters.apply(img, "blur(1px)", "gl", device=ocl.select_device())
    with pytest.raises(LaminaInputError, match="renderer= chooses the GL renderer"):
        filters.apply(img, "blur(1px)", "opencl", renderer=gl)


def test_a_blur_whose_tile_would_not_fit_local_memory_runs_untiled():
    """A radius whose local-memory tile passes what every device has (a per-axis SVG
    blur's wide axis) runs filter_blur_wide, reading its taps from the image: the same
    sum, taps past the edge transparent."""
    runner = ocl.default_runner()
    pixels = np.random.default_rng(3).integers(0, 256, (8, 8, 4), dtype=np.uint8)
    blur = BlurPass(("source",), "out", "y", 2000.0, 6000)
    assert blur.cl().kernel == "blur_wide"
    src, dst = runner.upload(pixels), runner.acquire(8, 8)
    try:
        runner.run_pass(blur, [src], dst)
        got = runner.download(dst).astype(np.float64)
    finally:
        runner.release(src)
        runner.release(dst)
    w = blur.weights().astype(np.float32).astype(np.float64)[6000 - 7:6000 + 8]  # taps -7..7 reach the image
    column = pixels.astype(np.float64)
    expected = np.stack([sum(w[7 + i - y] * column[i] for i in range(8)) for y in range(8)])
    assert np.abs(got - np.rint(expected)).max() <= 1


def test_scene_plan_places_filters_without_a_gpu():
    scene = filtered_scene()
    assert all(p.executor == "opencl" for p in scene.plan(filter_backend="opencl").filter_passes())
    auto = scene.plan(filter_backend="auto")
    assert all(p.executor == "gl" for p in auto.filter_passes())
    assert any("auto: no cost model" in d.text for d in auto.decisions)


def test_program_is_built_once_per_device():
    runner = ocl.default_runner()
    assert ocl.default_runner() is runner
    programs = len(ocl._PROGRAMS)
    filters.apply(np.zeros((4, 4, 4), np.uint8), "blur(2px)", "opencl")
    assert len(ocl._PROGRAMS) == programs


def test_device_selection_by_index_text_and_environment(monkeypatch):
    (platform, device), *_ = ocl.list_devices()
    assert ocl.select_device("0:0") == device
    assert ocl.select_device(device.name.strip()[:6].lower()) == device
    with pytest.raises(OpenCLUnavailableError, match=r"no OpenCL device matches device 'nope'; available: 0:0 = "):
        ocl.select_device("nope")
    monkeypatch.setenv(ocl.DEVICE_ENV, "7:7")
    with pytest.raises(OpenCLUnavailableError, match=r"LAMINA_OPENCL_DEVICE='7:7'"):
        ocl.select_device()


def test_no_platform_says_what_to_install(monkeypatch):
    import pyopencl

    def no_platform():
        raise pyopencl.LogicError("clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR")

    monkeypatch.setattr(pyopencl, "get_platforms", no_platform)
    with pytest.raises(OpenCLUnavailableError, match="apt-get install pocl-opencl-icd"):
        ocl.select_device()
    monkeypatch.setattr(ocl, "list_devices", lambda: [])
    with pytest.raises(OpenCLUnavailableError, match="no OpenCL device found; install"):
        ocl.select_device()


def filtered_scene() -> Scene:
    scene = Scene(96, 72, "white")
    scene.root.add(Layer("a", (10, 10, 40, 30), "background: linear-gradient(red, blue); filter: blur(3px) sepia(.5)"))
    scene.root.add(Layer("b", (50, 30, 30, 30), "background: green; border-radius: 8px; filter: drop-shadow(3px 3px 2px black)"))
    return scene


def test_scene_on_opencl_counts_its_transfers(rng):
    scene = filtered_scene()
    with Renderer() as r:
        on_gl = scene.render(r, filter_backend="gl")
        frame = scene.render(r, filter_backend="opencl")
    passes = frame.graph.filter_passes()
    assert passes and all(p.executor == "opencl" for p in passes)
    transfers = frame.graph.transfer_passes()
    by_layer = {layer: [t.direction for t in transfers if t.layer_id == layer] for layer in ("a", "b")}
    assert by_layer == {"a": ["gl->cl", "cl->gl"], "b": ["gl->cl", "cl->gl"]}, "in and out, per filter"
    # Issued so that both filters are on the device before GL waits for the first result.
    assert [t.direction for t in transfers] == ["gl->cl", "gl->cl", "cl->gl", "cl->gl"]
    totals = frame.graph.totals()
    assert totals["transfers"] == 4 and totals["transfer_bytes"] == sum(t.source.bytes for t in transfers)
    assert frame.stats.transfer_bytes == totals["transfer_bytes"] and frame.stats.transfer_ms > 0
    assert np.abs(frame.premultiplied.astype(int) - on_gl.premultiplied.astype(int)).max() <= 1
    report = json.loads(json.dumps(frame.report))
    kinds = [p["kind"] for p in report["graph"]["passes"]]
    assert kinds.count("transfer") == 4
    assert all(p["executor"] == "opencl" for p in report["graph"]["passes"] if p["kind"] == "filter")
    text = frame.explain()
    assert "[OpenCL]" in text and "GL texture -> host -> OpenCL buffer" in text and "4 transfers" in text


def test_cached_filter_result_is_reused_on_opencl_too():
    scene = filtered_scene()
    with Renderer() as r:
        scene.render(r, filter_backend="opencl")
        again = scene.render(r, filter_backend="opencl")
    assert again.graph.filter_passes() == [] and again.graph.transfer_passes() == []


def test_opencl_without_a_device_is_an_error_and_auto_falls_back(monkeypatch):
    def missing():
        raise OpenCLUnavailableError("no OpenCL device found; install an OpenCL driver (simulated)")

    monkeypatch.setattr(ocl, "default_runner", missing)
    scene = filtered_scene()
    with Renderer() as r:
        with pytest.raises(OpenCLUnavailableError, match="simulated"):
            scene.render(r, filter_backend="opencl")
        frame = scene.render(r, filter_backend="auto")
    assert all(p.executor == "gl" for p in frame.graph.filter_passes())
    assert any("auto: no OpenCL" in d.text and "simulated" in d.text for d in frame.graph.decisions)


def model(**overrides) -> CostModel:
    passes = {f"{e}:{k}": (0.1, 1e-5) for e in ("gl", "opencl") for k in backend_mod.KINDS}
    transfers = {"gl->cl": (0.05, 1e-7), "cl->gl": (0.05, 1e-7)}
    for key, value in overrides.items():
        (transfers if "->" in key else passes)[key.replace("_", ":", 1) if "->" not in key else key] = value
    return CostModel("test", passes, transfers)


def test_auto_places_each_pass_where_it_is_cheapest():
    plan = filters.parse("sepia(.5) blur(3px) drop-shadow(2px 2px 1px black)").plan(size=(200, 100))
    cheap_cl = model(**{"opencl_color": (0.0, 1e-8), "opencl_blur": (0.0, 1e-9), "opencl_shadow": (0.0, 1e-8)})
    assert set(place(plan, 200, 100, "auto", cheap_cl).executors) == {"opencl"}
    dear_transfers = model(**{"opencl_blur": (0.0, 1e-9), "gl->cl": (1000.0, 0.0), "cl->gl": (1000.0, 0.0)})
    assert set(place(plan, 200, 100, "auto", dear_transfers).executors) == {"gl"}
    blur_only = model(**{"opencl_blur": (0.0, 1e-9)})
    # (A shadow reading two blurred images would follow them to OpenCL: no transfers.)
    plan = filters.parse("sepia(.5) blur(3px) invert(.2)").plan(size=(200, 100))
    placed = place(plan, 200, 100, "auto", blur_only)
    for step, executor in zip(plan.passes, placed.executors):
        assert (executor == "opencl") == isinstance(step, BlurPass), (step, executor)
    assert "auto placed" in placed.summary and placed.why[0].startswith("auto: gl, est. GL")


def test_auto_is_never_worse_than_either_pure_choice_by_the_model(rng):
    for _ in range(40):
        costs = {f"{e}_{k}": (float(rng.uniform(0, 2)), float(rng.uniform(0, 3e-5)))
                 for e in ("gl", "opencl") for k in backend_mod.KINDS}
        m = model(**costs, **{"gl->cl": (float(rng.uniform(0, 1)), 1e-7), "cl->gl": (float(rng.uniform(0, 1)), 1e-7)})
        chain = rng.choice(CHAINS)
        w, h = (int(v) for v in rng.integers(16, 400, 2))
        plan = filters.parse(chain).plan(size=(w, h))
        placed = place(plan, w, h, "auto", m)
        chosen = _price(plan, w, h, m, placed.executors)
        n = len(plan.passes)
        assert chosen <= _price(plan, w, h, m, ("gl",) * n) + 1e-9
        assert chosen <= _price(plan, w, h, m, ("opencl",) * n) + 1e-9


def test_calibration_is_measured_once_and_cached_on_disk(tmp_path, monkeypatch, gl):
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(backend_mod, "_MODELS", {})
    measured = backend_mod.calibrate(gl, ocl.default_runner(), repeats=2)
    (stored,) = tmp_path.glob("cost-history-*.json")
    assert not (tmp_path / "filter-costs.json").exists()
    history = measured.model
    samples = backend_mod._samples()
    assert history.has_passes(measured.gl, samples) and history.has_passes(measured.opencl, samples)
    assert history.has_copies(measured.gl, measured.opencl) and history.has_copies(measured.opencl, measured.gl)
    sizes = {SizeClass.of(w * h) for w, h in backend_mod.CALIBRATION_SIZES}
    assert {k.size for k in history.passes if k.sample == "color"} == sizes
    assert all(e.ms.count == 2 and e.ms.mean >= 0 for e in history.passes.values()), "the warm-up run is not kept"
    sepia = filters.parse("sepia(.5) brightness(1.2) sepia(.3)").plan(size=(500, 400)).passes[0]
    assert len(sepia.steps) > 1 and measured.pass_ms("gl", sepia, 500, 400) >= measured.pass_ms(
        "gl", filters.parse("sepia(.5)").plan(size=(500, 400)).passes[0], 500, 400)
    monkeypatch.setattr(backend_mod, "_MODELS", {})
    monkeypatch.setattr(backend_mod, "_measure", lambda *a, **k: pytest.fail("measured again instead of loading the cache"))
    assert backend_mod.calibrate(gl, ocl.default_runner()) == measured
    assert stored.is_file()


@pytest.mark.opencl  # the CLI turns the missing device into an exit status
def test_scene_files_and_cli(tmp_path, capsys):
    data = {"width": 64, "height": 48, "filter_backend": "opencl",
            "layers": [{"id": "a", "box": [8, 8, 30, 20], "style": "background: red; filter: blur(2px)"}]}
    scene = scene_from_dict(data)
    assert scene.filter_backend == "opencl" and scene.to_dict()["filter_backend"] == "opencl"
    with pytest.raises(SceneFileError, match=r"\$\.filter_backend: filter_backend must be one of gl, opencl, auto"):
        scene_from_dict({**data, "filter_backend": "cuda"})
    with pytest.raises(LaminaInputError, match="unknown filter backend 'cuda'"):
        scene.render(filter_backend="cuda")
    path = tmp_path / "s.json"
    path.write_text(json.dumps({**data, "filter_backend": "gl"}))
    assert main(["explain", str(path), "--filter-backend", "opencl"]) == 0
    out = capsys.readouterr().out
    assert "[OpenCL]" in out and "OpenCL buffer -> host -> GL texture" in out
    assert main(["info", "--opencl"]) == 0
    assert capsys.readouterr().out.startswith("* 0:0  ")


@pytest.mark.opencl  # the CLI turns the missing device into an exit status
def test_info_lists_devices_even_with_a_bad_selection(monkeypatch, capsys):
    monkeypatch.setenv(ocl.DEVICE_ENV, "9:9")
    assert main(["info", "--opencl"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("(none selected: no OpenCL device matches LAMINA_OPENCL_DEVICE='9:9'") and "  0:0  " in out


def test_golden_scenes_render_alike_on_opencl(gl):
    from pathlib import Path

    for path in sorted((Path(__file__).parents[1] / "scenes").glob("filter-*.json")):
        scene = load_scene(path)
        a = scene.render(gl, filter_backend="opencl").premultiplied.astype(int)
        b = scene.render(gl, filter_backend="gl").premultiplied.astype(int)
        assert np.abs(a - b).max() <= 1, path.name


def test_use_device_chooses_the_device_scenes_use(monkeypatch):
    (_, device), *_ = ocl.list_devices()
    try:
        ocl.use_device("0:0")
        assert ocl.default_runner().device == device
        with Renderer() as r:
            frame = filtered_scene().render(r, filter_backend="opencl")
            assert r.executor.opencl_runner.device == device and frame.graph.transfer_passes()
        with pytest.raises(OpenCLUnavailableError, match="no OpenCL device matches device 'nope'"):
            ocl.use_device("nope")
    finally:
        ocl.use_device(None)
    monkeypatch.setenv(ocl.DEVICE_ENV, "8:8")
    with pytest.raises(OpenCLUnavailableError, match="LAMINA_OPENCL_DEVICE='8:8'"):
        ocl.default_runner()
