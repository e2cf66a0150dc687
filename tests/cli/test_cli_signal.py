"""`graphengine signal`: a signal to a waiting run from the command line (`tests/waits_graph.py`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from waits_graph import NapState, build

from graphengine.cli import main
from graphengine.store import RunStatus, SQLiteStore


def test_signal_command_stores_the_signal_once_and_makes_the_waiting_run_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`graphengine signal` stores a signal (once per --id) and makes the run waiting for it due now."""
    db = tmp_path / "runs.db"
    monkeypatch.setenv("GRAPHENGINE_TEST_SIDE_LOG", str(tmp_path / "side.log"))
    monkeypatch.setenv("GRAPHENGINE_TEST_NAP", "0")
    monkeypatch.setenv("GRAPHENGINE_TEST_WAIT_SIGNAL", "1")

    async def start() -> None:
        async with SQLiteStore(db) as store:
            await build(store).run("r1", NapState())
            assert (await store.get_run("r1")).status is RunStatus.WAITING  # type: ignore[union-attr]

    asyncio.run(start())
    argv = ["signal", "waits_graph:build", "r1", "go", "--payload", '{"ok": 1}', "--id", "evt-1"]
    argv += ["--store", f"sqlite:///{db}"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["id"] == "evt-1" and first["payload"] == {"ok": 1}
    argv[5] = '{"ok": 2}'
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == first

    async def finish() -> NapState:
        async with SQLiteStore(db) as store:
            eng = build(store)
            timer = await store.get_timer("r1")
            assert timer is not None and timer.wake_at is not None  # due: a scheduler would wake it
            return await eng.resume("r1")

    assert asyncio.run(finish()).done == ["woke", "signal:{'ok': 1}"]


def test_signal_command_for_an_unknown_run_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A signal to a run that does not exist is a usage error (exit 2) naming the run."""
    monkeypatch.setenv("GRAPHENGINE_TEST_SIDE_LOG", str(tmp_path / "side.log"))

    async def create() -> None:
        async with SQLiteStore(tmp_path / "runs.db") as store:
            await store.list_runs()

    asyncio.run(create())
    argv = ["signal", "waits_graph:build", "ghost", "go", "--store", f"sqlite:///{tmp_path / 'runs.db'}"]
    assert main(argv) == 2
    assert "run 'ghost'" in capsys.readouterr().err
