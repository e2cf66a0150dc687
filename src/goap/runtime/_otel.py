"""OpenTelemetry for GOAP: a span per planning round and per action, and planning metrics.

Spans use only `opentelemetry-api`: without an SDK they cost nothing. The engine makes a node's
span current while the node runs, so `goap.plan` nests under the planner node's span and each
action's `execute_tool` span under the executor's. Action spans follow the OpenTelemetry GenAI
conventions for tool execution (`gen_ai.operation.name = "execute_tool"`, `gen_ai.tool.name`).
"""

from __future__ import annotations

from typing import Any

from opentelemetry import metrics, trace

__all__ = ["GoapTelemetry"]


class GoapTelemetry:
    """Tracer and instruments the GOAP nodes report through."""

    def __init__(self, tracer: trace.Tracer | None = None, meter: metrics.Meter | None = None) -> None:
        self.tracer: trace.Tracer = tracer or trace.get_tracer("goap")
        """Spans are made with it (the engine's `OTelEmitter.tracer` when the graph has one)."""
        m = meter or metrics.get_meter("goap")
        self.planning_time = m.create_histogram(
            "goap.planning.duration", unit="s", description="Time spent in one planning round"
        )
        """Histogram of planning time, by strategy and status."""
        self.plans = m.create_counter("goap.plans", unit="{plan}", description="Planning rounds, by status")
        """Counter of planning rounds."""
        self.nodes_expanded = m.create_counter(
            "goap.search.expanded", unit="{node}", description="Search nodes expanded while planning"
        )
        """Counter of expanded search nodes."""

    @staticmethod
    def plan_attributes(result: Any, *, replan_reason: str | None, ms: float) -> dict[str, Any]:
        """Span attributes describing a planning round."""
        attrs: dict[str, Any] = {
            "goap.plan.status": result.status,
            "goap.plan.strategy": result.strategy or "",
            "goap.plan.optimal": bool(result.optimal),
            "goap.search.expanded": result.stats.expanded,
            "goap.search.generated": result.stats.generated,
            "goap.plan.duration_ms": ms,
        }
        if replan_reason:
            attrs["goap.replan.reason"] = replan_reason
        if result.plan is not None:
            attrs["goap.plan.length"] = len(result.plan)
            attrs["goap.plan.cost"] = float(result.plan.cost)
            attrs["goap.plan.actions"] = list(result.plan.names)
        routing = getattr(result, "routing", None)
        if routing is not None:  # StrategyRouter: what it chose and why
            attrs["goap.router.chosen"] = str(routing.chosen)
            attrs["goap.router.reason"] = str(routing.reason)
        solver = getattr(result, "solver", None)
        if solver is not None:  # CP-SAT refinement
            attrs["goap.cpsat.status"] = str(solver.status)
            attrs["goap.cpsat.seconds"] = float(solver.seconds)
            attrs["goap.cpsat.seed"] = int(solver.seed)
            attrs["goap.cpsat.candidates"] = int(solver.candidates)
            attrs["goap.cpsat.time_limit_hit"] = bool(solver.time_limit_hit)
            if solver.levels:
                attrs["goap.cpsat.objective"] = [float(v) for v in solver.levels]
        if result.explanation is not None:
            attrs["goap.plan.explanation"] = str(result.explanation.to_dict())
        return attrs
