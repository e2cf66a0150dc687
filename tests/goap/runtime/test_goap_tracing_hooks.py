"""goap.runtime tracer options used by adapters: LoggingTracer's set of hooks."""

from __future__ import annotations

import logging

import pytest

from goap.runtime import LoggingTracer


def test_logging_tracer_answers_only_its_hooks() -> None:
    """By default it logs the runtime's hooks and refuses other names."""
    t = LoggingTracer()
    assert callable(t.on_plan_start)
    with pytest.raises(AttributeError):
        _ = t.on_search_expand
    with pytest.raises(AttributeError):
        _ = t.plan_start


def test_logging_tracer_subclass_extends_hooks(caplog: pytest.LogCaptureFixture) -> None:
    """A subclass adding names to `hooks` logs those hooks too, sync and async."""

    class Wider(LoggingTracer):
        hooks = LoggingTracer.hooks | {"search_expand"}

    t = Wider("wider")
    with caplog.at_level(logging.INFO, logger="wider"):
        t.on_search_expand(1, {"a": 1})
    assert any("search_expand" in r.message for r in caplog.records)
