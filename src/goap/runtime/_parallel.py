"""Concurrent execution of independent plan actions (`GoapGraph(parallel=True)`).

When the graph has no guards of its own and the plan's next actions are plain (no guards,
approval or single-use QoS; an action's QoS retries happen inside the batch), all
applicable now and pairwise independent (no action's effects touch another's preconditions or
effects), the executor runs their `execute` callables concurrently in ONE step, through one
recorded call that returns every result in plan order. Keeping the batch inside a step, rather
than an engine fan-out of executor nodes, keeps the world-state merge and the failure accounting
in one place and makes the record independent of completion order, so replays serve it exactly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from goap.planning import ActionSpec, qos_of
from goap.runtime._state import GoapState

__all__ = ["BatchCall", "independent_batch"]


def _plain(action: ActionSpec) -> bool:
    return (
        not getattr(action, "guards", ())
        and getattr(action, "approval", None) is None
        and qos_of(action).can_rerun
    )


def _touches(a: ActionSpec) -> set[str]:
    return set(a.preconditions) | set(a.effects)


def independent_batch(actions: Mapping[str, ActionSpec], s: GoapState, limit: int = 16) -> list[ActionSpec]:
    """The longest run of next plan actions that may execute together (at least 2, else empty)."""
    batch: list[ActionSpec] = []
    written: set[str] = set()
    touched: set[str] = set()
    for name in s.plan[s.current_step : s.current_step + limit]:
        a = actions.get(name)
        if a is None or not _plain(a) or not a.applicable(s.world_state) or a in batch:
            break
        if set(a.effects) & touched or _touches(a) & written:
            break
        batch.append(a)
        written |= set(a.effects)
        touched |= _touches(a)
    return batch if len(batch) >= 2 else []


class BatchCall:
    """Runs several actions' `execute` concurrently as one recorded call.

    Returns, in plan order, `{"out": dict | None}` or `{"error": "Type: message"}` per action.
    """

    def __init__(self, batch: Sequence[ActionSpec]) -> None:
        self.batch = tuple(batch)
        self.name = "actions:" + "+".join(a.name for a in self.batch)

    async def call(self, ctx: Any, world: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Execute every action of the batch on its own copy of `world`."""

        async def one(a: ActionSpec) -> dict[str, Any]:
            if a.execute is None:
                return {"out": None}
            qos, attempt = qos_of(a), 1
            while True:
                try:
                    out = a.execute(dict(world))
                    if asyncio.iscoroutine(out) or isinstance(out, asyncio.Future):
                        out = await out
                    break
                except Exception as exc:
                    if attempt >= qos.attempts or not qos.retryable(exc):
                        return {"error": f"{type(exc).__name__}: {exc}"}
                    await asyncio.sleep(qos.delay(attempt))  # a replay serves the record instead
                    attempt += 1
            if out is not None and not isinstance(out, dict):
                return {
                    "error": f"execute of {a.name!r} returned {type(out).__name__}, expected a dict or None"
                }
            return {"out": out}

        return list(await asyncio.gather(*(one(a) for a in self.batch)))
