"""Encoding of routes into the JSON text step records store, and back.

Branch inputs of map fan-outs are states, so the codec of the state type takes part; the JSON of
every plain `goto`/`stop` is precomputed so the step loop formats nothing for them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Generic, TypeVar

from pydantic_core import to_jsonable_python

from graphengine.store import Codec

from .routing import STOP, Branch, Next, NextKind, goto

__all__ = ["RouteCodec"]

S = TypeVar("S")
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _branch_head(node: str) -> bytes:
    return ('{"node":' + _dumps(node) + ',"input":').encode()


class RouteCodec(Generic[S]):
    """Encodes and decodes `Next` values for one graph and state type."""

    def __init__(self, codec: Codec[S], node_ids: Iterable[str]) -> None:
        self._codec = codec
        # Keyed by node id, not by `Next`: a str caches its hash, while hashing the frozen
        # dataclass (kind, target, branches, payload) runs Python code on every step.
        ids = list(node_ids)
        self._goto: dict[str, str] = {nid: _dumps({"goto": nid}) for nid in ids}
        # Each map branch's JSON starts with its node; bytes, so the encoded inputs are joined
        # as the codec returns them and the whole route is decoded to text once.
        self._input_head: dict[str, bytes] = {nid: _branch_head(nid) for nid in ids}

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
        heads = self._input_head
        enc = self._codec.encode
        parts: list[bytes] = []
        add = parts.append
        for b in nxt.branches:
            if b.input is None:
                add(_dumps({"node": b.node}).encode())
            else:
                head = heads.get(b.node)
                add((head if head is not None else _branch_head(b.node)) + enc(b.input) + b"}")
        return (
            b'{"fan_out":[' + b",".join(parts) + b'],"join":' + _dumps(nxt.target).encode() + b"}"
        ).decode()

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
