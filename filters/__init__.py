"""Lamina filters: CSS filter chains -> typed ops -> pass plans -> GLSL / OpenCL / numpy.

The filter pipeline is being built (see the project's issues); the ``filter`` property
is rejected with ``UnsupportedFeatureError`` until then, so nothing is silently ignored.
"""

__all__: list[str] = []
