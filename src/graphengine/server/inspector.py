"""The run inspector: a web page served by `create_app`, and the graph drawings it shows.

The page (`inspector_html`) is one HTML document with its CSS and JavaScript inline: no build
step, no CDN, nothing fetched but this server's own API. It lists the runs; for a run it draws
the graph with the visited path and the current node highlighted, shows the step timeline
(node, route, attempt, time, error, bytes per field), the state at any step with the step's
changes as a field-by-field diff, the interrupt payload with a form that resumes the run with
an answer, and follows a live run over Server-Sent Events.

Drawing the graph: Mermaid's renderer is JavaScript loaded from a CDN, which these machines
(and many production networks) cannot reach, so the page never draws Mermaid. The server
renders SVG instead: with Graphviz's `dot` when it is installed (the drawing
`graphengine render` makes, `to_dot` with the run's path), else with a small built-in layered
layout (`simple_svg`: nodes in rows by distance from the start, taken edges green, the
current node outlined orange, failed nodes red). The DOT and Mermaid texts are offered on the
page for copying either way.
"""

from __future__ import annotations

import asyncio
import html
import shutil
import subprocess
from collections import deque
from typing import TYPE_CHECKING, Any

from ..viz import END, START, RunPath, edge_list, to_dot
from .page import PAGE

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["graph_json", "graph_svg", "inspector_html", "simple_svg"]

_TAKEN = "#1a7f37"
_VISITED = "#d3f5d3"
_FAILED = "#f9c9c9"
_CURRENT = "#e08a00"
_IDLE = "#9a9a9a"
_FANOUT = "#1f5fbf"
_ERROR = "#c0392b"


def inspector_html(title: str) -> str:
    """The inspector page, titled `title`."""
    return PAGE.replace("__TITLE__", html.escape(title))


def graph_json(engine: Engine[Any], path: RunPath | None) -> dict[str, Any]:
    """The graph as JSON data (see `GraphInfo`), with the marks of `path` when given."""
    spec = engine.spec()
    nodes = [
        {
            "id": info.id,
            "interrupt_before": info.interrupt_before,
            "visits": path.visits.get(info.id, 0) if path else 0,
            "failed": bool(path and info.id in path.failed),
            "current": bool(path and path.current == info.id),
        }
        for info in spec.nodes
    ]
    edges = [
        {
            "src": e.src,
            "dst": e.dst,
            "kind": e.kind,
            "label": e.label,
            "taken": path.edges.get((e.src, e.dst), 0) if path else 0,
        }
        for e in edge_list(spec, path)
    ]
    return {
        "start": spec.start,
        "fingerprint": engine.fingerprint,
        "nodes": nodes,
        "edges": edges,
        "run_id": path.run_id if path else None,
        "status": path.status if path else None,
    }


async def graph_svg(engine: Engine[Any], path: RunPath | None, *, layout: str = "auto") -> str:
    """The graph as an SVG document: Graphviz's drawing when `dot` is installed, else `simple_svg`.

    `layout="graphviz"` insists on Graphviz (falling back only if it is missing or fails),
    `"simple"` always uses the built-in layout. `dot` runs in a thread, never on the event loop.
    """
    dot = shutil.which("dot") if layout != "simple" else None
    if dot is not None:
        text = to_dot(engine, highlight=path)
        svg = await asyncio.to_thread(_run_dot, dot, text)
        if svg is not None:
            return svg
    return simple_svg(engine, path)


def _run_dot(dot: str, text: str) -> str | None:
    try:
        proc = subprocess.run(  # noqa: S603 (fixed argv, no shell)
            [dot, "-Tsvg"], input=text.encode(), capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    svg = proc.stdout.decode("utf-8", errors="replace")
    # Inline-able: drop the XML prolog and DOCTYPE, keep the <svg> element.
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else None


def _layers(engine: Engine[Any], path: RunPath | None) -> tuple[list[list[str]], list[Any]]:
    spec = engine.spec()
    edges = edge_list(spec, path)
    out: dict[str, list[str]] = {}
    for e in edges:
        out.setdefault(e.src, []).append(e.dst)
    depth: dict[str, int] = {START: 0}
    queue = deque([START])
    while queue:
        n = queue.popleft()
        for m in out.get(n, []):
            if m not in depth and m != END:
                depth[m] = depth[n] + 1
                queue.append(m)
    for n in spec.node_ids:  # unreachable from the start (error handlers only...)
        depth.setdefault(n, max(depth.values()) + 1)
    depth[END] = max(depth.values()) + 1
    rows: list[list[str]] = [[] for _ in range(max(depth.values()) + 1)]
    order = [START, *spec.node_ids, END]
    for n in order:
        rows[depth[n]].append(n)
    return rows, edges


def _esc(s: str) -> str:
    return html.escape(s, quote=True)


_BOX_H, _GAP_Y, _GAP_X = 34, 64, 36
"""A node box's height, and the gaps between rows and between the boxes of a row (pixels)."""


def simple_svg(engine: Engine[Any], path: RunPath | None = None) -> str:
    """The graph drawn by a small layered layout, with `path` marked (no Graphviz needed).

    Nodes sit in rows by breadth-first distance from the start; edges going down are straight,
    edges going back up or sideways are curves on the right. Taken edges are green and thick
    (with a count above one), edges a run never took grey, visited nodes filled green, failed
    ones red, the node a paused or failed run is at outlined orange.
    """
    rows, edges = _layers(engine, path)
    spec = engine.spec()
    before = {n.id for n in spec.nodes if n.interrupt_before}
    widths = {n: max(90, 9 * len(_node_text(n, path)) + 24) for n in spec.node_ids}
    widths[START] = widths[END] = 18
    row_w = [sum(widths[n] for n in r) + _GAP_X * (len(r) - 1) for r in rows]
    width = max([*row_w, 200]) + 160
    pos: dict[str, tuple[float, float]] = {}
    for i, r in enumerate(rows):
        x = (width - 120 - row_w[i]) / 2
        for n in r:
            pos[n] = (x + widths[n] / 2, 30 + i * (_BOX_H + _GAP_Y))
            x += widths[n] + _GAP_X
    height = 30 + len(rows) * (_BOX_H + _GAP_Y)
    parts = _svg_head(width, height)
    for e in edges:
        parts.extend(_svg_edge(e, pos, widths, path))
    for n, (x, y) in pos.items():
        parts.append(_svg_node(n, x, y, widths[n], path, n in before))
    parts.append("</svg>")
    return "\n".join(parts)


def _svg_head(width: float, height: float) -> list[str]:
    """The opening of the drawing: the `<svg>` element and the arrow heads of each edge colour."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="13">',
        "<defs>",
        *(
            f'<marker id="arrow-{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
            for k, c in (
                ("taken", _TAKEN),
                ("idle", _IDLE),
                ("plain", "#333"),
                ("error", _ERROR),
                ("fan", _FANOUT),
            )
        ),
        "</defs>",
    ]


def _half_h(n: str) -> float:
    return 9 if n in (START, END) else _BOX_H / 2


def _svg_edge(
    e: Any, pos: dict[str, tuple[float, float]], widths: dict[str, int], path: RunPath | None
) -> list[str]:
    """One edge: its path (straight down, or a curve out to the right), and its label if any."""
    (x1, y1), (x2, y2) = pos[e.src], pos[e.dst]
    taken = path.edges.get((e.src, e.dst), 0) if path else 0
    if path is not None:
        color, marker = (_TAKEN, "taken") if taken else (_IDLE, "idle")
    elif e.kind == "error":
        color, marker = _ERROR, "error"
    elif e.kind in ("fanout", "join"):
        color, marker = _FANOUT, "fan"
    else:
        color, marker = "#333", "plain"
    dash = ' stroke-dasharray="5,4"' if e.kind in ("error", "end", "dynamic") else ""
    sw = 3 if taken else (2 if e.kind in ("fanout", "join") else 1.3)
    label = e.label + (f" x{taken}" if taken > 1 else "")
    if y2 > y1:
        sy, ey = y1 + _half_h(e.src), y2 - _half_h(e.dst) - 2
        d = f"M{x1:.1f},{sy:.1f} L{x2:.1f},{ey:.1f}"
        lx, ly = (x1 + x2) / 2 + 6, (sy + ey) / 2
    else:  # back or sideways: a curve out to the right
        off = max(widths.get(e.src, 18), widths.get(e.dst, 18)) / 2 + 40
        sx, ex = x1 + widths.get(e.src, 18) / 2, x2 + widths.get(e.dst, 18) / 2 + 2
        cx = max(sx, ex) + off
        d = f"M{sx:.1f},{y1:.1f} C{cx:.1f},{y1:.1f} {cx:.1f},{y2:.1f} {ex:.1f},{y2:.1f}"
        lx, ly = cx - 8, (y1 + y2) / 2
    out = [
        f'<path class="edge" data-src="{_esc(e.src)}" data-dst="{_esc(e.dst)}" d="{d}" fill="none" '
        f'stroke="{color}" stroke-width="{sw}"{dash} marker-end="url(#arrow-{marker})"/>'
    ]
    if label:
        out.append(f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="11" fill="{color}">{_esc(label)}</text>')
    return out


def _svg_node(n: str, x: float, y: float, w: float, path: RunPath | None, before: bool) -> str:
    """One node: the start and end circles, or a box coloured by what the run did there."""
    if n == START:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="8" fill="#000"><title>start</title></circle>'
    if n == END:
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="9" fill="none" stroke="#000"/>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="#000"><title>end</title></circle>'
        )
    fill, stroke, sw = "#fff", "#333", 1.3
    if path is not None:
        if n in path.failed:
            fill = _FAILED
        elif path.visits.get(n):
            fill = _VISITED
    if before:
        stroke, sw = _CURRENT, 2
    if path is not None and path.current == n:
        stroke, sw = _CURRENT, 3.5
    return (
        f'<g class="node" data-node="{_esc(n)}"><rect x="{x - w / 2:.1f}" y="{y - _BOX_H / 2:.1f}" '
        f'width="{w:.1f}" height="{_BOX_H}" rx="8" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>'
        f'<text x="{x:.1f}" y="{y + 4.5:.1f}" text-anchor="middle">{_esc(_node_text(n, path))}</text>'
        f"<title>{_esc(n)}</title></g>"
    )


def _node_text(n: str, path: RunPath | None) -> str:
    k = path.visits.get(n, 0) if path else 0
    return f"{n} x{k}" if k > 1 else n
