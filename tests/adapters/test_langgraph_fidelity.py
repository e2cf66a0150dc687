"""LangGraph's own graphs give the same results natively and through `from_langgraph`, at every pause and at the end.

Each graph of `lg_graphs.CASES` (copied from LangGraph's tests and docs) runs natively with
LangGraph (`InMemorySaver`, the same breakpoints) and on the engine over `MemoryStore` and a
SQLite file; the values returned by every call of the script, the interrupts' values and the
errors raised must be equal. LangGraph's results are the oracle. The held-out set
(`lg_graphs_heldout.HELD_OUT`, graphs none of the corpus was tuned on) runs the same way. A
script goes on after a call that raised: the next call resumes the failed run, as LangGraph's
`invoke(None)` does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, Interrupt
from lg_graphs import CASES as FIRST
from lg_graphs import RESUME, Case
from lg_graphs_heldout import HELD_OUT
from lg_graphs_more import CASES as MORE
from pydantic import BaseModel

from graphengine.adapters.langgraph import from_langgraph
from graphengine.options import Options
from graphengine.store import MemoryStore, SQLiteStore

CASES = {**FIRST, **MORE}
"""Every graph of the corpus, by name."""

LIMIT = 25
"""The recursion limit of every run (LangGraph's `recursion_limit`, our `Options(max_steps=)`)."""


def norm(x: Any) -> Any:
    """A value comparable across the two runs: message and interrupt ids left out, interrupts as a multiset."""
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
            # Parallel tasks interrupt in the order they finish, which LangGraph leaves to the event
            # loop (one CI run saw c before b natively): the interrupts are compared as a multiset.
            out["__interrupt__"] = sorted(out["__interrupt__"], key=repr)
        return out
    if isinstance(x, list | tuple):
        return [norm(v) for v in x]
    return x


def _answer(value: Any, last: Any) -> Any:
    """The script's resume value; "MAP" answers every pending interrupt by its id, "ONE" the first by value."""
    if value == "MAP":
        return Command(resume={i.id: f"answer {i.value}" for i in last["__interrupt__"]})
    if value == "ONE":
        first = min(last["__interrupt__"], key=lambda i: str(i.value))
        return Command(resume={first.id: f"answer {first.value}"})
    return value


async def run_native(case: Case) -> list[Any]:
    """The script run by LangGraph itself."""
    graph = case.make().compile(checkpointer=InMemorySaver(), **case.compile_kw)
    config: Any = {"configurable": {"thread_id": "t"}, "recursion_limit": LIMIT}
    out: list[Any] = []
    last: Any = None
    for what, value in case.script:
        try:
            if what == "run":
                last = await graph.ainvoke(value, config, context=case.context)
            elif value is RESUME:
                last = await graph.ainvoke(None, config, context=case.context)
            else:
                answer = _answer(value, last)
                cmd = answer if isinstance(answer, Command) else Command(resume=answer)
                last = await graph.ainvoke(cmd, config, context=case.context)
        except Exception as exc:
            # The script goes on: a failed run is resumed as LangGraph's `invoke(None)` resumes it.
            out.append(("raises", type(exc).__name__))
            continue
        out.append(norm(last))
    return out


async def run_ours(case: Case, store: Any) -> list[Any]:
    """The script run on the engine through `from_langgraph`."""
    adapted = from_langgraph(case.make(), store=store, options=Options(max_steps=LIMIT), **case.compile_kw)
    out: list[Any] = []
    last: Any = None
    for what, value in case.script:
        try:
            if what == "run":
                last = await adapted.run("t", value, context=case.context)
            elif value is RESUME:
                last = await adapted.resume("t", context=case.context)
            else:
                last = await adapted.resume("t", input=_answer(value, last), context=case.context)
        except Exception as exc:
            # The script goes on: a failed run is resumed as LangGraph's `invoke(None)` resumes it.
            out.append(("raises", type(exc).__name__))
            continue
        out.append(norm(last))
    return out


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    """The engine's in-memory store and a SQLite file."""
    s = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "lg.db")
    yield s
    await s.close()


@pytest.mark.parametrize("name", sorted(CASES))
async def test_a_langgraph_graph_gives_langgraph_results_on_the_engine(name: str, store: Any) -> None:
    """Every call of the script returns what LangGraph returns (values, interrupts, errors)."""
    case = CASES[name]
    expected = await run_native(case)
    got = await run_ours(case, store)
    assert got == expected


@pytest.mark.parametrize("name", sorted(HELD_OUT))
async def test_a_held_out_langgraph_graph_gives_langgraph_results_on_the_engine(
    name: str, store: Any
) -> None:
    """The held-out graphs (`lg_graphs_heldout`), run by the same scripts, give LangGraph's results too."""
    case = HELD_OUT[name]
    expected = await run_native(case)
    got = await run_ours(case, store)
    assert got == expected


def test_the_corpus_has_at_least_25_graphs() -> None:
    """The corpus covers 25 or more graphs from LangGraph's tests and docs."""
    assert len(CASES) >= 25


def test_the_held_out_set_has_at_least_20_graphs_none_in_the_corpus() -> None:
    """The held-out set holds 20 or more graphs, none of them a corpus graph under another name."""
    assert len(HELD_OUT) >= 20
    corpus_makers = {c.make for c in CASES.values()}
    assert not [name for name, c in HELD_OUT.items() if c.make in corpus_makers]
