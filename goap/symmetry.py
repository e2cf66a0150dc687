"""Symmetry reduction (placeholder: no symmetry found yet)."""

from __future__ import annotations

from typing import Any

from goap.compile import CompiledOp, State, Task

__all__ = ["Symmetry", "find_symmetry"]


class Symmetry:
    """Folds interchangeable objects together."""

    classes: tuple[tuple[str, ...], ...] = ()

    def canon(self, state: State) -> tuple[State, Any]:
        """Representative of ``state`` and the permutation that maps it there."""
        return state, None

    def realize(self, path: list[tuple[CompiledOp, Any]]) -> list[CompiledOp]:
        """Operators of the real plan for a path found in the folded space."""
        return [op for op, _ in path]


def find_symmetry(task: Task) -> Symmetry | None:
    """Interchangeable objects of ``task``, or None."""
    del task
    return None
