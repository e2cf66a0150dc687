"""Encoding of routes into the JSON text step records store, and back.

Branch inputs of map fan-outs are states, so the codec of the state type takes part; the JSON of
every plain `goto`/`stop` is precomputed so the step loop formats nothing for them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Generic, TypeVar

from pydantic_core import to_jsonable_python

from store import Codec

from .routing import STOP, Branch, Next, NextKind, goto

__all__ = ["RouteCodec"]

S = TypeVar("S")
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class RouteCodec(Generic[S]):
    """Encodes and decodes `Next` values for one graph and state type."""

    def __init__(self, codec: Codec[S], node_ids: Iterable[str]) -> None:
        self._codec = codec
        # Keyed by node id, not by `Next`: a str caches its hash, while hashing the frozen
        # dataclass (kind, target, branches, payload) runs Python code on every step.
        self._goto: dict[str, str] = {nid: _dumps({"goto": nid}) for nid in node_ids}

    def encode(self, nxt: Next) -> str:
        """JSON text of a route."""
        k = nxt.kind
        if k is NextKind.GOTO:
            s = self._goto.get(nxt.target)
            return s if s is not None else _dumps({"goto": nxt.target})
        if k is NextKind.STOP:
            return '{"stop":true}'
        if k is NextKind.INTERRUPT:
            return _dumps({"interrupt": True, "payload": to_jsonable_python(nxt.payload, fallback=str)})
        parts = []
        for b in nxt.branches:
            if b.input is None:
                parts.append(_dumps({"node": b.node}))
            else:
                parts.append(
                    '{"node":' + _dumps(b.node) + ',"input":' + self._codec.encode(b.input).decode() + "}"
                )
        return '{"fan_out":[' + ",".join(parts) + '],"join":' + _dumps(nxt.target) + "}"

    def decode(self, text: str) -> Next:
        """Parse what `encode` produced; `ValueError` on anything else."""
        data: Any = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"a route must be a JSON object, got {text[:80]!r}")
        if isinstance(data.get("goto"), str):
            return goto(data["goto"])
        if data.get("stop") is True:
            return STOP
        if data.get("interrupt") is True:
            return Next(NextKind.INTERRUPT, payload=data.get("payload"))
        if isinstance(data.get("fan_out"), list) and isinstance(data.get("join"), str):
            branches: list[Branch[Any]] = []
            for b in data["fan_out"]:
                if not isinstance(b, dict) or not isinstance(b.get("node"), str):
                    raise ValueError(f"bad fan-out branch {b!r}")
                inp = b.get("input")
                branches.append(
                    Branch(b["node"], None if inp is None else self._codec.decode(_dumps(inp).encode()))
                )
            return Next(NextKind.FAN_OUT, data["join"], tuple(branches))
        raise ValueError(f"unknown route {text[:80]!r}")
