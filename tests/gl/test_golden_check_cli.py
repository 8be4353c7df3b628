"""``lamina check DIR``: golden testing without pytest."""

from __future__ import annotations

import json

import pytest

from lamina.cli import main


def scene(colour: str, **golden) -> dict:
    data = {"width": 32, "height": 24, "background": "white",
            "layers": [{"id": "a", "box": [4, 4, 20, 12], "style": f"background: {colour}; border-radius: 4px"}]}
    if golden:
        data["golden"] = golden
    return data


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "scenes"
    d.mkdir()
    (d / "red.json").write_text(json.dumps(scene("red")))
    (d / "blue.json").write_text(json.dumps(scene("blue")))
    return d


def run(capsys, *args):
    code = main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_check_update_and_fail(folder, tmp_path, capsys):
    results = tmp_path / "results"
    code, out, err = run(capsys, folder, "--results", results)
    assert code == 1 and out.count("no golden") == 2
    assert err == "", "no progress bar where stderr is not a terminal (a CI log)"
    code, out, err = run(capsys, folder, "--results", results, "--progress", "always")
    assert "[############################] 2/2" in err, "a progress bar when asked for"

    code, out, _ = run(capsys, folder, "--update", "--results", results)
    assert code == 0 and "2 written" in out
    assert sorted(p.name for p in (folder / "goldens").iterdir()) == ["blue.png", "red.png"]
    code, out, _ = run(capsys, folder, "--results", results)
    assert code == 0 and "2 passed" in out

    (folder / "red.json").write_text(json.dumps(scene("rgb(254 0 0)")))
    code, out, _ = run(capsys, folder, "--results", results)
    lines = out.splitlines()
    assert code == 1 and lines[0].split() == ["scene", "result", "max", "diff", "rgb/a", "pixels"]
    (red,) = [line for line in lines if line.startswith("red ")]
    assert red.split()[:3] == ["red", "failed", "1/0"] and 200 < int(red.split()[3]) <= 240, red
    (artefacts,) = results.glob("scenes_red-*")
    assert (artefacts / "diff.png").is_file()
    assert "lamina check" in (results / "report.html").read_text() and "--only red" in (results / "report.html").read_text()
    assert run(capsys, folder, "--results", results, "--max-diff", "0-1", "--max-pixels", "0-300")[0] == 0

    code, out, _ = run(capsys, folder, "--update", "--only", "red", "--results", results)
    assert code == 0 and "1 updated" in out
    assert not artefacts.exists(), "stale artefacts removed"


def test_scene_files_carry_time_policy_and_tolerance(folder, tmp_path, capsys):
    moving = scene("green", t=0.5, policy="all", max_diff="0-1", max_pixels="0-400")
    moving["layers"][0]["animations"] = [{"keyframes": {"from": {"transform": "translateX(0)"}, "to": {"transform": "translateX(8px)"}}, "duration": 1}]
    (folder / "moving.json").write_text(json.dumps(moving))
    assert run(capsys, folder, "--update", "--only", "moving", "--results", tmp_path / "r")[0] == 0
    from lamina import load_scene

    frame = load_scene(folder / "moving.json").render(t=0.5, policy="all")
    from lamina.golden.store import read_golden

    pixels, _ = read_golden(folder / "goldens" / "moving.png")
    assert (pixels == frame.premultiplied).all(), "rendered at the scene's own time"
    moving["layers"][0]["style"] = "background: rgb(0 129 0); border-radius: 4px"
    (folder / "moving.json").write_text(json.dumps(moving))
    assert run(capsys, folder, "--only", "moving", "--results", tmp_path / "r")[0] == 0, "within the scene's own ranges"


def test_bad_input_exits_2(folder, tmp_path, capsys):
    assert run(capsys, tmp_path / "nope")[0] == 2
    assert run(capsys, folder, "--only", "green")[0] == 2
    assert run(capsys, folder, "--max-diff", "5-1")[0] == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, empty)
    assert code == 2 and "no scene files" in err


def test_a_scene_that_does_not_render_is_reported(folder, tmp_path, capsys):
    (folder / "broken.json").write_text(json.dumps({"width": 8, "height": 8, "layers": [{"id": "x", "box": [0, 0, 8, 8], "style": "background-image: url(missing.png)"}]}))
    code, out, _ = run(capsys, folder, "--update", "--results", tmp_path / "r")
    assert code == 1 and "cannot render" in out
    assert "missing.png" in (tmp_path / "r" / "report.html").read_text()


def test_one_bad_scene_name_does_not_stop_the_run_and_orphans_are_listed(folder, tmp_path, capsys):
    assert run(capsys, folder, "--update", "--results", tmp_path / "r")[0] == 0
    (folder / "b c.json").write_text(json.dumps(scene("green")))
    (folder / "goldens" / "gone.png").write_bytes((folder / "goldens" / "red.png").read_bytes())
    code, out, _ = run(capsys, folder, "--results", tmp_path / "r")
    assert code == 1 and "2 passed" in out and "cannot check: golden name 'b c'" in out
    assert "goldens without a scene (delete them?): gone" in out
