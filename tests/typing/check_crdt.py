"""Type-checked by mypy (`make typecheck`), never run: CRDT values and reducers keep their types."""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_type

from graphengine import (
    GCounter,
    LWWMap,
    LWWRegister,
    MergeOrder,
    ORSet,
    PNCounter,
    commutative,
    converge,
)
from graphengine.testing import assert_commutes


def check() -> None:
    assert_type(converge(GCounter(), GCounter().increment("a")), GCounter)
    assert_type(converge(PNCounter(), PNCounter()), PNCounter)
    tags = ORSet[str]().add("x", "a")
    assert_type(tags, ORSet[str])
    assert_type(tags.elements, tuple[str, ...])
    assert_type(converge(tags, tags), ORSet[str])
    reg = LWWRegister[int]().assign(1, ts=1, replica="a")
    assert_type(reg.value, int | None)
    m = LWWMap[float]().put("k", 1.5, ts=1, replica="a")
    assert_type(m.get("k"), float | None)
    assert_type(m.items(), tuple[tuple[str, float], ...])

    @commutative(idempotent=True)
    def union(a: frozenset[int], b: frozenset[int]) -> frozenset[int]:
        return a | b

    assert_type(union(frozenset(), frozenset()), frozenset[int])  # the decorator keeps the signature
    f: Callable[[frozenset[int], frozenset[int]], frozenset[int]] = union
    assert_commutes(union, [frozenset({1})])
    order: MergeOrder = "completion"
    bad: MergeOrder = "random"  # type: ignore[assignment]
    GCounter().increment("a", "1")  # type: ignore[arg-type]
    del order, bad, f
