"""`SyncTracer`: a tracer written once, with sync hooks; its async hooks call them."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from goap.compat.tracing._protocol import SYNC_HOOKS, PlanningTracer

__all__ = ["SyncTracer"]


class SyncTracer(PlanningTracer):
    """Base of tracers whose hooks do not await: override the sync hooks you need.

    Every sync hook does nothing; every async hook ``aon_*`` runs its sync twin ``on_*``, so the
    same events are seen under ``invoke`` and ``ainvoke``.
    """


def _forward(name: str) -> Callable[..., Coroutine[Any, Any, None]]:
    async def hook(self: SyncTracer, *args: Any, **kwargs: Any) -> None:
        getattr(self, name)(*args, **kwargs)

    hook.__name__ = hook.__qualname__ = f"a{name}"
    hook.__doc__ = f"Runs :meth:`{name}`."
    return hook


# The async hooks are made from the protocol's list rather than written out: each is the same
# one-line forward, and a hook added to the protocol is forwarded without another edit here.
for _name in SYNC_HOOKS:
    setattr(SyncTracer, f"a{_name}", _forward(_name))
