"""`goap.compat.GoapGraph` on the engine: `GoapGraph.engine()` runs, pauses, resumes and replays the
LangGOAP-style loop on a store, ending where `compile().invoke(...)` and langgoap 0.1.2 end.

Oracles: langgoap itself (the same problems, its own LangGraph graph and checkpointer), and the
compiled LangGraph graph of `goap.compat` (which runs the same nodes through `to_langgraph`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

import pytest
from compat_chains import Act, Problem, build, make_problem, summary
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from pydantic import BaseModel

import goap.compat as compat
from goap.compat.graph._codec import CompatStateCodec
from graphengine import NodeError, Options, StateValidationError
from graphengine.store import RunStatus, SQLiteStore, Store

langgoap = pytest.importorskip("langgoap")

ROOT = Path(__file__).parents[3]
WORKER = ROOT / "tests" / "crash" / "compat_worker.py"
# Loaded by path: tests/ must not be on the worker's sys.path (its goap/ folder would shadow goap).
_spec = importlib.util.spec_from_file_location("compat_crash_worker", WORKER)
assert _spec is not None and _spec.loader is not None
_worker = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_worker)


def engine_run(p: Problem, db: Path) -> dict[str, Any]:
    graph, goal, world = build(compat, p)
    engine = graph.engine(store=SQLiteStore(str(db)))
    final = asyncio.run(engine.run(f"chain-{p.seed}", {"goal": goal, "world_state": world}))
    return summary(final)


def lg_run(lib: ModuleType, p: Problem) -> dict[str, Any]:
    graph, goal, world = build(lib, p)
    out = graph.compile().invoke({"goal": goal, "world_state": world}, {"recursion_limit": 500})
    return summary(out)


@pytest.mark.parametrize("seed", range(12))
def test_engine_run_on_sqlite_ends_like_langgoap(seed: int, tmp_path: Path) -> None:
    """A chain problem with failing actions, run by `engine.run` on a SQLite file, ends with langgoap's
    status, history, world, blacklist, counts and plan, and with the compiled graph's."""
    p = make_problem(seed)
    out = engine_run(p, tmp_path / "runs.db")
    assert out == lg_run(langgoap, p), p
    assert out == lg_run(compat, p), p


def test_blacklist_fallback_on_the_engine(tmp_path: Path) -> None:
    """The only action fails once: blacklisted, then the fallback to every action clears the books."""
    p = Problem(1, (Act("only", 0, 1.0, 1, 0),), 3, -2)
    out = engine_run(p, tmp_path / "runs.db")
    assert out == lg_run(langgoap, p)
    assert out["status"] == "goal_achieved" and out["blacklisted"] == [] and out["counts"] == {}


def approval_actions(lib: ModuleType) -> list[Any]:
    """The tutorial's deploy flow: build, then a deploy that needs a person's approval; a slower
    manual deploy is the alternative when the approval is denied."""
    return [
        lib.ActionSpec(name="build", effects={"built": True}, cost=1.0),
        lib.ActionSpec(
            name="deploy",
            preconditions={"built": True},
            effects={"deployed": True},
            cost=1.0,
            require_human_approval=True,
        ),
        lib.ActionSpec(
            name="manual_deploy", preconditions={"built": True}, effects={"deployed": True}, cost=5.0
        ),
    ]


def lg_approval(lib: ModuleType, answer: Any) -> tuple[dict[str, Any], Any]:
    """The flow through `lib`'s compiled graph with a checkpointer: the pause's payload and the end."""
    compiled = lib.GoapGraph(actions=approval_actions(lib)).compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    first = compiled.invoke({"goal": lib.GoalSpec(conditions={"deployed": True}), "world_state": {}}, cfg)
    (intr,) = first["__interrupt__"]
    return summary(compiled.invoke(Command(resume=answer), cfg)), intr.value


@pytest.mark.parametrize("answer", [True, False, {"approved": False, "reason": "freeze"}])
def test_approval_pauses_the_run_and_resumes_in_a_new_engine(answer: Any, tmp_path: Path) -> None:
    """The approval pauses the engine run (status interrupted, langgoap's payload); a new engine on the
    same SQLite file (as after a restart) resumes it with the answer, ending as langgoap ends."""
    db = str(tmp_path / "runs.db")
    goal = compat.GoalSpec(conditions={"deployed": True})
    engine = compat.GoapGraph(actions=approval_actions(compat)).engine(store=SQLiteStore(db))

    async def first() -> Any:
        await engine.run("deploy-1", {"goal": goal, "world_state": {}})
        return (await engine.get_run("deploy-1")).status, await engine.get_interrupt("deploy-1")

    status, intr = asyncio.run(first())
    assert status == RunStatus.INTERRUPTED
    expected, payload = lg_approval(langgoap, answer)
    assert intr is not None and intr.node_id == "executor" and intr.payload == payload

    again = compat.GoapGraph(actions=approval_actions(compat)).engine(store=SQLiteStore(db))
    final = asyncio.run(again.resume("deploy-1", input=answer))
    assert summary(final) == expected
    assert summary(final) == lg_approval(compat, answer)[0]
    report = asyncio.run(again.replay("deploy-1"))
    assert report.ok, str(report)


@pytest.mark.parametrize("kill_at", ["clean_build", "deploy"])
def test_killed_run_resumes_in_another_process_to_where_langgoap_ends(kill_at: str, tmp_path: Path) -> None:
    """A deploy flow (its build fails once: blacklist, replan onto the clean build) run by
    `engine.run` on SQLite in a child process that is SIGKILLed inside an action; a new engine in
    this process resumes it. It ends as langgoap's own graph ends the uninterrupted flow, no
    committed action runs again, and the run replays."""
    db, log = tmp_path / "runs.db", tmp_path / "actions.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    child = subprocess.run(
        [sys.executable, str(WORKER), str(db), "deploy-1", str(log), kill_at], env=env, timeout=120
    )
    assert child.returncode == -signal.SIGKILL
    before = log.read_text().split("\n")[:-1]

    async def resume() -> tuple[dict[str, Any], Any, Any]:
        async with SQLiteStore(str(db)) as store:
            engine = compat.GoapGraph(actions=_worker.actions(compat, str(log))).engine(store=store)
            status = (await engine.get_run("deploy-1")).status
            final = await engine.resume("deploy-1")
            return final, status, await engine.replay("deploy-1")

    final, status, report = asyncio.run(resume())
    assert status == RunStatus.RUNNING
    reference = (
        langgoap.GoapGraph(actions=_worker.actions(langgoap)).compile().invoke(_worker.start(langgoap))
    )
    assert summary(final) == summary(reference)
    assert summary(final) == summary(
        compat.GoapGraph(actions=_worker.actions(compat)).compile().invoke(_worker.start(compat))
    )
    assert final["status"] == "goal_achieved" and final["world_state"]["artifact"] == "app-1.2-clean.tar"
    ran = [line.split()[1] for line in log.read_text().split("\n")[:-1]]
    assert len(ran) == len(set(ran)), ran  # every action ran once: none committed before the kill ran again
    assert kill_at not in [line.split()[1] for line in before]
    assert report.ok, str(report)


def test_replay_serves_recorded_plans_and_actions(tmp_path: Path) -> None:
    """Replaying a finished run serves the planner's and executor's recorded updates: no divergence
    and no action runs again."""
    p = make_problem(3)
    graph, goal, world = build(compat, p)
    calls: list[str] = []
    for a in graph.actions:
        inner = a.execute

        def counted(ws: dict[str, Any], inner: Any = inner, name: str = a.name) -> Any:
            calls.append(name)
            return inner(ws)

        object.__setattr__(a, "execute", counted)
    engine = graph.engine(store=SQLiteStore(str(tmp_path / "runs.db")))
    asyncio.run(engine.run("r", {"goal": goal, "world_state": world}))
    ran = len(calls)
    report = asyncio.run(engine.replay("r"))
    assert report.ok, str(report)
    assert len(calls) == ran


def test_engine_run_emits_the_engine_events(tmp_path: Path) -> None:
    """Runs on the engine emit its events (steps of planner, executor and observer) to its emitter."""
    from graphengine.emit import MemoryEmitter

    em = MemoryEmitter()
    graph = compat.GoapGraph(actions=[compat.ActionSpec(name="a", effects={"done": True})])
    engine = graph.engine(store=SQLiteStore(str(tmp_path / "r.db")), emitter=em)
    asyncio.run(engine.run("r", {"goal": compat.GoalSpec(conditions={"done": True}), "world_state": {}}))
    assert {e.node_id for e in em.events if e.node_id} >= {"planner", "executor", "observer"}


def test_async_and_sync_hooks_follow_the_calling_style(tmp_path: Path) -> None:
    """Under `invoke` the tracer's sync hooks fire, under `ainvoke` and `engine.run` its async ones."""

    class Tracer(compat.NullTracer):  # type: ignore[misc]
        def __init__(self) -> None:
            self.seen: list[str] = []

        def on_plan_start(self, *args: Any) -> None:
            self.seen.append("sync")

        async def aon_plan_start(self, *args: Any) -> None:
            self.seen.append("async")

    acts = [compat.ActionSpec(name="a", effects={"done": True})]
    goal = compat.GoalSpec(conditions={"done": True})
    seen = {}
    for style in ("invoke", "ainvoke", "engine"):
        tracer = Tracer()
        graph = compat.GoapGraph(actions=acts, tracer=tracer)
        state = {"goal": goal, "world_state": {}}
        if style == "invoke":
            graph.compile().invoke(state)
        elif style == "ainvoke":
            asyncio.run(graph.compile().ainvoke(state))
        else:
            asyncio.run(graph.engine(store=SQLiteStore(str(tmp_path / "r.db"))).run("r", state))
        seen[style] = tracer.seen
    assert seen == {"invoke": ["sync"], "ainvoke": ["async"], "engine": ["async"]}


def test_compile_keeps_langgraph_recursion_limits() -> None:
    """The compiled graph stops where langgoap's graph stops: not by default on a 14-action plan
    (LangGraph's default limit), at a config's recursion_limit of 25 (1 + 2 * 14 steps)."""
    from langgraph.errors import GraphRecursionError

    p = Problem(14, tuple(Act(f"a{i}", i, 1.0, 0, 0) for i in range(14)), 3, -4)
    for lib in (compat, langgoap):
        graph, goal, world = build(lib, p)
        assert graph.compile().invoke({"goal": goal, "world_state": world})["status"] == "goal_achieved"
        graph, goal, world = build(lib, p)
        with pytest.raises(GraphRecursionError):
            graph.compile().invoke({"goal": goal, "world_state": world}, {"recursion_limit": 25})
    graph, goal, world = build(compat, p)
    final = asyncio.run(
        graph.engine(options=Options(max_steps=29)).run("long", {"goal": goal, "world_state": world})
    )
    assert final["status"] == "goal_achieved"


# ------------------------------------------------------------------ the codec


class Form(BaseModel):
    ticket: str


def test_codec_round_trips_goals_plans_and_history() -> None:
    """Every compat value a GOAP state holds comes back equal (actions as the graph's own objects)."""
    act = compat.ActionSpec(name="a", preconditions={"x": 1}, effects={"y": (1, 2)}, cost=2.0)
    goal = compat.GoalSpec(
        conditions={"y": (1, 2)},
        policy=compat.GoalPolicy(replan_strategy=compat.ReplanStrategy.EVERY_ACTION, max_replans=4),
        constraints=(compat.ConstraintSpec(key="budget", max=10.0),),
        objectives={"cost": compat.ObjectiveDirection.MINIMIZE},
    )
    plan = compat.Plan(
        actions=(act,),
        expected_states=(compat.PlanningState.from_dict({"x": 1, "y": (1, 2)}),),
        total_cost=2.0,
    )
    state = {
        "goal": compat.MultiGoal(goals=(goal,)),
        "plan": plan,
        "world_state": {
            "x": 1,
            "tags": {"a", "b"},
            "frozen": frozenset({("k", 1)}),
            "$ge": float("inf"),
            "form": Form(ticket="T-1"),
            "ints": {1: "one"},
        },
        "execution_history": [compat.ActionResult("a", True, {"x": 1}, {"x": 1, "y": (1, 2)})],
        "action_failure_counts": {"a": 1},
        "no_plan_explanation": None,
    }
    codec = CompatStateCodec([act], [Form])
    back = codec.decode(codec.encode(state))
    assert back == state
    assert back["plan"].actions[0] is act
    assert isinstance(back["goal"].goals[0].conditions, MappingProxyType)
    assert codec.encode(back) == codec.encode(state)


def test_codec_refuses_what_it_cannot_store() -> None:
    """A callable or an application object raises TypeError naming where it is; foreign data and
    unknown actions raise ValueError."""
    codec = CompatStateCodec([])
    with pytest.raises(TypeError, match=r"'world_state\.fn'"):
        codec.encode({"world_state": {"fn": print}})

    @dataclasses.dataclass
    class Mine:
        n: int

    with pytest.raises(TypeError, match="Mine"):
        codec.encode({"world_state": {"obj": Mine(1)}})
    with pytest.raises(ValueError, match="action 'gone'"):
        codec.decode(b'{"plan":{"$ge":"action","v":"gone"}}')
    with pytest.raises(ValueError, match="unknown class 'os'"):
        codec.decode(b'{"x":{"$ge":"dc","c":"os","f":{}}}')
    with pytest.raises(ValueError, match="unknown tag"):
        codec.decode(b'{"x":{"$ge":"pickle","v":""}}')


def test_engine_refuses_a_world_value_it_cannot_store(tmp_path: Path) -> None:
    """A world-state value the codec cannot store fails the run's start (StateValidationError) or,
    when an action returns one, the step (NodeError), naming where it is."""
    goal = compat.GoalSpec(conditions={"done": True})
    graph = compat.GoapGraph(actions=[compat.ActionSpec(name="a", effects={"done": True})])
    engine = graph.engine(store=SQLiteStore(str(tmp_path / "r.db")))
    with pytest.raises(StateValidationError, match=r"world_state\.obj"):
        asyncio.run(engine.run("bad", {"goal": goal, "world_state": {"obj": object()}}))
    act = compat.ActionSpec(name="a", effects={"done": True}, execute=lambda ws: {"obj": object()})
    engine = compat.GoapGraph(actions=[act]).engine(store=SQLiteStore(str(tmp_path / "r.db")))
    with pytest.raises(NodeError, match=r"world_state\.obj"):
        asyncio.run(engine.run("bad-action", {"goal": goal, "world_state": {}}))


# ------------------------------------------------------------------ every SQL store, goal kinds


async def test_paused_flaky_run_on_every_sql_store_ends_like_langgoap(sql_store: Store) -> None:
    """On SQLite, PostgreSQL and MySQL: the deploy flow (its build fails once) pauses at the approval
    of a gated release step, resumes in a new engine on the same store, ends as langgoap ends the
    same flow, and replays."""

    def acts(lib: ModuleType) -> list[Any]:
        gate = lib.ActionSpec(
            name="release",
            preconditions={"deployed": True},
            effects={"released": True},
            require_human_approval=True,
        )
        return [*_worker.actions(lib), gate]

    goal = {"goal": compat.GoalSpec(conditions={"released": True}), "world_state": {"source": False}}
    engine = compat.GoapGraph(actions=acts(compat)).engine(store=sql_store)
    await engine.run("rel-1", goal)
    intr = await engine.get_interrupt("rel-1")
    assert intr is not None and intr.payload["action"] == "release"
    final = await compat.GoapGraph(actions=acts(compat)).engine(store=sql_store).resume("rel-1", input=True)

    compiled = langgoap.GoapGraph(actions=acts(langgoap)).compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    compiled.invoke(
        {"goal": langgoap.GoalSpec(conditions={"released": True}), "world_state": {"source": False}}, cfg
    )
    assert summary(final) == summary(compiled.invoke(Command(resume=True), cfg))
    assert (await engine.replay("rel-1")).ok


def goals(lib: ModuleType) -> dict[str, Any]:
    """Goals of each kind over `goal_actions`: policies, a sequential and an `any` MultiGoal."""
    g = lib.GoalSpec
    return {
        "every_action": g(
            conditions={"c": True}, policy=lib.GoalPolicy(replan_strategy=lib.ReplanStrategy.EVERY_ACTION)
        ),
        "never": g(conditions={"c": True}, policy=lib.GoalPolicy(replan_strategy=lib.ReplanStrategy.NEVER)),
        "sequential": lib.MultiGoal(goals=(g(conditions={"a": True}), g(conditions={"c": True}))),
        "any": lib.MultiGoal(goals=(g(conditions={"z": True}), g(conditions={"b": True})), mode="any"),
    }


def goal_actions(lib: ModuleType) -> list[Any]:
    """a -> b -> c, with a cheaper b that fails once (blacklisted, replanned)."""
    calls = {"n": 0}

    def flaky_b(ws: dict[str, Any]) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("b down")
        return {"b": True}

    s = lib.ActionSpec
    return [
        s(name="a", effects={"a": True}),
        s(name="b_fast", preconditions={"a": True}, effects={"b": True}, cost=1.0, execute=flaky_b),
        s(name="b_slow", preconditions={"a": True}, effects={"b": True}, cost=3.0),
        s(name="c", preconditions={"b": True}, effects={"c": True}),
    ]


@pytest.mark.parametrize("kind", ["every_action", "never", "sequential", "any"])
def test_goal_kinds_on_the_engine_end_like_langgoap(kind: str, tmp_path: Path) -> None:
    """Replan policies and MultiGoals run by `engine.run` on SQLite end as langgoap ends them."""
    engine = compat.GoapGraph(actions=goal_actions(compat)).engine(store=SQLiteStore(str(tmp_path / "r.db")))
    final = asyncio.run(engine.run("g", {"goal": goals(compat)[kind], "world_state": {}}))
    ref = langgoap.GoapGraph(actions=goal_actions(langgoap)).compile()
    expected = ref.invoke({"goal": goals(langgoap)[kind], "world_state": {}})
    assert summary(final) == summary(expected)
    assert final.get("current_subgoal_index", 0) == expected.get("current_subgoal_index", 0)
