"""A run langgoap checkpointed resumes under `goap.compat`: its checkpoints decode into goap.compat's
classes, so switching the imports does not strand runs paused in a real SQLite checkpointer."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

langgoap = pytest.importorskip("langgoap")

import goap.compat as compat  # noqa: E402
from goap.compat.serde import UnsafeSerdeError  # noqa: E402


def graph(lib: Any) -> Any:
    """Two actions, each recording that it ran (``execute`` returns the new facts)."""
    return lib.GoapGraph(
        actions=[
            lib.ActionSpec(
                name="fetch",
                preconditions={"have": False},
                effects={"have": True},
                execute=lambda ws: {"have": True, "fetched_by": lib.__name__},
            ),
            lib.ActionSpec(
                name="ship",
                preconditions={"have": True, "shipped": False},
                effects={"shipped": True},
                execute=lambda ws: {"shipped": True, "shipped_by": lib.__name__},
            ),
        ]
    )


def test_run_paused_by_langgoap_finishes_under_compat(tmp_path: Path) -> None:
    """langgoap plans and runs the first action; goap.compat resumes the same thread to the goal."""
    db = tmp_path / "runs.sqlite"
    config = {"configurable": {"thread_id": "t1"}}
    start = {
        "goal": langgoap.GoalSpec(conditions={"shipped": True}),
        "world_state": {"have": False, "shipped": False},
    }
    with sqlite3.connect(db, check_same_thread=False) as conn:
        saver = SqliteSaver(conn)
        before = graph(langgoap).compile(checkpointer=saver, interrupt_before=["executor"])
        before.invoke(start, config=config)  # plans, pauses before the first action
        before.invoke(None, config=config)  # runs fetch, pauses before ship
    with sqlite3.connect(db, check_same_thread=False) as conn:
        saver = SqliteSaver(conn)
        after = graph(compat).compile(checkpointer=saver, interrupt_before=["executor"])
        paused = after.get_state(config).values
        assert isinstance(paused["goal"], compat.GoalSpec)
        assert type(paused["plan"]).__module__ == "goap.compat.planner.types"
        assert [a.name for a in paused["plan"].actions] == ["fetch", "ship"]
        out = after.invoke(None, config=config)
    assert out["status"] == "goal_achieved"
    assert out["world_state"]["fetched_by"] == "langgoap"
    assert out["world_state"]["shipped_by"] == "goap.compat"
    assert [(h.action_name, h.success) for h in out["execution_history"]] == [("fetch", True), ("ship", True)]


def test_pickled_checkpoint_value_is_refused() -> None:
    """A checkpoint value stored as pickle is never unpickled: the serializer raises and says so."""
    from goap.compat.serde import LangGOAPSerializer

    with pytest.raises(UnsafeSerdeError, match="pickled"):
        LangGOAPSerializer(pickle_fallback=True).loads_typed(("pickle", b"\x80\x04K\x01."))


def test_value_without_encoding_is_not_pickled() -> None:
    """With pickle_fallback=True a value msgpack cannot encode raises instead of being pickled."""
    from goap.compat.serde import LangGOAPSerializer

    with pytest.raises(UnsafeSerdeError, match="no msgpack encoding"):
        LangGOAPSerializer(pickle_fallback=True).dumps_typed({"lock": __import__("threading").Lock()})
