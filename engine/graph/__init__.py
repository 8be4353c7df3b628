"""The render-task graph's builder: compositor decisions -> FrameGraph (lamina.framegraph),
as plain data, before anything runs.

* ``planner`` — surfaces, backings, draws and passes for one frame;
* ``cache``   — what the renderer keeps between frames (rasters, backings, filter
  results, the frame) and the keys that say when a kept texture is still right.
"""

from .cache import RasterCache
from .planner import build_frame_graph

__all__ = ["RasterCache", "build_frame_graph"]
