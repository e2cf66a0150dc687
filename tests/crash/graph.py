"""The graph the SIGKILL crash test runs, its side log and the driver that takes a run to its end.

Imported by `worker.py` (the child process the test kills) and by `tests/engine/test_crash_sigkill.py`
(for the uninterrupted reference run and to read the side log back). Everything a run stores is
deterministic: node deltas and routes depend only on the state, `ctx.step`, `ctx.attempt` and the
branch index, never on the clock, the pid or the random sleeps that only widen the kill windows.

The side log is a text file every process appends to with `os.write` on an `O_APPEND` descriptor
(one `write(2)` per line, so a line is whole or absent after a SIGKILL). Lines:

- `start <pid> <last committed step> <committed branches of the next step, comma-separated or ->`
  written by a worker before it runs or resumes anything;
- `exec <pid> <step> <node> <branch or -> <attempt>` written by a node just before it returns or
  raises (so every line is a node execution that finished);
- `phase <pid> <what> <begin|end> <step>` written by `MarkingStore` around each store write and
  around each fan-out, so the test can tell where a kill landed;
- `done <pid>` when the run has finished.
"""

from __future__ import annotations

import asyncio
import operator
import os
import random
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel

from graphengine import (
    FAN_OUT_NODE,
    Branch,
    Context,
    Engine,
    NextKind,
    NodeResult,
    Options,
    append,
    fan_out,
    goto,
    stop,
)
from graphengine.store import BranchRecord, RunStatus, SQLiteStore, StepRecord

__all__ = [
    "ANSWER",
    "RUN_ID",
    "WIDTH",
    "CrashState",
    "Exec",
    "MarkingStore",
    "Parsed",
    "Phase",
    "SideLog",
    "Start",
    "build",
    "drive_to_end",
    "read_side_log",
    "waiting_for_input",
]

RUN_ID = "crash-run"
"""The run id every crash database uses (step records hold it, so the reference uses it too)."""
ANSWER = "yes, go on"
"""The input the driver hands to an interrupted run."""
WIDTH = 6
"""Branches of each fan-out."""
LAST_TICK = 60
"""The run stops after the tick that brings `i` to this value (about 100 steps in all)."""


class CrashState(BaseModel):
    """State of the crash graph: a counter, an append-only trace and a sum."""

    i: int = 0
    """Ticks so far."""
    trace: Annotated[list[str], append] = []
    """One entry per node execution that was committed, in commit order."""
    acc: Annotated[int, operator.add] = 0
    """Sum of what the fan-out branches contributed."""
    item: int = 0
    """A fan-out branch's own input (map branches)."""
    answer: str = ""
    """What the interrupt was answered with."""
    last_error: str = ""
    """Set by the engine when a failure is routed to the error handler."""


class SideLog:
    """Appends whole lines to the side log with one `os.write` each (atomic under SIGKILL)."""

    def __init__(self, path: str | Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._pid = os.getpid()

    def line(self, kind: str, *fields: object) -> None:
        """Append `kind pid fields...` as one line."""
        text = " ".join((kind, str(self._pid), *(str(f) for f in fields)))
        os.write(self._fd, (text + "\n").encode())

    def close(self) -> None:
        """Close the descriptor."""
        os.close(self._fd)


class MarkingStore(SQLiteStore):
    """A `SQLiteStore` that writes a phase marker to the side log before and after each write.

    Markers: `step-write`, `branch-write`, `status-write` around the store calls, and `fan-out`
    from the fan-out's `load_branches` (its first store call) to the commit of its merged step.
    Behaviour is the parent's; only the markers are added.
    """

    def __init__(self, path: str | Path, side: SideLog, kill_after_step: int | None = None) -> None:
        super().__init__(path)
        self._side = side
        self._kill_after = kill_after_step

    @contextmanager
    def _phase(self, phase: str, step: int) -> Iterator[None]:
        """`begin` and `end` markers of `phase` around a store call (no `end` when it raises)."""
        self._side.line("phase", phase, "begin", step)
        yield
        self._side.line("phase", phase, "end", step)

    async def save_step(self, rec: StepRecord) -> None:
        """`SQLiteStore.save_step` between `step-write` markers (and closing a `fan-out`)."""
        with self._phase("step-write", rec.step):
            await super().save_step(rec)
        if rec.step == self._kill_after:
            self._side.line("note", "self-kill", "after-step", rec.step)
            os.kill(os.getpid(), signal.SIGKILL)
        if rec.node_id == FAN_OUT_NODE:
            self._side.line("phase", "fan-out", "end", rec.step)

    async def save_branches(self, recs: Sequence[BranchRecord]) -> None:
        """`SQLiteStore.save_branches` between `branch-write` markers."""
        with self._phase("branch-write", recs[0].step if recs else 0):
            await super().save_branches(recs)

    async def load_branches(self, run_id: str, step: int) -> Sequence[BranchRecord]:
        """`SQLiteStore.load_branches`, opening a `fan-out` marker (the engine calls it to start one)."""
        self._side.line("phase", "fan-out", "begin", step)
        return await super().load_branches(run_id, step)

    async def set_status(self, run_id: str, status: RunStatus, **options: Any) -> None:
        """`SQLiteStore.set_status` (its keyword options passed on) between `status-write` markers."""
        with self._phase("status-write", 0):
            await super().set_status(run_id, status, **options)


async def _pause() -> None:
    """Sleep 0-3 ms (timing only, never content) so kills land inside nodes and fan-outs."""
    await asyncio.sleep(random.random() * 0.003)


def build(store: SQLiteStore, side: SideLog, *, kill_in_answer: bool = False) -> Engine[CrashState]:
    """The crash graph: a loop of ticks with detours to every flow feature.

    `tick` increments `i` and picks the next node from it:
    - `i % 10 == 3` -> `flaky`: fails on its first attempt at every step, succeeds on the retry;
    - `i % 10 == 6` -> `risky`: at even steps fails on every attempt and is routed to `recover`
      (the error route); at odd steps fails once and succeeds on the retry;
    - `i % 15 == 9` -> `split`: a fan-out of `WIDTH` map branches of `work` (branch 2 fails on its
      first attempt), joined by `join`;
    - `i == 25` -> `ask`: interrupts; resumed with `ANSWER`;
    - `i == LAST_TICK` -> stop; otherwise `tick` again.
    Every node logs its execution to `side` just before it returns or raises. With
    `kill_in_answer`, the process SIGKILLs itself inside `ask` when it runs with the answer.
    """

    def log(ctx: Context) -> None:
        b = "-" if ctx.branch is None else ctx.branch
        side.line("exec", ctx.step, ctx.node_id, b, ctx.attempt)

    async def tick(ctx: Context, s: CrashState) -> NodeResult[CrashState]:
        await _pause()
        i = s.i + 1
        if i >= LAST_TICK:
            nxt = stop()
        elif i % 15 == 9:
            nxt = goto("split")
        elif i == 25:
            nxt = goto("ask")
        elif i % 10 == 3:
            nxt = goto("flaky")
        elif i % 10 == 6:
            nxt = goto("risky")
        else:
            nxt = goto("tick")
        log(ctx)
        return NodeResult(delta=CrashState(i=i, trace=[f"tick{i}@{ctx.step}"]), route=nxt)

    async def flaky(ctx: Context, s: CrashState) -> NodeResult[CrashState]:
        await _pause()
        log(ctx)
        if ctx.attempt == 1:
            raise ConnectionError(f"flaky down at step {ctx.step}")
        return NodeResult(delta=CrashState(trace=[f"flaky@{ctx.step}#{ctx.attempt}"]), route=goto("tick"))

    async def risky(ctx: Context, s: CrashState) -> NodeResult[CrashState]:
        await _pause()
        log(ctx)
        if ctx.step % 2 == 0 or ctx.attempt == 1:
            raise ValueError(f"risky failed at step {ctx.step}")
        return NodeResult(delta=CrashState(trace=[f"risky@{ctx.step}#{ctx.attempt}"]), route=goto("tick"))

    def back_to_tick(entry: Callable[[Context, CrashState], str]) -> Callable[..., Any]:
        """A node that only traces `entry(ctx, state)` and goes back to tick."""

        async def node(ctx: Context, s: CrashState) -> NodeResult[CrashState]:
            await _pause()
            log(ctx)
            return NodeResult(delta=CrashState(trace=[entry(ctx, s)]), route=goto("tick"))

        return node

    recover = back_to_tick(lambda ctx, s: f"recover@{ctx.step}:{s.last_error}")
    join = back_to_tick(lambda ctx, s: f"join@{ctx.step}:{s.acc}")

    async def split(ctx: Context, s: CrashState) -> NodeResult[CrashState]:
        await _pause()
        log(ctx)
        branches = [Branch("work", CrashState(item=k)) for k in range(WIDTH)]
        return NodeResult(delta=CrashState(trace=[f"split@{ctx.step}"]), route=fan_out(branches, join="join"))

    async def work(ctx: Context, s: CrashState) -> NodeResult[CrashState]:
        await _pause()
        await _pause()
        log(ctx)
        if s.item == 2 and ctx.attempt == 1:
            raise ConnectionError(f"branch {ctx.branch} down at step {ctx.step}")
        return NodeResult(delta=CrashState(trace=[f"work{s.item}@{ctx.step}"], acc=ctx.step * (s.item + 1)))

    async def ask(ctx: Context, s: CrashState) -> NodeResult[CrashState]:
        await _pause()
        if not ctx.resumed:
            log(ctx)
        answer = ctx.interrupt({"question": f"go on after tick {s.i}?"})
        if kill_in_answer:
            side.line("note", "self-kill", "answer", ctx.step)
            os.kill(os.getpid(), signal.SIGKILL)
        log(ctx)
        return NodeResult(delta=CrashState(answer=str(answer), trace=[f"ask@{ctx.step}"]), route=goto("tick"))

    g = Engine(CrashState, store=store, options=Options(retries=1, max_steps=500, snapshot_every=16))
    for name, fn in (
        ("tick", tick),
        ("flaky", flaky),
        ("risky", risky),
        ("recover", recover),
        ("split", split),
        ("work", work),
        ("join", join),
        ("ask", ask),
    ):
        g.add(name, fn)
    g.start_at("tick").on_error("risky", "recover")
    return g


async def waiting_for_input(g: Engine[CrashState], run_id: str) -> bool:
    """Whether the run's last committed step paused it (its stored route is an interrupt).

    Read from the step record, not the run status: the status is a separate write, so a kill
    can leave a paused run marked `running` (see `test_interrupt_survives_a_kill_*`).
    """
    steps = await g.history(run_id)
    return bool(steps) and steps[-1].route.kind is NextKind.INTERRUPT


async def _last_step(store: SQLiteStore, run_id: str) -> int:
    latest = await store.load_latest(run_id)
    return 0 if latest is None else latest.last_step


async def drive_to_end(
    g: Engine[CrashState], store: SQLiteStore, side: SideLog, run_id: str, *, by_status: bool = False
) -> CrashState:
    """Run or resume `run_id` until it is done, answering its interrupt with `ANSWER`.

    Logs a `start` line first (the last committed step and the committed branches of the next
    step), then: no run yet -> `run`; else `resume`, with `input=ANSWER` when the last committed
    step is an interrupt (or, with `by_status`, when `get_interrupt` reports one, which is what
    the public API offers). Repeats until the run's status is `done`, then logs `done`.
    A disagreement between the two ways of asking is logged as a note.
    """
    last = await _last_step(store, run_id)
    landed = sorted(b.branch for b in await store.load_branches(run_id, last + 1))
    side.line("start", last, ",".join(map(str, landed)) or "-")
    if await store.get_run(run_id) is None:
        await g.run(run_id, CrashState())
    while True:
        run = await g.get_run(run_id)
        if run.status is RunStatus.DONE:
            break
        paused = await waiting_for_input(g, run_id)
        reported = await g.get_interrupt(run_id) is not None
        if paused != reported:
            # The run status disagrees with the last committed step: a kill landed between them.
            side.line("note", "interrupt-status-lag", run.status.value)
            paused = reported if by_status else paused
        if paused:
            await g.resume(run_id, input=ANSWER)
        else:
            await g.resume(run_id)
    side.line("done")
    return await g.get_state(run_id)


@dataclass(frozen=True, slots=True)
class Start:
    """A `start` line: what a process found committed before it ran anything."""

    pid: int
    last: int
    branches: frozenset[int]


@dataclass(frozen=True, slots=True)
class Exec:
    """An `exec` line: one finished node execution."""

    pid: int
    step: int
    node: str
    branch: int | None
    attempt: int


@dataclass(frozen=True, slots=True)
class Phase:
    """A `phase` line: a store write or fan-out beginning or ending."""

    pid: int
    what: str
    edge: str
    step: int


@dataclass(slots=True)
class Parsed:
    """The side log, parsed: lines in file order and per pid."""

    starts: dict[int, Start] = field(default_factory=dict)
    execs: list[Exec] = field(default_factory=list)
    phases: dict[int, list[Phase]] = field(default_factory=dict)
    done: set[int] = field(default_factory=set)
    notes: list[tuple[int, str]] = field(default_factory=list)
    last_line: dict[int, str] = field(default_factory=dict)


def read_side_log(path: str | Path) -> Parsed:
    """Parse a side log; raises `ValueError` naming the line for anything malformed."""
    out = Parsed()
    # A child killed between its `ready` line and opening the log leaves no file: nothing ran.
    text = Path(path).read_text() if Path(path).exists() else ""
    for n, raw in enumerate(text.splitlines(), 1):
        parts = raw.split()
        try:
            kind, pid = parts[0], int(parts[1])
            out.last_line[pid] = raw
            if kind == "start":
                got = frozenset() if parts[3] == "-" else frozenset(int(b) for b in parts[3].split(","))
                out.starts[pid] = Start(pid, int(parts[2]), got)
            elif kind == "exec":
                branch = None if parts[4] == "-" else int(parts[4])
                out.execs.append(Exec(pid, int(parts[2]), parts[3], branch, int(parts[5])))
            elif kind == "phase":
                out.phases.setdefault(pid, []).append(Phase(pid, parts[2], parts[3], int(parts[4])))
            elif kind == "done":
                out.done.add(pid)
            elif kind == "note":
                out.notes.append((pid, " ".join(parts[2:])))
            else:
                raise ValueError(kind)
        except (IndexError, ValueError) as exc:
            raise ValueError(f"side log {path}: line {n} is malformed: {raw!r}") from exc
    return out
