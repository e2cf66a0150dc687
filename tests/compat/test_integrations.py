"""goap.compat's condition resolvers, goal interpreter and integrations next to LangGOAP 0.1.2's.

Each scenario runs on real ``langgoap`` and on ``goap.compat`` and compares what a user sees.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

langgoap = pytest.importorskip("langgoap")
pytest.importorskip("langchain_core")

import langgoap.conditions as lg_cond  # noqa: E402
import langgoap.integrations as lg_int  # noqa: E402
import langgoap.interpreter as lg_interp  # noqa: E402
import langgoap.testing as lg_testing  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

import goap.compat as compat  # noqa: E402
import goap.compat.conditions as ours_cond  # noqa: E402
import goap.compat.integrations as ours_int  # noqa: E402
import goap.compat.interpreter as ours_interp  # noqa: E402
import goap.compat.testing as ours_testing  # noqa: E402

SIDES = [
    pytest.param((langgoap, lg_cond, lg_interp, lg_int, lg_testing), id="langgoap"),
    pytest.param((compat, ours_cond, ours_interp, ours_int, ours_testing), id="compat"),
]


@tool
def shout(word: str) -> str:
    """Upper-case a word."""
    return word.upper()


def both(fn: Any) -> tuple[Any, Any]:
    """``fn`` applied to LangGOAP's modules and to ours."""
    return fn(*SIDES[0].values[0]), fn(*SIDES[1].values[0])


def test_resolvers_fill_the_same_facts() -> None:
    """Unknown answers fall through, exceptions are swallowed, present keys are kept."""

    def run(lg: Any, cond: Any, *_: Any) -> dict[str, Any]:
        def boom(key: str, ws: dict[str, Any]) -> Any:
            raise RuntimeError(key)

        answers = {"a": None, "b": "yes", "c": False, "d": "maybe", "e": True}
        rs = [
            cond.FunctionalConditionResolver("boom", boom),
            cond.FunctionalConditionResolver("table", lambda k, ws: answers.get(k)),
            cond.FunctionalConditionResolver(
                "last", lambda k, ws: cond.ConditionStatus.FALSE if k == "a" else None
            ),
        ]
        out: dict[str, Any] = cond.resolve_conditions(rs, ["a", "b", "c", "d", "e", "z"], {"e": 7})
        return out

    ours, theirs = both(run)
    assert ours == theirs == {"e": 7, "a": False, "b": True, "c": False}


@pytest.mark.asyncio
async def test_async_resolution_matches_and_overwrites() -> None:
    """aresolve_conditions awaits async resolvers and honours overwrite=True the same way."""
    results = []
    for _lg, cond, *_ in (p.values[0] for p in SIDES):

        class OnlyAsync:
            name = "only_async"
            status = cond.ConditionStatus

            async def aresolve(self, key: str, ws: dict[str, Any]) -> Any:
                return self.status.TRUE if key == "x" else self.status.UNKNOWN

        results.append(
            await cond.aresolve_conditions([OnlyAsync()], ["x", "y"], {"x": False}, overwrite=True)
        )
    assert results[0] == results[1] == {"x": True}


def test_status_values_compare_like_langgoap() -> None:
    """The three statuses are equal strings, truthy only for TRUE, and coerce raw answers alike."""
    raw = [True, False, None, "TRUE", " no ", "1", "perhaps", 3]
    for _lg, cond, *_ in (p.values[0] for p in SIDES):
        statuses = [cond.FunctionalConditionResolver("f", lambda k, ws, v=v: v).resolve("k", {}) for v in raw]
        assert [str(s) for s in statuses] == [
            "true",
            "false",
            "unknown",
            "true",
            "false",
            "true",
            "unknown",
            "unknown",
        ]
        assert [bool(s) for s in statuses] == [True, False, False, True, False, True, False, False]


def test_prompt_resolver_reads_structured_answer_and_degrades() -> None:
    """A model answering 'FALSE' gives FALSE; a model that raises gives UNKNOWN, on both sides."""

    class Answer:
        status, reasoning = "FALSE", ""

    class Model:
        def __init__(self, fail: bool) -> None:
            self.fail = fail

        def with_structured_output(self, schema: Any, **kw: Any) -> Any:
            if self.fail:
                raise RuntimeError("offline")
            return type("Chain", (), {"invoke": lambda self, msgs: Answer()})()

    for _, cond, *_rest in (p.values[0] for p in SIDES):
        assert cond.PromptConditionResolver(Model(False)).resolve("k", {}) == "false"
        assert cond.PromptConditionResolver(Model(True)).resolve("k", {}) == "unknown"


@pytest.mark.asyncio
async def test_resolver_sensor_reads_what_resolve_conditions_fills() -> None:
    """Our goap sensor bridge reports exactly the facts LangGOAP's resolve_conditions adds."""
    fn = lambda k, ws: {"ready": True, "safe": "no"}.get(k)  # noqa: E731
    world = {"ready": False, "n": 1}
    theirs = lg_cond.resolve_conditions(
        [lg_cond.FunctionalConditionResolver("t", fn)], ["ready", "safe", "x"], world
    )
    sensor = ours_cond.resolver_sensor(
        [ours_cond.FunctionalConditionResolver("t", fn)], ["ready", "safe", "x"]
    )
    reading = await sensor.sense(world)
    assert {**world, **reading} == theirs == {"ready": False, "n": 1, "safe": False}


def test_interpreted_goal_converts_to_the_same_goal() -> None:
    """to_goal_spec gives equal conditions, constraints and objectives."""

    def run(lg: Any, cond: Any, interp: Any, *_: Any) -> Any:
        goal = interp.to_goal_spec(
            interp.InterpretedGoal(
                conditions={"report": True, "pages": 3},
                constraints=[interp.InterpretedConstraint(key="cost_usd", max=5.0, level="soft", weight=2)],
                objectives=[interp.InterpretedObjective(metric="time", direction="minimize")],
            )
        )
        cons = [(c.key, c.min, c.max, c.weight, c.level) for c in goal.constraints]
        return dict(goal.conditions), cons, {k: v.value for k, v in (goal.objectives or {}).items()}

    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize(
    ("conditions", "constraint", "error"),
    [({}, None, "empty conditions"), ({"x": [1]}, None, "Non-scalar keys"), ({"x": 1}, (9.0, 1.0), "min")],
)
def test_invalid_interpretations_raise_value_error_on_both(
    conditions: Any, constraint: Any, error: str
) -> None:
    """Empty conditions, list values and min > max are ValueErrors with the same key phrase."""
    for _, _c, interp, *_rest in (p.values[0] for p in SIDES):
        cons = (
            [interp.InterpretedConstraint(key="c", min=constraint[0], max=constraint[1])]
            if constraint
            else []
        )
        with pytest.raises(ValueError, match=error):
            interp.to_goal_spec(interp.InterpretedGoal(conditions=conditions, constraints=cons))


def test_goal_interpreter_with_fake_model_and_catalog() -> None:
    """interpret() returns the model's goal; the prompt names the same actions and facts (our wording differs)."""

    def run(lg: Any, cond: Any, interp: Any, integ: Any, testing: Any) -> Any:
        acts = [
            lg.ActionSpec(
                name="fetch", preconditions={"src": True}, effects={"data": True}, resources={"usd": 1.0}
            ),
            lg.ActionSpec(
                name="write",
                preconditions={"data": True},
                effects={"done": True},
                metadata={"description": "Write it"},
            ),
        ]
        model = testing.FakeStructuredModel(
            response=interp.InterpretedGoal(conditions={"done": True}, reasoning="r")
        )
        gi = interp.GoalInterpreter(llm=model, actions=acts)
        system = gi.build_messages("do it", {"src": True})[0].content
        facts = [w in system for w in ("fetch", "write", "src", "data", "done", "usd", "Write it")]
        return dict(gi.interpret("do it").conditions), gi.interpret_raw("x").reasoning, facts

    ours, theirs = both(run)
    assert ours == theirs
    assert all(ours[2])


def test_goapify_tool_executes_like_langgoap() -> None:
    """The wrapped tool gets only its arguments and returns the effects plus the result_key value."""

    def run(lg: Any, cond: Any, interp: Any, integ: Any, _t: Any) -> Any:
        action = integ.goapify_tool(
            shout, preconditions={"w": True}, effects={"shouted": True}, result_key="loud", cost=2.0
        )
        with pytest.raises(ValueError, match="collides"):
            integ.goapify_tool(shout, effects={"loud": 1}, result_key="loud")
        return action.name, action.cost, dict(action.effects), action.execute({"word": "hi", "other": 1})

    ours, theirs = both(run)
    assert ours == theirs == ("shout", 2.0, {"shouted": True}, {"shouted": True, "loud": "HI"})


def test_create_goap_agent_warns_about_idle_tools(caplog: pytest.LogCaptureFixture) -> None:
    """Both warn, on their prebuilt module's logger, naming a tool without effects or resources."""
    for name, (_lg, *rest) in (("langgoap", SIDES[0].values[0]), ("goap.compat", SIDES[1].values[0])):
        caplog.clear()
        with (
            caplog.at_level(logging.WARNING, logger=f"{name}.integrations.prebuilt"),
            pytest.raises(ValueError, match="string goal but no llm"),
        ):
            rest[2].create_goap_agent(tools=[shout], goal="shout something")
        assert "shout" in caplog.text
        assert "no effects or resources" in caplog.text


def test_scaffold_writes_the_same_files(tmp_path: Path) -> None:
    """Same four files and langgraph.json, except the dependency: graphengine provides goap.compat (a difference)."""
    configs = []
    for i, (_, _c, _i, integ, _t) in enumerate(p.values[0] for p in SIDES):
        out = integ.scaffold_deployment(
            tmp_path / str(i),
            graph_factory_module="pkg.g",
            graph_factory_attr="make",
            agent_name="bot",
            agent_description="d",
            extra_dependencies=("x>=1",),
        )
        assert sorted(f.name for f in out.iterdir()) == [
            ".env.example",
            "README.md",
            "graph.py",
            "langgraph.json",
        ]
        assert "from pkg.g import make" in (out / "graph.py").read_text()
        with pytest.raises(FileExistsError):
            integ.scaffold_deployment(
                out, graph_factory_module="m", graph_factory_attr="f", agent_name="a", agent_description="d"
            )
        configs.append(json.loads((out / "langgraph.json").read_text()))
    theirs, ours = configs
    assert theirs.pop("dependencies") == ["langgoap", "x>=1"]
    assert ours.pop("dependencies") == ["graphengine[langgraph,langchain]", "x>=1"]
    assert theirs == ours


def test_format_goap_result_same_text() -> None:
    """A result dict renders to identical text."""
    result = {
        "status": "goal_achieved",
        "execution_history": [{"action": "a", "success": True}, {"action": "b", "success": False}],
        "world_state": {"z": 1, "a": True},
    }
    assert ours_int.format_goap_result(result) == lg_int.format_goap_result(result)


def _pipeline(lg: Any) -> list[Any]:
    """Two actions writing the facts they declare (LangGOAP-shaped, on either side)."""
    return [
        lg.ActionSpec(name="fetch", effects={"data": True}, execute=lambda ws: {"data": True, "rows": 3}),
        lg.ActionSpec(name="report", preconditions={"data": True}, effects={"done": True}),
    ]


def test_create_goap_agent_runs_the_tools_like_langgoap() -> None:
    """The prebuilt agent reaches the goal with the same status, world and executed actions."""

    def run(lg: Any, cond: Any, interp: Any, integ: Any, _t: Any) -> Any:
        agent = integ.create_goap_agent(
            tools=[shout], goal=lg.GoalSpec(conditions={"loud": True}), effects={"shout": {"loud": True}}
        )
        final = agent.invoke({"goal": agent.goap_goal, "world_state": {"word": "hey"}})
        done = [(h.action_name, h.success) for h in final["execution_history"]]
        return final["status"], dict(final["world_state"]), done

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[0] == "goal_achieved"


def test_subgraph_node_writes_the_same_plan_result() -> None:
    """A parent LangGraph app sees the same status and world under its output key."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    class Parent(TypedDict, total=False):
        world_state: dict[str, Any]
        plan_result: dict[str, Any]

    def run(lg: Any, cond: Any, interp: Any, integ: Any, _t: Any) -> Any:
        builder = StateGraph(Parent)
        integ.add_goap_subgraph(
            builder, name="goap", actions=_pipeline(lg), goal=lg.GoalSpec(conditions={"done": True})
        )
        builder.add_edge(START, "goap")
        builder.add_edge("goap", END)
        out = builder.compile().invoke({"world_state": {"seed": 1}})["plan_result"]
        return out["status"], dict(out["world_state"])

    ours, theirs = both(run)
    assert ours == theirs == ("goal_achieved", {"seed": 1, "data": True, "rows": 3, "done": True})


@pytest.mark.asyncio
async def test_goap_tool_and_subagent_report_the_same_text() -> None:
    """The DeepAgents tool (sync, async) and subagent report the same status and world; records read differently."""
    from langchain_core.messages import HumanMessage

    texts = []
    for lg, _c, interp, integ, testing in (p.values[0] for p in SIDES):
        model = testing.FakeStructuredModel(response=interp.InterpretedGoal(conditions={"done": True}))
        tool_ = integ.create_goap_tool(_pipeline(lg), llm=model, world_state={"seed": 1})
        sub = integ.create_goap_subagent(_pipeline(lg), llm=model)
        reply = await sub["runnable"].ainvoke({"messages": [HumanMessage(content="report please")]})
        texts.append(
            (
                tool_.invoke({"request": "x"}),
                await tool_.ainvoke({"request": "x"}),
                reply["messages"][-1].content,
            )
        )
    for theirs, ours in zip(*texts, strict=True):
        assert ours.splitlines()[0] == theirs.splitlines()[0] == "GOAP Result: goal_achieved"
        assert ours.split("Final world state:")[1] == theirs.split("Final world state:")[1]
        # Difference: history records are named ("- fetch (success=True)"); LangGOAP prints their repr.
        assert "  - fetch (success=True)" in ours and "ActionResult(action_name='fetch'" in theirs
