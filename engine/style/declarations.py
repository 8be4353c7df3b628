"""CSS declaration blocks -> validated declarations -> ComputedStyle.

``Style`` is what ``Layer.style`` is: a mutable mapping from property name to CSS value
text. Every value is parsed the moment it is set, so a bad value fails where it is
written (with its column), and rendering never meets an unparsed string.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Callable, Iterator, Mapping, MutableMapping

import tinycss2
from tinycss2 import ast

from ..errors import CSSSyntaxError, InvalidValueError, StyleError, UnknownPropertyError, UnsupportedFeatureError
from ..css.known import is_css_property
from ..suggest import did_you_mean
from .properties import INHERITED_FIELDS, LONGHANDS, NOT_YET_SUPPORTED, PROPERTIES, ComputedStyle
from .text import resolve_relative
from ..css.bounds import check_css_text
from ..css.tokens import TokenStream, token_text

__all__ = ["Declaration", "parse_declarations", "parse_value", "Style", "INHERIT"]

INHERIT = "inherit"
_CSS_WIDE = ("initial", "inherit", "unset")
# The inherited fields in one fixed order (computed()'s memo key reads them; there are
# many, so attrgetter always gives a tuple).
_INHERITED_ORDER = tuple(sorted(INHERITED_FIELDS))


@dataclass(frozen=True)
class Declaration:
    """One parsed ``name: value`` with where it started and what it sets."""

    name: str
    value: str
    updates: Mapping[str, Any]
    important: bool = False
    column: int | None = None
    line: int | None = None


def parse_value(
    name: str,
    tokens: list[ast.Node] | str,
    *,
    anchor: ast.Node | None = None,
    name_node: ast.Node | None = None,
) -> dict[str, Any]:
    """Parse one property value into ComputedStyle field updates (typed errors on failure).

    ``anchor`` locates errors about the value as a whole, ``name_node`` errors about the
    property name."""
    if isinstance(tokens, str):
        check_css_text(tokens, name.strip().lower())
        tokens = tinycss2.parse_component_value_list(tokens, skip_comments=True)
    name = name.strip().lower()
    spec = PROPERTIES.get(name)
    if spec is None:
        where = {"column": getattr(name_node, "source_column", None), "line": getattr(name_node, "source_line", None)}
        if name in NOT_YET_SUPPORTED or is_css_property(name):
            raise UnsupportedFeatureError(
                f"{name} is a CSS property Lamina does not support yet", property=name, **where
            )
        hint = did_you_mean(name, PROPERTIES)
        raise UnknownPropertyError(f"unknown property; {hint}" if hint else "unknown property", property=name, **where)
    ts = TokenStream(tokens, name, anchor=anchor)
    for tok in tokens:
        if isinstance(tok, ast.ParseError):
            raise ts.error(f"CSS syntax error: {tok.message}", tok, CSSSyntaxError)
    if ts.at_end():
        raise InvalidValueError(
            "empty value", property=name, value="",
            column=getattr(anchor, "source_column", None), line=getattr(anchor, "source_line", None),
        )
    keyword = ts.ident(*_CSS_WIDE)
    if keyword is not None and ts.at_end():
        return {
            f: INHERIT if keyword == "inherit" or (keyword == "unset" and LONGHANDS[f].inherited)
            else LONGHANDS[f].initial
            for f in spec.fields
        }
    ts.pos = 0
    return spec.parse(ts)


def parse_declarations(text: str) -> list[Declaration]:
    """Parse ``prop: value; ...`` (the content of a style attribute)."""
    out = []
    check_css_text(text)  # before tinycss2: its recursion, its time and what it can print
    nodes = tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True)
    for node in nodes:
        if isinstance(node, ast.ParseError):
            missing = _missing_colon(text, node)
            if missing is not None:
                raise missing
            raise CSSSyntaxError(
                f"CSS syntax error: {node.message}", column=node.source_column, line=node.source_line,
                value=_line_excerpt(text, node.source_line),
            )
        if not isinstance(node, ast.Declaration):
            raise CSSSyntaxError(
                "expected 'property: value', got a rule", column=node.source_column, line=node.source_line
            )
        value_tokens = list(node.value)
        anchor = next((t for t in value_tokens if not isinstance(t, (ast.WhitespaceToken, ast.Comment))), node)
        try:
            updates = parse_value(node.lower_name, value_tokens, anchor=anchor, name_node=node)
        except StyleError as err:
            if err.column is None:
                raise type(err)(
                    err.reason, property=err.property, value=err.value,
                    column=node.source_column, line=node.source_line,
                ) from None
            raise
        out.append(
            Declaration(
                name=node.lower_name,
                value=token_text(value_tokens),
                updates=updates,
                important=node.important,
                column=node.source_column,
                line=node.source_line,
            )
        )
    return out


def _missing_colon(text: str, error: ast.ParseError) -> CSSSyntaxError | None:
    """tinycss2 reports ``color red`` as a broken rule at its end; find the declaration
    it belongs to and point at the token where the ':' should be."""
    where = (error.source_line, error.source_column)
    segment: list[ast.Node] = []
    for tok in tinycss2.parse_component_value_list(text, skip_comments=True) + [None]:
        at_end = tok is None or (isinstance(tok, ast.LiteralToken) and tok.value == ";")
        if not at_end:
            segment.append(tok)
            continue
        significant = [t for t in segment if not isinstance(t, ast.WhitespaceToken)]
        end = (tok.source_line, tok.source_column) if tok is not None else (10**9, 0)
        if significant and (significant[0].source_line, significant[0].source_column) <= where <= end:
            name = significant[0]
            if isinstance(name, ast.IdentToken) and len(significant) > 1 and not (
                isinstance(significant[1], ast.LiteralToken) and significant[1].value == ":"
            ):
                after = significant[1]
                return CSSSyntaxError(
                    f"expected ':' after the property name, got {token_text([after])!r}",
                    property=name.lower_value,
                    column=after.source_column,
                    line=after.source_line,
                    value=token_text(segment),
                )
            return None
        segment = []
    return None


def _line_excerpt(text: str, line: int) -> str:
    lines = text.splitlines() or [""]
    return lines[min(max(line, 1), len(lines)) - 1]


class Style(MutableMapping[str, str]):
    """The declared style of a layer: property -> CSS value text, in declaration order.

    Setting a value parses it (typed errors name the property and column); ``computed``
    resolves the declarations and inheritance into a ComputedStyle.
    """

    def __init__(
        self,
        source: str | Mapping[str, str] | None = None,
        *,
        on_change: Callable[[], None] | None = None,
        owner: str | None = None,
    ):
        self._decls: dict[str, Declaration] = {}
        self._on_change = on_change
        self.owner = owner  # the layer id, named in errors
        self.version = 0
        self._memo: tuple[tuple, ComputedStyle] | None = None  # (key, result) of computed()
        # (version, the fields written as ``inherit``, a reader of the parent's fields that
        # computed() keys on): they change only with the block.
        self._reads: tuple[int, tuple[str, ...], Callable[[Any], tuple]] | None = None
        if isinstance(source, str):
            self.update_css(source)
        elif isinstance(source, Mapping):
            for name, value in source.items():
                self[name] = value
        elif source is not None:
            raise InvalidValueError(
                f"style must be CSS text or a mapping of properties, got {type(source).__name__}", layer=owner
            )

    # -- mapping protocol ---------------------------------------------------------------
    def __getitem__(self, name: str) -> str:
        decl = self._decls[name.strip().lower()]
        return decl.value + (" !important" if decl.important else "")

    def __setitem__(self, name: str, value: str) -> None:
        if not isinstance(name, str):
            raise InvalidValueError(f"property names must be strings, got {type(name).__name__}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = repr(value) if isinstance(value, float) else str(value)
        if not isinstance(value, str):
            raise InvalidValueError(
                f"value must be CSS text, got {type(value).__name__}", property=name.strip().lower()
            )
        prop = name.strip().lower()
        try:
            check_css_text(name, None)
            check_css_text(value, prop)
        except StyleError as err:
            raise err.located(layer=self.owner) from None
        for tok in tinycss2.parse_component_value_list(value):
            if isinstance(tok, ast.LiteralToken) and tok.value == ";":
                raise CSSSyntaxError(
                    "';' ends the value: give one property per entry",
                    property=prop, value=value, column=tok.source_column, line=tok.source_line,
                    layer=self.owner,
                )
        prefix = f"{name}: "
        try:
            decls = parse_declarations(prefix + value)
        except StyleError as err:
            raise self._value_located(err, len(prefix)) from None
        self._store(decls[0])

    def _value_located(self, err: StyleError, prefix: int) -> StyleError:
        """Columns within the value the caller wrote, not our synthetic 'name: value'."""
        if err.line not in (None, 1) or err.column is None:
            return err.located(layer=self.owner)
        located = err.located(layer=self.owner, column_offset=-prefix)
        if located.column is None and not isinstance(err, (UnknownPropertyError, UnsupportedFeatureError)):
            located = err.located(layer=self.owner, column_offset=1 - err.column)  # at the value's start
        return located

    def __delitem__(self, name: str) -> None:
        del self._decls[name.strip().lower()]
        self._changed()

    def __iter__(self) -> Iterator[str]:
        return iter(self._decls)

    def __len__(self) -> int:
        return len(self._decls)

    def __repr__(self) -> str:
        return f"Style({self.to_css()!r})"

    # -- bulk ---------------------------------------------------------------------------
    def update_css(self, text: str) -> None:
        """Add the declarations of a CSS text (all are validated before any is stored)."""
        try:
            decls = parse_declarations(text)
        except StyleError as err:
            raise err.located(layer=self.owner) from None
        # Within one block an !important declaration beats later normal ones.
        important = {d.name for d in decls if d.important}
        for decl in decls:
            if decl.important or decl.name not in important:
                self._store(decl, notify=False)
        if decls:
            self._changed()

    def to_css(self) -> str:
        return "; ".join(f"{name}: {self[name]}" for name in self._decls)

    def to_dict(self) -> dict[str, str]:
        return {name: self[name] for name in self._decls}

    def _store(self, decl: Declaration, notify: bool = True) -> None:
        # Later declarations of a property replace earlier ones but keep CSS order
        # semantics: the newest goes last, so shorthands/longhands apply in write order.
        self._decls.pop(decl.name, None)
        self._decls[decl.name] = decl
        if notify:
            self._changed()

    def _changed(self) -> None:
        self.version += 1
        if self._on_change is not None:
            self._on_change()

    # -- computing ----------------------------------------------------------------------
    def cascaded(self, field: str) -> Any:
        """The value this block gives a field that does not inherit (its initial value
        when no declaration sets it), without computing the whole style; None when it
        is written as ``inherit`` (then only ``computed`` can say)."""
        value = getattr(ComputedStyle, field)
        for important in (False, True):
            for decl in self._decls.values():
                if decl.important == important and field in decl.updates:
                    value = decl.updates[field]
        return None if isinstance(value, str) and value == INHERIT else value

    def computed(self, parent: ComputedStyle | None = None) -> ComputedStyle:
        """Cascade this block (normal, then !important) over initial/inherited values.

        The last result is kept: it depends only on this block (its version) and on the
        parent's inherited fields and the fields written as ``inherit`` here."""
        key = (self.version, None if parent is None else self._parent_fields()(parent))
        if self._memo is not None and self._memo[0] == key:
            return self._memo[1]
        style = self._compute(parent)
        self._memo = (key, style)
        return style

    def _parent_fields(self) -> Callable[[Any], tuple]:
        """What computed() reads of the parent: its inherited fields, then those written as
        ``inherit`` here, in one attrgetter call. Made once per version of the block, not
        per call: every layer's style is computed on every first frame (a page of hundreds
        of layers), where finding the ``inherit`` fields, sorting the names and reading
        them one by one were most of the cost of a memo hit."""
        if self._reads is None or self._reads[0] != self.version:
            explicit = tuple(sorted(k for d in self._decls.values() for k, v in d.updates.items()
                                    if isinstance(v, str) and v == INHERIT))
            self._reads = (self.version, explicit, attrgetter(*_INHERITED_ORDER, *explicit))
        return self._reads[2]

    def _compute(self, parent: ComputedStyle | None) -> ComputedStyle:
        # One constructor call (inherited fields, then declarations over them): a page
        # of hundreds of layers computes this once per layer on its first frame.
        fields: dict[str, Any] = {f: getattr(parent, f) for f in INHERITED_FIELDS} if parent is not None else {}
        for important in (False, True):
            for decl in self._decls.values():
                if decl.important == important:
                    fields.update(decl.updates)
        for key, value in fields.items():
            if isinstance(value, str) and value == INHERIT:
                fields[key] = getattr(parent, key) if parent is not None else getattr(ComputedStyle, key)
        try:
            resolve_relative(fields, parent)  # em, %, larger, bolder: absolute, as CSS computes them
        except StyleError as err:  # a computed size past its limit: whose it is
            raise err.located(layer=self.owner) from None
        # currentcolor stays a keyword (it inherits as one, CSS Color 4 §4.4); painting
        # resolves it with ComputedStyle.used_color.
        return ComputedStyle(**fields)
