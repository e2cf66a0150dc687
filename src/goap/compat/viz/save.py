"""Writing a rendered LangGOAP plan to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goap.compat.viz.ascii import render_ascii
from goap.compat.viz.dot import render_dot
from goap.compat.viz.mermaid import render_mermaid

__all__ = ["save_plan"]

_BY_SUFFIX = {".mmd": "mermaid", ".mermaid": "mermaid", ".dot": "dot", ".gv": "dot"}


def save_plan(
    plan: Any,
    path: str | Path,
    *,
    format: str | None = None,
    show_resources: bool = True,
    show_schedule: bool = True,
) -> Path:
    """Write ``plan`` as Mermaid, DOT or ASCII (by ``format``, else the suffix) and return the path."""
    dest = Path(path)
    kind = format or _BY_SUFFIX.get(dest.suffix.lower(), "ascii")
    render = {"mermaid": render_mermaid, "dot": render_dot}.get(kind, render_ascii)
    dest.write_text(
        render(plan, show_resources=show_resources, show_schedule=show_schedule), encoding="utf-8"
    )
    return dest
