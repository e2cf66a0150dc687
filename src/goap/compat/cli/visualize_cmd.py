"""``langgoap visualize`` command.

Ported from ``langgoap.cli.visualize_cmd`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

import click

from goap.compat.cli._loader import load_python_variable
from goap.compat.cli._options import emit, output_option, render_drawing
from goap.compat.planner.types import Plan


@click.command("visualize")
@click.argument("plan_ref")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["ascii", "mermaid", "dot", "gantt"]),
    default="ascii",
    show_default=True,
    help="Visualization format.",
)
@output_option
def visualize(plan_ref: str, fmt: str, output_path: str | None) -> None:
    """Visualize an existing Plan object.

    PLAN_REF is a Python module:variable reference pointing to a Plan
    instance (e.g. my_module:MY_PLAN).
    """
    try:
        plan_obj = load_python_variable(plan_ref)
    except (ValueError, ImportError, AttributeError) as exc:
        raise click.ClickException(str(exc)) from exc

    if not isinstance(plan_obj, Plan):
        raise click.ClickException(f"Expected a Plan from {plan_ref!r}, got {type(plan_obj).__name__}.")

    output = _render(plan_obj, fmt)
    emit(output, output_path, "Visualization")


def _render(plan_obj: Plan, fmt: str) -> str:
    """Render the plan in the requested format."""
    drawing = render_drawing(plan_obj, fmt)
    return str(plan_obj) if drawing is None else drawing


__all__ = ["visualize"]
