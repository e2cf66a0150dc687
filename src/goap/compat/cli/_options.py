"""What the ``plan``, ``explain`` and ``visualize`` commands share: options, loading, output.

Ported from ``langgoap.cli`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from goap.compat.actions import ActionSpec
from goap.compat.cli._loader import load_actions, load_goal, load_world_state
from goap.compat.goals import GoalSpec
from goap.compat.planner.types import Plan

__all__ = ["emit", "load_problem", "output_option", "render_drawing", "world_state_option"]

F = TypeVar("F", bound=Callable[..., Any])

world_state_option: Callable[[F], F] = click.option(
    "-w",
    "--world-state",
    "world_state_ref",
    default=None,
    help="Module:variable or JSON file for initial world state.",
)
"""``-w/--world-state``: where the initial world state comes from."""

output_option: Callable[[F], F] = click.option(
    "-o",
    "--output",
    "output_path",
    default=None,
    type=click.Path(),
    help="Write output to a file instead of stdout.",
)
"""``-o/--output``: a file to write instead of stdout."""


def load_problem(
    actions_ref: str, goal_ref: str, world_state_ref: str | None
) -> tuple[list[ActionSpec], GoalSpec, dict[str, Any]]:
    """The actions, goal and world state the references name; a bad reference is a usage error."""
    try:
        return load_actions(actions_ref), load_goal(goal_ref), load_world_state(world_state_ref)
    except (ValueError, TypeError, ImportError, AttributeError) as exc:
        raise click.ClickException(str(exc)) from exc


def emit(output: str, output_path: str | None, what: str) -> None:
    """Print ``output``, or write it to ``output_path`` and say so (``what`` names it)."""
    if not output_path:
        click.echo(output)
        return
    with open(output_path, "w", encoding="utf-8") as f:
        f.write(output)
    click.echo(f"{what} written to {output_path}")


def render_drawing(plan: Plan, fmt: str) -> str | None:
    """The plan drawn as ``ascii``, ``mermaid``, ``dot`` or ``gantt``; None for another format."""
    drawings: dict[str, Callable[[], str]] = {
        "ascii": plan.to_ascii,
        "mermaid": plan.to_mermaid,
        "dot": plan.to_dot,
        "gantt": plan.to_gantt,
    }
    draw = drawings.get(fmt)
    return None if draw is None else draw()
