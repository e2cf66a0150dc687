"""The plan a LangGOAP-shaped planner returns, and how it was found."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goap.compat.actions import ActionSpec
from goap.compat.score import Score, SimpleScore
from goap.compat.state import PlanningState

if TYPE_CHECKING:
    from goap.compat.planner.csp import CSPMetadata

__all__ = ["Plan", "PlanMetadata", "PlanningState"]


@dataclass(frozen=True, slots=True)
class PlanMetadata:
    """Search counters of a plan: nodes expanded, applicable actions (utility planner), time, pruning,
    and the CSP phase's results."""

    nodes_explored: int = 0
    applicable_count: int = 0
    planning_time_ms: float = 0.0
    actions_pruned: int = 0
    csp: CSPMetadata | None = None


def _viz(module: str, func: str) -> Any:
    return getattr(importlib.import_module(f"goap.compat.viz.{module}"), func)


@dataclass(frozen=True, slots=True)
class Plan:
    """Actions in order, the state expected after each, the total cost, metadata and a score."""

    actions: tuple[ActionSpec, ...]
    expected_states: tuple[PlanningState, ...] = ()
    total_cost: float = 0.0
    metadata: PlanMetadata = field(default_factory=PlanMetadata)
    score: Score = field(default_factory=lambda: SimpleScore(scalar=0.0))

    @property
    def action_names(self) -> list[str]:
        """The action names, in order."""
        return [a.name for a in self.actions]

    def __len__(self) -> int:
        return len(self.actions)

    def __repr__(self) -> str:
        return f"Plan(actions={self.action_names!r}, total_cost={self.total_cost:.4g}, steps={len(self)})"

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

    def to_mermaid(self, *, show_resources: bool = True, show_schedule: bool = True) -> str:
        """Mermaid flowchart source."""
        return str(
            _viz("mermaid", "render_mermaid")(
                self, show_resources=show_resources, show_schedule=show_schedule
            )
        )

    def to_dot(self, *, show_resources: bool = True, show_schedule: bool = True) -> str:
        """Graphviz DOT source."""
        return str(
            _viz("dot", "render_dot")(self, show_resources=show_resources, show_schedule=show_schedule)
        )

    def to_ascii(self, *, show_resources: bool = True, show_schedule: bool = True) -> str:
        """An ASCII tree."""
        return str(
            _viz("ascii", "render_ascii")(self, show_resources=show_resources, show_schedule=show_schedule)
        )

    def visualize(
        self, *, format: str = "auto", show_resources: bool = True, show_schedule: bool = True
    ) -> Any:
        """A rendering for notebooks (Markdown of Mermaid) or ASCII text."""
        return _viz("jupyter", "visualize")(
            self, format=format, show_resources=show_resources, show_schedule=show_schedule
        )

    def to_gantt(self) -> str:
        """Mermaid gantt source of the schedule (ValueError without one)."""
        return str(_viz("mermaid", "render_mermaid_gantt")(self))

    def draw_gantt_png(self, **kwargs: Any) -> bytes:
        """The gantt chart as PNG bytes."""
        return bytes(_viz("mermaid", "draw_gantt_png")(self, **kwargs))

    def draw_mermaid_png(self, **kwargs: Any) -> bytes:
        """The flowchart as PNG bytes."""
        return bytes(_viz("mermaid", "draw_mermaid_png")(self, **kwargs))

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return dict(_viz("jupyter", "repr_mimebundle")(self, **kwargs))

    def save(
        self,
        path: str | Path,
        *,
        format: str | None = None,
        show_resources: bool = True,
        show_schedule: bool = True,
    ) -> Path:
        """Write a rendering to ``path`` (format from the suffix unless given)."""
        return Path(
            _viz("save", "save_plan")(
                self, path, format=format, show_resources=show_resources, show_schedule=show_schedule
            )
        )
