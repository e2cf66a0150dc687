"""LangGOAP's public API over goap's own layers: ``from langgoap import X`` becomes ``from goap.compat import X``.

Every name is an adapter: planning goes to :mod:`goap.planning` and :mod:`goap.strategies`, the
GOAP loop to :mod:`goap.runtime` on the engine. LangGOAP's module paths are mirrored
(``goap.compat.planner.mcts``, ``goap.compat.graph.nodes``, ...). Names load on first use, so
``from goap.compat import ActionSpec`` imports neither LangGraph nor the engine (``__init__.pyi``
gives type checkers the same names);
``docs/langgoap.md`` lists where the behaviour differs from LangGOAP's on purpose.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

__version__ = "0.1.2"
"""The LangGOAP release whose API this package follows."""

_EXPORTS: dict[str, str] = {
    "actions": "ActionSpec EffectFunction GoapAction goap_action",
    "callbacks": "CostAccumulator DEFAULT_COST_PER_1K_TOKENS",
    "conditions": (
        "AsyncConditionResolver ConditionResolver ConditionStatus FunctionalConditionResolver "
        "PromptConditionResolver aresolve_conditions resolve_conditions"
    ),
    "constraints": "BuilderOutput ChainOutput ConstraintBuilder ConstraintChain",
    "goals": "ConstraintSpec Goal GoalPolicy GoalSpec MultiGoal SoftGoal",
    "graph.builder": "GoapGraph",
    "graph.nodes": "GoapExecutor GoapObserver GoapPlanner ParallelGoapExecutor",
    "graph.state": "ActionResult GoapState successful_action_names",
    "guards": (
        "ActionGuard AsyncActionGuard FunctionalGuard GuardResult GuardSeverity has_blocking_failure "
        "run_guards_async run_guards_sync"
    ),
    "history": "ExecutionRecord StoreExecutionHistory compute_goal_hash",
    "integrations": (
        "GoapSubgraph add_goap_subgraph create_goap_agent create_goap_subagent create_goap_tool "
        "format_goap_result goapify_tool scaffold_deployment"
    ),
    "interpreter": "GoalInterpreter InterpretedConstraint InterpretedGoal InterpretedObjective",
    "planner.astar": "plan",
    "planner.csp": "CSPMetadata CSPStatus ResourceUsage ScheduleEntry pareto_plans",
    "planner.explain": (
        "InfeasibilityExplanation NoPlanExplanation ResourceShortfall explain_infeasibility explain_no_plan"
    ),
    "planner.mcts": "MCTSExploration MCTSReuseConfig MCTSStrategy MCTSTracingConfig",
    "planner.pipeline": "pipeline_plan",
    "planner.repair": "RepairStrategy",
    "planner.router": (
        "ProblemFeatures RuleBasedClassifier StrategyClassifier StrategyRouter extract_features"
    ),
    "planner.strategy": (
        "AStarStrategy AnytimePlanningStrategy CSPRefinementStrategy LazyDecompositionStrategy "
        "PlanningStrategy TwoPhasePipelineStrategy"
    ),
    "planner.transitions": "DeterministicTransitionModel DivergencePolicy TransitionModel",
    "planner.types": "Plan PlanMetadata",
    "planner.utility": "NIRVANA_NAME NirvanaGoal UtilityStrategy is_nirvana",
    "qos": "ActionQos DEFAULT_RETRY_POLICY FIRE_ONCE",
    "reflexion": "Reflection ReflexionTracer",
    "score": "BendableScore HardSoftScore Score SimpleScore",
    "sensors": "AsyncSensor FunctionalSensor Sensor run_sensors_async run_sensors_sync",
    "serde": "LANGGOAP_ALLOWED_MSGPACK_TYPES LangGOAPSerializer install_langgoap_serde",
    "state": "PlanningState infer_start_state",
    "stuck": (
        "FunctionalStuckHandler MulticastStuckHandler StuckHandler StuckHandlerResult StuckHandlingResultCode"
    ),
    "termination": (
        "AllOfPolicy EarlyTermination FirstOfPolicy MaxActionsPolicy MaxCostPolicy MaxLLMCallsPolicy "
        "MaxTokensPolicy MaxWallClockPolicy OnStuckPolicy TerminationPolicy"
    ),
    "tracing": "LangSmithTracer LoggingTracer MultiTracer NullTracer PlanningTracer",
    "types": "CostFunction Maximize Minimize ObjectiveDirection ReplanStrategy",
    "viz": "render_ascii render_ascii_gantt render_dot render_mermaid render_mermaid_gantt visualize",
}
"""Module (under ``goap.compat``) -> the public names it defines, separated by spaces."""

_HOMES = {name: f"goap.compat.{module}" for module, names in _EXPORTS.items() for name in names.split()}

_EXTRA_PACKAGES = frozenset({"langgraph", "langchain_core", "langsmith", "click", "ormsgpack"})
"""What the ``langgoap`` extra brings: a name needing one of them, missing, says how to install it."""

__all__ = sorted([*_HOMES, "__version__", "set_log_level"])


def set_log_level(level: str | int) -> None:
    """Level of every ``goap.compat`` logger (a name such as ``"ERROR"`` or a number)."""
    logging.getLogger(__name__).setLevel(level)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'goap.compat' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(home), name)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").partition(".")[0]
        if missing not in _EXTRA_PACKAGES:
            raise
        raise ModuleNotFoundError(
            f"goap.compat.{name} needs {missing}, which goap.compat's extra installs: "
            "pip install 'graphengine[langgoap]'",
            name=exc.name,
        ) from exc
    globals()[name] = value  # later reads skip this function
    return value


def __dir__() -> list[str]:
    return __all__
