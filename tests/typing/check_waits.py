"""Typed surface of durable waits, checked by mypy --strict (never run): `ctx.sleep`, `ctx.wait_for`,
`sleep_until`, `Engine.signal`/`signals`, `TimerWaker`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import assert_type

from pydantic import BaseModel

from graphengine import Context, Engine, Next, NodeResult, Signal, TimerWaker, sleep_until


class S(BaseModel):
    n: int = 0


async def node(ctx: Context, s: S) -> NodeResult[S]:
    await ctx.sleep(timedelta(hours=1))
    sig = await ctx.wait_for("paid", timeout=60)
    assert_type(sig, Signal)
    assert_type(sig.taken_step, int | None)
    assert_type(sleep_until(datetime.now(UTC), then="b"), Next)
    await ctx.wait_for(3)  # type: ignore[arg-type]
    return NodeResult()


async def outside(engine: Engine[S]) -> None:
    assert_type(await engine.signal("r1", "paid", {"amount": 1}, id="evt_1"), Signal)
    assert_type(await engine.signals("r1"), list[Signal])
    assert_type(await TimerWaker(engine).tick(), list[str])
    sleep_until(datetime.now(UTC))  # type: ignore[call-arg]
