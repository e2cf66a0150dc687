"""Emitters deliver events faithfully and never break a run."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from engine_fixtures import S, seed_engine

from graphengine.emit import (
    Event,
    EventKind,
    JSONLEmitter,
    LogEmitter,
    MemoryEmitter,
    MultiEmitter,
    NullEmitter,
)


def test_event_positional_order_follows_the_seed() -> None:
    """Event(run_id, step, node_id, msg, meta) with kind and ts as keywords."""
    e = Event("r", 2, "n", "hello", {"a": 1}, kind=EventKind.NODE_END)
    assert (e.run_id, e.step, e.node_id, e.msg, dict(e.meta), e.kind) == (
        "r",
        2,
        "n",
        "hello",
        {"a": 1},
        "node_end",
    )
    assert e.ts > 0
    assert Event("r", 0, "").meta == {}


async def test_jsonl_emitter_writes_one_object_per_line(tmp_path: Path) -> None:
    """A run's events land in the file as parseable JSON lines, in order."""
    path = tmp_path / "events.jsonl"
    em = JSONLEmitter(path)
    await seed_engine(emitter=em).run("t1", S())
    em.close()
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert rows[0]["kind"] == "run_start"
    assert rows[-1]["kind"] == "run_end"
    assert {r["run_id"] for r in rows} == {"t1"}
    assert len(rows) == 14


def test_jsonl_emitter_encodes_unusual_meta_values(tmp_path: Path) -> None:
    """Values JSON cannot encode are written with str() instead of failing."""
    em = JSONLEmitter(tmp_path / "e.jsonl")
    em.emit(Event("r", 1, "n", "m", {"path": tmp_path, "set": {1}}))
    em.close()
    row = json.loads((tmp_path / "e.jsonl").read_text())
    assert row["meta"]["path"] == str(tmp_path)


async def test_log_emitter_logs_with_run_fields(caplog: pytest.LogCaptureFixture) -> None:
    """LogEmitter writes to stdlib logging with run id, step and node id."""
    caplog.set_level(logging.INFO, logger="graphengine")
    await seed_engine(emitter=LogEmitter()).run("t1", S())
    starts = [r for r in caplog.records if "node_start" in r.getMessage()]
    assert len(starts) == 6
    assert starts[0].run_id == "t1"  # type: ignore[attr-defined]
    assert starts[0].node_id == "inc"  # type: ignore[attr-defined]


def test_multi_emitter_isolates_failures(caplog: pytest.LogCaptureFixture) -> None:
    """One raising emitter does not keep the others from receiving the event."""

    class Broken:
        def emit(self, event: Event) -> None:
            raise RuntimeError("broken")

    a, b = MemoryEmitter(), MemoryEmitter()
    multi = MultiEmitter(a, Broken(), [b])
    multi.emit(Event("r", 1, "n", "x"))
    assert len(a.events) == len(b.events) == 1
    assert "broken" in caplog.text


async def test_null_emitter_is_skipped_entirely() -> None:
    """The engine treats NullEmitter like no emitter at all (no events are built)."""
    g = seed_engine(emitter=NullEmitter())
    assert g.emitter is None
    assert await g.run("t1", S()) == S(n=3)
