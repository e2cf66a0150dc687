"""LangGOAP's command line (``goap-compat``, ``python -m goap.compat``): plan, explain, visualize,
actions and deploy-init over Python ``module:variable`` references."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from goap.compat.cli._loader import load_actions, load_goal, load_python_variable, load_world_state
from goap.compat.planner.types import Plan

__all__ = ["cli", "main"]

_BAD_INPUT = (ValueError, TypeError, ImportError, AttributeError)
_STRATEGIES = {"pipeline": "strategy:TwoPhasePipelineStrategy", "mcts": "mcts:MCTSStrategy"}
_RENDER: dict[str, Callable[[Plan], str]] = {
    "ascii": Plan.to_ascii,
    "mermaid": Plan.to_mermaid,
    "dot": Plan.to_dot,
    "gantt": Plan.to_gantt,
}


def _inputs(actions_ref: str, goal_ref: str, state_ref: str | None) -> tuple[list[Any], Any, dict[str, Any]]:
    try:
        return load_actions(actions_ref), load_goal(goal_ref), load_world_state(state_ref)
    except _BAD_INPUT as exc:
        raise click.ClickException(str(exc)) from exc


def _emit(text: str, path: str | None, what: str) -> None:
    if path is None:
        click.echo(text)
    else:
        Path(path).write_text(text, encoding="utf-8")
        click.echo(f"{what} written to {path}")


def _explanation(actions: list[Any], goal: Any, state: dict[str, Any]) -> Any:
    from goap.compat.planner.explain import explain_no_plan
    from goap.compat.state import PlanningState

    return explain_no_plan(PlanningState.from_dict(state), goal, actions)


_WORLD = click.option("-w", "--world-state", "state_ref", default=None, help="module:variable or JSON file.")
_OUT = click.option("-o", "--output", "output", default=None, type=click.Path(), help="Write to this file.")


@click.group()
@click.version_option(version=importlib.import_module("goap.compat").__version__, prog_name="goap.compat")
def cli() -> None:
    """LangGOAP-compatible planning commands on goap."""


@cli.command("plan")
@click.argument("actions_ref")
@click.argument("goal_ref")
@_WORLD
@click.option(
    "-f", "--format", "fmt", type=click.Choice([*_RENDER, "json"]), default="ascii", show_default=True
)
@click.option(
    "-s", "--strategy", type=click.Choice(["astar", *_STRATEGIES]), default="astar", show_default=True
)
@_OUT
def plan_cmd(
    actions_ref: str, goal_ref: str, state_ref: str | None, fmt: str, strategy: str, output: str | None
) -> None:
    """Plan ACTIONS_REF towards GOAL_REF (module:variable references) with a GoapGraph."""
    from goap.compat.graph.builder import GoapGraph

    actions, goal, state = _inputs(actions_ref, goal_ref, state_ref)
    chosen = None
    if strategy in _STRATEGIES:
        module, name = _STRATEGIES[strategy].split(":")
        chosen = getattr(importlib.import_module(f"goap.compat.planner.{module}"), name)()
    result = GoapGraph(actions=actions, strategy=chosen).invoke(goal=goal, world_state=state)
    found, status = result.get("plan"), result.get("status", "unknown")
    if found is None or status == "no_plan":
        click.echo(f"No plan found (status={status}).", err=True)
        try:
            why = _explanation(actions, goal, state)
            for label, items in (
                ("Unreachable conditions", why.unreachable_conditions),
                ("Missing preconditions", why.missing_preconditions),
            ):
                if items:
                    click.echo(f"  {label}: {list(items)}", err=True)
            if why.suggestion:
                click.echo(f"  Suggestion: {why.suggestion}", err=True)
        except Exception as exc:  # the explanation is a courtesy
            click.echo(f"  (no explanation: {exc})", err=True)
        raise SystemExit(1)
    if fmt == "json":
        doc = {
            "status": status,
            "actions": found.action_names,
            "total_cost": found.total_cost,
            "steps": len(found),
        }
        text = json.dumps(doc, indent=2)
    else:
        text = _RENDER[fmt](found)
    _emit(text, output, "Plan")


@cli.command("explain")
@click.argument("actions_ref")
@click.argument("goal_ref")
@_WORLD
def explain_cmd(actions_ref: str, goal_ref: str, state_ref: str | None) -> None:
    """Explain why GOAL_REF is (not) reachable with ACTIONS_REF."""
    actions, goal, state = _inputs(actions_ref, goal_ref, state_ref)
    why = _explanation(actions, goal, state)
    click.echo(f"Goal conditions: {dict(goal.conditions)}\nStart state: {state}\n")
    if why.unreachable_conditions:
        click.echo("Unreachable conditions (no action produces these):")
        click.echo("".join(f"  - {c}\n" for c in why.unreachable_conditions), nl=False)
    else:
        click.echo("All goal conditions are producible by the action set.")
    if why.missing_preconditions:
        click.echo("\nMissing preconditions (required but never produced):")
        click.echo("".join(f"  - {p}\n" for p in why.missing_preconditions), nl=False)
    if why.suggestion:
        click.echo(f"\nSuggestion: {why.suggestion}")


@cli.command("visualize")
@click.argument("plan_ref")
@click.option("-f", "--format", "fmt", type=click.Choice(list(_RENDER)), default="ascii", show_default=True)
@_OUT
def visualize_cmd(plan_ref: str, fmt: str, output: str | None) -> None:
    """Draw the Plan that PLAN_REF (a module:variable reference) names."""
    try:
        found = load_python_variable(plan_ref)
    except _BAD_INPUT as exc:
        raise click.ClickException(str(exc)) from exc
    if not isinstance(found, Plan):
        raise click.ClickException(f"{plan_ref!r} must be a Plan, got {type(found).__name__}")
    _emit(_RENDER[fmt](found), output, "Visualization")


@cli.command("actions")
@click.argument("actions_ref")
@click.option(
    "-f", "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@click.option("-v", "--verbose", is_flag=True, help="Also resources, duration and metadata.")
def actions_cmd(actions_ref: str, fmt: str, verbose: bool) -> None:
    """List the actions ACTIONS_REF (a module:variable reference) names."""
    try:
        actions = load_actions(actions_ref)
    except _BAD_INPUT as exc:
        raise click.ClickException(str(exc)) from exc
    docs: list[dict[str, Any]] = []
    for a in actions:
        effects: Any = a.effects
        doc: dict[str, Any] = {
            "name": a.name,
            "cost": a.cost,
            "preconditions": dict(a.preconditions),
            "effects": f"<dynamic: {sorted(a.effect_keys or ())}>"
            if callable(effects)
            else dict(effects or {}),
        }
        extras: dict[str, Any] = {
            "resources": dict(a.resources or {}),
            "duration": a.duration,
            "metadata": dict(a.metadata or {}),
        }
        doc |= {k: v if k != "duration" else str(v) for k, v in extras.items() if verbose and v}
        docs.append(doc)
    if fmt == "json":
        click.echo(json.dumps(docs, indent=2, default=str))
        return
    width = max([4, *(len(d["name"]) for d in docs)])
    rows = [f"{'Name':<{width}}  {'Cost':>6}  Preconditions  Effects"]
    rows.append("-" * len(rows[0]))
    for d in docs:
        cost = f"{d['cost']:>6.1f}" if isinstance(d["cost"], int | float) else f"{'f(s)':>6}"
        rows.append(f"{d['name']:<{width}}  {cost}  {d['preconditions']!s:<13}  {d['effects']}")
        rows += [f"  {k}: {d[k]}" for k in ("resources", "duration", "metadata") if k in d]
    click.echo("\n".join(rows) + f"\n\n{len(docs)} action(s)" if docs else "(no actions)")


@cli.command("deploy-init")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--graph-factory", required=True, help="'module.path:attr' of a function returning a GoapGraph."
)
@click.option("--name", "agent_name", required=True, help="The deployed graph's name.")
@click.option("--description", "agent_description", required=True, help="What the agent does.")
@click.option(
    "--python-version", default="3.12", show_default=True, help="Python version for langgraph.json."
)
@click.option("--dep", "extra_dependencies", multiple=True, help="Extra pip dependency (repeatable).")
@click.option("--force", is_flag=True, help="Overwrite files in OUT_DIR.")
def deploy_init_cmd(
    out_dir: Path,
    graph_factory: str,
    agent_name: str,
    agent_description: str,
    python_version: str,
    extra_dependencies: tuple[str, ...],
    force: bool,
) -> None:
    """Write a LangGraph deployment directory (langgraph.json, graph module, README, .env example)."""
    from goap.compat.integrations.langgraph_deploy import scaffold_deployment

    module, sep, attr = graph_factory.rpartition(":")
    if not sep or not module or not attr:
        raise click.UsageError(f"--graph-factory must look like 'module.path:attr', got {graph_factory!r}")
    try:
        where = scaffold_deployment(
            out_dir,
            graph_factory_module=module,
            graph_factory_attr=attr,
            agent_name=agent_name,
            agent_description=agent_description,
            python_version=python_version,
            extra_dependencies=extra_dependencies,
            force=force,
        )
    except FileExistsError as exc:
        raise click.UsageError(f"{exc} (use --force to overwrite)") from exc
    click.echo(f"Scaffolded LangGraph deployment at {where}\n\nNext: cd {where} && langgraph dev")


def main() -> None:
    """Run the command line."""
    cli()
