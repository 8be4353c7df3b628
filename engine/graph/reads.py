"""Read-backs: what a draw that reads the pixels under it (a blend mode, a
backdrop-filter) needs, and where a target's composite pass is split for it — a pass
cannot read the texture it draws into, so drawing stops, the region is copied (a
BackdropPass), the read's own work runs, and drawing goes on."""

from __future__ import annotations

from dataclasses import replace

from ..blending import BlendMode
from ..framegraph import BackdropPass, CompositePass, Draw, TextureDesc, TextureRole
from ..geometry import Affine, Rect
from .placement import touched
from .targets import BackdropRead

__all__ = ["blend_read", "split_at_reads"]


def blend_read(draw: Draw, mode: BlendMode, target_size: tuple[int, int] | None) -> tuple[Draw, BackdropRead] | None:
    """``draw`` composited with ``mode``, and the copy of the target under it that it
    reads; None when nothing of it lands in the target."""
    region = touched(Rect(0, 0, *draw.quad_size), draw.transform)
    if target_size is not None:
        region = region.intersect(Rect(0, 0, *target_size))
    if region.is_empty():
        return None
    x, y, w, h = int(region.x), int(region.y), int(region.width), int(region.height)
    copy = TextureDesc(f"backdrop:{draw.layer_id}", w, h, TextureRole.BACKDROP)
    blended = replace(draw, blend=mode, backdrop=copy, backdrop_origin=(x, y))
    return blended, BackdropRead(copy, Affine.translate(x, y), None,
                                 f"mix-blend-mode {mode} of {draw.layer_id!r} reads the {w}x{h} px under it")


def split_at_reads(cp: CompositePass, reads: dict[int, BackdropRead]) -> list:
    """``cp``, split where a draw reads its backdrop (``reads``: id(draw) -> its read):
    the target is drawn up to that draw, the part under it copied, what the read needs
    run (a backdrop-filter's passes and surface), then the target drawn on from there."""
    if not any(id(d) in reads for d in cp.draws):
        return [cp]
    out: list = []
    segment: list[Draw] = []
    part = 0
    for d in cp.draws:
        read = reads.get(id(d))
        if read is not None:
            name = cp.name if part == 0 else f"{cp.name}+{part}"
            out.append(replace(cp, name=name, draws=tuple(segment), continues=part > 0))
            part += 1
            out.append(BackdropPass(f"backdrop:{d.layer_id}", d.layer_id, cp.target, read.copy, read.to_source,
                                    read.mirror, read.reason))
            out.extend(read.after)
            segment = []
        segment.append(d)
    out.append(replace(cp, name=f"{cp.name}+{part}", draws=tuple(segment), continues=True))
    return out
