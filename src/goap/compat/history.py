"""LangGOAP's run history: one `ExecutionRecord` per finished run, in a LangGraph ``BaseStore``.

Only ``get``/``put`` (``aget``/``aput``) are used, never ``search`` (a vector query on some
stores). Records live in ``("langgoap", "executions")`` under a random id; two bounded, newest
first id lists index them, by goal hash (``("langgoap", "goal_index")``) and, for failed runs, by
each planned action (``("langgoap", "failure_index")``), the layout LangGOAP stores use. Runs of a
goap graph become records through `goap.compat._convert.execution_record`.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from goap.compat.sensors import _finish

__all__ = ["ExecutionRecord", "StoreExecutionHistory", "compute_goal_hash"]

_RUNS = ("langgoap", "executions")
_BY_GOAL = ("langgoap", "goal_index")
_FAILED = ("langgoap", "failure_index")


def compute_goal_hash(goal: Any) -> str:
    """A short hash of a goal's conditions, stable across processes (16 hex digits)."""
    pairs = sorted((str(k), v) for k, v in goal.conditions.items())
    return hashlib.sha256(json.dumps(pairs, default=str, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class ExecutionRecord:
    """How one run went: its goal, last plan, costs, outcome (``success``/``failed``/...), replans."""

    goal_hash: str
    goal_conditions: Mapping[str, Any]
    plan_actions: tuple[str, ...]
    expected_cost: float
    actual_cost: float
    outcome: str
    replan_count: int
    timestamp: datetime
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (the timestamp in ISO format)."""
        d = asdict(self)
        d.update(
            goal_conditions=dict(self.goal_conditions),
            plan_actions=list(self.plan_actions),
            metadata=dict(self.metadata),
            timestamp=self.timestamp.isoformat(),
        )
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExecutionRecord:
        """The record `to_dict` wrote."""
        return cls(
            goal_hash=data["goal_hash"],
            goal_conditions=dict(data.get("goal_conditions") or {}),
            plan_actions=tuple(data.get("plan_actions") or ()),
            expected_cost=float(data["expected_cost"]),
            actual_cost=float(data["actual_cost"]),
            outcome=data["outcome"],
            replan_count=int(data.get("replan_count", 0)),
            timestamp=datetime.fromisoformat(data["timestamp"]),
            metadata=dict(data.get("metadata") or {}),
        )


_Get = Callable[[tuple[str, ...], str], Awaitable[Any]]
_Put = Callable[[tuple[str, ...], str, dict[str, Any]], Awaitable[Any]]


def _value(item: Any) -> Any:
    return getattr(item, "value", item)


class StoreExecutionHistory:
    """Run records in a LangGraph store, queried by goal hash or by a failed run's action.

    ``index_limit`` bounds each index list; older records stay stored but are no longer listed.
    """

    def __init__(self, store: Any, *, index_limit: int = 100) -> None:
        self._store = store
        self.index_limit = index_limit

    @staticmethod
    def goal_hash_for(goal: Any) -> str:
        """`compute_goal_hash` of ``goal``."""
        return compute_goal_hash(goal)

    def _sync(self) -> tuple[_Get, _Put]:
        async def get(ns: tuple[str, ...], key: str) -> Any:
            return self._store.get(ns, key)

        async def put(ns: tuple[str, ...], key: str, value: dict[str, Any]) -> Any:
            return self._store.put(ns, key, value)

        return get, put

    def _async(self) -> tuple[_Get, _Put]:
        return self._store.aget, self._store.aput

    async def _ids(self, get: _Get, ns: tuple[str, ...], key: str) -> list[str]:
        v = _value(await get(ns, key))
        return list(v.get("execution_ids") or []) if v else []

    async def _add(self, io: tuple[_Get, _Put], rec: ExecutionRecord) -> None:
        get, put = io
        rid = uuid.uuid4().hex
        await put(_RUNS, rid, rec.to_dict())
        keys = [(_BY_GOAL, rec.goal_hash)]
        if rec.outcome == "failed":
            keys += [(_FAILED, a) for a in rec.plan_actions]
        for ns, key in keys:
            ids = [rid, *await self._ids(get, ns, key)][: self.index_limit]
            await put(ns, key, {"execution_ids": ids})

    async def _query(self, get: _Get, ns: tuple[str, ...], key: str, limit: int) -> list[ExecutionRecord]:
        out: list[ExecutionRecord] = []
        for rid in await self._ids(get, ns, key):
            if len(out) >= limit:
                break
            v = _value(await get(_RUNS, rid))
            if v is not None:
                out.append(ExecutionRecord.from_dict(v))
        return out

    def record(self, record: ExecutionRecord) -> None:
        """Store a record and index it."""
        _finish(self._add(self._sync(), record))

    def query_by_goal(self, goal_hash: str, limit: int = 10) -> list[ExecutionRecord]:
        """The newest records (at most ``limit``) of a goal hash."""
        return _finish(self._query(self._sync()[0], _BY_GOAL, goal_hash, limit))

    def query_failures(self, action_name: str, limit: int = 10) -> list[ExecutionRecord]:
        """The newest failed runs (at most ``limit``) whose plan had ``action_name``."""
        return _finish(self._query(self._sync()[0], _FAILED, action_name, limit))

    async def arecord(self, record: ExecutionRecord) -> None:
        """`record`, async."""
        await self._add(self._async(), record)

    async def aquery_by_goal(self, goal_hash: str, limit: int = 10) -> list[ExecutionRecord]:
        """`query_by_goal`, async."""
        return await self._query(self._store.aget, _BY_GOAL, goal_hash, limit)

    async def aquery_failures(self, action_name: str, limit: int = 10) -> list[ExecutionRecord]:
        """`query_failures`, async."""
        return await self._query(self._store.aget, _FAILED, action_name, limit)
