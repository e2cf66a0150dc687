"""Heuristics over the delete relaxation, and their registry.

==========  ==========  ==========================================================
name        admissible  what
==========  ==========  ==========================================================
``lmcut``   yes         LM-cut landmarks (default: the most informative admissible)
``hmax``    yes         dearest single goal fact
``blind``   yes         0 (uniform-cost search)
``ff``      no          relaxed plan cost (for greedy / weighted search)
``add``     no          sum of goal-fact costs
``goalcount`` no        number of unsatisfied goal conditions (classic GOAP's estimate)
==========  ==========  ==========================================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from goap.planning._errors import ModelError
from goap.planning._task import Task
from goap.planning.heuristics.base import INF, Heuristic, RelaxedTask
from goap.planning.heuristics.blind import Blind
from goap.planning.heuristics.ff import HFF, HAdd
from goap.planning.heuristics.goalcount import GoalCount
from goap.planning.heuristics.hmax import HMax
from goap.planning.heuristics.lmcut import LMCut

__all__ = [
    "HEURISTICS",
    "HFF",
    "INF",
    "Blind",
    "GoalCount",
    "HAdd",
    "HMax",
    "Heuristic",
    "LMCut",
    "RelaxedTask",
    "check_heuristic",
]

HEURISTICS: Mapping[str, Callable[[Task], Heuristic]] = MappingProxyType(
    {"add": HAdd, "blind": Blind, "ff": HFF, "goalcount": GoalCount, "hmax": HMax, "lmcut": LMCut}
)
"""Heuristic name -> factory taking a compiled task. Each product has ``.admissible``."""


def check_heuristic(name: str) -> None:
    """Raise :class:`goap.ModelError` unless ``name`` is a key of :data:`HEURISTICS`."""
    if name not in HEURISTICS:
        raise ModelError(f"unknown heuristic {name!r}; choose one of {sorted(HEURISTICS)}")
