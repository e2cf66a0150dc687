"""Drawing a graph, and a run's path through it: Graphviz DOT, Mermaid, and images through `dot`.

What is drawn (both formats):

- the start (a small filled circle) and the end (a double circle): a node with no static edge,
  or whose edges are all conditional, may stop there;
- static edges, conditional ones labelled with their predicate's name (`when=is_done` ->
  "is_done"; a lambda shows as "when");
- fan-outs as thick edges labelled "fan-out" to each branch and "join" from each branch to the
  join node;
- error routes as dashed red edges labelled "error" (`on_error(None, h)` draws one from every
  node without a route of its own);
- `interrupt_before` nodes with an orange outline and "(interrupt before)" in their label.

Routes a node returns at run time (`goto`, `fan_out`) are not known from the wiring. Drawing a
run (`highlight=await run_path(g, run_id)`) adds them: visited nodes are filled (with a visit
count when above one), taken edges are green and thick with their count, edges the run never
took are grey, a failed node is red and the node a paused or failed run is at is outlined.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphengine.store import RunStatus

from ._encoding import FAN_OUT_NODE, INPUT_NODE, UPDATE_NODE
from .errors import GraphError
from .routing import Next, NextKind

if TYPE_CHECKING:
    from ._spec import GraphSpec
    from .engine import Engine

__all__ = ["END", "START", "RenderError", "RunPath", "render", "run_path", "to_dot", "to_mermaid"]

START = "__start__"
"""Pseudo-node id of the graph's entry in drawings and `RunPath.edges`."""
END = "__end__"
"""Pseudo-node id of the graph's exit."""

_TAKEN = "#1a7f37"
_VISITED = "#d3f5d3"
_FAILED = "#f9c9c9"
_PAUSED = "#e08a00"
_IDLE = "#9a9a9a"


class RenderError(GraphError):
    """A drawing could not be rendered to an image (Graphviz missing, or `dot` failed)."""


@dataclass(frozen=True, slots=True)
class RunPath:
    """Where a run went: what `to_dot`/`to_mermaid` highlight. Build it with `run_path`."""

    run_id: str
    """The run."""
    status: str
    """The run's status (`store.RunStatus` value)."""
    visits: Mapping[str, int] = field(default_factory=dict)
    """Node id -> how many times it ran (fan-out branches included)."""
    edges: Mapping[tuple[str, str], int] = field(default_factory=dict)
    """(from, to) -> how many times the run went that way (`START`/`END` for entry and exit)."""
    failed: frozenset[str] = frozenset()
    """Nodes that failed (a routed error, or the failure that stopped the run)."""
    current: str | None = None
    """The node a paused, failed or unfinished run is at (runs next on resume), else None."""


@dataclass(frozen=True, slots=True)
class _Edge:
    src: str
    dst: str
    kind: str  # plain, cond, fanout, join, error, start, end, dynamic
    label: str = ""


def edge_list(spec: GraphSpec, path: RunPath | None) -> list[_Edge]:
    """The edges a drawing shows: start, static, fan-out/join, end, error and (with `path`) dynamic ones."""
    wiring = spec
    out: list[_Edge] = []
    seen: set[tuple[str, str, str]] = set()

    def add(src: str, dst: str, kind: str, label: str = "") -> None:
        if (src, dst, kind) not in seen:
            seen.add((src, dst, kind))
            out.append(_Edge(src, dst, kind, label))

    if wiring.start is not None:
        add(START, wiring.start, "start")
    outgoing: dict[str, list[bool]] = {n.id: [] for n in wiring.nodes}
    for e in wiring.edges:
        label = e.when or ""
        outgoing.setdefault(e.src, []).append(e.when is not None)
        if e.branches:
            for b in e.branches:
                add(e.src, b, "fanout", f"fan-out {label}".strip())
            for b in e.branches:
                add(b, e.dst, "join", "join")
        else:
            add(e.src, e.dst, "cond" if e.when is not None else "plain", label)
    for n, conds in outgoing.items():
        if not conds:
            add(n, END, "end")
        elif all(conds):
            add(n, END, "end", "otherwise")
    for n in wiring.node_ids:
        handler = wiring.handler_of(n)
        if handler is not None and handler != n:
            add(n, handler, "error", "error")
    if path is not None:
        drawn = {(e.src, e.dst) for e in out}
        for src, dst in path.edges:
            if (src, dst) not in drawn:
                add(src, dst, "dynamic")
    return out


def _dq(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _label(node: str, path: RunPath | None) -> str:
    n = path.visits.get(node, 0) if path is not None else 0
    return f"{node} x{n}" if n > 1 else node


def to_dot(engine: Engine[Any], *, highlight: RunPath | None = None, name: str = "graph") -> str:
    """The graph as Graphviz DOT text (`highlight`: a run's path to mark; see the module docstring)."""
    path = highlight
    spec = engine.spec()
    lines = [
        f"digraph {_dq(name)} {{",
        "  rankdir=TB;",
        '  node [shape=box, style="rounded", fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
        f'  {_dq(START)} [shape=circle, label="", width=0.2, style=filled, fillcolor=black];',
        f'  {_dq(END)} [shape=doublecircle, label="", width=0.15, style=filled, fillcolor=black];',
    ]
    for info in spec.nodes:
        node = info.id
        attrs = [
            f"label={_dq(_label(node, path) + (chr(10) + '(interrupt before)' if info.interrupt_before else ''))}"
        ]
        if info.interrupt_before:
            attrs += [f'color="{_PAUSED}"', "penwidth=2"]
        if path is not None:
            if node in path.failed:
                attrs.append(f'style="rounded,filled", fillcolor="{_FAILED}"')
            elif path.visits.get(node):
                attrs.append(f'style="rounded,filled", fillcolor="{_VISITED}"')
            if node == path.current:
                attrs += [f'color="{_PAUSED}"', "penwidth=3"]
        lines.append(f"  {_dq(node)} [{', '.join(attrs)}];")
    for e in edge_list(spec, path):
        attrs = []
        label = e.label
        if e.kind in ("fanout", "join"):
            attrs += ["style=bold", 'color="#1f5fbf"']
        elif e.kind == "error":
            attrs += ["style=dashed", 'color="#c0392b"', 'fontcolor="#c0392b"']
        elif e.kind == "end" or e.kind == "dynamic":
            attrs.append("style=dotted")
        if path is not None:
            n = path.edges.get((e.src, e.dst), 0)
            if n:
                attrs = [a for a in attrs if not a.startswith("color")]
                attrs += [f'color="{_TAKEN}"', "penwidth=2.5"]
                label = f"{label} x{n}".strip() if n > 1 else label
            else:
                attrs = [a for a in attrs if not a.startswith("color")] + [f'color="{_IDLE}"']
        if label:
            attrs.insert(0, f"label={_dq(label)}")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"  {_dq(e.src)} -> {_dq(e.dst)}{suffix};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _mq(s: str) -> str:
    return '"' + s.replace('"', "#quot;") + '"'


def to_mermaid(engine: Engine[Any], *, highlight: RunPath | None = None) -> str:
    """The graph as a Mermaid flowchart (`highlight`: a run's path to mark)."""
    path = highlight
    spec = engine.spec()
    ids = {n: f"n{i}" for i, n in enumerate(spec.node_ids)}
    ids[START], ids[END] = START, END
    lines = ["flowchart TD", f"    {START}(( ))", f"    {END}((( )))"]
    for info in spec.nodes:
        text = _label(info.id, path) + (" (interrupt before)" if info.interrupt_before else "")
        lines.append(f"    {ids[info.id]}[{_mq(text)}]")
    arrows = {"fanout": "==>", "join": "==>", "error": "-.->", "end": "-.->", "dynamic": "-.->"}
    taken: list[int] = []
    idle: list[int] = []
    for i, e in enumerate(edge_list(spec, path)):
        label = e.label
        if path is not None:
            n = path.edges.get((e.src, e.dst), 0)
            (taken if n else idle).append(i)
            if n > 1:
                label = f"{label} x{n}".strip()
        arrow = arrows.get(e.kind, "-->")
        mid = f"|{_mq(label)}|" if label else ""
        lines.append(f"    {ids.get(e.src, e.src)} {arrow}{mid} {ids.get(e.dst, e.dst)}")
    before = [ids[n.id] for n in spec.nodes if n.interrupt_before]
    if before:
        lines.append(f"    classDef interrupt stroke:{_PAUSED},stroke-width:2px,stroke-dasharray:4")
        lines.append(f"    class {','.join(before)} interrupt")
    if path is not None:
        visited = [ids[n] for n in spec.node_ids if path.visits.get(n) and n not in path.failed]
        failed = [ids[n] for n in spec.node_ids if n in path.failed]
        if visited:
            lines += [f"    classDef visited fill:{_VISITED}", f"    class {','.join(visited)} visited"]
        if failed:
            lines += [f"    classDef failed fill:{_FAILED}", f"    class {','.join(failed)} failed"]
        if path.current in ids:
            lines += [
                f"    classDef current stroke:{_PAUSED},stroke-width:3px",
                f"    class {ids[path.current]} current",
            ]
        if taken:
            lines.append(f"    linkStyle {','.join(map(str, taken))} stroke:{_TAKEN},stroke-width:3px")
        if idle:
            lines.append(f"    linkStyle {','.join(map(str, idle))} stroke:{_IDLE}")
    return "\n".join(lines) + "\n"


def render(
    engine: Engine[Any], out: str | Path, *, format: str | None = None, highlight: RunPath | None = None
) -> Path:
    """Write the drawing to `out`; the format comes from `format` or the file's suffix.

    `.dot`/`.gv` and `.mmd` are written as text; any other format (png, svg, pdf, ...) is made by
    Graphviz's `dot` program. Raises `RenderError` when `dot` is not installed (naming how to
    install it) or fails. Runs `dot` as a blocking subprocess: from async code, call it through
    `asyncio.to_thread`.
    """
    target = Path(out)
    fmt = (format or target.suffix.lstrip(".") or "png").lower()
    if fmt in ("dot", "gv"):
        target.write_text(to_dot(engine, highlight=highlight), encoding="utf-8")
        return target
    if fmt in ("mmd", "mermaid"):
        target.write_text(to_mermaid(engine, highlight=highlight), encoding="utf-8")
        return target
    dot = shutil.which("dot")
    if dot is None:
        raise RenderError(
            f"cannot render {str(target)!r}: Graphviz's `dot` program is not on PATH; install Graphviz "
            "(apt-get install graphviz, brew install graphviz, or https://graphviz.org/download/), "
            "or write text with to_dot()/to_mermaid()"
        )
    try:
        proc = subprocess.run(  # noqa: S603 (fixed argv, no shell)
            [dot, f"-T{fmt}", "-o", str(target)],
            input=to_dot(engine, highlight=highlight).encode(),
            capture_output=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RenderError(f"cannot render {str(target)!r}: running dot failed: {exc}") from exc
    if proc.returncode != 0:
        why = proc.stderr.decode(errors="replace").strip().splitlines()
        raise RenderError(
            f"cannot render {str(target)!r} as {fmt!r}: dot exited with {proc.returncode}"
            + (f": {why[0]}" if why else "")
        )
    return target


async def run_path(engine: Engine[Any], run_id: str) -> RunPath:
    """Where run `run_id` went, from its committed steps (`RunNotFoundError` if unknown)."""
    run = await engine.get_run(run_id)
    rt = engine.runtime()
    rt.compiled()
    steps = await engine.store.load_steps(run_id)
    visits: Counter[str] = Counter()
    edges: Counter[tuple[str, str]] = Counter()
    failed: set[str] = set()
    prev: Next = rt.start_of(run)
    if prev.kind is NextKind.GOTO:
        edges[(START, prev.target)] += 1
    current: str | None = None
    for rec in steps:
        route = rt.route(rec)
        if rec.node_id == FAN_OUT_NODE:
            srcs = [b.node for b in prev.branches]
            visits.update(srcs)
        elif rec.node_id == INPUT_NODE:
            srcs = [START]  # a new turn (`continue_run`) enters the graph at its start again
        elif rec.node_id == UPDATE_NODE:
            srcs = []  # an edit (`update_state`): no node ran and no edge was taken
        else:
            srcs = [rec.node_id]
            visits[rec.node_id] += 1
            if rec.error is not None:
                failed.add(rec.node_id)
        k = route.kind
        for src in srcs:
            if k is NextKind.GOTO:
                edges[(src, route.target)] += 1
            elif k is NextKind.STOP:
                edges[(src, END)] += 1
        if k is NextKind.FAN_OUT:
            for b in route.branches:
                edges[(rec.node_id, b.node)] += 1
        prev = route
    status = RunStatus(run.status)
    if status is RunStatus.FAILED and run.error_node:
        failed.add(run.error_node)
        current = run.error_node
    elif status is not RunStatus.DONE:
        if prev.kind is NextKind.INTERRUPT and steps:
            current = rt.interrupted(steps[-1])[0]
        elif prev.kind is NextKind.GOTO or prev.kind is NextKind.WAIT:
            current = prev.target
    return RunPath(
        run_id=run_id,
        status=str(status),
        visits=dict(visits),
        edges=dict(edges),
        failed=frozenset(failed),
        current=current,
    )
