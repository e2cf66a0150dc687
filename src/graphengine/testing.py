"""Helpers for testing graphs the way graphengine tests its own.

async def test_my_graph_is_deterministic():
    final = await engine.run("t1", State())
    await assert_replays(engine, "t1")

def test_my_reducer_commutes():
    assert_commutes(my_reducer, [sample_a, sample_b, sample_c])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic_core import to_json

from ._replay import ReplayReport
from .commute import is_commutative, is_idempotent
from .engine import Engine

__all__ = ["assert_commutes", "assert_replays"]


async def assert_replays(
    engine: Engine[Any], run_id: str, *, allow_graph_change: bool = False
) -> ReplayReport:
    """Replay `run_id` and fail with the divergence report unless every step replays identically."""
    report = await engine.replay(run_id, allow_graph_change=allow_graph_change)
    if not report.ok:
        raise AssertionError(str(report))
    return report


def _encoded(value: Any) -> bytes | None:
    try:
        return to_json(value)
    except Exception:  # not JSON-encodable: compared with == only
        return None


def _same(x: Any, y: Any) -> bool:
    # Equal and, where they encode, encoded to the same bytes: a store keeps the bytes, so a
    # merge that yields equal dicts in another key order would still make runs differ.
    return bool(x == y) and _encoded(x) == _encoded(y)


def assert_commutes(
    reducer: Callable[[Any, Any], Any], samples: Iterable[Any], *, idempotent: bool | None = None
) -> None:
    """Fail unless `reducer` merges every pair of `samples` the same in either order.

    Checks, for all `s`, `a`, `b` in `samples`: `r(a, b) == r(b, a)` and
    `r(r(s, a), b) == r(r(s, b), a)` (the fold a fan-out makes, in both completion orders), and
    with `idempotent` (default: what the reducer declares, see `graphengine.commute`)
    `r(r(s, a), a) == r(s, a)`. Equal means `==` and, for values pydantic encodes, the same JSON
    bytes. Raises `AssertionError` naming the values that disagree; use it on a reducer declared
    `@commutative` before trusting the engine to merge its branches in completion order.
    """
    values = list(samples)
    if not values:
        raise ValueError("assert_commutes: give at least one sample")
    check_idem = is_idempotent(reducer) if idempotent is None else idempotent
    name = getattr(reducer, "__qualname__", repr(reducer))
    claim = " (declared commutative)" if is_commutative(reducer) else ""
    for a in values:
        if check_idem:
            for s in values:
                once = reducer(s, a)
                twice = reducer(once, a)
                if not _same(once, twice):
                    raise AssertionError(
                        f"{name} is not idempotent: merging {a!r} into {s!r} gives {once!r}, "
                        f"merging it again gives {twice!r}"
                    )
        for b in values:
            ab, ba = reducer(a, b), reducer(b, a)
            if not _same(ab, ba):
                raise AssertionError(
                    f"{name}{claim} does not commute: r({a!r}, {b!r}) = {ab!r} but r({b!r}, {a!r}) = {ba!r}"
                )
            for s in values:
                sab, sba = reducer(reducer(s, a), b), reducer(reducer(s, b), a)
                if not _same(sab, sba):
                    raise AssertionError(
                        f"{name}{claim} does not commute: from {s!r}, merging {a!r} then {b!r} "
                        f"gives {sab!r}, {b!r} then {a!r} gives {sba!r}"
                    )
