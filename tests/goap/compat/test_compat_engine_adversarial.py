"""`goap.compat`'s engine path under hostile use: bad inputs, odd lifecycles, the compiled graph's
edges. Each bad input gets a typed error naming where it is, before anything is stored; each
odd lifecycle leaves the run in a truthful, readable state.

Oracle: langgoap 0.1.2 running the same graph through its own LangGraph graph (where it has an
answer: approvals, raising sensors and guards, crashes under a checkpointer, stream modes,
subgraphs, unknown interrupt nodes), and the run's own record otherwise.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Coroutine, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest
from compat_chains import summary
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command
from typing_extensions import TypedDict

import goap.compat as compat
from goap.compat.graph._codec import MAX_DEPTH, CompatStateCodec
from graphengine import NodeError, NodeTimeoutError, Options, RunExistsError, StateValidationError
from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import MemoryCheckpointTable
from graphengine.errors import RunNotFoundError
from graphengine.store import RunStatus, SQLiteStore

langgoap = pytest.importorskip("langgoap")

T = TypeVar("T")


def nested(levels: int, make: Any) -> Any:
    """A value `levels` containers deep (`make(inner)` wraps one level)."""
    v: Any = True
    for _ in range(levels):
        v = make(v)
    return v


class Opaque:
    """An application object the codec does not know."""


def done_goal(lib: ModuleType = compat) -> Any:
    return lib.GoalSpec(conditions={"done": True})


def one_action(**kw: Any) -> list[Any]:
    return [compat.ActionSpec(name="a", effects={"done": True}, **kw)]


class OneLoop:
    """A test's event loop and the SQLite stores it opens on it.

    Every coroutine of the test runs on this one loop, and each store is closed on it before it
    ends: a store left open has its aiosqlite thread answer a loop that is gone (an "Event loop is
    closed" error in that thread) when its connection is finalized during a later loop.
    """

    def __init__(self, runner: asyncio.Runner, folder: Path) -> None:
        self._runner = runner
        self._folder = folder
        self.stores: list[SQLiteStore] = []

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` to its end on the test's loop."""
        return self._runner.run(coro)

    def store(self, name: str = "r.db") -> SQLiteStore:
        """A store on the file `name` in the test's folder, closed when the test ends."""
        store = SQLiteStore(str(self._folder / name))
        self.stores.append(store)
        return store


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[OneLoop]:
    """The test's one event loop; the stores it opened are closed on it, failed test or not."""
    with asyncio.Runner() as runner:
        one = OneLoop(runner, tmp_path)
        yield one
        for store in one.stores:
            runner.run(store.close())


BAD_INPUTS: dict[str, tuple[dict[str, Any], str]] = {
    "deep dict": ({"world_state": {"d": nested(1000, lambda v: {"n": v})}}, r"world_state\.d\.n\.n.*deeper"),
    "deep list": ({"world_state": {"d": nested(1000, lambda v: [v])}}, r"world_state\.d\[0\]\[0\].*deeper"),
    "lambda": ({"world_state": {"f": lambda: 1}}, r"'world_state\.f' has type function"),
    "custom class": ({"world_state": {"o": Opaque()}}, r"'world_state\.o' has type Opaque"),
    "callable goal": (
        {"goal": compat.GoalSpec(conditions={"done": callable})},
        r"goal\.conditions\['done'\]",
    ),
    "unknown key": ({"wrold_state": {}}, r"'wrold_state' is not a GoapState key"),
    "world_state a list": ({"world_state": [1, 2]}, r"'world_state' is a list, expected Mapping"),
    "goal a string": ({"goal": "done"}, r"'goal' is a str, expected GoalSpec or MultiGoal"),
    "step a bool": ({"current_step": True}, r"'current_step' is a bool"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_is_refused_with_its_path_before_anything_is_stored(case: str, loop: OneLoop) -> None:
    """Values the codec cannot store or read back, keys a GoapState lacks and top-level values of
    the wrong kind raise StateValidationError naming where they are; no run is recorded."""
    extra, where = BAD_INPUTS[case]
    engine = compat.GoapGraph(actions=one_action()).engine(store=loop.store("r.db"))
    with pytest.raises(StateValidationError, match=where):
        loop.run(engine.run("bad", {"goal": done_goal(), "world_state": {}, **extra}))
    with pytest.raises(RunNotFoundError):
        loop.run(engine.get_run("bad"))


def test_socket_in_world_state_is_refused(loop: OneLoop) -> None:
    """An OS resource in the world state: refused with its path (and not leaked into the store)."""
    engine = compat.GoapGraph(actions=one_action()).engine(store=loop.store("r.db"))
    with (
        socket.socket() as sock,
        pytest.raises(StateValidationError, match=r"world_state\.s' has type socket"),
    ):
        loop.run(engine.run("bad", {"goal": done_goal(), "world_state": {"s": sock}}))


def test_values_just_within_depth_round_trip() -> None:
    """A world value MAX_DEPTH containers deep under world_state is stored; one level more is not."""
    codec = CompatStateCodec([])
    ok = {"world_state": {"d": nested(MAX_DEPTH - 2, lambda v: (v,))}}
    assert codec.decode(codec.encode(ok)) == ok
    with pytest.raises(TypeError, match="deeper than"):
        codec.encode({"world_state": {"d": nested(MAX_DEPTH, lambda v: (v,))}})
    # Stored data this deep was not written by the codec. Inside an object, so that it is refused
    # for its depth whether `json.loads` itself recurses too deep (3.11, 3.12) or not (3.13).
    with pytest.raises(ValueError, match="too deep"):
        codec.decode(b'{"world_state":' + b"[" * 5000 + b"]" * 5000 + b"}")


def test_awkward_but_storable_worlds_end_like_langgoap(loop: OneLoop) -> None:
    """NaN and infinities, non-string keys, a 1 MB string, 20,000 keys and odd action names run to
    the end, and the stored final world equals langgoap's (repr: NaN is not equal to itself)."""
    world = {"nan": float("nan"), "inf": float("-inf"), 1: "int key", (1, "t"): None, "big": "x" * 1_000_000}
    world |= {f"k{i}": i for i in range(20_000)}
    name = 'a b/"$ge"\n\u00e9'

    def graph(lib: ModuleType) -> Any:
        return lib.GoapGraph(actions=[lib.ActionSpec(name=name, effects={"done": True})])

    engine = graph(compat).engine(store=loop.store("r.db"))
    final = loop.run(engine.run("odd", {"goal": done_goal(), "world_state": dict(world)}))
    stored = loop.run(engine.get_state("odd"))
    expected = graph(langgoap).invoke(goal=done_goal(langgoap), world_state=dict(world))
    assert repr(final["world_state"]) == repr(stored["world_state"]) == repr(expected["world_state"])
    assert [h.action_name for h in final["execution_history"]] == [name]


def wide(lib: ModuleType, n: int) -> list[Any]:
    """`n` actions each setting a flag nobody needs, and one whose precondition is the 8th flag."""
    acts = [lib.ActionSpec(name=f"n{i}", effects={f"e{i}": True}) for i in range(n)]
    return [*acts, lib.ActionSpec(name="x", preconditions={"e7": True}, effects={"done": True})]


def test_ten_thousand_actions_and_none(loop: OneLoop) -> None:
    """An empty action list ends `no_plan` as langgoap's does; 300 actions end as langgoap's end;
    10,000 (langgoap needs minutes there) end with the same two-step plan on the engine and the
    compiled graph."""
    for n, lib in ((0, langgoap), (300, langgoap)):
        expected = summary(
            lib.GoapGraph(actions=wide(lib, n) if n else []).invoke(goal=done_goal(lib), world_state={})
        )
        got = compat.GoapGraph(actions=wide(compat, n) if n else []).engine(store=loop.store(f"{n}.db"))
        assert summary(loop.run(got.run("w", {"goal": done_goal(), "world_state": {}}))) == expected
    engine = compat.GoapGraph(actions=wide(compat, 10_000)).engine(store=loop.store("w.db"))
    final = loop.run(engine.run("w", {"goal": done_goal(), "world_state": {}}))
    compiled = compat.GoapGraph(actions=wide(compat, 10_000)).invoke(goal=done_goal(), world_state={})
    assert [h.action_name for h in final["execution_history"]] == ["n7", "x"]
    assert summary(final) == summary(compiled)


def test_unstorable_value_from_an_action_fails_its_step_readably(loop: OneLoop) -> None:
    """An action returning a value nested too deep fails the executor's step (NodeError with the
    path); the run is recorded as failed and its last good state still reads."""
    act = one_action(execute=lambda ws: {"done": True, "tree": nested(MAX_DEPTH + 5, lambda v: [v])})
    engine = compat.GoapGraph(actions=act).engine(store=loop.store("r.db"))
    with pytest.raises(NodeError, match=r"world_state\.tree\[0\]"):
        loop.run(engine.run("deep", {"goal": done_goal(), "world_state": {}}))
    assert loop.run(engine.get_run("deep")).status == RunStatus.FAILED
    assert loop.run(engine.get_state("deep"))["status"] == "executing"


def test_duplicate_action_names_are_refused_where_a_plan_is_stored() -> None:
    """`engine()` refuses two actions of one name (a stored plan names its actions); the codec
    refuses to store a plan step whose name several actions share."""
    twins = [
        compat.ActionSpec(name="a", effects={"x": True}),
        compat.ActionSpec(name="a", effects={"done": True}),
    ]
    with pytest.raises(ValueError, match="named 'a'"):
        compat.GoapGraph(actions=twins).engine()
    codec = CompatStateCodec(twins)
    with pytest.raises(TypeError, match=r"'plan\.actions\[0\]' is action 'a'"):
        codec.encode({"plan": compat.Plan(actions=(twins[0],), expected_states=(), total_cost=1.0)})


def test_unstorable_effect_value_is_refused_when_the_engine_is_built() -> None:
    """An effect value the codec cannot store (it would reach the plan's expected states) is named
    when `engine()` is called, not when the planner's step fails; dynamic (callable) effects and
    the compiled LangGraph graph, which langgoap runs with such values, are unaffected."""
    with pytest.raises(TypeError, match=r"action 'a' effects\.f has type builtin_function_or_method"):
        compat.GoapGraph(actions=[compat.ActionSpec(name="a", effects={"done": True, "f": print})]).engine()
    with pytest.raises(TypeError, match=r"action 'a' preconditions\.o has type Opaque"):
        compat.GoapGraph(actions=[compat.ActionSpec(name="a", preconditions={"o": Opaque()})]).engine()
    dynamic = compat.ActionSpec(name="a", effects=lambda ws: {"done": True}, effect_keys=("done",))
    assert compat.GoapGraph(actions=[dynamic]).engine() is not None
    out = compat.GoapGraph(actions=[compat.ActionSpec(name="a", effects={"done": True, "f": print})]).invoke(
        goal=done_goal(), world_state={}
    )
    assert out["status"] == "goal_achieved" and out["world_state"]["f"] is print


def approval(lib: ModuleType, name: str = "deploy") -> list[Any]:
    return [
        lib.ActionSpec(name="build", effects={"built": True}),
        lib.ActionSpec(
            name=name, preconditions={"built": True}, effects={"done": True}, require_human_approval=True
        ),
    ]


def test_resume_with_another_action_set_names_the_missing_action(loop: OneLoop) -> None:
    """A paused run resumed by a graph whose gated action was renamed fails naming the action, and
    the run is left as it was (interrupted, readable by the original graph, resumable by it)."""
    first = compat.GoapGraph(actions=approval(compat)).engine(store=loop.store())
    loop.run(first.run("r", {"goal": done_goal(), "world_state": {}}))
    renamed = compat.GoapGraph(actions=approval(compat, "ship")).engine(store=loop.store())
    with pytest.raises(Exception, match="names action 'deploy', which the graph does not have"):
        loop.run(renamed.resume("r", input=True))
    assert loop.run(first.get_run("r")).status == RunStatus.INTERRUPTED
    assert loop.run(first.resume("r", input=True))["status"] == "goal_achieved"


@pytest.mark.parametrize("answer", ["yes", 0, [], {"note": "fine"}, {"approved": 0}])
def test_odd_approval_answers_read_as_langgoap_reads_them(answer: Any, loop: OneLoop) -> None:
    """An approval answered with a value of no documented shape is read as langgoap reads it (a
    truthy value approves, a dict without ``approved`` approves)."""
    engine = compat.GoapGraph(actions=approval(compat)).engine(store=loop.store("r.db"))
    loop.run(engine.run("r", {"goal": done_goal(), "world_state": {}}))
    final = loop.run(engine.resume("r", input=answer))
    compiled = langgoap.GoapGraph(actions=approval(langgoap)).compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    compiled.invoke({"goal": done_goal(langgoap), "world_state": {}}, cfg)
    assert summary(final) == summary(compiled.invoke(Command(resume=answer), cfg))


def test_finished_run_resumes_to_its_end_without_running_again(loop: OneLoop) -> None:
    calls: list[int] = []
    engine = compat.GoapGraph(
        actions=one_action(execute=lambda ws: calls.append(1) or {"done": True})
    ).engine(store=loop.store("r.db"))
    final = loop.run(engine.run("r", {"goal": done_goal(), "world_state": {}}))
    assert loop.run(engine.resume("r", input=True)) == final
    assert calls == [1]


def test_two_runs_of_one_id_and_many_runs_on_one_file(loop: OneLoop) -> None:
    """Two concurrent `run`s of one id: one runs, the other gets RunExistsError. Twenty engines on
    one SQLite file, each with its own store, run twenty runs at once to the goal."""

    async def slow(ws: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0.05)
        return {"done": True}

    async def same() -> list[Any]:
        engine = compat.GoapGraph(actions=one_action(execute=slow)).engine(store=loop.store())
        start = {"goal": done_goal(), "world_state": {}}
        return await asyncio.gather(*(engine.run("same", start) for _ in range(2)), return_exceptions=True)

    outs = loop.run(same())
    assert sorted(type(o).__name__ for o in outs) == ["RunExistsError", "dict"]
    assert any(isinstance(o, RunExistsError) for o in outs)

    async def many() -> list[Any]:
        async def one(i: int) -> Any:
            engine = compat.GoapGraph(actions=one_action()).engine(store=loop.store())
            return (await engine.run(f"r{i}", {"goal": done_goal(), "world_state": {}}))["status"]

        return await asyncio.gather(*(one(i) for i in range(20)))

    assert loop.run(many()) == ["goal_achieved"] * 20


def test_two_concurrent_resumes_of_one_pause_commit_once(loop: OneLoop) -> None:
    """Two `resume`s of one paused run at once (one engine, or two stores on one file): the
    approved action runs once and ends the run; the other resume gets RunBusyError without
    running or writing anything (it came while the action ran: the action waits for it to
    return); the run is done and reads back."""

    async def go(two: bool) -> tuple[list[str], Any, int]:
        calls = {"n": 0}
        other_returned = asyncio.Event()

        async def gated(ws: dict[str, Any]) -> dict[str, Any]:
            calls["n"] += 1
            await asyncio.wait_for(other_returned.wait(), 60)
            return {"done": True}

        acts = [
            compat.ActionSpec(name="ship", effects={"done": True}, execute=gated, require_human_approval=True)
        ]
        engine = compat.GoapGraph(actions=acts).engine(store=loop.store())
        rid = f"r{two}"
        await engine.run(rid, {"goal": done_goal(), "world_state": {}})
        other = compat.GoapGraph(actions=acts).engine(store=loop.store()) if two else engine
        tasks = [asyncio.ensure_future(e.resume(rid, input=True)) for e in (engine, other)]
        await asyncio.wait(tasks, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        other_returned.set()
        outs = await asyncio.gather(*tasks, return_exceptions=True)
        kinds = sorted(o["status"] if isinstance(o, dict) else type(o).__name__ for o in outs)
        return kinds, (await engine.get_state(rid))["status"], calls["n"]

    for two in (False, True):
        assert loop.run(go(two)) == (["RunBusyError", "goal_achieved"], "goal_achieved", 1)


def test_interrupted_and_cancelled_runs_stay_resumable(loop: OneLoop) -> None:
    """An action raising KeyboardInterrupt leaves the run `running` (as a crash would: resume
    continues it); a cancelled task leaves it `cancelled`. Both resume to the goal and replay."""
    calls = {"kbi": 0, "cancel": 0}

    def kbi(ws: dict[str, Any]) -> dict[str, Any]:
        calls["kbi"] += 1
        if calls["kbi"] == 1:
            raise KeyboardInterrupt
        return {"done": True}

    started = asyncio.Event()

    async def hang(ws: dict[str, Any]) -> dict[str, Any]:
        calls["cancel"] += 1
        if calls["cancel"] == 1:
            started.set()
            await asyncio.sleep(60)
        return {"done": True}

    async def go() -> list[Any]:
        out = []
        engine = compat.GoapGraph(actions=one_action(execute=kbi)).engine(store=loop.store())
        with pytest.raises(KeyboardInterrupt):
            await engine.run("kbi", {"goal": done_goal(), "world_state": {}})
        out.append((await engine.get_run("kbi")).status)
        out.append((await engine.resume("kbi"))["status"])
        out.append((await engine.replay("kbi")).ok)
        engine = compat.GoapGraph(actions=one_action(execute=hang)).engine(store=loop.store())
        task = asyncio.create_task(engine.run("cancel", {"goal": done_goal(), "world_state": {}}))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        out.append((await engine.get_run("cancel")).status)
        out.append((await engine.resume("cancel"))["status"])
        out.append((await engine.replay("cancel")).ok)
        return out

    assert loop.run(go()) == [
        RunStatus.RUNNING,
        "goal_achieved",
        True,
        RunStatus.CANCELLED,
        "goal_achieved",
        True,
    ]


def test_hanging_action_times_out_and_the_run_says_so(tmp_path: Path) -> None:
    async def hang(ws: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(60)
        return {"done": True}

    async def go() -> tuple[Any, Any]:
        async with SQLiteStore(str(tmp_path / "r.db")) as store:
            engine = compat.GoapGraph(actions=one_action(execute=hang)).engine(
                store=store, options=Options(max_steps=100, timeout=0.1)
            )
            with pytest.raises(NodeTimeoutError, match="executor"):
                await engine.run("t", {"goal": done_goal(), "world_state": {}})
            return await engine.get_run("t"), await engine.get_state("t")

    run, state = asyncio.run(go())
    assert run.status == RunStatus.FAILED and "NodeTimeoutError" in (run.error or "")
    assert state["status"] == "executing"


class _Broken:
    """A sensor, guard, tracer and emitter whose every hook raises."""

    name = "broken"

    def sense(self, ws: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("sensor down")

    def check(self, action: Any, ws: dict[str, Any]) -> Any:
        raise RuntimeError("guard down")

    def emit(self, event: Any) -> None:
        raise RuntimeError("emitter down")


class _BrokenTracer(compat.NullTracer):  # type: ignore[misc]
    def on_plan_start(self, *a: Any, **k: Any) -> None:
        raise RuntimeError("tracer down")

    async def aon_plan_start(self, *a: Any, **k: Any) -> None:
        raise RuntimeError("tracer down")


@pytest.mark.parametrize("what", ["sensors", "guards", "tracer"])
def test_raising_sensor_guard_and_tracer_end_like_langgoap(what: str, loop: OneLoop) -> None:
    """A raising sensor, guard or tracer is logged and skipped, on the engine and under langgoap;
    a raising emitter never breaks the engine run either."""

    def graph(lib: ModuleType) -> Any:
        hook: Any = _BrokenTracer() if what == "tracer" else [_Broken()]
        return lib.GoapGraph(actions=[lib.ActionSpec(name="a", effects={"done": True})], **{what: hook})

    engine = graph(compat).engine(store=loop.store("r.db"), emitter=_Broken())  # type: ignore[arg-type]
    final = loop.run(engine.run("r", {"goal": done_goal(), "world_state": {}}))
    assert summary(final) == summary(graph(langgoap).invoke(goal=done_goal(langgoap), world_state={}))
    assert loop.run(engine.get_run("r")).status == RunStatus.DONE


def test_replay_after_the_action_code_changed_serves_the_record(loop: OneLoop) -> None:
    """Replay with changed action code serves the recorded outcome (the new code does not run);
    with the action gone it reports a divergence naming it instead of raising."""
    first = compat.GoapGraph(actions=one_action(execute=lambda ws: {"done": True, "v": 1})).engine(
        store=loop.store()
    )
    loop.run(first.run("r", {"goal": done_goal(), "world_state": {}}))
    ran: list[int] = []
    changed = one_action(execute=lambda ws: ran.append(1) or {"done": True, "v": 2})
    assert loop.run(compat.GoapGraph(actions=changed).engine(store=loop.store()).replay("r")).ok
    assert ran == []
    gone = [compat.ActionSpec(name="b", effects={"done": True})]
    report = loop.run(compat.GoapGraph(actions=gone).engine(store=loop.store()).replay("r"))
    assert not report.ok and "'a'" in str(report)


# ------------------------------------------------------------------ the compiled graph


def deploy(lib: ModuleType, calls: dict[str, int], crash: bool = False) -> list[Any]:
    def run(ws: dict[str, Any]) -> dict[str, Any]:
        calls["n"] += 1
        if crash and calls["n"] == 1:
            raise KeyboardInterrupt  # the process dies inside the action
        return {"done": True}

    return [
        lib.ActionSpec(name="build", effects={"built": True}),
        lib.ActionSpec(name="deploy", preconditions={"built": True}, effects={"done": True}, execute=run),
    ]


@pytest.mark.parametrize("option", ["interrupt_before", "interrupt_after"])
def test_unknown_interrupt_node_raises_value_error_like_langgoap(option: str) -> None:
    for lib in (compat, langgoap):
        with pytest.raises(ValueError, match="nope"):
            lib.GoapGraph(actions=deploy(lib, {"n": 0})).compile(
                checkpointer=InMemorySaver(), **{option: ["nope"]}
            )


@pytest.mark.parametrize("saver", ["memory", "graphengine"])
def test_invoke_after_a_crash_resumes_like_langgoap(saver: str) -> None:
    """An action dies (KeyboardInterrupt) under a checkpointer; `invoke(None)` on the same thread
    resumes at the executor and ends as langgoap's graph ends, with the same number of calls."""
    seen = {}
    for lib in (compat, langgoap):
        calls = {"n": 0}
        ck = InMemorySaver() if saver == "memory" else GraphEngineSaver(MemoryCheckpointTable())
        compiled = lib.GoapGraph(actions=deploy(lib, calls, crash=True)).compile(checkpointer=ck)
        cfg = {"configurable": {"thread_id": "t"}}
        with pytest.raises(KeyboardInterrupt):
            compiled.invoke({"goal": done_goal(lib), "world_state": {}}, cfg)
        nxt = compiled.get_state(cfg).next
        seen[lib.__name__] = (nxt, summary(compiled.invoke(None, cfg)), calls["n"])
    assert seen["goap.compat"] == seen["langgoap"]
    assert seen["langgoap"][0] == ("executor",)


@pytest.mark.parametrize("mode", ["values", "updates", "debug", "custom", ("values", "updates")])
def test_stream_modes_give_langgoap_chunks(mode: Any) -> None:
    """Each stream mode yields as many chunks as langgoap's graph, of the same shape (node names for
    updates, state keys for values)."""

    def shape(chunk: Any) -> Any:
        if isinstance(chunk, tuple):
            return (chunk[0], shape(chunk[1]))
        if mode == "debug":
            return chunk["type"]
        return sorted(chunk) if isinstance(chunk, dict) else type(chunk).__name__

    got = {}
    for lib in (compat, langgoap):
        m = list(mode) if isinstance(mode, tuple) else mode
        chunks = (
            lib.GoapGraph(actions=deploy(lib, {"n": 0}))
            .compile()
            .stream({"goal": done_goal(lib), "world_state": {}}, stream_mode=m)
        )
        got[lib.__name__] = [shape(c) for c in chunks]
    assert got["goap.compat"] == got["langgoap"]


class Parent(TypedDict, total=False):
    goal: Any
    world_state: dict[str, Any]
    status: str


def test_compiled_graph_as_a_subgraph_ends_like_langgoap() -> None:
    out = {}
    for lib in (compat, langgoap):
        parent = StateGraph(Parent)
        parent.add_node("goap", lib.GoapGraph(actions=deploy(lib, {"n": 0})).compile())
        parent.add_edge(START, "goap")
        parent.add_edge("goap", END)
        out[lib.__name__] = asyncio.run(parent.compile().ainvoke({"goal": done_goal(lib), "world_state": {}}))
    assert out["goap.compat"]["status"] == out["langgoap"]["status"] == "goal_achieved"
    assert out["goap.compat"]["world_state"] == out["langgoap"]["world_state"]
