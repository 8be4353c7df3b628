"""feMorphology as a filter op (filters.ops.Morphology, filters.plan.MorphologyPass): its
float64 reference against an independent brute-force window min/max, its plan and reach,
and its bad input. No GPU: nothing here renders (tests/gl/test_morphology_gl.py does)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina import filters
from lamina.errors import InvalidValueError
from lamina.filters.ops import MAX_MORPHOLOGY_RADIUS, Morphology, MorphologyOperator
from lamina.filters.plan import ColorPass, CostKind, MorphologyPass, PassKind
from lamina.filter_costs import KINDS, work_units
from lamina.framegraph import Executor
from lamina.graph.filter_tasks import apply_graph


def brute_force(premult: np.ndarray, operator: str, rx: int, ry: int) -> np.ndarray:
    """Each output pixel's channels: the min or max over the (2 rx + 1) x (2 ry + 1)
    window around it, counting pixels outside the image as transparent black (0)."""
    h, w = premult.shape[:2]
    pick = np.max if operator == "dilate" else np.min
    out = np.empty_like(premult)
    for y in range(h):
        for x in range(w):
            window = [premult[j, i] if 0 <= i < w and 0 <= j < h else np.zeros(4)
                      for j in range(y - ry, y + ry + 1) for i in range(x - rx, x + rx + 1)]
            out[y, x] = pick(np.array(window), axis=0)
    return out


def random_premultiplied(rng, h: int = 13, w: int = 17) -> np.ndarray:
    img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    img[..., :3] = np.minimum(img[..., :3], img[..., 3:4])
    return img


RADII = [(2, 1), (1, 3), (0, 2), (3, 0), (1, 1), (9, 1)]  # rx != ry, one axis 0, wider than the image's half


@pytest.mark.parametrize("operator", ["dilate", "erode"])
@pytest.mark.parametrize("rx, ry", RADII)
def test_reference_is_the_window_min_or_max_of_premultiplied_channels(rng, operator, rx, ry):
    img = random_premultiplied(rng).astype(np.float64) / 255.0
    got = Morphology(operator, rx, ry).reference(img)
    assert np.array_equal(got, brute_force(img, operator, rx, ry)), "separable passes = the 2-D window exactly"


@pytest.mark.parametrize("operator", ["dilate", "erode"])
def test_reference_backend_of_filters_apply_rounds_nothing(rng, operator):
    img = random_premultiplied(rng)
    chain = filters.FilterChain((Morphology(operator, 2, 1),))
    out = filters.apply(img, chain, "reference", premultiplied=True)
    expected = brute_force(img.astype(np.float64), operator, 2, 1).astype(np.uint8)
    assert np.array_equal(out, expected)


def test_dilate_grows_the_result_by_its_radii_and_erode_does_not(rng):
    img = random_premultiplied(rng, 9, 11)
    dilate = filters.FilterChain((Morphology("dilate", 3, 1),))
    assert dilate.plan().outsets == (1, 3, 1, 3)  # top, right, bottom, left
    assert dilate.plan().needed_input((10, 20, 30, 40)) == (7, 19, 33, 41)
    grown = filters.apply(img, dilate, "reference", premultiplied=True, grow=True)
    assert grown.offset == (-3, -1) and grown.image.shape == (9 + 2, 11 + 6, 4)
    padded = np.pad(img, ((1, 1), (3, 3), (0, 0))).astype(np.float64)
    assert np.array_equal(grown.image, brute_force(padded, "dilate", 3, 1).astype(np.uint8))
    erode = filters.FilterChain((Morphology("erode", 3, 1),))
    assert erode.plan().outsets == (0, 0, 0, 0), "outside the input every window holds transparent black"
    assert erode.plan().needed_input((10, 20, 30, 40)) == (7, 19, 33, 41)


def test_plan_is_a_horizontal_then_a_vertical_pass_and_prints():
    plan = filters.FilterChain((Morphology("dilate", 2, 1), filters.Sepia(0.5))).plan()
    x, y, colour = plan.passes
    assert isinstance(x, MorphologyPass) and (x.axis, x.radius, x.operator) == ("x", 2, MorphologyOperator.DILATE)
    assert isinstance(y, MorphologyPass) and (y.axis, y.radius, y.inputs) == ("y", 1, (x.output,))
    assert isinstance(colour, ColorPass)
    text = plan.describe()
    assert "dilate-x  radius 2px, max of 5 taps" in text and "dilate-y  radius 1px, max of 3 taps" in text
    assert "output grows by top 1, right 2, bottom 1, left 2 px" in text
    erode = filters.FilterChain((Morphology("erode", 4),)).plan()
    assert [p.describe() for p in erode.passes] == ["erode-x  radius 4px, min of 9 taps",
                                                    "erode-y  radius 4px, min of 9 taps"]
    assert erode.passes[0].gl().uniforms == (("u_axis", (1, 0)), ("u_radius", 4), ("u_dilate", 0))
    assert [a.name for a in erode.passes[1].cl().args] == ["src", "dst", "w", "h", "ax", "ay", "r", "dilate",
                                                         "linear_rgb", "hold"]


def test_radius_zero_is_a_no_op_the_plan_drops():
    nothing = filters.FilterChain((filters.Sepia(0.5), Morphology("dilate", 0, 0), filters.Invert(0.2))).plan()
    assert len(nothing.passes) == 1 and nothing.passes[0].ops == ("sepia(0.5)", "invert(0.2)"), \
        "dropped without splitting the colour ops around it"
    assert any("morphology(dilate 0 0) does nothing: dropped" in n for n in nothing.notes)
    under_a_pixel = filters.FilterChain((Morphology("erode", 0.5, 0.9),)).plan()
    assert under_a_pixel.passes == () and "radii under 1px change nothing" in under_a_pixel.notes[0]
    one_axis = filters.FilterChain((Morphology("erode", 0, 2),)).plan()
    assert [(p.axis, p.radius) for p in one_axis.passes] == [("y", 2)], "an axis of radius 0 has no pass"
    img = np.random.default_rng(7).random((5, 6, 4))
    assert np.array_equal(Morphology("dilate", 0).reference(img), img)


def test_radii_scale_with_the_filter_in_whole_pixels():
    chain = filters.FilterChain((Morphology("dilate", 2, 1.5),))
    assert [p.radius for p in chain.plan(scale=2.0).passes] == [4, 3]
    assert [p.radius for p in chain.plan(scale=0.5).passes] == [1], "0.75 px truncates to no pass"


@pytest.mark.parametrize("args, match", [
    (("dilate", -1), "radius rx must not be negative"),
    (("erode", 2, -0.5), "radius ry must not be negative"),
    (("dilate", float("nan")), "radius rx must be a finite number"),
    (("dilate", True), "radius rx must be a finite number"),
    (("dilate", MAX_MORPHOLOGY_RADIUS + 1), "over the limit"),
    (("open", 2), "operator must be 'erode' or 'dilate', got 'open'"),
])
def test_bad_input_is_a_typed_error_naming_what(args, match):
    with pytest.raises(InvalidValueError, match=match):
        Morphology(*args)


def test_op_is_typed_and_interpolates_its_radii():
    op = Morphology("dilate", 2)
    assert op.operator is MorphologyOperator.DILATE and op.ry == 2 and op == Morphology(MorphologyOperator.DILATE, 2, 2)
    mid = filters.FilterChain((op,)).interpolate(filters.FilterChain((Morphology("dilate", 4, 0),)), 0.5)
    assert mid.ops == (Morphology("dilate", 3, 1),)
    assert Morphology("erode", 1).interpolate(Morphology("dilate", 1), 0.4).operator is MorphologyOperator.ERODE
    assert "morphology" not in filters.ops.OPS, "an SVG primitive, not a CSS filter function"


def test_cost_model_prices_it_by_taps_and_apply_converts_straight_pixels_before_it():
    step = MorphologyPass(("source",), "out", "x", 3, MorphologyOperator.DILATE)
    assert step.pass_kind is PassKind.MORPHOLOGY and "morphology" in KINDS
    assert step.cost is CostKind.PIXEL_TAPS and work_units(step, 20, 10) == 200 * 7
    plan = filters.FilterChain((Morphology("erode", 2),)).plan()
    graph = apply_graph(plan, np.zeros((8, 8, 4), np.uint8), Executor.OPENCL, straight=True)
    first = graph.passes[1]
    assert first.step.steps == () and first.inputs[0].straight, "it re-reads texels: converted once, first"


def test_a_chain_built_by_hand_takes_ops_only_and_radii_may_be_numpy_numbers():
    from lamina.filters import FilterChain

    for items in (("dilate",), (None,), (3,)):
        with pytest.raises(InvalidValueError, match="not a filter op"):
            FilterChain(items)
    with pytest.raises(InvalidValueError, match="sequence of filter ops"):
        FilterChain("blur(2px)")
    assert Morphology("dilate", np.int64(2)) == Morphology("dilate", 2.0), "a numpy integer radius is a number"
    with pytest.raises(InvalidValueError, match="finite number"):
        Morphology("dilate", np.bool_(True))


def test_a_linear_morphology_of_two_passes_holds_its_image_between_them_as_linear():
    """linearRGB: the x pass writes premultiplied linear through the sRGB curve and the y
    pass reads it (LinearHold; an 8-bit sRGB image there magnified the rounding); one
    pass alone, and sRGB passes, read and write premultiplied sRGB."""
    from lamina.filters.plan import LinearHold, _Builder, _plan_morphology
    b = _Builder()
    _plan_morphology(b, Morphology("dilate", 2, 1), "source", 1.0, [], linear=True)
    assert [(p.axis, p.hold) for p in b.passes] == [("x", LinearHold.WRITES), ("y", LinearHold.READS)]
    assert b.passes[0].gl().uniforms[-1] == ("u_hold", 1) and b.passes[1].cl().args[-1].value == 2
    for radii, linear in (((0, 3), True), ((2, 1), False)):
        b = _Builder()
        _plan_morphology(b, Morphology("erode", *radii), "source", 1.0, [], linear=linear)
        assert {p.hold for p in b.passes} == {LinearHold.NONE}
