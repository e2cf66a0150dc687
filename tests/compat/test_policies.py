"""goap.compat's guards, sensors, stuck handlers, termination policies, cost callback, run history
and Reflexion tracer next to LangGOAP 0.1.2's: each scenario runs on both and compares what a user
sees."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("langgoap")

import langgoap.actions as lg_actions
import langgoap.callbacks as lg_callbacks
import langgoap.goals as lg_goals
import langgoap.graph.state as lg_state
import langgoap.guards as lg_guards
import langgoap.history as lg_history
import langgoap.reflexion as lg_reflexion
import langgoap.sensors as lg_sensors
import langgoap.stuck as lg_stuck
import langgoap.termination as lg_termination
from langgraph.store.memory import InMemoryStore

import goap.compat.actions as our_actions
import goap.compat.callbacks as our_callbacks
import goap.compat.goals as our_goals
import goap.compat.graph.state as our_state
import goap.compat.guards as our_guards
import goap.compat.history as our_history
import goap.compat.reflexion as our_reflexion
import goap.compat.sensors as our_sensors
import goap.compat.stuck as our_stuck
import goap.compat.termination as our_termination
import goap.runtime as rt
from goap.planning import GoalSpec as rt_goal


def _side(**mods: ModuleType) -> Any:
    return SimpleNamespace(**mods)


LG = _side(
    actions=lg_actions,
    callbacks=lg_callbacks,
    goals=lg_goals,
    state=lg_state,
    guards=lg_guards,
    history=lg_history,
    reflexion=lg_reflexion,
    sensors=lg_sensors,
    stuck=lg_stuck,
    term=lg_termination,
)
OURS = _side(
    actions=our_actions,
    callbacks=our_callbacks,
    goals=our_goals,
    state=our_state,
    guards=our_guards,
    history=our_history,
    reflexion=our_reflexion,
    sensors=our_sensors,
    stuck=our_stuck,
    term=our_termination,
)


def _both(fn: Any) -> tuple[Any, Any]:
    return fn(LG), fn(OURS)


def _run_state(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "execution_history": [None] * 3,
        "world_state": {"total_cost_usd": 2.5, "total_tokens": 900, "llm_call_count": 4},
        "status": "executing",
        "wall_clock_started_at": time.monotonic() - 10.0,
    }
    return {**base, **over}


def _decision(d: Any) -> Any:
    return None if d is None else (d.policy_name, d.error)


def test_built_in_policies_decide_alike() -> None:
    """Every built-in policy fires (or not) on the same state with the same name and error flag."""

    def decide(m: Any) -> list[Any]:
        t = m.term
        pols = [
            t.MaxActionsPolicy(3),
            t.MaxActionsPolicy(4),
            t.MaxWallClockPolicy(seconds=5.0),
            t.MaxWallClockPolicy(seconds=60.0),
            t.MaxCostPolicy(usd=2.5),
            t.MaxCostPolicy(usd=3.0),
            t.MaxTokensPolicy(tokens=900),
            t.MaxLLMCallsPolicy(max_calls=5),
            t.OnStuckPolicy(),
        ]
        states = [_run_state(), _run_state(status="no_plan", wall_clock_started_at=None)]
        return [_decision(p.should_terminate(s)) for p in pols for s in states]

    ours, theirs = _both(decide)
    assert ours == theirs


def test_composites_decide_alike_and_wrap_user_policies() -> None:
    """FirstOf/AllOf give the same decisions, also over a user policy that only has should_terminate."""

    def decide(m: Any) -> list[Any]:
        t = m.term

        class Flag:
            name = "Flag"

            def should_terminate(self, state: Any) -> Any:
                hit = state.get("world_state", {}).get("stop")
                return t.EarlyTermination(policy_name="Flag", reason="stop flag") if hit else None

        first = t.FirstOfPolicy(t.MaxActionsPolicy(10), Flag())
        every = t.AllOfPolicy(t.OnStuckPolicy(), t.MaxActionsPolicy(1))
        states = [_run_state(), _run_state(world_state={"stop": True}), _run_state(status="no_plan")]
        return [(_decision(p.should_terminate(s)), p.name) for p in (first, every) for s in states]

    ours, theirs = _both(decide)
    assert ours == theirs


def test_termination_reasons_differ_in_wording_only() -> None:
    """Deliberate difference: reasons are worded by goap.compat, yet name the same limit."""
    lg = lg_termination.MaxActionsPolicy(3).should_terminate(_run_state())
    ours = our_termination.MaxActionsPolicy(3).should_terminate(_run_state())
    assert lg is not None and ours is not None
    assert "3" in lg.reason and "3" in ours.reason and "Max actions" in ours.reason


def test_compat_policies_are_goap_policies() -> None:
    """A compat policy is goap's (a MaxActions) and its goap decision carries the LangGOAP name."""
    p = our_termination.MaxActionsPolicy(2)
    assert isinstance(p, rt.MaxActions) and isinstance(p, rt.TerminationPolicy)
    one = our_termination.as_goap_termination([p, our_termination.OnStuckPolicy()])
    assert isinstance(one, rt.FirstOf)


def _guards(m: Any) -> list[Any]:
    g = m.guards

    def boom(a: Any, ws: Any) -> Any:
        raise RuntimeError("exploded")

    class OnlyAsync:
        name = "later"

        async def acheck(self, a: Any, ws: Any) -> Any:
            return g.GuardResult(passed=False, message="no budget", severity=g.GuardSeverity.BLOCK)

    return [
        g.FunctionalGuard("ok", lambda a, ws: g.GuardResult(passed=True, message="fine")),
        g.FunctionalGuard("warn", lambda a, ws: g.GuardResult(passed=False, message="hmm")),
        g.FunctionalGuard("boom", boom),
        OnlyAsync(),
    ]


def _verdicts(results: list[Any]) -> list[Any]:
    return [(r.passed, r.severity.value, "exploded" in r.message) for r in results]


def test_run_guards_sync_alike() -> None:
    """The sync runner skips async-only guards, isolates a raising one as a WARN and agrees on blocking."""

    def run(m: Any) -> Any:
        action = m.actions.ActionSpec(name="act", effects={"done": True})
        rs = m.guards.run_guards_sync(_guards(m), action, {"budget": 1})
        return _verdicts(rs), m.guards.has_blocking_failure(rs)

    ours, theirs = _both(run)
    assert ours == theirs


def test_run_guards_async_alike() -> None:
    """The async runner checks every guard, async ones included, in order."""

    def run(m: Any) -> Any:
        action = m.actions.ActionSpec(name="act", effects={"done": True})
        rs = asyncio.run(m.guards.run_guards_async(_guards(m), action, {"budget": 1}))
        return _verdicts(rs), m.guards.has_blocking_failure(rs)

    ours, theirs = _both(run)
    assert ours == theirs


def test_sensors_read_alike() -> None:
    """Both runners read in order, skip a failing sensor and merge into the given dict; sync skips async-only."""

    class Remote:
        name = "remote"

        async def asense(self, ws: Any) -> Any:
            return {"remote": ws["b"] * 10}

    def bad(ws: Any) -> Any:
        raise OSError("probe lost")

    def run(m: Any) -> Any:
        s = m.sensors
        sensors = [
            s.FunctionalSensor("a", lambda ws: {"a": 1}),
            s.FunctionalSensor("bad", bad),
            s.FunctionalSensor("b", lambda ws: {"b": ws["a"] + 1}),
            Remote(),
        ]
        w1: dict[str, Any] = {"x": 0}
        w2: dict[str, Any] = {"x": 0}
        out1 = s.run_sensors_sync(sensors, w1)
        out2 = asyncio.run(s.run_sensors_async(sensors, w2))
        return out1, w1, out2, w2

    ours, theirs = _both(run)
    assert ours == theirs


def test_multicast_stuck_handler_alike() -> None:
    """The first REPLAN wins past a raising handler; with none, the NO_RESOLUTION names every handler."""

    def run(m: Any) -> Any:
        st = m.stuck

        def boom(s: Any, r: Any) -> Any:
            raise RuntimeError("x")

        no = st.FunctionalStuckHandler(
            name="no", fn=lambda s, r: st.StuckHandlerResult.no_resolution(handler_name="no", message="m")
        )
        yes = st.FunctionalStuckHandler(
            name="yes",
            fn=lambda s, r: st.StuckHandlerResult.replan(
                handler_name="yes", message="ok", state_updates={"k": 1}
            ),
        )
        bad = st.FunctionalStuckHandler(name="bad", fn=boom)
        hit = st.MulticastStuckHandler([no, bad, yes]).handle_stuck({}, None)
        miss = st.MulticastStuckHandler([no, bad]).handle_stuck({}, None)
        return (
            (hit.code.value, hit.handler_name, dict(hit.state_updates)),
            (miss.code.value, miss.handler_name, "no" in miss.message and "bad" in miss.message),
        )

    ours, theirs = _both(run)
    assert ours == theirs


def test_stuck_replan_becomes_a_goap_resolution() -> None:
    """A compat REPLAN is a goap StuckResolution with the updates and goal converted."""
    r = our_stuck.StuckHandlerResult.replan(
        handler_name="h",
        message="relax",
        state_updates={"k": 1},
        new_goal=our_goals.GoalSpec(conditions={"k": 1}),
    )
    res = r.to_goap()
    assert isinstance(res, rt.StuckResolution)
    assert (
        dict(res.state_updates) == {"k": 1}
        and isinstance(res.goal, rt_goal)
        and dict(res.goal.conditions) == {"k": 1}
    )
    assert our_stuck.StuckHandlerResult.no_resolution(handler_name="h", message="m").to_goap() is None


def test_cost_accumulator_alike() -> None:
    """Totals after a modern and a legacy model answer (priced by a dated model name) agree."""
    modern = SimpleNamespace(
        generations=[
            [
                SimpleNamespace(
                    message=SimpleNamespace(
                        usage_metadata={"input_tokens": 1200, "output_tokens": 300},
                        response_metadata={"model_name": "claude-3-5-haiku-20241022"},
                    )
                )
            ]
        ],
        llm_output=None,
    )
    legacy = SimpleNamespace(
        generations=[],
        llm_output={
            "token_usage": {"prompt_tokens": 100, "completion_tokens": 50},
            "model_name": "gpt-4o-mini-x",
        },
    )

    def run(m: Any) -> Any:
        ws: dict[str, Any] = {"total_tokens": 5}
        acc = m.callbacks.CostAccumulator(ws, cost_per_1k_tokens={"gpt-4o": (1.0, 1.0)})
        acc.on_llm_end(modern)
        acc.on_llm_end(legacy)
        return round(ws["total_cost_usd"], 12), ws["total_tokens"], ws["llm_call_count"]

    ours, theirs = _both(run)
    assert ours == theirs
    assert our_callbacks.DEFAULT_COST_PER_1K_TOKENS == lg_callbacks.DEFAULT_COST_PER_1K_TOKENS


def _record(m: Any, outcome: str, actions: tuple[str, ...]) -> Any:
    return m.history.ExecutionRecord(
        goal_hash="g",
        goal_conditions={"done": True},
        plan_actions=actions,
        expected_cost=2.0,
        actual_cost=2.0,
        outcome=outcome,
        replan_count=1,
        timestamp=datetime(2025, 5, 1, tzinfo=UTC),
    )


def test_goal_hash_alike() -> None:
    """compute_goal_hash gives LangGOAP's hash, so records are filed under the same key."""
    ours, theirs = _both(
        lambda m: m.history.compute_goal_hash(m.goals.GoalSpec(conditions={"b": 2, "a": "x", "c": None}))
    )
    assert ours == theirs


def test_history_stores_are_interchangeable() -> None:
    """A store written by one is read by the other: same queries, same records, newest first."""
    for writer, reader in ((LG, OURS), (OURS, LG)):
        store = InMemoryStore()
        w = writer.history.StoreExecutionHistory(store, index_limit=2)
        w.record(_record(writer, "failed", ("a", "b")))
        w.record(_record(writer, "success", ("a",)))
        asyncio.run(w.arecord(_record(writer, "failed", ("b",))))
        r = reader.history.StoreExecutionHistory(store)
        got = [x.to_dict() for x in r.query_by_goal("g", limit=5)]
        fails = [x.plan_actions for x in asyncio.run(r.aquery_failures("b"))]
        assert [g["plan_actions"] for g in got] == [["b"], ["a"]]
        assert fails == [("b",), ("a", "b")]


def _failed(m: Any, name: str) -> dict[str, Any]:
    res = m.state.ActionResult(action_name=name, success=False, error="timeout")
    return {"status": "action_failed", "execution_history": [res]}


def test_reflexion_template_and_limit_alike() -> None:
    """Template reflections: one per failed entry, the newest max_reflections kept, naming the action."""

    def run(m: Any) -> Any:
        t = m.reflexion.ReflexionTracer(max_reflections=2)
        for n in ("a", "b", "c"):
            t.on_action_complete(_failed(m, n))
        t.on_action_complete({"status": "executing", "execution_history": []})
        return [(r.action_name, r.error, r.action_name in r.reflection) for r in t.reflections]

    ours, theirs = _both(run)
    assert ours == theirs


def test_reflections_persist_across_libraries() -> None:
    """Reflections one tracer stored are loaded by the other's tracer from the same store."""
    for writer, reader in ((LG, OURS), (OURS, LG)):
        store = InMemoryStore()
        w = writer.reflexion.ReflexionTracer(history=writer.history.StoreExecutionHistory(store))
        w.on_action_complete(_failed(writer, "deploy"))
        r = reader.reflexion.ReflexionTracer(history=reader.history.StoreExecutionHistory(store))
        r.load()
        assert [(x.action_name, x.error) for x in r.reflections] == [("deploy", "timeout")]


def test_reflexion_is_goaps_and_writes_the_note() -> None:
    """The compat tracer is goap's ReflexionTracer; goap's reflect hook returns a "[action] ..." note."""
    t = our_reflexion.ReflexionTracer()
    assert isinstance(t, rt.ReflexionTracer)
    note = asyncio.run(t.reflect("sign", "HSM offline", {"built": True}))
    assert note.startswith("[sign] ") and t.reflections[0].action_name == "sign"


def test_parse_llm_response_alike() -> None:
    """A labelled answer splits into reflection and suggestion; an unlabelled one is all reflection."""
    texts = ["Reflection: it broke\nSuggestion: retry later", "the API was down", "  suggestion: wait\n"]
    ours = [our_reflexion._parse_llm_response(t) for t in texts]
    theirs = [lg_reflexion._parse_llm_response(t) for t in texts]
    assert ours == theirs


def _graph_run(m: Any, **policies: Any) -> dict[str, Any]:
    """Run gather -> process (-> publish needing a license) with ``policies`` on m's GoapGraph."""
    from importlib import import_module

    a = m.actions.ActionSpec
    acts = [
        a(name="gather", effects={"data": True}),
        a(name="process", preconditions={"data": True}, effects={"done": True}),
        a(name="publish", preconditions={"done": True, "license": True}, effects={"published": True}),
    ]
    graph = import_module(m.actions.__name__.rsplit(".", 1)[0] + ".graph.builder").GoapGraph(acts, **policies)
    result: dict[str, Any] = graph.invoke(
        goal=m.goals.GoalSpec(conditions={"published": True}), world_state={}
    )
    return result


def test_max_actions_ends_a_graph_run_alike() -> None:
    """In a graph run, MaxActionsPolicy stops both after the same actions, naming the policy."""

    def run(m: Any) -> Any:
        r = _graph_run(m, stuck_handlers=[_license(m)], termination_policies=[m.term.MaxActionsPolicy(2)])
        return (
            r["status"],
            [h.action_name for h in r["execution_history"]],
            "MaxActionsPolicy" in r["replan_reason"],
        )

    ours, theirs = _both(run)
    assert ours == theirs


def _license(m: Any) -> Any:
    st = m.stuck
    return st.FunctionalStuckHandler(
        name="license",
        fn=lambda s, r: st.StuckHandlerResult.replan(
            handler_name="license", message="ok", state_updates={"license": True}
        ),
    )


def test_stuck_handler_rescues_a_graph_run_alike() -> None:
    """A REPLAN with state updates lets both runs reach the goal through the same actions."""

    def run(m: Any) -> Any:
        r = _graph_run(m, stuck_handlers=[_license(m)])
        return r["status"], [h.action_name for h in r["execution_history"]], r["world_state"]

    ours, theirs = _both(run)
    assert ours == theirs


def test_sensors_and_history_in_a_graph_run_alike() -> None:
    """A sensor providing the license lets both runs succeed; both file one success record for the goal."""

    def run(m: Any) -> Any:
        history = m.history.StoreExecutionHistory(InMemoryStore())
        sensor = m.sensors.FunctionalSensor("licence_office", lambda ws: {"license": True})
        r = _graph_run(m, sensors=[sensor], history=history)
        recs = history.query_by_goal(
            m.history.compute_goal_hash(m.goals.GoalSpec(conditions={"published": True}))
        )
        return r["status"], [(x.outcome, x.plan_actions, x.expected_cost) for x in recs]

    ours, theirs = _both(run)
    assert ours == theirs


def test_guards_and_sensors_see_langgoap_values_in_a_graph_run() -> None:
    """A sensor writing a tuple fact and a guard reading it see LangGOAP's values, not goap's encoding."""

    def run(m: Any) -> Any:
        seen: list[Any] = []

        def guard(action: Any, ws: dict[str, Any]) -> Any:
            seen.append(ws.get("region"))
            return m.guards.GuardResult(passed=True, message="ok")

        a = m.actions.ActionSpec
        acts = [a(name="deploy", preconditions={"region": ("eu", 1)}, effects={"deployed": True})]
        sensor = m.sensors.FunctionalSensor("geo", lambda ws: {"region": ("eu", 1)})
        builder = __import__(m.actions.__name__.rsplit(".", 1)[0] + ".graph.builder", fromlist=["GoapGraph"])
        g = builder.GoapGraph(acts, sensors=[sensor], guards=[m.guards.FunctionalGuard("look", guard)])
        r = g.invoke(goal=m.goals.GoalSpec(conditions={"deployed": True}), world_state={"region": None})
        return r["status"], r["world_state"], seen

    ours, theirs = _both(run)
    assert ours == theirs


def test_reflexion_with_a_model_in_a_graph_run_alike() -> None:
    """A failing action in a graph run gives both tracers the same model-written reflection."""
    from langchain_core.messages import AIMessage

    class Model:
        def invoke(self, messages: Any) -> AIMessage:
            return AIMessage(content="Reflection: the API timed out.\nSuggestion: retry with backoff.")

    def run(m: Any) -> Any:
        calls = {"n": 0}

        def flaky(ws: dict[str, Any]) -> dict[str, Any]:
            calls["n"] += 1
            if calls["n"] == 1:
                raise RuntimeError("timeout")
            return {"done": True}

        tracer = m.reflexion.ReflexionTracer(llm=Model())
        act = m.actions.ActionSpec(name="call_api", effects={"done": True}, execute=flaky)
        builder = __import__(m.actions.__name__.rsplit(".", 1)[0] + ".graph.builder", fromlist=["GoapGraph"])
        goal = m.goals.GoalSpec(conditions={"done": True}, policy=m.goals.GoalPolicy(max_replans=3))
        r = builder.GoapGraph([act], tracer=tracer).invoke(goal=goal, world_state={})
        return r["status"], [(x.action_name, x.reflection, x.suggestion) for x in tracer.reflections]

    ours, theirs = _both(run)
    assert ours == theirs


def test_stuck_handlers_are_not_asked_when_the_replan_budget_is_spent() -> None:
    """As in LangGOAP, a spent replan budget ends the run without asking the stuck handlers."""

    def run(m: Any) -> Any:
        asked: list[Any] = []
        st = m.stuck

        def note(s: Any, r: Any) -> Any:
            asked.append(1)
            return st.StuckHandlerResult.no_resolution(handler_name="h", message="no")

        def broken(ws: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError("down")

        act = m.actions.ActionSpec(name="go", effects={"done": True}, execute=broken)
        builder = __import__(m.actions.__name__.rsplit(".", 1)[0] + ".graph.builder", fromlist=["GoapGraph"])
        graph = builder.GoapGraph([act], stuck_handlers=[st.FunctionalStuckHandler(name="h", fn=note)])
        goal = m.goals.GoalSpec(conditions={"done": True}, policy=m.goals.GoalPolicy(max_replans=1))
        r = graph.invoke(goal=goal, world_state={})
        return r["status"], len(asked)

    ours, theirs = _both(run)
    assert ours == theirs
