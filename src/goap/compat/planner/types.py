"""The plan a LangGOAP-shaped planner returns, and how it was found."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from goap.compat.actions import ActionSpec
from goap.compat.score import Score, SimpleScore
from goap.compat.state import PlanningState

if TYPE_CHECKING:
    from goap.compat.planner.csp import CSPMetadata

__all__ = ["Plan", "PlanMetadata", "PlanningState"]


@dataclass(slots=True, frozen=True)
class PlanMetadata:
    """Search counters of a plan and the CSP phase's results."""

    nodes_explored: int = 0
    applicable_count: int = 0
    planning_time_ms: float = 0.0
    actions_pruned: int = 0
    csp: CSPMetadata | None = None


def _shim(module: str, func: str, doc: str) -> Any:
    """A Plan method calling ``goap.compat.viz.<module>.<func>(plan, ...)``."""

    def method(self: Plan, *args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(f"goap.compat.viz.{module}"), func)(self, *args, **kwargs)

    method.__doc__ = doc
    return method


@dataclass(slots=True, frozen=True)
class Plan:
    """Actions in order, the state expected after each, the total cost, metadata and a score."""

    actions: tuple[ActionSpec, ...]
    expected_states: tuple[PlanningState, ...] = ()
    total_cost: float = 0.0
    metadata: PlanMetadata = field(default_factory=PlanMetadata)
    score: Score = field(default_factory=SimpleScore)

    def __repr__(self) -> str:
        return f"Plan(actions={self.action_names!r}, total_cost={self.total_cost:.4g}, steps={len(self)})"

    def __len__(self) -> int:
        return len(self.actions)

    @property
    def action_names(self) -> list[str]:
        """The action names, in order."""
        return [a.name for a in self.actions]

    @classmethod
    def empty(cls) -> Plan:
        """The plan of a goal that already holds."""
        return cls(actions=())

    def net_value(self, goal: Any, world_state: Any | None = None) -> float:
        """The goal's ``value`` (called on ``world_state``, else the last expected state) minus the cost."""
        v = getattr(goal, "value", 1.0)
        if callable(v):
            if world_state is None:
                world_state = self.expected_states[-1].to_dict() if self.expected_states else {}
            v = v(world_state)
        return float(v) - self.total_cost

    to_mermaid = _shim("mermaid", "render_mermaid", "Mermaid flowchart source.")
    to_dot = _shim("dot", "render_dot", "Graphviz DOT source.")
    to_ascii = _shim("ascii", "render_ascii", "An ASCII tree.")
    visualize = _shim("jupyter", "visualize", "A rendering for notebooks (Mermaid) or ASCII text.")
    to_gantt = _shim("mermaid", "render_mermaid_gantt", "Mermaid gantt source of the schedule.")
    draw_gantt_png = _shim("mermaid", "draw_gantt_png", "The gantt chart as PNG bytes.")
    draw_mermaid_png = _shim("mermaid", "draw_mermaid_png", "The flowchart as PNG bytes.")
    _repr_mimebundle_ = _shim("jupyter", "repr_mimebundle", "Jupyter's rich display.")
    save = _shim("save", "save_plan", "Write a rendering to ``path`` (format from the suffix unless given).")
