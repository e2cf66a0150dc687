"""goap.compat's serializer, tracers, pictures and command line next to LangGOAP 0.1.2's: each
scenario is built on both sides from one description and what a user sees is compared."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import re
import sys
import textwrap
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest.mock import MagicMock

import pytest
from click.testing import CliRunner

pytest.importorskip("langgoap")

SIDES = ("langgoap", "goap.compat")


def mod(side: str, path: str = "") -> ModuleType:
    """``side``'s package or one of its modules."""
    return importlib.import_module(f"{side}.{path}" if path else side)


def linear_plan(side: str) -> Any:
    """gather -> analyze -> report, the last one costing 2."""
    m = mod(side)
    a = m.ActionSpec(name="gather", effects={"data": True})
    b = m.ActionSpec(name="analyze", preconditions={"data": True}, effects={"result": True})
    c = m.ActionSpec(name="report", preconditions={"result": True}, effects={"done": True}, cost=2.0)
    return m.Plan(actions=(a, b, c), total_cost=4.0)


def scheduled_plan(side: str) -> Any:
    """Two fetches side by side, then a merge, with a CSP schedule and resource totals."""
    m = mod(side)
    secs = timedelta(seconds=1)
    acts = (
        m.ActionSpec(name="fetch_a", effects={"a": True}, duration=2 * secs),
        m.ActionSpec(name="fetch_b", effects={"b": True}, duration=3 * secs),
        m.ActionSpec(name="merge", preconditions={"a": True, "b": True}, effects={"m": True}, duration=secs),
    )
    times = [("fetch_a", 0, 2), ("fetch_b", 0, 3), ("merge", 3, 4)]
    sched = tuple(
        m.ScheduleEntry(action_name=n, start=s * secs, duration=(e - s) * secs, end=e * secs)
        for n, s, e in times
    )
    usage = (m.ResourceUsage(key="tokens", total=300.0, constraint_max=500.0, satisfied=True),)
    csp = m.CSPMetadata(status=m.CSPStatus.OPTIMAL, schedule=sched, resource_usage=usage, makespan=4 * secs)
    return m.Plan(actions=acts, total_cost=3.0, metadata=mod(side, "planner.types").PlanMetadata(csp=csp))


def both(build: Any) -> list[Any]:
    """``build(side)`` on each side."""
    return [build(side) for side in SIDES]


def test_serializer_round_trips_a_plan_alike() -> None:
    """A plan through each side's serializer comes back with the same actions, costs and states."""

    def trip(side: str) -> Any:
        m = mod(side)
        plan = linear_plan(side)
        plan = m.Plan(
            actions=plan.actions, expected_states=(m.PlanningState.from_dict({"data": True}),), total_cost=4
        )
        serde = m.LangGOAPSerializer()
        back = serde.loads_typed(serde.dumps_typed(plan))
        return back.action_names, [a.get_cost({}) for a in back.actions], back.expected_states[0].to_dict()

    ours, theirs = both(trip)
    assert ours == theirs


def test_serializer_keeps_tuples_and_frozensets_of_pairs() -> None:
    """Tuples and frozensets of pairs keep their types on both sides."""
    value = {"t": (1, "x"), "f": frozenset({("a", 1), ("b", 2)}), "s": {3, 4}}
    out = [(lambda s: s.loads_typed(s.dumps_typed(value)))(mod(side).LangGOAPSerializer()) for side in SIDES]
    assert out[0] == out[1] == value and isinstance(out[1]["t"], tuple) and isinstance(out[1]["f"], frozenset)


def test_serializer_never_pickles_on_purpose() -> None:
    """Difference: pickle_fallback is not carried over by install_langgoap_serde (goap.compat never pickles)."""
    from langgraph.checkpoint.memory import MemorySaver
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    flags = []
    for side in SIDES:
        cp = MemorySaver()
        cp.serde = JsonPlusSerializer(pickle_fallback=True)
        flags.append(mod(side).install_langgoap_serde(cp).serde.pickle_fallback)
    assert flags == [True, False]


def _langsmith_calls(side: str) -> list[tuple[str, Any]]:
    client = MagicMock()
    t = mod(side, "tracing").LangSmithTracer(
        client=client, project_name="p", flush_every=2, max_search_events=1
    )
    m = mod(side)
    plan = linear_plan(side)
    t.on_plan_start(m.GoalSpec(conditions={"done": True}), {"x": 1}, "astar")
    for i in range(3):
        t.on_search_expand(i, {"k": i}, 1.0, 2.0, 3.0, None, "step")
    t.on_plan_complete(plan, 5.0)
    t.on_action_start(plan.actions[0], {})
    t.on_action_complete(
        mod(side, "graph.state").ActionResult(action_name="gather", success=False, error="boom")
    )
    t.on_plan_start(m.GoalSpec(conditions={"done": True}), {}, "astar")
    asyncio.run(t.aon_goal_achieved({"done": True}))
    out = []
    for call in client.method_calls:
        kw = {k: v for k, v in call.kwargs.items() if k in ("name", "run_type", "outputs", "error", "extra")}
        out.append((call[0], json.loads(json.dumps(kw, default=str))))
    return out


def test_langsmith_tracer_sends_the_same_runs() -> None:
    """A scripted round (search events, an action that fails, a replan, the goal) makes the same client calls."""
    ours, theirs = _langsmith_calls("goap.compat"), _langsmith_calls("langgoap")
    assert [name for name, _ in ours] == [name for name, _ in theirs]
    assert ours == theirs


def test_search_event_buffer_drains_alike() -> None:
    """The capped, batched buffer yields the same snapshots and flush signals."""

    def run(side: str) -> list[Any]:
        buf = mod(side, "tracing._search_buffer").SearchEventBuffer(max_events=2, flush_every=3)
        seen = [buf.add_expand({"kind": "search_expand", "node_id": i}) for i in range(5)]
        seen.append(buf.add_uncapped({"kind": "search_dead_end"}))
        return [*seen, buf.drain(), buf.drain()]

    assert run("goap.compat") == run("langgoap")


def test_safe_proxy_and_multi_tracer_isolate_failures_alike() -> None:
    """A failing tracer next to a recording one: both sides record the same calls and raise nothing."""

    def run(side: str) -> list[str]:
        tr = mod(side, "tracing")
        calls: list[str] = []

        class Broken:
            def on_plan_start(self, *a: Any) -> None:
                raise RuntimeError("boom")

        class Rec:
            def __getattr__(self, name: str) -> Any:
                return lambda *a: calls.append(name)

        tr.SafeTracerProxy(Broken()).on_plan_start(None, {}, "x")
        tr.MultiTracer([Broken(), Rec()]).on_plan_start(None, {}, "x")
        tr.MultiTracer([Rec()]).on_search_expand(1, {}, 0.0, 0.0, 0.0, None, None)
        return calls

    assert run("goap.compat") == run("langgoap")


def test_logging_tracer_logs_every_hook(caplog: pytest.LogCaptureFixture) -> None:
    """Both log each hook, search hooks included, by name (the message wording differs)."""
    hooks: dict[str, tuple[Any, ...]] = {
        "plan_start": (None, {}, "x"),
        "search_expand": (1, {}, 0.0, 0.0, 0.0, None, None),
    }
    hooks |= {"search_complete": (3, 1.0, True), "goal_achieved": ({},)}
    for side in SIDES:
        caplog.clear()
        with caplog.at_level(logging.INFO):
            for hook, args in hooks.items():
                getattr(mod(side, "tracing").LoggingTracer(), f"on_{hook}")(*args)
        assert [next(h for h in hooks if h in r.getMessage()) for r in caplog.records] == list(hooks)
        assert {r.name for r in caplog.records} == {f"{side}.tracing"}


def test_ascii_pictures_are_identical() -> None:
    """The ASCII step list of a linear plan and the Gantt bars of a scheduled one are the same text."""
    for build in (linear_plan, scheduled_plan):
        ours, theirs = (
            mod(side, "viz").render_ascii(build(side), show_resources=False) for side in SIDES[::-1]
        )
        assert ours == theirs
    ours, theirs = (
        mod(side, "viz").render_ascii_gantt(scheduled_plan(side), width=20) for side in SIDES[::-1]
    )
    assert ours == theirs


def _edges(text: str, arrow: str) -> set[tuple[str, str]]:
    return set(re.findall(rf"(\w+) {arrow} (\w+)", text))


@pytest.mark.parametrize(("render", "arrow"), [("render_mermaid", "-->"), ("render_dot", "->")])
def test_flowcharts_have_the_same_nodes_and_edges(render: str, arrow: str) -> None:
    """Mermaid and DOT pictures name the same node ids and draw the same dependency edges."""
    for build in (linear_plan, scheduled_plan):
        ours, theirs = (getattr(mod(side, "viz"), render)(build(side)) for side in SIDES[::-1])
        assert _edges(ours, arrow) == _edges(theirs, arrow) != set()
        assert set(re.findall(r"a\d_\w+", ours)) == set(re.findall(r"a\d_\w+", theirs))
        assert ("subgraph" in ours) == ("subgraph" in theirs)


def test_gantt_chart_lists_the_same_actions_in_seconds() -> None:
    """Difference: the Mermaid Gantt chart is goap's (seconds, numbered tasks), LangGOAP's counts milliseconds."""
    ours, theirs = (mod(side, "viz").render_mermaid_gantt(scheduled_plan(side)) for side in SIDES[::-1])
    for name in ("fetch_a", "fetch_b", "merge"):
        assert name in ours and name in theirs
    assert "dateFormat X" in ours and "dateFormat  x" in theirs


def _fixture(tmp_path: Path, side: str, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"edges_fx_{side.replace('.', '_')}"
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent(f"""\
        from {side} import ActionSpec, GoalSpec
        ACTIONS = [
            ActionSpec(name="gather", effects={{"data": True}}, execute=lambda s: {{"data": True}}),
            ActionSpec(name="process", preconditions={{"data": True}}, effects={{"done": True}}, cost=2.0,
                       execute=lambda s: {{"done": True}}),
        ]
        GOAL = GoalSpec(conditions={{"done": True}})
        NEVER = GoalSpec(conditions={{"flying": True}})
        """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    return name


@pytest.mark.parametrize(
    "argv",
    [
        ["actions", "{m}:ACTIONS", "-f", "json"],
        ["actions", "{m}:ACTIONS"],
        ["plan", "{m}:ACTIONS", "{m}:GOAL", "-f", "json"],
        ["plan", "{m}:ACTIONS", "{m}:GOAL"],
        ["explain", "{m}:ACTIONS", "{m}:NEVER"],
    ],
)
def test_command_line_prints_the_same(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same command prints the same output and exit status on both sides."""
    results = []
    for side in SIDES:
        m = _fixture(tmp_path, side, monkeypatch)
        res = CliRunner().invoke(mod(side, "cli.main").cli, [a.format(m=m) for a in argv])
        results.append((res.exit_code, re.sub(r"Suggestion: .*", "Suggestion: ...", res.output)))
    assert results[0] == results[1]


def test_langsmith_tracer_in_a_graph_run_sends_the_same_runs() -> None:
    """Through GoapGraph, a two-action run opens and closes the same runs with the same outcomes."""

    def run(side: str) -> list[tuple[Any, ...]]:
        m, client = mod(side), MagicMock()
        acts = [
            m.ActionSpec(name="gather", effects={"data": True}, execute=lambda s: {"data": True}),
            m.ActionSpec(
                name="process",
                preconditions={"data": True},
                effects={"done": True},
                execute=lambda s: {"done": True},
            ),
        ]
        tracer = m.LangSmithTracer(client=client)
        mod(side, "graph.builder").GoapGraph(acts, tracer=tracer).invoke(
            goal=m.GoalSpec(conditions={"done": True})
        )
        out = []
        for call in client.method_calls:
            outputs = call.kwargs.get("outputs", {})
            result = outputs.get("result") or {}
            out.append(
                (
                    call.kwargs.get("name"),
                    call.kwargs.get("error"),
                    result.get("action_name"),
                    outputs.get("status"),
                )
            )
        return out

    assert run("goap.compat") == run("langgoap")
