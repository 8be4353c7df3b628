"""The frame graph presented: its plain-words account (``describe``), its JSON
(``to_dict``) and its Graphviz DOT (``to_dot``).

``GraphReport`` is mixed into ``lamina.framegraph.FrameGraph`` (so ``graph.describe()``
and the rest stay methods of the graph), and writes only what the graph's own data and
each pass say: every pass presents itself (``GraphPass.describe_line``, ``to_dict``,
``to_dot``), so a new kind of pass needs nothing here. This module imports nothing of
Lamina's: the model imports it, not the other way round.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GraphReport"]


class GraphReport:
    """FrameGraph's presentation. Reads the graph's fields (size, passes, output,
    decisions, reused and released textures, policy, tiles) and its derived facts
    (``textures``, ``peak_texture_bytes``, ``totals``, ``layer_table``, the pass lists)."""

    def to_dict(self) -> dict[str, Any]:
        """The graph as plain JSON data: passes, textures, memory, decisions, routes, layers, tiles."""
        dpr = getattr(self, "device_scale_factor", 1.0)
        return {
            "size": [self.width, self.height],
            # Device px per CSS px (lamina.device_scale); said only when not 1.
            **({"device_scale_factor": dpr} if dpr != 1.0 else {}),
            "output": self.output.name,
            "passes": [p.to_dict() for p in self.passes],
            "textures": [
                {"name": t.name, "size": [t.width, t.height], "format": t.format, "role": t.role.value, "bytes": t.bytes,
                 "location": t.location.short}
                for t in self.textures()
            ],
            "peak_texture_bytes": self.peak_texture_bytes(),
            "reused": list(self.reused),
            "released": list(self.released),
            "policy": str(self.policy),
            "totals": self.totals(),
            "decisions": [{"layer": d.layer_id, "text": d.text} for d in self.decisions],
            "routes": [{"layer": r.layer_id, "route": r.route.value, "surface": r.surface.value if r.surface else None,
                        "detail": r.detail, "opacity_into": r.opacity_into,
                        "applies": list(r.applies)} for r in self.routes.values()],
            "layers": self.layer_table(),
            "tiles": [t.to_dict() for t in self.tiles],
            **({"contexts3d": [c.to_dict() for c in self.contexts3d]} if self.contexts3d else {}),
            **({"planned_whole": self.planned_whole} if self.planned_whole else {}),
            # Each drawn layer's raster scale and why (compositor.raster_scale), when not plainly 1.
            "raster_scales": {k: v.to_dict() for k, v in self.scaled_layers().items()},
            **({"schedule": self.schedule.to_dict()} if self.schedule is not None else {}),
            **({"offloads": [o.to_dict() for o in self.offloads]} if self.offloads else {}),
            **({"corrections": self.corrections.to_dict()} if self.corrections is not None else {}),
        }

    def to_dot(self) -> str:
        """The frame graph in Graphviz DOT: passes are boxes, textures ellipses; edges
        show what each pass reads and writes; retained textures are drawn doubled."""
        newline = "\\n"  # a line break inside a DOT label

        def q(text: str) -> str:
            return '"' + text.replace('"', "'") + '"'

        lines = ["digraph frame {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
        for t in self.textures():
            shape = "doublecircle" if t.retained else "ellipse"
            reused = " (reused)" if t.name in self.reused else ""
            label = f"{t.name}{reused}{newline}{t.width}x{t.height} {t.format}"
            lines.append(f"  {q('tex:' + t.name)} [shape={shape}, label={q(label)}];")
        for i, p in enumerate(self.passes, 1):
            lines.extend(p.to_dot(i))
        lines.append("}")
        return "\n".join(lines) + "\n"

    def scaled_layers(self) -> dict[str, Any]:
        """The raster-scale decisions worth telling (compositor.raster_scale): every layer
        rastered at another scale than 1, or held at one by an animation, a will-change
        hint, a settle or the threshold."""
        scales = getattr(self, "raster_scales", {})
        return {k: v for k, v in scales.items() if v.scale != 1.0 or v.reason != "ideal"}

    def _dpr_note(self) -> str:
        dpr = getattr(self, "device_scale_factor", 1.0)
        return "" if dpr == 1.0 else f" device px (device_scale_factor {dpr:g})"

    def describe(self, timings: dict[str, float] | None = None) -> str:
        """A plain-words account of the frame: surfaces, passes, textures, decisions."""
        lines = []
        textures = self.textures()
        total = sum(t.bytes for t in textures)
        rasters = self.raster_passes()
        composites = self.composite_passes()
        filters = self.filter_passes()
        lines.append(
            f"Frame {self.width}x{self.height}{self._dpr_note()}: {len(rasters)} raster passes, {len(filters)} filter passes, "
            f"{len(composites)} composite passes, {sum(len(c.draws) for c in composites)} draws, "
            f"{len(textures)} textures ({_mb(total)}; peak alive {_mb(self.peak_texture_bytes())})"
        )
        lines.append("Render surfaces and backings:")
        for c in composites:
            if c.continues:
                continue  # the same target, drawn on after a read-back
            extra = f" - {c.detail}" if c.detail else ""
            lines.append(
                f"  {c.target.name} {c.target.width}x{c.target.height} at {c.origin[0]},{c.origin[1]}: "
                f"{c.reason}{extra}"
            )
        lines.append("Passes, in execution order:")
        for i, p in enumerate(self.passes, 1):
            ms = f"  {timings[p.name]:.2f} ms" if timings and p.name in timings else ""
            lines.append(f"  {i:>2}. {p.kind:<9} {p.describe_line(ms)}")
            lines.extend(f"        - {detail}" for detail in p.describe_details())
        table = self.layer_table()
        if table and self.policy.uses_backings:
            lines.append(f"Layers (policy {self.policy}: promoted layers have backings; others paint into them):")
            lines.append(f"  {'layer':<16} {'composited':<10} {'this frame':<10} {'painted into':<28} reasons")
            for row in table:
                lines.append(
                    f"  {row['layer']:<16} {'yes' if row['composited'] else 'no':<10} {row['this_frame']:<10} "
                    f"{row['painted_into']:<28} {'; '.join(row['reasons']) or '-'}"
                )
        elif table:
            lines.append(f"Layers (policy {self.policy}: each drawing layer has a texture of its own):")
            lines.append(f"  {'layer':<16} {'texture size':>12} {'KB':>8}  {'this frame':<10} drawn into")
            for row in table:
                w, h = row["size"]
                lines.append(
                    f"  {row['layer']:<16} {f'{w}x{h}':>12} {row['bytes'] / 1024:>8.1f}  {row['this_frame']:<10} {row['drawn_into']}"
                )
        if self.tiles:
            lines.append("Tiles (only those touching the interest rect exist):")
            for t in self.tiles:
                lines.append(
                    f"  {t.owner} ({t.kind}, {t.content[0]}x{t.content[1]} px): {t.kept} of {t.grid[0] * t.grid[1]} "
                    f"{t.tile_size} px tiles kept, {t.rastered} rastered this frame, {t.reused} reused, {_mb(t.bytes)}"
                )
        scaled = self.scaled_layers()
        if scaled:
            # Rastered at another scale than 1 device px per layer px, or held at one (cc's raster scale).
            lines.append("Raster scales (texture px per CSS px, and why):")
            for layer_id, decision in scaled.items():
                lines.append(f"  {layer_id}: {decision}")
        if self.reused:
            lines.append(f"Reused from earlier frames (content unchanged, not rastered): {', '.join(self.reused)}")
        if self.contexts3d:
            # transform-style: preserve-3d: each context's layers sorted back to front, split where they meet.
            lines.append("3D rendering contexts (depth order, BSP splits):")
            for c in self.contexts3d:
                lines.append(f"  {c.describe()}")
            if self.planned_whole:
                lines.append(f"  planned whole, not on the retained fast path: {self.planned_whole}")
        effects = [r for r in self.routes.values() if r.through_effect]
        if effects:
            # Each stacking context drawn through an effect: the route decided before its passes.
            lines.append("Stacking contexts drawn through an effect (their routes):")
            for r in effects:
                lines.append(f"  {r}")
        if self.schedule is not None:
            lines.extend(self.schedule.describe_lines())
        if self.offloads:
            # The OpenCL work the executor may still move to GL (graph.offload: the dmda rule).
            lines.append("OpenCL work the executor may run on GL instead, if the device is behind its plan (dmda):")
            for o in self.offloads:
                lines.append(f"  {o.name}: {len(o.gl_passes)} filter passes, OpenCL {o.cl_ms:.2f} ms + copies "
                             f"{o.copy_in_ms + o.copy_out_ms:.2f} ms (planned {o.planned_ms:.2f} ms) or GL {o.gl_ms:.2f} ms")
        if self.corrections is not None:
            lines.extend(self.corrections.describe_lines())
        if self.decisions:
            lines.append("Decisions:")
            for d in self.decisions:
                lines.append(f"  {d.layer_id}: {d.text}")
        return "\n".join(lines)


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.2f} MB"
