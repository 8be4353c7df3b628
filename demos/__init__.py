"""Lamina's interactive demos: each module is one lesson (see its docstring), run in a
glfw window with Dear ImGui panels or headless (``python -m demos NAME --headless``)."""
