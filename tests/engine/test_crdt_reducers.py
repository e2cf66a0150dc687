"""CRDT reducers: any order and any duplication of branch deltas give the same state.

Each property starts from a base value, lets K branches each apply random operations to their own
copy of it (as fan-out branches do, each with its own replica id), and folds the branch results
into the base in declared order, then in a random order with random re-deliveries. Both must be
equal and encode to the same bytes; and the value must be what a brute-force model of the
operations, written here without the CRDTs, says it is.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic_core import to_json

from graphengine import (
    GCounter,
    LWWMap,
    LWWRegister,
    ORSet,
    PNCounter,
    commutative,
    converge,
    default_reducer,
    is_commutative,
    is_idempotent,
    maximum,
    minimum,
)
from graphengine.testing import assert_commutes

Op = tuple[Any, ...]

# ------------------------------------------------------------------------------------ helpers


def fold(reducer: Callable[[Any, Any], Any], base: Any, deltas: Sequence[Any]) -> Any:
    out = base
    for d in deltas:
        out = reducer(out, d)
    return out


@st.composite
def deliveries(draw: st.DrawFn, k: int) -> list[int]:
    """Branch indexes 0..k-1, each at least once, some again, in a random order (at-least-once delivery)."""
    extra = draw(st.lists(st.integers(0, k - 1), max_size=k)) if k else []
    return list(draw(st.permutations([*range(k), *extra])))


def assert_order_free(
    reducer: Callable[[Any, Any], Any], base: Any, deltas: list[Any], order: list[int]
) -> Any:
    declared = fold(reducer, base, deltas)
    shuffled = fold(reducer, base, [deltas[i] for i in order])
    assert shuffled == declared
    assert to_json(shuffled) == to_json(declared)
    return declared


# ------------------------------------------------------------------------------------ counters

counts = st.lists(st.integers(0, 5), max_size=4)


@settings(max_examples=150, deadline=None)
@given(base_incs=counts, branches=st.lists(counts, max_size=6), data=st.data())
def test_gcounter_merges_alike_in_any_order_and_duplication(
    base_incs: list[int], branches: list[list[int]], data: st.DataObject
) -> None:
    """GCounter branch results merge to the same counter in any order, each counted once however often it arrives."""
    base = GCounter()
    for n in base_incs:
        base = base.increment("split", n)
    deltas = []
    for i, incs in enumerate(branches):
        mine = base
        for n in incs:
            mine = mine.increment(f"b{i}", n)
        deltas.append(mine)
    merged = assert_order_free(converge, base, deltas, data.draw(deliveries(len(deltas))))
    assert merged.value == sum(base_incs) + sum(sum(b) for b in branches)


@settings(max_examples=150, deadline=None)
@given(
    base_adds=st.lists(st.integers(-5, 5), max_size=4),
    branches=st.lists(st.lists(st.integers(-5, 5), max_size=4), max_size=6),
    data=st.data(),
)
def test_pncounter_merges_alike_in_any_order_and_duplication(
    base_adds: list[int], branches: list[list[int]], data: st.DataObject
) -> None:
    """PNCounter branch results merge to the same counter in any order and duplication; the value is the sum of all adds."""
    base = PNCounter()
    for n in base_adds:
        base = base.add("split", n)
    deltas = []
    for i, adds in enumerate(branches):
        mine = base
        for n in adds:
            mine = mine.add(f"b{i}", n)
        deltas.append(mine)
    merged = assert_order_free(converge, base, deltas, data.draw(deliveries(len(deltas))))
    assert merged.value == sum(base_adds) + sum(sum(b) for b in branches)


# ------------------------------------------------------------------------------------ ORSet

set_ops = st.lists(st.tuples(st.sampled_from(["add", "remove"]), st.integers(0, 4)), max_size=6)


def apply_set(s: ORSet[int], ops: list[Op], replica: str) -> ORSet[int]:
    for kind, x in ops:
        s = s.add(x, replica) if kind == "add" else s.remove(x)
    return s


@settings(max_examples=200, deadline=None)
@given(base_ops=set_ops, branches=st.lists(set_ops, max_size=5), data=st.data())
def test_orset_merges_alike_in_any_order_and_duplication(
    base_ops: list[Op], branches: list[list[Op]], data: st.DataObject
) -> None:
    """ORSet branch results merge alike in any order and duplication; an add wins over a concurrent remove."""
    base = apply_set(ORSet[int](), base_ops, "split")
    deltas = [apply_set(base, ops, f"b{i}") for i, ops in enumerate(branches)]
    merged = assert_order_free(converge, base, deltas, data.draw(deliveries(len(deltas))))
    # The model: x is in if a branch's last operation on it was an add (its own add, seen by no
    # other branch's remove), or x was in the base and no branch removed it.
    before = set(base.elements)
    expected = set()
    for x in range(5):
        last = [[kind for kind, y in ops if y == x] for ops in branches]
        added_last = any(kinds and kinds[-1] == "add" for kinds in last)
        kept = x in before and not any("remove" in kinds for kinds in last)
        if added_last or kept:
            expected.add(x)
    assert set(merged.elements) == expected
    assert all((x in merged) == (x in expected) for x in range(5))
    assert len(merged) == len(expected)


def test_orset_re_adding_in_a_retried_branch_makes_the_same_tag() -> None:
    """A branch that runs again from the same state adds with the same tag, so its two results are one."""
    base = ORSet[str]().add("a", "split")
    first = base.add("b", "w[0]")
    again = base.add("b", "w[0]")
    assert first == again
    assert converge(converge(base, first), again) == first


# ------------------------------------------------------------------------------------ LWW

writes = st.lists(st.tuples(st.integers(0, 3), st.integers(-3, 3)), max_size=4)


@settings(max_examples=150, deadline=None)
@given(branches=st.lists(writes, max_size=6), data=st.data())
def test_lww_register_merges_alike_and_keeps_the_latest_stamp(
    branches: list[list[tuple[int, int]]], data: st.DataObject
) -> None:
    """LWWRegister results merge alike in any order; the write with the greatest (ts, replica) wins."""
    base = LWWRegister[int]().assign(0, ts=1, replica="split")
    deltas = []
    stamped = [(1, "split", 0)]
    for i, ws in enumerate(branches):
        mine = base
        for ts, v in ws:
            mine = mine.assign(v, ts=ts, replica=f"b{i}")
            stamped.append((ts, f"b{i}", v))
        deltas.append(mine)
    merged = assert_order_free(converge, base, deltas, data.draw(deliveries(len(deltas))))
    # Brute force over every write; the same replica at the same ts: the larger value's JSON wins.
    ts, replica, value = max(stamped, key=lambda w: (w[0], w[1], to_json(w[2])))
    assert (merged.ts, merged.replica, merged.value) == (ts, replica, value)


map_ops = st.lists(
    st.tuples(
        st.sampled_from(["put", "remove"]), st.sampled_from("xyz"), st.integers(0, 3), st.integers(0, 9)
    ),
    max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(branches=st.lists(map_ops, max_size=5), data=st.data())
def test_lww_map_merges_alike_key_by_key(branches: list[list[Op]], data: st.DataObject) -> None:
    """LWWMap results merge alike in any order; per key the latest write (a put or a remove) wins."""
    base = LWWMap[int]().put("x", 100, ts=0, replica="split")
    deltas = []
    stamped: dict[str, list[tuple[int, str, int | None]]] = {"x": [(0, "split", 100)]}
    for i, ops in enumerate(branches):
        mine = base
        for kind, key, ts, v in ops:
            value = v if kind == "put" else None
            mine = (
                mine.put(key, v, ts=ts, replica=f"b{i}")
                if kind == "put"
                else mine.remove(key, ts=ts, replica=f"b{i}")
            )
            stamped.setdefault(key, []).append((ts, f"b{i}", value))
        deltas.append(mine)
    merged = assert_order_free(converge, base, deltas, data.draw(deliveries(len(deltas))))
    expected = {}
    for key, ws in stamped.items():
        last = max(ws, key=lambda w: (w[0], w[1], to_json(w[2])))
        if last[2] is not None:
            expected[key] = last[2]
    assert dict(merged.items()) == expected
    assert all(merged.get(k) == expected.get(k) for k in "xyz")


def test_lww_register_ignores_an_older_write() -> None:
    """A write stamped before the current one leaves the register as it was."""
    reg = LWWRegister[str]().assign("new", ts=5, replica="a")
    assert reg.assign("old", ts=4, replica="z") == reg


def test_lww_register_refuses_a_non_finite_stamp() -> None:
    """A NaN or infinite ts (no total order) is refused when the register is built."""
    with pytest.raises(ValueError, match="ts"):
        LWWRegister[int](value=1, ts=float("nan"), replica="a")


# ------------------------------------------------------------------------------------ max, min


@settings(max_examples=100, deadline=None)
@given(base=st.integers(), deltas=st.lists(st.integers(), max_size=8), data=st.data())
@pytest.mark.parametrize("reducer", [max, min, maximum, minimum])
def test_max_and_min_merge_alike_in_any_order_and_duplication(
    reducer: Callable[[int, int], int], base: int, deltas: list[int], data: st.DataObject
) -> None:
    """max and min (builtin or ours) fold branch values to the same result in any order and duplication."""
    merged = assert_order_free(reducer, base, deltas, data.draw(deliveries(len(deltas))))
    assert merged == (max if reducer in (max, maximum) else min)([base, *deltas])


# ------------------------------------------------------------------------------------ declarations


def test_which_reducers_declare_they_commute() -> None:
    """converge, the CRDTs' merges, max and min commute and are idempotent; append-like and add are not declared."""
    declared: tuple[Callable[..., Any], ...] = (
        converge,
        max,
        min,
        maximum,
        minimum,
        GCounter.merge,
        PNCounter.merge,
        ORSet.merge,
        LWWRegister.merge,
        LWWMap.merge,
    )
    for r in declared:
        assert is_commutative(r) and is_idempotent(r), r
    undeclared: tuple[Callable[..., Any], ...] = (operator.add, operator.or_, sorted, lambda a, b: a)
    for r in undeclared:
        assert not is_commutative(r) and not is_idempotent(r), r


def test_commutative_marks_a_reducer_and_returns_it() -> None:
    """@commutative declares order-insensitivity; idempotence only when asked for."""

    def add(a: int, b: int) -> int:
        return a + b

    assert commutative(add) is add
    assert is_commutative(add) and not is_idempotent(add)
    union = commutative(idempotent=True)(lambda a, b: a | b)
    assert is_commutative(union) and is_idempotent(union)


def test_converge_names_both_types_when_they_differ() -> None:
    """Merging a PNCounter into a GCounter is a TypeError naming both."""
    with pytest.raises(TypeError, match="PNCounter into a GCounter"):
        converge(GCounter(), PNCounter())


def test_gcounter_refuses_counting_down() -> None:
    """A negative increment is a ValueError that points to PNCounter."""
    with pytest.raises(ValueError, match="PNCounter"):
        GCounter().increment("a", -1)


# ------------------------------------------------------------------------------------ assert_commutes


CRDT_SAMPLES: list[list[Any]] = [
    [GCounter(), GCounter().increment("a", 2), GCounter().increment("b").increment("a")],
    [PNCounter(), PNCounter().add("a", -2), PNCounter().add("b", 3)],
    [ORSet[int](), ORSet[int]().add(1, "a"), ORSet[int]().add(1, "a").remove(1), ORSet[int]().add(2, "b")],
    [
        LWWRegister[int](),
        LWWRegister[int]().assign(1, ts=1, replica="a"),
        LWWRegister[int]().assign(2, ts=1, replica="b"),
    ],
    [
        LWWMap[int](),
        LWWMap[int]().put("k", 1, ts=1, replica="a"),
        LWWMap[int]().remove("k", ts=2, replica="b"),
    ],
]


@pytest.mark.parametrize("samples", CRDT_SAMPLES, ids=lambda s: type(s[0]).__name__)
def test_assert_commutes_passes_every_crdt(samples: list[Any]) -> None:
    """converge passes the checker, idempotence included, on samples of each CRDT."""
    assert_commutes(converge, samples)


def test_assert_commutes_catches_a_false_claim() -> None:
    """A reducer declared commutative that concatenates is caught, the values named."""
    concat = commutative(lambda a, b: a + b)
    with pytest.raises(AssertionError, match=r"declared commutative\) does not commute.*'x'"):
        assert_commutes(concat, ["x", "y"])


def test_assert_commutes_catches_a_duplicate_counted_twice() -> None:
    """Addition commutes but is not idempotent: the checker says so when idempotence is asked for."""
    assert_commutes(operator.add, [0, 1, 2])
    with pytest.raises(AssertionError, match="not idempotent"):
        assert_commutes(operator.add, [0, 1, 2], idempotent=True)


def test_assert_commutes_catches_equal_values_that_encode_differently() -> None:
    """A merge whose results are equal but differ in key order would store different bytes: caught."""
    union = commutative(lambda a, b: {**a, **b})
    with pytest.raises(AssertionError, match="does not commute"):
        assert_commutes(union, [{"a": 1}, {"b": 2}])


# ------------------------------------------------------------------------------------ whole state


class Fields(BaseModel):
    """A state whose fields all commute, merged by its default reducer."""

    hits: Annotated[GCounter, converge] = GCounter()
    tags: Annotated[ORSet[int], converge] = ORSet[int]()
    hi: Annotated[int, maximum] = 0
    lo: Annotated[int, min] = 0


@settings(max_examples=150, deadline=None)
@given(
    writes=st.lists(
        st.tuples(st.sets(st.sampled_from(["hits", "tags", "hi", "lo"])), st.integers(0, 9)), max_size=6
    ),
    data=st.data(),
)
def test_default_reducer_over_commuting_fields_merges_alike_in_any_order(
    writes: list[tuple[set[str], int]], data: st.DataObject
) -> None:
    """Deltas setting any subset of commuting fields fold (one by one, or all at once as a join does)
    to the same state, byte for byte, in any order and with re-deliveries."""
    reducer = default_reducer(Fields)
    assert reducer is not None
    base = Fields(hi=3, lo=3)
    deltas = []
    for i, (fields, v) in enumerate(writes):
        me = f"b{i}"
        full = {"hits": base.hits.increment(me, v), "tags": base.tags.add(v, me), "hi": v, "lo": v}
        deltas.append(Fields(**{f: full[f] for f in fields}))
    declared = reducer.many(base, deltas) if deltas else base  # type: ignore[attr-defined]
    shuffled = fold(reducer, base, [deltas[i] for i in data.draw(deliveries(len(deltas)))])
    assert shuffled == declared
    assert to_json(shuffled) == to_json(declared)
    assert shuffled.model_fields_set == declared.model_fields_set


def test_the_crdt_module_docstring_example_runs() -> None:
    """The example in `graphengine.crdt`'s docstring runs as written."""
    import doctest

    import graphengine.crdt

    result = doctest.testmod(graphengine.crdt)
    assert result.attempted > 0 and result.failed == 0
