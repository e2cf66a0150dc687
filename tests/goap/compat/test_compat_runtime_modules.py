"""The runtime side of `goap.compat` (graph, nodes, history, policies, tracing, viz, integrations,
serde, cli): every exported name imports and is documented, and what is not provided says so."""

from __future__ import annotations

import importlib
import inspect
import sys

import pytest

RUNTIME_PACKAGES = (
    "goap.compat.graph.builder",
    "goap.compat.graph.nodes",
    "goap.compat.history",
    "goap.compat.guards",
    "goap.compat.sensors",
    "goap.compat.stuck",
    "goap.compat.termination",
    "goap.compat.tracing",
    "goap.compat.viz",
    "goap.compat.integrations",
    "goap.compat.viz.ascii",
    "goap.compat.viz.dot",
    "goap.compat.viz.mermaid",
    "goap.compat.cli.main",
    "goap.compat.serde",
)


@pytest.mark.parametrize("module", RUNTIME_PACKAGES)
def test_exported_names_import_and_have_docstrings(module: str) -> None:
    """Every name in a runtime module's ``__all__`` resolves, and its classes and functions say what they do."""
    mod = importlib.import_module(module)
    for name in mod.__all__:
        if name == "LangGOAPRedisSerializer":
            continue  # needs an optional extra (see the next tests)
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"{module}.{name} has no docstring"


def test_langsmith_tracer_is_a_name_that_says_what_to_use() -> None:
    """Constructing LangSmithTracer raises a typed error naming the tracers goap.compat has."""
    from goap.compat.tracing import LangSmithTracer
    from goap.compat.tracing.langsmith import LangSmithUnavailableError

    with pytest.raises(LangSmithUnavailableError, match="LoggingTracer"):
        LangSmithTracer(project_name="p")


def test_redis_serializer_without_its_extra_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking for the Redis serializer without langgraph-checkpoint-redis says what to install.

    The package is made unimportable for the test (a None entry in `sys.modules` makes its import
    raise ImportError), so this runs whether or not the extra is installed."""
    pytest.importorskip("langgraph")
    import goap.compat.serde as serde

    for name in ("langgraph.checkpoint.redis", "langgraph.checkpoint.redis.jsonplus_redis"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setattr(serde, "_JsonPlusRedisSerializer", None)
    monkeypatch.setattr(serde, "_LangGOAPRedisSerializer", None)
    with pytest.raises(ImportError, match="pip install langgraph-checkpoint-redis"):
        _ = serde.LangGOAPRedisSerializer


def test_logging_tracer_logs_the_same_lines_sync_and_async(caplog: pytest.LogCaptureFixture) -> None:
    """LoggingTracer's async hooks run its sync ones: ainvoke logs what invoke logs."""
    import asyncio

    from goap.compat.tracing import LoggingTracer

    tracer = LoggingTracer()
    with caplog.at_level("INFO", logger="langgoap.tracing"):
        tracer.on_replan("action_failed", "plan")
        asyncio.run(tracer.aon_replan("action_failed", "plan"))
    lines = [r.getMessage() for r in caplog.records if r.name == "langgoap.tracing"]
    assert len(lines) == 2 and lines[0] == lines[1]
