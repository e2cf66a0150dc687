"""The form of a LangGraph comparison case: a graph factory, its `compile()` keywords and a script.

The graphs themselves live in `lg_corpus_flow`, `lg_corpus_pause` (the corpus) and
`lg_corpus_combined` (the held-out set); every one of them was written for this project, each to
exercise one LangGraph feature or a combination of them. The comparison tests run a case's
script natively on LangGraph and through graphengine's adapters; LangGraph's own results are
the expected values, so no case states what it should return.

A script is a list of calls: ("run", input) starts the thread, ("resume", value) answers a
pause. `RESUME` as the value continues without one (past a breakpoint, or a failed run); "MAP"
answers every pending interrupt by its id and "ONE" only the first of them by value.
("update", (values, as_node)) edits the thread's state as LangGraph's `update_state` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.graph import START, StateGraph

RESUME: Any = object()
"""A script's resume without a value: `invoke(None)` natively, `resume(run_id)` on the engine."""


@dataclass(frozen=True)
class Case:
    """One graph and the calls that drive it."""

    make: Callable[[], StateGraph[Any]]
    """Builds a fresh builder each time (nodes may count their calls, so a builder is never shared)."""
    script: Sequence[tuple[str, Any]]
    """("run", input), then ("resume", value or RESUME) and ("update", (values, as_node)) calls."""
    compile_kw: dict[str, Any] = field(default_factory=dict)
    """Breakpoints given to `compile()` (and to `from_langgraph`)."""
    context: Any = None
    """The run context given with every call (LangGraph's `invoke(context=...)`), if any."""


def chain(b: StateGraph[Any], *nodes: tuple[str, Any]) -> StateGraph[Any]:
    """`b` with `nodes` added in order and wired START -> first -> ... -> last."""
    prev = START
    for name, node in nodes:
        b.add_node(name, node)
        b.add_edge(prev, name)
        prev = name
    return b
