"""The DPR comparison's scene sets (tests/chromium/compare_dpr.py), without Chromium or a
GPU: every scene named exists, loads as a Lamina scene, becomes an HTML page with its text
and transforms, and the table's rows read as the README quotes them."""

from __future__ import annotations

import pytest

from lamina.scene_file import load_scene
from tests.chromium.compare import case_html, scene_file_case
from tests.chromium.compare_dpr import SETS, TABLE_HEAD, table_row

SCENES = [(name, path) for name, paths in SETS.items() for path in paths]


def test_the_sets_cover_what_issue_25_compares():
    stems = {name: {p.stem for p in paths} for name, paths in SETS.items()}
    assert {"scale4-text", "scale4-disc", "rotate-scale", "skew-scale"} == stems["scale"]
    assert {"backdrop-filter-with-blend", "backdrop-filter-with-filter", "backdrop-filter-with-mask",
            "backdrop-filter-with-clip-path", "backdrop-filter-opacity-group"} <= stems["backdrop"]
    fonts = " ".join(p.read_text() for p in SETS["text"])
    for face in ("DejaVu Sans'", "DejaVu Serif'", "DejaVu Sans Mono'", "font-weight: bold"):
        assert face in fonts, face


@pytest.mark.parametrize("name, path", SCENES, ids=[p.stem for _, p in SCENES])
def test_scene_loads_and_becomes_a_page(name, path):
    scene = load_scene(path)
    assert scene.width > 0 and scene.device_scale_factor == 1.0  # the ratio comes from the command
    page = case_html(scene_file_case(path))
    for layer in scene.layers():
        if layer.id != scene.root.id:
            assert f'id="{layer.id}"' in page
    if name == "scale":
        assert "transform: " in page


def test_table_rows():
    row = table_row("scale4-text", 2, {"mean_diff": 2.654, "percent_over_24": 4.16, "max_diff": 165.0})
    assert row == "| scale4-text | 2 | 2.65 | 4.16 | 165 |"
    assert row.count("|") == TABLE_HEAD[0].count("|")
