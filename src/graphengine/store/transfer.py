"""Export a run to JSON lines and import it into any store (backups, moving runs between backends)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from typing import Any

from .errors import CorruptRecordError, StoreError
from .protocol import Store, WaitStore
from .records import BranchRecord, RunRecord, RunStatus, SignalRecord, StepRecord, TimerRecord

__all__ = ["RunTransfer", "export_run", "import_run"]

_FORMAT = "graphengine-run/1"


def _b(data: bytes | None) -> Any:
    """Bytes as JSON: the stored JSON itself when it is UTF-8 JSON text, else base64."""
    if data is None:
        return None
    try:
        return {"json": json.loads(data.decode())}
    except (UnicodeDecodeError, ValueError):
        return {"b64": base64.b64encode(data).decode()}


def _unb(v: Any, where: str) -> bytes | None:
    if v is None:
        return None
    if isinstance(v, dict) and "json" in v:
        return json.dumps(v["json"], separators=(",", ":"), ensure_ascii=False).encode()
    if isinstance(v, dict) and isinstance(v.get("b64"), str):
        return base64.b64decode(v["b64"])
    raise CorruptRecordError(f"{where}: expected {{'json': ...}} or {{'b64': ...}}, got {v!r}", field=where)


async def export_run(store: Store, run_id: str) -> list[str]:
    """The run, its steps, fan-out branch results, timer and signals as JSON lines (first: the run).

    Raises `StoreError` for an unknown run. Stored JSON is embedded as JSON, other bytes as base64.
    """
    run = await store.get_run(run_id)
    if run is None:
        raise StoreError(f"no run {run_id!r} to export", run_id=run_id)
    lines = [
        json.dumps(
            {
                "format": _FORMAT,
                "type": "run",
                "run_id": run.run_id,
                "status": str(run.status),
                "initial": _b(run.initial),
                "fingerprint": run.fingerprint,
                "state_version": run.state_version,
                "created_at": run.created_at,
                "updated_at": run.updated_at,
                "error": run.error,
                "error_node": run.error_node,
                "meta": _b(run.meta),
            }
        )
    ]
    for s in await store.load_steps(run_id):
        doc = {"type": "step", **s._asdict()}
        for k in ("delta", "state", "calls", "events"):
            doc[k] = _b(doc[k])
        lines.append(json.dumps(doc))
        for br in await store.load_branches(run_id, s.step):
            bdoc = {"type": "branch", **br._asdict()}
            bdoc["delta"], bdoc["calls"] = _b(br.delta), _b(br.calls)
            lines.append(json.dumps(bdoc))
    if isinstance(store, WaitStore):
        lines.extend(await _wait_lines(store, run_id))
    return lines


async def _wait_lines(store: WaitStore, run_id: str) -> list[str]:
    """The run's timer and signals (buffered or taken, in arrival order) as export lines."""
    lines = []
    timer = await store.get_timer(run_id)
    if timer is not None:
        lines.append(
            json.dumps(
                {"type": "timer", "step": timer.step, "wake_at": timer.wake_at, "signal": timer.signal}
            )
        )
    for sig in await store.list_signals(run_id):
        doc = {"type": "signal", **_fields(sig)}
        doc["payload"] = _b(sig.payload)
        lines.append(json.dumps(doc))
    return lines


def _fields(sig: SignalRecord) -> dict[str, Any]:
    return {
        "signal_id": sig.signal_id,
        "name": sig.name,
        "payload": sig.payload,
        "ts": sig.ts,
        "taken_step": sig.taken_step,
    }


def _waits_of(store: Store, rid: str, n: int) -> WaitStore:
    if not isinstance(store, WaitStore):
        raise StoreError(
            f"line {n}: the run waits (a timer or signals) and {type(store).__name__} keeps no timers "
            "or signals (graphengine.store.WaitStore)",
            run_id=rid,
        )
    return store


async def import_run(store: Store, lines: Iterable[str], *, run_id: str | None = None) -> str:
    """Recreate an exported run in `store` (under `run_id` if given); returns its id.

    Raises `RunExistsError` if the id is taken and `CorruptRecordError` naming the line for a
    malformed export; nothing is imported when the first line is not a run.
    """
    it = iter(lines)
    try:
        head = json.loads(next(it))
    except (StopIteration, ValueError) as exc:
        raise CorruptRecordError(f"line 1: not a run export: {exc}", field="run") from exc
    if head.get("type") != "run" or head.get("format") != _FORMAT:
        raise CorruptRecordError(f"line 1: expected a {_FORMAT} run line", field="run")
    rid = run_id or head["run_id"]
    run = RunRecord(
        run_id=rid,
        status=RunStatus(head["status"]),
        initial=_unb(head["initial"], "initial") or b"",
        fingerprint=head["fingerprint"],
        state_version=int(head["state_version"]),
        created_at=float(head["created_at"]),
        updated_at=float(head["updated_at"]),
        error=head["error"],
        error_node=head["error_node"],
        meta=_unb(head["meta"], "meta") or b"{}",
    )
    await store.create_run(run)
    pending: list[BranchRecord] = []
    for n, line in enumerate(it, start=2):
        try:
            doc = json.loads(line)
            kind = doc.pop("type")
            doc["run_id"] = rid
            if kind == "step":
                for k in ("delta", "state", "calls", "events"):
                    doc[k] = _unb(doc[k], f"line {n}: {k}")
                if pending:
                    await store.save_branches(pending)
                    pending = []
                await store.save_step(StepRecord(**doc))
            elif kind == "branch":
                doc["delta"], doc["calls"] = (
                    _unb(doc["delta"], f"line {n}: delta"),
                    _unb(doc["calls"], f"line {n}: calls"),
                )
                pending.append(BranchRecord(**doc))
            elif kind == "timer":
                await _waits_of(store, rid, n).put_timer(TimerRecord(**doc))
            elif kind == "signal":
                doc["payload"] = _unb(doc["payload"], f"line {n}: payload") or b"null"
                await _waits_of(store, rid, n).add_signal(SignalRecord(**doc))
            else:
                raise ValueError(f"unknown line type {kind!r}")
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptRecordError(f"line {n}: {exc}", run_id=rid, field=f"line {n}") from exc
    if pending:
        await store.save_branches(pending)
    return rid


class RunTransfer:
    """Mixin giving a store `export_run` / `import_run` methods (for any `Store`)."""

    async def export_run(self, run_id: str) -> list[str]:
        """See `store.export_run`."""
        return await export_run(self, run_id)  # type: ignore[arg-type]

    async def import_run(self, lines: Iterable[str], *, run_id: str | None = None) -> str:
        """See `store.import_run`."""
        return await import_run(self, lines, run_id=run_id)  # type: ignore[arg-type]
