"""Transition models: what an action is expected to do (``expected``) and what one run of it does
(``sample``), separate from the effects it declares.

:class:`DivergencePolicy` and :data:`DivergenceKind` are our planning layer's own; the model
protocol here speaks of LangGOAP's actions, whose ``expected`` and ``sample`` return the
*effects* (a mapping of changed keys), not the whole next state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol, runtime_checkable

from goap.compat.actions import ActionSpec
from goap.planning import DivergenceKind, DivergencePolicy

__all__ = [
    "DeterministicTransitionModel",
    "DivergenceKind",
    "DivergencePolicy",
    "TransitionModel",
    "assert_expected_matches_declared",
]


@runtime_checkable
class TransitionModel(Protocol):
    """Two views of an action's outcome: ``expected`` (for search) and ``sample`` (for rollouts and runs)."""

    @property
    def divergence_policy(self) -> DivergencePolicy | None:
        """None: ``expected`` must equal the declared effects."""
        ...

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        """The effects the action is expected to have in ``state``."""
        ...

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """One draw of the action's effects in ``state``."""
        ...


@dataclass(frozen=True, slots=True)
class DeterministicTransitionModel:
    """The default: both views are the declared effects, whatever the rng."""

    divergence_policy: DivergencePolicy | None = None
    """None: this model is exact."""

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        """The declared effects in ``state``."""
        return action.get_effects(dict(state))

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """The declared effects in ``state`` (``rng`` unused)."""
        return action.get_effects(dict(state))


def assert_expected_matches_declared(
    model: TransitionModel, *, state: Mapping[str, Any], action: ActionSpec
) -> None:
    """Check ``model.expected`` against the declared effects, as far as its divergence policy allows.

    No policy: exact equality (AssertionError otherwise). A policy needs a non-empty reason
    (ValueError); with ``max_relative_deviation`` numbers may deviate that far (relative to
    ``max(|declared|, 1)``), booleans and strings never.
    """
    policy: DivergencePolicy | None = getattr(model, "divergence_policy", None)
    declared = dict(action.get_effects(dict(state)))
    expected = dict(model.expected(state, action))
    if policy is None:
        assert expected == declared, (
            f"TransitionModel.expected() diverges from declared effects but no divergence_policy was set. "
            f"expected={expected!r} declared={declared!r}"
        )
        return
    if not policy.reason.strip():
        raise ValueError(
            "DivergencePolicy.reason must be a non-empty string: a divergence needs a stated reason"
        )
    if policy.max_relative_deviation is None:
        return
    bound = float(policy.max_relative_deviation)
    for key, want in declared.items():
        got = expected.get(key, want)
        numeric = isinstance(want, int | float) and isinstance(got, int | float)
        if isinstance(want, bool) or isinstance(got, bool) or not numeric:
            assert got == want, (
                f"TransitionModel.expected()[{key!r}] is {got!r}, declared {want!r}: bounded divergence "
                f"covers numeric values only"
            )
            continue
        deviation = abs(float(got) - float(want)) / max(abs(float(want)), 1.0)
        assert deviation <= bound, (
            f"TransitionModel.expected()[{key!r}] declares bounded deviation <= {bound} but observed "
            f"{deviation:.3f} (declared={want!r}, expected={got!r})"
        )
