"""LangGOAP's planner package: A*, strategies, MCTS, CSP, router, repair and utility planners."""

from __future__ import annotations

from typing import Any

__all__ = ["ScalarHeuristic"]


def __getattr__(name: str) -> Any:
    if name == "ScalarHeuristic":
        from goap.compat.planner.mcts import ScalarHeuristic

        return ScalarHeuristic
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
