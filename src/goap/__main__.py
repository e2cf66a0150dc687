"""Command line of the planner; every command takes ``--json`` for one machine-readable object.

    python -m goap plan FILE [--strategy astar] [--timeout S] [--max-expansions N] [--max-memory-mb M]
    python -m goap explain FILE          why a problem has no plan (or that it has one)
    python -m goap visualize FILE [--format mermaid|dot|gantt|text]
    python -m goap actions MODULE:LIST   the actions a module defines (a list or a function)
    python -m goap history STORE RUN_ID  a GOAP run's plan lineage (a store URL, or a SQLite file)
    python -m goap --version

Problem files are JSON, described in docs/problem-format.md of the source repository.

Exit status: 0 success (a plan found), 1 no plan / budget exhausted, 2 bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from goap.planning import (
    STRATEGIES,
    AStar,
    GreedyBestFirst,
    PlanningError,
    PlanningStrategy,
    PlanResult,
    ProblemFormatError,
    load_problem,
    plan,
)

PROG = "python -m goap"
FORMAT_DOC = "docs/problem-format.md"
"""Where the problem file format is described (in the source repository; the wheel has no docs)."""


def _strategy(
    name: str, timeout: float | None, max_expansions: int | None, max_memory_mb: float | None
) -> PlanningStrategy:
    base = STRATEGIES[name]()
    if isinstance(base, AStar | GreedyBestFirst):
        return type(base)(
            heuristic=base.heuristic,
            weight=base.weight,
            max_expansions=max_expansions,
            timeout=timeout,
            max_memory_mb=max_memory_mb if max_memory_mb is not None else base.max_memory_mb,
        )
    return base


class _Version(argparse.Action):
    """``--version``: reads the version only when asked (it is the distribution's, see
    ``goap._version``), so a plain ``plan`` call loads nothing for it."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from goap import __version__

        print(f"goap {__version__}")
        parser.exit()


@contextlib.contextmanager
def _progress(what: str) -> Iterator[None]:
    """Say on a terminal that long work runs (``what`` beside a spinner, erased when done);
    nothing when stderr is piped or redirected, so scripts and logs see only results.

    Uses ``rich`` (the ``cli`` extra) when installed, else one plain line. The search in C holds
    the interpreter while it runs, so the spinner may pause; the line stays until the end."""
    if not sys.stderr.isatty():
        yield
        return
    try:
        from rich.console import Console
    except ImportError:
        print(f"{what} ...", file=sys.stderr, flush=True)
        yield
        return
    with Console(stderr=True).status(f"{what} ...", spinner="dots"):
        yield


def build_parser() -> argparse.ArgumentParser:
    """The one argument parser of ``python -m goap``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="GOAP planner: plan, explain and draw problem files; list actions; show plan history.",
        epilog=f"Problem files are JSON; the format is described in {FORMAT_DOC} of the source repository.",
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("plan", help="plan for a problem file and print the plan, its cost and stats")
    _planning_args(p)
    e = sub.add_parser("explain", help="why a problem file has no plan")
    _planning_args(e)
    v = sub.add_parser("visualize", help="draw the plan of a problem file (Mermaid or DOT)")
    _planning_args(v)
    v.add_argument(
        "--format",
        choices=("mermaid", "dot", "gantt", "text"),
        default="mermaid",
        help="drawing format (default: mermaid; gantt needs a scheduling strategy)",
    )
    a = sub.add_parser("actions", help="list the actions of MODULE:NAME (a list of ActionSpec or a function)")
    a.add_argument("target", help="e.g. examples.release:actions")
    a.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    h = sub.add_parser("history", help="print the plan lineage of a stored GOAP run")
    h.add_argument(
        "store",
        metavar="STORE",
        help="store URL of the run (sqlite:///runs.db, postgresql://..., as graphengine --store), "
        "or the path of a SQLite file",
    )
    h.add_argument("run_id", metavar="RUN_ID", help="the run whose plans to show")
    h.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 found, 1 no plan / budget, 2 bad input)."""
    return _run(build_parser().parse_args(argv))


def _run(args: Any) -> int:
    if args.command == "actions":
        return _actions(args.target, args.json)
    if args.command == "history":
        import asyncio

        if "://" not in args.store and not os.path.exists(args.store):
            print(
                f"no store at {args.store!r} (give a store URL such as sqlite:///runs.db, or a file)",
                file=sys.stderr,
            )
            return 2
        return asyncio.run(_history(args.store, args.run_id, args.json))
    try:
        problem = load_problem(args.problem)
        strategy = _strategy(args.strategy, args.timeout, args.max_expansions, args.max_memory_mb)
        with _progress(f"planning {problem.name} with {args.strategy} (timeout {args.timeout:g} s)"):
            result = plan(problem.initial, problem.goal, problem.actions, strategy)
    except ProblemFormatError as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)  # the message starts with the file name
        return 2
    except PlanningError as exc:
        print(f"{type(exc).__name__}: {os.path.basename(args.problem)}: {exc}", file=sys.stderr)
        return 2
    if args.command == "explain":
        return _explain(problem.name, result, args.json)
    if args.command == "visualize":
        return _visualize(problem.name, result, args.format, args.json)
    s = result.stats
    if args.json:
        out = {
            "problem": problem.name,
            "status": result.status,
            "plan": list(result.plan.names) if result.plan else None,
            "cost": result.plan.cost if result.plan else None,
            "optimal": result.optimal,
            "optimal_cost": problem.optimal_cost,
            "strategy": result.strategy,
            "search": s.search or None,
            "budget": s.budget,
            "explanation": result.explanation.to_dict() if result.explanation else None,
            "stats": {
                "expanded": s.expanded,
                "generated": s.generated,
                "evaluated": s.evaluated,
                "seconds": s.seconds,
                "initial_h": s.initial_h,
            },
        }
        print(json.dumps(out, indent=1))
    else:
        ran = f"  search: {s.search}" if s.search else ""
        print(f"problem: {problem.name}  status: {result.status}  strategy: {result.strategy}{ran}")
        if s.budget is not None:
            print(f"budget exhausted: {_BUDGETS.get(s.budget, s.budget)}; nothing is proven")
        if result.plan is not None:
            for i, name in enumerate(result.plan.names, 1):
                print(f"{i:4d}. {name}")
            tag = "optimal" if result.optimal else "not proven optimal"
            print(f"cost: {result.plan.cost:g} ({tag}; file says {problem.optimal_cost})")
        if result.explanation is not None:
            print(f"no plan: {result.explanation.message}")
        print(
            f"stats: expanded={s.expanded} generated={s.generated} evaluated={s.evaluated} "
            f"initial_h={s.initial_h:g} pruned_actions={s.pruned_actions} "
            f"symmetry_classes={s.symmetry_classes} seconds={s.seconds:.4f}"
        )
    return 0 if result.found else 1


_BUDGETS = {
    "max_expansions": "--max-expansions (expanded states)",
    "timeout": "--timeout (seconds)",
    "max_memory_mb": "--max-memory-mb (memory of the search)",
}
"""The option that sets each budget, as a budget_exhausted result names it."""


def _planning_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("problem", help=f"problem file, JSON (format: {FORMAT_DOC} in the source repository)")
    p.add_argument(
        "--strategy",
        default="astar",
        choices=sorted(STRATEGIES),
        help="search strategy (default: astar, optimal with LM-cut)",
    )
    p.add_argument("--timeout", type=float, default=30.0, help="seconds (default 30)")
    p.add_argument(
        "--max-expansions",
        type=int,
        default=None,
        help="give up after this many expanded states (default: no limit)",
    )
    p.add_argument(
        "--max-memory-mb", type=float, default=None, help="memory budget of the search in MiB (default 1024)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def _explain(name: str, result: PlanResult, as_json: bool) -> int:
    why = result.explanation
    if as_json:
        doc = {"problem": name, "status": result.status, "explanation": why.to_dict() if why else None}
        print(json.dumps(doc, indent=1))
    elif result.found:
        print(f"problem: {name}: a plan exists (status found); nothing to explain")
    elif why is None:
        print(f"problem: {name}: {result.status}: the search ran out of budget, nothing is proven")
    else:
        print(f"problem: {name}: no plan ({why.proof} proof)")
        print(f"  {why.message}")
        for u in why.unreachable:
            extra = (
                f" (blacklisted producers: {', '.join(u.blacklisted_producers)})"
                if u.blacklisted_producers
                else ""
            )
            print(f"  - {u.key}: {u.reason}{extra}")
    return 1 if result.found else 0


def _visualize(name: str, result: PlanResult, fmt: str, as_json: bool) -> int:
    from goap.runtime import plan_to_dot, plan_to_gantt, plan_to_mermaid, plan_to_text

    if fmt == "gantt":
        if result.schedule is None:
            print(
                "this plan has no schedule (use a strategy that schedules, e.g. csp-pipeline)",
                file=sys.stderr,
            )
            return 2
        text = plan_to_gantt(result, title=name)
    elif fmt == "dot":
        text = plan_to_dot(result, name=name)
    elif fmt == "text":
        text = plan_to_text(result)
    else:
        text = plan_to_mermaid(result)
    if as_json:
        print(json.dumps({"problem": name, "status": result.status, "format": fmt, "text": text}, indent=1))
    else:
        print(text, end="")
    return 0 if result.found else 1


def _actions(target: str, as_json: bool) -> int:
    from goap.planning import ActionSpec

    try:
        acts = _load_actions(target, ActionSpec)
    except _ActionsError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    rows = [_action_doc(a) for a in acts]
    if as_json:
        print(json.dumps({"actions": rows}, indent=1))
        return 0
    for r in rows:
        extras = [k for k in ("qos", "guards", "approval") if r.get(k)]
        print(f"{r['name']}  cost={r['cost']}" + (f"  [{', '.join(extras)}]" if extras else ""))
        print(f"    needs:   {r['preconditions'] or '-'}")
        print(f"    effects: {r['effects'] or '-'}")
    return 0


class _ActionsError(Exception):
    """Why `goap actions TARGET` found no list of actions: one line naming the target."""


def _load_actions(target: str, action_type: type[Any]) -> list[Any]:
    """The actions TARGET names (a list or other iterable of ActionSpec, one ActionSpec, or a
    function returning either); `_ActionsError` naming the target and what it held instead."""
    import importlib

    module_name, _, attr = target.partition(":")
    if not module_name:
        raise _ActionsError(
            f"cannot load {target!r}: no module (give MODULE:NAME, e.g. examples.release:actions)"
        )
    try:
        obj: Any = getattr(importlib.import_module(module_name), attr or "ACTIONS")
    except Exception as exc:  # any error of the user's module at import: one line, not a traceback
        raise _ActionsError(
            f"cannot load {target!r}: {type(exc).__name__}: {exc} (give MODULE:NAME, e.g. examples.release:actions)"
        ) from None
    if callable(obj) and not isinstance(obj, action_type):
        try:
            obj = obj()
        except Exception as exc:
            raise _ActionsError(f"{target!r} raised {type(exc).__name__}: {exc}") from None
        if not isinstance(obj, action_type) and (
            isinstance(obj, str | bytes) or not hasattr(obj, "__iter__")
        ):
            raise _ActionsError(f"{target!r} returned {type(obj).__name__}, not a list of ActionSpec")
    if isinstance(obj, action_type):
        return [obj]
    # A string is iterable (its characters): name it rather than complain about item 0.
    if isinstance(obj, str | bytes | dict) or not hasattr(obj, "__iter__"):
        raise _ActionsError(
            f"{target!r} is a {type(obj).__name__} ({obj!r:.40}), not a list of ActionSpec "
            "(or a function returning one)"
        )
    try:
        acts = list(obj)
    except Exception as exc:
        raise _ActionsError(f"{target!r}: iterating it raised {type(exc).__name__}: {exc}") from None
    for i, a in enumerate(acts):
        if not isinstance(a, action_type):
            raise _ActionsError(
                f"{target!r}: item {i} is a {type(a).__name__} ({a!r:.40}), not an ActionSpec"
            )
    return acts


def _action_doc(a: Any) -> dict[str, Any]:
    from goap.planning import Add, condition_to_json

    qos = a.qos
    return {
        "name": a.name,
        "preconditions": {k: condition_to_json(v) for k, v in a.preconditions.items()},
        "effects": {k: {"add": v.amount} if isinstance(v, Add) else v for k, v in a.effects.items()},
        "cost": "f(state)" if a.has_cost_function else a.cost,
        "qos": None
        if qos is None
        else {
            "attempts": qos.attempts,
            "idempotent": qos.idempotent,
            "read_only": qos.read_only,
            "can_rerun": qos.can_rerun,
        },
        "guards": [g.name for g in a.guards],
        "approval": a.approval.__name__ if a.approval is not None else None,
    }


async def _history(where: str, run_id: str, as_json: bool) -> int:
    """``where`` is a store URL (what every graphengine command takes) or a SQLite file's path."""
    from goap.runtime import GoapState, plan_history
    from graphengine import Engine, GraphError
    from graphengine.store import SQLiteStore, Store, StoreError, open_store

    try:
        store: Store = open_store(where, create=False) if "://" in where else SQLiteStore(where)
        try:
            # Reading a run's state needs no nodes: an engine over GoapState and the store is enough.
            engine: Engine[GoapState] = Engine(GoapState, store=store)
            versions = await plan_history(engine, run_id)
        finally:
            await store.close()
    except (GraphError, StoreError, ValueError) as exc:
        # not a store, a run of another graph, a damaged record: one line naming the store, no traceback
        print(f"history: {where}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if as_json:
        print(
            json.dumps({"run_id": run_id, "plans": [v.model_dump(mode="json") for v in versions]}, indent=1)
        )
        return 0
    for v in versions:
        cost = "-" if v.cost is None else f"{v.cost:g}"
        change = "" if v.cost_change is None else f" ({v.cost_change:+g})"
        print(
            f"v{v.version} step {v.step} [{v.trigger}] {v.status} cost {cost}{change}: {' -> '.join(v.plan)}"
        )
        if v.detail:
            print(f"    why: {v.detail}")
        if v.version > 1 and (v.added or v.removed):
            print(f"    added {v.added} removed {v.removed}")
        secs = v.solver.get("seconds")
        print(
            f"    solver: {v.solver.get('strategy')} seed={v.solver.get('seed')}"
            + (f" {secs:.4f}s" if secs is not None else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
