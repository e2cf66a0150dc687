"""The command line's inputs: ``module.path:variable`` references and JSON world states."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec


def load_python_variable(ref: str) -> Any:
    """The variable ``module.path:name`` names (the working directory is importable)."""
    module, _, name = ref.partition(":")
    if not module or not name:
        raise ValueError(f"Invalid reference {ref!r}: expected 'module.path:variable'")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    return getattr(importlib.import_module(module), name)


def _checked(found: Any, ok: bool, ref: str, what: str) -> Any:
    if not ok:
        raise TypeError(f"{ref!r} must be {what}, got {type(found).__name__}")
    return found


def load_actions(ref: str) -> list[ActionSpec]:
    """A list of ActionSpec (TypeError for anything else)."""
    found = load_python_variable(ref)
    ok = isinstance(found, list) and all(isinstance(a, ActionSpec) for a in found)
    return list(_checked(found, ok, ref, "a list of ActionSpec"))


def load_goal(ref: str) -> GoalSpec:
    """A GoalSpec (TypeError for anything else)."""
    found = load_python_variable(ref)
    return _checked(found, isinstance(found, GoalSpec), ref, "a GoalSpec")  # type: ignore[no-any-return]


def load_world_state(ref: str | None) -> dict[str, Any]:
    """A world state from a ``.json`` file or a dict variable (empty for None)."""
    path = Path(ref or "")
    found = json.loads(path.read_text("utf-8")) if path.suffix == ".json" and path.exists() else None
    found = {} if ref is None else load_python_variable(ref) if found is None else found
    return dict(_checked(found, isinstance(found, dict), str(ref), "an object/dict"))
