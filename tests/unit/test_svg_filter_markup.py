"""SVG filter markup -> typed model -> checked graph (lamina.filters.svg), and where the
markup comes from: ``filters.apply(..., svg=)``, ``scene.add_svg``, a scene file's
``"svg"``. Bad markup must be a typed error naming element, attribute, value and line,
raised before any pixel work; an XML bomb is refused at its DOCTYPE."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from lamina import Scene, filters, load_scene
from lamina.errors import SceneFileError, SvgFilterError, UnsupportedFeatureError
from lamina.filters.svg import build_graph, parse_svg
from lamina.filters.svg import model as m
from lamina.filters.svg.op import SvgFilterRef

NS = 'xmlns="http://www.w3.org/2000/svg"'


def svg(body: str, attrs: str = 'id="f"') -> str:
    return f'<svg {NS}><filter {attrs}>{body}</filter></svg>'


def one(body: str, attrs: str = 'id="f"') -> m.FilterElement:
    return parse_svg(svg(body, attrs)).filter("f")


# -- every primitive reads into its typed record ------------------------------------------

def test_every_primitive_reads_with_its_attributes():
    doc = parse_svg(f'''<svg {NS} xmlns:xlink="http://www.w3.org/1999/xlink"><defs>
      <filter id="all" x="-5%" y="0" width="1.5" height="120%" filterUnits="objectBoundingBox"
              primitiveUnits="userSpaceOnUse" color-interpolation-filters="sRGB">
        <feTurbulence type="fractalNoise" baseFrequency="0.05 0.1" numOctaves="3" seed="7" stitchTiles="stitch"
                      result="noise"/>
        <feDisplacementMap in="SourceGraphic" in2="noise" scale="12" xChannelSelector="R" yChannelSelector="G"/>
        <feGaussianBlur stdDeviation="2 3" edgeMode="duplicate" result="blur"/>
        <feColorMatrix type="matrix" values="1 0 0 0 0  0 1 0 0 0  0 0 1 0 0  0 0 0 1 0"/>
        <feComponentTransfer><feFuncR type="table" tableValues="0 .5 1"/><feFuncA type="gamma" amplitude="2"
          exponent="3" offset=".1"/></feComponentTransfer>
        <feComposite in2="blur" operator="arithmetic" k1="1" k2=".5" k3="-.5" k4="0.1"/>
        <feConvolveMatrix order="3 2" kernelMatrix="1 2 3 4 5 6" divisor="21" bias=".1" targetX="2" targetY="0"
                          edgeMode="wrap" preserveAlpha="true"/>
        <feDiffuseLighting surfaceScale="2" diffuseConstant="1.5" lighting-color="#f80">
          <feDistantLight azimuth="45" elevation="30"/></feDiffuseLighting>
        <feSpecularLighting specularConstant=".8" specularExponent="20" in="SourceAlpha">
          <feSpotLight x="1" y="2" z="30" pointsAtX="10" pointsAtY="10" limitingConeAngle="20"/></feSpecularLighting>
        <feSpecularLighting><fePointLight x="5" y="6" z="7"/></feSpecularLighting>
        <feDropShadow dx="3" dy="4" stdDeviation="5" flood-color="rgb(0 0 255)" flood-opacity="50%"/>
        <feFlood flood-color="red" flood-opacity=".25" x="1" y="2" width="3px" height="4" result="flood"/>
        <feImage xlink:href="tile.png" preserveAspectRatio="xMinYMax slice"/>
        <feMerge><feMergeNode in="flood"/><feMergeNode/></feMerge>
        <feMorphology operator="dilate" radius="2 1"/>
        <feOffset dx="-1.5" dy="2"/>
        <feTile color-interpolation-filters="linearRGB"/>
        <feBlend in2="SourceGraphic" mode="color-dodge"/>
      </filter></defs></svg>''')
    f = doc.filter("all")
    assert f.filter_units is m.Units.BOUNDING_BOX and f.primitive_units is m.Units.USER_SPACE
    assert f.color_space is m.ColorSpace.SRGB
    assert f.region == m.Region(m.Coordinate(-5, True), m.Coordinate(0), m.Coordinate(1.5), m.Coordinate(120, True))
    tags = [p.tag for p in f.primitives]
    assert set(tags) == set(m.PRIMITIVES), "every Filter Effects 1 primitive is read"
    p = {p.tag: p for p in reversed(f.primitives)}  # the first of each tag
    t = p["feTurbulence"]
    assert (t.type, t.base_frequency, t.num_octaves, t.seed, t.stitch_tiles, t.result) == \
        (m.TurbulenceType.FRACTAL_NOISE, (0.05, 0.1), 3, 7.0, True, "noise")
    d = p["feDisplacementMap"]
    assert (d.in_, d.in2, d.scale, d.x_channel, d.y_channel) == \
        (m.StandardInput.SOURCE_GRAPHIC, "noise", 12.0, m.Channel.R, m.Channel.G)
    assert p["feGaussianBlur"].std_deviation == (2.0, 3.0) and p["feGaussianBlur"].edge_mode is m.EdgeMode.DUPLICATE
    assert p["feColorMatrix"].values == tuple(float(v) for v in "1000001000001000001 0".replace(" ", ""))
    ct = p["feComponentTransfer"]
    assert ct.red == m.TransferFunction(m.TransferType.TABLE, (0.0, 0.5, 1.0))
    assert ct.alpha == m.TransferFunction(m.TransferType.GAMMA, amplitude=2.0, exponent=3.0, offset=0.1)
    assert ct.green == m.TransferFunction()  # feFuncG absent: identity
    c = p["feComposite"]
    assert (c.operator, c.k1, c.k2, c.k3, c.k4, c.in2) == (m.CompositeOperator.ARITHMETIC, 1, .5, -.5, .1, "blur")
    cm = p["feConvolveMatrix"]
    assert (cm.order, cm.kernel, cm.divisor, cm.bias, cm.targets(), cm.edge_mode, cm.preserve_alpha) == \
        ((3, 2), (1, 2, 3, 4, 5, 6), 21.0, 0.1, (2, 0), m.EdgeMode.WRAP, True)
    dl = p["feDiffuseLighting"]
    assert dl.light == m.DistantLight(45, 30) and dl.diffuse_constant == 1.5 and dl.surface_scale == 2
    assert (dl.lighting_color.r, dl.lighting_color.g, dl.lighting_color.b) == (1.0, 0x88 / 255, 0.0)
    spot = f.primitives[tags.index("feSpecularLighting")].light
    assert spot == m.SpotLight(1, 2, 30, (10, 10, 0), 1.0, 20.0)
    assert f.primitives[tags.index("feSpecularLighting") + 1].light == m.PointLight(5, 6, 7)
    ds = p["feDropShadow"]
    assert (ds.dx, ds.dy, ds.std_deviation, ds.flood_opacity) == (3, 4, (5, 5), 0.5)
    fl = p["feFlood"]
    assert fl.subregion == m.Region(m.Coordinate(1), m.Coordinate(2), m.Coordinate(3), m.Coordinate(4))
    assert (fl.flood_color.r, fl.flood_opacity) == (1.0, 0.25)
    assert p["feImage"].href == "tile.png" and p["feImage"].preserve_aspect_ratio == "xMinYMax slice"
    assert p["feMerge"].nodes == ("flood", None)
    assert p["feMorphology"].radius == (2, 1) and p["feMorphology"].operator is m.MorphologyOperator.DILATE
    assert (p["feOffset"].dx, p["feOffset"].dy) == (-1.5, 2)
    assert p["feTile"].color_space is m.ColorSpace.LINEAR_RGB and f.space_of(p["feTile"]) is m.ColorSpace.LINEAR_RGB
    assert f.space_of(p["feOffset"]) is m.ColorSpace.SRGB  # the filter's
    assert p["feBlend"].mode.value == "color-dodge"


def test_defaults_are_the_specs():
    f = one("<feGaussianBlur/><feTurbulence/><feConvolveMatrix kernelMatrix='0 0 0 0 1 0 0 0 0'/><feDropShadow/>")
    assert f.filter_units is m.Units.BOUNDING_BOX and f.primitive_units is m.Units.USER_SPACE
    assert f.color_space is m.ColorSpace.LINEAR_RGB  # SVG filters default to linearRGB
    blur, turb, conv, shadow = f.primitives
    assert blur.std_deviation == (0, 0) and blur.edge_mode is m.EdgeMode.NONE
    assert (turb.type, turb.num_octaves, turb.base_frequency) == (m.TurbulenceType.TURBULENCE, 1, (0, 0))
    assert conv.order == (3, 3) and conv.edge_mode is m.EdgeMode.DUPLICATE and conv.targets() == (1, 1)
    assert conv.resolved_divisor() == 1.0  # the kernel's sum
    assert (shadow.dx, shadow.dy, shadow.std_deviation) == (2, 2, (2, 2))


# -- bad markup: typed errors naming element, attribute, value and line --------------------

BAD = [
    # (markup body, error class, what the message must hold, attribute)
    ("<feBogus/>", SvgFilterError, "not a filter primitive", None),
    ("<feGaussianBlur stdDev='2'/>", SvgFilterError, "has no attribute 'stdDev'", "stdDev"),
    ("<feGaussianBlur stdDeviation='-2'/>", SvgFilterError, "must be at least 0", "stdDeviation"),
    ("<feGaussianBlur stdDeviation='1e9'/>", SvgFilterError, "over the limit", "stdDeviation"),
    ("<feGaussianBlur stdDeviation='1 2 3'/>", SvgFilterError, "takes 1 to 2 number", "stdDeviation"),
    ("<feGaussianBlur stdDeviation='two'/>", SvgFilterError, "is not a number", "stdDeviation"),
    ("<feGaussianBlur edgeMode='mirror'/>", SvgFilterError, "must be one of", "edgeMode"),
    ("<feOffset in='missing'/>", SvgFilterError, "no earlier primitive defines", "in"),
    ("<feOffset in='later'/><feFlood result='later'/>", SvgFilterError, "before it is defined", "in"),
    ("<feOffset in='me' result='me'/>", SvgFilterError, "its own result 'me': a cycle", "in"),
    ("<feMerge><feMergeNode in='nope'/></feMerge>", SvgFilterError, "no earlier primitive", "in"),
    ("<feOffset in='BackgroundImage'/>", UnsupportedFeatureError, "BackgroundImage", "in"),
    ("<feComposite in2='StrokePaint'/>", UnsupportedFeatureError, "StrokePaint", "in2"),
    ("<feConvolveMatrix kernelMatrix='1 2 3'/>", SvgFilterError, "order 3x3 needs 9 numbers, got 3", "kernelMatrix"),
    ("<feConvolveMatrix order='2' kernelMatrix='1 2 3 4 5'/>", SvgFilterError, "needs 4 numbers, got more", "kernelMatrix"),
    ("<feConvolveMatrix order='1000' kernelMatrix='1'/>", SvgFilterError, "from 1 to 32", "order"),
    ("<feConvolveMatrix order='2.5' kernelMatrix='1'/>", SvgFilterError, "whole number", "order"),
    ("<feConvolveMatrix/>", SvgFilterError, "needs a kernelMatrix", "kernelMatrix"),
    ("<feConvolveMatrix kernelMatrix='0 0 0 0 1 0 0 0 0' targetX='3'/>", SvgFilterError, "from 0 to 2", "targetX"),
    ("<feConvolveMatrix kernelMatrix='1' order='1' kernelUnitLength='0 2'/>", SvgFilterError, "must be positive",
     "kernelUnitLength"),
    ("<feDiffuseLighting kernelUnitLength='2 0'><feDistantLight/></feDiffuseLighting>", SvgFilterError,
     "greater than 0", "kernelUnitLength"),
    ("<feMorphology radius='1e6'/>", SvgFilterError, "over the limit of 500", "radius"),
    ("<feTurbulence numOctaves='1000000'/>", SvgFilterError, "over the limit of 24 octaves", "numOctaves"),
    ("<feTurbulence numOctaves='1.5'/>", SvgFilterError, "whole number", "numOctaves"),
    ("<feTurbulence stitchTiles='yes'/>", SvgFilterError, "'stitch' or 'noStitch'", "stitchTiles"),
    ("<feColorMatrix type='saturate' values='1 2'/>", SvgFilterError, "takes 1 number(s), got 2", "values"),
    ("<feColorMatrix values='1 0 0'/>", SvgFilterError, "takes 20 number(s), got 3", "values"),
    ("<feComponentTransfer><feFuncR/></feComponentTransfer>", SvgFilterError, "needs a type", "type"),
    ("<feComponentTransfer><feFuncR type='table'/><feFuncR type='table'/></feComponentTransfer>", SvgFilterError,
     "two <feFuncR>", None),
    ("<feDiffuseLighting/>", SvgFilterError, "exactly one light source", None),
    ("<feSpecularLighting specularExponent='500'><feDistantLight/></feSpecularLighting>", SvgFilterError,
     "over the limit of 128", "specularExponent"),
    ("<feDiffuseLighting><fePointLight w='1'/></feDiffuseLighting>", SvgFilterError, "has no attribute 'w'", "w"),
    ("<feFlood flood-color='notacolour'/>", SvgFilterError, "is not a CSS colour", "flood-color"),
    ("<feFlood flood-color='currentcolor'/>", UnsupportedFeatureError, "currentcolor", "flood-color"),
    ("<feFlood style='flood-color: red'/>", UnsupportedFeatureError, "style attributes", "style"),
    ("<feBlend mode='plus-lighter'/>", SvgFilterError, "compositing operator", "mode"),
    ("<feImage href='#shape'/>", UnsupportedFeatureError, "element of the document", "href"),
    ("<feImage/>", SvgFilterError, "needs the image", "href"),
    ("<feFlood><feFlood/></feFlood>", SvgFilterError, "not allowed inside <feFlood>", None),
    ("<feFlood>text</feFlood>", SvgFilterError, "has text", None),
    ("<feFlood width='-1'/>", SvgFilterError, "must not be negative", "width"),
    ("<feFlood x='1em'/>", SvgFilterError, "a number, a px length or a percentage", "x"),
    ("<feFlood color-interpolation-filters='cmyk'/>", SvgFilterError, "must be one of", "color-interpolation-filters"),
]


@pytest.mark.parametrize("body, cls, words, attribute", BAD, ids=[b[0][:48] for b in BAD])
def test_bad_markup_is_a_typed_error_naming_element_attribute_and_line(body, cls, words, attribute):
    markup = f'<svg {NS}>\n<filter id="f">\n{body}\n</filter></svg>'
    with pytest.raises(cls) as info:
        parse_svg(markup)
    err = info.value
    assert type(err) is cls, f"{type(err).__name__}: {err}"
    assert words in str(err), str(err)
    assert err.property == attribute, str(err)
    assert "line 3" in str(err) or "<fe" in str(err), f"names the element or its line: {err}"
    if cls is SvgFilterError:
        assert err.element and err.element.startswith("<fe"), err.element


@pytest.mark.parametrize("markup, words", [
    ("<svg", "malformed XML"),
    (f"<svg {NS}><filter id='f'></svg>", "malformed XML"),
    ("<html/>", "must have an <svg> root"),
    (f"<svg {NS}><rect/></svg>", "<rect> is not read"),
    (f"<svg {NS}><filter><feFlood/></filter></svg>", "needs an id"),
    (f"<svg {NS}><filter id='a'/><filter id='a'/></svg>", "a second <filter> with id 'a'"),
    (f"<svg {NS}><filter id='a' filterRes='10'/></svg>", "filterRes"),
    (f"<svg {NS}><filter id='a' href='#b'/></svg>", "inheriting"),
    (f"<svg {NS}><filter id='a' filterUnits='pixels'/></svg>", "must be one of"),
    ("<svg xmlns='http://example.com/other'/>", "only SVG elements"),
    (f"<svg {NS} xmlns:x='http://example.com'><filter id='a' x:y='1'/></svg>", "namespace"),
    (f"<svg {NS}>" + "<defs>" * 40 + "</defs>" * 40 + "</svg>", "nested deeper"),
])
def test_bad_documents_are_typed_errors(markup, words):
    with pytest.raises((SvgFilterError, UnsupportedFeatureError)) as info:
        parse_svg(markup)
    assert words in str(info.value), str(info.value)


def test_an_xml_bomb_is_refused_at_its_doctype_at_once():
    bomb = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
            + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10))
            + f']><svg {NS}><filter id="f"><feFlood result="&lol9;"/></filter></svg>')
    start = time.perf_counter()
    with pytest.raises(SvgFilterError, match="document type declarations"):
        parse_svg(bomb)
    # Refused before any entity is declared, let alone expanded (10^9 'lol's otherwise).
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("markup", [
    f'<!DOCTYPE svg SYSTEM "file:///etc/passwd"><svg {NS}/>',
    f'<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg {NS}><title>&x;</title></svg>',
    f'<!DOCTYPE svg [<!ENTITY % p SYSTEM "http://example.com/x.dtd"> %p;]><svg {NS}/>',
])
def test_external_entities_and_any_dtd_are_refused(markup):
    with pytest.raises(SvgFilterError, match="document type declarations"):
        parse_svg(markup)


def test_undeclared_entities_are_malformed_xml():
    with pytest.raises(SvgFilterError, match="malformed XML"):
        parse_svg(f'<svg {NS}><filter id="f"><feFlood result="&ext;"/></filter></svg>')


def test_huge_markup_is_refused_before_reading():
    with pytest.raises(SvgFilterError, match="over the limit"):
        parse_svg(f"<svg {NS}>" + " " * (1 << 21) + "</svg>")


def test_errors_name_the_line():
    markup = f'<svg {NS}>\n<filter id="f">\n<feFlood/>\n<feOffset dx="x"/>\n</filter></svg>'
    with pytest.raises(SvgFilterError) as info:
        parse_svg(markup)
    assert info.value.line == 4 and info.value.element == "<feOffset>" and info.value.value == "x"
    assert "line 4" in str(info.value) and "attribute 'dx'" in str(info.value)


# -- the graph ------------------------------------------------------------------------------

def test_inputs_resolve_to_earlier_results_and_unused_results_are_pruned():
    f = one("""<feFlood result="a"/><feOffset in="SourceGraphic" result="b"/><feFlood result="unused"/>
               <feOffset in="a" result="a"/><feBlend in="a" in2="b"/>""")
    g = build_graph(f)
    nodes = g.nodes
    assert nodes[1].inputs == (m.StandardInput.SOURCE_GRAPHIC,)
    assert nodes[3].inputs == (0,), "reads the earlier 'a' (it redefines it after)"
    assert nodes[4].inputs == (3, 1), "the latest 'a' shadows the first"
    assert g.output == 4 and g.live == (0, 1, 3, 4) and g.pruned == (2,)
    text = g.explain()
    assert "[2] <feFlood result=\"unused\"> reads nothing  (pruned" in text and "-> output" in text


def test_an_omitted_input_reads_the_previous_result_and_the_first_reads_source_graphic():
    g = build_graph(one("<feOffset/><feGaussianBlur/><feMerge><feMergeNode/><feMergeNode in='SourceAlpha'/></feMerge>"))
    assert [n.inputs for n in g.nodes] == [(m.StandardInput.SOURCE_GRAPHIC,), (0,), (1, m.StandardInput.SOURCE_ALPHA)]
    assert g.pruned == ()


def test_an_empty_filter_has_no_output():
    g = build_graph(one(""))
    assert g.output is None and g.live == ()


def test_a_primitive_built_in_python_is_checked_too():
    with pytest.raises(SvgFilterError, match="kernelMatrix"):
        m.ConvolveMatrix(kernel=(1.0, 2.0))
    with pytest.raises(SvgFilterError, match="numOctaves"):
        m.Turbulence(num_octaves=100)
    with pytest.raises(SvgFilterError, match="must be a finite number"):
        m.Offset(dx=float("nan"))


# -- where filters come from ------------------------------------------------------------------

MARKUP = svg('<feColorMatrix type="matrix" values="0 0 0 0 0  0 0 0 0 0  0 0 0 0 1  0 0 0 1 0"/>',
             'id="blue" color-interpolation-filters="sRGB"')


def test_css_url_parses_into_a_reference_and_mixes_with_functions():
    chain = filters.parse("url(#grain) blur(2px) url('#blue')")
    assert chain.svg_ids() == ("grain", "blue")
    assert isinstance(chain[0], SvgFilterRef) and chain[0].element is None
    assert chain.css() == "url(#grain) blur(2px) url(#blue)"
    assert filters.parse(chain.css()) == chain, "round-trips"
    assert chain[0].explain() == "url(#grain): not resolved against SVG markup"
    resolved = filters.parse("url(#blue)").resolved_svg(parse_svg(MARKUP))[0]
    assert resolved.explain().splitlines()[0] == '<filter id="blue">: 1 primitive(s), 1 used'
    # A url() list interpolates discretely (Filter Effects 1 §13).
    other = filters.parse("url(#blue) blur(4px)")
    assert chain.interpolate(other, 0.4) == chain and chain.interpolate(other, 0.6) == other


def test_filters_apply_runs_an_svg_filter_on_the_reference_backend():
    img = np.zeros((6, 8, 4), np.uint8)
    img[..., 0] = 200
    img[..., 3] = 255
    out = filters.apply(img, "url(#blue)", backend="reference", svg=MARKUP)
    assert (out[..., :3] == [0, 0, 255]).all() and (out[..., 3] == 255).all()
    mixed = filters.apply(img, "url(#blue) invert(1)", backend="reference", svg=parse_svg(MARKUP))
    assert (mixed[..., :3] == [255, 255, 0]).all()


def test_gpu_backends_refuse_what_does_not_lower_before_any_gpu_work():
    img = np.full((4, 4, 4), 255, np.uint8)
    noise = svg("<feTurbulence baseFrequency='.1'/>", 'id="noise" color-interpolation-filters="sRGB"')
    # After a blur, #noise runs as its graph on its filter region, which (the default,
    # -10%/120%) reaches past the image: the image is padded to it, each stage cut back
    # to the image; a drop-shadow() there is refused, before any GPU work.
    plan = filters.parse("blur(1px) url(#noise)").resolved_svg(parse_svg(noise)).plan(size=(4, 4))
    assert plan.region and plan.outsets == (1, 1, 1, 1)
    with pytest.raises(UnsupportedFeatureError, match=r"drop-shadow.*<filter id=\"noise\">, whose filter region "
                                                      "reaches past the image"):
        filters.apply(img, "drop-shadow(1px 1px red) url(#noise)", backend="gl", svg=noise)
    with pytest.raises(SvgFilterError, match=r"url\(#x\) names an SVG filter, and no SVG markup is in force"):
        filters.parse("url(#x)").plan()  # nothing to find #x in
    # Resolved, a filter that lowers plans like the ops it is (filters.svg.route).
    plan = filters.parse("url(#blue)").resolved_svg(parse_svg(MARKUP)).plan()
    assert [p.kind for p in plan.passes] == ["color"]


def test_a_url_naming_no_filter_is_a_typed_error():
    img = np.zeros((2, 2, 4), np.uint8)
    with pytest.raises(SvgFilterError, match=r"url\(#nope\) names no <filter> \(the SVG markup has: #blue\)"):
        filters.apply(img, "url(#nope)", backend="reference", svg=MARKUP)
    with pytest.raises(SvgFilterError, match="give its markup"):
        filters.apply(img, "url(#blue)", backend="reference")


def test_scene_add_svg_keeps_filters_and_refuses_an_id_twice():
    scene = Scene(20, 10)
    doc = scene.add_svg(MARKUP)
    assert set(doc.filters) == {"blue"} and scene.svg is doc
    scene.add_svg(svg("<feFlood/>", 'id="other"'))
    assert set(scene.svg.filters) == {"blue", "other"}
    with pytest.raises(SvgFilterError, match="already has a <filter id='blue'>"):
        scene.add_svg(MARKUP)
    with pytest.raises(SvgFilterError, match="malformed"):
        scene.add_svg("<svg")


def test_scene_files_carry_svg_markup_both_ways(tmp_path):
    scene = Scene(20, 10)
    scene.add_svg(MARKUP)
    scene.root.add(__import__("lamina").Layer("a", (0, 0, 10, 10), "background: red; filter: url(#blue)"))
    data = scene.to_dict()
    assert data["svg"] == MARKUP
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    again = load_scene(path)
    assert set(again.svg.filters) == {"blue"} and again.to_dict() == data


@pytest.mark.parametrize("svg_value, style, path, words", [
    (None, "filter: url(#blue)", "$.layers[0].style", "names no <filter>"),
    ("MARKUP", "backdrop-filter: url(#nope)", "$.layers[0].style", "(#blue)"),
    ("<svg", "", "$.svg", "malformed XML"),
    (["MARKUP", 3], "", "$.svg[1]", "svg must be SVG markup"),
    (f"<svg {NS}><filter id='a' filterRes='1'/></svg>", "", "$.svg", "filterRes"),
])
def test_scene_file_svg_errors_name_the_json_path(tmp_path, svg_value, style, path, words):
    data = {"lamina": 1, "width": 10, "height": 10, "layers": [{"id": "a", "box": [0, 0, 5, 5], "style": style}]}
    if svg_value is not None:
        data["svg"] = [MARKUP if v == "MARKUP" else v for v in svg_value] if isinstance(svg_value, list) \
            else (MARKUP if svg_value == "MARKUP" else svg_value)
    file = tmp_path / "s.json"
    file.write_text(json.dumps(data))
    with pytest.raises(SceneFileError) as info:
        load_scene(file)
    assert info.value.path == path and words in str(info.value), str(info.value)


def test_a_scene_with_a_url_filter_plans_it_into_filter_passes():
    scene = Scene(20, 10)
    scene.add_svg(MARKUP)
    scene.root.add(__import__("lamina").Layer("a", (0, 0, 10, 10), "background: red; filter: url(#blue)"))
    assert [p.name for p in scene.plan().filter_passes()] == ["filter:a:1:color"]


@pytest.mark.parametrize("legacy", ["BackgroundImage", "BackgroundAlpha", "FillPaint", "StrokePaint"])
def test_a_legacy_input_refusal_names_its_element_in_the_error_fields(legacy):
    with pytest.raises(UnsupportedFeatureError) as info:
        parse_svg(f"<svg {NS}><filter id='f'>\n<feOffset result='o'/><feBlend in='o' in2='{legacy}'/></filter></svg>")
    err = info.value
    assert (err.element, err.property, err.value, err.line) == ("<feBlend>", "in2", legacy, None), str(err)
    assert "line 2, <feBlend>" in str(err)
    assert err.located(layer="card").element == "<feBlend>", "a copy located to a layer keeps it"


def test_a_filter_region_past_the_texture_limit_names_the_filter_when_a_scene_plans():
    from lamina import Layer
    from lamina.errors import TextureTooLargeError

    scene = Scene(40, 30)
    scene.add_svg(f"<svg {NS}><filter id='huge' x='-1000' y='-1000' width='3000' height='3000'><feFlood/></filter>"
                  "</svg>")
    scene.root.add(Layer("a", (0, 0, 10, 10), style="background: red; filter: url(#huge)"))
    with pytest.raises(TextureTooLargeError) as info:
        scene.plan()
    err = info.value
    assert (err.layer, err.element, err.property) == ("a", '<filter id="huge">', "x, y, width, height")
    assert "filter region of <filter id=\"huge\">" in str(err) and "30000x30000" in str(err)
