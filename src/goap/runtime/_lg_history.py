"""`LangGraphStoreHistory`: GOAP execution history in any LangGraph `BaseStore`.

For agents run through LangGraph (`GoapGraph.to_langgraph()`), whose long-term memory is a
LangGraph store (`InMemoryStore`, `AsyncPostgresStore`, ...): each executed action is one item.

    history = LangGraphStoreHistory(store)
    await history.arecord_run("deploy-42", final_state)  # every outcome of a finished run
    fails = await history.failures("sign_hsm")

Layout: namespace `(*prefix, "run:" + escaped run id)`, key the zero-padded engine step, value
a JSON object with the record's fields plus `recorded_at` (seconds since the epoch). One item
per (run, step), so recording the same outcome again replaces it and never double-counts (safe
to re-record a run after a crash). Run ids are escaped (`%` -> `%25`, `.` -> `%2E`, NUL ->
`%00`) because LangGraph namespace labels may not contain periods; the value keeps the run id
verbatim.

LangGraph is imported on first use, never by `import goap`; the store's own errors
(connection, `InvalidNamespaceError`) propagate unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from goap.runtime._history import ActionRecord

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore, Item

    from goap.runtime._state import GoapState

__all__ = ["LangGraphStoreHistory"]

DEFAULT_PREFIX: Final = ("goap", "history")
"""Namespace prefix of the history items unless another is given."""
_PAGE: Final = 500
_KEY_WIDTH: Final = 12


def _label(run_id: str) -> str:
    """The namespace label of a run: injective, never empty, no period or NUL."""
    return "run:" + run_id.replace("%", "%25").replace(".", "%2E").replace("\x00", "%00")


def _key(step: int) -> str:
    # Zero-padded so the store's key order is step order.
    return f"{step:0{_KEY_WIDTH}d}"


def _value(rec: ActionRecord, recorded_at: float) -> dict[str, Any]:
    return {
        "run_id": rec.run_id,
        "step": rec.step,
        "action": rec.action,
        "success": rec.success,
        "error": rec.error,
        "effects": dict(rec.effects),
        "subgoal": rec.subgoal,
        "recorded_at": recorded_at,
    }


def _record(item: Item) -> ActionRecord:
    v = item.value
    return ActionRecord(
        run_id=str(v["run_id"]),
        step=int(v["step"]),
        action=str(v["action"]),
        success=bool(v["success"]),
        error=v.get("error"),
        effects=dict(v.get("effects") or {}),
        subgoal=int(v.get("subgoal", 0)),
    )


def _newest_first(item: Item) -> tuple[float, str, int]:
    v = item.value
    return (float(v.get("recorded_at", 0.0)), str(v["run_id"]), int(v["step"]))


def _put_op(namespace: tuple[str, ...], key: str, value: dict[str, Any]) -> Any:
    try:
        from langgraph.store.base import PutOp
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "LangGraphStoreHistory needs LangGraph. Install it with: pip install 'graphengine[langgraph]'"
        ) from exc
    return PutOp(namespace, key, value)


class LangGraphStoreHistory:
    """An `ExecutionHistory` over a LangGraph `BaseStore` (sync and async stores alike).

    `by_run` returns a run's records in step order; `by_action` and `failures` return records
    newest first (by the time they were recorded), looking at no more than `scan_limit`
    matching items (a store orders its search results as it likes; LangGraph's Postgres store
    returns the most recently updated first, so the window holds the newest).
    """

    def __init__(
        self, store: BaseStore, *, prefix: Sequence[str] = DEFAULT_PREFIX, scan_limit: int = 10_000
    ) -> None:
        if not prefix:
            raise ValueError("prefix must name at least one namespace label, e.g. ('goap', 'history')")
        self.store = store
        """The LangGraph store holding the records."""
        self.prefix: tuple[str, ...] = tuple(prefix)
        """Namespace prefix of every history item."""
        self.scan_limit = scan_limit
        """How many matching items `by_action` and `failures` read at most."""

    def _ns(self, run_id: str) -> tuple[str, ...]:
        return (*self.prefix, _label(run_id))

    # ------------------------------------------------------------------ writing

    def record(self, rec: ActionRecord) -> None:
        """Store one record (replacing a record of the same run and step)."""
        self.store.put(self._ns(rec.run_id), _key(rec.step), _value(rec, time.time()))

    async def arecord(self, rec: ActionRecord) -> None:
        """Store one record (async form)."""
        await self.store.aput(self._ns(rec.run_id), _key(rec.step), _value(rec, time.time()))

    def _run_ops(self, run_id: str, state: GoapState) -> list[Any]:
        now = time.time()
        ns = self._ns(run_id)
        return [
            _put_op(ns, _key(o.step), _value(ActionRecord.of(run_id, o), now))
            for o in state.execution_history
        ]

    def record_run(self, run_id: str, state: GoapState) -> int:
        """Store every outcome in a run's `execution_history` in one batch; returns how many."""
        ops = self._run_ops(run_id, state)
        if ops:
            self.store.batch(ops)
        return len(ops)

    async def arecord_run(self, run_id: str, state: GoapState) -> int:
        """Store every outcome in a run's `execution_history` in one batch (async form)."""
        ops = self._run_ops(run_id, state)
        if ops:
            await self.store.abatch(ops)
        return len(ops)

    # ------------------------------------------------------------------ reading

    async def _scan(self, prefix: tuple[str, ...], flt: dict[str, Any] | None, cap: int) -> list[Item]:
        out: list[Item] = []
        while len(out) < cap:
            page = min(_PAGE, cap - len(out))
            items = await self.store.asearch(prefix, filter=flt, limit=page, offset=len(out))
            out += items
            if len(items) < page:
                break
        return out

    async def by_run(self, run_id: str) -> list[ActionRecord]:
        """Every recorded action of a run, in step order ([] for an unknown run)."""
        items = await self._scan(self._ns(run_id), None, 1 << 62)
        return [_record(i) for i in sorted(items, key=lambda i: int(i.value["step"]))]

    async def by_action(self, action: str, *, limit: int = 100) -> list[ActionRecord]:
        """Executions of `action` across runs, newest first."""
        items = await self._scan(self.prefix, {"action": action}, self.scan_limit)
        items.sort(key=_newest_first, reverse=True)
        return [_record(i) for i in items[:limit]]

    async def failures(self, action: str | None = None, *, limit: int = 100) -> list[ActionRecord]:
        """Failed executions (of one action, or of all), newest first."""
        flt: dict[str, Any] = {"success": False}
        if action is not None:
            flt["action"] = action
        items = await self._scan(self.prefix, flt, self.scan_limit)
        items.sort(key=_newest_first, reverse=True)
        return [_record(i) for i in items[:limit]]
