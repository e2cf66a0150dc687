"""Transition models: how the world responds to actions (separate from what actions declare)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any, Literal, Protocol, runtime_checkable

from goap.planning._actions import ActionSpec

__all__ = [  # in the order the module defines them
    "DivergenceKind",
    "DivergencePolicy",
    "TransitionModel",
    "DeterministicTransitionModel",
    "assert_expected_matches_declared",
]

DivergenceKind = Literal["risk-averse", "learned", "hierarchical", "other"]
"""Why a model's expectation may differ from the declared effects."""


@dataclass(frozen=True, slots=True)
class DivergencePolicy:
    """Declares that a model's `expected()` may differ from the action's declared effects, and how far."""

    reason: str
    """Why (required, non-empty)."""
    kind: DivergenceKind = "other"
    """What kind of divergence."""
    max_relative_deviation: float | None = None
    """Bound on |expected - declared| / max(|declared|, 1) for numeric effects (None: unbounded)."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Implementation-specific settings."""


@runtime_checkable
class TransitionModel(Protocol):
    """Two views of an action's outcome: `expected` (deterministic) and `sample` (one draw)."""

    @property
    def divergence_policy(self) -> DivergencePolicy | None:
        """None: `expected` must equal the declared effects."""
        ...

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        """The world state the action is expected to produce."""
        ...

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """One possible resulting world state; `rng` is seeded per step so runs replay."""
        ...


@dataclass(frozen=True, slots=True)
class DeterministicTransitionModel:
    """The default: expected and sampled outcomes are the declared effects."""

    divergence_policy: DivergencePolicy | None = None
    """Always None: this model is exact."""

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        """The declared effects applied to `state`."""
        return action.apply(state)

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """The declared effects applied to `state` (the rng is not used)."""
        return action.apply(state)


def assert_expected_matches_declared(
    model: TransitionModel, *, state: Mapping[str, Any], action: ActionSpec
) -> None:
    """Check a model's `expected()` against the declared effects, as its divergence policy allows.

    No policy: exact equality. A policy: a non-empty reason, and numeric values within
    `max_relative_deviation` when set (booleans and strings always exactly). Raises AssertionError.
    """
    policy = getattr(model, "divergence_policy", None)
    declared = dict(action.apply(state))
    expected = dict(model.expected(state, action))
    if policy is None:
        assert expected == declared, (
            f"{type(model).__name__}.expected() diverges from the declared effects of {action.name!r} "
            f"and no divergence_policy is set: expected={expected!r} declared={declared!r}"
        )
        return
    if not policy.reason.strip():
        raise ValueError("DivergencePolicy.reason must be a non-empty sentence explaining the divergence")
    if policy.max_relative_deviation is None:
        return
    bound = float(policy.max_relative_deviation)
    for key, want in declared.items():
        got = expected.get(key, want)
        if (
            isinstance(want, bool)
            or isinstance(got, bool)
            or not (isinstance(want, int | float) and isinstance(got, int | float))
        ):
            assert got == want, f"expected()[{key!r}] is {got!r}, declared {want!r}: only numbers may deviate"
            continue
        dev = abs(float(got) - float(want)) / max(abs(float(want)), 1.0)
        assert dev <= bound, (
            f"expected()[{key!r}]: relative deviation {dev:.3f} > {bound} (declared {want!r}, expected {got!r})"
        )
