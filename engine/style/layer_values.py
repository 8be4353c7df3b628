"""Values that background and mask layers share (CSS Backgrounds 3, CSS Masking 1 §6):
``<repeat-style>`` and ``<bg-size>``, read one way for ``background-*`` and ``mask-*``."""

from __future__ import annotations

from ..css.tokens import TokenStream
from ..css.values import BackgroundSize, LengthPercentage
from ..errors import UnsupportedFeatureError

__all__ = ["REPEAT_WORDS", "read_repeat", "read_size"]

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
