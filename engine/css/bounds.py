"""Bounds on CSS text, checked before tinycss2 sees it: nesting depth, length and lone
surrogates. tinycss2 recurses once per nested block or function, so deep nesting was a
RecursionError; a 10 MB style took half a minute to tokenize; and a lone surrogate
(which JSON's ``\\ud800`` escape makes) cannot be encoded, so it broke whatever printed
the value. Each is a CSSSyntaxError naming the property (when known), where in the text
it is, and the limit, never the text itself.

The scan is one regular expression over the text (strings and comments skipped, so
brackets inside them do not count): linear and in C, even for a data: URL of megabytes.
"""

from __future__ import annotations

import re

from ..errors import CSSSyntaxError
from ..limits import MAX_CSS_NESTING, MAX_STYLE_LENGTH, URL_COUNTED_CHARS

__all__ = ["check_css_text", "lone_surrogate_at", "position_of"]

_SCAN = re.compile(
    r"""/\*.*?(?:\*/|\Z)"""                                           # a comment, closed or not
    r"""|url\(\s*(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^"'()\s]*)\s*\)"""  # a url(): one leaf, counted short
    r"""|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?"""                 # strings (their brackets do not nest)
    r"""|\\.|[(\[{]|[)\]}]""",                                         # escapes, then the brackets themselves
    re.S | re.I,
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAME = re.compile(r"-?[a-z_][-a-z0-9_]*")


def position_of(text: str, index: int) -> tuple[int, int]:
    """(line, column), both 1-based, of ``text[index]``, as tinycss2 counts them."""
    line = text.count("\n", 0, index) + 1
    return line, index - text.rfind("\n", 0, index)


def lone_surrogate_at(text: str) -> int | None:
    """Index of the first lone surrogate in ``text`` (not encodable as UTF-8), else None."""
    if text.isascii():
        return None
    match = _SURROGATE.search(text)
    return None if match is None else match.start()


def check_css_text(text: str, property: str | None = None) -> None:
    """Raise CSSSyntaxError if ``text`` (a style block or one value of ``property``) has
    a lone surrogate, is longer than MAX_STYLE_LENGTH (not counting a url() past its
    first URL_COUNTED_CHARS characters) or nests deeper than MAX_CSS_NESTING."""
    bad = lone_surrogate_at(text)
    if bad is not None:
        line, column = position_of(text, bad)
        raise CSSSyntaxError(f"a lone surrogate (U+{ord(text[bad]):04X}) is not text: CSS must be valid Unicode",
                             property=property or _property_at(text, bad), line=line, column=column)
    if len(text) > MAX_STYLE_LENGTH and "url(" not in text.lower():
        raise _too_long(len(text), property)
    depth, excess = 0, 0
    for match in _SCAN.finditer(text):
        token = match.group()
        first = token[0]
        if first in "([{":
            depth += 1
            if depth > MAX_CSS_NESTING:
                line, column = position_of(text, match.start())
                raise CSSSyntaxError(
                    f"brackets, parentheses and functions nest more than {MAX_CSS_NESTING} levels deep here "
                    "(lamina.limits.MAX_CSS_NESTING)", property=property or _property_at(text, match.start()),
                    line=line, column=column)
        elif first in ")]}":
            depth = max(depth - 1, 0)
        elif first in "uU":
            excess += max(len(token) - URL_COUNTED_CHARS, 0)
    if len(text) - excess > MAX_STYLE_LENGTH:
        raise _too_long(len(text) - excess, property)


def _property_at(text: str, index: int) -> str | None:
    """The property whose declaration ``text[index]`` is in, when a block's text shows it
    plainly (``name:`` after the last ';'); None otherwise."""
    head, colon, _ = text[text.rfind(";", 0, index) + 1:index].partition(":")
    name = head.strip().lower()
    return name if colon and _NAME.fullmatch(name) else None


def _too_long(length: int, property: str | None) -> CSSSyntaxError:
    return CSSSyntaxError(f"the style text is {length} characters long, more than the {MAX_STYLE_LENGTH} one may be "
                          f"(lamina.limits.MAX_STYLE_LENGTH; a url() counts its first {URL_COUNTED_CHARS})",
                          property=property)
