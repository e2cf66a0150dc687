"""docs/img/langgraph-turns.svg is what `bench/turns_chart.py` draws from real runs of the chat, today."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langgraph")

from bench.turns_chart import OUT, figures, render

ROOT = Path(__file__).parents[1]


async def test_the_turns_drawing_is_drawn_from_todays_runs() -> None:
    """The committed drawing equals a fresh one (both chats run, checked equal), and docs/langgraph.md shows it."""
    figs = await figures()
    assert OUT.read_text(encoding="utf-8") == render(figs), "stale drawing: run python -m bench.turns_chart"
    assert [len(t["engine"]) for t in figs["turns"]] == [
        1,
        2,
        2,
    ]  # turns after the first begin with an input step
    assert "](img/langgraph-turns.svg)" in (ROOT / "docs" / "langgraph.md").read_text(encoding="utf-8")
