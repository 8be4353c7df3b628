"""The filter planner (filters/plan.py: chain -> passes, as plain data) and its place in
the compositor's frame graph (``scene.plan(policy="none")``). No GPU: nothing here renders.

Expected values are computed from the rules the planner documents (kernel radius
ceil(3 sigma), halve until sigma <= 4, variance bookkeeping, outsets from the blur reach
and the shadow offset), not copied from its output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina import filters
from lamina import Layer, Scene
from lamina.framegraph import (
    CompositePass,
    Decision,
    Draw,
    FilterPass,
    FrameGraph,
    SurfaceReason,
    TextureRole,
)
from lamina.geometry import Affine
from lamina.limits import MAX_COLOR_STEPS
from lamina.css.values import RGBA
from lamina.filters.plan import (
    BLUR_SIGMA_CAP,
    MARGIN,
    MAX_LEVEL_SIGMA,
    BlurPass,
    ColorPass,
    FilterPlan,
    ResamplePass,
    ShadowPass,
    blur_levels,
    image_size,
)

RED = "background-color: red"


def plan(css: str, **kw) -> FilterPlan:
    return filters.parse(css).plan(**kw)


def kinds(p: FilterPlan) -> list[str]:
    """One short label per pass: colour(n), down/up, blur-x/blur-y, shadow."""
    out = []
    for s in p.passes:
        if isinstance(s, ColorPass):
            out.append(f"color{len(s.ops)}")
        elif isinstance(s, ResamplePass):
            out.append(s.direction)
        elif isinstance(s, BlurPass):
            out.append(f"blur-{s.axis}")
        elif isinstance(s, ShadowPass):
            out.append("shadow")
        else:  # pragma: no cover
            raise AssertionError(s)
    return out


def assert_chained(p: FilterPlan) -> None:
    """Every image is written before it is read, names are unique, the plan's output is
    the last image written (or the source when nothing runs)."""
    written = {"source"}
    for s in p.passes:
        for name in s.inputs:
            assert name in written, f"{s} reads {name} before it is written"
        assert s.output not in written, f"{s.output} written twice"
        written.add(s.output)
    assert p.output == (p.passes[-1].output if p.passes else "source")


def blur_passes_for(sigma: float) -> int:
    """Expected pass count of one blur: 2 at full size; k halvings + 2 + 1 upsample.
    Halve until sigma <= 4 (plans without an image size: no cost rule)."""
    k = 0
    while sigma / 2**k > MAX_LEVEL_SIGMA:
        k += 1
    return 2 if k == 0 else k + 3


# -- 1. fusion of colour ops ------------------------------------------------------------------

COLOUR_KINDS = ("grayscale(.3)", "sepia(.6)", "saturate(2)", "hue-rotate(45deg)", "invert(.2)", "opacity(.5)",
                "brightness(1.5)", "contrast(.8)")
FULL_RUN = " ".join(COLOUR_KINDS[i % len(COLOUR_KINDS)] for i in range(MAX_COLOR_STEPS))  # every kind, limit long


def _rgb(op) -> np.ndarray:
    m = op.matrix()
    return m[:3, [0, 1, 2, 4]]


def _apply_ops(rgb: np.ndarray, ops) -> np.ndarray:
    """The spec, one op at a time: affine map of straight RGB, clamp after each."""
    for op in ops:
        m = _rgb(op)
        rgb = np.clip(rgb @ m[:, :3].T + m[:, 3], 0.0, 1.0)
    return rgb


def _apply_steps(rgb: np.ndarray, steps) -> np.ndarray:
    for step in steps:
        m = np.array(step.matrix)
        rgb = np.clip(rgb @ m[:, :3].T + m[:, 3], 0.0, 1.0)
    return rgb


def _cube_safe(m: np.ndarray) -> bool:
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float)
    out = corners @ m[:, :3].T + m[:, 3]
    return bool(np.all(out >= -1e-12) and np.all(out <= 1 + 1e-12))


def test_consecutive_colour_ops_fuse_into_one_pass_in_order(rng):
    chain = filters.parse("grayscale(.3) sepia(.6) saturate(2) hue-rotate(45deg)")
    p = chain.plan()
    assert len(p.passes) == 1
    (cp,) = p.passes
    assert isinstance(cp, ColorPass) and cp.kind == "color" and cp.scale == 1
    assert cp.inputs == ("source",) and p.output == cp.output
    assert cp.ops == ("grayscale(0.3)", "sepia(0.6)", "saturate(2)", "hue-rotate(45deg)")
    # every op is in exactly one step, in order
    assert [o for st in cp.steps for o in st.ops] == list(cp.ops)
    for step in cp.steps:
        assert np.array(step.matrix).shape == (3, 4)
    # the steps with their clamps are the spec's ops with theirs, exactly
    rgb = rng.random((2000, 3))
    assert np.allclose(_apply_steps(rgb, cp.steps), _apply_ops(rgb, chain.ops), atol=1e-12)
    assert p.outsets == (0, 0, 0, 0) and p.notes == ()


def test_steps_merge_only_where_the_clamp_cannot_act(rng):
    chain = filters.parse("grayscale(.5) invert(.3) saturate(3) hue-rotate(90deg) contrast(.5) brightness(2) opacity(.5)")
    (cp,) = chain.plan().passes
    # A step boundary (a clamp) stays only after a map that can leave the unit cube.
    for step in cp.steps[:-1]:
        assert not _cube_safe(np.array(step.matrix)), step.ops
    assert len(cp.steps) < len(cp.ops), "grayscale and invert keep the cube: merged"
    rgb = rng.random((3000, 3))
    assert np.allclose(_apply_steps(rgb, cp.steps), _apply_ops(rgb, chain.ops), atol=1e-12)


def test_opacity_folds_into_the_alpha_factor():
    (cp,) = plan("opacity(.5) sepia(1) opacity(.4)").passes
    assert cp.alpha == pytest.approx(0.2)
    assert [o for st in cp.steps for o in st.ops] == ["opacity(0.5)", "sepia(1)", "opacity(0.4)"]
    (only,) = plan("opacity(.5)").passes
    assert only.steps == () and only.alpha == 0.5


def test_max_colour_steps_in_one_pass():
    # saturate(3) and hue-rotate never keep the cube: every op is its own clamped step.
    ops = " ".join("saturate(3)" if i % 2 else "hue-rotate(40deg)" for i in range(MAX_COLOR_STEPS))
    p = filters.parse(ops).plan()
    assert len(p.passes) == 1 and len(p.passes[0].steps) == MAX_COLOR_STEPS
    assert p.notes == ()


def test_blur_and_shadow_split_colour_runs():
    p = plan("grayscale(.5) sepia(.5) blur(2px) invert(1) contrast(2) drop-shadow(1px 1px 0 black) opacity(.5)")
    assert kinds(p) == ["color2", "blur-x", "blur-y", "color2", "shadow", "color1"]
    assert p.passes[0].ops == ("grayscale(0.5)", "sepia(0.5)")
    assert p.passes[3].ops == ("invert(1)", "contrast(2)")
    assert p.passes[5].ops == ("opacity(0.5)",) and p.passes[5].alpha == 0.5
    assert_chained(p)
    # each pass reads the one before it (the shadow also reads its own source)
    assert p.passes[1].inputs == (p.passes[0].output,)
    assert p.passes[3].inputs == (p.passes[2].output,)
    assert p.passes[4].inputs == (p.passes[3].output, p.passes[3].output)
    assert p.passes[5].inputs == (p.passes[4].output,)


def test_a_dropped_noop_between_colour_ops_does_not_split_them():
    p = plan("grayscale(.5) blur(0) sepia(.5)")
    assert kinds(p) == ["color2"]
    assert p.passes[0].ops == ("grayscale(0.5)", "sepia(0.5)")
    assert p.notes == ("blur(0px) does nothing: dropped",)


@pytest.mark.parametrize("n", [MAX_COLOR_STEPS + 1, 2 * MAX_COLOR_STEPS, 2 * MAX_COLOR_STEPS + 3])
def test_more_than_max_colour_steps_split_into_several_passes_with_a_note(n, rng):
    chain = filters.parse(" ".join("saturate(3)" if i % 2 else f"hue-rotate({10 + i}deg)" for i in range(n)))
    p = chain.plan()
    sizes = [len(s.steps) for s in p.passes]
    assert all(isinstance(s, ColorPass) for s in p.passes)
    assert len(p.passes) == math.ceil(n / MAX_COLOR_STEPS)
    assert all(size <= MAX_COLOR_STEPS for size in sizes) and sum(sizes) == n
    assert_chained(p)
    rgb = rng.random((500, 3))
    all_steps = [st for s in p.passes for st in s.steps]
    assert np.allclose(_apply_steps(rgb, all_steps), _apply_ops(rgb, chain.ops), atol=1e-10)
    assert len(p.notes) == 1 and f"more than {MAX_COLOR_STEPS} clamped colour steps" in p.notes[0]


def test_fused_steps_are_not_one_product_matrix():
    chain = filters.parse("brightness(3) contrast(0.2)")  # brightness leaves the cube
    (cp,) = chain.plan().passes
    assert len(cp.steps) == 2, "the clamp after brightness(3) must stay"
    product = _rgb(chain.ops[1]) @ np.vstack([_rgb(chain.ops[0]), [0, 0, 0, 1]])
    x = np.array([[0.9, 0.5, 0.1]])
    single = np.clip(x @ product[:, :3].T + product[:, 3], 0, 1)
    assert not np.allclose(single, _apply_ops(x, chain.ops))


# -- 2. no-ops --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "css, printed",
    [
        ("blur(0)", "blur(0px)"),
        ("blur(0px)", "blur(0px)"),
        ("grayscale(0)", "grayscale(0)"),
        ("sepia(0)", "sepia(0)"),
        ("invert(0)", "invert(0)"),
        ("opacity(1)", "opacity(1)"),
        ("opacity(100%)", "opacity(1)"),
        ("brightness(1)", "brightness(1)"),
        ("contrast(1)", "contrast(1)"),
        ("saturate(1)", "saturate(1)"),
        ("hue-rotate(0)", "hue-rotate(0deg)"),
        ("hue-rotate(360deg)", "hue-rotate(360deg)"),
        ("hue-rotate(-720deg)", "hue-rotate(-720deg)"),
        ("hue-rotate(1turn)", "hue-rotate(360deg)"),
        ("drop-shadow(4px 4px 2px transparent)", "drop-shadow(4px 4px 2px rgb(0 0 0 / 0))"),
        ("drop-shadow(4px 4px 2px rgba(255, 0, 0, 0))", "drop-shadow(4px 4px 2px rgb(255 0 0 / 0))"),
    ],
)
def test_noop_is_dropped_with_a_note(css, printed):
    p = plan(css)
    assert p.passes == ()
    assert p.output == "source"
    assert p.outsets == (0, 0, 0, 0)
    assert p.notes == (f"{printed} does nothing: dropped",)
    # next to a real op it is still dropped, the real op still planned
    q = plan(f"{css} sepia(1)")
    assert kinds(q) == ["color1"] and q.passes[0].steps[0].css == "sepia(1)"
    assert q.notes == (f"{printed} does nothing: dropped",)


def test_near_noops_are_kept():
    for css in ("blur(0.25px)", "grayscale(0.001)", "opacity(0.999)", "hue-rotate(1deg)", "hue-rotate(359deg)",
                "drop-shadow(0 0 0 black)", "drop-shadow(1px 1px 1px rgba(0, 0, 0, 0.01))"):
        assert plan(css).passes, css


def test_chain_of_only_noops_has_no_passes():
    css = ("blur(0) grayscale(0) sepia(0) invert(0) opacity(1) brightness(1) contrast(1) saturate(1) "
           "hue-rotate(0deg) hue-rotate(360deg) hue-rotate(-720deg) drop-shadow(3px 3px 3px transparent)")
    p = plan(css)
    assert p.passes == () and p.output == "source" and p.outsets == (0, 0, 0, 0)
    assert len(p.notes) == 12 and all(n.endswith("does nothing: dropped") for n in p.notes)
    assert str(p).splitlines()[0] == "no passes: the chain does nothing"


def test_currentcolor_shadow_that_resolves_transparent_is_dropped():
    """A drop-shadow whose currentcolor resolves to a transparent colour draws nothing,
    like an explicit transparent one: no blur, no shadow pass, no growth."""
    p = plan("drop-shadow(4px 4px 2px currentcolor)", current_color=RGBA(0.2, 0.4, 0.6, 0.0))
    assert p.passes == (), f"expected no passes, got {kinds(p)}"
    assert p.outsets == (0, 0, 0, 0)


# -- 3. blur ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.25, 0.5, 1, 1.5, 2, 2.5, 3, 3.3, 4])
def test_small_blur_is_two_full_size_passes_x_then_y(sigma):
    p = plan(f"blur({sigma}px)")
    assert kinds(p) == ["blur-x", "blur-y"]
    bx, by = p.passes
    radius = math.ceil(3 * sigma)
    for b in (bx, by):
        assert b.kind == "blur" and b.scale == 1
        assert b.sigma == pytest.approx(sigma)
        assert b.radius == radius
    assert bx.inputs == ("source",) and by.inputs == (bx.output,) and p.output == by.output


@pytest.mark.parametrize(
    "sigma, k", [(0.5, 0), (4, 0), (4.01, 1), (5.9, 1), (6, 1), (8, 1), (8.01, 2), (16, 2), (32, 3), (64, 4), (100, 5)]
)
def test_blur_levels_halves_until_sigma_at_most_4(sigma, k):
    got_k, s = blur_levels(sigma)
    assert got_k == k
    if k == 0:
        assert s == sigma
    else:
        assert 0 < s <= MAX_LEVEL_SIGMA
        assert sigma / 2**k <= MAX_LEVEL_SIGMA < sigma / 2 ** (k - 1)  # the fewest halvings


@pytest.mark.parametrize("sigma", [6, 7, 8])
def test_large_images_halve_sigma_6_to_8_twice(sigma):
    # The cost rule: on >= 512x512 images one halving would leave the priciest level.
    assert blur_levels(sigma, 1920 * 1080)[0] == 2
    assert blur_levels(sigma, 100 * 100)[0] == 1
    assert blur_levels(sigma)[0] == 1
    big = filters.parse(f"blur({sigma}px)").plan(size=(1920, 1080))
    assert [p.direction for p in big.passes if isinstance(p, ResamplePass)] == ["down", "down", "up"]


def test_tiny_blur_is_dropped_with_a_note():
    p = plan("blur(0.1px) sepia(1)")
    assert kinds(p) == ["color1"]
    assert any("0.25px" in n and "dropped" in n for n in p.notes)


SIGMAS = sorted(set(np.round(np.linspace(0.25, BLUR_SIGMA_CAP, 397), 4).tolist()) | {4.0, 8.0, 16.0, 32.0, 64.0, 100.0})


def test_blur_levels_variance_identity():
    checked = 0
    for sigma in SIGMAS:
        k, s = blur_levels(sigma)
        if k == 0:
            continue
        four_k = 4.0**k
        residual = sigma**2 - (four_k - 1) / 12 - four_k / 6
        if residual < 0:
            continue
        total = (four_k - 1) / 12 + four_k / 6 + (2**k * s) ** 2
        assert total == pytest.approx(sigma**2, rel=1e-12), sigma
        checked += 1
    assert checked > 300


def test_blur_cost_stops_growing():
    max_taps = 2 * math.ceil(3 * MAX_LEVEL_SIGMA) + 1
    counts = {}
    for sigma in SIGMAS:
        p = plan(f"blur({sigma}px)")
        blurs = [s for s in p.passes if isinstance(s, BlurPass)]
        assert len(blurs) == 2
        for b in blurs:
            assert 2 * b.radius + 1 <= max_taps, (sigma, b)
            assert b.radius == math.ceil(3 * b.sigma)
        assert len(p.passes) == blur_passes_for(sigma), sigma
        counts[sigma] = len(p.passes)
    # logarithmic: log2(sigma / 4) halvings + 3, so 8 passes at the cap, never more
    for sigma, n in counts.items():
        bound = 2 if sigma <= MAX_LEVEL_SIGMA else math.ceil(math.log2(sigma / MAX_LEVEL_SIGMA)) + 3
        assert n <= bound, sigma
    assert max(counts.values()) == 8 == counts[100.0]
    assert counts[8.0] == 4 and counts[16.0] == 5 and counts[32.0] == 6 and counts[64.0] == 7
    # and the pass count never decreases as sigma grows
    ordered = [counts[s] for s in sorted(counts)]
    assert ordered == sorted(ordered)


@pytest.mark.parametrize("sigma", [4.5, 8, 13, 32, 64, 99.9, 100])
def test_down_blur_up_chain_is_consistent(sigma):
    p = plan(f"blur({sigma}px)")
    k, s = blur_levels(sigma)
    assert k >= 1
    downs, blurs, up = p.passes[:k], p.passes[k : k + 2], p.passes[k + 2 :]
    assert [d.direction for d in downs] == ["down"] * k
    previous_scale = 1
    for j, d in enumerate(downs, 1):
        assert d.kind == "resample"
        assert d.scale == 2**j
        assert d.source_scale == previous_scale  # each halving reads the previous level
        previous_scale = d.scale
    for b in blurs:
        assert isinstance(b, BlurPass) and b.scale == 2**k
        assert b.sigma == pytest.approx(s) and b.radius == math.ceil(3 * s)
    assert [b.axis for b in blurs] == ["x", "y"]
    (u,) = up
    assert isinstance(u, ResamplePass) and u.direction == "up"
    assert u.scale == 1 and u.source_scale == 2**k
    assert_chained(p)
    assert p.passes[0].inputs == ("source",)
    assert p.output == u.output


@pytest.mark.parametrize("css, scale", [("blur(150px)", 1.0), ("blur(100.5px)", 1.0), ("blur(60px)", 2.0)])
def test_sigma_above_the_cap_is_capped_with_a_note(css, scale):
    p = plan(css, scale=scale)
    capped = plan(f"blur({BLUR_SIGMA_CAP:g}px)")
    assert p.passes == capped.passes
    reach = math.ceil(3 * BLUR_SIGMA_CAP)
    assert p.outsets == (reach,) * 4
    (note,) = p.notes
    assert css in note and "capped" in note and f"{BLUR_SIGMA_CAP:g}px" in note


def test_sigma_at_the_cap_has_no_note():
    assert plan("blur(100px)").notes == ()
    assert plan("blur(50px)", scale=2).notes == ()


def test_drop_shadow_sigma_is_capped_too():
    p = plan("drop-shadow(0 0 150px black)")
    (note,) = p.notes
    assert "drop-shadow" in note and "capped" in note and "100px" in note
    assert p.passes[:-1] == plan("blur(100px)").passes
    assert p.outsets == (300,) * 4


def test_scale_multiplies_blur_sigma_and_shadow_offsets():
    one = plan("blur(3px) drop-shadow(1px 2px 1px black)")
    two = plan("blur(3px) drop-shadow(1px 2px 1px black)", scale=2)
    assert kinds(one) == ["blur-x", "blur-y", "blur-x", "blur-y", "shadow"]
    # sigma 6 at scale 2: one halving
    assert kinds(two) == ["down", "blur-x", "blur-y", "up", "blur-x", "blur-y", "shadow"]
    assert two.passes[1].sigma == pytest.approx(blur_levels(6.0)[1])
    assert two.passes[4].sigma == pytest.approx(2.0)  # the shadow's sigma, scaled
    assert one.passes[-1].offset == (1.0, 2.0)
    assert two.passes[-1].offset == (2.0, 4.0)
    # outsets in scaled px: blur reach 18; shadow reach 6 with offset (2, 4)
    assert two.outsets == (18 + 6, 18 + 6 + 2, 18 + 6 + 4, 18 + 6)  # blur 18; shadow 6 + offset (2, 4)
    assert plan("sepia(1)", scale=3).passes == plan("sepia(1)").passes  # colour is scale-free


# -- 4. drop-shadow ---------------------------------------------------------------------------


def test_drop_shadow_is_blur_of_current_image_then_shadow_pass():
    p = plan("sepia(1) drop-shadow(3px -4px 2px rgba(255, 0, 0, .5))")
    assert kinds(p) == ["color1", "blur-x", "blur-y", "shadow"]
    color, bx, by, sh = p.passes
    assert bx.inputs == (color.output,) and by.inputs == (bx.output,)
    assert bx.sigma == 2.0 and bx.radius == 6
    assert isinstance(sh, ShadowPass) and sh.kind == "shadow"
    assert sh.inputs == (color.output, by.output)  # (current image, blurred image)
    assert sh.offset == (3.0, -4.0)
    assert sh.color == pytest.approx((0.5, 0.0, 0.0, 0.5))  # premultiplied
    assert p.output == sh.output


def test_large_shadow_blur_uses_the_reduced_path():
    p = plan("drop-shadow(0 0 20px black)")
    assert blur_levels(20)[0] == 3
    assert kinds(p) == ["down", "down", "down", "blur-x", "blur-y", "up", "shadow"]
    assert p.passes[-1].inputs == ("source", p.passes[-2].output)


def test_currentcolor_shadow_takes_the_given_current_color():
    p = plan("drop-shadow(1px 1px 1px currentcolor)", current_color=RGBA(0.0, 0.0, 1.0, 0.5))
    assert p.passes[-1].color == pytest.approx((0.0, 0.0, 0.5, 0.5))
    default = plan("drop-shadow(1px 1px 1px currentcolor)")
    assert default.passes[-1].color == pytest.approx((0.0, 0.0, 0.0, 1.0))  # black by default
    explicit = plan("drop-shadow(1px 1px 1px lime)", current_color=RGBA(1.0, 0.0, 0.0, 1.0))
    assert explicit.passes[-1].color == pytest.approx((0.0, 1.0, 0.0, 1.0))  # not overridden


def test_sharp_shadow_has_no_blur_passes():
    p = plan("drop-shadow(4px 5px 0 blue)")
    assert kinds(p) == ["shadow"]
    (sh,) = p.passes
    assert sh.inputs == ("source", "source")
    assert sh.offset == (4.0, 5.0) and sh.color == pytest.approx((0.0, 0.0, 1.0, 1.0))
    assert p.outsets == (0, 4, 5, 0)


# -- 5. outsets -------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.3, 1, 2.5, 4, 7, 33.3])
def test_blur_outset_is_ceil_3_sigma_each_side(sigma):
    r = math.ceil(3 * sigma)
    assert plan(f"blur({sigma}px)").outsets == (r, r, r, r)


def shadow_outsets(dx: float, dy: float, sigma: float) -> tuple[int, int, int, int]:
    """The blurred alpha (as large as every image of the plan) spreads 3 sigma on every
    side, and the shadow lands offset from the input: each side needs both."""
    reach = math.ceil(3 * sigma)
    return (
        reach + math.ceil(max(0, -dy)),
        reach + math.ceil(max(0, dx)),
        reach + math.ceil(max(0, dy)),
        reach + math.ceil(max(0, -dx)),
    )


@pytest.mark.parametrize(
    "dx, dy, sigma, expected",
    [
        (10, 4, 2, (6, 16, 10, 6)),
        (-10, -20, 3, (29, 9, 9, 19)),
        (0, 0, 5, (15, 15, 15, 15)),
        (-3, 7, 0, (0, 0, 7, 3)),
        (2.5, -0.5, 1, (4, 6, 3, 3)),
        (100, 100, 1, (3, 103, 103, 3)),
    ],
)
def test_drop_shadow_outsets_follow_the_offset(dx, dy, sigma, expected):
    assert shadow_outsets(dx, dy, sigma) == expected  # the rule, checked against hand values
    assert plan(f"drop-shadow({dx}px {dy}px {sigma}px black)").outsets == expected


def test_outsets_accumulate_over_a_chain():
    # blur 2 -> 6 each side; then shadow(-10, 4, 2): 6 more on every side, plus the offset
    expected = (6 + 6, 6 + 6, 6 + 6 + 4, 6 + 6 + 10)
    assert plan("blur(2px) drop-shadow(-10px 4px 2px black)").outsets == expected
    assert plan("drop-shadow(-10px 4px 2px black) blur(2px)").outsets == expected
    # two sharp shadows to the right stack up; the left never grows
    assert plan("drop-shadow(5px 0 0 black) drop-shadow(5px 0 0 black)").outsets == (0, 10, 0, 0)
    # blur + blur adds reaches; colour ops add nothing
    assert plan("blur(1px) sepia(1) blur(2px) invert(1)").outsets == (9, 9, 9, 9)


# -- 6. image sizes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "w, h, scale, expected",
    [
        (100, 50, 1, (100, 50)),
        (1, 1, 1, (1, 1)),
        (100, 50, 2, (52, 27)),
        (101, 51, 2, (53, 28)),
        (101, 51, 4, (28, 15)),
        (3, 3, 8, (3, 3)),
        (1000, 7, 32, (34, 3)),
    ],
)
def test_image_size(w, h, scale, expected):
    assert MARGIN == 1
    assert image_size(w, h, scale) == expected
    if scale > 1:
        assert expected == (math.ceil(w / scale) + 2, math.ceil(h / scale) + 2)


# -- 7. describe() ----------------------------------------------------------------------------


def test_print_of_a_simple_plan_reads_as_expected(capsys):
    print(filters.parse("blur(2px) sepia(1)").plan())
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "3 pass(es):",
        "  1. blur-x  sigma 2px at full size, 13 taps   [source -> blurx1]",
        "  2. blur-y  sigma 2px at full size, 13 taps   [blurx1 -> blury2]",
        "  3. colour  sepia(1)  [1 clamped step]   [blury2 -> color3]",
        "output grows by top 6, right 6, bottom 6, left 6 px",
    ]


def test_describe_mentions_every_pass_in_plain_words():
    p = plan("drop-shadow(2px 3px 10px red) grayscale(.5) sepia(.2) blur(300px) hue-rotate(0)")
    text = p.describe()
    assert str(p) == text
    lines = text.splitlines()
    assert lines[0] == f"{len(p.passes)} pass(es):"
    pass_lines = lines[1 : 1 + len(p.passes)]
    for i, (line, s) in enumerate(zip(pass_lines, p.passes), 1):
        assert line.startswith(f"  {i}. ")
        assert s.describe() in line
        assert f"[{', '.join(s.inputs)} -> {s.output}]" in line
    assert "grayscale(0.5) -> sepia(0.2)" in text and "1 clamped step (clamps that cannot act merged)" in text
    assert text.count("taps") == 4
    assert text.count("halve") == sum(1 for s in p.passes if isinstance(s, ResamplePass) and s.direction == "down")
    assert text.count("bilinear") == 2
    assert "shadow  alpha of" in text and "offset (2, 3)" in text and "rgb(255 0 0 / 1)" in text
    assert "at 1/4 size" in text and "at 1/32 size" in text
    t, r, b, l = p.outsets
    assert f"output grows by top {t}, right {r}, bottom {b}, left {l} px" in lines
    assert "note: hue-rotate(0deg) does nothing: dropped" in lines
    assert any(line.startswith("note: blur(300px): sigma capped at 100px") for line in lines)
    assert repr(p) == f"FilterPlan({len(p.passes)} passes, output={p.output!r})"


def test_describe_without_growth_says_nothing_about_it():
    text = str(plan("sepia(1) invert(.5)"))
    assert "grows" not in text and "note" not in text
    assert "sepia(1) -> invert(0.5)" in text


# -- 8. the frame graph -----------------------------------------------------------------------


def frame_pass(graph: FrameGraph) -> CompositePass:
    last = graph.passes[-1]
    assert isinstance(last, CompositePass) and last.reason is SurfaceReason.ROOT
    return last


def surface_pass(graph: FrameGraph, layer_id: str) -> CompositePass:
    found = [p for p in graph.composite_passes() if p.target.name == f"surface:{layer_id}"]
    assert len(found) == 1, f"surface:{layer_id}: {len(found)} passes"
    return found[0]


def filter_passes_of(graph: FrameGraph, layer_id: str) -> list[FilterPass]:
    return [p for p in graph.filter_passes() if p.layer_id == layer_id]


def draw_of(graph: FrameGraph, layer_id: str, where: CompositePass | None = None) -> Draw:
    passes = [where] if where else graph.composite_passes()
    found = [d for p in passes for d in p.draws if d.layer_id == layer_id]
    assert len(found) == 1, f"{layer_id}: {len(found)} draws"
    return found[0]


def decisions(graph: FrameGraph) -> dict[str, str]:
    return {d.layer_id: d.text for d in graph.decisions}


def index_of(graph: FrameGraph, name: str) -> int:
    names = [p.name for p in graph.passes]
    assert name in names, f"no pass {name}"
    return names.index(name)


def test_blurred_layer_gets_a_grown_filter_surface_then_filter_passes():
    scene = Scene(100, 100)
    scene.root.add(Layer("a", (10, 20, 30, 40), RED + "; filter: blur(3px)"))
    graph = scene.plan(policy="none")
    graph.validate()
    surf = surface_pass(graph, "a")
    assert surf.reason is SurfaceReason.FILTER
    assert surf.target.role is TextureRole.RENDER_SURFACE
    # reach ceil(3 * 3) = 9 on every side around (10, 20, 30, 40)
    assert surf.origin == (1, 11)
    assert (surf.target.width, surf.target.height) == (48, 58)
    assert "blur(3px)" in surf.detail and "screen space" in surf.detail and "9/9/9/9" in surf.detail
    inner = draw_of(graph, "a", surf)
    assert inner.source.name == "layer:a" and inner.opacity == 1.0
    assert inner.transform.almost_equal(Affine.translate(9, 9))

    fps = filter_passes_of(graph, "a")
    assert [p.kind for p in fps] == ["filter", "filter"]
    assert [(p.step.kind, p.step.axis) for p in fps] == [("blur", "x"), ("blur", "y")]
    assert fps[0].inputs == (surf.target,)
    assert fps[1].inputs == (fps[0].target,)
    for p in fps:
        assert p.target.role is TextureRole.FILTER_OUTPUT
        assert (p.target.width, p.target.height) == (48, 58)
        assert p.target.name.startswith("filter:a:")
    # order: raster, surface composite, filter passes, frame
    assert index_of(graph, "raster:a") < index_of(graph, "composite:a") < index_of(graph, fps[0].name)
    assert index_of(graph, fps[1].name) < len(graph.passes) - 1

    final = draw_of(graph, "a", frame_pass(graph))
    assert final.source is fps[-1].target
    assert final.opacity == 1.0
    assert final.transform.almost_equal(Affine.translate(1, 11))
    assert "filtered (2 passes)" in final.note


def test_opacity_applies_after_the_filter():
    scene = Scene(100, 100)
    a = scene.root.add(Layer("a", (10, 10, 30, 30), RED + "; opacity: .5; filter: blur(2px)"))
    a.add(Layer("kid", (5, 5, 5, 5), "background-color: blue"))  # two drawing layers: still one surface
    graph = scene.plan(policy="none")
    graph.validate()
    assert [p.reason for p in graph.composite_passes()] == [SurfaceReason.FILTER, SurfaceReason.ROOT]
    surf = surface_pass(graph, "a")
    assert [(d.layer_id, d.opacity) for d in surf.draws] == [("a", 1.0), ("kid", 1.0)]
    final = draw_of(graph, "a", frame_pass(graph))
    assert final.opacity == 0.5
    assert final.source is filter_passes_of(graph, "a")[-1].target


def test_filter_passes_mirror_the_plan_with_image_sizes():
    scene = Scene(200, 200)
    scene.root.add(Layer("a", (40, 40, 50, 30), RED + "; filter: sepia(1) blur(10px) drop-shadow(4px 4px 0 black)"))
    graph = scene.plan(policy="none")
    graph.validate()
    p = filters.parse("sepia(1) blur(10px) drop-shadow(4px 4px 0 black)").plan()
    fps = filter_passes_of(graph, "a")
    surf = surface_pass(graph, "a")
    assert [f.step for f in fps] == list(p.passes)
    assert [f.name for f in fps] == [f"filter:a:{i}:{s.kind}" for i, s in enumerate(p.passes, 1)]
    textures = {"source": surf.target}
    for f in fps:
        assert f.inputs == tuple(textures[n] for n in f.step.inputs)
        assert (f.target.width, f.target.height) == image_size(surf.target.width, surf.target.height, f.step.scale)
        textures[f.step.output] = f.target
    t, r, b, l = p.outsets
    assert surf.origin == (40 - l, 40 - t)
    assert (surf.target.width, surf.target.height) == (50 + l + r, 30 + t + b)
    assert draw_of(graph, "a", frame_pass(graph)).source is textures[p.output]


def test_filter_that_does_nothing_makes_no_surface_and_says_so():
    scene = Scene(100, 100)
    scene.root.add(Layer("a", (10, 10, 30, 30), RED + "; filter: grayscale(0) hue-rotate(360deg)"))
    graph = scene.plan(policy="none")
    assert graph.filter_passes() == []
    assert [p.reason for p in graph.composite_passes()] == [SurfaceReason.ROOT]
    d = draw_of(graph, "a", frame_pass(graph))
    assert d.source.name == "layer:a"
    assert Decision("a", "filter: grayscale(0) hue-rotate(360deg) does nothing: no surface") in graph.decisions


@pytest.mark.parametrize("css", ["filter: blur(1px)", "filter: grayscale(0)"])
def test_filter_creates_a_stacking_context(css):
    scene = Scene(100, 100)
    a = scene.root.add(Layer("a", (0, 0, 50, 50), RED + "; " + css))
    a.add(Layer("a-neg", (0, 0, 5, 5), RED + "; z-index: -1"))
    a.add(Layer("a-top", (0, 0, 5, 5), RED + "; z-index: 5"))
    scene.root.add(Layer("b", (0, 0, 5, 5), RED))
    graph = scene.plan(policy="none")
    # a's children stay with a (never below a, never above b)
    order = [d.layer_id for p in graph.composite_passes() for d in p.draws if not d.note.startswith("filtered")]
    assert order == ["a", "a-neg", "a-top", "b"]


def test_without_a_filter_the_same_tree_is_not_trapped():
    """Control for the stacking-context test: the order differs when nothing traps."""
    scene = Scene(100, 100)
    a = scene.root.add(Layer("a", (0, 0, 50, 50), RED))
    a.add(Layer("a-neg", (0, 0, 5, 5), RED + "; z-index: -1"))
    a.add(Layer("a-top", (0, 0, 5, 5), RED + "; z-index: 5"))
    scene.root.add(Layer("b", (0, 0, 5, 5), RED))
    assert [d.layer_id for d in frame_pass(scene.plan(policy="none")).draws] == ["a-neg", "a", "b", "a-top"]


def test_rotated_layer_filters_in_its_own_space():
    scene = Scene(100, 100)
    scene.root.add(Layer("r", (10, 20, 30, 40), RED + "; filter: blur(2px); transform: rotate(30deg)"))
    graph = scene.plan(policy="none")
    graph.validate()
    surf = surface_pass(graph, "r")
    assert "own space" in surf.detail and "scale 1" in surf.detail
    # the surface is the layer's box grown by 6, in its own px
    assert surf.origin == (-6, -6)
    assert (surf.target.width, surf.target.height) == (42, 52)
    assert draw_of(graph, "r", surf).transform.almost_equal(Affine.translate(6, 6))
    final = draw_of(graph, "r", frame_pass(graph))
    assert not final.transform.is_translation()
    # the surface texel (6, 6) is the layer's top-left corner: it lands where the layer's does
    layer_to_screen = Affine.translate(10, 20) @ Affine.translate(15, 20) @ Affine.rotate(30) @ Affine.translate(-15, -20)
    x, y = final.transform.apply(6, 6)
    assert (x, y) == pytest.approx(layer_to_screen.apply(0, 0))


def test_scaled_layer_filters_at_the_scale_it_is_shown():
    scene = Scene(200, 200)
    # scaled about its centre: shown at (15, 10)-(75, 90), its growth stays on screen
    scene.root.add(Layer("s", (30, 30, 30, 40), RED + "; filter: blur(3px); transform: scale(2)"))
    graph = scene.plan(policy="none")
    graph.validate()
    surf = surface_pass(graph, "s")
    assert "own space" in surf.detail and "scale 2" in surf.detail
    fps = filter_passes_of(graph, "s")
    assert [f.step for f in fps] == list(filters.parse("blur(3px)").plan(scale=2).passes)
    # 60x80 shown px grown by ceil(3 * 6) = 18 each side
    assert (surf.target.width, surf.target.height) == (60 + 36, 80 + 36)


def test_translated_layer_filters_in_screen_space():
    scene = Scene(100, 100)
    scene.root.add(Layer("t", (10, 20, 30, 40), RED + "; filter: blur(2px); transform: translate(5px, 6px)"))
    graph = scene.plan(policy="none")
    surf = surface_pass(graph, "t")
    assert "screen space" in surf.detail and "own space" not in surf.detail
    assert surf.origin == (15 - 6, 26 - 6)
    assert (surf.target.width, surf.target.height) == (42, 52)
    assert draw_of(graph, "t", frame_pass(graph)).transform.almost_equal(Affine.translate(9, 20))


@pytest.mark.parametrize("x", [105, 114])
def test_layer_just_off_screen_whose_blur_reaches_in_is_planned(x):
    scene = Scene(100, 100)
    scene.root.add(Layer("a", (x, 10, 20, 20), RED + "; filter: blur(5px)"))  # reach 15
    graph = scene.plan(policy="none")
    graph.validate()
    assert [p.layer_id for p in graph.raster_passes()] == ["a"]
    surf = surface_pass(graph, "a")
    # the surface covers every viewport column the blur reaches: from x - 15 to the edge
    assert surf.origin[0] <= x - 15
    assert surf.origin[0] + surf.target.width >= 100
    final = draw_of(graph, "a", frame_pass(graph))
    assert final.source is filter_passes_of(graph, "a")[-1].target
    assert "a" not in decisions(graph)


@pytest.mark.parametrize("pos", [(115, 10), (10, -35), (1000, 1000)])
def test_layer_whose_blur_cannot_reach_the_viewport_is_culled(pos):
    scene = Scene(100, 100)
    scene.root.add(Layer("a", (*pos, 20, 20), RED + "; filter: blur(5px)"))
    graph = scene.plan(policy="none")
    assert graph.raster_passes() == [] and graph.filter_passes() == []
    assert frame_pass(graph).draws == ()
    assert "not drawn" in decisions(graph)["a"]


def test_nested_filters_run_the_childs_passes_before_the_parents_surface():
    scene = Scene(200, 200)
    p = scene.root.add(Layer("p", (20, 20, 40, 40), "background-color: blue; filter: blur(2px)"))
    p.add(Layer("c", (5, 5, 10, 10), RED + "; filter: blur(1px)"))
    graph = scene.plan(policy="none")
    graph.validate()
    child_passes = filter_passes_of(graph, "c")
    parent_passes = filter_passes_of(graph, "p")
    assert len(child_passes) == 2 and len(parent_passes) == 2
    i_child_surface = index_of(graph, "composite:c")
    i_parent_surface = index_of(graph, "composite:p")
    assert i_child_surface < min(index_of(graph, f.name) for f in child_passes)
    assert max(index_of(graph, f.name) for f in child_passes) < i_parent_surface
    assert i_parent_surface < min(index_of(graph, f.name) for f in parent_passes)
    psurf = surface_pass(graph, "p")
    assert psurf.origin == (14, 14)
    # the child's filtered result is drawn inside the parent's surface, once
    cdraw = draw_of(graph, "c", psurf)
    assert cdraw.source is child_passes[-1].target
    csurf = surface_pass(graph, "c")
    assert csurf.origin == (22, 22) and (csurf.target.width, csurf.target.height) == (16, 16)
    assert cdraw.transform.almost_equal(Affine.translate(22 - 14, 22 - 14))
    assert [d.layer_id for d in frame_pass(graph).draws] == ["p"]


@pytest.mark.parametrize("parent_css", ["filter: blur(2px)", "opacity: .5", "filter: sepia(1)"])
def test_parent_surface_holds_its_filtered_childs_whole_result(parent_css):
    """A filtered child's blur reaches past the parent's box; the parent's surface must
    hold all of it, or the child's blur is cut off at the parent's edge."""
    scene = Scene(200, 200)
    p = scene.root.add(Layer("p", (20, 20, 40, 40), "background-color: blue; " + parent_css))
    p.add(Layer("c", (30, 0, 10, 10), RED + "; filter: blur(5px)"))  # reach 15 past p's top and right
    graph = scene.plan(policy="none")
    graph.validate()
    psurf = surface_pass(graph, "p")
    cdraw = draw_of(graph, "c", psurf)
    # the child's filtered result in screen px
    cx, cy = psurf.origin[0] + cdraw.transform.e, psurf.origin[1] + cdraw.transform.f
    cw, ch = cdraw.source.width, cdraw.source.height
    assert (cx, cy, cw, ch) == (35, 5, 40, 40)
    px, py = psurf.origin
    pw, ph = psurf.target.width, psurf.target.height
    assert px <= cx and py <= cy and px + pw >= cx + cw and py + ph >= cy + ch, (
        f"surface:p covers ({px}, {py}, {pw}, {ph}) but the child's blur covers ({cx}, {cy}, {cw}, {ch})"
    )


def test_every_filtered_graph_validates_and_describes():
    scene = Scene(120, 90)
    scene.root.add(Layer("a", (10, 10, 30, 30), RED + "; filter: drop-shadow(3px 3px 4px black) sepia(.5)"))
    b = scene.root.add(Layer("b", (60, 10, 40, 40), RED + "; filter: blur(20px); opacity: .7"))
    b.add(Layer("b1", (5, 5, 10, 10), "background-color: green; filter: hue-rotate(90deg)"))
    scene.root.add(Layer("c", (10, 50, 30, 30), RED + "; filter: invert(1); transform: skewX(20deg)"))
    graph = scene.plan(policy="none")
    graph.validate()
    text = graph.describe()
    assert f"{len(graph.filter_passes())} filter passes" in text
    for f in graph.filter_passes():
        assert f.step.describe() in text
    d = graph.to_dict()
    filter_entries = [e for e in d["passes"] if e["kind"] == "filter"]
    assert len(filter_entries) == len(graph.filter_passes())
    assert all(e["reason"] == "filter" and e["inputs"] for e in filter_entries)
    roles = {t["role"] for t in d["textures"]}
    assert {"filter output", "render surface", "layer content", "frame"} <= roles
    # every filter output is read by a later pass (nothing planned in vain)
    read = {t.name for p in graph.passes for t in p.reads()}
    assert all(f.target.name in read for f in graph.filter_passes())
