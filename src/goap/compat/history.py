"""LangGOAP's run history in a LangGraph store, in its layout, by ``get``/``put`` only."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from goap.compat.sensors import _finish

__all__ = ["ExecutionRecord", "StoreExecutionHistory", "compute_goal_hash"]

_RUNS, _BY_GOAL, _FAILED = (("langgoap", part) for part in ("executions", "goal_index", "failure_index"))


def compute_goal_hash(goal: Any) -> str:
    """A short hash of a goal's conditions, stable across processes (16 hex digits)."""
    pairs = sorted((str(k), v) for k, v in goal.conditions.items())
    return hashlib.sha256(json.dumps(pairs, default=str, sort_keys=True).encode()).hexdigest()[:16]


Facts = Mapping[str, Any]
"""Named values: a goal's conditions, a record's metadata."""
Cost = float
"""A plan's cost, in the actions' cost units."""


@dataclass(slots=True, frozen=True)
class ExecutionRecord:
    """How one run went: its goal, last plan, costs, outcome (``success``/``failed``...), replans."""

    goal_hash: str
    goal_conditions: Facts
    plan_actions: tuple[str, ...]
    """The last plan's action names, in order."""
    expected_cost: Cost
    actual_cost: Cost
    outcome: str
    """``success`` or ``failed`` for the runs a graph records; open to other values."""
    replan_count: int
    timestamp: datetime
    metadata: Facts = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (ISO timestamp)."""
        d = asdict(self) | {"goal_conditions": dict(self.goal_conditions), "metadata": dict(self.metadata)}
        return d | {"plan_actions": list(self.plan_actions), "timestamp": self.timestamp.isoformat()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExecutionRecord:
        """The record `to_dict` wrote."""
        d = {"replan_count": 0, **data, "timestamp": datetime.fromisoformat(data["timestamp"])}
        d["plan_actions"] = tuple(d.get("plan_actions") or ())
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


class _SyncStore:
    """A sync store behind the async get/put the history code awaits (driven by `_finish`)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    async def aget(self, ns: tuple[str, ...], key: str) -> Any:
        return self.store.get(ns, key)

    async def aput(self, ns: tuple[str, ...], key: str, value: Any) -> None:
        self.store.put(ns, key, value)


class StoreExecutionHistory:
    """Run records by goal hash or failed action (indexes keep the newest ``index_limit`` ids)."""

    def __init__(self, store: Any, *, index_limit: int = 100) -> None:
        self._store, self.index_limit = store, index_limit

    goal_hash_for = staticmethod(compute_goal_hash)

    @staticmethod
    async def _ids(store: Any, ns: tuple[str, ...], key: str) -> list[str]:
        item = await store.aget(ns, key)
        return list((getattr(item, "value", item) or {}).get("execution_ids") or [])

    async def _add(self, store: Any, rec: ExecutionRecord) -> None:
        rid = uuid.uuid4().hex
        await store.aput(_RUNS, rid, rec.to_dict())
        failed = [(_FAILED, a) for a in rec.plan_actions if rec.outcome == "failed"]
        for ns, key in [(_BY_GOAL, rec.goal_hash), *failed]:
            ids = [rid, *await self._ids(store, ns, key)][: self.index_limit]
            await store.aput(ns, key, {"execution_ids": ids})

    async def _query(self, store: Any, ns: tuple[str, ...], key: str, limit: int) -> list[ExecutionRecord]:
        out: list[ExecutionRecord] = []
        for rid in await self._ids(store, ns, key):
            item = None if len(out) >= limit else await store.aget(_RUNS, rid)
            if item is not None:
                out.append(ExecutionRecord.from_dict(getattr(item, "value", item)))
        return out

    def record(self, record: ExecutionRecord) -> None:
        """Store a record and index it."""
        _finish(self._add(_SyncStore(self._store), record))

    def query_by_goal(self, goal_hash: str, limit: int = 10) -> list[ExecutionRecord]:
        """The newest records (at most ``limit``) of a goal hash."""
        return _finish(self._query(_SyncStore(self._store), _BY_GOAL, goal_hash, limit))

    def query_failures(self, action_name: str, limit: int = 10) -> list[ExecutionRecord]:
        """The newest failed runs (at most ``limit``) whose plan had ``action_name``."""
        return _finish(self._query(_SyncStore(self._store), _FAILED, action_name, limit))

    async def arecord(self, record: ExecutionRecord) -> None:
        """`record`, async."""
        await self._add(self._store, record)

    async def aquery_by_goal(self, goal_hash: str, limit: int = 10) -> list[ExecutionRecord]:
        """`query_by_goal`, async."""
        return await self._query(self._store, _BY_GOAL, goal_hash, limit)

    async def aquery_failures(self, action_name: str, limit: int = 10) -> list[ExecutionRecord]:
        """`query_failures`, async."""
        return await self._query(self._store, _FAILED, action_name, limit)
