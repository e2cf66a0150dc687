"""Load-time lint of goal segments: every problem is listed at once, before a conversation starts.

Checks, per segment: the selector kind is known; an exit guard exists (an ``exit_target`` and at
least one required slot); a ``fallback_state`` is set; required and confirmed slots are target
slots; states name only target slots; every required slot has a state that collects or repairs
it; state names and declared orders are unique; the precondition/effect ordering of the states
has no cycle. Across segments: segment names are unique and no state belongs to two segments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from goap.planning import Add, holds
from goap.selector._errors import LintProblem, SegmentLintError
from goap.selector._model import GoalSegment, StateDef

__all__ = ["lint_segments", "load_segments"]

_SELECTORS = ("goap_lite", "none")


def _may_meet(cond: object, value: object) -> bool:
    # A numeric effect (add) can reach many values; assume it may meet the condition.
    return isinstance(value, Add) or holds(cond, value)


def _cycles(states: tuple[StateDef, ...]) -> list[list[str]]:
    """Strongly connected groups of states that each wait for another's effects (Tarjan)."""
    # Edge a -> b: a sets a fact to a value meeting one of b's preconditions, so b waits for a.
    produced = {st.name: st.produces() for st in states}
    succ: dict[str, list[str]] = {st.name: [] for st in states}
    for b in states:
        for a in states:
            made = produced[a.name]
            if a.name != b.name and any(
                k in made and _may_meet(cond, made[k]) for k, cond in b.preconditions.items()
            ):
                succ[a.name].append(b.name)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for st in states:
        if st.name not in index:
            visit(st.name)
    return sorted(out)


def _lint_one(seg: GoalSegment) -> list[LintProblem]:
    out: list[LintProblem] = []

    def add(code: str, msg: str) -> None:
        out.append(LintProblem(code, seg.name, msg))

    c = seg.contract
    target = set(c.target)
    if seg.selector not in _SELECTORS:
        add("bad_selector", f"selector {seg.selector!r} is unknown; use one of {list(_SELECTORS)}")
    if not seg.exit_target:
        add("missing_exit_guard", "no exit_target: the exit guard has nowhere to go")
    if not c.required_slots:
        add("missing_exit_guard", "no required slots: the exit guard would pass before anything is asked")
    if not seg.fallback_state:
        add("missing_fallback", "no fallback_state: attempt caps would have nowhere to go")
    for what, slots in (
        ("required", c.required_slots),
        ("confirm", c.confirm),
        ("slot_max_attempts", tuple(c.slot_max_attempts)),
    ):
        for s in slots:
            if s not in target:
                add("unknown_slot", f"{what} slot {s!r} is not a target slot {list(c.target)}")
    names: set[str] = set()
    orders: dict[int, str] = {}
    for st in seg.states:
        if st.name in names:
            add("duplicate_state", f"state {st.name!r} is declared twice")
        names.add(st.name)
        if st.order in orders and orders[st.order] != st.name:
            add(
                "duplicate_order",
                f"states {orders[st.order]!r} and {st.name!r} share order {st.order}; ties need distinct orders",
            )
        orders.setdefault(st.order, st.name)
        for s in (*st.collects, *st.repairs):
            if s not in target:
                add("unknown_slot", f"state {st.name!r} names slot {s!r}, not a target slot {list(c.target)}")
        if st.name in (seg.exit_target, seg.fallback_state):
            add("duplicate_state", f"state {st.name!r} is also the segment's exit or fallback")
    for s in c.required_slots:
        if not any(s in st.collects or s in st.repairs for st in seg.states):
            add("required_slot_uncovered", f"required slot {s!r} has no state that collects or repairs it")
    for group in _cycles(seg.states):
        add("cyclic_ordering", f"states {group} wait for each other's effects (preconditions form a cycle)")
    return out


def lint_segments(segments: Iterable[GoalSegment]) -> tuple[LintProblem, ...]:
    """Every lint problem of ``segments`` (empty when they are fine)."""
    segs = tuple(segments)
    out: list[LintProblem] = []
    seen_seg: set[str] = set()
    owner: dict[str, str] = {}
    for seg in segs:
        if seg.name in seen_seg:
            out.append(LintProblem("duplicate_segment", seg.name, f"segment name {seg.name!r} is used twice"))
        seen_seg.add(seg.name)
        out.extend(_lint_one(seg))
        for st in dict.fromkeys(st.name for st in seg.states):
            first = owner.setdefault(st, seg.name)
            if first != seg.name:
                out.append(
                    LintProblem(
                        "state_in_two_segments",
                        seg.name,
                        f"state {st!r} is already a member of segment {first!r}",
                    )
                )
    return tuple(out)


def load_segments(segments: Iterable[GoalSegment]) -> Mapping[str, GoalSegment]:
    """Lint ``segments`` and return them by name; raise :class:`SegmentLintError` listing every problem."""
    segs = tuple(segments)
    problems = lint_segments(segs)
    if problems:
        raise SegmentLintError(problems)
    return {s.name: s for s in segs}
