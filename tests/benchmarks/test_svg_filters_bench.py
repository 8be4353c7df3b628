"""Benchmarks: SVG filter primitives compiled to GPU passes (lamina.filters.svg.compile,
compile_color, compile_noise, compile_spatial) on a 1920x1080 premultiplied image through ``filters.apply``,
GL and OpenCL, in the same run; each round runs the whole graph (upload, its passes,
read-back). The ratio test measures what linearRGB adds to a colour primitive (two
conversions per pixel in the pass) against the same primitive in sRGB, in one run.

    .venv/bin/python -m pytest tests/benchmarks/test_svg_filters_bench.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import math
import statistics
import time

import numpy as np
import pytest

from lamina import filters
from lamina.filters.backend import FilterBackend
from lamina.filters.plan import FilterPlan, FilterProgram, FilterShader, SvgColorPass, SvgColorStep
from lamina.filters.runners import plan_runner

from .test_filters_bench import ROUNDS, make_image

NS = 'xmlns="http://www.w3.org/2000/svg"'
BOX = 'x="0" y="0" width="1" height="1"'
GRAPHS = {
    "colour matrix (linearRGB)": "<feColorMatrix type='hueRotate' values='60'/>",
    "colour matrix (sRGB)": "<feColorMatrix type='hueRotate' values='60' color-interpolation-filters='sRGB'/>",
    "component transfer table+gamma (linearRGB)": (
        "<feComponentTransfer><feFuncR type='table' tableValues='0 .8 .2 1'/><feFuncG type='discrete' "
        "tableValues='.1 .5 .9'/><feFuncB type='gamma' exponent='.6'/></feComponentTransfer>"),
    "three colour primitives fused (linearRGB)": (
        "<feColorMatrix type='hueRotate' values='60'/><feColorMatrix type='saturate' values='1.4'/>"
        "<feComponentTransfer><feFuncA type='gamma' exponent='.6'/></feComponentTransfer>"),
    "arithmetic composite (linearRGB)": ("<feOffset dx='3' result='o'/><feComposite in='SourceGraphic' in2='o' "
                                         "operator='arithmetic' k1='.5' k2='.5' k3='.3'/>"),
    "turbulence 4 octaves (linearRGB)": "<feTurbulence baseFrequency='.01' numOctaves='4'/>",
    "fractalNoise 4 octaves + colour matrix fused": ("<feTurbulence type='fractalNoise' baseFrequency='.01' "
                                                     "numOctaves='4'/><feColorMatrix type='saturate' values='0'/>"),
}
SPOT = "<feSpotLight x='900' y='400' z='300' pointsAtX='1000' pointsAtY='600' specularExponent='3' limitingConeAngle='40'/>"
LIGHTS = {"distant": "<feDistantLight azimuth='45' elevation='40'/>", "point": "<fePointLight x='900' y='400' z='300'/>",
          "spot": SPOT}
for _light, _element in LIGHTS.items():
    GRAPHS[f"diffuse lighting {_light} (linearRGB)"] = (f"<feDiffuseLighting surfaceScale='4' lighting-color='#fed'>"
                                                        f"{_element}</feDiffuseLighting>")
    GRAPHS[f"specular lighting {_light} (linearRGB)"] = (f"<feSpecularLighting surfaceScale='4' specularExponent='20'>"
                                                         f"{_element}</feSpecularLighting>")

# compile_spatial: one dependent read a pixel; order x order taps; 2 x (8 sigma + 1) taps at
# full size. Measured (1080p, medians of 5, 2 shared cores under a load of ~7, so absolute
# times are inflated ~2-3x; GL / OpenCL ms): displacement 100 / 580 (445 after the map read
# only its two channels; 132 with an sRGB map: PoCL's exp2 / log2 are the rest), convolve 3x3
# sRGB 455 / 384, 3x3 linearRGB 1268 / 6563 (a conversion a tap: llvmpipe's pow, PoCL's
# exp2 / log2), 7x7 wrap 2001 / 1045, blur sigma 4 wrap 3412 / 1445 vs edgeMode none's CSS
# passes 768 / 542 (33 taps a pass at full size against 25 at most, and weights read from a
# uniform array a tap: llvmpipe gathers an indexed uniform per lane).
SPATIAL = {
    "displacement map by the source (linearRGB map)": ("<feDisplacementMap in2='SourceGraphic' scale='30' "
                                                       "xChannelSelector='R' yChannelSelector='G'/>"),
    "convolve matrix 3x3 (sRGB)": ("<feConvolveMatrix kernelMatrix='-2 -1 0 -1 1 1 0 1 2' "
                                   "color-interpolation-filters='sRGB'/>"),
    "convolve matrix 3x3 (linearRGB)": "<feConvolveMatrix kernelMatrix='-2 -1 0 -1 1 1 0 1 2'/>",
    "convolve matrix 7x7 wrap (sRGB)": ("<feConvolveMatrix order='7' edgeMode='wrap' kernelMatrix='"
                                        + " ".join(["1"] * 49) + "' color-interpolation-filters='sRGB'/>"),
    "gaussian blur sigma 4 edgeMode wrap (sRGB)": ("<feGaussianBlur stdDeviation='4' edgeMode='wrap' "
                                                  "color-interpolation-filters='sRGB'/>"),
    "gaussian blur sigma 4 edgeMode none (sRGB, the CSS blur passes)": (
        "<feGaussianBlur stdDeviation='4' color-interpolation-filters='sRGB'/>"),
}


def markup(body: str) -> str:
    return f'<svg {NS}><filter id="f" {BOX}>{body}</filter></svg>'


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
@pytest.mark.parametrize("name", list(GRAPHS))
def test_svg_primitive_1080p(benchmark, gl, name, backend):
    benchmark.group = f"SVG filter 1080p: {name}"
    image, svg = make_image(), markup(GRAPHS[name])
    run = lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=svg)  # noqa: E731
    out = benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)
    assert out.shape == image.shape and out.any(), "the graph ran and drew something"


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
@pytest.mark.parametrize("name", list(SPATIAL))
def test_svg_spatial_primitive_1080p(benchmark, gl, name, backend):
    """compile_spatial's primitives at 1080p (at 320x180 when benchmarks are disabled: the
    suite's smoke run of these full-size convolutions would cost ~15 s)."""
    benchmark.group = f"SVG filter 1080p: {name}"
    image, svg = make_image(), markup(SPATIAL[name])
    if benchmark.disabled:
        image = image[:180, 200:520].copy()
    run = lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=svg)  # noqa: E731
    out = benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)
    assert out.shape == image.shape and out.any(), "the graph ran and drew something"


def median_ms(fn, rounds: int) -> float:
    """Median ms of ``rounds`` calls of ``fn``, after one not timed (compile, allocate);
    the SVG benchmarks share it."""
    fn()  # compile, allocate
    samples = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1e3)
    return statistics.median(samples)


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_linear_rgb_costs_a_colour_primitive_its_conversions_only(gl, backend):
    """linearRGB converts in the pass (no passes of its own): its svg colour pass costs the
    per-pixel powers, not another full-screen pass plus read-back. Measured here (1080p,
    median): GL 768 vs 787 ms (1.0x, measured before svg colour programs were compiled per form: every branch ran;
    see test_svg_colour_pass_within_twice_the_css_colour_pass), OpenCL 584 vs 86 ms (6.8x: PoCL's exp2 / log2; precise pow()
    was 2.4 s). (luminanceToAlpha runs
    as an svg colour pass in both spaces; an sRGB hueRotate lowers to the CSS colour pass.)"""
    image = make_image()
    linear, srgb = (markup(f"<feColorMatrix type='luminanceToAlpha' color-interpolation-filters='{space}'/>")
                    for space in ("linearRGB", "sRGB"))
    rounds = max(3, ROUNDS // 3)
    t_linear = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=linear), rounds)
    t_srgb = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=srgb), rounds)
    print(f"\n{backend}: luminanceToAlpha 1080p linearRGB {t_linear:.1f} ms, sRGB {t_srgb:.1f} ms "
          f"({t_linear / t_srgb:.2f}x)")
    assert t_linear <= 8.0 * t_srgb, (t_linear, t_srgb)


# Issue 27's six-primitive graph, in sRGB so that both sides do the same work (skia-python's
# image filters do no colour-space conversion of their own).
SIX = ("<feTurbulence type='fractalNoise' baseFrequency='.01' numOctaves='3' result='noise'/>"
       "<feDisplacementMap in='SourceGraphic' in2='noise' scale='30' xChannelSelector='R' yChannelSelector='G' "
       "result='moved'/>"
       "<feGaussianBlur in='moved' stdDeviation='3' result='soft'/>"
       "<feColorMatrix in='soft' type='saturate' values='1.5' result='vivid'/>"
       "<feComposite in='vivid' in2='SourceGraphic' operator='in' result='clipped'/>"
       "<feMerge><feMergeNode in='SourceGraphic'/><feMergeNode in='clipped'/></feMerge>")


def skia_six(skia, size: tuple[int, int]):
    """SIX as skia-python image filters: the noise a picture of a Perlin-noise shader
    (recorded once, rasterised by every draw), then DisplacementMap, Blur, a colour
    matrix, Xfermode srcIn (vivid in the source) and Merge."""
    from .test_filters_bench import skia_draw

    w, h = size
    recorder = skia.PictureRecorder()
    canvas = recorder.beginRecording(skia.Rect.MakeWH(w, h))
    canvas.drawRect(skia.Rect.MakeWH(w, h), skia.Paint(Shader=skia.PerlinNoiseShader.MakeFractalNoise(.01, .01, 3, 0)))
    noise = skia.ImageFilters.Picture(recorder.finishRecordingAsPicture())
    source = skia.ImageFilters.Offset(0.0, 0.0)  # the binding takes no None for the colour input
    moved = skia.ImageFilters.DisplacementMap(skia.ColorChannel.kR, skia.ColorChannel.kG, 30.0, noise, source)
    soft = skia.ImageFilters.Blur(3.0, 3.0, skia.TileMode.kDecal, moved)
    s = 1.5  # feColorMatrix saturate, as Filter Effects 1 writes it
    sat = [.213 + .787 * s, .715 - .715 * s, .072 - .072 * s, 0, 0,
           .213 - .213 * s, .715 + .285 * s, .072 - .072 * s, 0, 0,
           .213 - .213 * s, .715 - .715 * s, .072 + .928 * s, 0, 0,
           0, 0, 0, 1, 0]
    vivid = skia.ImageFilters.ColorFilter(skia.ColorFilters.Matrix(sat), soft)
    clipped = skia.ImageFilters.Xfermode(skia.BlendMode.kSrcIn, None, vivid)  # foreground vivid in the source
    return skia_draw(skia, skia.Paint(ImageFilter=skia.ImageFilters.Merge([None, clipped])))


@pytest.mark.gl
def test_six_primitive_graph_vs_skia_python(gl, benchmark):
    """Issue 27's target: Lamina's time for the six-primitive graph at 1080p at most 0.5x
    skia-python's (CPU raster) for the same graph, both including wrapping the array and
    making the output. Measured, medians in one run, printed; the assertion is only that
    both ran the graph. Not met on this machine: skia 770 ms, GL 4542 ms (5.9x), OpenCL
    2660 ms (3.5x), under a load of ~7 on 2 cores. What limits it, per primitive alone (GL /
    OpenCL ms, same load): feTurbulence 3 octaves 1825 / 1562 (4 channels x 3 octaves of
    the spec's float noise a pixel; Skia's Perlin shader is hand-vectorised), feGaussianBlur
    3 428 / 187, the svg colour pass 580 / 160 (llvmpipe, see above), each combine ~170 / 70,
    the displacement ~100 / 130, plus a 1080p upload and read-back. llvmpipe and PoCL are
    CPU rasterisers sharing skia's cores: the 0.5x target is one for a GPU."""
    skia = pytest.importorskip("skia", reason="skia-python is not installed (pip install -e '.[bench]')")
    image, svg = make_image(), markup(SIX)
    svg = svg.replace('<filter id="f" ', '<filter id="f" color-interpolation-filters="sRGB" ')
    rounds = max(3, ROUNDS // 3)
    if benchmark.disabled:  # the suite's smoke run: the graph on a crop, once each
        image, rounds = image[:180, 200:520].copy(), 1
    h, w = image.shape[:2]
    draw = skia_six(skia, (w, h))
    times = {"skia": median_ms(lambda: draw(image), rounds)}
    for backend in ("gl", "opencl"):
        times[backend] = median_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=svg),
                                    rounds)
    print(f"\nsix-primitive graph {w}x{h}, median ms: " + ", ".join(f"{k} {v:.1f}" for k, v in times.items())
          + f"; ratios gl/skia {times['gl'] / times['skia']:.2f}x, opencl/skia {times['opencl'] / times['skia']:.2f}x")
    benchmark.group = "SVG six-primitive graph vs skia-python (the skia side, one round: the ratios are printed)"
    theirs = benchmark.pedantic(draw, args=(image,), rounds=1, iterations=1)
    ours = filters.apply(image, "url(#f)", "gl", premultiplied=True, svg=svg)
    assert ours.shape == theirs.shape and ours.any() and theirs.any(), "both drew the graph"
@pytest.mark.gl
def test_svg_colour_pass_within_twice_the_css_colour_pass(gl, benchmark):
    """The svg colour pass (SvgColorPass) runs one colour matrix at 1080p within 2x of
    the CSS colour pass (ColorPass) running the same matrix, in the same run. It was ~9x
    (150 vs 18 ms here): one general program looped to a uniform step count, so its
    uniform arrays were indexed dynamically, and llvmpipe ran every branch it held (the
    linearRGB conversions, all transfer function types with their table reads) under a
    lane mask. Its programs are now compiled per step bucket and form
    (FilterProgram.svg_color): the same matrix measured 1.0-1.1x."""
    image = make_image()
    css_plan = filters.parse("sepia(0.5)").plan(size=(image.shape[1], image.shape[0]))
    (css_pass,) = css_plan.passes
    m34 = css_pass.matrices()[0].astype(np.float64)  # 3x4: RGB rows, offsets last
    m45 = np.zeros((4, 5))
    m45[:3, :3], m45[:3, 4], m45[3, 3] = m34[:, :3], m34[:, 3], 1.0
    step = SvgColorStep(matrix=tuple(float(v) for v in m45.reshape(-1)))
    svg_plan = FilterPlan((SvgColorPass(("source",), "svg", (step,)),), "svg", (0, 0, 0, 0))
    assert svg_plan.passes[0].gl().program == FilterProgram(FilterShader.SVG_COLOR, 1), "the one-matrix sRGB form"
    run = plan_runner(FilterBackend.GL)
    css = lambda: run(image, css_plan, straight=False)  # noqa: E731
    svg = lambda: run(image, svg_plan, straight=False)  # noqa: E731
    assert np.abs(css().astype(int) - svg().astype(int)).max() <= 1, "both passes compute the same matrix"
    if benchmark.disabled:  # the suite's smoke run: same pixels, no timing on shared cores
        return
    rounds = max(5, ROUNDS // 2)
    t_css, t_svg = [], []
    for _ in range(3):  # interleaved, so load on the shared cores falls on both
        t_css.append(median_ms(css, rounds))
        t_svg.append(median_ms(svg, rounds))
    t_css_ms, t_svg_ms = min(t_css), min(t_svg)
    print(f"\n1080p one colour matrix: css colour pass {t_css_ms:.1f} ms, svg colour pass {t_svg_ms:.1f} ms "
          f"({t_svg_ms / t_css_ms:.2f}x)")
    assert t_svg_ms <= 2.0 * t_css_ms, (t_svg_ms, t_css_ms)
@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_a_primitive_subregion_costs_one_pass_no_dearer_than_an_offset(gl, backend, benchmark):
    """A subregion is a region pass after its primitive (one texel read per pixel; the
    primitive's own pass is unchanged): at 1080p, in one run with the variants
    interleaved, what a subregion adds to an feOffset graph is about what a second
    whole-pixel feOffset pass adds (medians; the machine is shared, so within 1.5x).
    Measured on the 2 shared cores at load 7-8 (medians of 15): GL feOffset 71.9 ms, with a
    subregion 138.1 (+66), with a second feOffset 141.3 (+69)."""
    image = make_image()
    graphs = {"offset": "<feOffset dx='3' dy='2'/>",
              "subregion": "<feOffset dx='3' dy='2' x='100' y='80' width='1500' height='900'/>",
              "two offsets": "<feOffset dx='3' dy='2'/><feOffset dx='1'/>"}
    runs = {name: (lambda svg=markup(body.replace("/>", " color-interpolation-filters='sRGB'/>")):
                   filters.apply(image, "url(#f)", backend, premultiplied=True, svg=svg))
            for name, body in graphs.items()}
    for run in runs.values():
        run()  # compile, allocate
    if benchmark.disabled:  # the suite's smoke run: each graph ran once; no timing on shared cores
        return
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(ROUNDS):
        for name, run in runs.items():
            t = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - t) * 1e3)
    best = {name: statistics.median(v) for name, v in times.items()}
    region, offset = best["subregion"] - best["offset"], best["two offsets"] - best["offset"]
    print(f"\n{backend} 1080p (medians): feOffset {best['offset']:.1f} ms, + a subregion {region:+.1f} ms, "
          f"+ a second feOffset {offset:+.1f} ms")
    assert region <= 1.5 * max(offset, 0.0) + 2.0, best


def _best_ms(fn, rounds: int) -> float:
    """The fastest of ``rounds`` runs (after one to compile): the pass's own cost, with
    the load of the other users of the shared cores left out as far as one can."""
    fn()
    best = math.inf
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - t) * 1e3)
    return best


@pytest.mark.gl
@pytest.mark.parametrize("backend", ["gl", "opencl"])
def test_what_limits_a_lighting_pass(gl, backend):
    """Each lighting primitive at 1080p against a one-pass sRGB colour matrix (the same
    upload, one full-screen pass, read-back), in one run; and sRGB against linearRGB. On
    GL (llvmpipe) the nine alpha fetches a pixel and the normal dominate: every light and
    both spaces cost about the same. On OpenCL (PoCL) the powers do: linearRGB's sRGB
    encoding of the light and the specular exponent, each an exp2 / log2 pair (PoCL's
    are slow, measured). Ratios use each graph's fastest run (the cores are shared).
    Measured (1080p, 2 shared cores, quiet to loaded): GL colour matrix 13-94 ms,
    lighting 51-260 ms (ratio 3-4); OpenCL colour matrix 14-136 ms, diffuse sRGB 37-360 ms,
    diffuse linearRGB 84-600 ms, specular linearRGB 81-650 ms (1.5-1.9 s loaded before the
    exponent used the native powers)."""
    image = make_image()
    rounds = max(5, ROUNDS // 3)
    one_pass = _best_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True, svg=markup(
        "<feColorMatrix type='hueRotate' values='60' color-interpolation-filters='sRGB'/>")), rounds)
    times = {}
    for kind, extra in (("Diffuse", ""), ("Specular", " specularExponent='20'")):
        for space in ("sRGB", "linearRGB"):
            svg = markup(f"<fe{kind}Lighting surfaceScale='4' color-interpolation-filters='{space}'{extra}>"
                         f"{LIGHTS['distant']}</fe{kind}Lighting>")
            times[kind, space] = _best_ms(lambda: filters.apply(image, "url(#f)", backend, premultiplied=True,
                                                                  svg=svg), rounds)
    print(f"\n{backend}: 1080p one colour pass {one_pass:.0f} ms; " +
          ", ".join(f"{k.lower()} {sp} {t:.0f} ms ({t / one_pass:.1f}x)" for (k, sp), t in times.items()))
    if backend == "gl":  # fetch-bound: the light's maths and the colour space barely count
        assert max(times.values()) <= 2.5 * min(times.values()), times
    else:  # power-bound: linearRGB's encoding costs more than the whole sRGB pass over the one-pass floor
        assert times["Diffuse", "linearRGB"] - one_pass > times["Diffuse", "sRGB"] - one_pass, times
