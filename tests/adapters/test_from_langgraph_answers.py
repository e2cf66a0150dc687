"""An adapted LangGraph run answered with a `Command` (or any value LangGraph's serializer keeps)
gets that value in `interrupt()` live, and replays it unchanged after a reopen.

The engine records only JSON values as resume inputs (a model or dataclass would read back as a
dict), so the adapter records its answers in LangGraph's own serialized form. The oracle is
LangGraph itself, run with its in-memory checkpointer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from graphengine.adapters.langgraph import from_langgraph
from graphengine.store import SQLiteStore


class Seen(TypedDict, total=False):
    """What `interrupt()` returned: its type's name and repr."""

    kind: str
    text: str


class Answer(BaseModel):
    """A model handed back as the answer."""

    name: str = "Ada"


def asking() -> StateGraph[Any]:
    def ask(s: Seen) -> dict[str, Any]:
        got = interrupt("who?")
        return {"kind": type(got).__name__, "text": repr(got)}

    b = StateGraph(Seen)
    b.add_node("ask", ask)
    b.add_edge(START, "ask")
    return b


ANSWERS = [Answer(name="Cy"), {"nested": Answer()}, [Answer(), 2], "plain"]


@pytest.mark.parametrize("answer", ANSWERS, ids=["model", "nested model", "model in list", "str"])
async def test_a_command_answer_reaches_interrupt_as_langgraph_gives_it_and_replays(
    answer: Any, tmp_path: Path
) -> None:
    """The node sees what LangGraph's own run sees; a second process replays the run without divergence."""
    native = asking().compile(checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": "t"}}
    native.invoke({}, cfg)
    expected = native.invoke(Command(resume=answer), cfg)
    db = tmp_path / "lg.db"
    async with SQLiteStore(db) as store:
        g = from_langgraph(asking(), store=store)
        await g.run("r", {})
        assert await g.resume("r", input=Command(resume=answer)) == expected
    async with SQLiteStore(db) as store:
        report = await from_langgraph(asking(), store=store).engine.replay("r")
        assert report.ok, str(report)
