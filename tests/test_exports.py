"""Each package's public names are exported, sorted, importable and documented."""

from __future__ import annotations

import importlib
import inspect

import pytest


@pytest.mark.parametrize("package", ["graphengine", "store", "emit"])
def test_all_is_sorted_importable_and_documented(package: str) -> None:
    """`__all__` is sorted, every name in it exists and has a docstring."""
    mod = importlib.import_module(package)
    names = list(mod.__all__)
    assert names == sorted(names), f"{package}.__all__ is not sorted"
    assert len(set(names)) == len(names)
    for name in names:
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (getattr(obj, "__doc__", None) or "").strip(), f"{package}.{name} has no docstring"


def test_core_import_does_not_pull_optional_integrations() -> None:
    """`import graphengine` works with core dependencies only: no LangGraph, no OTel SDK."""
    import subprocess
    import sys

    code = (
        "import sys, graphengine, store, emit\n"
        "bad = [m for m in ('langgraph', 'opentelemetry.sdk', 'langgoap') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
