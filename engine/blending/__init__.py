"""Compositing and Blending Level 1: the blend modes as a type (``modes``) and their float64
reference (``reference``), written from the spec. Part of the CSS core: numpy only."""

from .modes import BlendMode, Isolation

__all__ = ["BlendMode", "Isolation"]
