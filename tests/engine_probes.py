"""What the engine's adversarial probes share: a state with the fields they aim at, values that do
not read back, and the check that every read of a run works. No tests live here."""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, Field

from graphengine import Engine
from graphengine.store import RunStatus


class S(BaseModel):
    """A state with the fields the probes aim at."""

    n: int = 0
    f: float = 0.0
    x: float | None = None
    a: Any = None
    items: list[Any] = []
    pos: Annotated[int, Field(gt=0)] = 1
    last_error: str | None = None


def nest(depth: int) -> Any:
    """A list nested `depth` levels deep."""
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


async def assert_readable(g: Engine[Any], run_id: str) -> None:
    """Every read of the run works and the run is not left `running`."""
    run = await g.get_run(run_id)
    assert run.status is not RunStatus.RUNNING, run
    await g.history(run_id)
    await g.get_state(run_id)
    await g.replay(run_id)


BAD_DELTAS = {
    "nan": lambda: S(f=math.nan),
    "nan-in-optional": lambda: S(x=math.nan),
    "inf-nested": lambda: S(a={"k": [1.0, math.inf]}),
    "minus-inf-in-list": lambda: S(items=[-math.inf]),
    "deep-220": lambda: S(a=nest(220)),
    "deep-300": lambda: S(a=nest(300)),
    "constructed-invalid-constraint": lambda: S.model_construct(pos=-5),
    "constructed-wrong-type": lambda: S.model_construct(n="not an int"),
    "object": lambda: S(a=object()),
    "invalid-utf8-bytes": lambda: S(a=b"\xff\xfe"),
    "lone-surrogate": lambda: S(a="\ud800"),
    "lone-surrogate-key": lambda: S(a={"\udfff": 1}),
}
"""Deltas that cannot round-trip through the store, by name: each must fail its step and commit nothing."""
