"""`from_langgraph(builder)`: a LangGraph `StateGraph` run by the engine with LangGraph's semantics.

Each LangGraph superstep is two engine steps:

- a fan-out whose branches are the superstep's tasks (one engine node per LangGraph node, so
  events and spans name them); each branch runs its task with LangGraph's runner and returns
  the task's writes, and the engine stores each branch as it lands, so a process killed
  mid-superstep re-runs only the tasks that had not finished;
- the barrier (`BARRIER`, the join and the start node): it applies the writes of all tasks
  together through the channels' reducers, computes the next tasks (edges, waiting edges,
  conditional edges, `Send`, `Command`) and stops, pauses (a breakpoint, an `interrupt()`) or
  fans out again.

The engine state (`PregelState`) holds LangGraph's checkpoint and the finished tasks' writes as
text (`_lg_superstep.encode`); the live channel objects are kept in memory between a barrier
and the next, keyed by a hash of what the barrier committed, and rebuilt from the stored
checkpoint in any other process.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any, TypedDict

from langgraph._internal._constants import INTERRUPT, RESUME
from langgraph.errors import ErrorCode, GraphInterrupt, GraphRecursionError, create_error_message
from langgraph.graph import StateGraph
from langgraph.pregel._algo import PregelTaskWrites
from langgraph.types import Command, Interrupt
from pydantic_core import to_jsonable_python

from graphengine import UPDATE_NODE, ReplayReport, run_blocking
from graphengine.context import NOT_GIVEN, Context
from graphengine.engine import Engine
from graphengine.errors import GraphError, NodeError, RunExistsError, UnsupportedFeature
from graphengine.options import Options
from graphengine.result import NodeResult
from graphengine.routing import Branch, fan_out, interrupt, stop

from ._lg_edit import edited
from ._lg_subgraphs import SubgraphSaver, subgraph_table
from ._lg_superstep import Live, Pregelish, decode, encode

__all__ = ["BARRIER", "AdaptedGraph", "PregelState", "from_langgraph"]

BARRIER = "__superstep__"
"""The engine node that ends one superstep and starts the next."""

_NO_INPUT: Any = object()
_NO_CONTEXT: tuple[Any, Any] = (None, None)
_EDITED = "edited"
_LIVE_MAX = 256
# The engine's own step limit only guards against a runaway barrier: LangGraph's recursion
# limit (checked by the barrier, as LangGraph's loop checks it) is the one users see.
_ENGINE_MAX_STEPS = 2**31 - 1


class PregelState(TypedDict):
    """The engine state of an adapted LangGraph run (text fields are `_lg_superstep.encode`d)."""

    token: str
    """Identifies the last barrier commit (a hash of what it stored); "" before the first."""
    checkpoint: str
    """LangGraph's checkpoint after the last applied superstep."""
    step: int
    """The LangGraph step whose tasks run next."""
    stop: int
    """The last LangGraph step the recursion limit allows."""
    pending: str
    """Resume writes and answers by interrupt id the next tasks read, or ""."""
    input: str
    """The run's input until the first barrier maps it onto the channels, then ""."""
    pause: str
    """"before"/"after" while the run waits at a breakpoint, else "" (an `interrupt()` shows in `intr`)."""
    done: dict[str, str]
    """Tasks of the current step that finished: task id -> (name, path, triggers, writes)."""
    intr: dict[str, str]
    """Tasks of the current step that called `interrupt()`: task id -> (interrupts, resume writes)."""


_ANSWER_KEY = "lg_answer"


def _recorded_answer(value: Any) -> Any:
    """A resume answer as the engine records it: LangGraph's serializer's text (`encode`) in a
    one-key dict, so that a `Command`, a model or a tuple reads back as itself on replay (the
    engine takes only values JSON keeps exactly). `None` stays None (no answer)."""
    return None if value is None else {_ANSWER_KEY: encode(value)}


def _answer_of(recorded: Any) -> Any:
    """The answer `_recorded_answer` recorded; a run recorded before it was used holds the plain value."""
    if type(recorded) is dict and len(recorded) == 1 and type(recorded.get(_ANSWER_KEY)) is str:
        return decode(recorded[_ANSWER_KEY])
    return recorded


def _reduce(prev: PregelState, delta: PregelState) -> PregelState:
    """A barrier's delta is the whole state; a task's adds its entry to `done` or `intr`; a new
    turn's (`continue_run`) sets `input` and drops what the last turn left pending."""
    if "token" in delta:
        return delta
    if "input" in delta:
        return {**prev, "input": delta["input"], "pause": "", "done": {}, "intr": {}}
    out = dict(prev)
    if "done" in delta:
        out["done"] = {**prev["done"], **delta["done"]}
    if "intr" in delta:
        out["intr"] = {**prev["intr"], **delta["intr"]}
    return out


_reduce.pure = True  # type: ignore[attr-defined]  # never changes what it is given


class AdaptedGraph:
    """A LangGraph `StateGraph` on the engine: `run`/`resume` take and return what LangGraph's `invoke` does.

    `engine` is the underlying `Engine[PregelState]` (its store holds the runs; `replay`,
    `fork`, history and emitters work on it as on any engine).
    """

    def __init__(
        self,
        builder: StateGraph[Any],
        engine_kw: Mapping[str, Any],
        compile_kw: Mapping[str, Any],
        langgraph_store: Any = None,
    ):
        options: Options | None = engine_kw.get("options")
        limit = options.max_steps if options is not None else _default_limit()
        inner = (options or Options()).with_(max_steps=_ENGINE_MAX_STEPS)
        self.graph: Any = builder.compile(**compile_kw)
        """The compiled LangGraph graph whose channels and nodes the engine runs."""
        eng: Engine[Any] = Engine(PregelState, reducer=_reduce, **{**engine_kw, "options": inner})
        self.pregel = Pregelish(self.graph, limit, SubgraphSaver(subgraph_table(eng.store)), langgraph_store)
        self.recursion_limit = limit
        """LangGraph supersteps a run may take (`Options.max_steps`, else LangGraph's default)."""
        self._live: dict[str, Live] = {}
        # run id -> LangGraph Runtime and `configurable` of the call driving it
        self._contexts: dict[str, tuple[Any, Mapping[str, Any] | None]] = {}
        self._calls: dict[Any, int] = {}  # event loop -> run/resume calls under way on it
        # run id -> {interrupt id shown (recorded) -> id its subgraph gave it in this process}
        self._renamed: dict[str, dict[str, str]] = {}
        eng.add(BARRIER, self._barrier)
        for name in self.graph.nodes:
            try:
                eng.add(name, self._task)
            except GraphError as exc:  # an id the engine's stores cannot hold, or one it reserves
                raise UnsupportedFeature(
                    f"node {name!r} cannot be an engine node ({exc}); rename it",
                    feature="node name",
                    node_id=name,
                ) from exc
        eng.start_at(BARRIER)
        eng.validate()
        self.engine: Engine[Any] = eng
        """The engine that runs and stores the adapted graph."""

    # ------------------------------------------------------------------ public API

    async def run(self, run_id: str, input: Any, *, context: Any = None, config: Any = None) -> Any:
        """Run `input` (what LangGraph's `invoke` takes) on thread `run_id`; returns what `invoke` returns.

        The run id is LangGraph's thread id. On a new id this starts the run; on a stored one it
        is LangGraph's next `invoke` of the thread: `input` goes through the input channels onto
        the thread's channels and the graph runs again from START, as a new turn of the engine
        run (`Engine.continue_run`; what the last turn left pending is dropped, as LangGraph
        does), while `None` or a `Command` continues the pending step as `resume` does.

        `context` is LangGraph's run context (`invoke(context=...)`, read by nodes through their
        `runtime` parameter) and `config` LangGraph's run config, whose `configurable` values
        reach the nodes' `config["configurable"]` (its `thread_id`, if given, must be `run_id`);
        as in LangGraph both hold for this call only and are not stored.

        A run that pauses (a breakpoint or `interrupt()`) returns the values so far, with
        `"__interrupt__"` listing the interrupts as LangGraph does. Raises what the engine's
        `run` raises, except that LangGraph's recursion limit (per call, as LangGraph's) raises
        `GraphRecursionError`.
        """
        initial = {
            "token": "",
            "checkpoint": "",
            "step": 0,
            "stop": 0,
            "pending": "",
            "input": encode(input),
            "pause": "",
            "done": {},
            "intr": {},
        }
        # A config naming another thread (or a recursion limit of its own): refused before anything starts.
        await self._no_travel(run_id, config)
        _configurable(run_id, config, self.recursion_limit)
        if await self.engine.store.get_run(run_id) is None:
            try:
                return await self._finish(run_id, self.engine.run(run_id, initial), context, config)
            except RunExistsError:
                pass  # stored meanwhile: a thread that goes on
        if input is None or isinstance(input, Command):
            answer = _NO_INPUT if input is None else input
            return await self.resume(run_id, input=answer, context=context, config=config)
        turn = self.engine.continue_run(run_id, {"input": initial["input"]})
        return await self._finish(run_id, turn, context, config)

    def run_sync(self, run_id: str, input: Any, *, context: Any = None, config: Any = None) -> Any:
        """`run` from synchronous code, a Jupyter cell included (see `Engine.run_sync`)."""
        return run_blocking(self.run(run_id, input, context=context, config=config))

    async def resume(
        self, run_id: str, *, input: Any = _NO_INPUT, context: Any = None, config: Any = None
    ) -> Any:
        """Continue run `run_id`: past a breakpoint (its own or a subgraph's) as is, past an `interrupt()` with its answer.

        `input` is what `interrupt()` returns (or a `Command(resume=..., update=..., goto=...)`,
        or `{interrupt_id: answer}` for several pending interrupts). A run waiting on an
        `interrupt()` keeps waiting when no input is given. A failed run re-runs what failed.
        `context` and `config` are this call's run context and config, as for `run`.
        """
        await self._no_travel(run_id, config)
        _configurable(run_id, config, self.recursion_limit)
        state = await self.engine.get_state(run_id) if input is _NO_INPUT else None
        if state is not None and (
            state["pause"] in ("before", "after") or (state["intr"] and not _interrupts(state))
        ):
            input = None  # a breakpoint (of this graph or of a subgraph): nothing to answer
        coro = (
            self.engine.resume(run_id)
            if input is _NO_INPUT
            else self.engine.resume(run_id, input=_recorded_answer(input))
        )
        return await self._finish(run_id, coro, context, config)

    def resume_sync(
        self, run_id: str, *, input: Any = _NO_INPUT, context: Any = None, config: Any = None
    ) -> Any:
        """`resume` from synchronous code, a Jupyter cell included (see `Engine.run_sync`)."""
        return run_blocking(self.resume(run_id, input=input, context=context, config=config))

    async def replay(self, run_id: str, *, context: Any = None, config: Any = None) -> ReplayReport:
        """`Engine.replay` of run `run_id` with the run context and config its nodes read.

        Neither is stored (as in LangGraph): pass what the run's calls passed, or the nodes that
        read them replay to other values (a divergence). A run of many turns given different
        values per call replays with one set for all of them.
        """
        runtime = self.pregel.runtime(context)
        configurable = _configurable(run_id, config, self.recursion_limit)
        if runtime is None and not configurable:
            return await self.engine.replay(run_id, context=None)
        self._contexts[run_id] = (runtime, configurable)
        try:
            return await self.engine.replay(run_id, context=None)
        finally:
            self._contexts.pop(run_id, None)

    async def update_state(self, config: Any, values: Any, as_node: str | None = None) -> Any:
        """LangGraph's `update_state(config, values, as_node=...)` on the thread `config` names.

        LangGraph's own `update_state` makes the edit (which node it acts as, the writes and the
        edges they trigger); the engine records it as one step of the run (`Engine.update_state`,
        in its history and followed by replay). A run paused at a breakpoint stays paused there;
        otherwise it waits for `resume` (LangGraph's `invoke(None)`) to run the tasks the edit
        triggered. Returns the config of the new checkpoint, as LangGraph does. Raises
        `UnsupportedFeature` for a run paused inside `interrupt()` (answer it with `resume` first)
        and `RunNotFinishedError` for a run that is running.
        """
        run_id = ((config or {}).get("configurable") or {}).get("thread_id")
        if not isinstance(run_id, str):
            raise UnsupportedFeature(
                f'update_state needs the thread: config={{"configurable": {{"thread_id": run_id}}}}, got {config!r}',
                feature="thread id",
            )
        s = await self.engine.get_state(run_id)
        if s["intr"]:
            raise UnsupportedFeature(
                f"update_state of run {run_id!r} while it waits in interrupt(): answer it with "
                f"resume({run_id!r}, input=...) first",
                feature="update_state at interrupt()",
            )
        live = await edited(self.pregel, run_id, self._live_of(run_id, s), values, as_node)
        new = self._commit(run_id, live, {}, s["pause"] or _EDITED, None).delta
        # Next, the barrier prepares the tasks the edited checkpoint triggers (`invoke(None)`).
        await self.engine.update_state(run_id, new, as_node=BARRIER, goto=BARRIER)
        cp_id = live.checkpoint["id"]
        return {"configurable": {"thread_id": run_id, "checkpoint_ns": "", "checkpoint_id": cp_id}}

    def update_state_sync(self, config: Any, values: Any, as_node: str | None = None) -> Any:
        """`update_state` from synchronous code, a Jupyter cell included (LangGraph's sync `update_state`)."""
        return run_blocking(self.update_state(config, values, as_node))

    async def values(self, run_id: str) -> Any:
        """The output channels' values of run `run_id`, as LangGraph's `get_state(config).values`.

        That is the last applied superstep with the writes of the tasks of the next one that
        finished already (a run that failed or paused with some of its tasks done, or stopped by
        the recursion limit after its last step's tasks), as LangGraph shows its pending writes.
        """
        rt = self.engine.runtime()
        latest = await rt.latest(run_id)
        s: PregelState = rt.fold(latest)
        done = dict(s["done"])
        # A superstep that failed is not committed: its finished tasks are the fan-out's landed branches.
        step = latest.last_step + 1
        for rec in await self.engine.store.load_branches(run_id, step):
            if rec.delta is not None:
                done.update(rt.decode(rec.delta, run_id, step, f"branch {rec.branch} delta").get("done", {}))
        live = self._live_of(run_id, s)
        return self.pregel.output_with(live, self._finished(live, done))

    # ------------------------------------------------------------------ the engine's nodes

    async def _barrier(self, ctx: Context, s: PregelState) -> NodeResult[Any]:
        run_id = ctx.run_id
        lg = self.pregel
        cached = self._live.pop(run_id, None)  # changed in place below: never left stale
        done: dict[str, str] = {}
        if s["pause"] == _EDITED:  # an update_state edit: its checkpoint is applied already
            live = self._live_of(run_id, s, cached)
        elif s["input"] and s["token"]:  # a new turn of a thread that has run
            live = self._live_of(run_id, s, cached)
            lg.turn(run_id, live, decode(s["input"]))
        elif s["input"]:
            lg.subgraphs.started(run_id)
            live = lg.begin(run_id, "", decode(s["input"]))
        elif ctx.resumed:
            live = self._live_of(run_id, s, cached)
            done = s["done"]
            for tid, enc in s["intr"].items():
                interrupts, tid_writes = decode(enc)
                live.pending.extend(tid_writes)
                # As a saver keeps them: the task's interrupts are pending writes too, which is
                # what makes LangGraph read answers by interrupt id (`Command(resume={id: v})`).
                live.pending.append((tid, INTERRUPT, interrupts))
            lg.answer(run_id, live, _answer_of(ctx.resume_input))
        elif s["intr"]:
            if cached is not None:
                self._keep(run_id, cached)
            return NodeResult(delta=None, route=interrupt(_payload(s)))
        else:
            live = self._live_of(run_id, s, cached)
            finished = self._finished(live, s["done"])
            lg.apply(run_id, live, finished)
            hit = lg.breakpoint(live, lg.interrupt_after, [self._ran(w) for w in finished])
            if hit:
                return self._commit(run_id, live, {}, "after", interrupt({"after": hit}))
        live.context, live.configurable = self._context_of(ctx)
        live.renamed = self._renamed.get(run_id)
        if live.step > live.stop:
            raise GraphRecursionError(
                create_error_message(
                    message=(
                        f"Recursion limit of {self.recursion_limit} reached without hitting a stop "
                        "condition. You can increase the limit with Options(max_steps=...)."
                    ),
                    error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
                )
            )
        tasks = lg.prepare(run_id, live, list(done))
        if not tasks and not done:
            self._renamed.pop(run_id, None)
            await lg.subgraphs.ended(run_id)
            return self._commit(run_id, live, done, "", stop())
        if not ctx.resumed:
            hit = lg.breakpoint(live, lg.interrupt_before, tasks)
            if hit:
                return self._commit(run_id, live, done, "before", interrupt({"before": hit}))
        if not tasks:  # every task of an answered step had finished: apply them now
            lg.apply(run_id, live, self._finished(live, done))
            done = {}
            tasks = lg.prepare(run_id, live, [])
            if not tasks:
                await lg.subgraphs.ended(run_id)
                return self._commit(run_id, live, done, "", stop())
        return self._commit(run_id, live, done, "", fan_out([Branch(t.name) for t in tasks], join=BARRIER))

    async def _task(self, ctx: Context, s: PregelState) -> NodeResult[Any]:
        live = self._live.get(ctx.run_id)
        if live is None or live.token != s["token"] or live.tasks is None:
            if live is None or live.token != s["token"]:
                live = self._live_of(ctx.run_id, s)
                # Rebuilt from the store: the step's tasks run again in another process (after a
                # kill), as in a LangGraph run resumed with None, so their subgraphs continue
                # from their checkpoints, if they have any.
                live.resuming = True
            live.context, live.configurable = self._context_of(ctx)
            live.renamed = self._renamed.get(ctx.run_id)
            self.pregel.prepare(ctx.run_id, live, list(s["done"]))
            self._keep(ctx.run_id, live)
        assert live.tasks is not None
        assert ctx.branch is not None
        if live.tasks[ctx.branch].id in live.failed:
            # Run again after it failed: prepared afresh, as LangGraph's `invoke(None)` prepares
            # the step again (a used task keeps counters, such as the namespaces of the subgraphs
            # it called, so its subgraphs would not find their checkpoints).
            self.pregel.prepare(ctx.run_id, live, list(s["done"]))
            assert live.tasks is not None
        task = live.tasks[ctx.branch]
        try:
            ran = await self.pregel.run_task(live, task)
        except GraphInterrupt as exc:
            resumes = [(task.id, c, v) for c, v in task.writes if c == RESUME]
            interrupts = list(exc.args[0]) if exc.args else []
            if not self.pregel.own_interrupts(task, interrupts, len(resumes)):
                interrupts = await self._recorded_ids(ctx, interrupts)
            return NodeResult(delta={"intr": {task.id: encode((interrupts, resumes))}})
        except Exception:
            self.pregel.failed(live, task, s["pending"])
            raise
        record = (ran.name, ran.path, list(ran.triggers), list(ran.writes))
        live.results[task.id] = record
        return NodeResult(delta={"done": {task.id: encode(record)}})

    # ------------------------------------------------------------------ helpers

    async def _no_travel(self, run_id: str, config: Any) -> None:
        """Refuse LangGraph's time travel (a config naming a `checkpoint_id`), naming the engine
        step to fork at: the barrier step that committed that checkpoint (as `update_state`'s
        returned config names it), when the run has one."""
        wanted = ((config or {}).get("configurable") or {}).get("checkpoint_id")
        if wanted is None:
            return
        step = None
        if await self.engine.store.get_run(run_id) is not None:
            for view in await self.engine.history(run_id):
                cp = view.state.get("checkpoint") if view.node_id in (BARRIER, UPDATE_NODE) else None
                if cp and decode(cp)["id"] == wanted:
                    step = view.step
                    break
        at = (
            f"at_step={step}" if step is not None else "at_step=... (no step of it committed that checkpoint)"
        )
        raise UnsupportedFeature(
            f"config checkpoint_id={wanted!r} for run {run_id!r}: the engine keeps one line of steps per "
            f"run, so going back is a new run from that step: g.engine.fork({run_id!r}, new_run_id, {at})",
            feature="checkpoint_id",
        )

    async def _recorded_ids(self, ctx: Context, interrupts: list[Any]) -> list[Any]:
        """`interrupts` with the ids recorded with the step (`ctx.call`): the ids themselves live,
        the recorded ones on replay. An interrupt inside a subgraph gets an id from the subgraph's
        checkpoint, which a replay makes anew: replay shows the recorded one, and answers sent to
        it (`Command(resume={id: value})`) reach the subgraph under the id it gave (`Live.renamed`)."""
        actual = [i.id for i in interrupts if isinstance(i, Interrupt)]
        if len(actual) != len(interrupts) or not actual:
            return interrupts
        shown = await ctx.call(lambda _: actual, name="langgraph interrupt ids")
        if not isinstance(shown, list) or shown == actual or len(shown) != len(actual):
            return interrupts
        if len(self._renamed) >= _LIVE_MAX and ctx.run_id not in self._renamed:
            self._renamed.pop(next(iter(self._renamed)))
        self._renamed.setdefault(ctx.run_id, {}).update(zip(shown, actual, strict=True))
        return [Interrupt(value=i.value, id=str(s)) for i, s in zip(interrupts, shown, strict=True)]

    def _context_of(self, ctx: Context) -> tuple[Any, Mapping[str, Any] | None]:
        """LangGraph's `Runtime` and `configurable` for the tasks: the adapted call's, else the
        engine's own `context=` (`engine.replay(run_id, context=...)` and the like) as the runtime's."""
        got = self._contexts.get(ctx.run_id)
        if got is not None:
            return got
        if ctx.given is NOT_GIVEN or ctx.given is None:
            return _NO_CONTEXT
        return self.pregel.runtime(ctx.given), None

    def _commit(
        self, run_id: str, live: Live, done: dict[str, str], pause: str, route: Any
    ) -> NodeResult[Any]:
        text = self.pregel.snapshot(live)
        pending = (
            encode((live.pending, live.resume_map, live.resuming))
            if live.pending or live.resume_map or live.resuming
            else ""
        )
        token = hashlib.blake2b(
            f"{run_id}\x00{live.step}\x00{pause}\x00{pending}\x00{text}".encode(), digest_size=16
        ).hexdigest()
        live.token = token
        self._keep(run_id, live)
        delta: PregelState = {
            "token": token,
            "checkpoint": text,
            "step": live.step,
            "stop": live.stop,
            "pending": pending,
            "input": "",
            "pause": pause,
            "done": done,
            "intr": {},
        }
        return NodeResult(delta=delta, route=route)

    def _keep(self, run_id: str, live: Live) -> None:
        if len(self._live) >= _LIVE_MAX and run_id not in self._live:
            self._live.pop(next(iter(self._live)))
        self._live[run_id] = live

    def _live_of(self, run_id: str, s: PregelState, cached: Live | None = None) -> Live:
        if cached is not None and cached.token == s["token"]:
            return cached
        live = self._live.get(run_id)
        if live is not None and live.token == s["token"]:
            return live
        self.pregel.subgraphs.continued(run_id)  # its subgraphs may have run in another process
        return self.pregel.restore(s["token"], s["checkpoint"], s["step"], s["stop"], s["pending"])

    def _finished(self, live: Live, done: Mapping[str, str]) -> list[PregelTaskWrites]:
        kept = live.results
        return [_task_writes(kept[tid] if tid in kept else decode(text)) for tid, text in done.items()]

    def _ran(self, w: PregelTaskWrites) -> Any:
        node = self.graph.nodes.get(w.name)
        return SimpleNamespace(name=w.name, config={"tags": list(getattr(node, "tags", None) or ())})

    async def _finish(self, run_id: str, coro: Any, context: Any, config: Any = None) -> Any:
        runtime = self.pregel.runtime(context)
        configurable = _configurable(run_id, config, self.recursion_limit)
        if runtime is not None or configurable:
            self._contexts[run_id] = (runtime, configurable)
        loop = asyncio.get_running_loop()
        self._calls[loop] = self._calls.get(loop, 0) + 1
        try:
            s: PregelState = await coro
        except NodeError as exc:
            cause = exc.__cause__
            if cause is not None and not isinstance(cause, GraphError):
                # LangGraph's invoke raises what the node raised; the engine's record of the
                # failure (and resume) is unchanged.
                raise cause from exc
            raise
        finally:
            self._contexts.pop(run_id, None)
            self._calls[loop] -= 1
            if not self._calls[loop]:
                del self._calls[loop]
                await self.pregel.subgraphs.release()
        live = self._live_of(run_id, s)
        if s["intr"]:
            return self._interrupted_output(live, s)
        return self.pregel.output(live)

    def _interrupted_output(self, live: Live, s: PregelState) -> Any:
        # As LangGraph's loop on an interrupt: the values with the finished tasks' writes applied
        # (on a copy: the step is applied for real once the interrupt is answered).
        out = self.pregel.output_with(live, self._finished(live, s["done"]))
        interrupts = _interrupts(s)
        if interrupts and isinstance(out, dict):
            return {**out, "__interrupt__": interrupts}
        return out


def _configurable(run_id: str, config: Any, limit: int) -> dict[str, Any] | None:
    """`config["configurable"]` of a call, checked against the run id (LangGraph's thread id);
    a per-call `recursion_limit` other than the graph's is refused rather than ignored."""
    if config is None:
        return None
    asked = config.get("recursion_limit", limit)
    if asked != limit:
        raise UnsupportedFeature(
            f"config recursion_limit={asked!r} for run {run_id!r}: the adapted graph's limit is "
            f"{limit}, set once with from_langgraph(..., options=Options(max_steps=...))",
            feature="recursion_limit",
        )
    conf = dict((config or {}).get("configurable") or {})
    if conf.get("checkpoint_id") is not None:
        raise UnsupportedFeature(
            f"config checkpoint_id={conf['checkpoint_id']!r} for run {run_id!r}: time travel to a past "
            "step is engine.fork(run_id, new_run_id, at_step=...) on the adapted graph's engine",
            feature="checkpoint_id",
        )
    thread = conf.pop("thread_id", run_id)
    if thread != run_id:
        raise UnsupportedFeature(
            f"config names thread {thread!r} but the run id is {run_id!r}: the run id is the thread id; "
            "pass the same, or leave thread_id out of config",
            feature="thread id",
        )
    return conf


def _task_writes(record: Sequence[Any]) -> PregelTaskWrites:
    name, path, triggers, writes = record
    return PregelTaskWrites(tuple(path), name, [tuple(w) for w in writes], triggers)


def _interrupts(s: PregelState) -> list[Any]:
    """The `Interrupt`s the paused tasks raised (none for a subgraph's breakpoint)."""
    return [i for enc in s["intr"].values() for i in decode(enc)[0]]


def _payload(s: PregelState) -> dict[str, Any]:
    interrupts = _interrupts(s)
    return {
        "interrupts": [
            {"id": getattr(i, "id", ""), "value": to_jsonable_python(getattr(i, "value", i), fallback=repr)}
            for i in interrupts
        ]
    }


def _default_limit() -> int:
    from langgraph._internal._config import DEFAULT_RECURSION_LIMIT

    return int(DEFAULT_RECURSION_LIMIT)


def from_langgraph(
    builder: Any,
    *,
    interrupt_before: Sequence[str] | str | None = None,
    interrupt_after: Sequence[str] | str | None = None,
    cache: Any = None,
    langgraph_store: Any = None,
    **engine_kw: Any,
) -> AdaptedGraph:
    """Run a LangGraph `StateGraph` (the builder, or a graph compiled from one) on the engine.

    The run has LangGraph's semantics: supersteps, channels and their reducers (the input
    goes through them too), conditional and waiting edges, `Send`, `Command`, `interrupt()`,
    breakpoints (`interrupt_before=`/`interrupt_after=` as `compile()` takes them), subgraphs,
    input/output/node schemas and retry policies; `engine_kw` goes to `Engine(...)` (`store`,
    `emitter`, `options`), and `Options(max_steps=...)` is the recursion limit. Nodes get the
    LangGraph run config (thread id = run id) but no LangGraph store or checkpointer; the
    subgraphs they run checkpoint into `lg_*` tables beside `store` (`_lg_subgraphs`). `cache`
    is LangGraph's node cache (`compile(cache=...)`, a `BaseCache`; a compiled graph's own is
    used): a task whose node has a `cache_policy` and whose key it holds takes the cached
    writes instead of running, and the engine stores those writes as the task's.
    `langgraph_store` is LangGraph's long-term memory (`compile(store=...)`, a `BaseStore`; a
    compiled graph's own is used), which nodes (and their subgraphs) read as `runtime.store`; as
    in LangGraph it lives outside the run's record, so replay reads it as it is then. Raises
    `UnsupportedFeature` for what is not a `StateGraph`.
    """
    if not isinstance(builder, StateGraph):
        inner = getattr(builder, "builder", None)
        if not isinstance(inner, StateGraph):
            raise UnsupportedFeature(
                f"from_langgraph takes a StateGraph (or a graph compiled from one), got {type(builder).__name__}",
                feature="graph kind",
            )
        interrupt_before = interrupt_before or getattr(builder, "interrupt_before_nodes", None) or None
        interrupt_after = interrupt_after or getattr(builder, "interrupt_after_nodes", None) or None
        cache = cache if cache is not None else getattr(builder, "cache", None)
        langgraph_store = langgraph_store if langgraph_store is not None else getattr(builder, "store", None)
        builder = inner
    if "checkpointer" in engine_kw:
        raise UnsupportedFeature(
            "from_langgraph takes no checkpointer: the engine's store keeps the run (pass store=...)",
            feature="checkpointer",
        )
    from langgraph.store.base import BaseStore

    if langgraph_store is not None and not isinstance(langgraph_store, BaseStore):
        raise UnsupportedFeature(
            f"langgraph_store= takes LangGraph's BaseStore, got {type(langgraph_store).__name__}",
            feature="langgraph store",
        )
    if isinstance(engine_kw.get("store"), BaseStore):
        raise UnsupportedFeature(
            "store= is the engine's Store (MemoryStore, SQLiteStore, ...); LangGraph's BaseStore for "
            "the nodes' runtime.store goes in langgraph_store=...",
            feature="langgraph store",
        )
    compile_kw: dict[str, Any] = {}
    if interrupt_before:
        compile_kw["interrupt_before"] = interrupt_before
    if interrupt_after:
        compile_kw["interrupt_after"] = interrupt_after
    if cache is not None:
        compile_kw["cache"] = cache
    try:
        return AdaptedGraph(builder, engine_kw, compile_kw, langgraph_store)
    except GraphError:
        raise
    except ValueError as exc:
        raise UnsupportedFeature(f"LangGraph refused the graph: {exc}", feature="graph") from exc
