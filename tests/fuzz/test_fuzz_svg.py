"""Property-based fuzzing (hypothesis) of SVG filter markup: any attribute of any
primitive with a hostile value, and whole hostile documents. Markup is read into a
checked graph or refused with a typed Lamina error that names the element or line —
never another exception; what is read runs through the float64 reference on a small
image without any other exception either."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from lamina.errors import LaminaError, SvgFilterError, UnsupportedFeatureError
from lamina.filters.svg import FilterElement, parse_svg
from lamina.filters.svg.markup import COMMON, READERS
from lamina.filters.svg.reference import apply_filter

NS = 'xmlns="http://www.w3.org/2000/svg"'
CHILDREN = {
    "feComponentTransfer": "<feFuncR type='table' tableValues='0 1'/>",
    "feDiffuseLighting": "<feDistantLight/>",
    "feSpecularLighting": "<fePointLight z='5'/>",
    "feMerge": "<feMergeNode/><feMergeNode in='SourceAlpha'/>",
}
REQUIRED = {"feConvolveMatrix": {"kernelMatrix": "0 0 0 0 1 0 0 0 0"}, "feImage": {"href": "x.png"}}

VALUES = st.one_of(
    st.sampled_from(["0", "1", "-1", "0.5", "1e9", "-1e9", "1e400", "3 4", "1,2", "2 2 2", "", " ", "50%", "10px",
                     "abc", "NaN", "inf", "#f00", "red", "SourceGraphic", "SourceAlpha", "BackgroundImage", "a",
                     "true", "stitch", "arithmetic", "multiply", "wrap", "linearRGB", "fractalNoise", "R", "3.5",
                     "1 0 0 0 0 0 1 0 0 0 0 0 1 0 0 0 0 0 1 0", "0 0 0 0 1 0 0 0 0", "xMidYMid slice"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<>&\"\x00"), max_size=12),
)


def _attrs(tag: str) -> list[str]:
    own, _reader, _children = READERS[tag]
    return sorted(COMMON | own)


@st.composite
def primitives(draw) -> str:
    tag = draw(st.sampled_from(sorted(READERS)))
    names = draw(st.lists(st.sampled_from(_attrs(tag)), max_size=4, unique=True))
    attrs = dict(REQUIRED.get(tag, {}))
    for name in names:
        attrs[name] = draw(VALUES)
    if tag == "feImage":
        attrs["href"] = "x.png"  # the reference gets a loader below; hrefs are checked in test_svg_filter_markup
    text = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    return f"<{tag} {text}>{CHILDREN.get(tag, '')}</{tag}>"


def _run(markup: str) -> None:
    doc = parse_svg(markup)
    picture = np.full((2, 2, 4), 0.5)
    src = np.random.default_rng(0).random((6, 7, 4)) * 0.5
    for element in doc.filters.values():
        apply_filter(element, src, image_loader=lambda href: picture)


@settings(max_examples=200)
@given(st.lists(primitives(), min_size=1, max_size=3))
def test_hostile_primitive_attributes_read_and_run_or_fail_typed(body):
    markup = f'<svg {NS}><filter id="f" x="0" y="0" width="1" height="1">{"".join(body)}</filter></svg>'
    try:
        _run(markup)
    except SvgFilterError as err:
        assert err.element or err.line, f"no element or line: {err}"
    except LaminaError as err:
        assert "<" in str(err) or getattr(err, "property", None), f"not located: {err}"


TOKENS = list("<>/=\"' !-?[]&;#%") + ["svg", "filter", "feFlood", "DOCTYPE", "ENTITY", "id", "x", "a", NS, "<svg ",
                                       "<filter id='f'>", "</filter>", "</svg>", "<!DOCTYPE s [", "<!ENTITY e 'x'>",
                                       "&e;", "<![CDATA[", "]]>", "<?pi?>"]


@settings(max_examples=150)
@given(st.lists(st.sampled_from(TOKENS), max_size=24).map("".join))
def test_hostile_documents_fail_typed(markup):
    try:
        doc = parse_svg(markup)
    except (SvgFilterError, UnsupportedFeatureError) as err:
        assert str(err) and "Traceback" not in str(err)
        return
    assert all(isinstance(f, FilterElement) for f in doc.filters.values())
