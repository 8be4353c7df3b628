"""``python -m demos`` in a checkout (installed: ``lamina demo``): list the demos, or run
one in a window or headless; the options are the launcher's (demos/launcher.py)."""

from __future__ import annotations

import sys

from .launcher import main

if __name__ == "__main__":
    sys.exit(main())
