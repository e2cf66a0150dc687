"""Fan-outs over CRDT fields: deltas merge as branches land, and the state is the declared order's.

The engine is told the order at wiring (`spec().merge_order`). The oracle for "identical either
way" is the same graph run with a reducer that hides its field reducers from the engine, so it
merges everything in declared order as before; both runs must store the same bytes.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import pytest
from engine_fixtures import cancel_once_started
from pydantic import BaseModel

from graphengine import (
    Branch,
    Context,
    Engine,
    GCounter,
    GraphValidationError,
    LWWMap,
    LWWRegister,
    NodeResult,
    ORSet,
    PNCounter,
    ReducerError,
    append,
    commutative,
    converge,
    default_reducer,
    fan_out,
    minimum,
    replica_id,
)
from graphengine.store import MemoryStore, Store
from graphengine.testing import assert_replays


class Tally(BaseModel):
    """Every CRDT kind and max/min, beside a plain `item` and an `append` log that do not commute."""

    item: int = 0
    hits: Annotated[GCounter, converge] = GCounter()
    balance: Annotated[PNCounter, converge] = PNCounter()
    seen: Annotated[ORSet[str], converge] = ORSet[str]()
    last: Annotated[LWWRegister[int], converge] = LWWRegister[int]()
    by_parity: Annotated[LWWMap[int], converge] = LWWMap[int]()
    best: Annotated[int, max] = 0
    worst: Annotated[int, minimum] = 1000
    log: Annotated[list[int], append] = []


K = 12


class Reverse:
    """Makes a fan-out's branches land in reverse declared order, by events rather than sleeps:
    branch i returns only once branch i+1 has returned (and so has been merged: the engine
    handles a returned branch before its task yields again)."""

    def __init__(self, k: int) -> None:
        self.landed = [asyncio.Event() for _ in range(k)]

    async def wait_turn(self, i: int) -> None:
        if i + 1 < len(self.landed):
            await self.landed[i + 1].wait()

    def done(self, i: int) -> None:
        self.landed[i].set()


def crdt_delta(ctx: Context, s: Tally) -> Tally:
    """What branch `s.item` writes: only CRDT and max/min fields, updated from its own copy."""
    me = replica_id(ctx)
    i = s.item
    return Tally(
        hits=s.hits.increment(me, i + 1),
        balance=s.balance.add(me, i - 5),
        seen=s.seen.add(f"v{i % 4}", me).add("gone", me).remove("gone"),
        last=s.last.assign(i, ts=ctx.step, replica=me),
        by_parity=s.by_parity.put(str(i % 2), i, ts=i, replica=me),
        best=i * 7 % 11,
        worst=i * 7 % 11,
    )


def graph(
    store: Store, *, log: bool = False, hide_fields: bool = False, order: list[int] | None = None
) -> Engine[Tally]:
    """split -> K map branches (the later the item, the sooner it lands) -> join.

    `log`: branches with an odd item also append to `log` (so their delta does not commute).
    `hide_fields`: the reducer is the default one behind a plain function, so the engine sees no
    commutative field and merges every delta in declared order (the oracle).
    """
    base = default_reducer(Tally)
    assert base is not None
    reducer = (lambda p, d: base(p, d)) if hide_fields else base
    g = Engine(Tally, store=store, reducer=reducer)

    rev = Reverse(K)

    async def work(ctx: Context, s: Tally) -> NodeResult[Tally]:
        await rev.wait_turn(s.item)
        d = crdt_delta(ctx, s)
        if log and s.item % 2:
            d.log = [s.item]
        if order is not None:
            order.append(s.item)
        rev.done(s.item)
        return NodeResult(delta=d)

    def split(ctx: Context, s: Tally) -> NodeResult[Tally]:
        start = Tally(seen=s.seen.add("start", replica_id(ctx)), hits=s.hits.increment(replica_id(ctx)))
        return NodeResult(
            delta=start, route=fan_out((Branch("w", Tally(item=i)) for i in range(K)), join="j")
        )

    g.add("split", split).add("w", work).add("j", lambda c, s: None).start_at("split")
    return g


async def test_spec_tells_the_merge_order_of_the_fields_branches_write() -> None:
    """At wiring, completion order for fields with commutative reducers only, declared order with any other."""
    spec = graph(MemoryStore()).spec()
    crdt_fields = {"hits", "balance", "seen", "last", "by_parity", "best", "worst"}
    assert spec.commuting_fields == crdt_fields
    assert spec.merge_order(crdt_fields) == "completion"
    assert spec.merge_order(["hits", "log"]) == "declared"
    assert spec.merge_order(["item"]) == "declared"
    assert spec.merge_order() == "declared"  # branches that may write any field
    assert graph(MemoryStore(), hide_fields=True).spec().merge_order(["hits"]) == "declared"


async def test_spec_names_a_field_the_state_does_not_have() -> None:
    """Asking about an unknown field is a GraphValidationError naming it."""
    with pytest.raises(GraphValidationError, match="'hitz' is not a field of 'Tally'"):
        graph(MemoryStore()).spec().merge_order(["hitz"])


async def test_a_reducer_commuting_as_a_whole_merges_every_fan_out_in_completion_order() -> None:
    """A whole-state reducer declared @commutative makes every fan-out merge as branches land."""

    @commutative
    def total(prev: dict[str, int], delta: dict[str, int]) -> dict[str, int]:
        return {"n": prev.get("n", 0) + delta.get("n", 0)}

    spec = Engine(dict, reducer=total).spec()
    assert spec.reducer_commutes
    assert spec.merge_order() == "completion"


@pytest.mark.parametrize("log", [False, True], ids=["all-commute", "mixed"])
async def test_completion_order_stores_what_declared_order_stores(store: Store, log: bool) -> None:
    """Branches landing in reverse order give, step by step, the same stored state as the declared-order merge."""
    order: list[int] = []
    fast = graph(store, log=log, order=order)
    oracle = graph(MemoryStore(), log=log, hide_fields=True)
    got = await fast.run("r", Tally())
    want = await oracle.run("r", Tally())
    assert order == list(range(K))[::-1]  # they did land in reverse
    assert got == want
    assert got.model_dump_json() == want.model_dump_json()
    assert got.hits.value == 1 + sum(i + 1 for i in range(K))
    assert got.balance.value == sum(i - 5 for i in range(K))
    assert got.seen.elements == ("start", "v0", "v1", "v2", "v3")
    assert got.by_parity.items() == (("0", 10), ("1", 11))
    assert got.log == ([i for i in range(K) if i % 2] if log else [])
    codec = fast.codec
    mine = [codec.encode(v.state) for v in await fast.history("r")]
    theirs = [codec.encode(v.state) for v in await oracle.history("r")]
    assert mine == theirs


async def test_crdt_state_round_trips_through_the_store(store: Store) -> None:
    """A state holding every CRDT is read back from each store equal, and encodes to the same bytes."""
    g = graph(store)
    final = await g.run("r", Tally())
    again = await g.get_state("r")
    assert again == final
    assert g.codec.encode(again) == g.codec.encode(final)
    assert type(again.seen) is ORSet[str]
    assert isinstance(again.by_parity.entries["0"], LWWRegister)


async def test_non_commutative_fields_keep_declared_order() -> None:
    """A field reducer not declared commutative sees the deltas in declared branch order though they land in reverse."""
    seen: list[int] = []

    def spy(prev: int, delta: int) -> int:
        seen.append(delta)
        return delta

    class S(BaseModel):
        item: int = 0
        v: Annotated[int, spy] = -1

    g = Engine(S)

    rev = Reverse(5)

    async def work(ctx: Context, s: S) -> NodeResult[S]:
        await rev.wait_turn(s.item)
        rev.done(s.item)
        return NodeResult(delta=S(v=s.item))

    g.add(
        "split", lambda c, s: NodeResult(route=fan_out((Branch("w", S(item=i)) for i in range(5)), join="j"))
    )
    g.add("w", work).add("j", lambda c, s: None).start_at("split")
    assert g.spec().merge_order(["v"]) == "declared"
    assert (await g.run("r", S())).v == 4
    assert seen == [0, 1, 2, 3, 4]


async def test_commutative_fields_merge_as_branches_land() -> None:
    """A field reducer declared @commutative sees each delta as its branch lands (here: reverse order)."""
    seen: list[int] = []

    @commutative
    def spy(prev: int, delta: int) -> int:
        seen.append(delta)
        return prev + delta

    class S(BaseModel):
        item: int = 0
        v: Annotated[int, spy] = 0

    g = Engine(S)

    rev = Reverse(5)

    async def work(ctx: Context, s: S) -> NodeResult[S]:
        await rev.wait_turn(s.item)
        rev.done(s.item)
        return NodeResult(delta=S(v=s.item))

    g.add(
        "split", lambda c, s: NodeResult(route=fan_out((Branch("w", S(item=i)) for i in range(5)), join="j"))
    )
    g.add("w", work).add("j", lambda c, s: None).start_at("split")
    assert (await g.run("r", S())).v == 10
    assert seen == [4, 3, 2, 1, 0]


async def test_a_commutative_reducer_that_raises_fails_the_step_with_reducer_error() -> None:
    """A commutative field reducer raising while a branch lands is a ReducerError; nothing of the fan-out is committed."""

    @commutative
    def broken(prev: int, delta: int) -> int:
        raise ValueError(f"cannot merge {delta}")

    class S(BaseModel):
        v: Annotated[int, broken] = 0

    g = Engine(S)
    g.add("split", lambda c, s: NodeResult(route=fan_out(["a", "b"], join="j")))
    g.add("a", lambda c, s: NodeResult(delta=S(v=1))).add("b", lambda c, s: NodeResult(delta=S(v=2)))
    g.add("j", lambda c, s: None).start_at("split")
    with pytest.raises(ReducerError, match="cannot merge 1") as info:
        await g.run("r", S())
    assert isinstance(info.value.__cause__, ValueError)
    assert [v.node_id for v in await g.history("r")] == ["split"]


async def test_resume_after_cancel_merges_stored_and_new_branches_alike() -> None:
    """Cancelled mid fan-out and resumed, a CRDT fan-out ends in the state of an uninterrupted run."""
    store = MemoryStore()
    started = asyncio.Event()
    slow = asyncio.Event()

    async def work(ctx: Context, s: Tally) -> NodeResult[Tally]:
        if s.item >= K // 2 and not slow.is_set():
            started.set()
            await asyncio.Event().wait()  # held until cancelled
        return NodeResult(delta=crdt_delta(ctx, s))

    g = Engine(Tally, store=store)

    def split(ctx: Context, s: Tally) -> NodeResult[Tally]:
        start = Tally(seen=s.seen.add("start", replica_id(ctx)), hits=s.hits.increment(replica_id(ctx)))
        return NodeResult(
            delta=start, route=fan_out((Branch("w", Tally(item=i)) for i in range(K)), join="j")
        )

    g.add("split", split).add("w", work).add("j", lambda c, s: None).start_at("split")
    await cancel_once_started(g, Tally(), started)
    assert 0 < len(await store.load_branches("r", 2)) < K  # some branches landed before the cancel
    slow.set()
    resumed = await g.resume("r")
    want = await graph(MemoryStore(), hide_fields=True).run("r", Tally())
    assert resumed.model_dump_json() == want.model_dump_json()


async def test_a_map_fan_out_repeated_counts_every_round() -> None:
    """Map branches start from their own inputs, not the run's counter; replica ids carry the step,
    so a second round's branches never overwrite the first round's counts."""

    class S(BaseModel):
        rounds: int = 0
        hits: Annotated[GCounter, converge] = GCounter()

    g = Engine(S)
    g.add("split", lambda c, s: NodeResult(route=fan_out((Branch("w", S()) for _ in range(3)), join="j")))
    g.add("w", lambda c, s: NodeResult(delta=S(hits=s.hits.increment(replica_id(c)))))
    g.add("j", lambda c, s: NodeResult(delta=S(rounds=s.rounds + 1)))
    g.start_at("split").connect("j", "split", when=lambda s: s.rounds < 2)
    final = await g.run("r", S())
    assert final.rounds == 2
    assert final.hits.value == 6
    assert sorted(final.hits.counts) == ["w[0]@2", "w[0]@5", "w[1]@2", "w[1]@5", "w[2]@2", "w[2]@5"]


async def test_a_crdt_fan_out_replays_identically() -> None:
    """Replaying a fan-out merged in completion order finds every step as recorded."""
    g = graph(MemoryStore(), log=True)
    await g.run("r", Tally())
    await assert_replays(g, "r")
