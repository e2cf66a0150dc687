"""Why there is no plan: relaxed reachability analysis and :class:`NoPlanExplanation`.

The analysis runs on the user's actions directly, in the delete relaxation: starting from the
initial values, an action is *relaxed-applicable* when each precondition is met by some value its
fact can reach; it then adds its effect values. Numeric facts an applicable ``add()`` touches
count as able to reach any value. A goal condition that no reachable value satisfies is
unreachable for every plan, so ``plan()`` answers "no plan" without searching.

Each unreachable condition gets a reason:

- ``no_producer``: no action sets the fact to a value that satisfies it;
- ``blacklisted_producer``: only blacklisted actions could (the condition is reachable when the
  blacklist is ignored);
- ``unreachable_preconditions``: producers exist but each needs a precondition that is itself
  unreachable (the precondition list names them).

When every condition is reachable on its own but exhaustive search found no state satisfying them
all, the explanation says so (``proof == "exhaustive"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from goap.planning._actions import ActionSpec
from goap.planning._conditions import Add, Compare, OneOf, condition_to_json, holds

__all__ = [
    "NoPlanExplanation",
    "Reachability",
    "UnreachableCondition",
    "explain_unreachable",
    "fields_to_json",
]


def fields_to_json(record: Any) -> dict[str, Any]:
    """The fields of the dataclass ``record`` as a JSON-safe dict, tuples as lists: the ``to_dict``
    of the explanation records, whose fields hold JSON values and tuples of them only."""
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


Reason = Literal["no_producer", "blacklisted_producer", "unreachable_preconditions", "jointly_unreachable"]


def _render(key: str, cond: object) -> str:
    if isinstance(cond, Compare):
        return f"{key} {cond.op} {cond.value!r}"
    if isinstance(cond, OneOf):
        return f"{key} in {sorted(cond.values, key=repr)!r}"
    return f"{key} == {cond!r}"


def _cond_from_json(value: object) -> object:
    if isinstance(value, dict):
        if "op" in value:
            return Compare(value["op"], value["value"])
        if "in" in value:
            return OneOf(frozenset(value["in"]))
    return value


@dataclass(frozen=True, slots=True)
class UnreachableCondition:
    """One goal condition no plan can satisfy, and why."""

    key: str
    """The fact key."""
    condition: object
    """The wanted condition in JSON form (a plain value or ``{"op": ..., "value": ...}``)."""
    reason: Reason
    """See the module docstring."""
    producers: tuple[str, ...] = ()
    """Non-blacklisted actions that could produce a satisfying value."""
    blacklisted_producers: tuple[str, ...] = ()
    """Blacklisted actions that could produce a satisfying value."""
    unreachable_preconditions: tuple[str, ...] = ()
    """The producers' preconditions that are unreachable, rendered like ``door == True``."""

    @property
    def message(self) -> str:
        """One human-readable sentence."""
        cond = _render(self.key, _cond_from_json(self.condition))
        if self.reason == "no_producer":
            return f"{cond}: no action produces it"
        if self.reason == "blacklisted_producer":
            return f"{cond}: only blacklisted actions produce it ({', '.join(self.blacklisted_producers)})"
        if self.reason == "jointly_unreachable":
            return f"{cond}: reachable alone, not together with the other goal conditions"
        return (
            f"{cond}: its producers ({', '.join(self.producers)}) need unreachable preconditions "
            f"({', '.join(self.unreachable_preconditions)})"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the fields."""
        return fields_to_json(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UnreachableCondition:
        """Inverse of :meth:`to_dict`."""
        return cls(
            key=data["key"],
            condition=data["condition"],
            reason=data["reason"],
            producers=tuple(data.get("producers", ())),
            blacklisted_producers=tuple(data.get("blacklisted_producers", ())),
            unreachable_preconditions=tuple(data.get("unreachable_preconditions", ())),
        )


@dataclass(frozen=True, slots=True)
class NoPlanExplanation:
    """Why no plan exists: the unreachable goal conditions and how that was proven."""

    unreachable: tuple[UnreachableCondition, ...]
    """Goal conditions no plan satisfies, each with its reason."""
    proof: Literal["relaxed", "exhaustive"]
    """``relaxed``: relaxed reachability shows it (no search); ``exhaustive``: search exhausted."""
    expanded: int = 0
    """States searched before giving up (0 for a relaxed proof)."""
    goal: str = ""
    """Label of the goal that failed (useful for sequential MultiGoals)."""

    @property
    def unreachable_conditions(self) -> tuple[str, ...]:
        """Keys of the unreachable goal conditions."""
        return tuple(u.key for u in self.unreachable)

    @property
    def message(self) -> str:
        """Human-readable summary."""
        if self.proof == "exhaustive" and all(u.reason == "jointly_unreachable" for u in self.unreachable):
            keys = ", ".join(self.unreachable_conditions)
            return (
                f"every goal condition is reachable on its own, but no reachable state satisfies all of "
                f"them together ({keys}); exhaustive search of {self.expanded} states"
            )
        return "; ".join(u.message for u in self.unreachable)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (what a runtime stores in its state)."""
        return {
            "unreachable": [u.to_dict() for u in self.unreachable],
            "proof": self.proof,
            "expanded": self.expanded,
            "goal": self.goal,
            "message": self.message,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoPlanExplanation:
        """Inverse of :meth:`to_dict` (``message`` is derived, so it is not read back)."""
        return cls(
            unreachable=tuple(UnreachableCondition.from_dict(u) for u in data.get("unreachable", ())),
            proof=data["proof"],
            expanded=int(data.get("expanded", 0)),
            goal=str(data.get("goal", "")),
        )


class Reachability:
    """Relaxed reachability of fact values from an initial state (see the module docstring)."""

    def __init__(self, initial: Mapping[str, Any], actions: Iterable[ActionSpec]) -> None:
        self.values: dict[str, set[Any]] = {}
        """Key -> every value it can reach (``None``: the initial absence)."""
        self.unbounded: set[str] = set()
        """Numeric keys an applicable ``add()`` touches: any value counts as reachable."""
        self.applicable: set[str] = set()
        """Names of the relaxed-applicable actions."""
        for k, v in initial.items():
            self.values[k] = {v}
        # linear fixpoint: each action waits for its preconditions not yet satisfiable; a key that
        # gains a value (or becomes unbounded) re-tests only the conditions waiting on it
        acts = list(actions)
        waiting = [0] * len(acts)
        watch: dict[str, list[tuple[int, object]]] = {}
        ready: list[int] = []
        for i, a in enumerate(acts):
            n = 0
            for k, c in a.preconditions.items():
                if not self.can_hold(k, c):
                    n += 1
                    watch.setdefault(k, []).append((i, c))
            waiting[i] = n
            if not n:
                ready.append(i)
        ready.reverse()
        while ready:
            a = acts[ready.pop()]
            self.applicable.add(a.name)
            for k, e in [*a.effects.items(), *((k, _MISSING) for k in a.effect_keys)]:
                if isinstance(e, Add) or e is _MISSING:  # add() or an effect_fn: any value
                    if k in self.unbounded:
                        continue
                    self.unbounded.add(k)
                    fresh = watch.pop(k, [])
                else:
                    vals = self.values.setdefault(k, {None})
                    if e in vals and _plain(e):
                        continue
                    vals.add(e)
                    conds = None if k in self.unbounded else watch.get(k)
                    if not conds:
                        continue
                    fresh = [ic for ic in conds if holds(ic[1], e)]
                    if not fresh:
                        continue
                    watch[k] = [ic for ic in conds if not holds(ic[1], e)]
                for i, _ in fresh:
                    waiting[i] -= 1
                    if not waiting[i]:
                        ready.append(i)

    def can_hold(self, key: str, cond: object) -> bool:
        """Whether some reachable value of ``key`` satisfies ``cond``."""
        if key in self.unbounded:
            return True
        vals = self.values.get(key, (None,))
        if _plain(cond) and cond in vals:
            return True  # a plain value means equality: a set lookup finds it
        return any(holds(cond, v) for v in vals)


def explain_unreachable(
    initial: Mapping[str, Any],
    goal: Mapping[str, Any],
    actions: Sequence[ActionSpec],
    blacklist: frozenset[str],
    goal_label: str = "",
) -> NoPlanExplanation | None:
    """A relaxed proof that ``goal`` is unreachable, or None when relaxed reachability allows it.

    ``actions`` are all actions, ``blacklist`` the names the planner may not use.
    """
    allowed = [a for a in actions if a.name not in blacklist]
    reach = Reachability(initial, allowed)
    bad = [(k, c) for k, c in goal.items() if not reach.can_hold(k, c)]
    if not bad:
        return None
    reach_all = Reachability(initial, actions) if blacklist else reach
    out = []
    for key, cond in bad:
        producers: list[str] = []
        black: list[str] = []
        for a in actions:
            e = a.effects.get(key, _MISSING)
            if e is _MISSING and key not in a.effect_keys:
                continue
            if isinstance(e, Add) or e is _MISSING or holds(cond, e):
                (black if a.name in blacklist else producers).append(a.name)
        if not producers and not black:
            reason: Reason = "no_producer"
            missing: tuple[str, ...] = ()
        elif blacklist and reach_all.can_hold(key, cond):
            reason = "blacklisted_producer"
            missing = ()
        else:
            reason = "unreachable_preconditions"
            miss: list[str] = []
            by_name = {a.name: a for a in allowed}
            for name in producers:
                for k, c in by_name[name].preconditions.items():
                    if not reach.can_hold(k, c):
                        text = _render(k, c)
                        if text not in miss:
                            miss.append(text)
            missing = tuple(miss)
            if not producers:
                reason = "blacklisted_producer"
        out.append(
            UnreachableCondition(
                key=key,
                condition=condition_to_json(cond),
                reason=reason,
                producers=tuple(producers),
                blacklisted_producers=tuple(black),
                unreachable_preconditions=missing,
            )
        )
    return NoPlanExplanation(unreachable=tuple(out), proof="relaxed", goal=goal_label)


_MISSING = object()

_PLAIN = (str, int, float, bool, type(None))


def _plain(value: object) -> bool:
    """Whether ``value`` is a plain scalar whose equality agrees with hashing (not NaN)."""
    return type(value) in _PLAIN and value == value
