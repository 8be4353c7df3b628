"""The CLI's rough edges a new user hits (issue 14): where render writes by default,
the check command's hints and repeatable --only, refused non-PNG names, --version and
-t/--time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lamina import Scene
from lamina.cli import main
from lamina.errors import LaminaInputError
from lamina.version import __version__


def _scene_file(folder: Path, name: str = "card", color: str = "red") -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"lamina": 1, "width": 20, "height": 10, "background": "white",
                                "layers": [{"id": "c", "box": [2, 2, 8, 6], "style": f"background: {color}",
                                            "animations": [{"keyframes": {"from": {"opacity": "1"}, "to": {"opacity": "0"}},
                                                            "duration": 2}]}]}))
    return path


def test_render_without_output_writes_into_the_current_folder_not_beside_the_scene(gl, tmp_path, monkeypatch):
    scenes, here = tmp_path / "scenes", tmp_path / "here"
    scenes.mkdir(), here.mkdir()
    scene = _scene_file(scenes)
    (scenes / "card.png").write_bytes(b"tracked picture")
    monkeypatch.chdir(here)
    assert main(["render", str(scene)]) == 0
    assert (here / "card.png").is_file()
    assert (scenes / "card.png").read_bytes() == b"tracked picture"


@pytest.mark.parametrize("name", ["x.jpg", "x.JPEG", "x.webp", "x"])
def test_a_name_that_is_not_png_is_refused(gl, tmp_path, capsys, name):
    scene = _scene_file(tmp_path)
    assert main(["render", str(scene), "-o", str(tmp_path / name)]) == 2
    assert "PNG files only" in capsys.readouterr().err
    assert not (tmp_path / name).exists()
    frame = Scene(4, 4).render(gl)
    with pytest.raises(LaminaInputError, match="PNG files only"):
        frame.save(tmp_path / name)


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"lamina {__version__}"


@pytest.mark.parametrize("flag", ["-t", "--time", "--t"])
def test_time_flag_spellings(gl, tmp_path, flag):
    scene = _scene_file(tmp_path)
    out = tmp_path / "half.png"
    assert main(["render", str(scene), "-o", str(out), flag, "1", "--report", str(tmp_path / "r.json")]) == 0
    from PIL import Image

    pixel = Image.open(out).getpixel((5, 5))
    assert pixel[0] == 255 and 120 <= pixel[1] <= 135, "opacity 0.5 at t=1 s: half red over white"


def test_check_only_is_repeatable_and_its_hint_names_the_cli_flag(gl, tmp_path, capsys):
    for name in ("a", "b", "c"):
        _scene_file(tmp_path, name)
    code = main(["check", str(tmp_path), "--only", "a", "--only", "b", "--results", str(tmp_path / "res")])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 1
    rows = [line.split()[0] for line in out.out.splitlines()[1:] if line.split() and line.split()[1] == "failed"]
    assert rows == ["a", "b"], "both --only names are checked, and nothing else"
    assert "--golden-update" not in text and "make it with lamina check --update" in text
