"""Signals and waiting runs over the HTTP API: POST/GET /api/runs/{id}/signals, `wait` in a run's detail."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
httpx = pytest.importorskip("httpx")

from pydantic import BaseModel  # noqa: E402

from graphengine import Context, Engine, NodeResult, TimerWaker, stop  # noqa: E402
from graphengine.server import create_app  # noqa: E402
from graphengine.store import MemoryStore  # noqa: E402


class Hook(BaseModel):
    """What the webhook graph received."""

    got: str = ""


async def hook(ctx: Context, s: Hook) -> NodeResult[Hook]:
    sig = await ctx.wait_for("paid", timeout=3600)
    return NodeResult(delta=Hook(got=str(sig.payload["amount"])), route=stop())


@pytest.fixture
async def client() -> AsyncIterator[tuple[Engine[Hook], httpx.AsyncClient]]:
    """An app whose graph waits for the signal `paid`, over a MemoryStore, and a client on it."""
    eng = Engine(Hook, store=MemoryStore()).add("hook", hook).start_at("hook")
    app = create_app(eng)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c,
    ):
        yield eng, c


async def test_a_waiting_run_says_what_it_waits_for(client: Any) -> None:
    """A run waiting in `ctx.wait_for` is `waiting`, and its detail names the signal and the deadline."""
    _, c = client
    r = await c.post("/api/runs?wait=true", json={"run_id": "order-1", "state": {}})
    d = r.json()
    assert d["status"] == "waiting"
    assert d["wait"]["signal"] == "paid" and d["wait"]["until"] > 0
    assert (await c.get("/api/runs?status=waiting")).json()[0]["run_id"] == "order-1"


async def test_posting_a_signal_stores_it_once_and_wakes_the_run(client: Any) -> None:
    """POST a signal twice with one id: 201 with the same signal; the woken run gets its payload."""
    eng, c = client
    await c.post("/api/runs?wait=true", json={"run_id": "order-1", "state": {}})
    body = {"name": "paid", "payload": {"amount": 42}, "id": "evt_1"}
    first = await c.post("/api/runs/order-1/signals", json=body)
    assert first.status_code == 201, first.text
    again = await c.post("/api/runs/order-1/signals", json={**body, "payload": {"amount": 0}})
    assert again.json() == first.json()
    sched = TimerWaker(eng)
    assert await sched.tick() == ["order-1"]
    await sched.drain()
    d = (await c.get("/api/runs/order-1")).json()
    assert d["status"] == "done" and d["state"]["got"] == "42"
    sigs = (await c.get("/api/runs/order-1/signals")).json()
    assert [(g["id"], g["payload"], g["taken_step"]) for g in sigs] == [("evt_1", {"amount": 42}, 2)]


async def test_a_signal_to_an_unknown_run_is_404_and_to_a_done_run_409(client: Any) -> None:
    """Signals are refused for a run that does not exist (404) and for one that is done (409)."""
    _, c = client
    r = await c.post("/api/runs/nope/signals", json={"name": "paid"})
    assert r.status_code == 404 and "nope" in r.json()["detail"]
    await c.post("/api/runs?wait=true", json={"run_id": "order-1", "state": {}})
    await c.post("/api/runs/order-1/signals", json={"name": "paid", "payload": {"amount": 1}})
    await c.post("/api/runs/order-1/resume?wait=true")
    r = await c.post("/api/runs/order-1/signals", json={"name": "paid", "payload": {"amount": 2}})
    assert r.status_code == 409 and "done" in r.json()["detail"]


async def test_a_signal_body_without_a_name_is_422(client: Any) -> None:
    """A signal needs a name: an empty or missing one is refused with 422."""
    _, c = client
    await c.post("/api/runs?wait=true", json={"run_id": "order-1", "state": {}})
    assert (await c.post("/api/runs/order-1/signals", json={"payload": 1})).status_code == 422
    assert (await c.post("/api/runs/order-1/signals", json={"name": ""})).status_code == 422
