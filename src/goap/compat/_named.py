"""A named user callable: what the compat layer's functional wrappers (resolvers, guards) share."""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["NamedCallable"]

FnT = TypeVar("FnT")


class NamedCallable(Generic[FnT]):
    """A callable given a name at construction; the name shows in logs and traces."""

    def __init__(self, name: str, fn: FnT) -> None:
        self._name = name
        self._fn = fn

    @property
    def name(self) -> str:
        """The name given at construction."""
        return self._name
