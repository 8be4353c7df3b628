"""The ``transform`` property: parsing 2D transform functions and composing the matrix
(CSS Transforms 1 §6-§7).

translate3d()/translateZ() are accepted because, without perspective, a z translation
changes nothing visible; the compositor still sees them (a 3D hint). Functions that
really need 3D (rotateX, perspective, matrix3d, ...) raise UnsupportedFeatureError.
"""

from __future__ import annotations

from tinycss2 import ast

from ..errors import UnsupportedFeatureError
from ..geometry import Affine
from ..css.tokens import TokenStream, describe, split_commas, token_text
from ..css.values import LengthPercentage, TransformFunction

__all__ = ["read_transform_list", "transform_matrix", "has_3d_hint"]

_THREE_D = {
    "rotatex", "rotatey", "rotate3d", "perspective", "matrix3d", "scale3d", "scalez",
}


def _args(fn: ast.FunctionBlock, ts: TokenStream, count: tuple[int, int]) -> list[TokenStream]:
    groups = split_commas(fn.arguments)
    if len(groups) == 1 and not TokenStream(groups[0], ts.prop).tokens:
        groups = []
    lo, hi = count
    streams = [TokenStream(g, ts.prop, anchor=fn) for g in groups]
    crowded = next((g for g in streams if len(g.tokens) > 1), None)
    pieces = [token_text([t]) for g in streams for t in g.tokens]
    if crowded is not None and lo <= len(pieces) <= hi:
        # Arguments written as in SVG, without commas: say so, and how it is written in CSS.
        raise ts.error(f"a comma is missing before {describe(crowded.tokens[1])}: {fn.name}() separates its "
                       f"arguments with commas, as in {fn.name}({', '.join(pieces)})", crowded.tokens[1])
    if not lo <= len(groups) <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise ts.error(f"{fn.name}() takes {want} arguments, got {len(groups)}", fn)
    return streams


def _one(stream: TokenStream, read):
    value = read(stream)
    stream.expect_end()
    return value


def _scale_arg(s: TokenStream) -> float:
    return s.expect_number_or_percentage()


def _read_function(fn: ast.FunctionBlock, ts: TokenStream) -> TransformFunction:
    name = fn.lower_name
    lp = lambda s: s.expect_length_percentage()  # noqa: E731
    length = lambda s: s.expect_length()  # noqa: E731
    angle = lambda s: s.expect_angle()  # noqa: E731
    number = lambda s: s.expect_number()  # noqa: E731
    if name == "translate":
        args = [_one(a, lp) for a in _args(fn, ts, (1, 2))]
        return TransformFunction("translate", (args[0], args[1] if len(args) > 1 else LengthPercentage()))
    if name in ("translatex", "translatey"):
        (value,) = [_one(a, lp) for a in _args(fn, ts, (1, 1))]
        pair = (value, LengthPercentage()) if name == "translatex" else (LengthPercentage(), value)
        return TransformFunction("translate", pair)
    if name == "translate3d":
        a = _args(fn, ts, (3, 3))
        return TransformFunction("translate3d", (_one(a[0], lp), _one(a[1], lp), _one(a[2], length)))
    if name == "translatez":
        (z,) = [_one(a, length) for a in _args(fn, ts, (1, 1))]
        return TransformFunction("translate3d", (LengthPercentage(), LengthPercentage(), z))
    if name == "scale":
        args = [_one(a, _scale_arg) for a in _args(fn, ts, (1, 2))]
        return TransformFunction("scale", (args[0], args[1] if len(args) > 1 else args[0]))
    if name in ("scalex", "scaley"):
        (value,) = [_one(a, _scale_arg) for a in _args(fn, ts, (1, 1))]
        return TransformFunction("scale", (value, 1.0) if name == "scalex" else (1.0, value))
    if name in ("rotate", "rotatez"):
        (value,) = [_one(a, angle) for a in _args(fn, ts, (1, 1))]
        return TransformFunction("rotate", (value,))
    if name == "skew":
        args = [_one(a, angle) for a in _args(fn, ts, (1, 2))]
        return TransformFunction("skew", (args[0], args[1] if len(args) > 1 else 0.0))
    if name in ("skewx", "skewy"):
        (value,) = [_one(a, angle) for a in _args(fn, ts, (1, 1))]
        return TransformFunction("skew", (value, 0.0) if name == "skewx" else (0.0, value))
    if name == "matrix":
        args = [_one(a, number) for a in _args(fn, ts, (6, 6))]
        return TransformFunction("matrix", tuple(args))
    if name in _THREE_D:
        raise ts.error(f"{fn.name}() needs 3D rendering, which Lamina does not do yet", fn, UnsupportedFeatureError)
    raise ts.error(f"unknown transform function {fn.name}()", fn)


def read_transform_list(ts: TokenStream) -> tuple[TransformFunction, ...]:
    """``none`` or one or more transform functions (whitespace separated)."""
    if ts.ident("none"):
        ts.expect_end()
        return ()
    out = []
    while not ts.at_end():
        tok = ts.next()
        if not isinstance(tok, ast.FunctionBlock):
            raise ts.error(f"expected a transform function, got {describe(tok)}", tok)
        out.append(_read_function(tok, ts))
    if not out:
        raise ts.error("expected 'none' or transform functions")
    return tuple(out)


def _function_matrix(fn: TransformFunction, width: float, height: float) -> Affine:
    if fn.name in ("translate", "translate3d"):
        return Affine.translate(fn.args[0].resolve(width), fn.args[1].resolve(height))
    if fn.name == "scale":
        return Affine.scale(*fn.args)
    if fn.name == "rotate":
        return Affine.rotate(fn.args[0])
    if fn.name == "skew":
        return Affine.skew(*fn.args)
    if fn.name == "matrix":
        return Affine(*fn.args)
    raise AssertionError(f"unhandled transform function {fn.name}")


def transform_matrix(
    functions: tuple[TransformFunction, ...],
    origin: tuple[LengthPercentage, LengthPercentage],
    width: float,
    height: float,
) -> Affine:
    """The layer-local transform: translate(origin) * f1 * f2 ... * translate(-origin)."""
    if not functions:
        return Affine()
    ox, oy = origin[0].resolve(width), origin[1].resolve(height)
    m = Affine.translate(ox, oy)
    for fn in functions:
        m = m @ _function_matrix(fn, width, height)
    return m @ Affine.translate(-ox, -oy)


def has_3d_hint(functions: tuple[TransformFunction, ...]) -> bool:
    """True when the author wrote translate3d()/translateZ() (a compositing hint)."""
    return any(fn.name == "translate3d" for fn in functions)
