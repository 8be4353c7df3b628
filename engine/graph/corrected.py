"""Frame-wide placement under a model corrected from measurement (issue 22, item 4): the
frame placed by the corrected prices (graph.placed.scheduled), carrying a report of what
the correction changed against the plan the uncorrected prices make (which passes moved,
from where to where, and why: lamina.cost_feedback.correction_report).

Pure, as graph.placed is: the correction came with the executor's snapshot. The second,
uncorrected schedule is made only while a correction is active, a pass moved last frame,
or the last measured frame changed something worth reporting.
"""

from __future__ import annotations

from dataclasses import replace

from ..cost_feedback import correction_report
from ..filter_costs import FilterCostModel
from ..frame_costs import CorrectedModel
from ..framegraph import FrameGraph
from .placed import scheduled
from .schedule_memo import ScheduleMemo

__all__ = ["scheduled_with_feedback"]


def scheduled_with_feedback(graph: FrameGraph, model: FilterCostModel, devices: tuple = (),
                            memo: ScheduleMemo | None = None) -> FrameGraph:
    """``graph`` placed frame-wide by ``model`` over GL and ``devices`` (graph.placed.
    scheduled, reusing ``memo``'s last frame where the task graph and prices are its
    own); where ``model`` is a CorrectedModel with anything to report, with its
    CorrectionReport attached. The uncorrected plan it is compared with (made while a
    correction is active) is reused from the memo's own ``uncorrected`` memo, so the
    two do not evict each other."""
    if not isinstance(model, CorrectedModel):
        return scheduled(graph, model, devices, memo)
    if not (model.active or model.moved or model.events):
        return scheduled(graph, model.base, devices, memo)
    placed = scheduled(graph, model, devices, memo)
    static = scheduled(graph, model.base, devices, None if memo is None else memo.uncorrected()) if model.active else placed
    report = correction_report(static, placed, model)
    return placed if report is None else replace(placed, corrections=report)
