"""LangGOAP's ``langgoap.planner`` package: planning strategies and their result types.

``ScalarHeuristic`` is served lazily from :mod:`goap.compat.planner.mcts`.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ScalarHeuristic"]


def __getattr__(name: str) -> Any:
    if name == "ScalarHeuristic":
        return importlib.import_module("goap.compat.planner.mcts").ScalarHeuristic
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
