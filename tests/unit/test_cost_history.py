"""The history cost model (issue 22, item 2), without a GPU: Welford updates against
hand-computed means and variances, size classes, prediction between and beyond classes,
the stored form and its invalidation, corrupt and foreign files, and ``auto`` placing by
it as by the linear model where the two hold the same data."""

from __future__ import annotations

import json
import math
import warnings
from types import SimpleNamespace

import pytest

import lamina.gpu.calibrate as calibrate_mod
from lamina import filters
from lamina.cost_history import (COLOR_SAMPLE_STEPS, DeviceCosts, Entry, HistoryModel, ModelFormatError, PassKey,
                                 Sample, SizeClass, Stats)
from lamina.cost_store import CostModelWarning, LoadStatus, Stamp, load, save, store_path
from lamina.errors import LaminaInputError
from lamina.filter_costs import KINDS, CostModel, _price, place, work_units
from lamina.filters.plan import PassKind
from lamina.request import FrameRequest

GL, CL = "gl:Mesa / llvmpipe", "opencl:PoCL / cpu"
FINGERPRINT = {"GL_RENDERER": "llvmpipe (LLVM 15)", "GL_VERSION": "4.5 (Core Profile) Mesa 22.3.6"}
STAMP = Stamp(FINGERPRINT, "", {GL: FINGERPRINT["GL_VERSION"], CL: "3.1"})


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_welford_updates_give_the_hand_computed_mean_and_sample_variance():
    s = Stats()
    for x in (2, 4, 4, 4, 5, 5, 7, 9):
        s = s.add(x)
    # mean 40 / 8 = 5; squared deviations 9+1+1+1+0+0+4+16 = 32; sample variance 32 / 7.
    assert (s.count, s.mean, s.m2) == (8, 5.0, 32.0)
    assert s.variance == pytest.approx(32 / 7) and s.std == pytest.approx(math.sqrt(32 / 7))
    assert Stats().variance == 0.0 and Stats().add(3.0).variance == 0.0, "no spread below two samples"
    one = Stats().add(1e9 + 4).add(1e9 + 7).add(1e9 + 13).add(1e9 + 16)
    assert one.variance == pytest.approx(30.0), "stable where sums of squares would cancel"


def test_size_classes_are_powers_of_two_of_work():
    assert SizeClass.of(65536) == SizeClass(16) and SizeClass.of(65535) == SizeClass(15)
    assert SizeClass.of(1) == SizeClass.of(0) == SizeClass.of(0.5) == SizeClass(0)
    assert SizeClass(16).bounds == (65536, 131072) and SizeClass(3) < SizeClass(4)
    model = HistoryModel().observe_pass(Sample("blur"), GL, 70000, 1.0).observe_pass(Sample("blur"), GL, 100000, 3.0)
    (key,) = model.passes
    assert key == PassKey(Sample("blur"), GL, SizeClass(16)), "both sizes fall in one class"
    entry = model.passes[key]
    assert (entry.ms.count, entry.ms.mean, entry.units.mean) == (2, 2.0, 85000.0)
    assert model.observe_pass(Sample("blur"), CL, 70000, 1.0).devices() == {GL, CL}


def _line(fixed: float, per: float, sizes=(65536.0, 1048576.0), sample=Sample("blur"), device=GL, model=None):
    model = model or HistoryModel()
    for u in sizes:
        model = model.observe_pass(sample, device, u, fixed + per * u)
    return model


def test_prediction_follows_the_measured_classes_and_their_line_beyond():
    model = _line(1.0, 1e-5)
    for units in (1000.0, 65536.0, 300000.0, 1048576.0, 5e6):
        assert model.predict(Sample("blur"), GL, units).mean == pytest.approx(1.0 + 1e-5 * units)
    assert model.predict(Sample("blur"), GL, 70000).exact and not model.predict(Sample("blur"), GL, 300000).exact
    # Three classes: piecewise between them.
    bent = model.observe_pass(Sample("blur"), GL, 262144, 10.0)
    assert bent.predict(Sample("blur"), GL, 262144).mean == pytest.approx(10.0)
    mid = (65536 + 262144) / 2
    assert bent.predict(Sample("blur"), GL, mid).mean == pytest.approx((1.0 + 1e-5 * 65536 + 10.0) / 2)
    # Slopes and intercepts are clamped at zero, as the linear fit was.
    falling = _line(5.0, -1e-6)
    assert falling.predict(Sample("blur"), GL, 1e7).mean == pytest.approx(5.0 - 1e-6 * 65536)
    with pytest.raises(KeyError):
        model.predict(Sample("blur"), CL, 1000)


def test_the_spread_travels_with_the_prediction():
    model = HistoryModel()
    for ms in (9.0, 10.0, 11.0):
        model = model.observe_pass(Sample("blur"), GL, 1 << 20, ms)
    est = model.predict(Sample("blur"), GL, 1 << 20)
    assert (est.mean, est.std, est.samples, est.exact) == (10.0, 1.0, 3, True)
    assert model.predict(Sample("blur"), GL, 1 << 19).std == pytest.approx(0.5), "in proportion to the mean"


def _history_of(linear: CostModel, devices=(GL, CL)) -> HistoryModel:
    """The history a calibration would record where each pass costs exactly what
    ``linear`` says (one sample at each calibration size)."""
    model = HistoryModel()
    for sample, step in calibrate_mod._samples().items():
        for w, h in calibrate_mod.CALIBRATION_SIZES:
            for executor, device in zip(("gl", "opencl"), devices):
                model = model.observe_pass(sample, device, work_units(step, w, h), linear.pass_ms(executor, step, w, h))
    for w, h in calibrate_mod.CALIBRATION_SIZES:
        n = w * h * 4
        model = model.observe_copy(devices[0], devices[1], n, linear.transfer_ms("gl->cl", n))
        model = model.observe_copy(devices[1], devices[0], n, linear.transfer_ms("cl->gl", n))
    return model


CHAINS = ("sepia(.5) blur(3px) drop-shadow(2px 2px 1px black)", "blur(12px) grayscale(1)",
          "invert(.2) hue-rotate(30deg) saturate(2) contrast(1.3)", "drop-shadow(0 0 6px red) brightness(1.1)")


def test_auto_places_by_the_history_model_as_by_the_linear_model_holding_the_same_data(rng):
    """The same decisions where the data agrees: a history calibrated from a linear model
    predicts what it does, and auto places every chain the same."""
    for _ in range(25):
        costs = {f"{e}:{k}": (float(rng.uniform(0, 2)), float(rng.uniform(0, 3e-5))) for e in ("gl", "opencl") for k in KINDS}
        costs.update({f"{e}:color_step": (0.0, float(rng.uniform(0, 5e-6))) for e in ("gl", "opencl")})
        linear = CostModel("linear", costs, {"gl->cl": (float(rng.uniform(0, 1)), 1e-7), "cl->gl": (float(rng.uniform(0, 1)), 1e-7)})
        history = DeviceCosts(_history_of(linear), GL, CL)
        chain = CHAINS[int(rng.integers(len(CHAINS)))]
        w, h = (int(v) for v in rng.integers(64, 900, 2))
        plan = filters.parse(chain).plan(size=(w, h))
        for step in plan.passes:
            for e in ("gl", "opencl"):
                assert history.pass_ms(e, step, w, h) == pytest.approx(linear.pass_ms(e, step, w, h), rel=1e-9, abs=1e-9)
        assert history.transfer_ms("gl->cl", w * h * 4) == pytest.approx(linear.transfer_ms("gl->cl", w * h * 4))
        by_history, by_linear = place(plan, w, h, "auto", history), place(plan, w, h, "auto", linear)
        assert by_history.executors == by_linear.executors
        assert _price(plan, w, h, history, by_history.executors) <= _price(plan, w, h, history, ("gl",) * len(plan.passes)) + 1e-9


def test_a_fused_colour_pass_costs_what_each_measured_step_adds():
    one, many = Sample(PassKind.COLOR), Sample(PassKind.COLOR, COLOR_SAMPLE_STEPS)
    model = _line(0.5, 1e-6, sample=one, model=_line(0.5, 8e-6, sample=many))
    sepia = filters.parse("sepia(.5) brightness(1.2) sepia(.3)").plan(size=(500, 400)).passes[0]
    n = len(sepia.steps)
    px = work_units(sepia, 500, 400)
    expected = 0.5 + 1e-6 * px + (7e-6 * px / (COLOR_SAMPLE_STEPS - 1)) * (n - 1)
    assert model.predict_pass(GL, sepia, 500, 400).mean == pytest.approx(expected)


def test_a_frame_request_takes_the_history_view_and_refuses_other_objects():
    costs = DeviceCosts(_line(0.0, 1e-6), GL, CL)
    assert FrameRequest(cost_model=costs).cost_model is costs
    with pytest.raises(LaminaInputError, match="cost_model must be a cost model"):
        FrameRequest(cost_model={"gl:blur": (0, 1)})


# -- stored between processes -------------------------------------------------------------

def test_the_stored_model_round_trips_and_is_written_whole(cache):
    model = _history_of(CostModel("x", {f"{e}:{k}": (0.1, 1e-6) for e in ("gl", "opencl") for k in KINDS},
                                  {"gl->cl": (0.05, 1e-8), "cl->gl": (0.05, 1e-8)}))
    model = model.observe_pass(Sample("blur"), GL, 256 * 256 * 13, 4.0)  # a second sample at 256x256: a spread
    path = save(model, STAMP)
    assert path == store_path(FINGERPRINT) and path.parent == cache
    assert [p.name for p in cache.iterdir()] == [path.name], "no temporary file left behind"
    loaded = load(STAMP)
    assert loaded.status is LoadStatus.LOADED and loaded.model == model
    assert HistoryModel.from_dict(json.loads(json.dumps(model.to_dict()))) == model
    entry = loaded.model.passes[PassKey(Sample("blur"), GL, SizeClass(19))]
    assert isinstance(entry, Entry) and entry.ms.count == 2 and entry.ms.variance > 0


def test_a_new_driver_or_renderer_invalidates_what_it_measured(cache):
    model = _line(1.0, 1e-6, device=GL, model=_line(2.0, 1e-6, device=CL)).observe_copy(GL, CL, 1 << 20, 0.2)
    save(model, STAMP)
    new_mesa = {**FINGERPRINT, "GL_VERSION": "4.5 (Core Profile) Mesa 24.0.1"}
    stale = load(Stamp(new_mesa, "", STAMP.drivers))
    assert stale.status is LoadStatus.STALE and not stale.model.passes and "GL_VERSION" in stale.reason
    other_gpu = load(Stamp({**FINGERPRINT, "GL_RENDERER": "NVIDIA H200"}, "", STAMP.drivers))
    assert other_gpu.status is LoadStatus.MISSING, "another renderer's file"
    threads = load(Stamp(FINGERPRINT, "LP_NUM_THREADS=1", STAMP.drivers))
    assert threads.status is LoadStatus.STALE and "thread" in threads.reason
    new_pocl = load(Stamp(FINGERPRINT, "", {**STAMP.drivers, CL: "6.0"}))
    assert new_pocl.status is LoadStatus.LOADED and "driver '3.1' -> '6.0'" in new_pocl.reason
    assert new_pocl.model.devices() == {GL}, "only the device whose driver changed is measured again"
    assert not new_pocl.model.copies and CL not in new_pocl.drivers
    assert load(STAMP).model == model, "loading invalidates nothing on disk by itself"


@pytest.mark.parametrize("text, status", [
    ("{not json", LoadStatus.CORRUPT),
    ('{"format": "lamina-cost-hist', LoadStatus.CORRUPT),
    ("[1, 2, 3]", LoadStatus.FOREIGN),
    ('{"label": "llvmpipe", "passes": {}, "transfers": {}}', LoadStatus.FOREIGN),
    ('{"format": "lamina-cost-history", "version": 99}', LoadStatus.FOREIGN),
    ('{"format": "lamina-cost-history", "version": 1, "stamp": {}}', LoadStatus.CORRUPT),
], ids=["not-json", "truncated", "a-list", "the-old-linear-model", "a-future-version", "no-model"])
def test_a_corrupt_or_foreign_file_is_ignored_with_a_warning(cache, text, status):
    store_path(FINGERPRINT).write_text(text, encoding="utf-8")
    with pytest.warns(CostModelWarning, match="ignored, measured again"):
        loaded = load(STAMP)
    assert loaded.status is status and loaded.model == HistoryModel()


def test_a_stored_entry_with_impossible_statistics_is_refused(cache):
    save(_line(1.0, 1e-6), STAMP)
    data = json.loads(store_path(FINGERPRINT).read_text(encoding="utf-8"))
    data["model"]["passes"][0]["n"] = 0
    store_path(FINGERPRINT).write_text(json.dumps(data), encoding="utf-8")
    with pytest.warns(CostModelWarning, match="damaged"):
        assert load(STAMP).status is LoadStatus.CORRUPT
    with pytest.raises(ModelFormatError):
        HistoryModel.from_dict({"passes": [{"sample": "sharpen", "device": GL, "size_class": 3}], "copies": []})


def test_an_unwritable_cache_folder_warns_and_keeps_the_model_in_memory(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("", encoding="utf-8")
    monkeypatch.setenv("LAMINA_CACHE_DIR", str(tmp_path / "file" / "lamina"))  # under a file: mkdir fails
    with pytest.warns(CostModelWarning, match="kept in memory"):
        assert save(_line(1.0, 1e-6), STAMP) is None


def _fake_runner(driver: str = "3.1"):
    platform = SimpleNamespace(name="PoCL")
    device = SimpleNamespace(name="cpu", platform=platform, driver_version=driver, type=2, max_compute_units=2,
                             extensions="cl_khr_fp64")
    return SimpleNamespace(device=device, label="PoCL / cpu")


def _fake_renderer(fingerprint=FINGERPRINT):
    info = SimpleNamespace(renderer=fingerprint["GL_RENDERER"], vendor="Mesa", version=fingerprint["GL_VERSION"],
                           fingerprint=fingerprint)
    return SimpleNamespace(info=info)  # no .gpu: measuring instead of loading fails


def test_calibration_loads_a_complete_stored_model_without_touching_the_gpu(cache, monkeypatch):
    monkeypatch.setattr(calibrate_mod, "_MODELS", {})
    for var in ("LP_NUM_THREADS", "POCL_MAX_PTHREAD_COUNT"):
        monkeypatch.delenv(var, raising=False)
    gl_id, cl_id = "gl:Mesa / llvmpipe (LLVM 15)", "opencl:PoCL / cpu"
    linear = CostModel("x", {f"{e}:{k}": (0.1, 1e-6) for e in ("gl", "opencl") for k in KINDS},
                       {"gl->cl": (0.05, 1e-8), "cl->gl": (0.05, 1e-8)})
    save(_history_of(linear, (gl_id, cl_id)), Stamp(FINGERPRINT, "", {gl_id: FINGERPRINT["GL_VERSION"], cl_id: "3.1"}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        costs = calibrate_mod.calibrate(_fake_renderer(), _fake_runner())
    assert (costs.gl, costs.opencl) == (gl_id, cl_id)
    blur = filters.parse("blur(2px)").plan(size=(300, 200)).passes[0]
    assert costs.pass_ms("opencl", blur, 300, 200) == pytest.approx(linear.pass_ms("opencl", blur, 300, 200))
    monkeypatch.setattr(calibrate_mod, "_MODELS", {})
    with pytest.raises(AttributeError, match="gpu"):  # a new PoCL: its passes are measured (on the GPU)
        calibrate_mod.calibrate(_fake_renderer(), _fake_runner(driver="6.0"))
