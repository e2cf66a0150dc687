"""The runtime layer: the engine graph that plans, acts, senses and replans, its state and lineage,
policies (guards, sensors, stuck handlers, termination, approval), tracing, the goal interpreter,
execution history, OpenTelemetry, serialization, the agent tool and plan pictures.

It sits on :mod:`goap.strategies` and :mod:`goap.planning` and on the engine (:mod:`graphengine`).
"""

from typing import TYPE_CHECKING

from goap.planning.exports import lazy_exports

if TYPE_CHECKING:
    from goap.runtime._approval import Approval
    from goap.runtime._config import GoapConfig
    from goap.runtime._executor import count_failure
    from goap.runtime._graph import GoapGraph, GoapReplayReport
    from goap.runtime._guards import FunctionalGuard, Guard, GuardResult, check_guard, guard_verdict
    from goap.runtime._history import (
        ActionRecord,
        ExecutionHistory,
        MemoryExecutionHistory,
        StoreExecutionHistory,
    )
    from goap.runtime._interpreter import AmbiguousGoalError, GoalInterpretationError, GoalInterpreter, run_nl
    from goap.runtime._langsmith import LangSmithTracer, SearchEventBuffer
    from goap.runtime._lineage import PlanDivergence, PlanVersion, plan_history
    from goap.runtime._parallel import independent_batch
    from goap.runtime._reflexion import Reflection, ReflexionTracer
    from goap.runtime._sensors import (
        FunctionalSensor,
        Sensor,
        SensorReadings,
        read_sensors,
        resolve_missing,
        resolver_sensor,
    )
    from goap.runtime._serialize import goal_from_dict, goal_to_dict
    from goap.runtime._state import ActionOutcome, GoapState, GoapStatus, PolicyEvent, ReplanReason
    from goap.runtime._stuck import FunctionalStuckHandler, StuckHandler, StuckResolution
    from goap.runtime._termination import (
        AllOf,
        FirstOf,
        MaxActions,
        MaxCost,
        MaxLLMCalls,
        MaxTokens,
        MaxWallClock,
        OnStuck,
        RunView,
        Termination,
        TerminationPolicy,
    )
    from goap.runtime._tool import GoapTool, goap_tool
    from goap.runtime._tracing import (
        SEARCH_HOOKS,
        TRACER_HOOKS,
        LoggingTracer,
        MultiTracer,
        NullTracer,
        PlanningTracer,
        SearchTracer,
    )
    from goap.runtime._visualize import (
        plan_to_dot,
        plan_to_gantt,
        plan_to_mermaid,
        plan_to_text,
        plan_to_text_gantt,
    )

_EXPORTS: dict[str, str] = {
    "ActionOutcome": "goap.runtime._state",
    "ActionRecord": "goap.runtime._history",
    "AllOf": "goap.runtime._termination",
    "AmbiguousGoalError": "goap.runtime._interpreter",
    "Approval": "goap.runtime._approval",
    "ExecutionHistory": "goap.runtime._history",
    "FirstOf": "goap.runtime._termination",
    "FunctionalGuard": "goap.runtime._guards",
    "FunctionalSensor": "goap.runtime._sensors",
    "FunctionalStuckHandler": "goap.runtime._stuck",
    "GoalInterpretationError": "goap.runtime._interpreter",
    "GoalInterpreter": "goap.runtime._interpreter",
    "GoapConfig": "goap.runtime._config",
    "GoapGraph": "goap.runtime._graph",
    "GoapReplayReport": "goap.runtime._graph",
    "GoapState": "goap.runtime._state",
    "GoapStatus": "goap.runtime._state",
    "GoapTool": "goap.runtime._tool",
    "Guard": "goap.runtime._guards",
    "GuardResult": "goap.runtime._guards",
    "LangSmithTracer": "goap.runtime._langsmith",
    "LoggingTracer": "goap.runtime._tracing",
    "MaxActions": "goap.runtime._termination",
    "MaxCost": "goap.runtime._termination",
    "MaxLLMCalls": "goap.runtime._termination",
    "MaxTokens": "goap.runtime._termination",
    "MaxWallClock": "goap.runtime._termination",
    "MemoryExecutionHistory": "goap.runtime._history",
    "MultiTracer": "goap.runtime._tracing",
    "NullTracer": "goap.runtime._tracing",
    "OnStuck": "goap.runtime._termination",
    "PlanDivergence": "goap.runtime._lineage",
    "PlanVersion": "goap.runtime._lineage",
    "PlanningTracer": "goap.runtime._tracing",
    "PolicyEvent": "goap.runtime._state",
    "Reflection": "goap.runtime._reflexion",
    "ReflexionTracer": "goap.runtime._reflexion",
    "ReplanReason": "goap.runtime._state",
    "RunView": "goap.runtime._termination",
    "Sensor": "goap.runtime._sensors",
    "SEARCH_HOOKS": "goap.runtime._tracing",
    "SearchEventBuffer": "goap.runtime._langsmith",
    "SearchTracer": "goap.runtime._tracing",
    "SensorReadings": "goap.runtime._sensors",
    "StoreExecutionHistory": "goap.runtime._history",
    "StuckHandler": "goap.runtime._stuck",
    "StuckResolution": "goap.runtime._stuck",
    "TRACER_HOOKS": "goap.runtime._tracing",
    "Termination": "goap.runtime._termination",
    "TerminationPolicy": "goap.runtime._termination",
    "check_guard": "goap.runtime._guards",
    "count_failure": "goap.runtime._executor",
    "goal_from_dict": "goap.runtime._serialize",
    "goal_to_dict": "goap.runtime._serialize",
    "goap_tool": "goap.runtime._tool",
    "guard_verdict": "goap.runtime._guards",
    "independent_batch": "goap.runtime._parallel",
    "plan_history": "goap.runtime._lineage",
    "plan_to_dot": "goap.runtime._visualize",
    "plan_to_gantt": "goap.runtime._visualize",
    "plan_to_mermaid": "goap.runtime._visualize",
    "plan_to_text": "goap.runtime._visualize",
    "plan_to_text_gantt": "goap.runtime._visualize",
    "read_sensors": "goap.runtime._sensors",
    "resolve_missing": "goap.runtime._sensors",
    "resolver_sensor": "goap.runtime._sensors",
    "run_nl": "goap.runtime._interpreter",
}
"""Public name -> the module defining it (imported on first use)."""

__all__ = [
    "ActionOutcome",
    "ActionRecord",
    "AllOf",
    "AmbiguousGoalError",
    "Approval",
    "ExecutionHistory",
    "FirstOf",
    "FunctionalGuard",
    "FunctionalSensor",
    "FunctionalStuckHandler",
    "GoalInterpretationError",
    "GoalInterpreter",
    "GoapConfig",
    "GoapGraph",
    "GoapReplayReport",
    "GoapState",
    "GoapStatus",
    "GoapTool",
    "Guard",
    "GuardResult",
    "LangSmithTracer",
    "LoggingTracer",
    "MaxActions",
    "MaxCost",
    "MaxLLMCalls",
    "MaxTokens",
    "MaxWallClock",
    "MemoryExecutionHistory",
    "MultiTracer",
    "NullTracer",
    "OnStuck",
    "PlanDivergence",
    "PlanVersion",
    "PlanningTracer",
    "PolicyEvent",
    "Reflection",
    "ReflexionTracer",
    "ReplanReason",
    "RunView",
    "Sensor",
    "SEARCH_HOOKS",
    "SearchEventBuffer",
    "SearchTracer",
    "SensorReadings",
    "StoreExecutionHistory",
    "StuckHandler",
    "StuckResolution",
    "TRACER_HOOKS",
    "Termination",
    "TerminationPolicy",
    "check_guard",
    "count_failure",
    "goal_from_dict",
    "goal_to_dict",
    "goap_tool",
    "guard_verdict",
    "independent_batch",
    "plan_history",
    "plan_to_dot",
    "plan_to_gantt",
    "plan_to_mermaid",
    "plan_to_text",
    "plan_to_text_gantt",
    "read_sensors",
    "resolve_missing",
    "resolver_sensor",
    "run_nl",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
