"""LangGOAP's transition models (effects, not states), wrapped for goap's planners."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol, runtime_checkable

import goap.planning as gp
from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.planning import DivergenceKind, DivergencePolicy

__all__ = ["DeterministicTransitionModel", "DivergenceKind", "DivergencePolicy", "TransitionModel"]
__all__ += ["assert_expected_matches_declared", "to_goap_model"]


@runtime_checkable
class TransitionModel(Protocol):
    """How the world answers an action: ``expected`` (a point estimate) and ``sample`` (one draw), as effects."""

    @property
    def divergence_policy(self) -> DivergencePolicy | None:
        """None: ``expected`` must equal the declared effects."""
        ...

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        """The effects the action is expected to have in ``state``."""
        ...

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """One possible set of effects."""
        ...


@dataclass(slots=True, frozen=True)
class DeterministicTransitionModel:
    """Expected and sampled effects are the declared ones (the rng is ignored)."""

    divergence_policy: DivergencePolicy | None = None

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        """The declared effects in ``state``."""
        return action.get_effects(dict(state))

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """The declared effects in ``state``."""
        return action.get_effects(dict(state))


@dataclass(slots=True, frozen=True)
class _GoapModel:
    """goap's view of a LangGOAP model: goap actions and encoded whole states in and out."""

    inner: Any
    by_name: Mapping[str, ActionSpec]

    @property
    def divergence_policy(self) -> DivergencePolicy | None:
        return getattr(self.inner, "divergence_policy", None)

    def _next(self, state: Mapping[str, Any], effects: Mapping[str, Any]) -> dict[str, Any]:
        return {**state, **cv.encode_map(effects)}

    def expected(self, state: Mapping[str, Any], action: gp.ActionSpec) -> Mapping[str, Any]:
        return self._next(state, self.inner.expected(cv.decode_state(state), self.by_name[action.name]))

    def sample(self, state: Mapping[str, Any], action: gp.ActionSpec, rng: Random) -> Mapping[str, Any]:
        return self._next(state, self.inner.sample(cv.decode_state(state), self.by_name[action.name], rng))


def is_deterministic(model: Any) -> bool:
    """Whether ``model`` is absent or a deterministic model (LangGOAP's or goap's)."""
    return model is None or isinstance(model, DeterministicTransitionModel | gp.DeterministicTransitionModel)


def to_goap_model(model: Any, actions: Sequence[ActionSpec]) -> gp.TransitionModel:
    """goap's model for a LangGOAP one over ``actions`` (goap's deterministic model for a deterministic one)."""
    if is_deterministic(model):
        return gp.DeterministicTransitionModel()
    return _GoapModel(model, {a.name: a for a in actions})


def assert_expected_matches_declared(model: Any, *, state: Mapping[str, Any], action: ActionSpec) -> None:
    """goap's check of ``model.expected`` against ``action``'s declared effects."""
    gp.assert_expected_matches_declared(
        _GoapModel(model, {action.name: action}), state=cv.encode_map(state), action=cv.to_goap_action(action)
    )
