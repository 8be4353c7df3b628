"""``lamina`` CLI on bad input, run in-process. Loading fails before any GPU work, so these
never create a GL context (a test that did would fail with EGL missing, not exit 2)."""

from __future__ import annotations

import json

import pytest

import lamina.renderer
from lamina.cli import EXIT_BAD_INPUT, main


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    """Fail loudly if anything tries to create the renderer."""

    def refuse():
        raise AssertionError("the CLI touched the GPU for input that should fail to load")

    monkeypatch.setattr(lamina.renderer, "default_renderer", refuse)


def run_bad(capsys, argv, *fragments):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_INPUT == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert err.endswith("\n")
    assert lines[0].startswith("lamina: error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("command", ["render", "explain"])
def test_missing_file(capsys, tmp_path, command):
    path = tmp_path / "nope.json"
    line = run_bad(capsys, [command, str(path)], str(path), "file not found")
    assert line == f"lamina: error: {path}: $: file not found"


@pytest.mark.parametrize("command", [["render"], ["explain"], ["explain", "--json"]])
def test_malformed_json(capsys, tmp_path, command):
    path = tmp_path / "bad.json"
    path.write_text('{"width": 10,\n "height": }', encoding="utf-8")
    run_bad(capsys, [*command, str(path)], str(path), "invalid JSON", "line 2 column")


def test_render_with_output_and_report_options_still_fails_on_load(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("[]", encoding="utf-8")
    out_png = tmp_path / "out.png"
    run_bad(capsys, ["render", str(path), "-o", str(out_png), "--explain", "--report", str(tmp_path / "r.json")],
            "a scene must be a JSON object")
    assert not out_png.exists()


def test_bad_style(capsys, tmp_path):
    path = tmp_path / "style.json"
    path.write_text(json.dumps({"width": 10, "height": 10,
                                "layers": [{"id": "card", "style": "color: red;\n opacity: half"}]}), encoding="utf-8")
    run_bad(capsys, ["render", str(path)], "$.layers[0].style", "'card'", "opacity", "line 2", "column")


def test_bad_style_value_in_dict(capsys, tmp_path):
    path = tmp_path / "style.json"
    path.write_text(json.dumps({"width": 10, "height": 10,
                                "layers": [{"id": "a", "style": {"transform": "spin(3)"}}]}), encoding="utf-8")
    run_bad(capsys, ["explain", str(path)], "$.layers[0].style.transform")


def test_schema_error(capsys, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"width": 0, "height": 10}), encoding="utf-8")
    run_bad(capsys, ["render", str(path)], "$.width")


def test_non_utf8_file(capsys, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"width": 10, "height": 10, "background": "é"}'.encode("latin-1"))
    run_bad(capsys, ["render", str(path)], "cannot read")


@pytest.mark.parametrize("argv", [["paint", "x.json"], [], ["render"], ["render", "a.json", "--bogus"]])
def test_usage_errors_exit_2_via_argparse(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert "usage: lamina" in err
    assert "Traceback" not in err


def test_help_exits_0(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out, _ = capsys.readouterr()
    assert "render" in out and "explain" in out and "info" in out


@pytest.mark.parametrize("command", [["render"], ["explain"], ["explain", "--plan-only"]])
@pytest.mark.parametrize("placement, words", [
    ("fastest", ("unknown placement 'fastest'", "all-opencl, alternate")),
    ("random:x", ("seed must be a whole number", "'x'")),
    ("alternate:2", ("placement 'alternate' draws nothing: it takes no seed",)),
])
def test_a_bad_placement_is_named_before_any_work(capsys, command, placement, words):
    run_bad(capsys, [*command, "tests/scenes/filter-blur-small.json", "--placement", placement], *words)


def test_a_placement_beside_another_filter_backend_is_refused(capsys):
    run_bad(capsys, ["render", "tests/scenes/filter-blur-small.json", "--placement", "alternate",
                     "--filter-backend", "opencl"], "placement 'alternate' forces where each filter pass runs")
