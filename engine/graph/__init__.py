"""The render-task graph's builder: compositor decisions -> FrameGraph (lamina.framegraph),
as plain data, before anything runs.

* ``planner`` — surfaces, backings, draws and passes for one frame;
* ``state``   — FrameState: everything a renderer keeps between frames;
* ``cache``   — what the renderer keeps between frames (rasters, backings, filter
  results, the frame) and the keys that say when a kept texture is still right.
"""

from .cache import RasterCache
from .planner import ExecutorFacts, build_frame_graph
from .state import FrameState

__all__ = ["ExecutorFacts", "FrameState", "RasterCache", "build_frame_graph"]
