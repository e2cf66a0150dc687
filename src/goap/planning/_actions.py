"""Actions: what the planner may do, when it may do it, what it changes and what it costs."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias, runtime_checkable

from goap.planning._checks import freeze_field
from goap.planning._conditions import Add, Compare, OneOf, Scalar, holds
from goap.planning._errors import ModelError

if TYPE_CHECKING:
    from goap.planning._qos import ActionQos

__all__ = [
    "ActionSpec",
    "ApprovalForm",
    "CostFunction",
    "EffectFunction",
    "Guard",
    "GuardStage",
    "check_cost_sum",
    "check_fact_map",
    "check_initial",
    "plan_cost",
]

GuardStage: TypeAlias = Literal["pre", "post"]
"""When a guard runs: before the action, or on the world it produced."""


@runtime_checkable
class Guard(Protocol):
    """A check around an action, which :attr:`ActionSpec.guards` holds (see :mod:`goap.runtime`).

    Described here by what the runtime calls on it, so an action can be typed by it; planning
    never runs a guard.
    """

    @property
    def name(self) -> str:
        """Stable name, used in records and replay."""
        ...

    @property
    def stage(self) -> GuardStage:
        """``"pre"`` or ``"post"``."""
        ...

    def check(self, action: ActionSpec, world: Mapping[str, Any]) -> Any:
        """A ``GuardResult`` (or bool/None), or an awaitable of one."""
        ...


class EffectFunction(Protocol):
    """State-dependent effects: ``effect_fn(state) -> {key: value}`` (values as plain effects)."""

    def __call__(self, state: Mapping[str, Any], /) -> Mapping[str, Any]:
        """The facts the action writes when applied in ``state``."""
        ...


class ApprovalForm(Protocol):
    """The form class :attr:`ActionSpec.approval` holds: a :class:`goap.Approval` subclass.

    Described by what the runtime calls on it (it shows the schema and validates the answer), so
    the planning layer, which never looks at it, needs no pydantic.
    """

    __name__: str

    def model_json_schema(self) -> dict[str, Any]:
        """The JSON schema shown to the person answering."""
        ...

    def model_validate(self, obj: Any, /) -> Any:
        """The answer, validated."""
        ...


class CostFunction(Protocol):
    """A state-dependent action cost: ``cost(state) -> float`` (must be >= 0).

    The planner calls it with the (read-only) world state the action is applied in. Heuristics
    cannot see it, so they use the action's ``min_cost`` (default 0) as a lower bound; A* stays
    optimal as long as ``min_cost`` really is a lower bound.
    """

    def __call__(self, state: Mapping[str, Any], /) -> float:
        """The cost of applying the action in ``state``."""
        ...


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


def check_fact_map(owner: str, what: str, mapping: Mapping[str, Any], effect: bool) -> None:
    """Raise :class:`goap.ModelError` naming ``owner`` and ``what`` unless ``mapping`` is a map of
    fact names (str) to values a condition (``effect=False``) or an effect (``effect=True``) may hold."""
    for key, value in mapping.items():
        t = type(value)
        if type(key) is str and (t is bool or t is str or t is int):
            continue  # the common case, allowed as a condition and as an effect
        if not isinstance(key, str):
            raise ModelError(f"{owner}: {what} keys must be str, got {key!r}")
        if effect:
            ok = isinstance(value, (Add, bool | int | float | str))
        else:
            ok = isinstance(value, (Compare | OneOf, bool | int | float | str))
            ok = ok or value is None
        if not ok:
            raise ModelError(f"{owner}: {what}[{key!r}] has unsupported value {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ModelError(f"{owner}: {what}[{key!r}] must be finite, got {value!r}")
        if isinstance(value, Compare | OneOf) and _has_nan(value):
            # NaN orders and equals nothing: the condition never holds (ne: always), and a
            # search for it burns its whole budget instead of saying so.
            raise ModelError(
                f"{owner}: {what}[{key!r}] is {value!r}, which compares false with every value "
                "(nan); compare with a number"
            )


def _has_nan(cond: Compare | OneOf) -> bool:
    values = (cond.value,) if isinstance(cond, Compare) else cond.values
    return any(isinstance(v, float) and math.isnan(v) for v in values)


def check_initial(initial: Mapping[str, Any]) -> None:
    """Raise :class:`goap.ModelError` naming a fact of ``initial`` whose value is NaN.

    A NaN fact equals and orders with nothing, so no condition on it ever holds: the search
    would burn its whole budget and report it exhausted instead of naming the fact. Anything
    but a mapping is left to the compilers, which name it.
    """
    if not isinstance(initial, Mapping):
        return
    for key, value in initial.items():
        if isinstance(value, float) and math.isnan(value):
            raise ModelError(
                f"initial state: fact {key!r} is {value!r}; NaN compares false with every value, so "
                "no condition on it can hold. Give it a number (or leave the fact out)"
            )


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One action: preconditions, effects and a cost.

    ``preconditions`` and ``effects`` are stored as read-only ``MappingProxyType`` so one action
    can be shared by concurrent plannings. A precondition value is a plain scalar (equality) or a
    condition object (:func:`goap.ge`, :func:`goap.in_`, ...); an effect value is a plain scalar
    (set) or :func:`goap.add`. Raises :class:`goap.ModelError` on invalid input.

    Equality compares every field; the hash is the name's, so actions can key dicts and sets.
    """

    name: str
    """Unique name of the action within one planning call."""
    preconditions: Mapping[str, Any] = field(default_factory=_empty)
    """Fact key -> plain value (equality) or condition object."""
    effects: Mapping[str, Any] = field(default_factory=_empty)
    """Fact key -> plain value (set) or :class:`goap.planning._conditions.Add`."""
    cost: float | CostFunction = 1.0
    """A number >= 0, or a :class:`CostFunction` of the state."""
    min_cost: float = 0.0
    """Lower bound of a :class:`CostFunction` cost, used by heuristics (ignored for numbers)."""
    execute: Callable[..., Any] | None = None
    """What to run when the action is executed (sync or async); planning ignores it."""
    resources: Mapping[str, float] | None = None
    """Resource use per run (e.g. ``{"tokens": 500}``): the CP-SAT pipeline sums it against a
    :class:`goap.ConstrainedGoal`'s resource constraints and objectives and, with a
    :class:`goap.Capacity`, against what may run at once; A* and the other strategies ignore it."""
    duration: float | None = None
    """Seconds one run takes: the CP-SAT pipeline schedules actions with it (``PlanResult.schedule``,
    the ``"makespan"`` metric); A* and the other strategies ignore it."""
    max_retries: int = 0
    """Retries the executor allows before blacklisting; planning ignores it."""
    metadata: Mapping[str, Any] | None = None
    """Free-form metadata (description, tags)."""
    qos: ActionQos | None = None
    """Retry and re-run policy (:class:`goap.ActionQos`); None: ``max_retries`` retries, re-runnable."""
    guards: tuple[Guard, ...] = ()
    """Checks before/after this action (:class:`goap.Guard`); the graph's own guards run too."""
    approval: ApprovalForm | None = None
    """A form (subclass of :class:`goap.Approval`) a person answers before the action runs."""
    effect_fn: EffectFunction | None = None
    """Effects computed from the state the action is applied in (after ``effects``); it may write
    only ``effect_keys``. The planner calls it on every expansion, so it must be pure."""
    effect_keys: frozenset[str] = frozenset()
    """The keys ``effect_fn`` may write (required with it): the planner treats them as open facts."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ModelError(f"action name must be a non-empty str, got {self.name!r}")
        owner = f"action {self.name!r}"
        pre = self.preconditions
        eff = self.effects
        if not isinstance(pre, Mapping):
            raise ModelError(f"{owner}: preconditions must be a mapping, got {type(pre).__name__}")
        if not isinstance(eff, Mapping):
            raise ModelError(f"{owner}: effects must be a mapping, got {type(eff).__name__}")
        check_fact_map(owner, "preconditions", pre, effect=False)
        check_fact_map(owner, "effects", eff, effect=True)
        if not isinstance(pre, MappingProxyType):
            object.__setattr__(self, "preconditions", MappingProxyType(dict(pre)))
        if not isinstance(eff, MappingProxyType):
            object.__setattr__(self, "effects", MappingProxyType(dict(eff)))
        cost = self.cost
        if isinstance(cost, bool) or not (isinstance(cost, int | float) or callable(cost)):
            raise ModelError(f"{owner}: cost must be a number >= 0 or a CostFunction, got {cost!r}")
        if isinstance(cost, int | float) and not (math.isfinite(cost) and cost >= 0):
            raise ModelError(f"{owner}: cost must be a finite number >= 0, got {cost!r}")
        if not (math.isfinite(self.min_cost) and self.min_cost >= 0):
            raise ModelError(f"{owner}: min_cost must be a finite number >= 0, got {self.min_cost!r}")
        if self.qos is not None:
            from goap.planning._qos import ActionQos  # only actions that declare a policy need the class

            if not isinstance(self.qos, ActionQos):
                raise ModelError(f"{owner}: qos must be an ActionQos, got {self.qos!r}")
        freeze_field(self, "guards", tuple)
        freeze_field(self, "effect_keys", frozenset)
        if (self.effect_fn is None) != (not self.effect_keys):
            raise ModelError(f"{owner}: effect_fn and a non-empty effect_keys go together")
        if self.effect_fn is not None and not callable(self.effect_fn):
            raise ModelError(f"{owner}: effect_fn must be callable, got {self.effect_fn!r}")
        for g in self.guards:
            if not (hasattr(g, "check") and hasattr(g, "name")):
                raise ModelError(f"{owner}: guard {g!r} has no name and check (see goap.Guard)")
        if self.approval is not None:
            fields = getattr(self.approval, "model_fields", None)
            if fields is None or "approved" not in fields:
                raise ModelError(
                    f"{owner}: approval must be a pydantic model with an 'approved' field "
                    f"(subclass goap.Approval), got {self.approval!r}"
                )
        for attr in ("resources", "metadata"):
            val = getattr(self, attr)
            if val is not None and not isinstance(val, MappingProxyType):
                object.__setattr__(self, attr, MappingProxyType(dict(val)))

    def __hash__(self) -> int:
        return hash(self.name)

    @property
    def has_cost_function(self) -> bool:
        """Whether the cost depends on the state."""
        return not isinstance(self.cost, int | float)

    @property
    def is_async(self) -> bool:
        """Whether ``execute`` is a coroutine function."""
        if self.execute is None:
            return False
        import inspect

        return inspect.iscoroutinefunction(self.execute)

    def cost_in(self, state: Mapping[str, Any]) -> float:
        """The cost of applying this action in ``state``; raises ModelError on a bad result."""
        cost = self.cost
        if isinstance(cost, int | float):
            return float(cost)
        value = cost(MappingProxyType(dict(state)) if not isinstance(state, MappingProxyType) else state)
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            raise ModelError(f"action {self.name!r}: cost function returned {value!r}, need a number >= 0")
        if value < self.min_cost - 1e-9:
            raise ModelError(
                f"action {self.name!r}: cost function returned {value!r}, below min_cost {self.min_cost!r}"
            )
        return float(value)

    def applicable(self, state: Mapping[str, Any]) -> bool:
        """Whether every precondition holds in ``state`` (absent keys read as ``None``)."""
        return all(holds(cond, state.get(key)) for key, cond in self.preconditions.items())

    def apply(self, state: Mapping[str, Any]) -> dict[str, Scalar]:
        """The state after this action (a new dict); effects are independent of each other.

        Raises ModelError when a numeric effect meets a non-numeric or absent fact.
        """
        new: dict[str, Any] = dict(state)
        for key, eff in self.effects.items():
            if isinstance(eff, Add):
                cur = state.get(key)
                if isinstance(cur, bool) or not isinstance(cur, int | float):
                    raise ModelError(f"action {self.name!r}: add() on {key!r} needs a number, found {cur!r}")
                new[key] = cur + eff.amount
            else:
                new[key] = eff
        if self.effect_fn is not None:
            new.update(self.dynamic_effects(state))
        return new

    def dynamic_effects(self, state: Mapping[str, Any]) -> Mapping[str, Any]:
        """What ``effect_fn`` writes in ``state`` (empty without one); ModelError outside ``effect_keys``."""
        if self.effect_fn is None:
            return {}
        view = state if isinstance(state, MappingProxyType) else MappingProxyType(dict(state))
        out = self.effect_fn(view)
        stray = [k for k in out if k not in self.effect_keys]
        if stray:
            raise ModelError(f"action {self.name!r}: effect_fn wrote {stray!r}, outside effect_keys")
        return out


def plan_cost(initial: Mapping[str, Any], steps: Iterable[ActionSpec]) -> float:
    """The cost of applying ``steps`` in order from ``initial``: each action's cost in the state it is
    applied in (state-dependent costs included). Applicability is not checked: callers pass plans
    already known to apply."""
    state: Mapping[str, Any] = dict(initial)
    cost = 0.0
    for a in steps:
        cost += a.cost_in(state)
        state = a.apply(state)
    return cost


def check_cost_sum(actions: Sequence[ActionSpec]) -> None:
    """Refuse costs whose sum a float cannot hold.

    Each cost is finite (ActionSpec checks it), but heuristics add the costs of several actions:
    a sum that overflows to infinity reads as "unreachable", and the planner would report a
    solvable problem as having no plan.
    """

    def bound(a: ActionSpec) -> float:
        return a.min_cost if a.has_cost_function else float(a.cost)  # type: ignore[arg-type]

    total = sum(bound(a) for a in actions)
    if not math.isfinite(total):
        top = max(actions, key=bound)
        raise ModelError(
            f"the action costs sum to more than a float holds (largest: action {top.name!r}, "
            f"cost {top.cost!r}); scale the costs down so that their sum stays finite"
        )
