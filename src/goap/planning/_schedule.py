"""Schedules: when each action of a plan runs, and which actions must wait for which.

A plan is a sequence, but many of its actions are independent and could run side by side.
:func:`dependencies` derives the partial order that keeps the plan correct from what each action
reads (its preconditions) and writes (its effects):

- *producer -> consumer*: an action runs after every earlier action that wrote a fact it reads
  (back to the last plain assignment; ``add()`` effects commute, so all of them count);
- *reader -> overwriter*: an action that writes a fact runs after every earlier action that read it;
- *writer -> writer*: two writes of one fact keep their order, unless both are ``add()``.

An action with a state-computed effect (``effect_fn``) counts as a plain writer of each of its
``effect_keys``.

Any order of execution respecting these edges (in particular, any start-time order of a
:class:`Schedule` built on them) applies the same effects to the same values as the sequence, so
every precondition still holds and the final state is the same. State-dependent costs are priced
on the sequence.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from goap.planning._actions import ActionSpec
from goap.planning._conditions import Add

__all__ = ["Schedule", "ScheduledAction", "dependencies"]


def dependencies(actions: Sequence[ActionSpec]) -> tuple[tuple[int, int], ...]:
    """Precedence edges ``(i, j)``, ``i < j``: action ``j`` starts after action ``i`` ends.

    See the module docstring for the rules; the result is sorted and free of duplicates.
    """
    edges: set[tuple[int, int]] = set()
    # per fact: indices of earlier writers since the last plain assignment, and earlier readers
    writers: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    for j, act in enumerate(actions):
        for key in act.preconditions:
            for i in writers.get(key, ()):
                edges.add((i, j))
        # a state-computed effect (effect_fn) may write any of its effect_keys: a plain write each
        writes = {**dict.fromkeys(act.effect_keys), **act.effects}
        for key, eff in writes.items():
            commuting = isinstance(eff, Add)
            for i in readers.get(key, ()):
                if i != j:
                    edges.add((i, j))
            for i in writers.get(key, ()):
                if not (commuting and isinstance(actions[i].effects.get(key), Add)):
                    edges.add((i, j))
        for key in act.preconditions:
            readers.setdefault(key, []).append(j)
        for key, eff in writes.items():
            if isinstance(eff, Add):
                writers.setdefault(key, []).append(j)
            else:
                # a plain assignment hides every earlier write from later readers
                writers[key] = [j]
    return tuple(sorted(edges))


@dataclass(frozen=True, slots=True)
class ScheduledAction:
    """One action of a plan placed in time (seconds from the start of the plan)."""

    index: int
    """Position of the action in the plan."""
    action: str
    """The action's name."""
    start: float
    """When it starts."""
    end: float
    """When it ends (``start + duration``)."""


@dataclass(frozen=True, slots=True)
class Schedule:
    """Start and end of every action of a plan, and the precedence edges it respects."""

    entries: tuple[ScheduledAction, ...]
    """One entry per plan action, in plan order."""
    makespan: float
    """End of the last action."""
    edges: tuple[tuple[int, int], ...] = ()
    """The precedence edges (see :func:`dependencies`)."""

    def __iter__(self) -> Iterator[ScheduledAction]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def order(self) -> tuple[int, ...]:
        """Plan indices by start time (ties in plan order): a valid execution sequence."""
        return tuple(e.index for e in sorted(self.entries, key=lambda e: (e.start, e.index)))

    def running_at(self, t: float) -> tuple[int, ...]:
        """Indices of the actions running at instant ``t`` (``start <= t < end``)."""
        return tuple(e.index for e in self.entries if e.start <= t < e.end)

    def to_dict(self) -> dict[str, object]:
        """JSON-safe dict."""
        return {
            "makespan": self.makespan,
            "entries": [
                {"index": e.index, "action": e.action, "start": e.start, "end": e.end} for e in self.entries
            ],
            "edges": [list(e) for e in self.edges],
        }
