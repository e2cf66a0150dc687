"""Drives a `lg_cases.Case` script natively on LangGraph and through `from_langgraph`, for the comparison tests.

`run_native` takes the checkpointer, so the same driver compares LangGraph's `InMemorySaver`
with graphengine's `GraphEngineSaver`; `run_ours` runs the builder on the engine. Both return
one comparable value per call of the script (`norm`), an exception as ("raises", its type name).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.types import Command, Interrupt
from lg_cases import RESUME, Case
from pydantic import BaseModel

from graphengine.adapters.langgraph import from_langgraph
from graphengine.options import Options

LIMIT = 25
"""The recursion limit of every run (LangGraph's `recursion_limit`, our `Options(max_steps=)`)."""


def norm(x: Any) -> Any:
    """A value comparable across two runs: message and interrupt ids left out, interrupts as a multiset."""
    if isinstance(x, BaseMessage):
        return ("message", x.model_dump(exclude={"id"}))
    if isinstance(x, Interrupt):
        return ("interrupt", norm(x.value))
    if isinstance(x, BaseModel):
        return ("model", type(x).__name__, norm(x.model_dump()))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return ("dataclass", type(x).__name__, norm(dataclasses.asdict(x)))
    if isinstance(x, dict):
        out = {k: norm(v) for k, v in x.items()}
        if isinstance(out.get("__interrupt__"), list):
            # Parallel tasks interrupt in the order they finish, which LangGraph leaves to the
            # event loop: the interrupts are compared as a multiset.
            out["__interrupt__"] = sorted(out["__interrupt__"], key=repr)
        return out
    if isinstance(x, list | tuple):
        return [norm(v) for v in x]
    return x


def answer(value: Any, last: Any) -> Any:
    """The script's resume value; "MAP" answers every pending interrupt by its id, "ONE" the first by value."""
    if value == "MAP":
        return Command(resume={i.id: f"answer {i.value}" for i in last["__interrupt__"]})
    if value == "ONE":
        first = min(last["__interrupt__"], key=lambda i: str(i.value))
        return Command(resume={first.id: f"answer {first.value}"})
    return value


async def run_native(case: Case, checkpointer: Any, durability: Any = None) -> list[Any]:
    """The script run by LangGraph itself on `checkpointer` (`durability` as `invoke` takes it, None: its default)."""
    graph = case.make().compile(checkpointer=checkpointer, **case.compile_kw)
    config: Any = {"configurable": {"thread_id": "t"}, "recursion_limit": LIMIT}
    kw: Any = {"context": case.context, "durability": durability} if durability else {"context": case.context}
    out: list[Any] = []
    last: Any = None
    for what, value in case.script:
        try:
            if what == "update":
                await graph.aupdate_state(config, value[0], as_node=value[1])
                out.append(("updated", norm((await graph.aget_state(config)).values)))
                continue
            if what == "run":
                last = await graph.ainvoke(value, config, **kw)
            elif value is RESUME:
                last = await graph.ainvoke(None, config, **kw)
            else:
                given = answer(value, last)
                cmd = given if isinstance(given, Command) else Command(resume=given)
                last = await graph.ainvoke(cmd, config, **kw)
        except Exception as exc:
            # The script goes on: a failed run is resumed as LangGraph's `invoke(None)` resumes it.
            out.append(("raises", type(exc).__name__))
            continue
        out.append(norm(last))
    return out


async def history(case: Case, checkpointer: Any) -> list[Any]:
    """The thread's checkpoints after `run_native`, newest first: values, next nodes, pending interrupts, step."""
    graph = case.make().compile(checkpointer=checkpointer, **case.compile_kw)
    config: Any = {"configurable": {"thread_id": "t"}}
    out: list[Any] = []
    try:
        async for s in graph.aget_state_history(config):
            interrupts = sorted(repr(norm(i.value)) for t in s.tasks for i in t.interrupts)
            meta = s.metadata or {}
            out.append((norm(s.values), s.next, interrupts, meta.get("step"), meta.get("source")))
    except Exception as exc:
        # LangGraph prepares each checkpoint's next tasks, which fails where the input did not
        # validate: the failure is part of what the two checkpointers must agree on.
        out.append(("raises", type(exc).__name__))
    return out


async def run_ours(case: Case, store: Any) -> list[Any]:
    """The script run on the engine through `from_langgraph`."""
    adapted = from_langgraph(case.make(), store=store, options=Options(max_steps=LIMIT), **case.compile_kw)
    out: list[Any] = []
    last: Any = None
    for what, value in case.script:
        try:
            if what == "update":
                await adapted.update_state({"configurable": {"thread_id": "t"}}, value[0], as_node=value[1])
                out.append(("updated", norm(await adapted.values("t"))))
                continue
            if what == "run":
                last = await adapted.run("t", value, context=case.context)
            elif value is RESUME:
                last = await adapted.resume("t", context=case.context)
            else:
                last = await adapted.resume("t", input=answer(value, last), context=case.context)
        except Exception as exc:
            # The script goes on: a failed run is resumed as LangGraph's `invoke(None)` resumes it.
            out.append(("raises", type(exc).__name__))
            continue
        out.append(norm(last))
    return out
