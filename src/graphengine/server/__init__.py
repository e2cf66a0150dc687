"""HTTP runtime API and run inspector for an engine (`pip install graphengine[server]`).

    from graphengine.server import create_app
    app = create_app(engine, token=token_from_env())   # any ASGI server; or: graphengine serve

Built on FastAPI (Starlette) and served by uvicorn; none of it is imported by `import
graphengine`. See `graphengine.server.app` for the routes, status codes and auth, and
`graphengine.server.inspector` for the page.
"""

from __future__ import annotations

try:
    import fastapi  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "graphengine.server needs FastAPI and uvicorn. Install them with: pip install graphengine[server]"
    ) from exc

from graphengine.exports import publish as _publish

from .app import TOKEN_ENV, RunManager, create_app, token_from_env
from .inspector import graph_json, graph_svg, simple_svg

__all__ = ["TOKEN_ENV", "RunManager", "create_app", "graph_json", "graph_svg", "simple_svg", "token_from_env"]

_publish(__name__, globals(), __all__)
