"""The strategies layer: planners beyond A* over the planning model -- the CP-SAT pipeline, MCTS,
repair, anytime, utility and the strategy router -- and infeasibility explanations.

It imports :mod:`goap.planning` and never :mod:`goap.runtime`.
"""

from goap.strategies._anytime import AnytimeStrategy
from goap.strategies._csp import CspPipeline, pipeline_plan
from goap.strategies._infeasibility import Infeasibility, InfeasibleConstraint, explain_infeasibility
from goap.strategies._mcts import Mcts
from goap.strategies._repair import RepairStrategy
from goap.strategies._router import RuleBasedClassifier, StrategyClassifier, StrategyRouter
from goap.strategies._utility import UtilityStrategy

__all__ = [
    "AnytimeStrategy",
    "CspPipeline",
    "Infeasibility",
    "InfeasibleConstraint",
    "Mcts",
    "RepairStrategy",
    "RuleBasedClassifier",
    "StrategyClassifier",
    "StrategyRouter",
    "UtilityStrategy",
    "explain_infeasibility",
    "pipeline_plan",
]
