"""Execution history: one record per executed action, queryable by run and by action.

`StoreExecutionHistory` reads the records GOAP runs already committed in their state
(`GoapState.execution_history` is written atomically with each executor step), so it can never
disagree with the runs or double-count an action after a crash. `MemoryExecutionHistory` is the
in-process implementation for tests and ad-hoc recording.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from goap.runtime._state import ActionOutcome
from graphengine import GraphError
from graphengine.store import StoreError

_log = logging.getLogger("goap.runtime._history")

if TYPE_CHECKING:
    from goap.runtime._state import GoapState
    from graphengine import Engine

__all__ = ["ActionRecord", "ExecutionHistory", "MemoryExecutionHistory", "StoreExecutionHistory"]


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One executed action of one run."""

    run_id: str
    """The run."""
    step: int
    """The engine step that executed it."""
    action: str
    """The action's name."""
    success: bool
    """Whether it succeeded."""
    error: str | None = None
    """Why it failed."""
    effects: dict[str, Any] = field(default_factory=dict)
    """What it changed."""
    subgoal: int = 0
    """The sub-goal being pursued."""

    @staticmethod
    def of(run_id: str, o: ActionOutcome) -> ActionRecord:
        """The record of an outcome in a run's state."""
        return ActionRecord(run_id, o.step, o.action, o.success, o.error, dict(o.effects), o.subgoal)


@runtime_checkable
class ExecutionHistory(Protocol):
    """Where executed actions can be looked up."""

    async def by_run(self, run_id: str) -> list[ActionRecord]:
        """Every action of a run, in order."""
        ...

    async def by_action(self, action: str, *, limit: int = 100) -> list[ActionRecord]:
        """Executions of one action across runs, newest runs first."""
        ...


class MemoryExecutionHistory:
    """Keeps records appended with `record` in a list."""

    def __init__(self) -> None:
        self.records: list[ActionRecord] = []
        """Everything recorded, in order."""

    def record(self, rec: ActionRecord) -> None:
        """Append a record."""
        self.records.append(rec)

    async def arecord(self, rec: ActionRecord) -> None:
        """Append a record (async form)."""
        self.records.append(rec)

    async def by_run(self, run_id: str) -> list[ActionRecord]:
        """Records of one run, in order."""
        return [r for r in self.records if r.run_id == run_id]

    async def by_action(self, action: str, *, limit: int = 100) -> list[ActionRecord]:
        """Records of one action, newest first."""
        return [r for r in reversed(self.records) if r.action == action][:limit]

    async def failures(self, action: str | None = None) -> list[ActionRecord]:
        """Failed executions (of one action, or all)."""
        return [r for r in self.records if not r.success and (action is None or r.action == action)]


class StoreExecutionHistory:
    """Execution history read from the runs of a GOAP engine's store."""

    def __init__(self, engine: Engine[GoapState], *, scan_limit: int = 1000) -> None:
        self.engine = engine
        """The GOAP engine (`GoapGraph(...).engine`)."""
        self.scan_limit = scan_limit
        """How many of the newest runs `by_action` looks through."""

    async def by_run(self, run_id: str) -> list[ActionRecord]:
        """Every action the run executed, from its committed state."""
        state = await self.engine.get_state(run_id)
        return [ActionRecord.of(run_id, o) for o in state.execution_history]

    async def _scan(self) -> AsyncIterator[list[ActionRecord]]:
        for run in await self.engine.store.list_runs(limit=self.scan_limit):
            try:
                yield await self.by_run(run.run_id)
            except (GraphError, StoreError, ValueError) as exc:
                # A run of another engine (or a subgraph's child run) sharing the store.
                _log.debug("skipping run %r: %s", run.run_id, exc)

    async def by_action(self, action: str, *, limit: int = 100) -> list[ActionRecord]:
        """Executions of `action` in the newest `scan_limit` runs, newest runs first."""
        out: list[ActionRecord] = []
        async for recs in self._scan():
            out += [r for r in recs if r.action == action]
            if len(out) >= limit:
                break
        return out[:limit]

    async def failures(self, action: str | None = None, *, limit: int = 100) -> list[ActionRecord]:
        """Failed executions (of one action, or all) in the newest runs."""
        out: list[ActionRecord] = []
        async for recs in self._scan():
            out += [r for r in recs if not r.success and (action is None or r.action == action)]
        return out[:limit]
