"""Keyframe animations of a layer's style, sampled at a time (CSS Animations 1 model).

An ``Animation`` has keyframes (offset in [0, 1] -> CSS declarations, each optionally
with its own easing), a duration, delay, easing, iteration count, direction and fill
mode. ``sample(t, base, box)`` gives the ComputedStyle fields it overrides at time ``t``
(seconds), or nothing when it has no effect then. Keyframes without a 0% or 100% use
the layer's own (underlying) value there, as CSS does.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..errors import InvalidValueError, StyleError
from ..limits import MAX_ITERATIONS, MAX_TIME, MIN_DURATION
from ..style.declarations import parse_value
from .easing import Easing, Linear, parse_easing
from .interpolate import interpolate_field
from ..named import NamedEnum

__all__ = ["Keyframe", "Animation", "parse_timing", "PlaybackDirection", "FillMode", "DIRECTIONS", "FILLS", "parse_time"]


class PlaybackDirection(NamedEnum):
    """``animation-direction``: which iterations play backwards. A ``str`` (same hash
    and format), so scene files and reports read as they always did."""

    NORMAL = "normal"
    REVERSE = "reverse"
    ALTERNATE = "alternate"
    ALTERNATE_REVERSE = "alternate-reverse"


    def reverses(self, iteration: int) -> bool:
        """Whether iteration ``iteration`` (0 first) plays from 100% to 0%."""
        if self in (PlaybackDirection.NORMAL, PlaybackDirection.REVERSE):
            return self is PlaybackDirection.REVERSE
        return (iteration % 2 == 1) != (self is PlaybackDirection.ALTERNATE_REVERSE)


class FillMode(NamedEnum):
    """``animation-fill-mode``: whether the animation has its effect before its delay
    ends (backwards) and after it ends (forwards). A ``str`` (same hash and format)."""

    NONE = "none"
    FORWARDS = "forwards"
    BACKWARDS = "backwards"
    BOTH = "both"


    @property
    def backwards(self) -> bool:
        return self in (FillMode.BACKWARDS, FillMode.BOTH)

    @property
    def forwards(self) -> bool:
        return self in (FillMode.FORWARDS, FillMode.BOTH)


DIRECTIONS = tuple(d.value for d in PlaybackDirection)
_TIME = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(ms|s)")
FILLS = tuple(f.value for f in FillMode)
# Properties whose animation the compositor can run without re-rastering (Blink's list).
COMPOSITED_PROPERTIES = frozenset({"transform", "opacity", "filter"})


def parse_time(value: Any, what: str) -> float:
    """Seconds from a number (seconds) or CSS text ("2s", "250ms")."""
    if isinstance(value, bool):
        raise InvalidValueError(f"{what} must be a time, got {value!r}", property=what)
    if isinstance(value, int) and abs(value) > MAX_TIME:  # (before float(): a huge int overflows it)
        raise InvalidValueError(f"{what} must be within ±{MAX_TIME:g} s (lamina.limits.MAX_TIME)", property=what)
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        match = _TIME.fullmatch(value.strip().lower())
        if match is None:
            raise InvalidValueError(f"{what} must be a time like '2s' or '250ms', got {value!r}", property=what)
        seconds = float(match.group(1)) / (1000.0 if match.group(2) == "ms" else 1.0)
    else:
        raise InvalidValueError(f"{what} must be a time, got {type(value).__name__}", property=what)
    if not math.isfinite(seconds):
        raise InvalidValueError(f"{what} must be finite, within ±{MAX_TIME:g} s (lamina.limits.MAX_TIME), got "
                                f"{value!r}"[:200], property=what)
    if abs(seconds) > MAX_TIME:
        raise InvalidValueError(f"{what} must be within ±{MAX_TIME:g} s (lamina.limits.MAX_TIME), got {seconds:g} s",
                                property=what)
    return seconds


@dataclass(frozen=True)
class Keyframe:
    offset: float
    declarations: tuple[tuple[str, str], ...]  # (property, CSS value text)
    updates: Mapping[str, Any] = field(compare=False, repr=False)
    easing: Easing | None = None


def _offset(key: Any) -> float:
    if isinstance(key, (int, float)) and not isinstance(key, bool):
        value = float(key)
    elif isinstance(key, str):
        text = key.strip().lower()
        value = {"from": 0.0, "to": 1.0}.get(text)
        if value is None:
            try:
                value = float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
            except ValueError:
                raise InvalidValueError(f"keyframe offset must be a percentage, from or to, got {key!r}", property="keyframes") from None
    else:
        raise InvalidValueError(f"keyframe offset must be a percentage, got {key!r}", property="keyframes")
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InvalidValueError(f"keyframe offset {key!r} is outside 0%..100%", property="keyframes")
    return value


def _keyframe(key: Any, decls: Mapping[str, Any]) -> Keyframe:
    if not isinstance(decls, Mapping):
        raise InvalidValueError(f"keyframe {key!r} must map properties to CSS values", property="keyframes")
    easing = None
    updates: dict[str, Any] = {}
    pairs = []
    for name, value in decls.items():
        prop = str(name).strip().lower()
        if prop in ("easing", "animation-timing-function"):
            easing = parse_easing(value)
            continue
        text = repr(value) if isinstance(value, float) else str(value)
        updates.update(parse_value(prop, text))
        pairs.append((prop, text))
    return Keyframe(_offset(key), tuple(pairs), updates, easing)



def keyframe_items(keyframes: Any) -> list[tuple[int | str, Any, Any]]:
    """The keyframes as given, each as (where it was given: its index in a list or its key
    in a mapping, its offset, its declarations); a typed error for any other shape. Shared
    by CSS animations and SVG attribute animations (animation.svg_attributes)."""
    items: list[tuple[int | str, Any, Any]] = []
    if isinstance(keyframes, Mapping):
        items = [(str(key), key, decls) for key, decls in keyframes.items()]
    elif isinstance(keyframes, (list, tuple)):
        for i, kf in enumerate(keyframes):
            if not isinstance(kf, Mapping) or "offset" not in kf:
                raise InvalidValueError("each keyframe in a list needs an 'offset'", property="keyframes", keyframe=i)
            items.append((i, kf["offset"], {k: v for k, v in kf.items() if k != "offset"}))
    else:
        raise InvalidValueError(f"keyframes must be a mapping or a list, got {type(keyframes).__name__}",
                                property="keyframes")
    return items

def parse_timing(duration: Any, delay: Any = 0.0, easing: Any = "linear", iterations: Any = 1,
                 direction: str = "normal", fill: str = "none") -> dict[str, Any]:
    """An animation's timing (CSS Animations 1), checked (typed errors naming the
    property): the Animation fields duration, delay, easing, iterations, direction, fill.
    Keyframe animations of layer styles and of SVG filter attributes share it."""
    seconds = parse_time(duration, "duration")
    if seconds < 0:
        raise InvalidValueError("duration must not be negative", property="duration")
    if 0 < seconds < MIN_DURATION:  # sampling divides by it: t / duration would pass a float's range
        raise InvalidValueError(f"duration must be 0 or at least {MIN_DURATION:g} s (lamina.limits.MIN_DURATION), "
                                f"got {seconds:g} s", property="duration")
    if isinstance(iterations, str) and iterations.strip().lower() == "infinite":
        count = math.inf
    elif (isinstance(iterations, (int, float)) and not isinstance(iterations, bool)
          and not (isinstance(iterations, float) and math.isnan(iterations)) and iterations >= 0):
        if iterations > MAX_ITERATIONS:  # (compared before float(): a huge int overflows it)
            raise InvalidValueError(f"iterations must be at most {MAX_ITERATIONS:g} or 'infinite' "
                                    "(lamina.limits.MAX_ITERATIONS)", property="iterations")
        count = float(iterations)
    else:
        raise InvalidValueError(f"iterations must be a non-negative number or 'infinite', got {iterations!r}", property="iterations")
    if direction not in DIRECTIONS:
        raise InvalidValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}", property="direction")
    if fill not in FILLS:
        raise InvalidValueError(f"fill must be one of {', '.join(FILLS)}, got {fill!r}", property="fill")
    return {"duration": seconds, "delay": parse_time(delay, "delay"), "easing": parse_easing(easing), "iterations": count,
            "direction": PlaybackDirection(direction), "fill": FillMode(fill)}


@dataclass
class Animation:
    """A keyframe animation of one layer's style."""

    keyframes: list[Keyframe]
    duration: float
    delay: float = 0.0
    easing: Easing = field(default_factory=Linear)
    iterations: float = 1.0
    direction: PlaybackDirection = PlaybackDirection.NORMAL
    fill: FillMode = FillMode.NONE
    name: str = ""

    @classmethod
    def create(
        cls,
        keyframes: Mapping[Any, Mapping[str, Any]] | list,
        *,
        duration: Any,
        delay: Any = 0.0,
        easing: Any = "linear",
        iterations: Any = 1,
        direction: str = "normal",
        fill: str = "none",
        name: str = "",
    ) -> "Animation":
        """Validate everything (typed errors) and build an Animation.

        ``keyframes`` maps offsets ("0%", "from", 0.5...) to {property: CSS value}, or is a
        list of such dicts with an "offset" entry."""
        items = keyframe_items(keyframes)
        frames = []
        for place, key, decls in items:
            try:
                frames.append(_keyframe(key, decls))
            except StyleError as err:  # say which keyframe: a scene file's error gives its JSON path
                raise err.located(keyframe=place) from None
        frames.sort(key=lambda f: f.offset)
        if not frames or not any(f.updates for f in frames):
            raise InvalidValueError("an animation needs keyframes with at least one property", property="keyframes")
        return cls(frames, name=name, **parse_timing(duration, delay, easing, iterations, direction, fill))

    def to_dict(self) -> dict[str, Any]:
        """Scene-file JSON for this animation (what ``create`` takes back)."""
        frames = []
        for f in self.keyframes:
            entry = dict(f.declarations)
            if f.easing is not None:
                entry["easing"] = f.easing.css()
            frames.append((f"{f.offset * 100!r}%".replace(".0%", "%"), entry))
        keys = [k for k, _ in frames]
        if len(set(keys)) == len(keys):
            keyframes: Any = dict(frames)
        else:  # several keyframes at one offset: the list form keeps them all
            keyframes = [{"offset": k, **entry} for k, entry in frames]
        out: dict[str, Any] = {"keyframes": keyframes, "duration": self.duration}
        if self.delay:
            out["delay"] = self.delay
        if not isinstance(self.easing, Linear):
            out["easing"] = self.easing.css()
        if self.iterations != 1:
            out["iterations"] = "infinite" if math.isinf(self.iterations) else self.iterations
        if self.direction is not PlaybackDirection.NORMAL:
            out["direction"] = self.direction.value
        if self.fill is not FillMode.NONE:
            out["fill"] = self.fill.value
        if self.name:
            out["name"] = self.name
        return out

    # -- facts ---------------------------------------------------------------------------
    @property
    def properties(self) -> frozenset[str]:
        return frozenset(p for f in self.keyframes for p, _ in f.declarations)

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(k for f in self.keyframes for k in f.updates)

    def is_active(self, t: float) -> bool:
        """Is the animation running (in its active interval) at time ``t``?"""
        local = t - self.delay
        return self.duration > 0 and 0.0 <= local < self.duration * self.iterations

    # -- sampling ------------------------------------------------------------------------
    def progress(self, t: float) -> float | None:
        """The iteration progress at ``t`` after direction and easing (None: no effect)."""
        local = t - self.delay
        active = 0.0 if self.duration == 0 else self.duration * self.iterations
        if local < 0:
            if not self.fill.backwards:
                return None
            iteration, p = 0.0, 0.0
        elif local >= active:
            if not self.fill.forwards:
                return None
            if self.iterations == 0:
                iteration, p = 0.0, 0.0
            elif math.isinf(self.iterations):  # only with a zero duration: ends at 100%
                iteration, p = 0.0, 1.0
            else:
                whole = math.floor(self.iterations)
                p = self.iterations - whole
                iteration = whole - 1 if p == 0 else whole
                p = 1.0 if p == 0 else p
        elif self.duration == 0:
            iteration, p = 0.0, 1.0
        else:
            iteration = math.floor(local / self.duration)
            p = (local - iteration * self.duration) / self.duration
        if self.direction.reverses(int(iteration)):
            p = 1.0 - p
        return self.easing(p)

    def sample(self, t: float, base: Any, box: tuple[float, float], parent: Any = None) -> dict[str, Any]:
        """Field overrides of ComputedStyle ``base`` at time ``t`` ({} when no effect);
        ``parent`` is the parent's ComputedStyle, for ``inherit`` in keyframes."""
        p = self.progress(t)
        if p is None:
            return {}
        out: dict[str, Any] = {}
        for fld in self.fields:
            frames = [f for f in self.keyframes if fld in f.updates]
            # Implicit 0% / 100% keyframes hold the underlying value.
            underlying = _used(getattr(base, fld), base)
            inherited = _used(getattr(parent, fld), base) if parent is not None else underlying
            points = [
                (f.offset, inherited if _is_inherit(f.updates[fld]) else _used(f.updates[fld], base), f.easing)
                for f in frames
            ]
            if points[0][0] > 0.0:
                points.insert(0, (0.0, underlying, None))
            if points[-1][0] < 1.0:
                points.append((1.0, underlying, None))
            out[fld] = _between(fld, points, p, box)
        return out


def _between(fld: str, points, p: float, box) -> Any:
    if p <= points[0][0]:
        lo, hi = points[0], points[1]
    elif p >= points[-1][0]:
        lo, hi = points[-2], points[-1]
    else:
        i = max(j for j in range(len(points)) if points[j][0] <= p)
        i = min(i, len(points) - 2)
        lo, hi = points[i], points[i + 1]
    span = hi[0] - lo[0]
    local = (p - lo[0]) / span if span > 0 else 1.0
    if lo[2] is not None:  # a keyframe's own easing applies to the segment it starts
        local = lo[2](local)
    return interpolate_field(fld, lo[1], hi[1], local, box)


def _used(value: Any, base: Any) -> Any:
    # currentcolor interpolates as the colour it stands for (CSS Color 4).
    return base.color if isinstance(value, str) and value == "currentcolor" else value


def _is_inherit(value: Any) -> bool:
    # 'inherit' in a keyframe means the layer's inherited (underlying) value here.
    return isinstance(value, str) and value == "inherit"


def check_animations(anims) -> list[Animation]:
    out = []
    for a in anims:
        if not isinstance(a, Animation):
            raise StyleError(f"expected an Animation, got {type(a).__name__}")
        out.append(a)
    return out
