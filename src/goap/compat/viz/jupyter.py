"""Rich display of LangGOAP plans in notebooks (IPython looked up at call time)."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from goap.compat.viz.ascii import render_ascii, render_ascii_gantt
from goap.compat.viz.dot import render_dot
from goap.compat.viz.mermaid import draw_mermaid_png, render_mermaid, render_mermaid_gantt

__all__ = ["repr_mimebundle", "visualize"]


def _ipython_available() -> bool:
    return importlib.util.find_spec("IPython") is not None


def _display(source: str, kind: str) -> Any:
    """Under IPython: Mermaid as Markdown, DOT as a PNG Image when graphviz draws it; else the text."""
    if not _ipython_available():
        return source
    display = importlib.import_module("IPython.display")
    try:
        if kind == "mermaid":
            return display.Markdown(f"```mermaid\n{source}\n```")
        return display.Image(importlib.import_module("graphviz").Source(source).pipe(format="png"))
    except Exception:  # no graphviz package or binary
        return source


def visualize(
    plan: Any, *, format: str = "auto", show_resources: bool = True, show_schedule: bool = True
) -> Any:
    """The plan as ``format`` (auto: Mermaid under IPython, else ASCII), ready for display."""
    opts = {"show_resources": show_resources, "show_schedule": show_schedule}
    fmt = ("mermaid" if _ipython_available() else "ascii") if format == "auto" else format
    if fmt in ("ascii", "ascii_gantt"):
        return render_ascii(plan, **opts) if fmt == "ascii" else render_ascii_gantt(plan)
    if fmt in ("mermaid", "gantt"):
        return _display(
            render_mermaid(plan, **opts) if fmt == "mermaid" else render_mermaid_gantt(plan), "mermaid"
        )
    if fmt == "dot":
        return _display(render_dot(plan, **opts), "dot")
    raise ValueError(f"Unknown visualization format: {format!r}")


def repr_mimebundle(plan: Any, **_: Any) -> dict[str, Any]:
    """Jupyter's MIME bundle: the repr and the flowchart as PNG."""
    return {"text/plain": repr(plan), "image/png": draw_mermaid_png(plan)}
