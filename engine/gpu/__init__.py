"""OpenGL execution (moderngl): context, shader variants, texture pool, executor."""

from .context import GLError, GPUContext, RendererInfo
from .executor import ExecutionStats, GLExecutor

__all__ = ["GPUContext", "RendererInfo", "GLError", "GLExecutor", "ExecutionStats"]
