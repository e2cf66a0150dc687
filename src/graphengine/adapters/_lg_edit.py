"""LangGraph's `update_state` for an adapted graph: the edit made by LangGraph's own code.

What an edit "as node X" means in LangGraph (which node it acts as when none is named, X's
writers turning the values into channel writes, the edges they trigger, the versions they bump)
is LangGraph's: the adapter hands the run's current checkpoint to LangGraph's `update_state` on a
throwaway in-memory checkpointer, and takes back the checkpoint it writes. The engine then
records it as one `update_state` step of the run (`Engine.update_state`).
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel._algo import increment

from ._lg_superstep import Live, Pregelish, decode, encode

__all__ = ["edited"]


class _Saver(InMemorySaver):
    """LangGraph's in-memory saver with the integer channel versions the adapter's checkpoints have."""

    def get_next_version(self, current: Any, channel: None = None) -> Any:
        """The version after `current`, as the adapter's supersteps number them."""
        return increment(current, channel)


async def edited(pregel: Pregelish, run_id: str, live: Live, values: Any, as_node: str | None) -> Live:
    """`live` after LangGraph's `update_state(values, as_node=as_node)`: its channels a step on,
    with a fresh recursion limit for the call that goes on from it (as LangGraph's next invoke)."""
    saver = _Saver()
    config: Any = {"configurable": {"thread_id": run_id, "checkpoint_ns": ""}}
    cp = decode(pregel.snapshot(live))
    meta: Any = {"source": "loop", "step": live.step - 1, "parents": {}}
    config = await saver.aput(config, cp, meta, dict(cp["channel_versions"]))
    graph = pregel.graph.copy(update={"checkpointer": saver})
    after = await graph.aupdate_state(config, values, as_node=as_node)
    tup = await saver.aget_tuple(after)
    assert tup is not None  # update_state just wrote it
    out = pregel.restore(live.token, encode(tup.checkpoint), live.step + 1, 0, "")
    out.stop = out.step + pregel.limit
    return out
