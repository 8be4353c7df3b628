"""The scene's ``url(#id)`` filter references, checked before a frame is planned: each
must name a ``<filter>`` of the scene's SVG (``scene.add_svg``). A scene file is checked
at load (``scene_file``); a scene built in Python is checked here, so a dangling
reference is an SvgFilterError naming the layer, the property and the id before any GPU
work — never a failure halfway through planning."""

from __future__ import annotations

from ..errors import SvgFilterError

__all__ = ["check_svg_references"]

_PROPERTIES = (("filter", "filter"), ("backdrop-filter", "backdrop_filter"))


def check_svg_references(scene) -> None:
    document = scene.svg
    for layer in scene.layers():
        written = [(css, field) for css, field in _PROPERTIES
                   if isinstance(v := layer.style.get(css), str) and "url(" in v]
        if not written:
            continue
        computed = layer.style.computed()
        for css, field in written:
            chain = getattr(computed, field)
            for ident in chain.svg_ids() if chain is not None else ():
                if document is None or ident not in document.filters:
                    known = ", ".join(f"#{k}" for k in sorted(document.filters)) if document else "no SVG markup (scene.add_svg)"
                    err = SvgFilterError(f"layer {layer.id!r}: {css}: url(#{ident}) names no <filter> of the scene's "
                                         f"SVG ({known})", attribute=css, value=f"url(#{ident})")
                    err.layer = layer.id
                    raise err
