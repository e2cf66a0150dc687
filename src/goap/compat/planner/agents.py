"""Models of external agents (opponents, other agents) for stochastic planning: a point estimate
and a sampled action per state."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from random import Random
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

__all__ = ["AgentModel", "UniformRandomAgentModel"]

A = TypeVar("A")
"""The agent's action type (a direction, an action name, an ActionSpec...)."""
A_co = TypeVar("A_co", covariant=True)
"""Covariant form of :data:`A` for the protocol."""


@runtime_checkable
class AgentModel(Protocol[A_co]):
    """Predicts an external agent's next action."""

    def expected(self, state: Mapping[str, Any]) -> A_co:
        """The deterministic point estimate for ``state``."""
        ...

    def sample(self, state: Mapping[str, Any], rng: Random) -> A_co:
        """One draw from the agent's distribution for ``state``."""
        ...


class UniformRandomAgentModel(Generic[A]):
    """Draws uniformly among the legal actions; ``default`` is the estimate and the move when none is legal."""

    __slots__ = ("_default", "_enumerate")

    def __init__(self, *, enumerate_actions: Callable[[Mapping[str, Any]], Sequence[A]], default: A) -> None:
        self._enumerate = enumerate_actions
        self._default = default

    def expected(self, state: Mapping[str, Any]) -> A:
        """``default`` (a uniform distribution has no mode)."""
        return self._default

    def sample(self, state: Mapping[str, Any], rng: Random) -> A:
        """A uniform choice among the legal actions, or ``default`` when there are none."""
        options = list(self._enumerate(state))
        return rng.choice(options) if options else self._default
