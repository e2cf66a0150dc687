"""Type stub of the optional C grounding of plain tasks (built from ``goap/_ground.c``)."""

from collections.abc import Mapping, Sequence
from typing import Any

def compile_plain(
    initial: Mapping[str, Any], goal: Mapping[str, Any], actions: Sequence[Any], op_class: type, /
) -> (
    tuple[
        list[tuple[str, tuple[Any, ...], int, int, int]],
        list[Any],
        list[tuple[int, frozenset[int]]],
        int,
        dict[str, Any],
        bool,
        bool,
        list[int],
    ]
    | None
):
    """What ``goap.planning._compile`` builds a Task from, or None when the task is not plain."""
