"""The engine's core behaviour: the seed loop, routing, reducers, limits, resume and history."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from engine_fixtures import Doc, S, check, flaky, inc, seed_engine
from pydantic import BaseModel
from typing_extensions import TypedDict

from graphengine import (
    Context,
    Engine,
    MaxStepsExceeded,
    NodeError,
    NodeResult,
    NodeTimeoutError,
    Options,
    append,
    goto,
    stop,
)
from graphengine.emit import EventKind, MemoryEmitter
from graphengine.store import MemoryStore, RunStatus, Store


async def test_seed_loop_counts_to_three(store: Store) -> None:
    """The seed's inc/check loop stops with n == 3 after six steps."""
    g = seed_engine(store)
    final = await g.run("t1", S())
    assert final == S(n=3)
    steps = await g.history("t1")
    assert [s.node_id for s in steps] == ["inc", "check"] * 3
    assert [s.state.n for s in steps] == [1, 1, 2, 2, 3, 3]
    assert steps[-1].route == stop()
    assert (await g.get_run("t1")).status is RunStatus.DONE


def test_run_sync_works_without_an_event_loop() -> None:
    """run_sync drives the same loop for non-async callers."""
    assert seed_engine().run_sync("t1", S()) == S(n=3)


async def test_node_objects_with_run_methods_are_nodes(store: Store) -> None:
    """Objects with a sync or async run method work like functions."""

    class Inc:
        async def run(self, ctx: Context, s: S) -> NodeResult[S]:
            return NodeResult(delta=S(n=s.n + 1))

    class Check:
        def run(self, ctx: Context, s: S) -> NodeResult[S]:
            return check(ctx, s)

    g = Engine(S, store=store)
    g.add("inc", Inc()).add("check", Check()).start_at("inc").connect("inc", "check")
    assert await g.run("r", S()) == S(n=3)


async def test_initial_state_may_be_a_dict(store: Store) -> None:
    """A mapping is validated into the state type."""
    assert await seed_engine(store).run("r", {"n": 1}) == S(n=3)


async def test_edge_predicates_are_tried_in_declaration_order(store: Store) -> None:
    """The first edge whose predicate holds wins; when none holds the run stops."""
    seen: list[str] = []

    def mark(name: str) -> Any:
        def fn(ctx: Context, s: S) -> NodeResult[S]:
            seen.append(name)
            return NodeResult(delta=S(n=s.n + 1))

        return fn

    g = Engine(S, store=store)
    for name in ("a", "big", "small", "other"):
        g.add(name, mark(name))
    g.start_at("a")
    g.connect("a", "big", when=lambda s: s.n > 5)
    g.connect("a", "small", when=lambda s: s.n > 0)
    g.connect("a", "other")
    g.connect("small", "a", when=lambda s: s.n < 4)
    final = await g.run("r", S())
    assert seen == ["a", "small", "a", "small"]
    assert final.n == 4


async def test_max_steps_raises_and_keeps_committed_steps(store: Store) -> None:
    """A loop that never stops ends with MaxStepsExceeded, the run marked failed, steps kept."""
    g = Engine(S, store=store, options=Options(max_steps=5))
    g.add("spin", inc).start_at("spin").connect("spin", "spin")
    with pytest.raises(MaxStepsExceeded, match="max_steps=5") as ei:
        await g.run("r", S())
    assert ei.value.run_id == "r"
    assert ei.value.node_id == "spin"
    assert len(await g.history("r")) == 5
    rec = await g.get_run("r")
    assert rec.status is RunStatus.FAILED
    assert rec.error is not None and "MaxStepsExceeded" in rec.error
    assert await g.get_state("r") == S(n=5)


async def test_resume_after_failure_matches_uninterrupted_run(store: Store) -> None:
    """A node that raises at step k is fixed and resumed: same final state, committed steps not re-run."""
    calls: list[int] = []
    broken = {"on": True}

    async def work(ctx: Context, s: S) -> NodeResult[S]:
        calls.append(ctx.step)
        if ctx.step == 5 and broken["on"]:
            raise RuntimeError("flaky dependency")
        return NodeResult(delta=S(n=s.n + 1), route=stop() if s.n + 1 >= 8 else goto("work"))

    def build(st: Store) -> Engine[S]:
        return Engine(S, store=st, options=Options(snapshot_every=3)).add("work", work).start_at("work")

    g = build(store)
    with pytest.raises(NodeError, match="flaky dependency") as ei:
        await g.run("r", S())
    assert (ei.value.step, ei.value.node_id) == (5, "work")
    assert (await g.get_run("r")).status is RunStatus.FAILED
    assert await g.get_state("r") == S(n=4)
    broken["on"] = False
    calls.clear()
    final = await g.resume("r")
    assert calls == [5, 6, 7, 8]
    assert final == S(n=8)

    reference = await build(MemoryStore()).run("ref", S())
    assert final == reference
    ours = [(v.step, v.node_id, v.delta, v.state, v.route) for v in await g.history("r")]
    assert len(ours) == 8
    assert [v.state.n for v in await g.history("r")] == list(range(1, 9))


async def test_resume_of_a_finished_run_runs_nothing(store: Store) -> None:
    """Resuming a done run returns its final state without executing a node."""
    g = seed_engine(store)
    await g.run("t1", S())
    ran: list[str] = []

    async def spy(ctx: Context, s: S) -> NodeResult[S]:
        ran.append(ctx.node_id)
        return NodeResult()

    again = seed_engine(store)
    assert await again.resume("t1") == S(n=3)
    assert ran == []
    assert len(await again.history("t1")) == 6


async def test_state_is_rebuilt_across_snapshots(store: Store) -> None:
    """get_state folds deltas over the newest snapshot; it equals the live state at every length."""
    g = Engine(Doc, store=store, options=Options(snapshot_every=4, max_steps=50))

    async def add_item(ctx: Context, d: Doc) -> NodeResult[Doc]:
        nxt = stop() if ctx.step >= 11 else goto("add")
        return NodeResult(delta=Doc(items=[f"i{ctx.step}"], total=ctx.step), route=nxt)

    g.add("add", add_item).start_at("add")
    final = await g.run("r", Doc())
    assert final.items == [f"i{k}" for k in range(1, 12)]
    assert final.total == sum(range(1, 12))
    assert await g.get_state("r") == final
    history = await g.history("r")
    assert [h.state.items[-1] for h in history] == [f"i{k}" for k in range(1, 12)]


async def test_concurrent_runs_share_one_engine(store: Store) -> None:
    """Many runs of one engine proceed concurrently without seeing each other."""
    g = seed_engine(store)
    finals = await asyncio.gather(*(g.run(f"r{i}", S(n=i % 3)) for i in range(20)))
    assert all(f == S(n=3) for f in finals)
    assert len(await store.list_runs(limit=100)) == 20


async def test_retries_apply_then_succeed(store: Store) -> None:
    """A node that fails twice and then succeeds is retried; the step records its attempts."""
    em = MemoryEmitter()
    g = Engine(S, store=store, emitter=em, options=Options(retries=2, backoff=0.001))
    g.add("shaky", flaky(2, lambda attempt: S(n=attempt))).start_at("shaky")
    assert await g.run("r", S()) == S(n=3)
    (only,) = await g.history("r")
    assert only.attempt == 3
    assert len(em.of_kind(EventKind.RETRY)) == 2


async def test_retries_exhausted_raise_node_error(store: Store) -> None:
    """When every attempt fails, NodeError names the node, step and attempts, with the cause chained."""

    async def bad(ctx: Context, s: S) -> NodeResult[S]:
        raise ValueError("nope")

    g = Engine(S, store=store).add("bad", bad, retries=1).start_at("bad")
    with pytest.raises(NodeError) as ei:
        await g.run("r", S())
    assert ei.value.attempts == 2
    assert isinstance(ei.value.__cause__, ValueError)
    assert "resume('r')" in str(ei.value)


async def test_err_in_result_counts_as_failure(store: Store) -> None:
    """A NodeResult with err set is handled like a raised exception."""
    g = Engine(S, store=store)
    g.add("x", lambda ctx, s: NodeResult(err=LookupError("missing"))).start_at("x")
    with pytest.raises(NodeError, match="missing"):
        await g.run("r", S())


async def test_timeout_raises_node_timeout_error(store: Store) -> None:
    """A node slower than its timeout fails with NodeTimeoutError."""

    async def slow(ctx: Context, s: S) -> NodeResult[S]:
        await asyncio.sleep(10)
        return NodeResult()

    g = Engine(S, store=store).add("slow", slow, timeout=0.01).start_at("slow")
    with pytest.raises(NodeTimeoutError, match="timed out"):
        await g.run("r", S())


async def test_backoff_is_deterministic() -> None:
    """Retry delays depend only on seed, run, step and attempt."""
    from graphengine._attempts import backoff

    g = Engine(S, options=Options(backoff=1.0, seed=7)).add("a", inc).start_at("a")
    node = g._graph()[0].nodes["a"]
    d1 = [backoff(g, node, "r", 3, k) for k in (1, 2, 3)]
    d2 = [backoff(g, node, "r", 3, k) for k in (1, 2, 3)]
    assert d1 == d2
    assert 0.5 <= d1[0] < 1.0 and 1.0 <= d1[1] < 2.0 and 2.0 <= d1[2] < 4.0


async def test_events_cover_the_run_lifecycle(store: Store) -> None:
    """run start/end and node start/end are emitted in order, with node ids and steps."""
    em = MemoryEmitter()
    g = seed_engine(store, emitter=em)
    await g.run("t1", S())
    kinds = em.kinds()
    assert kinds[0] == "run_start" and kinds[-1] == "run_end"
    assert kinds[1:-1] == ["node_start", "node_end"] * 6
    ends = em.of_kind(EventKind.NODE_END)
    assert [(e.step, e.node_id) for e in ends] == [(k, "inc" if k % 2 else "check") for k in range(1, 7)]


async def test_errors_are_emitted(store: Store) -> None:
    """A failing node produces an error event naming it."""

    async def bad(ctx: Context, s: S) -> NodeResult[S]:
        raise RuntimeError("boom")

    em = MemoryEmitter()
    g = Engine(S, store=store, emitter=em).add("bad", bad).start_at("bad")
    with pytest.raises(NodeError):
        await g.run("r", S())
    (err,) = em.of_kind(EventKind.ERROR)
    assert err.node_id == "bad" and "boom" in err.msg


async def test_a_raising_emitter_never_breaks_a_run(store: Store, caplog: pytest.LogCaptureFixture) -> None:
    """An emitter that raises on every event is logged and the run completes."""

    class Broken:
        def emit(self, event: Any) -> None:
            raise OSError("disk full")

    g = seed_engine(store, emitter=Broken())
    assert await g.run("t1", S()) == S(n=3)
    assert "disk full" in caplog.text


async def test_node_events_and_ctx_emit_reach_the_emitter(store: Store) -> None:
    """Events a node returns or emits through its context are delivered."""
    from graphengine.emit import Event

    async def talk(ctx: Context, s: S) -> NodeResult[S]:
        ctx.emit("thinking", {"k": 1})
        return NodeResult(events=[Event(ctx.run_id, ctx.step, ctx.node_id, "said")])

    em = MemoryEmitter()
    g = Engine(S, store=store, emitter=em).add("talk", talk).start_at("talk")
    await g.run("r", S())
    assert [e.msg for e in em.of_kind(EventKind.CUSTOM)] == ["thinking", "said"]


async def test_checkpoints_save_and_load_by_label(store: Store) -> None:
    """A labelled checkpoint keeps the state at the step it was taken."""
    g = seed_engine(store)
    await g.run("t1", S())
    assert await g.checkpoint("t1", "end") == 6
    assert await g.load_checkpoint("t1", "end") == S(n=3)


def test_default_reducer_merges_only_set_fields_with_field_reducers() -> None:
    """Unset fields keep their value; annotated fields merge with their reducer."""
    from graphengine import default_reducer

    r = default_reducer(Doc)
    assert r is not None
    prev = Doc(items=["a"], total=2, label="x")
    out = r(prev, Doc(items=["b"], total=3))
    assert out == Doc(items=["a", "b"], total=5, label="x")
    assert prev == Doc(items=["a"], total=2, label="x")
    assert r(prev, Doc()) is prev


async def test_typed_dict_states_merge_key_by_key() -> None:
    """TypedDict states work with the default reducer and per-key reducers."""

    class TD(TypedDict):
        log: Annotated[list[str], append]
        n: int

    async def step(ctx: Context, s: TD) -> NodeResult[TD]:
        return NodeResult(
            delta={"log": [f"s{ctx.step}"], "n": s["n"] + 1},  # type: ignore[typeddict-item]
            route=stop() if s["n"] >= 2 else goto("step"),
        )

    g: Engine[TD] = Engine(TD).add("step", step).start_at("step")
    assert await g.run("r", {"log": [], "n": 0}) == {"log": ["s1", "s2", "s3"], "n": 3}


async def test_models_with_extra_fields_merge_correctly() -> None:
    """Models that allow extra fields merge their extras too (through model_copy)."""
    from pydantic import ConfigDict

    class Extra(BaseModel):
        model_config = ConfigDict(extra="allow")
        n: int = 0

    g = Engine(Extra).add("a", lambda c, s: NodeResult(delta=Extra(n=5, note="x"))).start_at("a")
    out = await g.run("r", Extra())
    assert out.n == 5
    assert out.model_extra == {"note": "x"}


def test_batched_merge_equals_merging_one_delta_after_another() -> None:
    """The default reducer's many() (used to merge fan-out branches) gives the sequential result."""
    import operator

    from graphengine import default_reducer

    class M(BaseModel):
        items: Annotated[list[int], append] = []
        total: Annotated[int, operator.add] = 0
        last: str = ""

    r = default_reducer(M)
    assert r is not None
    prev = M(items=[0], total=1, last="p")
    deltas = [M(items=[1, 2], total=2), M(last="x"), M(items=[3], last="y"), M(total=5)]
    seq = prev
    for d in deltas:
        seq = r(seq, d)
    assert r.many(prev, deltas) == seq  # type: ignore[attr-defined]
    assert r.many(prev, deltas).model_fields_set == seq.model_fields_set  # type: ignore[attr-defined]
    assert prev == M(items=[0], total=1, last="p")
