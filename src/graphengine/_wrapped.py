"""What a store wrapper wraps: capability checks ask the real store (no project imports here, so
every engine module may use it without an import cycle)."""

from __future__ import annotations

from typing import Any

__all__ = ["unwrapped"]


def unwrapped(store: Any) -> Any:
    """The store a wrapper (one with `__wrapped__`, e.g. a stream's tap) delegates to.

    Capability checks (`isinstance(store, WaitStore)`, ...) ask it, not the wrapper: a
    runtime-checkable protocol looks its methods up statically on Python 3.12+, so methods a
    wrapper finds through `__getattr__` do not count there.
    """
    inner = getattr(store, "__wrapped__", None)
    while inner is not None:
        store = inner
        inner = getattr(store, "__wrapped__", None)
    return store
