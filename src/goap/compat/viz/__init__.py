"""Plan visualization utilities.

Pure-Python renderers for :class:`~goap.compat.planner.types.Plan` objects.
Produces Mermaid ``flowchart TD`` diagrams, Graphviz DOT graphs, ASCII
tree layouts, and schedule Gantt charts.

Design notes:

* Every renderer returns a plain ``str``.  No IPython coupling happens in
  the renderer modules themselves — the display-aware wrapper lives in
  :mod:`goap.compat.viz.jupyter`.
* Dependency edges come from :func:`goap.compat.planner.csp.build_dependency_graph`
  so what the visualizer draws is exactly what the scheduler sees.
* Schedule overlays and resource bars are rendered only when the plan
  carries :class:`~goap.compat.planner.csp.CSPMetadata`.

Ported from ``langgoap.viz`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

from goap.compat.viz.ascii import render_ascii, render_ascii_gantt
from goap.compat.viz.dot import render_dot
from goap.compat.viz.jupyter import repr_mimebundle, visualize
from goap.compat.viz.mermaid import (
    draw_gantt_png,
    draw_mermaid_png,
    render_mermaid,
    render_mermaid_gantt,
)
from goap.compat.viz.save import save_plan

__all__ = [
    "render_mermaid",
    "render_mermaid_gantt",
    "render_dot",
    "render_ascii",
    "render_ascii_gantt",
    "visualize",
    "draw_mermaid_png",
    "draw_gantt_png",
    "repr_mimebundle",
    "save_plan",
]
