"""Stdlib-``logging``-backed :class:`~goap.compat.tracing.PlanningTracer` (LangGOAP's ``LoggingTracer``)."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from goap.compat._logs import get_logger
from goap.compat.tracing._protocol import SYNC_HOOKS, PlanningTracer
from goap.compat.tracing._sync import SyncTracer

__all__ = ["LoggingTracer"]

logger = get_logger("goap.compat.tracing")

_LINES: dict[str, str] = {
    "on_plan_start": "plan_start strategy=%(strategy_name)s goal=%(goal)r",
    "on_plan_complete": "plan_complete duration_ms=%(duration_ms).2f plan=%(plan)r",
    "on_plan_failed": "plan_failed reason=%(reason)s duration_ms=%(duration_ms).2f",
    "on_action_start": "action_start name=%(action_label)s",
    "on_action_complete": "action_complete result=%(result)r",
    "on_action_retry": (
        "action_retry name=%(action_label)s attempt=%(attempt)d backoff_ms=%(backoff_ms).2f "
        "exc=%(exception_type)s: %(exception)s"
    ),
    "on_strategy_chosen": "strategy_chosen name=%(strategy_name)s",
    "on_replan": "replan reason=%(reason)s new_plan=%(new_plan)r",
    "on_goal_achieved": "goal_achieved final_state=%(final_state)r",
    "on_sensor_complete": "sensor_complete name=%(sensor_name)s updates=%(updates)r",
    "on_search_expand": (
        "search_expand node=%(node_id)d parent=%(parent_id)s g=%(g).3f h=%(h).3f f=%(f).3f "
        "action=%(action_name)s"
    ),
    "on_search_dead_end": "search_dead_end reason=%(reason)s detail=%(detail)r",
    "on_search_complete": (
        "search_complete nodes_explored=%(nodes_explored)d duration_ms=%(duration_ms).2f found=%(found)s"
    ),
}
"""The line each hook logs, formatted with the hook's arguments by name (LangGOAP's wording)."""


class LoggingTracer(SyncTracer):
    """Tracer that routes every event through stdlib ``logging``.

    Useful for quick local debugging.  Each hook logs one line at ``INFO`` level to the
    ``langgoap.tracing`` logger (LangGOAP's name, which its users filter on); the async hooks log
    the same lines (see :class:`SyncTracer`).
    """


def _log(name: str) -> Callable[..., None]:
    signature = inspect.signature(getattr(PlanningTracer, name))
    line = _LINES[name]

    def hook(self: LoggingTracer, *args: Any, **kwargs: Any) -> None:
        if not logger.isEnabledFor(logging.INFO):  # binding the arguments is skipped when nobody listens
            return
        fields = signature.bind(self, *args, **kwargs).arguments
        if "action" in fields:
            fields["action_label"] = getattr(fields["action"], "name", repr(fields["action"]))
        if "exception" in fields:
            fields["exception_type"] = type(fields["exception"]).__name__
        logger.info(line, fields)

    hook.__name__ = hook.__qualname__ = name
    hook.__doc__ = f"Logs ``{line.split()[0]}`` at INFO."
    return hook


# One logging hook per protocol hook, made from the table above rather than written out 13 times.
for _name in SYNC_HOOKS:
    setattr(LoggingTracer, _name, _log(_name))
