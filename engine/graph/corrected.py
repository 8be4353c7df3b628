"""Frame-wide placement under a model corrected from measurement (issue 22, item 4): the
frame placed by the corrected prices (graph.placed.scheduled), carrying a report of what
the correction changed against the plan the uncorrected prices make (which passes moved,
from where to where, and why: lamina.cost_feedback.correction_report).

Pure, as graph.placed is: the correction came with the executor's snapshot. The second,
uncorrected schedule is made only while a correction is active, and only as far as the
report needs it: where it puts each filter pass (graph.placed.planned_on; the frame is
not rewritten a second time), kept in the memo's own ``uncorrected`` memo while the task
graph and the base prices stand. Both are keyed by one ``frame_key`` of the graph. What
the report was made from is kept as well (``ScheduleMemo.reported``: lamina.cost_feedback.
Reported): a frame whose two plans are last frame's compares them as it did and, saying
the same of the model, has its report; each move written is kept for later frames while
what its words say stands.
"""

from __future__ import annotations

from dataclasses import replace

from ..cost_feedback import correction_report, reported_against
from ..filter_costs import FilterCostModel
from ..frame_costs import CorrectedModel
from ..framegraph import FrameGraph
from .frame_schedule import frame_key
from .placed import planned_on, scheduled
from .schedule_memo import ScheduleMemo

__all__ = ["scheduled_with_feedback"]


def scheduled_with_feedback(graph: FrameGraph, model: FilterCostModel, devices: tuple = (),
                            memo: ScheduleMemo | None = None) -> FrameGraph:
    """``graph`` placed frame-wide by ``model`` over GL and ``devices`` (graph.placed.
    scheduled, reusing ``memo``'s last frame where the task graph and prices are its
    own); where ``model`` is a CorrectedModel with anything to report, with its
    CorrectionReport attached. The uncorrected plan it is compared with (made while a
    correction is active: where each filter pass goes) is reused from the memo's own
    ``uncorrected`` memo, so the two do not evict each other."""
    if not isinstance(model, CorrectedModel):
        return scheduled(graph, model, devices, memo)
    if not (model.active or model.moved or model.events):
        return scheduled(graph, model.base, devices, memo)
    key = frame_key(graph)  # (once: both plans are of this graph)
    placed = scheduled(graph, model, devices, memo, key)
    if model.active:
        plan = planned_on(graph, model.base, devices, None if memo is None else memo.uncorrected(), key)
        reported = reported_against(plan, placed, model, None if memo is None else memo.reported)
        if memo is not None:
            memo.reported = reported
        report = reported.report
    else:
        report = correction_report(placed, placed, model)
    return placed if report is None else replace(placed, corrections=report)
