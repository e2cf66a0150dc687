"""The JSON forms the HTTP API answers with: routes, deltas, events, any state value."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from graphengine.emit import Event

from ..reducer import delta_fields
from ..routing import Next, NextKind

__all__ = ["delta_doc", "event_doc", "jsonable", "route_doc"]


def route_doc(route: Next) -> dict[str, Any]:
    """A `Next` as JSON: kind, target, branch nodes, interrupt payload (a wait's until and signal) and its short text."""
    return {
        "kind": str(route.kind),
        "target": route.target,
        "branches": [b.node for b in route.branches],
        "payload": jsonable(route.payload) if route.kind in (NextKind.INTERRUPT, NextKind.WAIT) else None,
        "text": repr(route),
    }


def _fallback(obj: Any) -> Any:
    if isinstance(obj, Next):
        return route_doc(obj)
    return repr(obj)


def jsonable(value: Any) -> Any:
    """`value` as plain JSON data (pydantic models, dataclasses, enums...; `repr` of anything else)."""
    if isinstance(value, Next):
        return route_doc(value)
    return to_jsonable_python(value, fallback=_fallback)


def delta_doc(delta: Any) -> Any:
    """A delta as JSON: for a pydantic model only the fields it set (`delta_fields`, what the reducer merges)."""
    if isinstance(delta, BaseModel):
        fields = delta_fields(delta) or {}
        return delta.model_dump(mode="json", include=set(fields), fallback=_fallback)
    return jsonable(delta)


def event_doc(ev: Event, seq: int) -> dict[str, Any]:
    """An event of a run as JSON, numbered `seq` in the server's log of that run.

    A step's ``meta["changes"]`` is left out: its ``delta`` already shows those fields alone.
    """
    meta = {k: delta_doc(v) if k == "delta" else jsonable(v) for k, v in ev.meta.items() if k != "changes"}
    if "branches" in meta:
        meta["branches"] = [delta_doc(b) for b in ev.meta["branches"]]
    return {
        "seq": seq,
        "run_id": ev.run_id,
        "step": ev.step,
        "node_id": ev.node_id,
        "kind": str(ev.kind),
        "msg": ev.msg,
        "meta": meta,
        "ts": ev.ts,
    }
