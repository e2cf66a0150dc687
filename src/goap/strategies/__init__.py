"""The strategies layer: planners beyond A* over the planning model -- the CP-SAT pipeline, MCTS,
repair, anytime, utility and the strategy router -- infeasibility explanations and Pareto fronts.

It imports :mod:`goap.planning` and never :mod:`goap.runtime`.
"""

from typing import TYPE_CHECKING

from goap.planning.exports import lazy_exports

if TYPE_CHECKING:
    from goap.strategies._anytime import AnytimeStrategy
    from goap.strategies._csp import CspPipeline, pipeline_plan
    from goap.strategies._csp_common import SolverReport
    from goap.strategies._infeasibility import (
        Infeasibility,
        InfeasibleConstraint,
        explain_infeasibility,
        minimal_conflict,
    )
    from goap.strategies._mcts import Mcts, shaped_reward, walk_rollout
    from goap.strategies._pareto import dominates, pareto_front
    from goap.strategies._repair import RepairStrategy
    from goap.strategies._router import (
        RoutingDecision,
        RuleBasedClassifier,
        StrategyClassifier,
        StrategyRouter,
    )
    from goap.strategies._utility import UtilityStrategy

_EXPORTS: dict[str, str] = {
    "AnytimeStrategy": "goap.strategies._anytime",
    "CspPipeline": "goap.strategies._csp",
    "Infeasibility": "goap.strategies._infeasibility",
    "InfeasibleConstraint": "goap.strategies._infeasibility",
    "Mcts": "goap.strategies._mcts",
    "MctsChance": "goap.strategies._mcts",
    "MctsNode": "goap.strategies._mcts",
    "shaped_reward": "goap.strategies._mcts",
    "walk_rollout": "goap.strategies._mcts",
    "RepairReport": "goap.strategies._repair",
    "RepairStrategy": "goap.strategies._repair",
    "RoutingDecision": "goap.strategies._router",
    "RuleBasedClassifier": "goap.strategies._router",
    "SolverReport": "goap.strategies._csp_common",
    "StrategyClassifier": "goap.strategies._router",
    "StrategyRouter": "goap.strategies._router",
    "UtilityStrategy": "goap.strategies._utility",
    "dominates": "goap.strategies._pareto",
    "explain_infeasibility": "goap.strategies._infeasibility",
    "minimal_conflict": "goap.strategies._infeasibility",
    "pareto_front": "goap.strategies._pareto",
    "pipeline_plan": "goap.strategies._csp",
}
"""Public name -> the module defining it (imported on first use)."""

__all__ = [
    "AnytimeStrategy",
    "CspPipeline",
    "Infeasibility",
    "InfeasibleConstraint",
    "Mcts",
    "MctsChance",
    "MctsNode",
    "RepairReport",
    "RepairStrategy",
    "RoutingDecision",
    "RuleBasedClassifier",
    "SolverReport",
    "StrategyClassifier",
    "StrategyRouter",
    "UtilityStrategy",
    "dominates",
    "explain_infeasibility",
    "minimal_conflict",
    "pareto_front",
    "pipeline_plan",
    "shaped_reward",
    "walk_rollout",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
