"""Type-checked by mypy (`make typecheck`), never run: the schedule API keeps its types."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import assert_type

from pydantic import BaseModel

from graphengine import CronExpr, Engine, Overlap, Schedule, Scheduler
from graphengine.store import MemoryStore


class S(BaseModel):
    n: int = 0


async def check() -> None:
    g: Engine[S] = Engine(S, store=MemoryStore())
    s = await g.schedule("nightly", cron="0 3 * * *", input=S(), overlap=Overlap.SKIP)
    assert_type(s, Schedule)
    assert_type(await g.schedules(), list[Schedule])
    assert_type(await g.delete_schedule("nightly"), bool)
    assert_type(s.next_fire, datetime)
    assert_type(s.every, timedelta | None)
    sch = Scheduler(g, clock=lambda: 0.0)
    assert_type(sch, Scheduler[S])
    assert_type(await sch.tick(), list[str])
    assert_type(CronExpr.parse("@daily").next_after(datetime.now(UTC)), datetime)
    await g.schedule("x", cron=3, input=S())  # type: ignore[arg-type]
