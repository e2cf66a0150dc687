"""``langgoap explain`` command.

Ported from ``langgoap.cli.explain_cmd`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

import click

from goap.compat.cli._options import load_problem, world_state_option


@click.command("explain")
@click.argument("actions_ref")
@click.argument("goal_ref")
@world_state_option
def explain(actions_ref: str, goal_ref: str, world_state_ref: str | None) -> None:
    """Explain why a goal cannot be achieved.

    ACTIONS_REF and GOAL_REF are Python module:variable references
    (e.g. my_module:ACTIONS, my_module:GOAL).
    """
    actions_list, goal, ws = load_problem(actions_ref, goal_ref, world_state_ref)

    from goap.compat.planner.explain import explain_no_plan
    from goap.compat.state import PlanningState

    start = PlanningState.from_dict(ws)
    explanation = explain_no_plan(start, goal, actions_list)

    click.echo(f"Goal conditions: {dict(goal.conditions)}")
    click.echo(f"Start state: {start.to_dict()}")
    click.echo()

    if explanation.unreachable_conditions:
        click.echo("Unreachable conditions (no action produces these):")
        for cond in explanation.unreachable_conditions:
            click.echo(f"  - {cond}")
    else:
        click.echo("All goal conditions are producible by the action set.")

    if explanation.missing_preconditions:
        click.echo("\nMissing preconditions (required but never produced):")
        for pre in explanation.missing_preconditions:
            click.echo(f"  - {pre}")

    if explanation.suggestion:
        click.echo(f"\nSuggestion: {explanation.suggestion}")


__all__ = ["explain"]
