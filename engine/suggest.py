"""Near matches for a misspelt name, so an error can suggest the fix.

One rule for every place a user names something from a known set (a CSS property, a
command-line flag, a layer id, a demo): the closest names by difflib's ratio, above a
cutoff that keeps unrelated names out (``border-raduis`` finds ``border-radius``;
``colour`` finds ``color``; ``xyz`` finds nothing).
"""

from __future__ import annotations

import difflib
from typing import Iterable

__all__ = ["did_you_mean", "near_matches"]

# difflib's ratio above which a name counts as a misspelling of another: 0.6 (difflib's
# default) also pairs words that share half their letters ("fill" and "filter"); 0.7 keeps
# transposed, doubled and dropped letters.
CUTOFF = 0.7


# Only names about as close as the closest are offered: "backgroud" suggests
# "background", not also "background-size".
TIE = 0.05


def near_matches(word: str, choices: Iterable[str], n: int = 3, cutoff: float = CUTOFF) -> list[str]:
    """Up to ``n`` of ``choices`` closest to ``word`` and about as close as the closest,
    best first (case-insensitive)."""
    by_lower: dict[str, str] = {}
    for choice in choices:
        by_lower.setdefault(choice.lower(), choice)
    target = word.lower()
    scored = []
    for lower in by_lower:
        if lower == target:
            continue
        matcher = difflib.SequenceMatcher(None, target, lower)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
            ratio = matcher.ratio()
            if ratio >= cutoff:
                scored.append((ratio, lower))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    best = scored[0][0] if scored else 0.0
    return [by_lower[lower] for ratio, lower in scored[:n] if ratio >= best - TIE]


def did_you_mean(word: str, choices: Iterable[str], n: int = 3, cutoff: float = CUTOFF) -> str:
    """``"did you mean 'x'?"`` (or ``"'x' or 'y'"``) for the near matches, else ``""``."""
    found = near_matches(word, choices, n, cutoff)
    if not found:
        return ""
    quoted = [repr(f) for f in found]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f"did you mean {listed}?"
