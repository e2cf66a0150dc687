"""LangGOAP's command line (``goap-compat``, ``python -m goap.compat``) over ``module:variable`` inputs."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from goap.compat.cli._loader import load_actions, load_goal, load_python_variable, load_world_state
from goap.compat.planner.types import Plan

__all__ = ["cli", "main"]

_F = TypeVar("_F", bound=Callable[..., Any])

_STRATEGIES = {"pipeline": "strategy:TwoPhasePipelineStrategy", "mcts": "mcts:MCTSStrategy"}
_RENDER = {"ascii": Plan.to_ascii, "mermaid": Plan.to_mermaid, "dot": Plan.to_dot, "gantt": Plan.to_gantt}
_WORLD = click.option("-w", "--world-state", "state_ref", help="module:variable or JSON file.")
_OUT = click.option("-o", "--output", type=click.Path(), help="Write to this file.")


def _load(fn: Any, *refs: Any) -> Any:
    try:
        return fn(*refs)
    except (ValueError, TypeError, ImportError, AttributeError) as exc:
        raise click.ClickException(str(exc)) from exc


def _emit(text: str, output: str | None, what: str) -> None:
    if output is None:
        return click.echo(text)
    Path(output).write_text(text, encoding="utf-8")
    click.echo(f"{what} written to {output}")


def _inputs(actions_ref: str, goal_ref: str, state_ref: str | None) -> tuple[Any, Any, dict[str, Any]]:
    return _load(load_actions, actions_ref), _load(load_goal, goal_ref), _load(load_world_state, state_ref)


def _explain(actions: list[Any], goal: Any, state: dict[str, Any], err: bool = False) -> None:
    from goap.compat.planner.explain import explain_no_plan
    from goap.compat.state import PlanningState

    why = explain_no_plan(PlanningState.from_dict(state), goal, actions)
    blocks = [
        ("Unreachable conditions (no action produces these):", why.unreachable_conditions),
        ("Missing preconditions (required but never produced):", why.missing_preconditions),
    ]
    text = [title + "".join(f"\n  - {item}" for item in items) for title, items in blocks if items]
    text[:0] = [] if why.unreachable_conditions else ["All goal conditions are producible by the action set."]
    click.echo("\n\n".join(text + ([f"Suggestion: {why.suggestion}"] if why.suggestion else [])), err=err)


def _choice(flag: str, values: list[str], default: str, dest: str | None = None) -> Callable[[_F], _F]:
    names = [f"-{flag[0]}", f"--{flag}", *([dest] if dest else [])]
    return click.option(*names, type=click.Choice(values), default=default, show_default=True)


@click.group()
@click.version_option(importlib.import_module("goap.compat").__version__, prog_name="goap.compat")
def cli() -> None:
    """LangGOAP-compatible planning commands on goap."""


@cli.command("plan")
@click.argument("actions_ref")
@click.argument("goal_ref")
@_WORLD
@_choice("format", [*_RENDER, "json"], "ascii", "fmt")
@_choice("strategy", ["astar", *_STRATEGIES], "astar")
@_OUT
def plan_cmd(
    actions_ref: str, goal_ref: str, state_ref: str | None, fmt: str, strategy: str, output: str | None
) -> None:
    """Plan ACTIONS_REF towards GOAL_REF (module:variable references) with a GoapGraph."""
    from goap.compat.graph.builder import GoapGraph

    actions, goal, state = _inputs(actions_ref, goal_ref, state_ref)
    module, _, name = _STRATEGIES.get(strategy, ":").partition(":")
    chosen = getattr(importlib.import_module(f"goap.compat.planner.{module}"), name)() if module else None
    result = GoapGraph(actions=actions, strategy=chosen).invoke(goal=goal, world_state=state)
    found, status = result.get("plan"), result.get("status", "unknown")
    if found is None or status == "no_plan":
        click.echo(f"No plan found (status={status}).", err=True)
        _explain(actions, goal, state, err=True)
        raise SystemExit(1)
    doc = {"status": status, "actions": found.action_names, "total_cost": found.total_cost}
    doc["steps"] = len(found)
    _emit(json.dumps(doc, indent=2) if fmt == "json" else _load(_RENDER[fmt], found), output, "Plan")


@cli.command("explain")
@click.argument("actions_ref")
@click.argument("goal_ref")
@_WORLD
def explain_cmd(actions_ref: str, goal_ref: str, state_ref: str | None) -> None:
    """Explain why GOAL_REF is (not) reachable with ACTIONS_REF."""
    actions, goal, state = _inputs(actions_ref, goal_ref, state_ref)
    click.echo(f"Goal conditions: {dict(goal.conditions)}\nStart state: {state}\n")
    _explain(actions, goal, state)


@cli.command("visualize")
@click.argument("plan_ref")
@_choice("format", list(_RENDER), "ascii", "fmt")
@_OUT
def visualize_cmd(plan_ref: str, fmt: str, output: str | None) -> None:
    """Draw the Plan that PLAN_REF (a module:variable reference) names."""
    found = _load(load_python_variable, plan_ref)
    if not isinstance(found, Plan):
        raise click.ClickException(f"{plan_ref!r} must be a Plan, got {type(found).__name__}")
    _emit(_load(_RENDER[fmt], found), output, "Visualization")


@cli.command("actions")
@click.argument("actions_ref")
@_choice("format", ["table", "json"], "table", "fmt")
@click.option("-v", "--verbose", is_flag=True, help="Also resources, duration and metadata.")
def actions_cmd(actions_ref: str, fmt: str, verbose: bool) -> None:
    """List the actions ACTIONS_REF (a module:variable reference) names."""
    docs: list[dict[str, Any]] = []
    for a in _load(load_actions, actions_ref):
        effects = (
            f"<dynamic: {sorted(a.effect_keys or ())}>" if callable(a.effects) else dict(a.effects or {})
        )
        doc = {"name": a.name, "cost": a.cost, "preconditions": dict(a.preconditions), "effects": effects}
        more = {
            "resources": dict(a.resources or {}),
            "duration": a.duration,
            "metadata": dict(a.metadata or {}),
        }
        docs.append(doc | {k: str(v) if k == "duration" else v for k, v in more.items() if verbose and v})
    if fmt == "json" or not docs:
        return click.echo(
            json.dumps(docs, indent=2, default=str) if docs or fmt == "json" else "(no actions)"
        )
    width = max(4, *(len(d["name"]) for d in docs))
    rows = [f"{'Name':<{width}}  {'Cost':>6}  Preconditions  Effects"]
    for d in docs:
        cost = f"{d['cost']:>6.1f}" if isinstance(d["cost"], int | float) else f"{'f(s)':>6}"
        rows.append(f"{d['name']:<{width}}  {cost}  {d['preconditions']!s:<13}  {d['effects']}")
        rows += [f"  {k}: {d[k]}" for k in ("resources", "duration", "metadata") if k in d]
    click.echo("\n".join([rows[0], "-" * len(rows[0]), *rows[1:], "", f"{len(docs)} action(s)"]))


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
def deploy_init_cmd(out_dir: Path, graph_factory: str, **options: Any) -> None:
    """Write a LangGraph deployment directory for the GoapGraph a factory builds."""
    from goap.compat.integrations.langgraph_deploy import scaffold_deployment

    module, _, attr = graph_factory.rpartition(":")
    if not module or not attr:
        raise click.UsageError(f"--graph-factory must look like 'module.path:attr', got {graph_factory!r}")
    try:
        where = scaffold_deployment(out_dir, graph_factory_module=module, graph_factory_attr=attr, **options)
    except FileExistsError as exc:
        raise click.UsageError(f"{exc} (use --force to overwrite)") from exc
    click.echo(f"Scaffolded LangGraph deployment at {where}\n\nNext: cd {where} && langgraph dev")


def main() -> None:
    """Run the command line."""
    cli()
