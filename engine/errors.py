"""Typed errors: every problem with user input names what was wrong and where.

Two families matter to callers (and to the CLI's exit codes):

* ``LaminaInputError`` — the input is wrong (CSS, geometry, scene file, image path).
  The CLI exits with status 2 and prints the one-line message.
* ``LaminaEnvironmentError`` — the machine cannot do what was asked (no EGL, no
  OpenGL 3.3, a layer larger than the GPU's texture limit). The CLI exits with 1.
* ``RendererUseError`` — a renderer (its GL context) used where it cannot work: after
  ``release()``, from a thread other than the one that made it, or in a process forked
  after a GL context was made. The message says what to do instead.

Everything derives from ``LaminaError`` so ``except LaminaError`` catches all of them.
"""

from __future__ import annotations

__all__ = [
    "LaminaError",
    "LaminaInputError",
    "LaminaEnvironmentError",
    "RendererUseError",
    "RendererReleasedError",
    "RendererThreadError",
    "ForkedContextError",
    "StyleError",
    "CSSSyntaxError",
    "UnknownPropertyError",
    "InvalidValueError",
    "FilterSyntaxError",
    "UnsupportedFeatureError",
    "SvgFilterError",
    "SvgImageError",
    "GeometryError",
    "LayerTreeError",
    "SceneFileError",
    "ImageLoadError",
    "ImageFormatError",
    "OutputFileError",
    "FileAccessError",
    "GPUUnavailableError",
    "GPUOutOfMemoryError",
    "TextureTooLargeError",
    "GoldenError",
    "OpenCLUnavailableError",
    "FontUnavailableError",
    "DeviceProfileError",
    "PlacementError",
]


class LaminaError(Exception):
    """Base class of every error Lamina raises on purpose."""


class LaminaInputError(LaminaError):
    """The caller's input is invalid; the message says what and where."""


class LaminaEnvironmentError(LaminaError):
    """The machine or GPU cannot do what was asked; the message says what to change."""


class RendererUseError(LaminaError):
    """A renderer or its GL context was used where it cannot work (see the subclasses);
    nothing was drawn."""


class RendererReleasedError(RendererUseError):
    """The renderer was released (``release()``, or the end of its ``with`` block)."""


class RendererThreadError(RendererUseError):
    """A renderer (or a frame's pixels still on its GPU) was used from a thread other
    than the one that made it: a GL context is current in one thread at a time, and a
    renderer's kept state is not shared. Each thread uses its own renderer
    (``default_renderer()`` is one per thread)."""


class ForkedContextError(RendererUseError):
    """GL was used in a process forked after its parent made a GL context: the driver's
    threads and state do not survive ``fork`` (a new context would hang). Start worker
    processes with the ``spawn`` method."""


def _style_message(reason: str, *, layer: str | None = None, property: str | None = None, value: str | None = None,
                   line: int | None = None, column: int | None = None, keyframe: int | str | None = None) -> str:
    """``layer 'a', keyframe 1, property 'p', line 2, column 5: reason (in 'value')``: where
    a style problem is, as StyleError and FontUnavailableError both say it."""
    where = []
    if layer is not None:
        where.append(f"layer {layer!r}")
    if keyframe is not None:
        where.append(f"keyframe {keyframe!r}")
    if property is not None:
        where.append(f"property {property!r}")
    if line is not None and line > 1:
        where.append(f"line {line}")
    if column is not None:
        where.append(f"column {column}")
    head = ", ".join(where)
    text = f"{head}: {reason}" if head else reason
    if value is not None and value.strip():
        text += f" (in {value.strip()!r})"
    return text


class StyleError(LaminaInputError):
    """A CSS declaration could not be used.

    Attributes name the property, the offending value text, the 1-based column in the
    CSS text it came from (``None`` when unknown), the layer id when known and, in an
    animation, the keyframe: its index in a list of keyframes, or its key ("50%") in a
    mapping of them.
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
        keyframe: int | str | None = None,
    ) -> None:
        self.reason = message
        self.line = line
        self.property = property
        self.value = value
        self.column = column
        self.layer = layer
        self.keyframe = keyframe
        super().__init__(self._format())

    def _format(self) -> str:
        return _style_message(self.reason, layer=self.layer, property=self.property, value=self.value,
                              line=self.line, column=self.column, keyframe=self.keyframe)

    def located(self, *, layer: str | None = None, column_offset: int = 0,
                keyframe: int | str | None = None) -> "StyleError":
        """Return the same error with the layer, the keyframe and an absolute column filled in."""
        err = type(self).__new__(type(self))
        StyleError.__init__(
            err,
            self.reason,
            property=self.property,
            value=self.value,
            column=None if self.column is None or self.column + column_offset < 1 else self.column + column_offset,
            line=self.line,
            layer=layer if layer is not None else self.layer,
            keyframe=keyframe if keyframe is not None else self.keyframe,
        )
        err.__cause__ = self.__cause__
        return err

    def without_value(self) -> "StyleError":
        """The same error without the value quoted: for a limit's error, where the value
        is what is too large to show."""
        self.value = None
        self.args = (self._format(),)
        return self


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
    """Valid CSS that Lamina does not implement yet; the message says which part.
    ``element``: in SVG filter markup, the element as written (``<feOffset>``), as
    SvgFilterError names it; None elsewhere."""

    element: str | None = None

    def __init__(self, message: str, *, element: str | None = None, **where) -> None:
        self.element = element
        super().__init__(message, **where)

    def located(self, **where) -> "StyleError":
        err = super().located(**where)
        err.element = self.element
        return err


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


def _located_prefix(file: str | None, path: str | None) -> str:
    """``scene.json: $.layers[0].style: `` -- where in which scene file, as SceneFileError says it."""
    return "".join(f"{part}: " for part in (file, path) if part)


def _short(url: str) -> str:
    """A url for a message: a data: URL's media type and size (its payload is the image's
    bytes, which a message never shows), else all of it."""
    if url.startswith("data:"):
        header, comma, payload = url.partition(",")
        return f"{header[:60]}{comma}...({len(payload)} characters)" if comma else header[:60]
    return url if len(url) <= 1000 else url[:997] + "..."


class ImageLoadError(LaminaInputError):
    """An image source is missing, unreadable or not an image.

    ``reason`` says what is wrong. Where it is known: ``layer`` (the layer id), ``url``
    (the source as written, None for in-memory pixels), ``resolved`` (the file it names),
    and, for a scene loaded from a file, ``file`` (the scene file) and ``path`` (the JSON
    path of the text that names the image, e.g. ``$.layers[0].style``).
    """

    def __init__(
        self,
        message: str,
        *,
        layer: str | None = None,
        url: str | None = None,
        resolved: str | None = None,
        path: str | None = None,
        file: str | None = None,
    ) -> None:
        self.reason = message
        self.layer = layer
        self.url = url
        self.resolved = None if resolved is None else str(resolved)
        self.path = path
        self.file = file
        super().__init__(self._format())

    def _format(self) -> str:
        what = f"layer {self.layer!r} image" if self.layer is not None else "image"
        if self.url is not None:
            what += f" url({_short(self.url)})"
        if self.resolved is not None and self.resolved != self.url:
            what += f" ({self.resolved})"
        return f"{_located_prefix(self.file, self.path)}{what}: {self.reason}"

    def _fields(self) -> dict:
        return {"layer": self.layer, "url": self.url, "resolved": self.resolved, "path": self.path, "file": self.file}

    def located(self, *, path: str | None = None, file: str | None = None, layer: str | None = None) -> "ImageLoadError":
        """The same error with the scene file, JSON path and layer filled in where unset."""
        fields = self._fields()
        for key, value in (("path", path), ("file", file), ("layer", layer)):
            if fields[key] is None:
                fields[key] = value
        err = type(self).__new__(type(self))
        type(self).__init__(err, self.reason, **fields)
        err.__cause__ = self.__cause__
        return err


class ImageFormatError(ImageLoadError):
    """Image data in a format Lamina does not decode (lamina.image_formats.ALLOWED_FORMATS:
    PNG, JPEG, WebP, GIF, BMP), told from its first bytes before any decoder saw it. The
    message names the allowed formats and, when known, what the data is, never its bytes."""


class OutputFileError(LaminaInputError):
    """A file Lamina was asked to write cannot be written there: the path names a folder,
    a FIFO, a device or nothing (``-o .``), its folder is missing, or the write failed
    (disk full, no permission). ``path`` is the path as given, ``reason`` what is wrong.
    Writes are atomic (lamina.output_files), so a failed one leaves the previous file
    as it was."""

    def __init__(self, reason: str, *, path: str) -> None:
        self.reason = reason
        self.path = path
        shown = path if path and path.isprintable() else repr(path)  # '' and control characters, visibly
        super().__init__(f"cannot write {shown}: {reason}")


class FileAccessError(ImageLoadError):
    """A scene file's ``url()`` names a file outside the folders it may read.

    A scene loaded from a file reads images only inside its own folder and the folders
    the caller allowed (``load_scene(path, allow_files=[...])``, ``--allow-files``);
    absolute paths, ``..`` escapes and symlinks that lead elsewhere are refused, as
    browsers confine ``file:`` pages. ``resolved`` is the real path the url leads to and
    ``allowed`` the folders that were allowed.
    """

    def __init__(self, message: str, *, allowed: tuple[str, ...] = (), **where) -> None:
        self.allowed = tuple(str(a) for a in allowed)
        super().__init__(message, **where)

    def _fields(self) -> dict:
        return {**super()._fields(), "allowed": self.allowed}


class GPUUnavailableError(LaminaEnvironmentError):
    """No usable OpenGL 3.3 context (EGL or driver missing); the message says what to install."""


class GPUOutOfMemoryError(LaminaEnvironmentError):
    """The GPU ran out of memory (GL_OUT_OF_MEMORY): the scene needs too many or too
    large textures for this machine."""


class TextureTooLargeError(LaminaInputError):
    """A layer or surface needs a texture larger than the GPU allows (GL_MAX_TEXTURE_SIZE).

    ``layer`` is the layer id when the raiser knows it; for a scene loaded from a file,
    ``file`` and ``path`` (the layer's JSON path) say where it was written. ``element``
    and ``property`` (given as ``attribute``, as SvgFilterError's) name what in SVG markup
    sized the texture, when something did (a ``<filter id="f">``'s region: its x, y,
    width and height).
    """

    def __init__(self, message: str, *, layer: str | None = None, path: str | None = None,
                 file: str | None = None, element: str | None = None, attribute: str | None = None) -> None:
        self.reason = message
        self.layer = layer
        self.path = path
        self.file = file
        self.element = element
        self.property = attribute
        super().__init__(f"{_located_prefix(file, path)}{message}")

    def located(self, *, path: str | None = None, file: str | None = None, layer: str | None = None) -> "TextureTooLargeError":
        """The same error with the scene file, JSON path and layer filled in where unset."""
        err = type(self).__new__(type(self))
        TextureTooLargeError.__init__(err, self.reason, layer=self.layer or layer, path=self.path or path,
                                      file=self.file or file, element=self.element, attribute=self.property)
        err.__cause__ = self.__cause__
        return err


class GoldenError(LaminaInputError):
    """Golden-image testing was asked something invalid: a tolerance that is not a range,
    a malformed renderers.json, an image of the wrong shape or type, a bad golden name."""


class OpenCLUnavailableError(LaminaEnvironmentError):
    """No usable OpenCL device (no ICD installed, none matches the selection, or the
    program does not build); the message says what to install or which devices exist."""


class OpenCLDeviceError(OpenCLUnavailableError):
    """An OpenCL device failed in the middle of a frame (an OpenCL error, a lost context):
    names the device and the pass it failed in. Under filter_backend "auto" the renderer
    takes the device out of its schedule and draws the frame again without it (the
    report says so); where OpenCL was forced, this is raised. The failed frame's
    pixels are never returned."""

    def __init__(self, message: str, *, device: str = "", pass_name: str = "") -> None:
        super().__init__(message)
        self.device = device
        self.pass_name = pass_name


class FontUnavailableError(LaminaEnvironmentError):
    """No installed font serves a ``font-family`` (or fontconfig itself is missing): the
    machine lacks a font, so this is the environment's problem (CLI exit 1), and the
    message says what to install. Like a StyleError it names ``property``, ``value`` (the
    family list as written) and ``layer``; for a scene loaded from a file, ``file`` and
    ``path`` (the JSON path of the layer's style) say where it was written."""

    def __init__(self, message: str, *, property: str | None = "font-family", value: str | None = None,
                 layer: str | None = None, path: str | None = None, file: str | None = None) -> None:
        self.reason = message
        self.property = property
        self.value = value
        self.layer = layer
        self.path = path
        self.file = file
        text = _style_message(message, layer=layer, property=property, value=value)
        super().__init__(f"{_located_prefix(file, path)}{text}")

    def located(self, *, path: str | None = None, file: str | None = None, layer: str | None = None) -> "FontUnavailableError":
        """The same error with the scene file, JSON path and layer filled in where unset."""
        err = type(self).__new__(type(self))
        FontUnavailableError.__init__(err, self.reason, property=self.property, value=self.value,
                                      layer=self.layer or layer, path=self.path or path, file=self.file or file)
        err.__cause__ = self.__cause__
        return err


class DeviceProfileError(LaminaInputError):
    """A device profile (``lamina schedule --devices``, ``lamina.device_profile``) is not
    one: an unknown key, a negative or zero speed, a transfer or history entry naming a
    device the profile does not list, no GL device. ``key`` is the JSON path of the
    offending entry (``$.devices[1].speeds.blur``); ``file`` the profile, when read from
    one."""

    def __init__(self, message: str, *, key: str = "$", file: str | None = None) -> None:
        self.key = key
        self.file = file
        self.reason = message
        super().__init__(f"{_located_prefix(file, key)}{message}")


class PlacementError(LaminaInputError):
    """A forced placement (``FrameRequest(placement=...)``, ``lamina render --placement``,
    ``lamina.forced_placement``) is not one: an unknown strategy, a bad seed, or an
    assignment naming a pass the frame does not have or a device that does not exist.
    ``name`` is the offending strategy, pass or device, as given."""

    def __init__(self, message: str, *, name: str = "") -> None:
        self.name = name
        super().__init__(message)


class OpenCLDevicesError(LaminaInputError):
    """The OpenCL devices a renderer is told to use (``LAMINA_OPENCL_DEVICES``,
    ``Renderer(opencl_devices=...)``) are not a list of devices this machine has: a
    value that is not ``all`` or a comma-separated list of "P:D" indices, or an index no
    platform lists. ``value`` is the offending entry, ``where`` where it was given."""

    def __init__(self, message: str, *, value: str = "", where: str = "") -> None:
        self.value = value
        self.where = where
        super().__init__(message)


class SvgFilterError(InvalidValueError):
    """SVG filter markup that cannot be used: malformed or unsafe XML (a DTD or entity is
    refused at once), an unknown element or attribute, a bad attribute value, a reference
    to a result or filter that does not exist, a kernel of the wrong size, a value over
    a limit. ``element`` names the element as written (``<feGaussianBlur result="b">``),
    ``property`` the attribute and ``value`` its value; ``line`` the line in the markup."""

    def __init__(self, message: str, *, element: str | None = None, attribute: str | None = None,
                 value: str | None = None, line: int | None = None) -> None:
        self.element = element
        super().__init__(message, property=attribute, value=value, line=line)

    def _format(self) -> str:
        where = [f"line {self.line}"] if self.line is not None else []
        element = getattr(self, "element", None)  # absent on a copy made by located()
        if element:
            where.append(element)
        if self.property is not None:
            where.append(f"attribute {self.property!r}")
        text = f"{', '.join(where)}: {self.reason}" if where else self.reason
        if self.value is not None and self.value.strip():
            text += f" (in {self.value.strip()!r})"
        return text


class SvgImageError(SvgFilterError):
    """An feImage whose ``href`` cannot be shown: the file is missing, unreadable or not an
    image, or lies outside the folders the scene may read (``refused``: the scene's
    FileAccess policy said no, before the file was looked at). ``element``, ``property``
    ("href") and ``value`` name the feImage and its href; ``resolved`` is the file it led
    to. Raised while planning, before any GPU work; the ImageLoadError is its cause."""

    def __init__(self, message: str, *, element: str | None = None, value: str | None = None,
                 line: int | None = None, resolved: str | None = None, refused: bool = False) -> None:
        self.resolved = resolved
        self.refused = refused
        super().__init__(message, element=element, attribute="href", value=value, line=line)
