"""What every demo shares: the window (or headless) runner, Dear ImGui drawn with
moderngl into the same GL context Lamina renders in, and the panels that read a frame's
own data (graph, report, stats)."""
