"""Models of other agents' moves, for stochastic planners (MCTS rollouts and chance nodes)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from random import Random
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

__all__ = ["AgentModel", "UniformRandomAgentModel"]

A = TypeVar("A")
A_co = TypeVar("A_co", covariant=True)


@runtime_checkable
class AgentModel(Protocol[A_co]):
    """Predicts what an outside agent does in a state."""

    def expected(self, state: Mapping[str, Any]) -> A_co:
        """The single most likely move."""
        ...

    def sample(self, state: Mapping[str, Any], rng: Random) -> A_co:
        """One move drawn from the agent's distribution."""
        ...


class UniformRandomAgentModel(Generic[A]):
    """Any legal move with equal chance; ``default`` as the expected move and when none is legal."""

    __slots__ = ("_default", "_legal")

    def __init__(self, *, enumerate_actions: Callable[[Mapping[str, Any]], Sequence[A]], default: A) -> None:
        self._legal = enumerate_actions
        self._default = default

    def expected(self, state: Mapping[str, Any]) -> A:
        """``default``."""
        return self._default

    def sample(self, state: Mapping[str, Any], rng: Random) -> A:
        """A uniformly drawn legal move (``default`` if there is none)."""
        moves = list(self._legal(state))
        return rng.choice(moves) if moves else self._default
