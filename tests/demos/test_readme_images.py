"""The README's pictures are what their commands make now (``python -m demos.readme_images
--check``, one picture per test), every picture the README shows is made by an entry or
is a golden image, and the check finds what it is meant to find."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from lamina import renderer_info
from lamina.fuzzy import Tolerance
from lamina.golden.store import STRICT_ENV as GOLDEN_STRICT
from lamina.golden.store import Fingerprint, read_golden
from PIL import Image

import demos.readme_images as readme_images
from demos.chromium import INSTALL_HINT, find_chromium
from demos.readme_images import (
    IMAGES,
    ReadmeImage,
    ReadmeImageError,
    Region,
    check,
    compare_pictures,
    readme_pictures,
    unmade_pictures,
)

ROOT = Path(__file__).resolve().parents[2]


def _on_reference_renderer_or_skip(name: str) -> None:
    """The pictures are made on the golden scenes' reference renderer (CI's); elsewhere
    their exact regions differ as the goldens do: skipped, unless the run is strict."""
    strict = os.environ.get(GOLDEN_STRICT, "") not in ("", "0")
    _, reference = read_golden(ROOT / "tests/scenes/goldens/radius-basic.png")
    here = Fingerprint.of(renderer_info())
    if reference is not None and not here.same_renderer(reference) and not strict:
        pytest.skip(f"README pictures are made on {reference}; this is {here} (set {GOLDEN_STRICT}=1 to check anyway)")
    if name == "golden-report" and find_chromium() is None and not strict:
        pytest.skip(f"the golden report picture is a Chromium screenshot: {INSTALL_HINT}")


@pytest.mark.gl
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(IMAGES))
def test_readme_picture_is_current(name):
    _on_reference_renderer_or_skip(name)
    proc = subprocess.run([sys.executable, "-m", "demos.readme_images", "--check", name], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{IMAGES[name].path}: current" in proc.stdout


def test_every_readme_picture_is_made_here_or_a_golden():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert unmade_pictures(text) == []
    shown = set(readme_pictures(text))
    assert {image.path for image in IMAGES.values()} <= shown, "an entry makes a picture the README no longer shows"
    # the goldens the README shows are the golden-scene tests' own
    assert any(path.startswith("tests/scenes/goldens/") for path in shown)


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_each_pictures_regions_cover_it_once(name):
    image = IMAGES[name]
    with Image.open(ROOT / image.path) as im:
        w, h = im.size
    covered = np.zeros((h, w), np.int32)
    for region in image.regions:
        x, y, rw, rh = region.box or (0, 0, w, h)
        assert x + rw <= w and y + rh <= h, f"{region.name} reaches past the {w}x{h} picture"
        covered[y:y + rh, x:x + rw] += 1
    assert covered.min() == 1 and covered.max() == 1, "the regions must cover every pixel exactly once"


def test_readme_pictures_are_local_image_links_only():
    text = "![a](x/a.png) text [link](b.png) ![remote](https://e.org/c.png) ![d, e](d.gif)"
    assert readme_pictures(text) == ["x/a.png", "d.gif"]
    assert unmade_pictures("![g](tests/scenes/goldens/no-such-scene.png)") == ["tests/scenes/goldens/no-such-scene.png"]
    assert unmade_pictures("![g](tests/scenes/goldens/radius-basic.png)") == []


# --------------------------------------------------------------------------------------
# The comparison, on made-up pictures


def _picture(rng, w=60, h=40):
    return rng.integers(0, 256, (h, w, 4), dtype=np.uint8)


def _save(path: Path, *frames: np.ndarray) -> Path:
    images = [Image.fromarray(f, "RGBA") for f in frames]
    if path.suffix == ".gif":
        images = [im.convert("RGB") for im in images]
        images[0].save(path, save_all=True, append_images=images[1:], duration=30, loop=0)
    else:
        images[0].save(path)
    return path


def _entry(regions, name="fake", path="fake.png") -> ReadmeImage:
    return ReadmeImage(name, path, "made up", lambda work: work / path, tuple(regions))


def test_an_exact_picture_differing_by_one_level_in_one_pixel_is_stale(tmp_path):
    rng = np.random.default_rng(14)
    old = _picture(rng)
    new = old.copy()
    new[7, 9, 1] = new[7, 9, 1] ^ 1
    entry = _entry([Region("all", None, Tolerance.of("0", "0"))])
    assert compare_pictures(entry, _save(tmp_path / "a.png", old), _save(tmp_path / "b.png", old)) == ()
    problems = compare_pictures(entry, _save(tmp_path / "new.png", new), tmp_path / "a.png")
    assert len(problems) == 1 and "1 px differ" in problems[0] and "at 9,7" in problems[0]


def test_a_tolerant_region_allows_its_budget_and_no_more(tmp_path):
    rng = np.random.default_rng(15)
    old = _picture(rng, 100, 10)
    scene = Region("scene", (0, 0, 50, 10), Tolerance.of("0", "0"))
    panels = Region("panels", (50, 0, 50, 10), Tolerance.of("0-255", "0-25"))  # 5% of 500 px
    entry = _entry([scene, panels])
    within, over, in_scene = old.copy(), old.copy(), old.copy()
    within[:5, 50:55] ^= 0x80  # 25 panel px
    over[:2, 50:63] ^= 0x80  # 26 panel px
    in_scene[3, 10, 0] ^= 1
    committed = _save(tmp_path / "old.png", old)
    assert compare_pictures(entry, _save(tmp_path / "w.png", within), committed) == ()
    assert [p.split(":")[0] for p in compare_pictures(entry, _save(tmp_path / "o.png", over), committed)] == ["panels"]
    assert [p.split(":")[0] for p in compare_pictures(entry, _save(tmp_path / "s.png", in_scene), committed)] == ["scene"]


def test_frames_sizes_and_missing_files_are_stale(tmp_path):
    rng = np.random.default_rng(16)
    a, b = _picture(rng), _picture(rng)
    entry = _entry([Region("all", None, Tolerance.of("0-255", "0-100000"))], path="x.gif")
    two = _save(tmp_path / "two.gif", a, b)
    assert compare_pictures(entry, two, two) == ()
    assert compare_pictures(entry, _save(tmp_path / "one.gif", a), two) == ("1 frames made, 2 committed",)
    assert compare_pictures(entry, _save(tmp_path / "big.png", _picture(rng, 61)), _save(tmp_path / "a.png", a)) == (
        "made 61x40, committed 60x40",)
    assert compare_pictures(entry, two, tmp_path / "gone.gif") == ("x.gif does not exist",)
    # a stale frame is named by its index
    b2 = b.copy()
    b2[5:9, 5:9, :3] = 255 - b2[5:9, 5:9, :3]
    problems = compare_pictures(_entry([Region("all", None, Tolerance.of("0", "0"))]), _save(tmp_path / "ab2.gif", a, b2), two)
    assert len(problems) == 1 and problems[0].startswith("all of frame 1:")


def test_the_command_replaces_only_stale_pictures_and_check_says_how_to_remake(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(17)
    made = _picture(rng)

    def make(work: Path) -> Path:
        return _save(work / "made.png", made)

    entry = ReadmeImage("fake", "pictures/fake.png", "made up", make, (Region("all", None, Tolerance.of("0", "0")),))
    monkeypatch.setattr(readme_images, "ROOT", tmp_path)
    monkeypatch.setattr(readme_images, "IMAGES", {"fake": entry})
    (tmp_path / "pictures").mkdir()
    committed = _save(tmp_path / "pictures" / "fake.png", 255 - made)

    assert readme_images.main(["--check", "fake"]) == 1
    out = capsys.readouterr().out
    assert "pictures/fake.png: stale (all: colour: max difference" in out
    assert "remake it: python -m demos.readme_images fake" in out
    assert np.array_equal(np.asarray(Image.open(committed)), 255 - made), "--check replaced the picture"

    assert readme_images.main(["fake"]) == 0
    assert "pictures/fake.png: replaced (all:" in capsys.readouterr().out
    assert np.array_equal(np.asarray(Image.open(committed)), made)
    assert readme_images.main(["--check", "fake"]) == 0
    assert "pictures/fake.png: current" in capsys.readouterr().out

    assert readme_images.main(["nope"]) == 2
    assert "unknown picture 'nope'" in capsys.readouterr().err


def _fake_root(tmp_path, monkeypatch, entries, readme=""):
    monkeypatch.setattr(readme_images, "ROOT", tmp_path)
    monkeypatch.setattr(readme_images, "IMAGES", {e.name: e for e in entries})
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")


def test_without_names_every_entry_is_made_and_the_readme_searched(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(18)
    good, other = _picture(rng), _picture(rng)
    entries = [ReadmeImage("good", "good.png", "made up", lambda work: _save(work / "g.png", good), (Region("all", None, Tolerance.of("0", "0")),)),
               ReadmeImage("broken", "broken.png", "made up", lambda work: (_ for _ in ()).throw(ReadmeImageError("no tool")),
                           (Region("all", None, Tolerance.of("0", "0")),)),
               ReadmeImage("other", "other.png", "made up", lambda work: _save(work / "o.png", other), (Region("all", None, Tolerance.of("0", "0")),))]
    _fake_root(tmp_path, monkeypatch, entries, "![a](good.png) ![b](broken.png) ![c](other.png) ![d](nobody.png)")
    _save(tmp_path / "good.png", good)

    assert readme_images.main(["--check"]) == 1
    captured = capsys.readouterr()
    assert "nobody.png: shown by README.md, but nothing here makes it" in captured.out
    assert "good.png: current" in captured.out
    assert "broken.png: cannot make it: no tool" in captured.err
    assert "other.png: stale (other.png does not exist)" in captured.out, "a failure stopped the others"

    assert readme_images.main([]) == 1  # still: broken cannot be made, nobody.png is made by nothing
    assert np.array_equal(np.asarray(Image.open(tmp_path / "other.png")), other)
    assert readme_images.main(["good", "other"]) == 0  # names: the README is not searched

    stamp = (tmp_path / "good.png").stat().st_mtime_ns
    assert readme_images.main(["good", "--force"]) == 0
    assert "good.png: replaced (forced)" in capsys.readouterr().out
    assert (tmp_path / "good.png").stat().st_mtime_ns >= stamp
    assert readme_images.main(["--check", "--force"]) == 2


def test_keep_folders_are_made_anew_and_relative_ones_work(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(19)
    made = _picture(rng)
    seen = []

    def make(work: Path) -> Path:
        seen.append(sorted(p.name for p in work.iterdir()))
        (work / "leftover.txt").write_text("from the last run")
        return _save(work / "made.png", made)

    (tmp_path / "root").mkdir()
    _fake_root(tmp_path / "root", monkeypatch, [ReadmeImage("fake", "fake.png", "made up", make,
                                                            (Region("all", None, Tolerance.of("0", "0")),))])
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        assert readme_images.main(["fake", "--keep", "kept"]) == 0
    assert seen == [[], []], "the work folder was not emptied before the second run"
    assert (tmp_path / "kept" / "fake" / "made.png").is_file()


def test_a_command_that_writes_the_committed_picture_itself_is_refused(tmp_path, monkeypatch):
    rng = np.random.default_rng(20)
    entry = ReadmeImage("fake", "fake.png", "made up", lambda work: _save(tmp_path / "fake.png", _picture(rng)),
                        (Region("all", None, Tolerance.of("0", "0")),))
    _fake_root(tmp_path, monkeypatch, [entry])
    _save(tmp_path / "fake.png", _picture(rng))
    with pytest.raises(ReadmeImageError, match="wrote fake.png itself"):
        check(entry, tmp_path / "work")
