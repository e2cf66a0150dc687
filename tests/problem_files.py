"""Where the planning problem sets live: ``tests/data/problems`` in this repository.

``GOAP_PROBLEMS`` points the tests at another folder of the same shape (top-level ``*.json`` and
``ipc/*.json``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

PROBLEMS_DIR = Path(__file__).resolve().parent / "data" / "problems"
"""The repository's own copy of the problem sets (generated families, IPC tasks, the plan checker)."""

PROBLEMS = os.environ.get("GOAP_PROBLEMS", str(PROBLEMS_DIR))
"""The folder the tests read problems from (``GOAP_PROBLEMS`` overrides it)."""


def house_problem() -> dict[str, Any]:
    """A numeric task in the problem format (numeric extension): optimum 7.5 = gather, buy_axe,
    chop x3, build."""
    return {
        "name": "house",
        "family": "numeric",
        "description": "",
        "initial": {"wood": 0, "gold": 3, "axe": False, "house": False},
        "goal": {"house": True},
        "actions": [
            {"name": "chop", "preconditions": {"axe": True}, "effects": {"wood": {"add": 2}}, "cost": 1.0},
            {"name": "gather", "preconditions": {}, "effects": {"wood": {"add": 1}}, "cost": 1.0},
            {
                "name": "buy_axe",
                "preconditions": {"gold": {"op": ">=", "value": 2}},
                "effects": {"axe": True, "gold": {"add": -2}},
                "cost": 1.5,
            },
            {
                "name": "build",
                "preconditions": {"wood": {"op": ">=", "value": 7}},
                "effects": {"house": True, "wood": {"add": -7}},
                "cost": 2.0,
            },
        ],
        "optimal_cost": 7.5,
        "expect": "plan",
    }


def two_step_problem() -> dict[str, Any]:
    """A chain of two actions in the problem format: ``make_a`` (cost 1) then ``make_b`` (cost 2)."""
    return {
        "name": "two",
        "family": "chain",
        "initial": {"a": False, "b": False},
        "goal": {"b": True},
        "actions": [
            {"name": "make_b", "preconditions": {"a": True}, "effects": {"b": True}, "cost": 2},
            {"name": "make_a", "preconditions": {}, "effects": {"a": True}, "cost": 1},
        ],
        "optimal_cost": 3,
        "expect": "plan",
    }
