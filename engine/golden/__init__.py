"""Golden-image testing: WPT-style fuzzy comparison (``fuzzy``), goldens that carry their
renderer's fingerprint (``store``), failure artefacts and the HTML report (``artefacts``,
``report``), the pytest plugin (``plugin``) and ``lamina check`` (``check``)."""

from ..fuzzy import Comparison, FuzzyRange, Tolerance, compare
from .store import Fingerprint, GoldenDir, Outcome, Status, UpdateMode

__all__ = ["Comparison", "Fingerprint", "FuzzyRange", "GoldenDir", "Outcome", "Status", "Tolerance", "UpdateMode", "compare"]
