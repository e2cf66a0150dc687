"""goap.runtime's LangSmith tracer, on a recording client (LangSmith is a hosted service)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from goap import ActionSpec, GoalSpec, GoapGraph
from goap.runtime import SEARCH_HOOKS, LangSmithTracer, PlanningTracer, SearchEventBuffer, SearchTracer
from graphengine.store import Store


class _Client:
    """Records create_run/update_run calls as (op, name or run id, kwargs)."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, Any, dict[str, Any]]] = []
        self.fail = fail

    def create_run(self, **kw: Any) -> None:
        if self.fail:
            raise RuntimeError("down")
        self.calls.append(("create", kw["name"], kw))

    def update_run(self, run_id: Any, **kw: Any) -> None:
        self.calls.append(("update", run_id, kw))


async def test_a_run_makes_a_plan_run_with_action_runs(store: Store) -> None:
    """A GoapGraph run opens goap_plan, one tool run per action under it, and closes the root as achieved."""
    client = _Client()
    acts = [ActionSpec("a", {}, {"x": True}), ActionSpec("b", {"x": True}, {"done": True})]
    g = GoapGraph(acts, store=store, tracer=LangSmithTracer(client=client, project_name="p"))
    final = await g.run("r", {"x": False, "done": False}, GoalSpec({"done": True}))
    assert final.status == "achieved"
    created = [(c[1], c[2]["run_type"]) for c in client.calls if c[0] == "create"]
    assert created == [("goap_plan", "chain"), ("goap_action:a", "tool"), ("goap_action:b", "tool")]
    root = next(c[2]["id"] for c in client.calls if c[1] == "goap_plan")
    assert all(
        c[2]["parent_run_id"] == root for c in client.calls if c[0] == "create" and c[1] != "goap_plan"
    )
    results = [c[2]["outputs"]["result"] for c in client.calls if "result" in c[2].get("outputs", {})]
    assert [(r["action_name"], r["success"]) for r in results] == [("a", True), ("b", True)]
    plans = [
        c[2]["extra"]["metadata"]["plan"]
        for c in client.calls
        if "plan" in c[2].get("extra", {}).get("metadata", {})
    ]
    assert plans[0] == {"action_names": ["a", "b"], "total_cost": 2.0}
    assert client.calls[-1][2]["outputs"]["status"] == "goal_achieved"


def test_search_events_are_capped_and_batched() -> None:
    """Expansions beyond the cap become one truncation marker; the buffer uploads every flush_every events."""
    client = _Client()
    t = LangSmithTracer(client=client, flush_every=2, max_search_events=1)
    t.on_plan_start(GoalSpec({"done": True}), {}, "astar")
    for i in range(3):
        t.on_search_expand(i, {"k": i}, 1.0, 0.0, 1.0)
    uploads = [c[2]["extra"]["metadata"]["search_events"] for c in client.calls if c[0] == "update"]
    assert [e["kind"] for e in uploads[-1]] == ["search_expand", "search_truncated"]
    assert uploads[-1][1]["dropped"] == 2


def test_buffer_rejects_bad_limits_and_client_failures_only_log(caplog: pytest.LogCaptureFixture) -> None:
    """Limits below 1 raise; a client that raises is logged, never propagated."""
    with pytest.raises(ValueError, match="flush_every"):
        SearchEventBuffer(max_events=1, flush_every=0)
    with caplog.at_level(logging.WARNING, logger="goap.runtime.langsmith"):
        LangSmithTracer(client=_Client(fail=True)).on_plan_start(None, {}, "astar")
    assert any("create_run raised" in r.message for r in caplog.records)


def test_without_key_or_client_it_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    """No API key and no client: hooks (sync and async) do nothing."""
    for var in ("LANGCHAIN_API_KEY", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    t = LangSmithTracer()
    t.on_plan_start(None, {}, "astar")
    t.on_goal_achieved({})


def test_it_is_a_search_tracer_with_async_twins() -> None:
    """LangSmithTracer satisfies SearchTracer (so PlanningTracer), with an aon_ twin for each search hook."""
    t = LangSmithTracer(client=_Client())
    assert isinstance(t, SearchTracer) and isinstance(t, PlanningTracer)
    assert all(callable(getattr(t, f"aon_{h}")) for h in SEARCH_HOOKS)
    assert not isinstance(object(), SearchTracer)
