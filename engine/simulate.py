"""Scheduling a scene's frame against modelled devices: the simulator behind
``lamina schedule scene.json --devices profile.json``.

The frame is planned as on any machine (``scene.plan``, every filter pass on GL: planning
asks no device anything), then placed frame-wide by HEFT on the profile's devices
(``lamina.graph.frame_schedule``) and compared with the greedy order, all-GL and
all-OpenCL. Nothing runs: the times are the profile's predictions. A profile recorded on
this machine (``lamina info --profile``) predicts this machine's frames; a hand-written
one (``profiles/``) shows what placement would do on hardware this machine lacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .device_profile import DeviceProfile, load_profile
from .framegraph import FrameGraph
from .graph.frame_schedule import Schedule, schedule_frame

__all__ = ["Simulation", "simulate"]


@dataclass(frozen=True)
class Simulation:
    """A scene's frame graph (as planned, filter passes on GL), the profile, and the
    schedule HEFT makes for it on the profile's devices."""

    graph: FrameGraph
    profile: DeviceProfile
    schedule: Schedule

    def text(self, width: int = 72) -> str:
        """The Gantt chart (one row per device) and the makespans."""
        s = self.schedule
        lines = [f"Profile {self.profile.name!r}" + (f" ({self.profile.note})" if self.profile.note else ""),
                 f"Frame {self.graph.width}x{self.graph.height}: {len(s.slots)} passes "
                 f"({sum(not x.pinned for x in s.slots)} filter passes placeable), {len(s.copies)} copies",
                 "", s.gantt(width), "", "Makespans (predicted):",
                 f"  {'HEFT':<24} {s.makespan_ms:9.2f} ms"]
        lines += [f"  {name:<24} {ms:9.2f} ms  ({ms / s.makespan_ms:.2f}x HEFT)" if s.makespan_ms > 0
                  else f"  {name:<24} {ms:9.2f} ms" for name, ms in s.baselines]
        moved = {}
        for x in s.slots:
            if not x.pinned:
                moved[x.device] = moved.get(x.device, 0) + 1
        lines.append("Filter passes per device (HEFT): " + ", ".join(f"{d} {n}" for d, n in moved.items()))
        return "\n".join(lines)


def simulate(scene, profile: "DeviceProfile | str | Path", *, t: float = 0.0, policy=None) -> Simulation:
    """Plan ``scene`` at time ``t`` and schedule it on ``profile``'s devices (a parsed
    DeviceProfile, or the path of a profile file)."""
    if not isinstance(profile, DeviceProfile):
        profile = load_profile(profile)
    graph = scene.plan(t=t, policy=policy, filter_backend="gl")
    return Simulation(graph, profile, schedule_frame(graph, profile.costs()))
