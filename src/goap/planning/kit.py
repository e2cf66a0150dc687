"""What code extending the planning model is built with: the start of a strategy's ``solve``, the
checks of frozen settings, the constraint helpers, the check of a fact mapping, and the relaxed
reachability analysis behind :class:`goap.NoPlanExplanation`.

The layers above planning (:mod:`goap.strategies`, :mod:`goap.selector`) build their strategies and
models from exactly these; a third-party :class:`goap.PlanningStrategy` can too, and then refuses
the same goals with the same messages. They are kept out of ``goap``'s top-level names, which are
for planning, not for writing planners.
"""

from goap.planning._actions import check_fact_map
from goap.planning._checks import check_at_least, check_seconds, freeze_field
from goap.planning._constraints import (
    RESERVED_METRICS,
    goal_constraints,
    honours_constraints,
    plain_goal,
    refuse_constraints,
)
from goap.planning._explain import Reachability, explain_unreachable
from goap.planning._prologue import SolveStart, StrategyBase
from goap.planning.exports import publish

__all__ = [
    "RESERVED_METRICS",
    "Reachability",
    "SolveStart",
    "StrategyBase",
    "check_at_least",
    "check_fact_map",
    "check_seconds",
    "explain_unreachable",
    "freeze_field",
    "goal_constraints",
    "honours_constraints",
    "plain_goal",
    "refuse_constraints",
]

publish(__name__, globals(), __all__, within="goap")
