"""The golden-image pytest plugin, tested with pytester: comparisons, WPT fuzzy ranges,
renderer fingerprints, update modes, artefacts, the HTML report and pytest-xdist."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
from html.parser import HTMLParser

import numpy as np
import pytest
from PIL import Image

from lamina.golden.store import Fingerprint, read_golden, write_golden
from lamina.renderer import renderer_info

SCENE_TEST = '''
from lamina import Layer, Scene

COLOUR = "{colour}"

def test_card(golden):
    scene = Scene(48, 32, "white")
    scene.root.add(Layer("card", (6, 6, 30, 16), f"background: {{COLOUR}}; border-radius: 5px"))
    golden.check(scene.render(), "card")
'''


def card_test(pytester, colour: str = "steelblue"):
    pytester.makepyfile(test_card=SCENE_TEST.format(colour=colour))


def png_bytes_ok(data: bytes) -> bool:
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        return im.format == "PNG"


class ReportParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.images, self.links, self.inputs, self.text = [], [], [], [], []

    VOID = {"img", "input", "meta", "br", "link"}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.images.append(a["src"])
        if tag == "input":
            self.inputs.append(a)
        for key in ("href", "src"):
            if key in a and tag not in ("img",):
                self.links.append(a[key])
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse_report(path):
    parser = ReportParser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    assert parser.stack == [], f"unclosed tags: {parser.stack}"
    return parser


def test_missing_then_pass_then_fail_with_artefacts_then_clean(pytester):
    card_test(pytester)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no golden*make it with --golden-update=missing*"])

    result = pytester.runpytest("--golden-update=missing")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*written: *goldens/card.png"])
    golden = pytester.path / "goldens" / "card.png"
    _, fp = read_golden(golden)
    assert fp == Fingerprint.of(renderer_info()), "the golden records the renderer it was made on"

    assert pytester.runpytest().ret == 0
    card_test(pytester, "rgb(70 130 181)")  # steelblue is rgb(70 130 180): one level in blue
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*golden 'card': colour: max difference 1 (allowed 0); colour max 1, alpha max 0, in * px*",
        "*accept: python -m pytest test_card.py::test_card --golden-update=changed*",
    ])
    (folder,) = (pytester.path / "golden-results").glob("goldens_card-*")
    assert {p.name for p in folder.iterdir()} == {"actual.png", "expected.png", "diff.png", "mask.png", "metrics.json", "record.json"}
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["max_difference"]["b"] == 1 and metrics["differing_pixels"] > 300 and metrics["histogram"]["1"] > 300
    diff = np.asarray(Image.open(folder / "diff.png"))
    assert diff[..., 0].max() == 255, "amplified: the largest difference is white"
    report = parse_report(pytester.path / "golden-results" / "report.html")
    assert len(report.images) == 8  # four side by side, two in each stacked view (flicker, slider)
    assert all(png_bytes_ok(base64.b64decode(src.split(",", 1)[1])) for src in report.images)
    assert all(src.startswith("data:image/png;base64,") for src in report.images)
    assert report.links == [], "self-contained: nothing loaded from elsewhere"
    assert any(i.get("type") == "range" for i in report.inputs), "a slider view"
    assert "python -m pytest test_card.py::test_card --golden-update=changed" in "".join(report.text)

    card_test(pytester, "rgb(70 130 181)")
    result = pytester.runpytest("--golden-update=changed")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*updated: *goldens/card.png"])
    assert not folder.exists(), "artefacts of a check that now passes are removed"
    assert "No failures" in "".join(parse_report(pytester.path / "golden-results" / "report.html").text)


FUZZY_TESTS = '''
import numpy as np
import pytest

BASE = np.full((10, 10, 4), 100, np.uint8)
BASE[..., 3] = 255

def changed(pixels, by, channel=0):
    out = BASE.copy()
    out.reshape(-1, 4)[:pixels, channel] -= by
    return out

CASES = {
    "identical_exact": (0, 0, 0, "0", "0", True),
    "identical_any_diff_zero_pixels": (0, 0, 0, "5-10", "0-3", True),
    "identical_but_a_difference_is_required": (0, 0, 0, "2-3", "5-10", False),
    "within_ranges": (4, 2, 0, "0-2", "0-4", True),
    "difference_too_large": (4, 3, 0, "0-2", "0-4", False),
    "too_many_pixels": (5, 2, 0, "0-2", "0-4", False),
    "bare_numbers_exact": (4, 2, 0, "2", "4", True),
    "bare_number_pixels_off_by_one": (3, 2, 0, "2", "4", False),
    "bare_number_difference_smaller": (4, 1, 0, "2", "4", False),
    "alpha_uses_max_diff": (2, 3, 3, "0-2", "0-4", False),  # alpha 255 -> 252 (premultiplied colour 100 -> 99)
}

@pytest.mark.parametrize("case", list(CASES))
def test_case(golden, case):
    pixels, by, channel, max_diff, max_pixels, passes = CASES[case]
    golden.assert_same(changed(pixels, by, channel), BASE, max_diff=max_diff, max_pixels=max_pixels)

@pytest.mark.golden(max_diff="0-3", max_pixels="0-4")
def test_marker_defaults(golden):
    golden.assert_same(changed(4, 3), BASE)

@pytest.mark.golden(max_diff="0-3", max_alpha_diff="0")
def test_alpha_range_of_its_own(golden):
    golden.assert_same(changed(1, 1, channel=3), BASE, max_pixels="0-1")
'''


def test_fuzzy_ranges_through_the_fixture(pytester):
    pytester.makepyfile(test_fuzzy=FUZZY_TESTS)
    result = pytester.runpytest("-rA")
    failing = {
        "identical_but_a_difference_is_required", "difference_too_large", "too_many_pixels",
        "bare_number_pixels_off_by_one", "bare_number_difference_smaller", "alpha_uses_max_diff",
    }
    result.assert_outcomes(passed=12 - len(failing) - 1, failed=len(failing) + 1)
    for case in failing:
        result.stdout.fnmatch_lines([f"FAILED test_fuzzy.py::test_case[[]{case}[]]*"])
    result.stdout.fnmatch_lines(["PASSED test_fuzzy.py::test_marker_defaults*"])
    result.stdout.fnmatch_lines(["*'test_alpha_range_of_its_own': alpha: max difference 1 (allowed 0); colour max 0, alpha max 1, in 1 px; in the 1x1 rect at 0,0"])
    result.stdout.fnmatch_lines(["*required]': identical, but the tolerance requires a difference*"])


README_MARKER_TESTS = '''
import numpy as np
import pytest

BASE = np.full((40, 80, 4), 120, np.uint8)
BASE[..., 3] = 255

def shifted(by, pixels=None):
    out = BASE.copy()
    out.reshape(-1, 4)[:pixels, 0] += by
    return out

@pytest.mark.golden(max_diff="0-2")
def test_marker_max_diff_alone(golden):
    golden.assert_same(shifted(1), BASE)  # all 3200 px one level off

@pytest.mark.golden(max_diff="0-2")
def test_marker_max_diff_alone_too_large(golden):
    golden.assert_same(shifted(3, 1), BASE)

@pytest.mark.golden(max_diff="0-8", max_pixel_ratio=0.01)
def test_ratio_within(golden):
    golden.assert_same(shifted(5, 32), BASE)  # 1% of 3200

@pytest.mark.golden(max_diff="0-8", max_pixel_ratio=0.01)
def test_ratio_over(golden):
    golden.assert_same(shifted(5, 33), BASE)

def test_ratio_as_an_argument(golden):
    golden.assert_same(shifted(5, 33), BASE, max_diff="0-8", max_pixel_ratio=0.02)
'''


def test_tolerances_read_as_the_readme_writes_them(pytester):
    """``@pytest.mark.golden(max_diff="0-2")`` alone admits any number of pixels within 2
    (the issue: a 1-level change failed with "3200 px differ (allowed 0)"), and
    ``max_pixel_ratio`` caps the share of differing pixels, as a marker or an argument."""
    pytester.makepyfile(test_readme_marker=README_MARKER_TESTS)
    result = pytester.runpytest("-rA")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(["PASSED test_readme_marker.py::test_marker_max_diff_alone*"])
    result.stdout.fnmatch_lines(["*colour: max difference 3 (allowed 0-2)*"])
    result.stdout.fnmatch_lines(["*33 px differ, 1.03% of 80x40 (allowed 1% of them)*"])
    result.stdout.fnmatch_lines(["PASSED test_readme_marker.py::test_ratio_as_an_argument*"])
    assert "3200 px differ" not in result.stdout.str()


def fake_golden(pytester, name="card"):
    """A golden of the right picture, but recorded as made on another GPU."""
    card_test(pytester)
    assert pytester.runpytest("--golden-update=missing").ret == 0
    path = pytester.path / "goldens" / f"{name}.png"
    pixels, _ = read_golden(path)
    write_golden(path, pixels, Fingerprint("FakeGPU 9000", "4.6 FakeGL", "0.0"))
    return path


def test_other_renderer_skips_naming_both_or_fails_when_strict(pytester, monkeypatch):
    fake_golden(pytester)
    monkeypatch.delenv("LAMINA_GOLDEN_STRICT", raising=False)
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    here = renderer_info()
    result.stdout.fnmatch_lines([f"*made on FakeGPU 9000 | 4.6 FakeGL; this is {here.renderer} | {here.version}*"])
    monkeypatch.setenv("LAMINA_GOLDEN_STRICT", "1")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*FakeGPU 9000*LAMINA_GOLDEN_STRICT=1*"])


def test_per_renderer_expectation_is_used(pytester, monkeypatch):
    monkeypatch.setenv("LAMINA_GOLDEN_STRICT", "1")
    fake_golden(pytester)
    here = renderer_info().renderer.split(" ")[0]
    (pytester.path / "goldens" / "renderers.json").write_text(json.dumps(
        {"renderers": [{"match": f"{here}*", "max_diff": "0-1", "max_pixels": "0-2000"}]}))
    card_test(pytester, "rgb(70 130 181)")
    pytester.runpytest().assert_outcomes(passed=1)
    card_test(pytester, "rgb(70 130 184)")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*max difference 4*allowed 0-1*"])


def test_update_modes(pytester):
    card_test(pytester)
    golden = pytester.path / "goldens" / "card.png"
    pytester.runpytest("--golden-update=missing").assert_outcomes(passed=1)
    first = golden.read_bytes()
    card_test(pytester, "tomato")
    pytester.runpytest("--golden-update=missing").assert_outcomes(failed=1)  # never overwrites
    assert golden.read_bytes() == first
    pytester.runpytest("--golden-update=none").assert_outcomes(failed=1)
    pytester.runpytest("--golden-update=changed").assert_outcomes(passed=1)
    tomato = golden.read_bytes()
    assert tomato != first
    before = golden.stat().st_mtime_ns
    pytester.runpytest("--golden-update=changed").assert_outcomes(passed=1)
    pytester.runpytest("--golden-update=all").assert_outcomes(passed=1)
    assert golden.stat().st_mtime_ns == before, "a passing golden with the same bytes is not rewritten"
    pixels, _ = read_golden(golden)
    write_golden(golden, pixels, None)  # e.g. made by another tool: no fingerprint
    pytester.runpytest("--golden-update=changed").assert_outcomes(passed=1)  # same pixels: nothing to write
    pytester.runpytest("--golden-update=all").assert_outcomes(passed=1)
    assert read_golden(golden)[1] is None, "another renderer's golden is not rewritten without force"
    card_test(pytester, "gold")
    result = pytester.runpytest("--golden-update=changed")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*not overwriting*an unknown renderer*force to replace it (it differs: *"])
    card_test(pytester, "tomato")
    result = pytester.runpytest("--golden-update=all", "--golden-force")
    result.assert_outcomes(passed=1)
    assert read_golden(golden)[1] is not None, "all rewrote it, fingerprint included"
    result = pytester.runpytest("--golden-update=bogus")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_refuses_to_overwrite_another_renderers_golden_unless_forced(pytester):
    golden = fake_golden(pytester)
    card_test(pytester, "tomato")
    result = pytester.runpytest("--golden-update=changed")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*not overwriting*made on FakeGPU 9000*", "*accept: *--golden-update=changed --golden-force*"])
    pytester.runpytest("--golden-update=changed", "--golden-force").assert_outcomes(passed=1)
    assert read_golden(golden)[1] == Fingerprint.of(renderer_info())


def test_bad_marker_and_bad_name_are_errors(pytester):
    pytester.makepyfile(test_bad='''
import numpy as np, pytest
IMG = np.zeros((2, 2, 4), np.uint8)

@pytest.mark.golden(max_dif="0-1")
def test_marker(golden):
    golden.assert_same(IMG, IMG)

def test_name(golden):
    golden.check(IMG, "../escape")

def test_range(golden):
    golden.assert_same(IMG, IMG, max_pixels="10-2")
''')
    result = pytester.runpytest()
    result.assert_outcomes(errors=1, failed=2)
    result.stdout.fnmatch_lines(["*unknown argument 'max_dif'*"])
    result.stdout.fnmatch_lines(["*GoldenError: golden name '../escape'*"])
    result.stdout.fnmatch_lines(["*GoldenError: max_pixels: '10-2' is not a range*"])


XDIST_TESTS = '''
import pytest
from lamina import Layer, Scene

@pytest.mark.parametrize("i", range(6))
def test_tile(golden, i):
    scene = Scene(24, 24, "white")
    scene.root.add(Layer("t", (4, 4, 16, 16), f"background: hsl({i * 60} 70% 50%)"))
    golden.check(scene.render(), f"tile{i}")
'''


@pytest.mark.slow
def test_parallel_workers_share_results_and_report(pytester):
    pytester.makepyfile(test_tiles=XDIST_TESTS)
    assert pytester.runpytest_subprocess("-n", "2", "--golden-update=missing").ret == 0
    assert len(list((pytester.path / "goldens").glob("tile*.png"))) == 6
    pytester.makepyfile(test_tiles=XDIST_TESTS.replace("i * 60", "i * 60 + (i % 2)"))
    result = pytester.runpytest_subprocess("-n", "2")
    result.assert_outcomes(passed=3, failed=3)
    result.stdout.fnmatch_lines(["*3 failed, 3 passed; report: *report.html"])
    report = parse_report(pytester.path / "golden-results" / "report.html")
    text = "".join(report.text)
    assert all(f"tile{i}" in text for i in (1, 3, 5)) and "tile0" not in text
    assert len(list((pytester.path / "golden-results" / ".run").glob("*.jsonl"))) == 2, "one log per worker"


ONE_PIXEL = '''
import numpy as np

def test_picture(golden):
    img = np.full((40, 50, 4), 200, np.uint8)
    img[..., 3] = 255
    {change}
    golden.check(img, "picture")
'''


def test_a_one_pixel_regression_fails_and_the_report_shows_where(pytester):
    pytester.makepyfile(test_pic=ONE_PIXEL.format(change="pass"))
    pytester.runpytest("--golden-update=missing").assert_outcomes(passed=1)
    pytester.makepyfile(test_pic=ONE_PIXEL.format(change="img[17, 23, 1] = 199"))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*colour: max difference 1 (allowed 0); colour max 1, alpha max 0, in 1 px; in the 1x1 rect at 23,17*"])
    (folder,) = (pytester.path / "golden-results").glob("goldens_picture-*")
    assert json.loads((folder / "metrics.json").read_text())["differing_region"] == [23, 17, 1, 1]
    mask = np.asarray(Image.open(folder / "mask.png"))
    assert tuple(mask[17, 23]) == (230, 0, 0, 255), "the pixel itself, red"
    assert tuple(mask[16, 22]) == tuple(mask[18, 24]) == (40, 90, 255, 255), "framed in blue"
    assert (mask[..., 0] == 230).sum() == 1


def test_changed_mode_compares_before_refusing_another_renderers_golden(pytester, monkeypatch):
    monkeypatch.delenv("LAMINA_GOLDEN_STRICT", raising=False)
    golden = fake_golden(pytester)
    here = renderer_info().renderer.split(" ")[0]
    (pytester.path / "goldens" / "renderers.json").write_text(json.dumps({"renderers": [{"match": f"{here}*"}]}))
    before = golden.read_bytes()
    pytester.runpytest("--golden-update=changed").assert_outcomes(passed=1)  # same pixels: no refusal
    assert golden.read_bytes() == before


def test_strict_failure_says_how_to_accept(pytester, monkeypatch):
    fake_golden(pytester)
    monkeypatch.setenv("LAMINA_GOLDEN_STRICT", "1")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*accept: *--golden-update=changed --golden-force"])


def test_an_unreadable_golden_fails_and_an_update_replaces_it(pytester):
    card_test(pytester)
    golden = pytester.path / "goldens" / "card.png"
    golden.parent.mkdir()
    golden.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*not a readable PNG*Git LFS pointer? run git lfs pull*"])
    result = pytester.runpytest("--golden-update=changed")
    result.assert_outcomes(passed=1)
    assert read_golden(golden)[1] == Fingerprint.of(renderer_info())


def test_markers_merge_nearest_first(pytester):
    pytester.makepyfile(test_m='''
import numpy as np, pytest
pytestmark = pytest.mark.golden(dir="mine", max_diff="0-9")
IMG = np.full((4, 4, 4), 200, np.uint8)

@pytest.mark.golden(max_pixels="0-16")
def test_one(golden):
    golden.check(IMG, "one")
    changed = IMG.copy(); changed[..., 0] = 205
    golden.check(changed, "one")   # 5 levels in 16 px: module max_diff, test max_pixels

@pytest.mark.golden("0-1")
def test_positional(golden):
    pass
''')
    result = pytester.runpytest("--golden-update=missing")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*keyword arguments only*"])
    assert (pytester.path / "mine" / "one.png").is_file()


def test_artefacts_of_similar_names_do_not_collide(pytester):
    pytester.makepyfile(test_n='''
import numpy as np
IMG = np.full((4, 4, 4), 200, np.uint8)

def test_names(golden):
    golden.check(IMG, "x/y")
    golden.check(IMG, "x_y")
''')
    pytester.runpytest("--golden-update=missing").assert_outcomes(passed=1)
    pytester.makepyfile(test_n='''
import numpy as np
IMG = np.full((4, 4, 4), 200, np.uint8)

def test_names(golden):
    golden.check(IMG, "x_y")
    bad = IMG.copy(); bad[0, 0, 0] = 0
    golden.check(bad, "x/y")
''')
    pytester.runpytest().assert_outcomes(failed=1)
    failing = [p for p in (pytester.path / "golden-results").iterdir() if (p / "record.json").is_file()]
    assert len(failing) == 1 and json.loads((failing[0] / "record.json").read_text())["name"] == "x/y"


TESTER_PROJECT_TEST = '''
from lamina import Layer, Scene

def test_card(golden):
    scene = Scene(48, 32, "white")
    scene.root.add(Layer("card", (6, 6, 30, 16), "background: steelblue; border-radius: 5px"))
    golden.check(scene.render(), "card")
'''


@pytest.mark.slow
def test_a_testers_own_project_sees_no_warning_from_lamina(tmp_path):
    """A folder outside the checkout with one golden test, run by the pytest of the
    environment Lamina is installed in (editable here, as .ci/setup installs it): no
    warning at all, in particular not pytest's "Module already imported so cannot be
    rewritten" about the editable install's finder module."""
    project = tmp_path / "tester"
    project.mkdir()
    (project / "test_card.py").write_text(TESTER_PROJECT_TEST)
    for args in (["--golden-update=missing"], []):
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error", *args],
                              cwd=project, capture_output=True, text=True, timeout=300)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, output
        assert "1 passed" in output and "warning" not in output.lower(), output
