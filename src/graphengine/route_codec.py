"""Encoding of routes into the JSON text step records store, and back.

Branch inputs of map fan-outs are states, so the codec of the state type takes part; the JSON of
every plain `goto`/`stop` is precomputed so the step loop formats nothing for them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Generic, TypeVar, cast

from pydantic_core import to_jsonable_python

from graphengine.store import Codec, JsonCodec

from .routing import STOP, Branch, Next, NextKind, Wait, goto

__all__ = ["RouteCodec"]

S = TypeVar("S")
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _branch_head(node: str) -> bytes:
    return ('{"node":' + _dumps(node) + ',"input":').encode()


class RouteCodec(Generic[S]):
    """Encodes and decodes `Next` values for one graph and state type."""

    def __init__(self, codec: Codec[S], node_ids: Iterable[str]) -> None:
        self.codec = codec
        """The codec of the state type (branch inputs)."""
        self.pydantic_json = type(cast(object, codec)) is JsonCodec  # not a subclass: its bytes may differ
        """The codec writes JSON through pydantic: UTF-8, well formed, no constants but NaN and
        Infinity (a model may ask for them), lone surrogates refused; what a custom codec writes is
        checked by parsing it."""
        # Keyed by node id, not by `Next`: a str caches its hash, while hashing the frozen
        # dataclass (kind, target, branches, payload) runs Python code on every step.
        ids = list(node_ids)
        self._goto: dict[str, str] = {nid: _dumps({"goto": nid}) for nid in ids}
        # Each map branch's JSON starts with its node; bytes, so the encoded inputs are joined
        # as the codec returns them and the whole route is decoded to text once.
        self._input_head: dict[str, bytes] = {nid: _branch_head(nid) for nid in ids}
        self._plain: dict[str, bytes] = {nid: _dumps({"node": nid}).encode() for nid in ids}

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
        if k is NextKind.WAIT:
            w: Wait = nxt.payload
            return _dumps(
                {"wait": {"node": nxt.target, "until": w.until, "signal": w.signal, "resume": w.resume}}
            )
        enc = self.codec.encode
        return self.fan_out_text(nxt, [None if b.input is None else enc(b.input) for b in nxt.branches])

    def fan_out_text(self, nxt: Next, inputs: Sequence[bytes | None]) -> str:
        """JSON text of a fan-out whose branch inputs are already encoded (`inputs`, in branch order)."""
        heads = self._input_head
        plain = self._plain
        parts: list[bytes] = []
        add = parts.append
        for b, data in zip(nxt.branches, inputs, strict=True):
            if data is None:
                head = plain.get(b.node)
                add(head if head is not None else _dumps({"node": b.node}).encode())
            else:
                head = heads.get(b.node)
                add((head if head is not None else _branch_head(b.node)) + data + b"}")
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
        if isinstance(data.get("wait"), dict):
            return _wait(data["wait"])
        if isinstance(data.get("fan_out"), list) and isinstance(data.get("join"), str):
            branches: list[Branch[Any]] = []
            for b in data["fan_out"]:
                if not isinstance(b, dict) or not isinstance(b.get("node"), str):
                    raise ValueError(f"bad fan-out branch {b!r}")
                inp = b.get("input")
                branches.append(
                    Branch(b["node"], None if inp is None else self.codec.decode(_dumps(inp).encode()))
                )
            return Next(NextKind.FAN_OUT, data["join"], tuple(branches))
        raise ValueError(f"unknown route {text[:80]!r}")


def _wait(w: dict[str, Any]) -> Next:
    """The WAIT hop stored as `{"wait": {...}}`; `ValueError` if a field has the wrong type."""
    node, until, signal, resume = w.get("node"), w.get("until"), w.get("signal"), w.get("resume")
    if (
        not isinstance(node, str)
        or not (until is None or (isinstance(until, (int, float)) and not isinstance(until, bool)))
        or not (signal is None or isinstance(signal, str))
        or not isinstance(resume, bool)
    ):
        raise ValueError(f"bad wait route {w!r:.80}")
    return Next(NextKind.WAIT, node, payload=Wait(None if until is None else float(until), signal, resume))
