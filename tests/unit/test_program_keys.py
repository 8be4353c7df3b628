"""Program keys are types, and the raster paint's GL call is data (issue 21, item 5).

No GPU: these read the variant table, the keys and the GLSL sources as text.

* every key's ``str()`` is the name the program had when names were strings built in
  one place and parsed back in another (the legacy builders are copied here as they
  were), so reports, traces and graph dumps read as before;
* the variant table holds exactly the programs it held before keys (names, files and
  #defines: tests/unit/fixtures/program_variants.json, captured before the change);
* a LayerPaint's RasterCall sets exactly the uniforms its program declares (the raster
  fragment shader and what it includes, preprocessed for that variant's #defines), each
  with the shape the declaration gives it (a vec4 four numbers, an array its length).
"""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path

import pytest

from lamina.blending import BlendMode
from lamina.compositor.dashes import BorderPattern
from lamina.compositor.paint_data import (BorderKind, FillKind, GradientPaint, ImagePaint, InsetKind, LayerPaint,
                                          RasterCall, RasterProgram)
from lamina.compositor.shadow_cells import ALL_CORNERS, NO_CORNER, Cell, CornerBites, ShadowRingProgram
from lamina.compositor.shadows import ShadowPaint
from lamina import filters
from lamina.filters.plan import FilterProgram, FilterShader
from lamina.geometry import Affine
from lamina.gpu.programs import VARIANTS, VARIANTS_BY_NAME, NamedProgram
from lamina.gpu.shader_source import assemble
from lamina.limits import MAX_BOX_SHADOWS, MAX_CLIPS_PER_DRAW, MAX_GRADIENT_STOPS, MAX_MASKS_PER_DRAW
from lamina.style.gradients import ResolvedStop
from lamina.textures import ClipShape, CompositeProgram, Draw, DrawMask, TextureDesc, TextureRole

FIXTURE = Path(__file__).parent / "fixtures" / "program_variants.json"
SEED = 2121


# -- the names as the string builders made them (gpu.programs and compositor.paint_data
# before keys), kept here as the reference the keys' str() must reproduce --------------
def legacy_raster(kind: str, dashes: str, shadows: str) -> str:
    return f"raster.{kind}{dashes}{shadows}"


def legacy_shadow_ring(mode: str, sharp: bool, clip: bool = True, one: bool = True) -> str:
    return f"raster.shadow.{mode}.{'sharp' if sharp else 'soft'}{'.clip' if clip else ''}{'' if one else '.all'}"


def legacy_composite(clip_count: int, blend: bool = False, masks: int = 0) -> str:
    return f"composite.{'blend.' if blend else ''}{f'mask{masks}.' if masks else ''}clip{clip_count}"


_LEGACY_BUCKETS = (0, 1, 2, 3, 4, 6, 8, 12, 16)
_LEGACY_STRAIGHT = {(False, False): "", (True, False): ".straight-in", (False, True): ".straight-out",
                    (True, True): ".straight-in-out"}


def legacy_filter(base: str, source: bool, output: bool) -> str:
    return base + _LEGACY_STRAIGHT[source, output]


def legacy_color_filter(steps: int) -> str:
    return f"filter.color{next(b for b in _LEGACY_BUCKETS if b >= steps)}"


_LEGACY_FILL = {FillKind.COLOR: "color", FillKind.LINEAR: "linear", FillKind.RADIAL: "radial",
                FillKind.IMAGE: "image", FillKind.CONIC: "conic"}
_LEGACY_BORDER = {BorderKind.SOLID: "", BorderKind.DASHES: ".dashes", BorderKind.DOTS: ".dots"}
_LEGACY_INSET = {InsetKind.NONE: "", InsetKind.SHADOWS: ".shadows", InsetKind.ONE_SOFT: ".shadow"}


def test_the_variant_table_holds_the_programs_it_held_before_keys():
    """The fixture was captured from the string-named table before keys (plus the four
    alpha forms of filter.morphology, the one spatial filter added since, and of the SVG
    graphs' filter.combine, filter.offset, filter.svg_color, filter.turbulence, filter.displace,
    filter.convolve, filter.convolve_converted, filter.convolve_spread, filter.convolve_spread_converted,
    filter.lighting, filter.image, filter.morphology_linear and filter.shadow_linear, whose constants every filter program now gets;
    the svg colour programs since per step bucket and form, and turbulence's the same with fused
    colour steps: FilterProgram.svg_color)."""
    before = json.loads(FIXTURE.read_text(encoding="utf-8"))
    now = {name: [v.vertex, v.fragment, [list(d) for d in v.defines]] for name, v in VARIANTS_BY_NAME.items()}
    assert sorted(now) == sorted(before)
    assert now == before, [name for name in before if now[name] != before[name]]
    assert len(VARIANTS) == len(before), "two keys with one name"
    assert all(variant.key == key for key, variant in VARIANTS.items())


def test_every_raster_key_is_named_as_before():
    keys = [k for k in VARIANTS if isinstance(k, RasterProgram)]
    assert len(keys) == len(FillKind) * len(BorderKind) * len(InsetKind) == 45
    for key in keys:
        legacy = legacy_raster(_LEGACY_FILL[key.fill], _LEGACY_BORDER[key.border], _LEGACY_INSET[key.inset])
        assert str(key) == legacy
        assert key.variant == legacy[len("raster."):]  # what a paint's shader_variant says


def test_every_shadow_ring_key_is_named_as_before():
    keys = {k for k in VARIANTS if isinstance(k, ShadowRingProgram)}
    legacy = {ShadowRingProgram(CornerBites(mode), sharp, clip, one): legacy_shadow_ring(mode, sharp, clip, one)
              for mode, sharp, clip, one in itertools.product(("all", "corner", "none"), (False, True),
                                                              (False, True), (True, False)) if clip or one}
    assert keys == set(legacy)
    assert all(str(key) == name for key, name in legacy.items())
    # A cell's corner says which bites its program evaluates.
    assert [Cell((0, 0, 1, 1), c).bites for c in (ALL_CORNERS, 0, 3, NO_CORNER)] == [
        CornerBites.ALL, CornerBites.CORNER, CornerBites.CORNER, CornerBites.NONE]


def test_every_composite_key_is_named_as_before():
    keys = {k for k in VARIANTS if isinstance(k, CompositeProgram) and k.edge_area}
    inset = {k for k in VARIANTS if isinstance(k, CompositeProgram) and not k.edge_area}
    assert inset == {CompositeProgram(c, edge_area=False) for c in range(MAX_CLIPS_PER_DRAW + 1)}
    assert {str(k) for k in inset} == {f"composite.inset.clip{c}" for c in range(MAX_CLIPS_PER_DRAW + 1)}
    legacy = {CompositeProgram(c, b, m): legacy_composite(c, b, m)
              for c, b, m in itertools.product(range(MAX_CLIPS_PER_DRAW + 1), (False, True),
                                               range(MAX_MASKS_PER_DRAW + 1))}
    assert keys == set(legacy)
    assert all(str(key) == name for key, name in legacy.items())


def test_a_draw_says_its_program():
    source = TextureDesc("layer", 10, 10, TextureRole.LAYER_CONTENT)
    clip = ClipShape("c", Affine(), (0.0, 0.0, 5.0, 5.0), ((0.0, 0.0),) * 4, (1.0, 1.0))
    mask = DrawMask(source, "m", Affine())
    plain = Draw(source, "a", Affine(), 1.0)
    assert plain.program == CompositeProgram(0) and str(plain.program) == "composite.clip0"
    draw = Draw(source, "a", Affine(), 1.0, clips=(clip, clip), blend=BlendMode.MULTIPLY, masks=(mask,))
    assert draw.program == CompositeProgram(2, True, 1) and str(draw.program) == "composite.blend.mask1.clip2"
    assert draw.program in VARIANTS


def test_every_filter_key_is_named_as_before():
    keys = {k for k in VARIANTS if isinstance(k, FilterProgram)}
    bases = [legacy_color_filter(n) for n in sorted(set(_LEGACY_BUCKETS))] + [
        f"filter.{kind}" for kind in ("blur", "downsample", "upsample", "shadow", "morphology", "combine", "offset",
                                              "turbulence", "displace", "convolve", "convolve_converted", "convolve_spread",
                                              "convolve_spread_converted", "region", "lighting", "image",
                                              "morphology_linear", "shadow_linear", "to_linear", "to_srgb")]
    # SVG colour programs: one per step bucket and form; turbulence's and the way back from
    # a float image's (to_srgb) also with fused steps.
    bases += [f"filter.{shader}{n}{lin}{tr}" for shader in ("svg_color", "turbulence", "to_srgb") for n in (1, 2, 4, 8)
              for lin in ("", ".linear") for tr in ("", ".transfer")]
    legacy = {legacy_filter(b, s, o) for b in bases for s, o in _LEGACY_STRAIGHT}
    assert {str(k) for k in keys} == legacy and len(keys) == len(legacy)
    for steps in range(17):
        assert str(FilterProgram.color(steps)) == legacy_color_filter(steps)
    blur = FilterProgram(FilterShader.BLUR)
    assert str(blur.with_alpha(True, False)) == "filter.blur.straight-in"
    assert str(blur.with_alpha(True, True)) == "filter.blur.straight-in-out"


def test_planned_filter_passes_call_programs_the_table_holds():
    plan = filters.parse("blur(20px) drop-shadow(2px 3px 6px red) grayscale(1) blur(1px)").plan(size=(300, 200))
    calls = [p.gl() for p in plan.passes if hasattr(p, "gl")]
    assert {c.program.shader for c in calls} == {FilterShader.BLUR, FilterShader.DOWNSAMPLE, FilterShader.UPSAMPLE,
                                                 FilterShader.SHADOW}
    for call in calls:
        for source, output in itertools.product((False, True), (False, True)):
            assert call.program.with_alpha(source, output) in VARIANTS
        assert all(w in VARIANTS for w in call.warm)


def test_named_programs_keep_their_names():
    assert {str(k) for k in NamedProgram} == {"mask.polygon", "composite.plain", "composite.backdrop", "raster.text",
                                              "pixels.premultiply", "pixels.unpremultiply"}
    assert all(k in VARIANTS for k in NamedProgram)


# -- the raster call against the shader's declarations ----------------------------------
_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif|define)\b\s*(.*?)\s*(//.*)?$")
_UNIFORM = re.compile(r"^\s*uniform\s+(\w+)\s+(\w+)\s*(?:\[\s*(\w+)\s*\])?\s*;")
_SIZES = {"float": 1, "int": 1, "vec2": 2, "vec3": 3, "vec4": 4, "mat3": 9, "mat4": 16}


def _condition(text: str, defines: dict[str, int]) -> bool:
    text = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
                  lambda m: "1" if (m.group(1) or m.group(2)) in defines else "0", text)
    text = text.replace("||", " or ").replace("&&", " and ")
    text = re.sub(r"!(?!=)", " not ", text)
    text = re.sub(r"\b[A-Za-z_]\w*\b",
                  lambda m: m.group(0) if m.group(0) in ("or", "and", "not") else str(defines.get(m.group(0), 0)), text)
    return bool(eval(text, {"__builtins__": {}}))  # integers and operators only, built above


def declared_uniforms(fragment: str, defines: dict[str, int]) -> dict[str, tuple[str, int | None]]:
    """The uniforms a fragment shader declares in the code its #defines keep: name ->
    (GLSL type, array length or None). A small C preprocessor: #if/#ifdef/#ifndef/
    #elif/#else/#endif over integer #defines."""
    defines = dict(defines)
    stack: list[tuple[bool, bool]] = []  # (this branch active, some branch taken)
    out: dict[str, tuple[str, int | None]] = {}
    for line in assemble(fragment, defines).splitlines():
        live = all(active for active, _ in stack)
        directive = _DIRECTIVE.match(line)
        if directive:
            kind, rest = directive.group(1), directive.group(2)
            if kind in ("if", "ifdef", "ifndef"):
                value = (rest in defines if kind == "ifdef" else rest not in defines if kind == "ifndef"
                         else _condition(rest, defines)) if live else False
                stack.append((value, value))
            elif kind == "elif":
                _, taken = stack.pop()
                value = not taken and _condition(rest, defines)
                stack.append((value, taken or value))
            elif kind == "else":
                _, taken = stack.pop()
                stack.append((not taken, True))
            elif kind == "endif":
                stack.pop()
            elif kind == "define" and live:
                name, _, value = rest.partition(" ")
                if re.fullmatch(r"-?\d+", value.strip()):
                    defines[name] = int(value)
            continue
        uniform = _UNIFORM.match(line) if live else None
        if uniform:
            gl_type, name, length = uniform.groups()
            out[name] = (gl_type, None if length is None else (int(length) if length.isdigit() else defines[length]))
    assert not stack, "unbalanced #if"
    return out


def _paint(rng: random.Random, key: RasterProgram) -> LayerPaint:
    """A paint whose program is ``key``, with seeded random geometry and colours."""
    def colour() -> tuple[float, float, float, float]:
        a = rng.random()
        return (a * rng.random(), a * rng.random(), a * rng.random(), a)

    w, h = rng.uniform(10, 200), rng.uniform(10, 200)
    stops = tuple(ResolvedStop(i / 3, colour(), rng.uniform(0.2, 0.8)) for i in range(rng.randint(2, 4)))
    image = {FillKind.COLOR: None,
             FillKind.IMAGE: ImagePaint(("array", 1), None, 16, 8),
             FillKind.LINEAR: GradientPaint(FillKind.LINEAR, stops, False, start=(1.0, 2.0), direction=(0.6, 0.8),
                                            length=rng.uniform(1, 50)),
             FillKind.RADIAL: GradientPaint(FillKind.RADIAL, stops, True, center=(w / 2, h / 2), radii=(w, h)),
             FillKind.CONIC: GradientPaint(FillKind.CONIC, stops, False, center=(w / 3, h / 3), angle=45.0)}[key.fill]
    pattern = None
    if key.border is not BorderKind.SOLID:
        dots = key.border is BorderKind.DOTS
        pattern = BorderPattern("dotted" if dots else "dashed", (1.0, 2.0, 3.0, 4.0), (6.0,) * 4, (3.0,) * 4,
                                (5, 6, 5, 6), (dots, False, dots, False), (False,) * 4, (2.0, 0.0, 2.0, 0.0))

    def shadow(inset: bool, sigma: float) -> ShadowPaint:
        return ShadowPaint(inset, (2.0, 3.0, w - 2, h - 3), ((4.0, 4.0),) * 4, sigma, colour())

    shadows = {InsetKind.NONE: (), InsetKind.ONE_SOFT: (shadow(True, rng.uniform(1, 8)),),
               InsetKind.SHADOWS: tuple(shadow(True, rng.uniform(0.1, 8)) for _ in range(rng.randint(2, 4)))}[key.inset]
    shadows += (shadow(False, 3.0),)  # an outer one: not the layer program's
    radii = tuple((rng.uniform(0, 10), rng.uniform(0, 10)) for _ in range(4))
    return LayerPaint(w, h, colour(), image, (0.0, 0.0, w / 2, h / 2), (True, False), radii,
                      (1.0, 2.0, 3.0, 4.0), colour(), offset=(rng.random(), rng.random()), border_pattern=pattern,
                      shadows=shadows)


def _shape(value) -> int:
    return len(value) if isinstance(value, tuple) else 1


@pytest.mark.parametrize("key", [k for k in VARIANTS if isinstance(k, RasterProgram)], ids=str)
def test_a_paints_raster_call_sets_what_its_program_declares(key):
    rng = random.Random(f"{SEED}:{key}")
    paint = _paint(rng, key)
    assert paint.program == key and paint.shader_variant == key.variant
    origin = (rng.randint(0, 50), rng.randint(0, 50))
    call = paint.raster_call(origin)
    assert isinstance(call, RasterCall) and call.program == key
    variant = VARIANTS[key]
    declared = declared_uniforms(variant.fragment, dict(variant.defines))
    assert call.names == set(declared), (sorted(call.names - set(declared)), sorted(set(declared) - call.names))
    for name, value in call.uniforms:
        gl_type, length = declared[name]
        assert length is None and _shape(value) == _SIZES[gl_type], name
        assert isinstance(value, int) if gl_type == "int" else True, name
    for name, rows in call.arrays:
        gl_type, length = declared[name]
        assert len(rows) == length and all(_shape(r) == _SIZES[gl_type] for r in rows), name
    if call.image is not None:
        assert declared[call.image.uniform] == ("sampler2D", None)
        assert call.image.image is paint.image and call.image.wrap == paint.image_wrap
    # Values that depend on the pass, computed independently.
    values = dict(call.uniforms)
    assert values["u_offset"] == (paint.offset[0] - origin[0], paint.offset[1] - origin[1])
    assert values["u_repeat"] == (1.0, 0.0)
    inset = [s for s in paint.shadows if s.inset]
    if key.inset is InsetKind.SHADOWS:
        assert values["u_shadow_count"] == len(inset)
        assert dict(call.arrays)["u_shadow_sigma"] == (*(s.sigma for s in inset), *[0.0] * (MAX_BOX_SHADOWS - len(inset)))
    if isinstance(paint.image, GradientPaint):
        assert values["u_stop_count"] == len(paint.image.stops)
        assert len(dict(call.arrays)["u_stop_pos"]) == MAX_GRADIENT_STOPS


def test_the_raster_call_is_plain_data():
    import pickle

    paint = _paint(random.Random(SEED), RasterProgram(FillKind.LINEAR, BorderKind.DOTS, InsetKind.SHADOWS))
    call = paint.raster_call((3, 4))
    assert pickle.loads(pickle.dumps(call)) == call
    assert paint.raster_call((3, 4)) == call and hash(call.program) == hash(paint.program)


# -- clip and backing kinds are enums (str-valued, so reports and signatures read as before)
def test_clip_and_backing_kinds_are_types():
    from lamina import Layer, Scene
    from lamina.compositor.backings import BackingKind, partition
    from lamina.css.values import ClipKind
    from lamina.graph import build_frame_graph
    from lamina.graph.state import FrameState
    from lamina.images import ImageStore
    from lamina.limits import Limits
    from lamina.request import FrameRequest

    scene = Scene(200, 150, "white")
    outer = scene.root.add(Layer("outer", (10, 10, 150, 120), "clip-path: inset(5px); will-change: transform"))
    inner = outer.add(Layer("inner", (10, 10, 100, 80), "overflow: hidden"))
    inner.add(Layer("leaf", (5, 5, 50, 40), "background: red; will-change: transform"))
    graph = build_frame_graph(scene, FrameRequest(), Limits(), ImageStore(), FrameState())
    clips = [c for p in graph.composite_passes() for d in p.draws if d.layer_id == "leaf" for c in d.clips]
    assert sorted(c.kind for c in clips) == [ClipKind.CLIP_PATH, ClipKind.OVERFLOW]
    assert all(type(c.kind) is ClipKind for c in clips)
    assert sorted(f"{c.kind}" for c in clips) == ["clip-path", "overflow"] and hash(ClipKind.OVERFLOW) == hash("overflow")
    assert [e.kind for e in partition([], 0.0, None, None)] == [BackingKind.BASE] and str(BackingKind.OWN) == "own"
