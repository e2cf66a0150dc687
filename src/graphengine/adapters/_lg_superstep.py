"""LangGraph's superstep, one piece at a time, for the engine to drive (see `_from_langgraph`).

A LangGraph run is a sequence of supersteps over channels: the tasks triggered at step `k`
(nodes whose trigger channels moved, and `Send`s) all run on the same channel values, their
writes are applied together through the channels' reducers, and the updated channels decide
the tasks of step `k + 1`. This module does each part with LangGraph's own functions on the
compiled graph (`prepare_next_tasks`, `apply_writes`, `create_checkpoint`, `should_interrupt`,
`arun_with_retry`), so channels, reducers, `Send`, `Command`, waiting edges, `interrupt()`,
retry policies and subgraphs behave as in LangGraph; the engine only decides when each part
runs and stores what must survive.

What survives is text: a checkpoint and task writes are encoded with LangGraph's serializer
(`JsonPlusSerializer`, the one its savers use, no pickle) and base64, so whatever LangGraph can
persist, the engine's JSON state can hold.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, is_dataclass
from typing import Any

from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.runnables import RunnableConfig
from langgraph._internal._config import patch_configurable
from langgraph._internal._constants import (
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_RESUME_MAP,
    CONFIG_KEY_RESUMING,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_SEND,
    ERROR,
    INPUT,
    INTERRUPT,
    NULL_TASK_ID,
    RESUME,
)
from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import Checkpoint
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.errors import GraphBubbleUp
from langgraph.graph.message import add_messages
from langgraph.pregel._algo import (
    PregelTaskWrites,
    apply_writes,
    increment,
    prepare_next_tasks,
    prepare_node_error_handler_task,
    should_interrupt,
)
from langgraph.pregel._checkpoint import (
    channels_from_checkpoint,
    copy_checkpoint,
    create_checkpoint,
    empty_checkpoint,
)
from langgraph.pregel._io import map_command, map_input, read_channels
from langgraph.pregel._retry import arun_with_retry
from langgraph.runtime import DEFAULT_RUNTIME
from langgraph.types import Command, PregelExecutableTask, _interrupt_id
from pydantic import BaseModel

from ._lg_subgraphs import SubgraphSaver

__all__ = ["Live", "Pregelish", "decode", "encode"]

_SERDE = JsonPlusSerializer()
_ID_SPACE = uuid.UUID("6f1c3c9e-9a5b-4d55-9a0c-51a1e2f0c7d1")


def encode(obj: Any) -> str:
    """`obj` as text: LangGraph's serializer (type tag and bytes), the bytes in base64."""
    tag, data = _SERDE.dumps_typed(obj)
    return f"{tag}:{base64.b64encode(data).decode('ascii')}"


def decode(text: str) -> Any:
    """The value `encode` gave `text` for."""
    tag, _, data = text.partition(":")
    return _SERDE.loads_typed((tag, base64.b64decode(data)))


@dataclass(slots=True)
class Live:
    """One run's channels in memory, as of a committed barrier (identified by `token`)."""

    token: str
    """The barrier commit these objects belong to (the engine state's `token`)."""
    checkpoint: Checkpoint
    """LangGraph's checkpoint dict (versions, versions seen, the channel values at the last apply)."""
    channels: Mapping[str, Any]
    """The live channel objects."""
    managed: Any
    """Managed values (LangGraph's `RemainingSteps`, ...)."""
    step: int
    """The LangGraph step whose tasks run next."""
    stop: int
    """The last step allowed by the recursion limit."""
    pending: list[tuple[str, str, Any]] = field(default_factory=list)
    """Resume writes the next tasks read (`interrupt()` answers)."""
    resume_map: dict[str, Any] | None = None
    """Answers by interrupt id (`Command(resume={id: value})`)."""
    tasks: list[PregelExecutableTask] | None = None
    """The tasks of `step` still to run, in branch order (None: not prepared yet)."""
    updated: set[str] | None = None
    """The channels the last apply changed (LangGraph's shortcut to the triggered nodes)."""
    context: Any = None
    """LangGraph's `Runtime` carrying the context of the call driving the run, or None."""
    configurable: Mapping[str, Any] | None = None
    """`config["configurable"]` of the call driving the run (nodes read it from their config), or None."""
    resuming: bool = False
    """Whether the tasks of `step` continue after a pause (LangGraph tells subgraphs so)."""
    failed: set[str] = field(default_factory=set)
    """Tasks of `step` that raised in this process: run again, they continue their subgraphs'
    checkpoints, as LangGraph's `invoke(None)` after an error does."""
    renamed: Mapping[str, str] | None = None
    """Interrupt ids shown (the recorded ones, on replay) -> the ids the subgraphs gave them in this
    process: answers by id (`resume_map`) reach the subgraphs under their own ids."""
    results: dict[str, Any] = field(default_factory=dict)
    """Finished tasks' records as the tasks returned them (the stored copies decode to equal values,
    but a value LangGraph's serializer does not restore, such as a model of a class it does not
    know, stays what the node returned within the process, as in LangGraph's own loop)."""


class Pregelish:
    """The parts of a superstep for one compiled LangGraph graph."""

    def __init__(
        self, compiled: Any, recursion_limit: int, subgraphs: SubgraphSaver, store: Any = None
    ) -> None:
        self.graph = compiled
        self.subgraphs = subgraphs
        self.store = store
        """LangGraph's store (`BaseStore`) nodes read as `runtime.store`, or None."""
        """Where subgraphs run by tasks keep their checkpoints (thread = run id), beside the engine's store."""
        self.specs: Mapping[str, Any] = compiled.channels
        self.nodes: Mapping[str, Any] = compiled.nodes
        self.trigger_to_nodes: Mapping[str, Sequence[str]] = compiled.trigger_to_nodes
        self.retry_policy = compiled.retry_policy
        self.cache = compiled.cache
        """LangGraph's node cache (`compile(cache=...)`), or None: tasks whose key it holds do not run."""
        self.cache_policy = compiled.cache_policy
        self.interrupt_before = compiled.interrupt_before_nodes
        self.interrupt_after = compiled.interrupt_after_nodes
        self.limit = recursion_limit
        self.delta_channels = {k for k, v in self.specs.items() if isinstance(v, DeltaChannel)}
        self.message_channels = {
            k
            for k, v in self.specs.items()
            if isinstance(v, BinaryOperatorAggregate) and v.operator is add_messages
        }

    # ------------------------------------------------------------------ state <-> live

    def config(self, run_id: str, live: Live) -> RunnableConfig:
        """The run config LangGraph's loop would hand `prepare_next_tasks`."""
        conf: dict[str, Any] = {
            **(live.configurable or {}),
            "thread_id": run_id,
            CONFIG_KEY_CHECKPOINT_NS: "",
            CONFIG_KEY_RUNTIME: DEFAULT_RUNTIME if live.context is None else live.context,
        }
        if live.resume_map is not None:
            renamed = live.renamed or {}
            conf[CONFIG_KEY_RESUME_MAP] = {renamed.get(k, k): v for k, v in live.resume_map.items()}
        if live.resuming:
            conf[CONFIG_KEY_RESUMING] = True  # subgraphs continue from their checkpoints
        return patch_configurable({"recursion_limit": self.limit, "callbacks": None}, conf)

    def runtime(self, context: Any) -> Any:
        """LangGraph's `Runtime` for a run given `context` (coerced to the graph's context schema), or None."""
        if context is None:
            return None
        schema = self.graph.context_schema
        # As LangGraph's invoke: a dict becomes the context schema when that is a model or dataclass.
        if (
            isinstance(context, dict)
            and isinstance(schema, type)
            and (issubclass(schema, BaseModel) or is_dataclass(schema))
        ):
            context = schema(**context)
        return DEFAULT_RUNTIME.override(context=context)

    def restore(self, token: str, text: str, step: int, stop: int, pending: str) -> Live:
        """Live channels rebuilt from a stored checkpoint (a resume in another process)."""
        cp = decode(text)
        channels, managed = channels_from_checkpoint(self.specs, cp)
        pw, rmap, resuming = decode(pending) if pending else ([], None, False)
        updated = cp.get("updated_channels")
        return Live(
            token,
            cp,
            channels,
            managed,
            step,
            stop,
            [tuple(w) for w in pw],
            rmap,
            updated=None if updated is None else set(updated),
            resuming=resuming,
        )

    def snapshot(self, live: Live) -> str:
        """The checkpoint of `live` as text (every channel's current value)."""
        cp = create_checkpoint(
            live.checkpoint,
            live.channels,
            live.step,
            id=live.checkpoint["id"],
            channels_to_snapshot=set(self.delta_channels),
            get_next_version=increment,
        )
        cp["ts"] = ""  # the same run gives the same stored state
        return encode(cp)

    # ------------------------------------------------------------------ the parts

    def begin(self, run_id: str, token: str, value: Any) -> Live:
        """A fresh run: the input mapped through the input channels, as LangGraph's first checkpoint."""
        cp = empty_checkpoint()
        cp["id"] = self._checkpoint_id(run_id, -1)
        channels, managed = channels_from_checkpoint(self.specs, cp)
        if isinstance(value, Command):
            # As LangGraph's loop given a Command on a new thread: its writes are stored as pending
            # writes of the input checkpoint and applied first, then the Command goes to START
            # as the input too (so an update lands twice); only the input's channels trigger.
            null = [(c, v) for tid, c, v in map_command(value) if tid == NULL_TASK_ID and c != RESUME]
            if null:
                pending = self._with_ids(run_id, -1, [PregelTaskWrites((), INPUT, null, [])], "command")
                apply_writes(cp, channels, pending, increment, self.trigger_to_nodes)
        writes = list(map_input(self.graph.input_channels, value))
        given = self._with_ids(run_id, -1, [PregelTaskWrites((), INPUT, writes, [])])
        updated = apply_writes(cp, channels, given, increment, self.trigger_to_nodes)
        live = Live(token, cp, channels, managed, 0, self.limit, updated=updated)
        self._advance(run_id, live, -1)
        return live

    def turn(self, run_id: str, live: Live, value: Any) -> None:
        """New input on a thread that has run, as LangGraph's next `invoke` of the thread: mapped
        through the input channels onto its channels one step after its last checkpoint, with a
        fresh recursion limit; what its last step left pending (an interrupt) is dropped."""
        live.pending, live.resume_map, live.results, live.failed, live.resuming = [], None, {}, set(), False
        step = live.step + 1  # `live.step` holds the last checkpoint (a finished or paused step)
        writes = list(map_input(self.graph.input_channels, value))
        given = self._with_ids(run_id, step, [PregelTaskWrites((), INPUT, writes, [])])
        live.updated = apply_writes(live.checkpoint, live.channels, given, increment, self.trigger_to_nodes)
        self._advance(run_id, live, step)
        live.stop = live.step + self.limit

    def answer(self, run_id: str, live: Live, value: Any) -> None:
        """Continue past a pause: `value` (a `Command` or an `interrupt()` answer) becomes LangGraph's resume writes."""
        cmd = value if isinstance(value, Command) else Command(resume=value)
        live.stop = live.step + self.limit + 1
        live.resuming = True
        resume = cmd.resume
        if isinstance(resume, dict) and resume and all(_is_interrupt_id(k) for k in resume):
            live.resume_map = dict(resume)
            cmd = Command(update=cmd.update, goto=cmd.goto, graph=cmd.graph)
        null_writes: list[tuple[str, Any]] = []
        # As a saver keeps them: one resume write per task (the latest), one unaddressed answer.
        kept: dict[tuple[str, str], Any] = {
            (tid, chan): v for tid, chan, v in live.pending if not (tid == NULL_TASK_ID and chan == RESUME)
        }
        for tid, chan, v in map_command(cmd):
            if tid == NULL_TASK_ID and chan != RESUME:
                null_writes.append((chan, v))
            else:
                kept[(tid, chan)] = v
        live.pending = [(tid, chan, v) for (tid, chan), v in kept.items()]
        if null_writes:
            given = self._with_ids(
                run_id, live.step, [PregelTaskWrites((), INPUT, null_writes, [])], "answer"
            )
            updated = apply_writes(live.checkpoint, live.channels, given, increment, self.trigger_to_nodes)
            live.updated = (live.updated or set()) | updated
        seen = live.checkpoint["versions_seen"].setdefault(INTERRUPT, {})
        for k, version in live.checkpoint["channel_versions"].items():
            if k in live.channels:
                seen[k] = version

    def prepare(self, run_id: str, live: Live, done: Sequence[str]) -> list[PregelExecutableTask]:
        """The tasks of `live.step`, in LangGraph's order, without those already `done`."""
        tasks = prepare_next_tasks(
            live.checkpoint,
            live.pending,
            self.nodes,
            live.channels,
            live.managed,
            self.config(run_id, live),
            live.step,
            live.stop,
            for_execution=True,
            store=self.store,
            manager=None,
            trigger_to_nodes=self.trigger_to_nodes,
            updated_channels=live.updated,
            retry_policy=self.retry_policy,
            cache_policy=self.cache_policy,
            checkpointer=self.subgraphs,
        )
        skip = set(done)
        live.tasks = [t for t in tasks.values() if t.id not in skip]
        if self.message_channels:
            for t in live.tasks:
                self._send_with_ids(t)
        return live.tasks

    def _send_with_ids(self, task: PregelExecutableTask) -> None:
        """Make `task`'s writes to `add_messages` channels carry ids as they are written.

        A conditional edge reads the state with the task's own writes applied, through
        `add_messages`, which gives a message without an id a random one in place, inside the
        task, before its writes are recorded: ids derived from the task id (itself derived from
        the run and the step) and the write's place leave the reducer nothing to draw.
        """
        conf = task.config.get("configurable")
        send = None if conf is None else conf.get(CONFIG_KEY_SEND)
        if send is None:
            return
        writes, channels, tid = task.writes, self.message_channels, task.id

        def send_with_ids(new: Sequence[tuple[str, Any]]) -> None:
            first = len(writes)
            send(
                [
                    (c, _ids_given(v, f"{tid}\x00send\x00{first + k}") if c in channels else v)
                    for k, (c, v) in enumerate(new)
                ]
            )

        assert conf is not None
        conf[CONFIG_KEY_SEND] = send_with_ids

    @staticmethod
    def own_interrupts(task: PregelExecutableTask, interrupts: Sequence[Any], answered: int) -> bool:
        """Whether `interrupts` are `task`'s own `interrupt()` calls, not a subgraph's: their ids
        derive from the task's namespace (so from the run and the step) and are the same on every
        execution; a subgraph's derive from its own checkpoints, made anew by a replay."""
        ns = (task.config.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINT_NS, "")
        own = {_interrupt_id(ns, k) for k in range(answered + len(interrupts) + 1)}
        return all(getattr(i, "id", None) in own for i in interrupts)

    @staticmethod
    def failed(live: Live, task: PregelExecutableTask, committed: str) -> None:
        """Note that `task` raised: it runs again on the next resume, with the answers it had read.

        As LangGraph's saver keeps what a failed step was given and a failed task's writes: the
        answer given to the step (`committed` is the step's stored `pending`), which the task
        reading it took out of `live.pending`, is pending again, and the answers the task's
        `interrupt()` calls took stay pending as its own resume write, so its next run reads the
        same answers and a new answer given then does not replace them.
        """
        live.failed.add(task.id)
        answers = [v for c, v in task.writes if c == RESUME]
        if not answers:
            return
        kept = [w for w in live.pending if not (w[0] == task.id and w[1] == RESUME)]
        if not any(w[0] == NULL_TASK_ID and w[1] == RESUME for w in kept):
            stored = decode(committed)[0] if committed else []
            kept += [tuple(w) for w in stored if w[0] == NULL_TASK_ID and w[1] == RESUME]
        # In place: the scratchpads of the step's other tasks read this list.
        live.pending[:] = [*kept, (task.id, RESUME, answers[-1])]

    def breakpoint(self, live: Live, names: Any, tasks: Sequence[Any]) -> list[str]:
        """The names of `tasks` a breakpoint list `names` stops at (LangGraph's rule: only after an update)."""
        if not names:
            return []
        return [t.name for t in should_interrupt(live.checkpoint, names, tasks)]

    async def run_task(self, live: Live, task: PregelExecutableTask) -> PregelExecutableTask:
        """Run one task with its retry policy; returns the task whose writes count.

        That is `task`, or, when it failed and its node has an error handler (`add_node(...,
        error_handler=)`), the handler's task LangGraph runs in its place in the same step.
        Raises what the task raised otherwise (`GraphInterrupt` for an `interrupt()`).
        """
        task.writes.clear()
        key = (task.cache_key.ns, task.cache_key.key) if self.cache is not None and task.cache_key else None
        if key is not None:
            hit = await self.cache.aget([key])
            if key in hit:  # as LangGraph's loop: the cached writes stand for the run
                task.writes.extend(hit[key])
                return task
        again = {CONFIG_KEY_RESUMING: True} if task.id in live.failed else None
        try:
            await arun_with_retry(task, self.retry_policy, configurable=again)
            if key is not None and task.cache_key is not None and _cacheable(task.writes):
                await self.cache.aset({key: (list(task.writes), task.cache_key.ttl)})
        except GraphBubbleUp:
            raise
        except Exception as exc:
            handler = getattr(self.nodes[task.name], "error_handler_node", None)
            if not handler:
                raise
            fallback = prepare_node_error_handler_task(
                task,
                handler_node_name=handler,
                failed_error=exc,
                checkpoint=live.checkpoint,
                pending_writes=live.pending,
                processes=self.nodes,
                channels=live.channels,
                managed=live.managed,
                config=task.config,
                step=live.step,
                stop=live.stop,
                checkpointer=self.subgraphs,
                store=self.store,
                retry_policy=self.retry_policy,
            )
            if fallback is None:
                raise
            await arun_with_retry(fallback, self.retry_policy)
            return fallback
        return task

    def apply(self, run_id: str, live: Live, finished: Sequence[PregelTaskWrites]) -> None:
        """Apply the writes of a superstep's tasks together, then move to the next step."""
        given = self._with_ids(run_id, live.step, finished)
        live.updated = apply_writes(live.checkpoint, live.channels, given, increment, self.trigger_to_nodes)
        live.pending = []
        live.resume_map = None
        live.results = {}
        live.failed = set()
        live.resuming = False
        self._advance(run_id, live, live.step)

    def output(self, live: Live) -> Any:
        """What LangGraph's `invoke` returns: the output channels' values."""
        return read_channels(live.channels, self.graph.output_channels)

    def output_with(self, live: Live, finished: Sequence[PregelTaskWrites]) -> Any:
        """The output with `finished` tasks' writes applied to a copy of the channels (an interrupted step's view)."""
        if not any(w.writes for w in finished):
            return self.output(live)
        cp = copy_checkpoint(live.checkpoint)
        channels, _ = channels_from_checkpoint(self.specs, decode(self.snapshot(live)))
        apply_writes(cp, channels, finished, increment, self.trigger_to_nodes)
        return read_channels(channels, self.graph.output_channels)

    def _advance(self, run_id: str, live: Live, step: int) -> None:
        cp = create_checkpoint(
            live.checkpoint,
            live.channels,
            step,
            id=self._checkpoint_id(run_id, step + 1),
            updated_channels=live.updated,
        )
        cp["ts"] = ""
        live.checkpoint = cp
        live.step = step + 1
        live.tasks = None

    def _with_ids(
        self, run_id: str, step: int, tasks: Sequence[PregelTaskWrites], why: str = ""
    ) -> Sequence[PregelTaskWrites]:
        """`tasks` with an id on every message written to an `add_messages` channel.

        `add_messages` gives a message without an id a random one; ids made here from the run,
        the step and the write's place instead make the same run store the same messages, so
        the engine's replay finds no divergence. (LangGraph's ids are random: no caller can
        depend on their value.)
        """
        if not self.message_channels:
            return tasks
        out: list[PregelTaskWrites] = []
        for t in tasks:
            writes = list(t.writes)
            for k, (chan, value) in enumerate(writes):
                if chan in self.message_channels:
                    seed = f"{run_id}\x00{step}\x00{why}\x00{t.path!r}\x00{t.name}\x00{k}"
                    writes[k] = (chan, _ids_given(value, seed))
            out.append(t._replace(writes=writes))
        return out

    @staticmethod
    def _checkpoint_id(run_id: str, step: int) -> str:
        # Task ids (and so interrupt ids) derive from the checkpoint id: a name-based uuid makes
        # them the same in every process that runs this step of this run.
        return str(uuid.uuid5(_ID_SPACE, f"{run_id}\x00{step}"))


def _cacheable(writes: Sequence[tuple[str, Any]]) -> bool:
    # As LangGraph's loop: a hit skips the node, so writes that pause or fail are never cached.
    return not any(c in (INTERRUPT, ERROR) for c, _ in writes)


def _is_interrupt_id(key: Any) -> bool:
    return isinstance(key, str) and len(key) == 32 and all(c in "0123456789abcdef" for c in key)


def _ids_given(value: Any, seed: str) -> Any:
    """`value` (what a node wrote to an `add_messages` channel) with ids derived from `seed` where missing."""
    items = value if isinstance(value, list) else [value]
    try:
        msgs = convert_to_messages(items)
    except Exception:  # not messages: the reducer raises its own error on it, as in LangGraph
        return value
    out: list[BaseMessage] = []
    for i, m in enumerate(msgs):
        if m.id is None:
            m = m.model_copy(update={"id": str(uuid.uuid5(_ID_SPACE, f"{seed}\x00{i}"))})
        out.append(m)
    return out
