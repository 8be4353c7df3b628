"""OpenGL execution (moderngl): context, shader variants, texture pool; the frame-graph
executor is ``lamina.gpu.executor`` (not imported here: it runs the filter executors,
which use this package's pool and programs, so importing it here would be a circle)."""

from .context import GLError, GPUContext, RendererInfo

__all__ = ["GPUContext", "RendererInfo", "GLError"]
