"""``langgoap plan`` command.

Ported from ``langgoap.cli.plan_cmd`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from goap.compat._logs import get_logger

if TYPE_CHECKING:
    from goap.compat.planner.types import Plan

import click

from goap.compat.cli._options import emit, load_problem, output_option, render_drawing, world_state_option

logger = get_logger(__name__)


@click.command("plan")
@click.argument("actions_ref")
@click.argument("goal_ref")
@world_state_option
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["ascii", "mermaid", "dot", "json", "gantt"]),
    default="ascii",
    show_default=True,
    help="Output format for the plan.",
)
@click.option(
    "-s",
    "--strategy",
    type=click.Choice(["astar", "pipeline", "mcts"]),
    default="astar",
    show_default=True,
    help="Planning strategy.",
)
@output_option
def plan(
    actions_ref: str,
    goal_ref: str,
    world_state_ref: str | None,
    fmt: str,
    strategy: str,
    output_path: str | None,
) -> None:
    """Plan a sequence of actions to achieve a goal.

    ACTIONS_REF and GOAL_REF are Python module:variable references
    (e.g. my_module:ACTIONS, my_module:GOAL).
    """
    actions_list, goal, ws = load_problem(actions_ref, goal_ref, world_state_ref)

    strategy_obj = _resolve_strategy(strategy)

    from goap.compat.graph.builder import GoapGraph

    graph = GoapGraph(actions=actions_list, strategy=strategy_obj)
    result = graph.invoke(goal=goal, world_state=ws)

    status = result.get("status", "unknown")
    result_plan = result.get("plan")

    if status == "no_plan" or result_plan is None:
        click.echo(f"No plan found (status={status}).", err=True)
        _auto_explain(actions_list, goal, ws)
        sys.exit(1)

    output = _render_plan(result_plan, fmt, dict(result))
    emit(output, output_path, "Plan")


def _resolve_strategy(name: str) -> Any:
    """Resolve a strategy name to a strategy instance."""
    if name == "astar":
        return None  # default
    if name == "pipeline":
        from goap.compat.planner.strategy import TwoPhasePipelineStrategy

        return TwoPhasePipelineStrategy()
    if name == "mcts":
        from goap.compat.planner.mcts import MCTSStrategy

        return MCTSStrategy()
    return None


def _render_plan(plan_obj: Plan, fmt: str, result: dict[str, Any]) -> str:
    """Render a plan in the requested format."""
    if fmt == "json":
        return json.dumps(
            {
                "status": result.get("status"),
                "actions": plan_obj.action_names,
                "total_cost": plan_obj.total_cost,
                "steps": len(plan_obj),
            },
            indent=2,
        )
    drawing = render_drawing(plan_obj, fmt)
    return str(plan_obj) if drawing is None else drawing


def _auto_explain(actions_list: list[Any], goal: Any, ws: dict[str, Any]) -> None:
    """Print an explanation when no plan is found."""
    try:
        from goap.compat.planner.explain import explain_no_plan
        from goap.compat.state import PlanningState

        start = PlanningState.from_dict(ws)
        explanation = explain_no_plan(start, goal, actions_list)
        click.echo("\nExplanation:", err=True)
        if explanation.unreachable_conditions:
            click.echo(
                f"  Unreachable conditions: {list(explanation.unreachable_conditions)}",
                err=True,
            )
        if explanation.missing_preconditions:
            click.echo(
                f"  Missing preconditions: {list(explanation.missing_preconditions)}",
                err=True,
            )
        if explanation.suggestion:
            click.echo(f"  Suggestion: {explanation.suggestion}", err=True)
    except Exception as exc:
        # Best-effort explainer — the CLI must keep going if the helper
        # hits an edge case.  Surface the cause under DEBUG logging.
        logger.debug("auto-explain failed: %s", exc, exc_info=True)


__all__ = ["plan"]
