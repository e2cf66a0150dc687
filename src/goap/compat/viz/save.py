"""Writing a rendered LangGOAP plan to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goap.compat.viz.ascii import render_ascii
from goap.compat.viz.dot import render_dot
from goap.compat.viz.mermaid import render_mermaid

__all__ = ["save_plan"]


def save_plan(plan: Any, path: str | Path, *, format: str | None = None, **options: bool) -> Path:
    """Write ``plan`` as Mermaid (.mmd), DOT (.dot, .gv) or ASCII, by ``format`` or the suffix."""
    dest = Path(path)
    fmt = format or {".mmd": "mermaid", ".mermaid": "mermaid", ".dot": "dot", ".gv": "dot"}.get(
        dest.suffix.lower()
    )
    dest.write_text(
        {"mermaid": render_mermaid, "dot": render_dot}.get(fmt or "", render_ascii)(plan, **options)
    )
    return dest
