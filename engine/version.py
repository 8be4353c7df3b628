"""Lamina's version (recorded in goldens and in the cache keys of measured cost models)."""

__version__ = "0.1.0"
