"""Adversarial probes of the engine's step, on every store backend.

Nothing unreadable is ever committed (NaN, nesting too deep, values that do not validate, objects
JSON cannot hold); every failure inside a step reaches the caller typed, naming run, step and
node, with the run left `failed` and readable; fan-out branches and history views share no state.
The oracle for "readable" is the engine's own read side (`history`, `replay`, `get_state`) and the
values the test put in.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import uuid
from typing import Any

import pytest
from engine_probes import BAD_DELTAS, S, assert_readable, nest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphengine import (
    Branch,
    Context,
    EncodeError,
    Engine,
    GraphError,
    GraphValidationError,
    MigrationError,
    NodeResult,
    NodeReturnTypeError,
    Options,
    ReducerError,
    RoutingError,
    StateValidationError,
    fan_out,
    goto,
    interrupt,
    stop,
)
from graphengine.emit import Event, MemoryEmitter
from graphengine.store import CorruptRecordError, MemoryStore, RunRecord, RunStatus, Store


def two_steps(store: Store, bad: Any, **kw: Any) -> Engine[S]:
    """`ok` (n=1) then `bad`, which returns `bad()` as its result."""

    async def ok(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=1), route=goto("bad"))

    async def bad_node(ctx: Context, s: S) -> NodeResult[S]:
        return bad()  # type: ignore[no-any-return]

    return Engine(S, store=store, **kw).add("ok", ok).add("bad", bad_node).start_at("ok")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", sorted(BAD_DELTAS))
async def test_a_delta_that_does_not_read_back_fails_the_step_and_commits_nothing(
    store: Store, case: str
) -> None:
    """A delta that cannot round-trip raises EncodeError naming run/step/node; the run is failed and readable."""
    make = BAD_DELTAS[case]
    g = two_steps(store, lambda: NodeResult(delta=make()))
    with pytest.raises(EncodeError) as ei:
        await g.run("r", S())
    err = ei.value
    assert (err.run_id, err.step, err.node_id, err.field) == ("r", 2, "bad", "delta")
    run = await g.get_run("r")
    assert run.status is RunStatus.FAILED and run.error_node == "bad"
    steps = await g.history("r")
    assert [s.step for s in steps] == [1]
    assert (await g.get_state("r")).n == 1
    assert (await g.replay("r")).ok


async def test_a_snapshot_that_does_not_read_back_fails_the_step(store: Store) -> None:
    """A reducer that builds an invalid state is caught when the state is encoded; nothing committed."""

    def reducer(prev: S, delta: S) -> S:
        return S.model_construct(**{**prev.__dict__, "f": math.nan})

    async def node(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=1))

    g = Engine(S, store=store, reducer=reducer).add("a", node).start_at("a")
    with pytest.raises(EncodeError) as ei:
        await g.run("r", S())
    assert ei.value.field == "state" and ei.value.step == 1
    assert (await g.get_run("r")).status is RunStatus.FAILED
    assert await g.history("r") == []


async def test_a_reducer_that_raises_fails_the_run_and_resumes_after_a_fix(store: Store) -> None:
    """A raising reducer gives ReducerError (run, step, node), status failed; resume after the fix finishes."""
    broken = [True]

    def reducer(prev: S, delta: S) -> S:
        if broken[0] and delta.n == 2:
            raise ZeroDivisionError("boom")
        return prev.model_copy(update={"n": delta.n})

    async def step(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=s.n + 1), route=goto("step") if s.n < 2 else stop())

    g = Engine(S, store=store, reducer=reducer).add("step", step).start_at("step")
    with pytest.raises(ReducerError) as ei:
        await g.run("r", S())
    assert (ei.value.run_id, ei.value.step, ei.value.node_id) == ("r", 2, "step")
    assert isinstance(ei.value.__cause__, ZeroDivisionError)
    assert (await g.get_run("r")).status is RunStatus.FAILED
    await assert_readable(g, "r")
    broken[0] = False
    assert (await g.resume("r")).n == 3
    assert (await g.get_run("r")).status is RunStatus.DONE


async def test_a_route_that_is_not_a_next_is_a_typed_failure(store: Store) -> None:
    """`NodeResult(route="b")` raises NodeReturnTypeError naming the node; the run is failed."""
    g = two_steps(store, lambda: NodeResult(route="b"))
    with pytest.raises(NodeReturnTypeError, match="route of type str") as ei:
        await g.run("r", S())
    assert (ei.value.step, ei.value.node_id) == (2, "bad")
    await assert_readable(g, "r")
    assert (await g.get_run("r")).status is RunStatus.FAILED


async def test_an_edge_predicate_that_raises_is_a_routing_error(store: Store) -> None:
    """A raising `when=` gives RoutingError with run/step/node and the run failed."""

    async def a(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=1))

    async def b(ctx: Context, s: S) -> None:
        return None

    g = Engine(S, store=store).add("a", a).add("b", b).start_at("a")
    g.connect("a", "b", when=lambda s: 1 / 0 > 0)
    with pytest.raises(RoutingError) as ei:
        await g.run("r", S())
    assert (ei.value.run_id, ei.value.step, ei.value.node_id) == ("r", 1, "a")
    assert isinstance(ei.value.__cause__, ZeroDivisionError)
    await assert_readable(g, "r")
    assert (await g.get_run("r")).status is RunStatus.FAILED


async def test_events_that_are_not_events_are_a_typed_failure(store: Store) -> None:
    """NodeResult.events holding something else than Event raises NodeReturnTypeError; run failed."""
    g = two_steps(store, lambda: NodeResult(events=["not an event"]))  # type: ignore[list-item]
    with pytest.raises(NodeReturnTypeError):
        await g.run("r", S())
    await assert_readable(g, "r")


@pytest.mark.parametrize(
    "payload", [math.nan, "\ud800", nest(31), nest(300)], ids=["nan", "surrogate", "deep-31", "deep-300"]
)
async def test_an_interrupt_payload_that_does_not_read_back_fails_the_step(
    store: Store, payload: Any
) -> None:
    """An interrupt payload that cannot be stored raises EncodeError (field route); run failed, readable."""
    g = two_steps(store, lambda: NodeResult(route=interrupt(payload)))
    with pytest.raises(EncodeError) as ei:
        await g.run("r", S())
    assert ei.value.field == "route"
    await assert_readable(g, "r")
    assert (await g.get_run("r")).status is RunStatus.FAILED


async def test_a_resume_input_that_cannot_be_stored_is_refused_before_it_runs(store: Store) -> None:
    """A resume input with a lone surrogate raises EncodeError before the node runs; the run keeps waiting."""

    async def ask(ctx: Context, s: S) -> NodeResult[S]:
        answer = ctx.interrupt("?")
        return NodeResult(delta=S(a=answer))

    g = Engine(S, store=store).add("ask", ask).start_at("ask")
    await g.run("r", S())
    with pytest.raises(EncodeError) as ei:
        await g.resume("r", input="\udc00")
    assert ei.value.field == "input"
    await assert_readable(g, "r")
    assert (await g.get_run("r")).status is RunStatus.INTERRUPTED
    assert (await g.resume("r", input="fine")).a == "fine"


async def test_fan_out_failures_are_typed_and_fail_the_run(store: Store) -> None:
    """A branch delta with NaN, a branch route that is a string, a raising join merge: typed, run failed."""

    async def split(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(route=fan_out(["w1", "w2"], join="join"))

    async def join(ctx: Context, s: S) -> None:
        return None

    async def w_nan(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(x=math.nan))

    async def w_route(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(route="join")  # type: ignore[arg-type]

    async def w_ok(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=2))

    def raising(prev: S, delta: S) -> S:
        if delta.n == 2:
            raise KeyError("merge")
        return prev

    cases: list[tuple[Any, type[GraphError], dict[str, Any]]] = [
        (w_nan, EncodeError, {}),
        (w_route, NodeReturnTypeError, {}),
        (w_ok, ReducerError, {"reducer": raising}),
    ]
    for i, (w, kind, kw) in enumerate(cases):
        g = Engine(S, store=store, **kw).add("split", split).add("w1", w_ok).add("w2", w).add("join", join)
        g.start_at("split")
        rid = f"r{i}"
        with pytest.raises(kind) as ei:
            await g.run(rid, S())
        assert ei.value.run_id == rid and ei.value.step == 2
        assert (await g.get_run(rid)).status is RunStatus.FAILED
        await assert_readable(g, rid)


def test_run_sync_failure_is_typed_and_the_run_failed() -> None:
    """run_sync raises the same typed error and leaves the run failed."""
    store = MemoryStore()
    g = two_steps(store, lambda: NodeResult(delta=S(f=math.inf)))
    with pytest.raises(EncodeError):
        g.run_sync("r", S())
    assert asyncio.run(g.get_run("r")).status is RunStatus.FAILED


async def test_stream_failure_is_typed_and_the_run_failed(store: Store) -> None:
    """A streamed run whose step cannot be stored raises EncodeError from the iteration; run failed."""
    g = two_steps(store, lambda: NodeResult(delta=S(x=math.nan)))
    with pytest.raises(EncodeError):
        async for _ in g.stream("r", S()):
            pass
    assert (await g.get_run("r")).status is RunStatus.FAILED
    await assert_readable(g, "r")


async def test_fork_into_a_failing_step_fails_the_fork(store: Store) -> None:
    """A fork whose next step cannot be stored raises EncodeError; the fork is failed, the source untouched."""
    broken = [False]

    async def a(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=1), route=goto("b"))

    async def b(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(f=math.nan if broken[0] else 1.0))

    g = Engine(S, store=store).add("a", a).add("b", b).start_at("a")
    await g.run("src", S())
    broken[0] = True
    with pytest.raises(EncodeError):
        await g.fork("src", "fork", at_step=1)
    assert (await g.get_run("fork")).status is RunStatus.FAILED
    assert (await g.get_run("src")).status is RunStatus.DONE
    await assert_readable(g, "fork")


async def test_a_failing_emitter_never_breaks_the_run(store: Store) -> None:
    """An emitter that raises on every event leaves the run done with every step stored."""

    class Broken:
        def emit(self, event: Event) -> None:
            raise RuntimeError("emitter down")

    async def step(ctx: Context, s: S) -> NodeResult[S]:
        ctx.emit("hello")
        ev = Event(ctx.run_id, ctx.step, "step", "custom")
        return NodeResult(delta=S(n=s.n + 1), route=goto("step") if s.n < 2 else stop(), events=[ev])

    g = Engine(S, store=store, emitter=Broken()).add("step", step).start_at("step")
    assert (await g.run("r", S())).n == 3
    assert (await g.get_run("r")).status is RunStatus.DONE


async def test_a_migration_that_raises_is_a_migration_error(store: Store) -> None:
    """A migration function that raises gives MigrationError naming run and versions, not a raw error."""

    async def a(ctx: Context, s: S) -> None:
        return None

    g1 = Engine(S, store=store).add("a", a).start_at("a")
    await g1.run("r", S())

    def up(doc: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("missing field")

    g2 = Engine(S, store=store, state_version=2, migrations={1: up}).add("a", a).start_at("a")
    with pytest.raises(MigrationError) as ei:
        await g2.get_state("r")
    assert ei.value.run_id == "r" and (ei.value.stored, ei.value.current) == (1, 2)


def test_unenforceable_timeouts_are_refused_at_wiring() -> None:
    """Negative, NaN and infinite timeouts, a timeout on a sync loop node, thread+timeout+retries: typed errors naming the node."""

    def sync(ctx: Context, s: S) -> None:
        return None

    for bad in (-1, 0, math.nan, math.inf):
        with pytest.raises(GraphValidationError, match="'n'"):
            Engine(S).add("n", sync, thread=True, timeout=bad)
    with pytest.raises(GraphValidationError, match="'n'"):
        Engine(S).add("n", sync, retries=-1)
    g = Engine(S).add("n", sync, timeout=1.0).start_at("n")
    with pytest.raises(GraphValidationError, match="sync function") as ei:
        g.validate()
    assert ei.value.node_id == "n"
    g = Engine(S).add("n", sync, thread=True, timeout=1.0, retries=2).start_at("n")
    with pytest.raises(GraphValidationError, match="thread"):
        g.validate()
    Engine(S).add("n", sync, thread=True, timeout=1.0).start_at("n").validate()
    with pytest.raises(ValueError):
        Options(timeout=math.nan)


async def test_fan_out_branches_do_not_share_nested_objects(store: Store) -> None:
    """A branch appending to a nested list in place is not seen by its siblings nor by the run."""
    seen: dict[str, list[Any]] = {}

    async def split(ctx: Context, s: S) -> NodeResult[S]:
        shared = S(items=[0])
        return NodeResult(
            route=fan_out(["w1", "w2", Branch("w3", shared), Branch("w4", shared)], join="join")
        )

    def worker(name: str) -> Any:
        async def w(ctx: Context, s: S) -> NodeResult[S]:
            s.items.append(name)  # in place, against the rules: must stay local to this branch
            seen[name] = list(s.items)
            return None  # type: ignore[return-value]

        w.__qualname__ = f"worker_{name}"
        return w

    async def join(ctx: Context, s: S) -> None:
        seen["join"] = list(s.items)

    g = Engine(S, store=store, options=Options(max_concurrency=1)).add("split", split).add("join", join)
    for name in ("w1", "w2", "w3", "w4"):
        g.add(name, worker(name))
    g.start_at("split")
    await g.run("r", S(items=[0]))
    assert seen == {"w1": [0, "w1"], "w2": [0, "w2"], "w3": [0, "w3"], "w4": [0, "w4"], "join": [0]}


@dataclasses.dataclass
class D:
    """A dataclass state (merged by a reducer of the test's own)."""

    items: list[int] = dataclasses.field(default_factory=list)


async def test_dataclass_fan_out_branches_are_isolated(store: Store) -> None:
    """Dataclass states are copied per branch too: an in-place append in one branch is not seen by another."""
    seen: dict[str, list[int]] = {}

    async def split(ctx: Context, s: D) -> NodeResult[D]:
        return NodeResult(route=fan_out(["w1", "w2"], join="join"))

    async def w1(ctx: Context, s: D) -> NodeResult[D]:
        s.items.append(1)
        seen["w1"] = list(s.items)
        return NodeResult(delta=D([1]))

    async def w2(ctx: Context, s: D) -> NodeResult[D]:
        await asyncio.sleep(0)
        seen["w2"] = list(s.items)
        return NodeResult(delta=D([2]))

    async def join(ctx: Context, s: D) -> None:
        seen["join"] = list(s.items)

    g = Engine(D, store=store, reducer=lambda p, d: D(p.items + d.items))
    g.add("split", split).add("w1", w1).add("w2", w2).add("join", join).start_at("split")
    await g.run("r", D())
    assert seen == {"w1": [1], "w2": [], "join": [1, 2]}


async def test_a_reducer_that_mutates_its_previous_state_does_not_rewrite_history(store: Store) -> None:
    """A Go-style reducer appending in place: history still shows each step's own state."""

    def reducer(prev: S, delta: S) -> S:
        prev.items.extend(delta.items)  # in place, the natural port
        return prev

    async def step(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(items=[len(s.items)]), route=goto("step") if len(s.items) < 3 else stop())

    g = Engine(S, store=store, reducer=reducer, options=Options(snapshot_every=100)).add("step", step)
    g.start_at("step")
    await g.run("r", S())
    hist = await g.history("r")
    assert [h.state.items for h in hist] == [[0], [0, 1], [0, 1, 2], [0, 1, 2, 3]]
    assert (await g.replay("r")).ok


async def test_node_events_are_stored_with_the_step_without_an_emitter(store: Store) -> None:
    """NodeResult.events land in history (and a fan-out's branch events on its step), with no emitter set."""

    async def a(ctx: Context, s: S) -> NodeResult[S]:
        ev = Event(ctx.run_id, ctx.step, "a", "looked", {"k": [1, 2]})
        return NodeResult(delta=S(n=1), route=fan_out(["w", "w"], join="end"), events=[ev])

    async def w(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(events=[Event(ctx.run_id, ctx.step, "w", f"branch {ctx.branch}")])

    async def end(ctx: Context, s: S) -> None:
        return None

    g = Engine(S, store=store).add("a", a).add("w", w).add("end", end).start_at("a")
    await g.run("r", S())
    hist = await g.history("r")
    assert [(e.msg, dict(e.meta)) for e in hist[0].events] == [("looked", {"k": [1, 2]})]
    assert [e.msg for e in hist[1].events] == ["branch 0", "branch 1"]
    assert hist[2].events == ()
    assert (await g.replay("r")).ok
    emitter = MemoryEmitter()
    g2 = Engine(S, store=store, emitter=emitter).add("a", a).add("w", w).add("end", end).start_at("a")
    await g2.run("r2", S())
    assert {"looked", "branch 0", "branch 1"} <= {e.msg for e in emitter.events}


async def test_replay_reports_events_that_differ(store: Store) -> None:
    """Replay compares the events a step returns with the stored ones."""
    msg = ["first"]

    async def a(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=1), events=[Event(ctx.run_id, ctx.step, "a", msg[0])])

    g = Engine(S, store=store).add("a", a).start_at("a")
    await g.run("r", S())
    msg[0] = "second"
    report = await g.replay("r")
    assert not report.ok and report.divergences[0].field == "events"


async def test_replay_of_a_corrupt_record_is_a_corrupt_record_error(store: Store) -> None:
    """A stored delta, route or calls that is not JSON makes replay raise CorruptRecordError with run/step/field."""

    async def a(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=s.n + 1), route=goto("a") if s.n < 1 else stop())

    g = Engine(S, store=store, options=Options(snapshot_every=100)).add("a", a).start_at("a")
    await g.run("r", S())
    run = await g.get_run("r")
    steps = list(await store.load_steps("r"))
    for field, bad in (("delta", {"delta": b"{not json"}), ("calls", {"calls": b"\x00["})):
        rid = f"bad-{field}"
        await store.create_run(RunRecord(rid, RunStatus.DONE, run.initial, run.fingerprint, meta=run.meta))
        first = steps[0]._replace(run_id=rid, **bad)
        await store.save_step(first)
        await store.save_step(steps[1]._replace(run_id=rid))
        with pytest.raises(CorruptRecordError) as ei:
            await g.replay(rid)
        assert (ei.value.run_id, ei.value.step, ei.value.field) == (rid, 1, field)


async def test_bad_run_and_node_ids_are_refused(store: Store) -> None:
    """Run ids and node ids a store cannot hold (lone surrogates, NUL, empty) are refused with a typed error."""

    async def a(ctx: Context, s: S) -> None:
        return None

    g = Engine(S, store=store).add("a", a).start_at("a")
    for rid in ("", "a\x00b", "\ud800"):
        with pytest.raises(GraphValidationError):
            await g.run(rid, S())
    for nid in ("a\x00", "\udfff"):
        with pytest.raises(GraphValidationError):
            Engine(S).add(nid, a)


# ------------------------------------------------------------------ property


def _texts() -> st.SearchStrategy[str]:
    # Every code point, lone surrogates and NUL included.
    return st.text(st.characters(codec=None, exclude_categories=()), max_size=8)


_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**100), max_value=2**100),
    st.floats(allow_nan=True, allow_infinity=True),
    _texts(),
)
_values = st.one_of(
    st.recursive(
        _leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_texts(), inner, max_size=4)),
        max_leaves=12,
    ),
    st.integers(min_value=150, max_value=300).map(nest),
    st.integers(min_value=0, max_value=3).map(lambda k: list(range(10**k))),
)


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    initial=_values, deltas=st.lists(_values, min_size=1, max_size=3), where=st.sampled_from(["a", "items"])
)
async def test_random_states_and_deltas_never_commit_anything_unreadable(
    store: Store, initial: Any, deltas: list[Any], where: str
) -> None:
    """Random values through run, history, replay and get_state: a run either finishes with exactly its
    values, or raises a typed error and is failed (or never created); every record reads back."""
    rid = uuid.uuid4().hex

    async def step(ctx: Context, s: S) -> NodeResult[S]:
        i = s.n
        value = deltas[i]
        delta = S(n=i + 1, a=value) if where == "a" else S(n=i + 1, items=[value])
        return NodeResult(delta=delta, route=goto("step") if i + 1 < len(deltas) else stop())

    g = Engine(S, store=store).add("step", step).start_at("step")
    try:
        final = await g.run(rid, S(a=initial))
    except StateValidationError:
        assert await store.get_run(rid) is None  # a refused initial state creates no run
        return
    except GraphError as exc:
        failed: GraphError | None = exc
    else:
        failed = None
    if failed is not None:
        assert (failed.run_id, failed.node_id) == (rid, "step") and failed.step is not None
        await assert_readable(g, rid)
        assert (await g.get_run(rid)).status is RunStatus.FAILED
        return
    await assert_readable(g, rid)
    assert (await g.get_run(rid)).status is RunStatus.DONE
    want = deltas[-1] if where == "a" else [deltas[-1]]
    got = final.a if where == "a" else final.items
    assert _same(got, want)
    stored = await g.get_state(rid)
    assert _same(stored.a if where == "a" else stored.items, want)
    hist = await g.history(rid)
    assert len(hist) == len(deltas)
