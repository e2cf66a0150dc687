"""An engine's read API: a run's state, record, pending interrupt, history and checkpoints.

`Engine` inherits it; everything here reads the store through `Engine.runtime()` and writes
nothing but checkpoints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from graphengine.store import Checkpoint, RunRecord, RunStatus

from ._encoding import INPUT_NODE, UPDATE_NODE, decode_events
from ._runtime import corrupt_step
from .errors import RunNotFoundError
from .history import StepView, field_sizes
from .routing import NextKind

if TYPE_CHECKING:
    from ._runtime import Runtime

__all__ = ["Interrupt", "RunReads"]

S = TypeVar("S")

_GOTO = NextKind.GOTO


@dataclass(frozen=True, slots=True)
class Interrupt:
    """A paused run waiting for input."""

    run_id: str
    """The run."""
    step: int
    """The last committed step."""
    node_id: str
    """The node that will run on resume (and receive the input)."""
    payload: Any
    """What the node asked (None for an `interrupt_before` pause)."""
    before: bool
    """True when the run paused before `node_id` (`interrupt_before`), False when the node interrupted."""


class RunReads(Generic[S]):
    """The read API `Engine` inherits (see `Engine`)."""

    def runtime(self) -> Runtime[S]:
        """What a run of this engine works with (`Engine.runtime`)."""
        raise NotImplementedError

    async def get_state(self, run_id: str) -> S:
        """The state after the run's last committed step (`RunNotFoundError` if unknown)."""
        rt = self.runtime()
        return rt.fold(await rt.latest(run_id))

    async def get_run(self, run_id: str) -> RunRecord:
        """The run's record: status, last error, fingerprint (`RunNotFoundError` if unknown)."""
        return await self.runtime().get_run(run_id)

    async def get_interrupt(self, run_id: str) -> Interrupt | None:
        """What an interrupted run waits for (node, payload), or None if it is not interrupted."""
        rt = self.runtime()
        latest = await rt.latest(run_id)
        nxt = rt.next_of(latest)
        # A committed interrupt step is pending whatever the status says: the status write
        # after it may have been lost to a crash, or a resume with input may have died.
        if nxt.kind is NextKind.INTERRUPT and latest.last is not None:
            return Interrupt(run_id, latest.last_step, rt.interrupted(latest.last)[0], nxt.payload, False)
        if latest.run.status is RunStatus.INTERRUPTED and nxt.kind is _GOTO:
            return Interrupt(run_id, latest.last_step, nxt.target, None, True)
        return None

    async def history(self, run_id: str) -> list[StepView[S]]:
        """Every committed step of the run, decoded, with the state after each."""
        run = await self.get_run(run_id)
        rt = self.runtime()
        rt.compiled()
        vm = rt.versions(run)
        state = rt.decode(run.initial, run_id, 0, "initial", vm)
        out: list[StepView[S]] = []
        turn = 0
        for rec in await rt.store.load_steps(run_id):
            turn += rec.node_id == INPUT_NODE
            delta = None if rec.delta is None else rt.decode(rec.delta, run_id, rec.step, "delta", vm)
            if rec.state is not None:
                state = rt.decode(rec.state, run_id, rec.step, "state", vm)
            elif delta is not None:
                # The previous view keeps its state: an impure reducer works on a copy.
                state = rt.merge(state, delta, run_id, rec.step, rec.node_id, keep=True)
            try:
                events = decode_events(rec.events)
            except (ValueError, TypeError) as exc:
                raise corrupt_step(run_id, rec.step, "events", f"events do not decode: {exc}") from exc
            out.append(
                StepView(
                    step=rec.step,
                    node_id=rec.node_id,
                    delta=delta,
                    state=state,
                    route=rt.route(rec),
                    attempt=rec.attempt,
                    error=rec.error,
                    ts=rec.ts,
                    sizes=field_sizes(rec.delta),
                    events=events,
                    turn=turn,
                    as_node=_acted_as(rec.calls) if rec.node_id == UPDATE_NODE else None,
                )
            )
        return out

    async def checkpoint(self, run_id: str, label: str) -> int:
        """Save the run's current state under `label`; returns the step it was taken at."""
        rt = self.runtime()
        latest = await rt.latest(run_id)
        state = rt.fold(latest)
        await rt.store.save_checkpoint(
            Checkpoint(run_id=run_id, label=label, step=latest.last_step, state=rt.codec.encode(state))
        )
        return latest.last_step

    async def load_checkpoint(self, run_id: str, label: str) -> S:
        """The state saved under `label` (`RunNotFoundError` if there is no such checkpoint)."""
        rt = self.runtime()
        cp = await rt.store.load_checkpoint(run_id, label)
        if cp is None:
            raise RunNotFoundError(f"run {run_id!r} has no checkpoint {label!r}", run_id=run_id)
        run = await rt.get_run(run_id)
        return rt.decode(cp.state, run_id, cp.step, f"checkpoint {label!r}", rt.versions(run))

    save_checkpoint = checkpoint
    """Another name for `checkpoint`."""


def _acted_as(calls: bytes | None) -> str | None:
    """The node an `update_state` edit acted as, from its record."""
    try:
        doc = json.loads(calls or b"{}")
    except ValueError:
        return None
    acted = doc.get("as_node") if isinstance(doc, dict) else None
    return acted if isinstance(acted, str) else None
