"""The HTTP API and a graph that changed since a run started: refused with 409, or taken with `?allow_graph_change=true`.

A script's functions (`__main__.work`) and the served module's (`app.work`) name the same graph,
so a run a script started is served as unchanged.
"""

from __future__ import annotations

import types
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
httpx = pytest.importorskip("httpx")

from pydantic import BaseModel  # noqa: E402

from graphengine import Engine, NodeResult  # noqa: E402
from graphengine.server import create_app  # noqa: E402
from graphengine.store import MemoryStore, Store  # noqa: E402


class S(BaseModel):
    """A counter."""

    n: int = 0


APP = """
def work(ctx, s):
    return NodeResult(delta=S(n=s.n + 1))

def ask(ctx, s):
    return NodeResult(delta=S(n=s.n + int(ctx.interrupt("how many?"))))
"""


def build(module_name: str, store: Store, *, extra: bool = False) -> Engine[S]:
    """work -> ask (an interrupt), from the app's source loaded as `module_name`; `extra` adds a node."""
    m = types.ModuleType(module_name)
    m.__dict__.update(NodeResult=NodeResult, S=S)
    exec(APP, m.__dict__)  # a literal of this test, standing in for a script file
    g = Engine(S, store=store)
    g.add("work", m.work).add("ask", m.ask).start_at("work").connect("work", "ask")
    if extra:
        g.add("extra", m.work).connect("ask", "extra")
    return g


@asynccontextmanager
async def client(engine: Engine[S]) -> AsyncIterator[httpx.AsyncClient]:
    """A client on the app of `engine`, its lifespan running."""
    app = create_app(engine)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c,
    ):
        yield c


async def test_a_run_started_by_a_script_is_served_as_unchanged() -> None:
    """A run whose nodes were `__main__` functions is not `graph_changed` for the served `app`, and resumes."""
    store = MemoryStore()
    await build("__main__", store).run("r1", S())
    async with client(build("app", store)) as c:
        assert (await c.get("/api/runs/r1")).json()["graph_changed"] is False
        r = await c.post("/api/runs/r1/resume?wait=true", json={"input": 2})
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "done" and r.json()["state"] == {"n": 3}


async def test_a_changed_graph_is_409_unless_allowed_per_request() -> None:
    """resume and replay of a run of a changed graph are 409 naming the parameter, and go on with it."""
    store = MemoryStore()
    await build("app", store).run("r1", S())
    async with client(build("app", store, extra=True)) as c:
        assert (await c.get("/api/runs/r1")).json()["graph_changed"] is True
        refused = await c.post("/api/runs/r1/resume?wait=true", json={"input": 2})
        assert refused.status_code == 409
        assert "node 'extra' added" in refused.json()["detail"]
        assert "?allow_graph_change=true" in refused.json()["detail"]
        assert (await c.post("/api/runs/r1/replay")).status_code == 409
        r = await c.post("/api/runs/r1/resume?wait=true&allow_graph_change=true", json={"input": 2})
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "done" and r.json()["state"] == {"n": 4}  # extra ran after ask
        rep: Any = await c.post("/api/runs/r1/replay?allow_graph_change=true")
        assert rep.status_code == 200 and rep.json()["ok"] is True, rep.text
