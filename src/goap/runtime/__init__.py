"""The runtime layer: the engine graph that plans, acts, senses and replans, its state and lineage,
policies (guards, sensors, stuck handlers, termination, approval), tracing, the goal interpreter,
execution history, OpenTelemetry, serialization, the agent tool and plan pictures.

It sits on :mod:`goap.strategies` and :mod:`goap.planning` and on the engine (:mod:`graphengine`).
"""

from goap.runtime._approval import Approval
from goap.runtime._config import GoapConfig
from goap.runtime._graph import GoapGraph, GoapReplayReport
from goap.runtime._guards import FunctionalGuard, Guard, GuardResult
from goap.runtime._history import (
    ActionRecord,
    ExecutionHistory,
    MemoryExecutionHistory,
    StoreExecutionHistory,
)
from goap.runtime._interpreter import AmbiguousGoalError, GoalInterpretationError, GoalInterpreter, run_nl
from goap.runtime._lineage import PlanDivergence, PlanVersion
from goap.runtime._reflexion import Reflection, ReflexionTracer
from goap.runtime._sensors import FunctionalSensor, Sensor
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
    Termination,
    TerminationPolicy,
)
from goap.runtime._tool import GoapTool, goap_tool
from goap.runtime._tracing import LoggingTracer, MultiTracer, NullTracer, PlanningTracer
from goap.runtime._visualize import plan_to_dot, plan_to_gantt, plan_to_mermaid

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
    "Sensor",
    "StoreExecutionHistory",
    "StuckHandler",
    "StuckResolution",
    "Termination",
    "TerminationPolicy",
    "goal_from_dict",
    "goal_to_dict",
    "goap_tool",
    "plan_to_dot",
    "plan_to_gantt",
    "plan_to_mermaid",
    "run_nl",
]
