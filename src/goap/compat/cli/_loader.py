"""Loading the command line's inputs: ``module:variable`` references and JSON world states."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec

__all__ = ["load_actions", "load_goal", "load_python_variable", "load_world_state"]


def load_python_variable(ref: str) -> Any:
    """The variable a ``module.path:name`` reference names (the working directory is importable)."""
    module, _, name = ref.partition(":")
    if not module or not name:
        raise ValueError(f"Invalid reference {ref!r}: expected 'module.path:variable'")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    return getattr(importlib.import_module(module), name)


def load_actions(ref: str) -> list[ActionSpec]:
    """A list of ActionSpec (TypeError for anything else)."""
    found = load_python_variable(ref)
    if not isinstance(found, list) or not all(isinstance(a, ActionSpec) for a in found):
        raise TypeError(f"{ref!r} must be a list of ActionSpec, got {type(found).__name__}")
    return found


def load_goal(ref: str) -> GoalSpec:
    """A GoalSpec (TypeError for anything else)."""
    found = load_python_variable(ref)
    if not isinstance(found, GoalSpec):
        raise TypeError(f"{ref!r} must be a GoalSpec, got {type(found).__name__}")
    return found


def load_world_state(ref: str | None) -> dict[str, Any]:
    """A world state from a ``.json`` file or a dict variable (empty for None)."""
    if ref is None:
        return {}
    path = Path(ref)
    found = json.loads(path.read_text("utf-8")) if path.suffix == ".json" and path.exists() else None
    if found is None:
        found = load_python_variable(ref)
    if not isinstance(found, dict):
        raise TypeError(f"{ref!r} must hold an object/dict, got {type(found).__name__}")
    return found
