"""Where a run goes after a step: `Next` and its constructors.

A `Next` is a small frozen value; the engine stores it with each step (as compact JSON) so a
resumed run continues exactly where the last committed step said.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Generic, TypeVar, cast

__all__ = ["Branch", "Next", "NextKind", "Wait", "fan_out", "goto", "interrupt", "sleep_until", "stop"]

S = TypeVar("S")


class NextKind(StrEnum):
    """The kinds of hop."""

    GOTO = "goto"
    STOP = "stop"
    FAN_OUT = "fan_out"
    INTERRUPT = "interrupt"
    WAIT = "wait"


@dataclass(frozen=True, slots=True)
class Branch(Generic[S]):
    """One branch of a fan-out: run `node` on `input` (None: the state before the fan-out)."""

    node: str
    """The node the branch runs."""
    input: S | None = None
    """The branch's own state (a map branch, like LangGraph's `Send`), or None."""

    def __init__(self, node: str, input: S | None = None) -> None:
        # Map fan-outs build one Branch per item: the slots are set directly, not through two
        # object.__setattr__ calls as a frozen dataclass's generated __init__ does.
        _set_node(self, node)
        _set_input(self, input)


_set_node = cast(Any, Branch).node.__set__
_set_input = cast(Any, Branch).input.__set__


@dataclass(frozen=True, slots=True)
class Wait:
    """What a waiting run waits for (the payload of a WAIT hop): a time, a signal, or either."""

    until: float | None
    """When the wait ends, seconds since the epoch (None: only a signal ends it)."""
    signal: str | None = None
    """The signal name `ctx.wait_for` waits for, or None."""
    resume: bool = False
    """True: the node that waited (`ctx.sleep`, `ctx.wait_for`) runs again when woken, its waits
    served from the step's record; False: the run goes to the hop's target (`sleep_until`)."""


@dataclass(frozen=True, slots=True)
class Next:
    """The next hop of a run. Build it with `goto`, `stop`, `fan_out` or `interrupt`.

    A `NodeResult` whose `route` is None follows the static edges instead.
    """

    kind: NextKind
    """What kind of hop this is."""
    target: str = ""
    """GOTO: the node to run next. FAN_OUT: the join node."""
    branches: tuple[Branch[Any], ...] = ()
    """FAN_OUT: the branches, in the order their deltas are merged."""
    payload: Any = None
    """INTERRUPT: what the run shows whoever must answer it (JSON-compatible). WAIT: a `Wait`."""

    def __repr__(self) -> str:
        k = self.kind
        if k is NextKind.GOTO:
            return f"goto({self.target!r})"
        if k is NextKind.STOP:
            return "stop()"
        if k is NextKind.FAN_OUT:
            return f"fan_out({[b.node for b in self.branches]!r}, join={self.target!r})"
        if k is NextKind.WAIT:
            w = self.payload
            return f"wait({self.target!r}, until={w.until!r}, signal={w.signal!r})"
        return f"interrupt({self.payload!r})"


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


def fan_out(branches: Iterable[str | Branch[Any]], *, join: str) -> Next:
    """Run several branches concurrently, merge their deltas in this order, then run `join`.

    `branches` holds node ids (each runs on a copy of the state before the fan-out) and/or
    `Branch(node, input=...)` map branches. Raises `ValueError` when there is no branch or no join.
    At most `Options.max_concurrency` branches run at once. Branches that return without awaiting
    run one after another in the run's own task (no task per branch), so they see the run's
    contextvars rather than a copy each as under `asyncio.gather`.
    """
    given = tuple(branches)
    bs: tuple[Branch[Any], ...]
    for b in given:
        if type(b) is not Branch:  # convert only when some branch is given by name
            bs = tuple(b if isinstance(b, Branch) else Branch(b) for b in given)
            break
    else:
        bs = cast("tuple[Branch[Any], ...]", given)
    if not bs:
        raise ValueError("fan_out needs at least one branch")
    if not join:
        raise ValueError("fan_out needs a join node: fan_out([...], join='merge')")
    return Next(NextKind.FAN_OUT, join, bs)


def interrupt(payload: Any = None) -> Next:
    """Pause the run for outside input; `resume(run_id, input=...)` re-runs this node with it."""
    return Next(NextKind.INTERRUPT, payload=payload)


def sleep_until(when: datetime | float, *, then: str) -> Next:
    """Wait until `when`, then go to node `then`: the step commits, the run is `waiting` (no task,
    worker or memory holds it) and a timer waker or a queued job continues it when due.

    `when` is a timezone-aware `datetime` or seconds since the epoch. A time already past goes
    on at once (at the next wake-up check). The time is stored with the step's route, so compute
    it from the state (not from the clock) when the run is to replay without a divergence; for
    "sleep this long" inside a node use `await ctx.sleep(delta)`, whose deadline is recorded.
    Raises `ValueError` for a naive datetime or a time that is not a finite number, or no `then`.
    """
    if isinstance(when, datetime):
        if when.tzinfo is None or when.utcoffset() is None:
            raise ValueError(f"sleep_until needs a timezone-aware datetime, got {when!r} (add tzinfo=UTC)")
        at = when.timestamp()
    elif isinstance(when, (int, float)) and not isinstance(when, bool) and math.isfinite(when):
        at = float(when)
    else:
        raise ValueError(f"sleep_until: `when` must be an aware datetime or epoch seconds, got {when!r}")
    if not then or not isinstance(then, str):
        raise ValueError("sleep_until needs the node to go to when due: sleep_until(when, then='next')")
    return Next(NextKind.WAIT, then, payload=Wait(at))
