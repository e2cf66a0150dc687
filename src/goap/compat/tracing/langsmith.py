"""LangGOAP's LangSmith tracer: goap.runtime's, also reading LangGOAP's plans and execution results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from goap.compat.tracing._safe_proxy import _log
from goap.runtime import LangSmithTracer as _RuntimeLangSmithTracer

__all__ = ["LangSmithTracer"]


class LangSmithTracer(_RuntimeLangSmithTracer):
    """goap.runtime's LangSmith tracer; logs on ``goap.compat.tracing``."""

    log = _log
    plan_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "action_names": ("action_names", "names"),
        "total_cost": ("total_cost", "cost"),
    }
    outcome_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "action_name": ("action_name", "action"),
        "success": ("success",),
        "error": ("error",),
        "state_after": ("state_after", "effects"),
    }

    def on_action_complete(self, result: Any) -> None:
        """Close the action's run; a graph state dict stands for its last execution result."""
        if isinstance(result, dict):
            result = (result.get("execution_history") or [None])[-1]
        super().on_action_complete(result)
