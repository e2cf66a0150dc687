"""Where the planning problem sets live: ``tests/data/problems`` in this repository.

``GOAP_PROBLEMS`` points the tests at another folder of the same shape (top-level ``*.json`` and
``ipc/*.json``).
"""

from __future__ import annotations

import os
from pathlib import Path

PROBLEMS_DIR = Path(__file__).resolve().parent / "data" / "problems"
"""The repository's own copy of the problem sets (generated families, IPC tasks, the plan checker)."""

PROBLEMS = os.environ.get("GOAP_PROBLEMS", str(PROBLEMS_DIR))
"""The folder the tests read problems from (``GOAP_PROBLEMS`` overrides it)."""
