"""The ``transform`` property: parsing the 2D and 3D transform functions and composing
the matrix (CSS Transforms 1 §6-§7, CSS Transforms 2 §12).

A list of 2D functions composes to an ``Affine`` (the exact 2D path every consumer
knows); a list with a 3D function (rotateX/Y, rotate3d, scale3d/scaleZ, perspective(),
matrix3d, a translate3d/translateZ with a z other than 0) composes to a ``Matrix4``.
"""

from __future__ import annotations

from tinycss2 import ast

from ..geometry import Affine
from ..matrix4 import Matrix4
from ..css.tokens import TokenStream, describe, split_commas, token_text
from ..css.values import LengthPercentage, TransformFunction

__all__ = ["read_transform_list", "transform_matrix", "has_3d_hint", "is_3d", "function_is_3d"]

# The typed names a 3D function is kept as (rotateX/Y become rotate3d, scaleZ scale3d).
_THREE_D_NAMES = frozenset({"rotate3d", "scale3d", "perspective", "matrix3d"})


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
    if name in ("rotatex", "rotatey"):
        (value,) = [_one(a, angle) for a in _args(fn, ts, (1, 1))]
        return TransformFunction("rotate3d", (1.0, 0.0, 0.0, value) if name == "rotatex" else (0.0, 1.0, 0.0, value))
    if name == "rotate3d":
        a = _args(fn, ts, (4, 4))
        return TransformFunction("rotate3d", (_one(a[0], number), _one(a[1], number), _one(a[2], number),
                                              _one(a[3], angle)))
    if name == "scale3d":
        a = _args(fn, ts, (3, 3))
        return TransformFunction("scale3d", tuple(_one(s, _scale_arg) for s in a))
    if name == "scalez":
        (value,) = [_one(a, _scale_arg) for a in _args(fn, ts, (1, 1))]
        return TransformFunction("scale3d", (1.0, 1.0, value))
    if name == "perspective":
        (stream,) = _args(fn, ts, (1, 1))
        if stream.ident("none"):  # CSS Transforms 2: perspective(none) is the identity
            stream.expect_end()
            return TransformFunction("perspective", (None,))
        # <length [0,inf]>: negative is an error; under 1px is used as 1px (Matrix4.perspective).
        return TransformFunction("perspective", (_one(stream, lambda s: s.expect_length(minimum=0.0)),))
    if name == "matrix3d":
        args = [_one(a, number) for a in _args(fn, ts, (16, 16))]
        return TransformFunction("matrix3d", tuple(args))
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


def function_is_3d(fn: TransformFunction) -> bool:
    """Does this function need a 4x4 matrix? (translate3d with z = 0 is 2D.)"""
    return fn.name in _THREE_D_NAMES or (fn.name == "translate3d" and fn.args[2] != 0.0)


def is_3d(functions: tuple[TransformFunction, ...]) -> bool:
    """Does this list need a 4x4 matrix? (transform-origin's z matters only then.)"""
    return any(function_is_3d(fn) for fn in functions)


def _function_matrix4(fn: TransformFunction, width: float, height: float) -> Matrix4:
    if fn.name == "translate3d":
        return Matrix4.translate(fn.args[0].resolve(width), fn.args[1].resolve(height), fn.args[2])
    if fn.name == "scale3d":
        return Matrix4.scale(*fn.args)
    if fn.name == "rotate3d":
        return Matrix4.rotate3d(*fn.args)
    if fn.name == "perspective":
        return Matrix4() if fn.args[0] is None else Matrix4.perspective(fn.args[0])
    if fn.name == "matrix3d":
        return Matrix4.from_css_matrix3d(fn.args)
    return Matrix4.from_affine(_function_matrix(fn, width, height))


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
    origin: tuple[LengthPercentage, ...],
    width: float,
    height: float,
) -> Affine | Matrix4:
    """The layer-local transform: translate(origin) * f1 * f2 ... * translate(-origin);
    a Matrix4 when a function is 3D (the origin's z, ``origin[2]``, counts then)."""
    if not functions:
        return Affine()
    ox, oy = origin[0].resolve(width), origin[1].resolve(height)
    if is_3d(functions):
        oz = origin[2].px if len(origin) > 2 else 0.0
        m4 = Matrix4.translate(ox, oy, oz)
        for fn in functions:
            m4 = m4 @ _function_matrix4(fn, width, height)
        return m4 @ Matrix4.translate(-ox, -oy, -oz)
    m = Affine.translate(ox, oy)
    for fn in functions:
        m = m @ _function_matrix(fn, width, height)
    return m @ Affine.translate(-ox, -oy)


def has_3d_hint(functions: tuple[TransformFunction, ...]) -> bool:
    """True when the author wrote translate3d()/translateZ() (a compositing hint)."""
    return any(fn.name == "translate3d" for fn in functions)
