"""``scaffold_deployment``: the files ``langgraph dev`` needs to serve a GOAP agent."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["DEFAULT_DEPENDENCIES", "scaffold_deployment"]

DEFAULT_DEPENDENCIES: tuple[str, ...] = ("graphengine[langgraph,langchain]",)
"""Always listed in ``langgraph.json``'s dependencies (the package that provides ``goap.compat``)."""

_ENTRYPOINT = '''"""LangGraph entry point (scaffold_deployment): langgraph.json serves ``graph``."""

from {module} import {attr}

graph = {attr}().compile()  # add checkpointer=... for persistent threads
'''
_ENV = "# copy to .env (read by `langgraph dev`)\nOPENAI_API_KEY=\n# LangSmith tracing\nLANGCHAIN_API_KEY=\n"
_README = """# {name}

{description}

A goap.compat GOAP agent served by LangGraph, with an MCP endpoint at `/mcp`.

1. `pip install langgraph-cli`; copy `.env.example` to `.env` and fill it in.
2. `langgraph dev` serves it at http://127.0.0.1:2024 (`langgraph deploy` for the platform).
3. Claude Desktop: add `{{"mcpServers": {{"{name}": {{"transport": {{"type": "http",
   "url": "http://127.0.0.1:2024/mcp"}}}}}}}}` to `claude_desktop_config.json`.
"""


def scaffold_deployment(
    out_dir: str | Path,
    *,
    agent_name: str,
    agent_description: str,
    graph_factory_module: str,
    graph_factory_attr: str,
    extra_dependencies: tuple[str, ...] = (),
    python_version: str = "3.12",
    force: bool = False,
) -> Path:
    """Write a LangGraph deployment for the GoapGraph factory into ``out_dir`` (returned)."""
    out = Path(out_dir)
    deps = [*DEFAULT_DEPENDENCIES, *extra_dependencies]
    config = dict(python_version=python_version, graphs={agent_name: "./graph.py:graph"}, dependencies=deps)
    files = {
        "langgraph.json": json.dumps(config | {"env": ".env"}, indent=2) + "\n",
        "graph.py": _ENTRYPOINT.format(module=graph_factory_module, attr=graph_factory_attr),
        ".env.example": _ENV,
        "README.md": _README.format(name=agent_name, description=agent_description),
    }
    taken = [n for n in files if (out / n).exists()]
    if taken and not force:
        raise FileExistsError(f"{out} already holds {', '.join(taken)}; pass force=True to overwrite")
    out.mkdir(parents=True, exist_ok=True)
    for fname, text in files.items():
        (out / fname).write_text(text, encoding="utf-8")
    return out
