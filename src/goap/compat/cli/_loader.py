"""The command line's inputs: ``module.path:variable`` references and JSON world states."""

import importlib
import json
import os
import sys
from typing import Any

from goap.compat import actions, goals


def load_python_variable(ref: str) -> Any:
    """The variable ``module.path:name`` names (the working directory is importable)."""
    module, _, name = ref.partition(":")
    if not module or not name:
        raise ValueError(f"Invalid reference {ref!r}: expected 'module.path:variable'")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return getattr(importlib.import_module(module), name)


def _checked(found: Any, ok: bool, ref: str, what: str) -> Any:
    if not ok:
        raise TypeError(f"{ref!r} must be {what}, got {type(found).__name__}")
    return found


def load_actions(ref: str) -> list[actions.ActionSpec]:
    """A list of ActionSpec (TypeError for anything else)."""
    found = load_python_variable(ref)
    ok = isinstance(found, list) and all(isinstance(a, actions.ActionSpec) for a in found)
    return list(_checked(found, ok, ref, "a list of ActionSpec"))


def load_goal(ref: str) -> goals.GoalSpec:
    """A GoalSpec (TypeError for anything else)."""
    found = load_python_variable(ref)
    return _checked(found, isinstance(found, goals.GoalSpec), ref, "a GoalSpec")  # type: ignore[no-any-return]


def load_world_state(ref: str | None) -> dict[str, Any]:
    """A world state from a ``.json`` file or a dict variable (empty for None)."""
    found = None
    if ref is not None and ref.endswith(".json") and os.path.exists(ref):
        with open(ref, encoding="utf-8") as f:
            found = json.load(f)
    found = {} if ref is None else load_python_variable(ref) if found is None else found
    return dict(_checked(found, isinstance(found, dict), str(ref), "an object/dict"))
