"""Planning tasks several GOAP test modules build (not a test module itself)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from goap import ActionSpec


def gripper(balls: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """Gripper as the generated family in ``tests/data/problems`` has it: a robot in room A or B with two
    grippers moves every ball from A to B. The balls are one class of interchangeable objects (so
    are the grippers); from 30 balls on the packed states are wider than 64 bits. Returns
    ``(initial state, goal conditions, actions)``; the optimum is ``2 * len(balls)`` picks and drops
    plus ``2 * ceil(len(balls) / 2) - 1`` moves."""
    init: dict[str, Any] = {"robby": "A", "left": "free", "right": "free"}
    init.update({f"at_{b}": "A" for b in balls})
    acts = [
        ActionSpec("move_A_B", {"robby": "A"}, {"robby": "B"}),
        ActionSpec("move_B_A", {"robby": "B"}, {"robby": "A"}),
    ]
    for b in balls:
        for r in "AB":
            for g in ("left", "right"):
                acts.append(
                    ActionSpec(
                        f"pick_{b}_{r}_{g}", {f"at_{b}": r, "robby": r, g: "free"}, {f"at_{b}": g, g: b}
                    )
                )
                acts.append(
                    ActionSpec(f"drop_{b}_{r}_{g}", {f"at_{b}": g, "robby": r}, {f"at_{b}": r, g: "free"})
                )
    return init, {f"at_{b}": "B" for b in balls}, acts
