"""Typed errors: every problem with user input names what was wrong and where.

Two families matter to callers (and to the CLI's exit codes):

* ``LaminaInputError`` — the input is wrong (CSS, geometry, scene file, image path).
  The CLI exits with status 2 and prints the one-line message.
* ``LaminaEnvironmentError`` — the machine cannot do what was asked (no EGL, no
  OpenGL 3.3, a layer larger than the GPU's texture limit). The CLI exits with 1.

Everything derives from ``LaminaError`` so ``except LaminaError`` catches all of them.
"""

from __future__ import annotations

__all__ = [
    "LaminaError",
    "LaminaInputError",
    "LaminaEnvironmentError",
    "StyleError",
    "CSSSyntaxError",
    "UnknownPropertyError",
    "InvalidValueError",
    "FilterSyntaxError",
    "UnsupportedFeatureError",
    "GeometryError",
    "LayerTreeError",
    "SceneFileError",
    "ImageLoadError",
    "GPUUnavailableError",
    "GPUOutOfMemoryError",
    "TextureTooLargeError",
    "GoldenError",
    "OpenCLUnavailableError",
]


class LaminaError(Exception):
    """Base class of every error Lamina raises on purpose."""


class LaminaInputError(LaminaError):
    """The caller's input is invalid; the message says what and where."""


class LaminaEnvironmentError(LaminaError):
    """The machine or GPU cannot do what was asked; the message says what to change."""


class StyleError(LaminaInputError):
    """A CSS declaration could not be used.

    Attributes name the property, the offending value text, the 1-based column in the
    CSS text it came from (``None`` when unknown) and the layer id when known.
    """

    def __init__(
        self,
        message: str,
        *,
        property: str | None = None,
        value: str | None = None,
        column: int | None = None,
        line: int | None = None,
        layer: str | None = None,
    ) -> None:
        self.reason = message
        self.line = line
        self.property = property
        self.value = value
        self.column = column
        self.layer = layer
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.layer is not None:
            where.append(f"layer {self.layer!r}")
        if self.property is not None:
            where.append(f"property {self.property!r}")
        if self.line is not None and self.line > 1:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        head = ", ".join(where)
        text = f"{head}: {self.reason}" if head else self.reason
        if self.value is not None and self.value.strip():
            text += f" (in {self.value.strip()!r})"
        return text

    def located(self, *, layer: str | None = None, column_offset: int = 0) -> "StyleError":
        """Return the same error with the layer and an absolute column filled in."""
        err = type(self).__new__(type(self))
        StyleError.__init__(
            err,
            self.reason,
            property=self.property,
            value=self.value,
            column=None if self.column is None or self.column + column_offset < 1 else self.column + column_offset,
            line=self.line,
            layer=layer if layer is not None else self.layer,
        )
        err.__cause__ = self.__cause__
        return err


class CSSSyntaxError(StyleError):
    """The CSS text does not parse as declarations (missing colon, stray tokens...)."""


class UnknownPropertyError(StyleError):
    """A property name Lamina does not know (nothing is silently ignored)."""


class InvalidValueError(StyleError):
    """A known property with a value that is not valid CSS for it."""


class FilterSyntaxError(InvalidValueError):
    """A ``filter`` value that is not valid CSS (Filter Effects 1 grammar); the message
    says what was expected at ``column``."""


class UnsupportedFeatureError(StyleError):
    """Valid CSS that Lamina does not implement yet; the message says which part."""


class GeometryError(LaminaInputError):
    """A box, size or coordinate that is negative, NaN, infinite or absurdly large."""


class LayerTreeError(LaminaInputError):
    """The layer tree is malformed: duplicate ids, a layer added twice, a cycle."""


class SceneFileError(LaminaInputError):
    """A scene file is not valid JSON or does not follow the scene schema.

    ``path`` is the JSON path of the offending value, e.g. ``$.layers[2].box``.
    """

    def __init__(self, message: str, *, path: str = "$", file: str | None = None) -> None:
        self.path = path
        self.file = file
        prefix = f"{file}: " if file else ""
        super().__init__(f"{prefix}{path}: {message}")


class ImageLoadError(LaminaInputError):
    """An image source is missing, unreadable or not an image."""


class GPUUnavailableError(LaminaEnvironmentError):
    """No usable OpenGL 3.3 context (EGL or driver missing); the message says what to install."""


class GPUOutOfMemoryError(LaminaEnvironmentError):
    """The GPU ran out of memory (GL_OUT_OF_MEMORY): the scene needs too many or too
    large textures for this machine."""


class TextureTooLargeError(LaminaInputError):
    """A layer or surface needs a texture larger than the GPU allows (GL_MAX_TEXTURE_SIZE)."""


class GoldenError(LaminaInputError):
    """Golden-image testing was asked something invalid: a tolerance that is not a range,
    a malformed renderers.json, an image of the wrong shape or type, a bad golden name."""


class OpenCLUnavailableError(LaminaEnvironmentError):
    """No usable OpenCL device (no ICD installed, none matches the selection, or the
    program does not build); the message says what to install or which devices exist."""
