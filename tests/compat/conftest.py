"""The ported LangGOAP suite: its shared helpers, and the list of tests goap.compat does not pass yet.

``make_action``, ``make_plan`` and the ``FakeStructuredModel`` re-export are ported from langgoap
0.1.2, tests/conftest.py (MIT licence, Copyright (c) 2024 Integrallis Software; see
tests/compat/LICENSE-langgoap) with the imports rewritten to goap.compat; its ``.env`` loading is
left out (keys for hosted LLM providers are out of scope here).

Tests listed in ``known_failures.txt`` (node ids relative to this folder) are marked xfail
(non-strict) so the main suite stays green while goap.compat grows; set
``GOAP_COMPAT_IGNORE_KNOWN=1`` to run them as ordinary tests (``python -m tests.compat.report``
does). A test module that does not import yet is collected as one item, ``<file>::__import__``,
that fails with the import error, so a missing module is counted, never silently skipped.
Tests marked ``api`` call hosted LLM providers, which are out of scope here: they are deselected
(not collected as skips), so a skip in this suite always means something missing on the machine.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
KNOWN_FAILURES = HERE / "known_failures.txt"
IGNORE_KNOWN_ENV = "GOAP_COMPAT_IGNORE_KNOWN"
IMPORT_ITEM = "__import__"


def compat_key(path: Path, nodeid: str) -> str:
    """The node id of a ported test relative to this folder (the same in every checkout)."""
    rest = nodeid.split("::", 1)[1] if "::" in nodeid else ""
    rel = path.resolve().relative_to(HERE).as_posix()
    return f"{rel}::{rest}" if rest else rel


def read_known_failures() -> frozenset[str]:
    """The node ids listed in known_failures.txt (blank lines and ``#`` comments ignored)."""
    if not KNOWN_FAILURES.exists():
        return frozenset()
    lines = (line.strip() for line in KNOWN_FAILURES.read_text(encoding="utf-8").splitlines())
    return frozenset(line for line in lines if line and not line.startswith("#"))


class ImportFailure(pytest.Item):
    """Stands for a ported test module that does not import: fails with the import error."""

    def __init__(self, *, error: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        """Fail with the module's import error."""
        raise ImportError(self.error)

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        """The import error as collected."""
        return self.error

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where the failing module is."""
        return self.path, 0, f"import of {self.path.name}"


class TolerantModule(pytest.Module):
    """A test module whose import error becomes one failing (or known-failing) test item."""

    def collect(self) -> Any:
        """The module's tests, or one :class:`ImportFailure` when the module does not import."""
        try:
            return list(super().collect())
        except self.CollectError as exc:
            return [ImportFailure.from_parent(self, name=IMPORT_ITEM, error=str(exc))]


def pytest_pycollect_makemodule(module_path: Path, parent: Any) -> Any:
    """Collect the ported test modules with :class:`TolerantModule`."""
    if module_path.name.startswith("test_"):
        return TolerantModule.from_parent(parent, path=module_path)
    return None


def pytest_configure(config: pytest.Config) -> None:
    """Register the ported suite's markers."""
    config.addinivalue_line("markers", "api: calls a hosted LLM provider (deselected)")
    config.addinivalue_line("markers", "bench: a langgoap benchmark")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect provider tests; mark the listed known failures xfail (unless told to ignore the list)."""
    known = frozenset() if os.environ.get(IGNORE_KNOWN_ENV) == "1" else read_known_failures()
    provider = [i for i in items if i.path.resolve().is_relative_to(HERE) and i.get_closest_marker("api")]
    if provider:
        config.hook.pytest_deselected(items=provider)
        chosen = set(map(id, provider))
        items[:] = [i for i in items if id(i) not in chosen]
    for item in items:
        if not item.path.resolve().is_relative_to(HERE):
            continue  # this hook sees the whole session's items
        if known and compat_key(item.path, item.nodeid) in known:
            item.add_marker(
                pytest.mark.xfail(
                    reason="goap.compat does not pass this yet (tests/compat/known_failures.txt)",
                    strict=False,
                )
            )


# ---- ported helpers (langgoap 0.1.2 tests/conftest.py) ----

from goap.compat.actions import ActionSpec  # noqa: E402
from goap.compat.planner.types import Plan  # noqa: E402
from goap.compat.state import PlanningState  # noqa: E402
from goap.compat.testing import FakeStructuredModel  # noqa: E402

__all__ = ["FakeStructuredModel", "make_action", "make_plan"]


def make_action(
    name: str,
    pre: dict[str, Any] | None = None,
    eff: dict[str, Any] | None = None,
    cost: float = 1.0,
    execute: Any = None,
    max_retries: int = 0,
    resources: dict[str, float] | None = None,
    duration: timedelta | None = None,
) -> ActionSpec:
    """Create an ActionSpec with convenient defaults for testing."""
    return ActionSpec(
        name=name,
        preconditions=pre or {},
        effects=eff or {},
        cost=cost,
        execute=execute,
        max_retries=max_retries,
        resources=resources,
        duration=duration,
    )


def make_plan(*actions: ActionSpec) -> Plan:
    """Create a Plan from actions, computing expected states automatically."""
    states = []
    state = PlanningState.from_dict({})
    for a in actions:
        state = state.apply(a.effects)  # type: ignore[arg-type]
        states.append(state)
    return Plan(
        actions=actions,
        expected_states=tuple(states),
        total_cost=sum(a.get_cost() for a in actions),
    )
