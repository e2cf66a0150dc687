"""Goal-oriented action planning (GOAP): model, optimal A* planner, explanations, problem files.

Pure planning, independent of the engine::

    from goap import ActionSpec, GoalSpec, plan, ge, add

    chop = ActionSpec("chop", {"axe": True}, {"wood": add(2)})
    result = plan({"axe": True, "wood": 0}, GoalSpec({"wood": ge(4)}), [chop])
    assert result.plan is not None and result.plan.names == ("chop", "chop")

The default strategy is :class:`AStar` with the LM-cut heuristic: optimal (least total cost).

The package is in three layers that import downward only (import-linter contracts in
pyproject.toml): :mod:`goap.planning` (the model, A*, heuristics; standard library only),
:mod:`goap.strategies` (CP-SAT pipeline, MCTS, repair, router...) and :mod:`goap.runtime` (the
engine graph and its policies). It imports nothing up front: each public name is imported from its
module on first use (PEP 562), so ``python -m goap plan`` and ``goap.plan`` load only planning
modules, never the engine, the stores, pydantic or OpenTelemetry that other parts of goap use.
"""

from typing import TYPE_CHECKING

from goap import planning, runtime, strategies
from goap.planning.exports import lazy_exports

if TYPE_CHECKING:
    from goap._version import __version__ as __version__
    from goap.planning import *  # noqa: F403
    from goap.runtime import *  # noqa: F403
    from goap.strategies import *  # noqa: F403

_EXPORTS: dict[str, str] = {
    name: layer.__name__ for layer in (planning, strategies, runtime) for name in layer.__all__
}
"""Public name -> the layer exporting it: every layer's public names (each layer imports the module
defining a name on first use)."""

__all__ = sorted(_EXPORTS)

_EXPORTS["__version__"] = "goap._version"  # resolved on first use too, but not a name of `import *`

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
