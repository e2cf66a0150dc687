"""A small graph for schedule tests: a run holds (interrupted, so still waiting) while `hold` is set."""

from __future__ import annotations

import time

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult
from graphengine.store import Store


class Job(BaseModel):
    """The state of a scheduled run."""

    hold: bool = False
    answer: str | None = None


def work(ctx: Context, s: Job) -> NodeResult[Job]:
    """Wait for an answer when told to hold (the run stays `interrupted`), else finish at once."""
    if s.hold:
        return NodeResult(delta=Job(answer=str(ctx.interrupt("go?"))))
    return NodeResult(delta=Job(answer="done"))


def build(store: Store) -> Engine[Job]:
    """The engine: one node."""
    g: Engine[Job] = Engine(Job, store=store)
    g.add("work", work)
    g.start_at("work")
    return g


class Clock:
    """A clock the test moves by hand (seconds since the epoch), starting at a whole minute."""

    def __init__(self) -> None:
        self.t = float(int(time.time()) // 60 * 60 + 60)

    def __call__(self) -> float:
        return self.t
