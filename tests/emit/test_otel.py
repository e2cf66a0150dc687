"""`OTelEmitter` against the real OpenTelemetry SDK: span tree, names, attributes, errors, resume, metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from engine_fixtures import cancel_once_started, flaky
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from pydantic import BaseModel

from graphengine import Context, Engine, NodeError, NodeResult, Options, fan_out, goto, interrupt, stop
from graphengine.emit import Event, OTelEmitter
from graphengine.store import MemoryStore


class St(BaseModel):
    """A small state with a counter and a list of visited names."""

    n: int = 0
    seen: list[str] = []


class Otel:
    """An SDK tracer and meter provider recording in memory, with the emitter on them."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.emitter = OTelEmitter(self.tracer_provider, self.meter_provider)

    def spans(self) -> list[ReadableSpan]:
        """Finished spans, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        """Finished spans with this name, by start time."""
        return sorted((s for s in self.spans() if s.name == name), key=lambda s: s.start_time or 0)

    def metrics(self) -> dict[str, list[Any]]:
        """Metric name -> its data points."""
        out: dict[str, list[Any]] = {}
        data = self.reader.get_metrics_data()
        assert data is not None
        for rm in data.resource_metrics:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    out.setdefault(m.name, []).extend(m.data.data_points)
        return out


@pytest.fixture
def otel() -> Iterator[Otel]:
    """A fresh in-memory OpenTelemetry setup."""
    o = Otel()
    yield o
    o.tracer_provider.shutdown()


def linear(emitter: Any, **kw: Any) -> Engine[St]:
    """a -> b -> stop."""
    g = Engine(St, store=MemoryStore(), emitter=emitter, **kw)
    g.add("a", lambda ctx, s: NodeResult(delta=St(n=s.n + 1)))
    g.add("b", lambda ctx, s: NodeResult(delta=St(n=s.n + 10)))
    return g.start_at("a").connect("a", "b")


async def test_one_run_span_with_a_child_per_node(otel: Otel) -> None:
    """A run is one `graphengine.run` span whose children are one span per node execution."""
    await linear(otel.emitter).run("r1", St())
    (run,) = otel.named("graphengine.run")
    nodes = otel.named("graphengine.node a") + otel.named("graphengine.node b")
    assert [s.name for s in nodes] == ["graphengine.node a", "graphengine.node b"]
    assert run.parent is None
    for s in nodes:
        assert s.parent is not None and s.parent.span_id == run.context.span_id
        assert s.context.trace_id == run.context.trace_id
    assert dict(run.attributes or {})["graphengine.run_id"] == "r1"
    assert dict(run.attributes or {})["graphengine.run.status"] == "done"
    a = dict(nodes[0].attributes or {})
    assert (a["graphengine.run_id"], a["graphengine.step"], a["graphengine.node_id"]) == ("r1", 1, "a")
    assert a["graphengine.attempt"] == 1
    assert dict(nodes[1].attributes or {})["graphengine.step"] == 2
    assert all(s.status.status_code is StatusCode.UNSET for s in otel.spans())


async def test_node_span_is_current_while_the_node_runs(otel: Otel) -> None:
    """Spans opened inside a node nest under its node span (the hook for tools and the planner)."""
    tracer = otel.tracer_provider.get_tracer("user")

    async def work(ctx: Context, s: St) -> NodeResult[St]:
        with tracer.start_as_current_span("inner"):
            await asyncio.sleep(0)
        return NodeResult(delta=St(n=1))

    g = Engine(St, emitter=otel.emitter).add("work", work).start_at("work")
    await g.run("r", St())
    (inner,) = otel.named("inner")
    (node,) = otel.named("graphengine.node work")
    assert inner.parent is not None and inner.parent.span_id == node.context.span_id
    assert trace.get_current_span() is trace.INVALID_SPAN or not trace.get_current_span().is_recording()


async def test_run_nests_under_the_callers_span(otel: Otel) -> None:
    """A run started inside a caller's span is a child of it."""
    tracer = otel.tracer_provider.get_tracer("user")
    with tracer.start_as_current_span("request"):
        await linear(otel.emitter).run("r", St())
    (req,) = otel.named("request")
    (run,) = otel.named("graphengine.run")
    assert run.parent is not None and run.parent.span_id == req.context.span_id


async def test_retries_are_sibling_spans_with_the_error_recorded(otel: Otel) -> None:
    """Each attempt is its own span under the run; failed attempts have status ERROR and the exception."""
    g = Engine(St, emitter=otel.emitter, options=Options(retries=2, backoff=0.0))
    g.add("shaky", flaky(2, lambda attempt: St(n=attempt))).start_at("shaky")
    await g.run("r", St())
    (run,) = otel.named("graphengine.run")
    attempts = otel.named("graphengine.node shaky")
    assert [dict(s.attributes or {})["graphengine.attempt"] for s in attempts] == [1, 2, 3]
    assert all(s.parent is not None and s.parent.span_id == run.context.span_id for s in attempts)
    assert [s.status.status_code for s in attempts] == [StatusCode.ERROR, StatusCode.ERROR, StatusCode.UNSET]
    exc_events = [ev for ev in attempts[0].events if ev.name == "exception"]
    assert exc_events and dict(exc_events[0].attributes or {})["exception.type"] == "ConnectionError"
    retries = otel.metrics()["graphengine.retries"]
    assert sum(p.value for p in retries) == 2


async def test_a_failed_run_has_error_status_and_the_exception(otel: Otel) -> None:
    """A node failing without an error route ends its span and the run span with status ERROR."""

    async def bad(ctx: Context, s: St) -> NodeResult[St]:
        raise ValueError("broken input")

    g = Engine(St, emitter=otel.emitter).add("bad", bad).start_at("bad")
    with pytest.raises(NodeError):
        await g.run("r", St())
    (run,) = otel.named("graphengine.run")
    (node,) = otel.named("graphengine.node bad")
    assert node.status.status_code is StatusCode.ERROR and run.status.status_code is StatusCode.ERROR
    assert dict(run.attributes or {})["graphengine.run.status"] == "failed"
    types = {dict(ev.attributes or {}).get("exception.type") for ev in run.events if ev.name == "exception"}
    assert types == {"graphengine.NodeError"}  # the public name (graphengine.exports.publish)
    (exc,) = [ev for ev in node.events if ev.name == "exception"]
    assert "broken input" in str(dict(exc.attributes or {}).get("exception.stacktrace"))
    outcomes = {p.attributes["graphengine.outcome"]: p.value for p in otel.metrics()["graphengine.steps"]}
    assert outcomes == {"error": 1}


async def test_a_routed_error_marks_the_node_and_the_run_goes_on(otel: Otel) -> None:
    """With an error route the failing node's span is ERROR, the handler runs, the run span is not ERROR."""

    async def bad(ctx: Context, s: St) -> NodeResult[St]:
        raise KeyError("k")

    g = Engine(St, emitter=otel.emitter).add("bad", bad).add("fix", lambda ctx, s: NodeResult(route=stop()))
    g.start_at("bad").on_error("bad", "fix")
    await g.run("r", St())
    (bad_span,) = otel.named("graphengine.node bad")
    (fix_span,) = otel.named("graphengine.node fix")
    (run,) = otel.named("graphengine.run")
    assert bad_span.status.status_code is StatusCode.ERROR
    assert dict(bad_span.attributes or {})["graphengine.error.handler"] == "fix"
    assert fix_span.status.status_code is StatusCode.UNSET
    assert run.status.status_code is StatusCode.UNSET


async def test_fan_out_branches_are_siblings_under_the_run(otel: Otel) -> None:
    """Each branch of a fan-out is a span under the run span, with its branch index."""
    tracer = otel.tracer_provider.get_tracer("user")

    async def leaf(ctx: Context, s: St) -> NodeResult[St]:
        with tracer.start_as_current_span(f"tool {ctx.branch}"):
            await asyncio.sleep(0.001 * (3 - (ctx.branch or 0)))
        return NodeResult(delta=St(seen=[f"leaf{ctx.branch}"]))

    g = Engine(St, emitter=otel.emitter, options=Options(max_concurrency=4))
    g.add("split", lambda ctx, s: NodeResult(route=fan_out(["leaf", "leaf", "leaf"], join="join")))
    g.add("leaf", leaf).add("join", lambda ctx, s: NodeResult(route=stop()))
    g.start_at("split")
    await g.run("r", St())
    (run,) = otel.named("graphengine.run")
    leaves = otel.named("graphengine.node leaf")
    assert sorted(str(dict(s.attributes or {})["graphengine.branch"]) for s in leaves) == ["0", "1", "2"]
    assert {dict(s.attributes or {})["graphengine.step"] for s in leaves} == {2}
    assert all(s.parent is not None and s.parent.span_id == run.context.span_id for s in leaves)
    for s in leaves:
        b = dict(s.attributes or {})["graphengine.branch"]
        (tool,) = otel.named(f"tool {b}")
        assert tool.parent is not None and tool.parent.span_id == s.context.span_id
    assert len(otel.named("graphengine.node join")) == 1


async def test_a_failed_branch_has_error_status(otel: Otel) -> None:
    """A fan-out branch that fails ends its own span with ERROR; the others end normally."""

    async def leaf(ctx: Context, s: St) -> NodeResult[St]:
        if ctx.branch == 1:
            raise RuntimeError("branch down")
        return NodeResult()

    g = Engine(St, emitter=otel.emitter)
    g.add("split", lambda ctx, s: NodeResult(route=fan_out(["leaf", "leaf"], join="join")))
    g.add("leaf", leaf).add("join", lambda ctx, s: NodeResult()).start_at("split")
    with pytest.raises(NodeError):
        await g.run("r", St())
    by_branch = {
        dict(s.attributes or {})["graphengine.branch"]: s for s in otel.named("graphengine.node leaf")
    }
    assert by_branch[0].status.status_code is StatusCode.UNSET
    assert by_branch[1].status.status_code is StatusCode.ERROR
    (run,) = otel.named("graphengine.run")
    assert run.status.status_code is StatusCode.ERROR


async def test_custom_events_become_span_events_on_the_node(otel: Otel) -> None:
    """`ctx.emit` lands as a span event on the running node's span, with its meta as attributes."""

    async def talk(ctx: Context, s: St) -> NodeResult[St]:
        ctx.emit("thinking", {"tokens": 12})
        return NodeResult(events=[Event(ctx.run_id, ctx.step, ctx.node_id, "said")])

    g = Engine(St, emitter=otel.emitter).add("talk", talk).start_at("talk")
    await g.run("r", St())
    (node,) = otel.named("graphengine.node talk")
    names = [ev.name for ev in node.events]
    assert names == ["thinking", "said"]
    assert dict(node.events[0].attributes or {})["tokens"] == 12


async def test_resume_starts_a_linked_run_span(otel: Otel) -> None:
    """An interrupt ends the run span (status interrupted); resume opens a new one linked to it."""

    def ask(ctx: Context, s: St) -> NodeResult[St]:
        if not ctx.resumed:
            return NodeResult(route=interrupt({"q": "ok?"}))
        return NodeResult(delta=St(seen=[str(ctx.resume_input)]), route=goto("done"))

    g = Engine(St, emitter=otel.emitter).add("ask", ask).add("done", lambda ctx, s: NodeResult())
    g.start_at("ask")
    await g.run("r", St())
    (first,) = otel.named("graphengine.run")
    assert dict(first.attributes or {})["graphengine.run.status"] == "interrupted"
    assert any(ev.name == "graphengine.interrupt" for ev in first.events)
    await g.resume("r", input="yes")
    first, second = otel.named("graphengine.run")
    attrs = dict(second.attributes or {})
    assert attrs["graphengine.run.resumed"] is True and attrs["graphengine.run_id"] == "r"
    assert attrs["graphengine.run.status"] == "done"
    assert [link.context.span_id for link in second.links] == [first.context.span_id]
    resumed_nodes = [s for s in otel.spans() if s.parent and s.parent.span_id == second.context.span_id]
    assert [s.name for s in resumed_nodes] == ["graphengine.node ask", "graphengine.node done"]
    assert dict(resumed_nodes[0].attributes or {})["graphengine.step"] == 2


async def test_cancelled_run_ends_its_spans(otel: Otel) -> None:
    """Cancelling a run's task ends the node and run spans (status cancelled), leaving none open."""
    started = asyncio.Event()

    async def hang(ctx: Context, s: St) -> NodeResult[St]:
        started.set()
        await asyncio.sleep(60)
        return NodeResult()

    g = Engine(St, emitter=otel.emitter).add("hang", hang).start_at("hang")
    await cancel_once_started(g, St(), started)
    (run,) = otel.named("graphengine.run")
    assert dict(run.attributes or {})["graphengine.run.status"] == "cancelled"
    assert len(otel.named("graphengine.node hang")) == 1
    assert otel.emitter.run_span("r") is None


async def test_metrics_count_steps_and_record_latency(otel: Otel) -> None:
    """Steps are counted per node and outcome, node latency is a histogram, runs counted by status."""
    await linear(otel.emitter).run("r1", St())
    await linear(otel.emitter).run("r2", St())
    m = otel.metrics()
    steps = {
        (p.attributes["graphengine.node_id"], p.attributes["graphengine.outcome"]): p.value
        for p in m["graphengine.steps"]
    }
    assert steps == {("a", "ok"): 2, ("b", "ok"): 2}
    durations = {p.attributes["graphengine.node_id"]: p.count for p in m["graphengine.node.duration"]}
    assert durations == {"a": 2, "b": 2}
    assert {p.attributes["graphengine.run.status"]: p.value for p in m["graphengine.runs"]} == {"done": 2}
    assert all("graphengine.run_id" not in p.attributes for pts in m.values() for p in pts)


async def test_an_emitter_failure_never_breaks_a_run(otel: Otel, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the tracer raises, the run still completes."""

    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("exporter down")

    monkeypatch.setattr(otel.emitter.tracer, "start_span", boom)
    assert await linear(otel.emitter).run("r", St()) == St(n=11)


async def test_works_with_the_global_noop_providers() -> None:
    """Without an SDK configured, the emitter uses the API's no-op providers and runs fine."""
    assert await linear(OTelEmitter()).run("r", St()) == St(n=11)
