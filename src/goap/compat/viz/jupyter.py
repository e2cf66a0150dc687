"""Rich display of LangGOAP plans in notebooks (IPython looked up at call time)."""

from __future__ import annotations

import importlib
import importlib.util
import logging
from typing import Any

from goap.compat.viz.ascii import render_ascii, render_ascii_gantt
from goap.compat.viz.dot import render_dot
from goap.compat.viz.mermaid import draw_mermaid_png, render_mermaid, render_mermaid_gantt

__all__ = ["repr_mimebundle", "visualize"]

_log = logging.getLogger(__name__)


def _ipython_available() -> bool:
    return importlib.util.find_spec("IPython") is not None


def _markdown(source: str) -> Any:
    if not _ipython_available():
        return source
    return importlib.import_module("IPython.display").Markdown(f"```mermaid\n{source}\n```")


def _dot_image(source: str) -> Any:
    if not _ipython_available():
        return source
    try:
        png = importlib.import_module("graphviz").Source(source).pipe(format="png")
        return importlib.import_module("IPython.display").Image(png)
    except Exception as exc:
        _log.warning("cannot draw the DOT source (%s); returning it as text", exc)
        return source


def visualize(
    plan: Any, *, format: str = "auto", show_resources: bool = True, show_schedule: bool = True
) -> Any:
    """The plan rendered as ``format`` (auto: Mermaid in IPython, else ASCII), for display."""
    opts = {"show_resources": show_resources, "show_schedule": show_schedule}
    if format == "auto":
        format = "mermaid" if _ipython_available() else "ascii"
    if format == "ascii":
        return render_ascii(plan, **opts)
    if format == "ascii_gantt":
        return render_ascii_gantt(plan)
    if format == "mermaid":
        return _markdown(render_mermaid(plan, **opts))
    if format == "gantt":
        return _markdown(render_mermaid_gantt(plan))
    if format == "dot":
        return _dot_image(render_dot(plan, **opts))
    raise ValueError(f"Unknown visualization format: {format!r}")


def repr_mimebundle(plan: Any, **_: Any) -> dict[str, Any]:
    """Jupyter's MIME bundle: the repr and the flowchart as PNG."""
    return {"text/plain": repr(plan), "image/png": draw_mermaid_png(plan)}
