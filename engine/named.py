"""NamedEnum: a closed set of names that stand where strings stood (kinds, reasons,
executors, roles): str-valued, and printed, formatted and hashed as its value, so
reports, JSON, traces and dict keys read exactly as the strings they replaced, while
code compares members, not text."""

from __future__ import annotations

from enum import Enum

__all__ = ["NamedEnum"]


class NamedEnum(str, Enum):
    __str__ = str.__str__
    __format__ = str.__format__
    __hash__ = str.__hash__
