"""LangGOAP's public API over goap's own layers: ``from langgoap import X`` becomes ``from goap.compat import X``.

Every name is an adapter: planning goes to :mod:`goap.planning` and :mod:`goap.strategies`, the
GOAP loop to :mod:`goap.runtime` on the engine. LangGOAP's module paths are mirrored
(``goap.compat.planner.mcts``, ``goap.compat.graph.nodes``, ...). Names resolve on first use, so
``import goap.compat`` costs nothing until a name is read; ``docs/langgoap.md`` lists where the
behaviour differs from LangGOAP's on purpose.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

__version__ = "0.1.2"
"""The LangGOAP release whose API this package follows."""

_HOMES: dict[str, str] = {
    "AStarStrategy": "goap.compat.planner.strategy",
    "ActionGuard": "goap.compat.guards",
    "ActionQos": "goap.compat.qos",
    "ActionResult": "goap.compat.graph.state",
    "ActionSpec": "goap.compat.actions",
    "AllOfPolicy": "goap.compat.termination",
    "AnytimePlanningStrategy": "goap.compat.planner.strategy",
    "AsyncActionGuard": "goap.compat.guards",
    "AsyncConditionResolver": "goap.compat.conditions",
    "AsyncSensor": "goap.compat.sensors",
    "BendableScore": "goap.compat.score",
    "BuilderOutput": "goap.compat.constraints",
    "CSPMetadata": "goap.compat.planner.csp",
    "CSPRefinementStrategy": "goap.compat.planner.strategy",
    "CSPStatus": "goap.compat.planner.csp",
    "ChainOutput": "goap.compat.constraints",
    "ConditionResolver": "goap.compat.conditions",
    "ConditionStatus": "goap.compat.conditions",
    "ConstraintBuilder": "goap.compat.constraints",
    "ConstraintChain": "goap.compat.constraints",
    "ConstraintSpec": "goap.compat.goals",
    "CostAccumulator": "goap.compat.callbacks",
    "CostFunction": "goap.compat.types",
    "DEFAULT_COST_PER_1K_TOKENS": "goap.compat.callbacks",
    "DEFAULT_RETRY_POLICY": "goap.compat.qos",
    "DeterministicTransitionModel": "goap.compat.planner.transitions",
    "DivergencePolicy": "goap.compat.planner.transitions",
    "EarlyTermination": "goap.compat.termination",
    "EffectFunction": "goap.compat.actions",
    "ExecutionRecord": "goap.compat.history",
    "FIRE_ONCE": "goap.compat.qos",
    "FirstOfPolicy": "goap.compat.termination",
    "FunctionalConditionResolver": "goap.compat.conditions",
    "FunctionalGuard": "goap.compat.guards",
    "FunctionalSensor": "goap.compat.sensors",
    "FunctionalStuckHandler": "goap.compat.stuck",
    "Goal": "goap.compat.goals",
    "GoalInterpreter": "goap.compat.interpreter",
    "GoalPolicy": "goap.compat.goals",
    "GoalSpec": "goap.compat.goals",
    "GoapAction": "goap.compat.actions",
    "GoapExecutor": "goap.compat.graph.nodes",
    "GoapGraph": "goap.compat.graph.builder",
    "GoapObserver": "goap.compat.graph.nodes",
    "GoapPlanner": "goap.compat.graph.nodes",
    "GoapState": "goap.compat.graph.state",
    "GoapSubgraph": "goap.compat.integrations",
    "GuardResult": "goap.compat.guards",
    "GuardSeverity": "goap.compat.guards",
    "HardSoftScore": "goap.compat.score",
    "InfeasibilityExplanation": "goap.compat.planner.explain",
    "InterpretedConstraint": "goap.compat.interpreter",
    "InterpretedGoal": "goap.compat.interpreter",
    "InterpretedObjective": "goap.compat.interpreter",
    "LANGGOAP_ALLOWED_MSGPACK_TYPES": "goap.compat.serde",
    "LangGOAPSerializer": "goap.compat.serde",
    "LangSmithTracer": "goap.compat.tracing",
    "LazyDecompositionStrategy": "goap.compat.planner.strategy",
    "LoggingTracer": "goap.compat.tracing",
    "MCTSExploration": "goap.compat.planner.mcts",
    "MCTSReuseConfig": "goap.compat.planner.mcts",
    "MCTSStrategy": "goap.compat.planner.mcts",
    "MCTSTracingConfig": "goap.compat.planner.mcts",
    "MaxActionsPolicy": "goap.compat.termination",
    "MaxCostPolicy": "goap.compat.termination",
    "MaxLLMCallsPolicy": "goap.compat.termination",
    "MaxTokensPolicy": "goap.compat.termination",
    "MaxWallClockPolicy": "goap.compat.termination",
    "Maximize": "goap.compat.types",
    "Minimize": "goap.compat.types",
    "MultiGoal": "goap.compat.goals",
    "MultiTracer": "goap.compat.tracing",
    "MulticastStuckHandler": "goap.compat.stuck",
    "NIRVANA_NAME": "goap.compat.planner.utility",
    "NirvanaGoal": "goap.compat.planner.utility",
    "NoPlanExplanation": "goap.compat.planner.explain",
    "NullTracer": "goap.compat.tracing",
    "ObjectiveDirection": "goap.compat.types",
    "OnStuckPolicy": "goap.compat.termination",
    "ParallelGoapExecutor": "goap.compat.graph.nodes",
    "Plan": "goap.compat.planner.types",
    "PlanMetadata": "goap.compat.planner.types",
    "PlanningState": "goap.compat.state",
    "PlanningStrategy": "goap.compat.planner.strategy",
    "PlanningTracer": "goap.compat.tracing",
    "ProblemFeatures": "goap.compat.planner.router",
    "PromptConditionResolver": "goap.compat.conditions",
    "Reflection": "goap.compat.reflexion",
    "ReflexionTracer": "goap.compat.reflexion",
    "RepairStrategy": "goap.compat.planner.repair",
    "ReplanStrategy": "goap.compat.types",
    "ResourceShortfall": "goap.compat.planner.explain",
    "ResourceUsage": "goap.compat.planner.csp",
    "RuleBasedClassifier": "goap.compat.planner.router",
    "ScheduleEntry": "goap.compat.planner.csp",
    "Score": "goap.compat.score",
    "Sensor": "goap.compat.sensors",
    "SimpleScore": "goap.compat.score",
    "SoftGoal": "goap.compat.goals",
    "StoreExecutionHistory": "goap.compat.history",
    "StrategyClassifier": "goap.compat.planner.router",
    "StrategyRouter": "goap.compat.planner.router",
    "StuckHandler": "goap.compat.stuck",
    "StuckHandlerResult": "goap.compat.stuck",
    "StuckHandlingResultCode": "goap.compat.stuck",
    "TerminationPolicy": "goap.compat.termination",
    "TransitionModel": "goap.compat.planner.transitions",
    "TwoPhasePipelineStrategy": "goap.compat.planner.strategy",
    "UtilityStrategy": "goap.compat.planner.utility",
    "add_goap_subgraph": "goap.compat.integrations",
    "aresolve_conditions": "goap.compat.conditions",
    "compute_goal_hash": "goap.compat.history",
    "create_goap_agent": "goap.compat.integrations",
    "create_goap_subagent": "goap.compat.integrations",
    "create_goap_tool": "goap.compat.integrations",
    "explain_infeasibility": "goap.compat.planner.explain",
    "explain_no_plan": "goap.compat.planner.explain",
    "extract_features": "goap.compat.planner.router",
    "format_goap_result": "goap.compat.integrations",
    "goap_action": "goap.compat.actions",
    "goapify_tool": "goap.compat.integrations",
    "has_blocking_failure": "goap.compat.guards",
    "infer_start_state": "goap.compat.state",
    "install_langgoap_serde": "goap.compat.serde",
    "is_nirvana": "goap.compat.planner.utility",
    "pareto_plans": "goap.compat.planner.csp",
    "pipeline_plan": "goap.compat.planner.pipeline",
    "plan": "goap.compat.planner.astar",
    "render_ascii": "goap.compat.viz",
    "render_ascii_gantt": "goap.compat.viz",
    "render_dot": "goap.compat.viz",
    "render_mermaid": "goap.compat.viz",
    "render_mermaid_gantt": "goap.compat.viz",
    "resolve_conditions": "goap.compat.conditions",
    "run_guards_async": "goap.compat.guards",
    "run_guards_sync": "goap.compat.guards",
    "run_sensors_async": "goap.compat.sensors",
    "run_sensors_sync": "goap.compat.sensors",
    "scaffold_deployment": "goap.compat.integrations",
    "successful_action_names": "goap.compat.graph.state",
    "visualize": "goap.compat.viz",
}
"""Public name -> the module that defines it."""

__all__ = sorted([*_HOMES, "__version__", "set_log_level"])


def set_log_level(level: str | int) -> None:
    """Level of every ``goap.compat`` logger (a name such as ``"ERROR"`` or a number)."""
    logging.getLogger(__name__).setLevel(level)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'goap.compat' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later reads skip this function
    return value


def __dir__() -> list[str]:
    return __all__
