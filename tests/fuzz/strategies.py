"""Hypothesis strategies for hostile input: CSS values built from the tokens CSS has
(numbers at the edges, dimensions with good and bad units, idents, functions, strings,
stray punctuation), property names real and not, filter chains, and scene files with
hostile values and hostile structure."""

from __future__ import annotations

from hypothesis import strategies as st

from lamina.style import PROPERTIES

NUMBERS = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda v: f"{v:g}"),
    st.sampled_from(["0", "-0", "1e999", "-1e999", "1e-999", "nan", "inf", "+.5", "1.", ".e3", "9" * 40, "00", "-"]),
)
UNITS = st.sampled_from(["px", "%", "deg", "rad", "grad", "turn", "em", "s", "ms", "", "PX", "Deg", "x", "dpi", "fr"])
IDENTS = st.sampled_from([
    "none", "auto", "inherit", "initial", "unset", "currentcolor", "transparent", "red", "RED", "to", "top",
    "left", "center", "bottom", "right", "at", "circle", "ellipse", "closest-side", "farthest-corner", "from",
    "in", "round", "evenodd", "nonzero", "solid", "dashed", "dotted", "double", "inset", "repeat", "no-repeat",
    "cover", "contain", "hidden", "scroll", "fixed", "sticky", "serif", "sans-serif", "bold", "italic", "pre",
    "nowrap", "multiply", "screen", "isolate", "luminance", "alpha", "border-box", "padding-box", "!important",
    "-webkit-x", "--var", "ß", "é", "\u202e",
])
FUNCTIONS = st.sampled_from([
    "rgb", "rgba", "hsl", "hwb", "lab", "oklch", "color", "linear-gradient", "radial-gradient", "conic-gradient",
    "repeating-linear-gradient", "url", "blur", "drop-shadow", "brightness", "hue-rotate", "grayscale", "opacity",
    "translate", "rotate", "scale", "skew", "matrix", "translate3d", "inset", "circle", "ellipse", "polygon",
    "path", "calc", "var", "steps", "cubic-bezier", "image-set", "element", "unknown-fn",
])
PUNCT = st.sampled_from([",", "/", " ", "  ", ";", ":", "(", ")", "{", "}", "[", "]", "!", "#", "'", '"', "\\", "*"])


def _atom(inner):
    return st.one_of(
        NUMBERS,
        st.builds(lambda n, u: n + u, NUMBERS, UNITS),
        IDENTS,
        st.builds(lambda h: "#" + h, st.text("0123456789abcdefgXYZ", min_size=0, max_size=9)),
        st.builds(lambda s: f'"{s}"', st.text(max_size=8)),
        PUNCT,
        st.builds(lambda f, args: f"{f}({args})", FUNCTIONS, inner),
    )


def css_value(max_leaves: int = 12):
    """A CSS value: atoms, functions of values, separators — mostly plausible, often wrong."""
    return st.recursive(
        _atom(st.just("")),
        lambda inner: st.lists(st.one_of(_atom(inner), inner), min_size=1, max_size=6).map(" ".join),
        max_leaves=max_leaves,
    )


PROPERTY_NAMES = st.one_of(
    st.sampled_from(sorted(PROPERTIES)),
    st.sampled_from(["margin", "content", "grid", "-webkit-filter", "colr", "--x", "x", "", " opacity ", "OPACITY"]),
)


def declarations():
    """CSS declaration blocks: several properties with hostile values, and stray syntax."""
    one = st.builds(lambda p, v, imp: f"{p}: {v}{' !important' if imp else ''}", PROPERTY_NAMES, css_value(),
                    st.booleans())
    return st.lists(st.one_of(one, PUNCT, css_value(4)), min_size=1, max_size=5).map("; ".join)


FILTER_FUNCTIONS = ["blur", "brightness", "contrast", "drop-shadow", "grayscale", "hue-rotate", "invert", "opacity",
                    "saturate", "sepia", "url", "unknown"]


def filter_chains():
    fn = st.builds(lambda f, v: f"{f}({v})", st.sampled_from(FILTER_FUNCTIONS), css_value(5))
    return st.one_of(st.lists(fn, min_size=1, max_size=5).map(" ".join), css_value(8))


JSON_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(["red", "100px", "url(nope.png)", "data:,", "blur(2px)", "#fff"]),
)


def _hostile_layer(children):
    values = st.one_of(JSON_LEAVES, st.lists(JSON_LEAVES, max_size=5))
    box = st.one_of(
        st.lists(st.one_of(st.integers(-50, 200), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3)),
                 min_size=0, max_size=5),
        values,
    )
    keys = st.fixed_dictionaries(
        {},
        optional={
            "id": st.one_of(st.text(min_size=0, max_size=6), JSON_LEAVES),
            "box": box,
            "style": st.one_of(declarations(), st.dictionaries(PROPERTY_NAMES, css_value(4), max_size=3), values),
            "children": st.one_of(st.lists(children, max_size=3), values),
            "animations": st.one_of(values, st.lists(st.fixed_dictionaries(
                {"keyframes": st.one_of(values, st.dictionaries(st.sampled_from(["from", "to", "50%", "x"]),
                                                                st.dictionaries(PROPERTY_NAMES, css_value(3), max_size=2),
                                                                max_size=3)),
                 "duration": st.one_of(JSON_LEAVES, st.sampled_from(["1s", "2", "-1s", "0"]))}), max_size=2)),
            "content": values,
            "text": st.one_of(st.text(max_size=20), values),
            "junk": values,
        },
    )
    return keys


def scene_dicts():
    """Scene-file data: a valid frame (version, size) with hostile layers, or hostile
    structure all the way down."""
    layers = st.recursive(_hostile_layer(st.just({})), _hostile_layer, max_leaves=8)
    valid_top = st.fixed_dictionaries(
        {"lamina": st.just(1), "width": st.integers(1, 48), "height": st.integers(1, 48),
         "layers": st.lists(layers, max_size=4)},
        optional={"background": st.one_of(css_value(3), JSON_LEAVES), "style": st.one_of(declarations(), JSON_LEAVES),
                  "golden": st.one_of(JSON_LEAVES, st.dictionaries(st.sampled_from(["t", "policy", "max_diff"]),
                                                                   JSON_LEAVES, max_size=2))},
    )
    hostile_top = st.one_of(JSON_LEAVES, st.lists(JSON_LEAVES, max_size=3),
                            st.dictionaries(st.sampled_from(["lamina", "width", "height", "layers", "x"]),
                                            st.one_of(JSON_LEAVES, st.lists(layers, max_size=2)), max_size=5))
    return st.one_of(valid_top, valid_top, hostile_top)


# Declarations that are valid on their own: scenes built of them get past loading, so
# the compositor, planner and executor meet the combinations (and the edge values).
VALID_DECLARATIONS = [
    "background: red", "background: linear-gradient(45deg, #f06, #48f 70%)", "background: radial-gradient(circle, #ff0, transparent)",
    "background: conic-gradient(from 30deg, red, blue, red)", "background: repeating-linear-gradient(#000 0 3px, #fff 3px 6px)",
    "background-color: rgb(0 0 0 / 0.5)", "background-color: transparent", "opacity: 0.5", "opacity: 0", "opacity: 1",
    "transform: rotate(33deg)", "transform: scale(0)", "transform: scale(3, 0.1)", "transform: translate(10.5px, -3.25px)",
    "transform: skew(80deg)", "transform: matrix(1, 2, 3, 4, 5, 6)", "transform: translateZ(0)", "transform-origin: 0 0",
    "filter: blur(3px)", "filter: blur(0)", "filter: drop-shadow(4px 4px 2px black) grayscale(1)", "filter: hue-rotate(720deg)",
    "filter: contrast(400%) brightness(0)", "filter: opacity(0)", "filter: invert(1) sepia(1) saturate(8)",
    "backdrop-filter: blur(4px)", "backdrop-filter: invert(1)", "mix-blend-mode: multiply", "mix-blend-mode: difference",
    "mix-blend-mode: luminosity", "mix-blend-mode: plus-lighter", "isolation: isolate", "z-index: -1", "z-index: 5",
    "overflow: hidden", "overflow: auto", "overflow: scroll", "scroll-top: 40px", "scroll-left: 999px", "position: fixed",
    "position: sticky", "position: sticky; top: 0", "position: sticky; bottom: 10%; right: -5px", "top: 20px", "left: auto",
    "will-change: transform", "will-change: opacity", "border: 3px solid red", "border: 2px dashed #123",
    "border: 5px dotted blue", "border-radius: 50%", "border-radius: 10px / 30px", "border-width: 0",
    "box-shadow: 0 4px 10px black", "box-shadow: inset 0 0 8px 4px red, 2px 2px 0 blue", "box-shadow: 0 0 0 -20px black",
    "clip-path: circle(40%)", "clip-path: inset(5px round 8px)", "clip-path: polygon(0 0, 100% 0, 50% 100%)",
    "clip-path: polygon(evenodd, 0 0, 100% 0, 0 100%, 100% 100%)", "clip-path: ellipse(30% 20% at 10% 90%)",
    "mask-image: linear-gradient(black, transparent)", "mask-mode: luminance", "mask-size: 10px 10px",
    "visibility: hidden", "color: blue", "font-size: 12px", "font-family: serif", "text-align: center",
    "white-space: nowrap", "letter-spacing: 3px", "text-shadow: 1px 1px 2px red",
]


def plausible_scenes():
    """Scene files with a valid structure (unique ids, boxes, known keys) built from
    valid declarations, with an edge value or a hostile one mixed in now and then."""
    counter = iter(range(10**9))

    def layer(children):  # children: a strategy of lists of layers
        return st.builds(
            lambda box, decls, kids, text: {
                "id": f"l{next(counter)}", "box": box, "style": "; ".join(decls), "children": kids,
                **({"text": text} if text else {}),
            },
            st.tuples(st.floats(-30, 60), st.floats(-30, 60), st.floats(0, 80), st.floats(0, 80)).map(list),
            st.lists(st.one_of(st.sampled_from(VALID_DECLARATIONS), st.sampled_from(VALID_DECLARATIONS),
                               st.sampled_from(VALID_DECLARATIONS), declarations()), max_size=4),
            children,
            st.one_of(st.none(), st.none(), st.text(max_size=12)),
        )

    layers = st.recursive(layer(st.just([])), lambda inner: layer(st.lists(inner, max_size=3)), max_leaves=10)
    return st.fixed_dictionaries(
        {"lamina": st.just(1), "width": st.integers(1, 48), "height": st.integers(1, 48),
         "layers": st.lists(layers, min_size=1, max_size=4)},
        optional={"background": st.sampled_from(["white", "transparent", "linear-gradient(red, blue)", "#0f08"])},
    )


# -- hostile values (issue 24): one strategy per class, each crossing its limit often --

_OPENERS = ["(", "[", "{", "calc(", "rgb(", "linear-gradient(", "blur(", "translate(", "var("]
_CLOSERS = {"(": ")", "[": "]", "{": "}"}


def deep_nesting():
    """(property, value, depth): a value nested from one level to a thousand, brackets
    and functions mixed."""
    def build(prop, depth, pattern, leaf):
        openers = (pattern * depth)[:depth]
        text = "".join(openers) + leaf + "".join(_CLOSERS.get(o[-1], ")") for o in reversed(openers))
        return prop, text, depth
    return st.builds(
        build, st.sampled_from(["opacity", "background", "transform", "filter", "clip-path", "font-family", "color"]),
        st.one_of(st.sampled_from([1, 8, 31, 32, 33, 100, 300, 1000]), st.integers(1, 1000)),
        st.lists(st.sampled_from(_OPENERS), min_size=1, max_size=8), NUMBERS)


HUGE = st.one_of(
    st.sampled_from([1e308, -1e308, 5e-324, 1e-300, 1e7, 1e7 + 1, 1e9, 1e9 + 1, 10**400, -(10**400), 2**63]),
    st.floats(min_value=-1e300, max_value=1e300, allow_nan=False),
    st.integers(-10**30, 10**30),
)


def _css_number(v) -> str:
    """A number as CSS writes it: ints in full (10**400 has no float), floats with %g."""
    return str(v) if isinstance(v, int) else f"{v:g}"


def huge_animation_numbers():
    """Animation options with huge or tiny times, counts and control points."""
    def css_time(v):
        return f"{v:g}s" if isinstance(v, float) else f"{v}ms"
    return st.fixed_dictionaries(
        {"duration": st.one_of(HUGE.map(abs), HUGE.map(abs).map(css_time))},
        optional={
            "delay": st.one_of(HUGE, HUGE.map(css_time)),
            "iterations": HUGE.map(abs),
            "easing": st.one_of(
                st.builds(lambda a, b: f"cubic-bezier(0.25, {a}, 0.75, {b})", HUGE.map(_css_number), HUGE.map(_css_number)),
                st.builds(lambda n: f"steps({abs(n)})", st.one_of(st.integers(1, 10**6), st.just(10**400)))),
        },
    )


def huge_text_numbers():
    """Text declarations with huge lengths: font sizes, shadows, spacing, line heights."""
    value = HUGE.map(abs).map(_css_number)
    unit = st.sampled_from(["px", "em", "%", ""])
    return st.one_of(
        st.builds(lambda v, u: f"font-size: {v}{u if u else 'px'}", value, unit),
        st.builds(lambda x, y, b: f"text-shadow: {x}px {y}px {b}px red", value, value, value),
        st.builds(lambda v, u: f"letter-spacing: -{v}{'em' if u == 'em' else 'px'}", value, unit),
        st.builds(lambda v, u: f"line-height: {v}{u}", value, unit),
    )


def surrogate_strings():
    """(where, text): a string holding a lone surrogate, and where it is handed over."""
    lone = st.integers(0xD800, 0xDFFF).map(chr)
    text = st.builds(lambda a, s, b: a + s + b, st.text(max_size=5), lone, st.text(max_size=5))
    return st.tuples(st.sampled_from(["id", "text", "style", "description", "content"]), text)


def long_family_lists():
    """font-family lists from a handful to thousands of names, some names very long."""
    name = st.one_of(st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,12}", fullmatch=True),
                     st.integers(200, 3000).map(lambda n: "'" + "N" * n + "'"))
    return st.lists(name, min_size=1, max_size=5000).map(lambda names: "font-family: " + ", ".join(names))


def long_texts():
    """Texts around the length limit, words and runs without spaces."""
    from lamina.limits import MAX_TEXT_LENGTH
    return st.builds(lambda n, word: (word * (n // len(word) + 1))[:n],
                     st.sampled_from([MAX_TEXT_LENGTH - 1, MAX_TEXT_LENGTH, MAX_TEXT_LENGTH + 1, 6 * MAX_TEXT_LENGTH]),
                     st.sampled_from(["word ", "x", "\u00e9\u0301 ", "\U0001F600"]))


def long_styles():
    """Style texts from a few declarations to megabytes of them."""
    return st.builds(lambda decl, n: decl * n,
                     st.sampled_from(["opacity: 1; ", "background: red; ", "color: rgb(1 2 3); ", "/* x */ "]),
                     st.sampled_from([1, 10, 1000, 6000, 100_000]))


def long_filter_chains():
    """Filter chains from one function to hundreds, blurs large and small."""
    fn = st.one_of(
        st.builds(lambda s: f"blur({s}px)", st.sampled_from([0, 1, 5, 50, 100, 1000])),
        st.builds(lambda s: f"drop-shadow(2px 2px {s}px red)", st.sampled_from([0, 3, 100])),
        st.sampled_from(["invert(1)", "grayscale(0.5)", "opacity(0.9)"]),
    )
    return st.builds(lambda f, n: " ".join([f] * n), fn, st.integers(1, 400))


def cyclic_trees():
    """(layers, edges): edges appended to children lists by hand that make a cycle
    (a layer under itself, or a longer loop) or put one layer in two lists."""
    return st.integers(1, 6).flatmap(lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=4)))
