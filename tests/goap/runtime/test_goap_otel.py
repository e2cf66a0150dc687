"""GOAP planning rounds and actions as OpenTelemetry spans (real SDK, in-memory exporter)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from goap import ActionSpec, GoalSpec, GoapGraph
from goap.runtime._otel import GoapTelemetry
from graphengine.emit import OTelEmitter


def offline(world: Mapping[str, Any]) -> None:
    """A signing service that is down."""
    raise TimeoutError("hsm down")


ACTIONS = [
    ActionSpec("build", {}, {"built": True}),
    ActionSpec("sign_hsm", {"built": True}, {"signed": True}, execute=offline),
    ActionSpec("sign_local", {"built": True}, {"signed": True}, cost=3),
]


async def test_planning_rounds_and_actions_are_spans_under_their_nodes() -> None:
    """goap.plan spans nest under planner node spans; execute_tool spans (GenAI) under executor spans."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    g = GoapGraph(ACTIONS, emitter=OTelEmitter(provider), blacklist_after=1)
    final = await g.run("r", {"built": False, "signed": False}, GoalSpec({"signed": True}))
    assert final.status == "achieved"
    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    plans = [s for s in spans if s.name == "goap.plan"]
    assert len(plans) == 2
    for p in plans:
        parent = by_id[p.parent.span_id]  # type: ignore[union-attr]
        assert parent.attributes is not None
        assert parent.attributes["graphengine.node_id"] == "planner"
    first, second = (p.attributes or {} for p in plans)
    assert first["goap.plan.actions"] == ("build", "sign_hsm")
    assert first["goap.plan.status"] == "found"
    assert first["goap.search.expanded"] >= 1
    assert second["goap.replan.reason"] == "action_failed"
    assert second["goap.plan.actions"] == ("sign_local",)
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert [s.name for s in tools] == [
        "execute_tool build",
        "execute_tool sign_hsm",
        "execute_tool sign_local",
    ]
    failed = tools[1]
    assert failed.status.status_code is StatusCode.ERROR
    assert (failed.attributes or {})["gen_ai.operation.name"] == "execute_tool"
    assert (failed.attributes or {})["gen_ai.tool.name"] == "sign_hsm"
    assert by_id[failed.parent.span_id].attributes["graphengine.node_id"] == "executor"  # type: ignore[union-attr,index]


def test_planning_metrics_are_recorded() -> None:
    """Planning time, rounds and expanded nodes go to the metrics API."""
    import asyncio

    reader = InMemoryMetricReader()
    meter = MeterProvider(metric_readers=[reader]).get_meter("goap")
    g = GoapGraph(ACTIONS, blacklist_after=1)
    g.config.telemetry.__init__(None, meter)  # type: ignore[misc]
    asyncio.run(g.run("r", {"built": False, "signed": False}, GoalSpec({"signed": True})))
    data = reader.get_metrics_data()
    assert data is not None
    names = {m.name for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert {"goap.planning.duration", "goap.plans", "goap.search.expanded"} <= names
    assert isinstance(g.config.telemetry, GoapTelemetry)


async def test_router_choice_and_cpsat_results_are_span_attributes() -> None:
    """A routed, CP-SAT-refined planning round reports the chosen strategy, why, and the solver's status."""
    from goap import CspPipeline, StrategyRouter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    acts = [ActionSpec("build", {}, {"built": True}, resources={"budget": 1})]
    router = StrategyRouter(strategies={"csp-pipeline": CspPipeline(), "astar": CspPipeline()})
    g = GoapGraph(acts, emitter=OTelEmitter(provider), strategy=router)
    final = await g.run("r", {"built": False}, GoalSpec({"built": True}))
    assert final.status == "achieved"
    (plan_span,) = [s for s in exporter.get_finished_spans() if s.name == "goap.plan"]
    attrs = plan_span.attributes or {}
    assert attrs["goap.router.chosen"] in {"csp-pipeline", "astar"}
    assert attrs["goap.router.reason"]
    assert attrs["goap.cpsat.status"] in {
        "OPTIMAL",
        "FEASIBLE",
        "SKIPPED",
    }  # SKIPPED: no constraints to refine
