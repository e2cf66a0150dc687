"""Where a run goes after a step: `Next` and its constructors.

A `Next` is a small frozen value; the engine stores it with each step (as compact JSON) so a
resumed run continues exactly where the last committed step said.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["Next", "NextKind", "goto", "stop"]


class NextKind(StrEnum):
    """The kinds of hop."""

    GOTO = "goto"
    STOP = "stop"


@dataclass(frozen=True, slots=True)
class Next:
    """The next hop of a run: go to one node, or stop.

    Build it with `goto(node_id)` or `stop()`. A `NodeResult` whose `route` is None follows the
    static edges instead.
    """

    kind: NextKind
    """What kind of hop this is."""
    target: str = ""
    """Node to run next, for GOTO."""

    def to_json(self) -> str:
        """Encode as compact JSON text (what step records store)."""
        if self.kind is NextKind.GOTO:
            return json.dumps({"goto": self.target}, separators=(",", ":"))
        return '{"stop":true}'

    @staticmethod
    def from_json(text: str) -> Next:
        """Decode what `to_json` produced; `ValueError` on anything else."""
        data: Any = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError(f"route must be a JSON object, got {text!r}")
        if "goto" in data and isinstance(data["goto"], str):
            return Next(NextKind.GOTO, data["goto"])
        if data.get("stop") is True:
            return STOP
        raise ValueError(f"unknown route {text!r}")

    def __repr__(self) -> str:
        return f"goto({self.target!r})" if self.kind is NextKind.GOTO else "stop()"


STOP = Next(NextKind.STOP)


_GOTOS: dict[str, Next] = {}


def goto(node_id: str) -> Next:
    """Route to `node_id` next."""
    # Interned: nodes call this on every step, and node ids are few.
    nxt = _GOTOS.get(node_id)
    if nxt is None:
        nxt = Next(NextKind.GOTO, node_id)
        if len(_GOTOS) < 10_000:
            _GOTOS[node_id] = nxt
    return nxt


def stop() -> Next:
    """End the run after this step."""
    return STOP
