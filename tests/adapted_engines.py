"""Engines the LangGraph adapter's tests compile with `to_langgraph`: a conditional loop and a graph
of interrupts over a state with per-field reducers. No tests live here."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, Options, append, interrupt


class F(BaseModel):
    """State for flow tests: a log with an append reducer, a sum, a plain field."""

    log: Annotated[list[str], append] = []
    total: Annotated[int, operator.add] = 0
    item: int = 0
    last_error: str = ""


def tag(name: str) -> Callable[[Context, F], NodeResult[F]]:
    """A node appending its name."""

    def fn(ctx: Context, s: F) -> NodeResult[F]:
        return NodeResult(delta=F(log=[name]))

    fn.__qualname__ = f"tag_{name}"
    return fn


def conditional_engine() -> Engine[F]:
    """start -> (total < 3: add) | (otherwise: done); add -> start."""
    g = Engine(F, options=Options(max_steps=50))
    g.add("start", tag("start"))
    g.add("add", lambda ctx, s: NodeResult(delta=F(total=1, log=["add"])))
    g.add("done", tag("done"))
    g.start_at("start")
    g.connect("start", "add", when=lambda s: s.total < 3)
    g.connect("start", "done")
    g.connect("add", "start")
    return g


def interrupt_engine() -> Engine[F]:
    """ask interrupts (after logging), then logs the answer; confirm uses ctx.interrupt; gate pauses before."""
    g = Engine(F)

    def ask(ctx: Context, s: F) -> NodeResult[F]:
        if not ctx.resumed:
            return NodeResult(delta=F(log=["asked"]), route=interrupt({"q": "name?"}))
        return NodeResult(delta=F(log=[f"answer={ctx.resume_input}"]))

    def confirm(ctx: Context, s: F) -> NodeResult[F]:
        ok = ctx.interrupt("sure?")
        return NodeResult(delta=F(log=[f"confirm={ok}"]))

    g.add("ask", ask)
    g.add("confirm", confirm)
    g.add("gate", lambda ctx, s: NodeResult(delta=F(log=[f"gate={ctx.resume_input}"])), interrupt_before=True)
    g.start_at("ask")
    g.connect("ask", "confirm")
    g.connect("confirm", "gate")
    return g
