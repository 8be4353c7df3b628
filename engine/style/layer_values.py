"""Values that background and mask layers share (CSS Backgrounds 3, CSS Masking 1 §6):
``<repeat-style>``, ``<bg-size>`` and a layer of the ``background`` / ``mask``
shorthands, read one way for ``background-*`` and ``mask-*``."""

from __future__ import annotations

from typing import Any, Callable

from tinycss2 import ast

from ..css.readers import read_position
from ..css.tokens import TokenStream, describe
from ..css.values import BackgroundSize, LengthPercentage
from ..errors import UnsupportedFeatureError

__all__ = ["REPEAT_WORDS", "read_repeat", "read_size", "read_layer", "read_whole"]

REPEAT_WORDS = ("repeat", "no-repeat", "repeat-x", "repeat-y", "space", "round")


def read_repeat(ts: TokenStream, prop: str) -> tuple[bool, bool] | None:
    """<repeat-style> as (repeat x, repeat y), or None when the next token is not one;
    ``space`` and ``round`` are not supported yet (the error names ``prop``)."""
    tok = ts.peek()
    first = ts.ident(*REPEAT_WORDS)
    if first is None:
        return None
    if first in ("space", "round"):
        raise ts.error(f"{prop}: {first} is not supported yet", tok, UnsupportedFeatureError)
    if first in ("repeat-x", "repeat-y"):
        return (first == "repeat-x", first == "repeat-y")
    tok2 = ts.peek()
    second = ts.ident("repeat", "no-repeat", "space", "round")
    if second in ("space", "round"):
        raise ts.error(f"{prop}: {second} is not supported yet", tok2, UnsupportedFeatureError)
    return (first == "repeat", (second or first) == "repeat")


def read_size(ts: TokenStream) -> BackgroundSize | None:
    """<bg-size>: cover | contain | [<length-percentage [0,∞]> | auto]{1,2}."""
    word = ts.ident("cover", "contain")
    if word:
        return BackgroundSize(keyword=word)
    values: list[LengthPercentage | None] = []
    while len(values) < 2:
        if ts.ident("auto"):
            values.append(None)
            continue
        value = ts.length_percentage(minimum=0)
        if value is None:
            break
        values.append(value)
    if not values:
        return None
    width, height = values[0], values[1] if len(values) > 1 else None
    if width is None and height is None:
        return BackgroundSize()
    return BackgroundSize(keyword=None, width=width, height=height)


def read_layer(ts: TokenStream, prop: str, read_image: Callable[[TokenStream], Any],
               more: dict[str, Callable[[TokenStream], Any]],
               other: Callable[[ast.Node], bool] = lambda tok: False) -> dict[str, Any]:
    """The components of one shorthand layer, in any order, each at most once: an image
    (``none`` gives None), a repeat, a position with an optional ``/ size``, and the
    readers of ``more`` (a background's colour, a mask's mode); {name: value} for those
    given. A token none of them reads goes to ``other``, which consumes it (True) or
    raises; else it is unexpected."""
    found: dict[str, Any] = {}
    while not ts.at_end():
        tok = ts.peek()
        if "image" not in found:
            if ts.ident("none"):
                found["image"] = None
                continue
            image = read_image(ts)
            if image is not None:
                found["image"] = image
                continue
        if "repeat" not in found:
            repeat = read_repeat(ts, f"{prop}-repeat")
            if repeat is not None:
                found["repeat"] = repeat
                continue
        if "position" not in found:
            position = read_position(ts)
            if position is not None:
                found["position"] = position
                if ts.literal("/"):
                    size_tok = ts.peek()
                    size = read_size(ts)
                    if size is None:
                        raise ts.error(f"expected a {prop} size after '/', got {describe(size_tok)}", size_tok)
                    found["size"] = size
                continue
        for name, read in more.items():
            if name not in found:
                value = read(ts)
                if value is not None:
                    found[name] = value
                    break
        else:
            if other(tok):
                continue
            raise ts.error(f"unexpected {describe(tok)} in {prop}", tok)
    return found


def read_whole(ts: TokenStream, read: Callable[[TokenStream], Any], what: str) -> Any:
    """The whole value is one item read by ``read`` (which returns None when absent):
    a longhand of background-* or mask-* (``what`` names the item in the error)."""
    tok = ts.peek()
    value = read(ts)
    if value is None:
        raise ts.error(f"expected {what}, got {describe(tok)}", tok)
    ts.expect_end()
    return value
