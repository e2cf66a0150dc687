"""LangGraph graphs give the same results natively and through `from_langgraph`, at every pause and at the end.

Each case of the corpus (`lg_corpus_flow.FLOW`, `lg_corpus_pause.PAUSE`: graphs written for
this project, one LangGraph feature each) runs natively with LangGraph (`InMemorySaver`, the
same breakpoints) and on the engine over `MemoryStore` and a SQLite file; the values returned by
every call of the script, the interrupts' values and the errors raised must be equal. LangGraph's
results are the oracle. The held-out set (`lg_corpus_combined.COMBINED`, graphs combining
features, none of them a corpus graph) runs the same way. A script goes on after a call that
raised: the next call resumes the failed run, as LangGraph's `invoke(None)` does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from lg_compare import run_native, run_ours
from lg_corpus_combined import COMBINED
from lg_corpus_flow import FLOW
from lg_corpus_pause import PAUSE

from graphengine.store import MemoryStore, SQLiteStore

CASES = {**FLOW, **PAUSE}
"""Every graph of the corpus, by name."""

DIVERGES: dict[str, str] = {}
"""Cases whose engine result is known to differ from LangGraph's, with why (marked xfail, strict)."""


def _params(names: Any) -> list[Any]:
    return [
        pytest.param(n, marks=pytest.mark.xfail(reason=DIVERGES[n], strict=True)) if n in DIVERGES else n
        for n in sorted(names)
    ]


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    """The engine's in-memory store and a SQLite file."""
    s = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "lg.db")
    yield s
    await s.close()


@pytest.mark.parametrize("name", _params(CASES))
async def test_a_langgraph_graph_gives_langgraph_results_on_the_engine(name: str, store: Any) -> None:
    """Every call of the script returns what LangGraph returns (values, interrupts, errors)."""
    case = CASES[name]
    expected = await run_native(case, InMemorySaver())
    got = await run_ours(case, store)
    assert got == expected


@pytest.mark.parametrize("name", _params(COMBINED))
async def test_a_held_out_langgraph_graph_gives_langgraph_results_on_the_engine(
    name: str, store: Any
) -> None:
    """The held-out graphs (`lg_corpus_combined`), run by the same scripts, give LangGraph's results too."""
    case = COMBINED[name]
    expected = await run_native(case, InMemorySaver())
    got = await run_ours(case, store)
    assert got == expected


def test_the_corpus_has_at_least_50_cases() -> None:
    """The corpus holds 50 or more scripted cases."""
    assert len(CASES) >= 50


def test_the_held_out_set_has_at_least_35_graphs_none_in_the_corpus() -> None:
    """The held-out set holds 35 or more graphs, none of them a corpus graph under another name."""
    makers = {c.make for c in COMBINED.values()}
    assert len(makers) >= 35
    assert not makers & {c.make for c in CASES.values()}
