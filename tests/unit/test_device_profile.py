"""Device profiles and the simulator (issue 22, item 6), without a GPU: the shipped
profiles parse, bad ones are DeviceProfileErrors naming the key, a recorded profile
reads back, and ``lamina schedule`` prints the Gantt chart and the makespans."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import lamina.renderer
from lamina.cost_history import HistoryModel, Sample
from lamina.device_profile import load_profile, parse_profile, record_profile
from lamina.devices import Device
from lamina.errors import DeviceProfileError, LaminaInputError
from lamina.filters.plan import PassKind
from lamina.cli import main
from lamina.simulate import simulate
from lamina import load_scene

ROOT = Path(__file__).resolve().parents[2]
PROFILES = sorted((ROOT / "profiles").glob("*.json"))
SCENE = ROOT / "tests/scenes/filter-drop-shadow.json"


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    def refuse():
        raise AssertionError("simulating touched the GPU")
    monkeypatch.setattr(lamina.renderer, "default_renderer", refuse)


def base() -> dict:
    return json.loads((ROOT / "profiles/cpu-8-core.json").read_text())


def test_the_shipped_profiles_parse_and_say_they_are_illustrative():
    assert len(PROFILES) == 3
    for path in PROFILES:
        p = load_profile(path)
        assert p.devices[0].kind == "gl" and len(p.devices) >= 2
        assert "illustrative" in p.note


def test_hand_speeds_give_launch_plus_units_over_speed():
    p = parse_profile(base())
    blur = p.model.predict(Sample(PassKind.BLUR), "pocl", 1e6).mean
    assert blur == pytest.approx(0.15 + 1e6 / (1700 * 1000))
    costs = p.costs()
    assert costs.copy_ms(0, 1, 4_000_000) == pytest.approx(0.05 + 4e6 / 20e9 * 1000)


@pytest.mark.parametrize("edit, key", [
    (lambda d: d["devices"][1]["speeds"].update(blurr=10), "$.devices[1].speeds.blurr"),
    (lambda d: d.update(extra=1), "$.extra"),
    (lambda d: d["devices"][0].update(colour="red"), "$.devices[0].colour"),
    (lambda d: d["devices"][1]["speeds"].update(blur=-5), "$.devices[1].speeds.blur"),
    (lambda d: d["devices"][1]["speeds"].update(color=0), "$.devices[1].speeds.color"),
    (lambda d: d["devices"][1].update(launch_ms=-1), "$.devices[1].launch_ms"),
    (lambda d: d["transfers"][0].update(to="gpu9"), "$.transfers[0].to"),
    (lambda d: d["transfers"][1].update(gb_per_s="fast"), "$.transfers[1].gb_per_s"),
    (lambda d: d["transfers"].pop(), "$.transfers"),
    (lambda d: d["devices"].pop(0), "$.devices"),
    (lambda d: d["devices"][1].pop("speeds"), "$.devices[1].speeds"),
    (lambda d: d["devices"][1].update(kind="cuda"), "$.devices[1].kind"),
    (lambda d: d["devices"][1]["speeds"].update(raster=10), "$.devices[1].speeds.raster"),  # GL-only kinds on GL only
    (lambda d: d.update(lamina_profile=2), "$.lamina_profile"),
])
def test_a_bad_profile_is_a_typed_error_naming_the_key(edit, key):
    data = base()
    edit(data)
    with pytest.raises(DeviceProfileError) as err:
        parse_profile(data, file="p.json")
    assert err.value.key == key and key in str(err.value) and str(err.value).startswith("p.json: ")
    assert isinstance(err.value, LaminaInputError)


def test_a_history_entry_naming_no_device_is_an_error():
    data = base()
    data["history"] = HistoryModel().observe_pass(Sample(PassKind.BLUR), "elsewhere", 1000, 1.0).to_dict()
    with pytest.raises(DeviceProfileError, match=r"\$\.history\.passes\[0\]\.device"):
        parse_profile(data)


def test_a_recorded_profile_reads_back():
    gl = Device("gl", "llvmpipe", "Mesa", "4.5 Mesa 22")
    cl = Device("opencl", "pthread-cpu", "Portable Computing Language", "3.1", "0:0", "cpu", 2)
    m = HistoryModel()
    for units, ms in ((65536, 1.0), (1 << 20, 10.0)):
        for kind in PassKind:
            for dev in (gl, cl):
                m = m.observe_pass(Sample(kind), dev.id, units, ms)
        m = m.observe_pass(Sample(PassKind.COLOR, 8), gl.id, units, ms * 2).observe_pass(Sample(PassKind.COLOR, 8), cl.id, units, ms)
        m = m.observe_copy(gl.id, cl.id, units * 4, 0.1).observe_copy(cl.id, gl.id, units * 4, 0.1)
    m = m.observe_pass(Sample(PassKind.BLUR), "opencl:gone / old device", 1000, 1.0)  # not listed: left out
    data = json.loads(json.dumps(record_profile((gl, cl), m, name="here", recorded={"renderer": "llvmpipe"})))
    p = parse_profile(data)
    assert p.keys == (gl.id, cl.id) and p.names == ("GL", "OpenCL 0:0")
    assert p.model.predict(Sample(PassKind.BLUR), cl.id, 1 << 20).mean == pytest.approx(10.0)


def test_simulate_schedules_a_scene_on_each_profile():
    for path in PROFILES:
        sim = simulate(load_scene(SCENE), path)
        s = sim.schedule
        assert s.devices == load_profile(path).names
        assert {"greedy", "all GL", "all OpenCL"} <= {k for k, _ in s.baselines}
        assert s.makespan_ms > 0 and s.makespan_ms <= s.baseline("all GL") * 1.5
        text = sim.text()
        assert "HEFT" in text and all(d in text for d in s.devices)


def test_lamina_schedule_prints_the_gantt_chart_and_makespans(capsys, tmp_path):
    out = tmp_path / "gantt.png"
    assert main(["schedule", str(SCENE), "--devices", str(ROOT / "profiles/discrete-gpu-cpu-opencl.json"),
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    for fragment in ("GL dGPU", "OpenCL dGPU", "OpenCL CPU", "copies", "HEFT", "greedy", "all GL", "all OpenCL",
                     "Makespans (predicted)", "wrote the Gantt chart"):
        assert fragment in text
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["schedule", str(SCENE), "--devices", str(ROOT / "profiles/integrated-gpu.json"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schedule"]["makespan_ms"] > 0 and len(data["schedule"]["slots"]) > 0


def test_lamina_schedule_refuses_a_bad_profile(capsys, tmp_path):
    bad = base()
    bad["devices"][1]["speeds"]["blur"] = -1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert main(["schedule", str(SCENE), "--devices", str(path)]) == 2
    err = capsys.readouterr().err
    assert "$.devices[1].speeds.blur" in err and "positive" in err and "Traceback" not in err


def test_every_hand_written_profile_prices_every_filter_pass_kind_on_gl():
    """A pass kind the GL device has no speed for cannot be placed anywhere in a simulated
    frame (HEFT: no finite cost); a new kind (an SVG primitive's pass) must come with a
    speed in each profile of profiles/, else `lamina schedule` fails on scenes that use it."""
    import json
    from pathlib import Path
    from lamina.filters.plan import PassKind
    for path in sorted((Path(__file__).resolve().parents[2] / "profiles").glob("*.json")):
        gl = next(d for d in json.loads(path.read_text())["devices"] if d["kind"] == "gl")
        missing = {k.value for k in PassKind} - set(gl["speeds"])
        assert not missing, f"{path.name}: GL has no speed for {sorted(missing)}"
