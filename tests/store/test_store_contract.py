"""The `Store` contract: every backend passes this one body of tests (see `store` in conftest)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection

import pytest

from graphengine.store import (
    BranchRecord,
    Checkpoint,
    RunExistsError,
    RunRecord,
    RunStatus,
    SignalRecord,
    StatusConflictError,
    StepConflictError,
    StepRecord,
    Store,
    StoreError,
    TimerRecord,
    WaitStore,
)

# Bytes no text codec would round-trip: NULs, invalid UTF-8, every byte value.
AWKWARD = bytes(range(256)) + b"\x00\xff\xfe"


def run_rec(run_id: str = "r1", **kw: object) -> RunRecord:
    fields: dict[str, object] = {"status": RunStatus.RUNNING, "initial": b'{"n":0}'} | kw
    return RunRecord(run_id, **fields)  # type: ignore[arg-type]


def step_rec(step: int, run_id: str = "r1", **kw: object) -> StepRecord:
    fields: dict[str, object] = {
        "node_id": f"n{step}",
        "delta": f'{{"n":{step}}}'.encode(),
        "route": '{"goto":"x"}',
        "ts": 1000.0 + step,
    } | kw
    return StepRecord(run_id, step, **fields)  # type: ignore[arg-type]


async def add_steps(store: Store, n: int, run_id: str = "r1", snapshots: Collection[int] = ()) -> None:
    """Write steps 1..n of `run_id`, with a state snapshot on the steps in `snapshots`."""
    for i in range(1, n + 1):
        state = f"S{i}".encode() if i in snapshots else None
        await store.save_step(step_rec(i, run_id, state=state))


# ------------------------------------------------------------------------------------ protocol


async def test_backend_satisfies_store_protocol(store: Store) -> None:
    """Every backend is a `Store` at runtime."""
    assert isinstance(store, Store)


# ------------------------------------------------------------------------------------ runs


async def test_run_round_trips_every_field(store: Store) -> None:
    """A run record comes back exactly as written, bytes for bytes."""
    rec = RunRecord(
        "r1",
        RunStatus.FAILED,
        AWKWARD,
        fingerprint="fp-abc",
        state_version=7,
        created_at=123.5,
        updated_at=456.25,
        error="ValueError: boom",
        error_node="judge",
        meta=b'{"k":"\xc3\xa9"}',
    )
    await store.create_run(rec)
    assert await store.get_run("r1") == rec


async def test_create_run_fills_zero_timestamps(store: Store) -> None:
    """Zero `created_at`/`updated_at` become the time of creation."""
    before = time.time()
    await store.create_run(run_rec())
    got = await store.get_run("r1")
    assert got is not None
    assert before <= got.created_at <= time.time()
    assert got.updated_at == got.created_at


async def test_create_run_twice_raises_run_exists_and_keeps_the_first(store: Store) -> None:
    """Creating a run id that exists raises `RunExistsError` naming it and changes nothing."""
    await store.create_run(run_rec(initial=b"first"))
    with pytest.raises(RunExistsError) as info:
        await store.create_run(run_rec(initial=b"second"))
    assert info.value.run_id == "r1"
    got = await store.get_run("r1")
    assert got is not None
    assert got.initial == b"first"


async def test_create_run_over_a_run_with_steps_raises_run_exists(store: Store) -> None:
    """A run id taken by a run that has steps, branches and a checkpoint is `RunExistsError` too
    (not a report of orphaned rows), and the stored run and its steps stay as they were."""
    await store.create_run(run_rec(initial=b"first"))
    await add_steps(store, 2)
    await store.save_branches([BranchRecord("r1", 3, 0, "b", b"{}")])
    await store.save_checkpoint(Checkpoint("r1", "cp", 2, b"S2"))
    with pytest.raises(RunExistsError) as info:
        await store.create_run(run_rec(initial=b"second"))
    assert info.value.run_id == "r1"
    got = await store.get_run("r1")
    assert got is not None and got.initial == b"first"
    assert [s.step for s in await store.load_steps("r1")] == [1, 2]


async def test_get_run_of_unknown_id_is_none(store: Store) -> None:
    """An unknown run id gives None."""
    assert await store.get_run("nope") is None


async def test_set_status_changes_status_error_and_updated_at(store: Store) -> None:
    """`set_status` sets status, error and error node and moves `updated_at`, keeping the rest."""
    await store.create_run(run_rec(created_at=10.0, updated_at=10.0, fingerprint="fp"))
    await store.set_status("r1", RunStatus.FAILED, error="KeyError: x", error_node="n2")
    got = await store.get_run("r1")
    assert got is not None
    assert (got.status, got.error, got.error_node) == (RunStatus.FAILED, "KeyError: x", "n2")
    assert got.updated_at > 10.0
    assert (got.created_at, got.fingerprint, got.initial) == (10.0, "fp", b'{"n":0}')


async def test_set_status_clears_error_when_none(store: Store) -> None:
    """A status change without an error clears the previous one."""
    await store.create_run(run_rec())
    await store.set_status("r1", RunStatus.FAILED, error="boom", error_node="n")
    await store.set_status("r1", RunStatus.RUNNING)
    got = await store.get_run("r1")
    assert got is not None
    assert (got.status, got.error, got.error_node) == (RunStatus.RUNNING, None, None)


async def test_set_status_of_unknown_run_is_a_no_op(store: Store) -> None:
    """`set_status` on an unknown run invents nothing and raises nothing."""
    await store.set_status("ghost", RunStatus.DONE)
    assert await store.get_run("ghost") is None
    assert await store.list_runs() == []


async def test_list_runs_is_newest_first_with_run_id_breaking_ties(store: Store) -> None:
    """Runs are listed by creation time, newest first; equal times by run id, descending."""
    await store.create_run(run_rec("a", created_at=1.0))
    await store.create_run(run_rec("c", created_at=3.0))
    await store.create_run(run_rec("b", created_at=2.0))
    await store.create_run(run_rec("b2", created_at=2.0))
    assert [r.run_id for r in await store.list_runs()] == ["c", "b2", "b", "a"]


async def test_list_runs_filters_by_status_and_limits(store: Store) -> None:
    """`status` keeps only runs with that status; `limit` caps the count after ordering."""
    for i, status in enumerate([RunStatus.DONE, RunStatus.RUNNING, RunStatus.DONE, RunStatus.DONE]):
        await store.create_run(run_rec(f"r{i}", status=status, created_at=float(i + 1)))
    assert [r.run_id for r in await store.list_runs(status=RunStatus.DONE)] == ["r3", "r2", "r0"]
    assert [r.run_id for r in await store.list_runs(status=RunStatus.DONE, limit=2)] == ["r3", "r2"]
    assert [r.run_id for r in await store.list_runs(limit=1)] == ["r3"]
    assert await store.list_runs(status=RunStatus.CANCELLED) == []


async def test_list_runs_sees_status_changes(store: Store) -> None:
    """The status filter applies to the current status."""
    await store.create_run(run_rec())
    await store.set_status("r1", RunStatus.DONE)
    assert [r.run_id for r in await store.list_runs(status=RunStatus.DONE)] == ["r1"]
    assert await store.list_runs(status=RunStatus.RUNNING) == []


# ------------------------------------------------------------------------------------ steps


async def test_step_round_trips_every_field(store: Store) -> None:
    """A step record comes back exactly as written, bytes for bytes."""
    await store.create_run(run_rec())
    rec = StepRecord(
        "r1",
        1,
        "retrieve",
        AWKWARD,
        '{"fanout":["a","b"]}',
        state=AWKWARD[::-1],
        attempt=3,
        error="TimeoutError: slow",
        calls=b"\x00calls\xff",
        events=b'[{"kind":"x"}]',
        ts=1234.5678,
    )
    await store.save_step(rec)
    assert list(await store.load_steps("r1")) == [rec]


async def test_step_optional_fields_round_trip_as_none(store: Store) -> None:
    """None delta, state, error, calls and events stay None (not empty bytes)."""
    await store.create_run(run_rec())
    rec = StepRecord("r1", 1, "n", None, '"stop"', ts=5.0)
    await store.save_step(rec)
    assert list(await store.load_steps("r1")) == [rec]


async def test_empty_bytes_stay_empty_bytes(store: Store) -> None:
    """b"" is stored as b"", distinct from None."""
    await store.create_run(run_rec(initial=b""))
    await store.save_step(step_rec(1, delta=b"", state=b"", calls=b"", events=b""))
    [got] = await store.load_steps("r1")
    assert (got.delta, got.state, got.calls, got.events) == (b"", b"", b"", b"")
    run = await store.get_run("r1")
    assert run is not None
    assert run.initial == b""


async def test_save_step_fills_zero_ts(store: Store) -> None:
    """A step saved with ts=0 gets the commit time."""
    await store.create_run(run_rec())
    before = time.time()
    await store.save_step(step_rec(1, ts=0.0))
    [got] = await store.load_steps("r1")
    assert before <= got.ts <= time.time()


async def test_save_step_twice_raises_conflict_and_keeps_the_first(store: Store) -> None:
    """A second write of the same (run, step) raises `StepConflictError` and changes nothing."""
    await store.create_run(run_rec())
    first = step_rec(1, node_id="first")
    await store.save_step(first)
    with pytest.raises(StepConflictError) as info:
        await store.save_step(step_rec(1, node_id="second"))
    assert (info.value.run_id, info.value.step) == ("r1", 1)
    assert list(await store.load_steps("r1")) == [first]


async def test_save_step_rewriting_an_older_step_conflicts(store: Store) -> None:
    """Writing a step below the newest one conflicts too."""
    await store.create_run(run_rec())
    await add_steps(store, 3)
    before = list(await store.load_steps("r1"))
    with pytest.raises(StepConflictError):
        await store.save_step(step_rec(2, node_id="late"))
    assert list(await store.load_steps("r1")) == before


@pytest.mark.parametrize("step", [0, -1, 2, 5])
async def test_save_step_out_of_sequence_raises_conflict(store: Store, step: int) -> None:
    """Steps are dense from 1: a gap (or a step below 1) raises `StepConflictError`, writing nothing."""
    await store.create_run(run_rec())
    with pytest.raises(StepConflictError) as info:
        await store.save_step(step_rec(step))
    assert (info.value.run_id, info.value.step) == ("r1", step)
    assert list(await store.load_steps("r1", after=-10)) == []
    latest = await store.load_latest("r1")
    assert latest is not None
    assert latest.last is None


async def test_save_step_gap_after_existing_steps_raises_conflict(store: Store) -> None:
    """Skipping a step after some were written raises `StepConflictError`, writing nothing."""
    await store.create_run(run_rec())
    await add_steps(store, 2)
    with pytest.raises(StepConflictError):
        await store.save_step(step_rec(4))
    assert [s.step for s in await store.load_steps("r1")] == [1, 2]


async def test_save_step_for_unknown_run_raises_conflict_and_invents_nothing(store: Store) -> None:
    """A step of a run that does not exist raises `StepConflictError`; no run or step appears."""
    with pytest.raises(StepConflictError) as info:
        await store.save_step(step_rec(1, run_id="ghost"))
    assert (info.value.run_id, info.value.step) == ("ghost", 1)
    assert await store.get_run("ghost") is None
    assert list(await store.load_steps("ghost")) == []
    assert await store.load_latest("ghost") is None


async def test_store_accepts_the_next_step_after_a_refused_one(store: Store) -> None:
    """A refused write leaves the run writable at the right next step."""
    await store.create_run(run_rec())
    await add_steps(store, 1)
    with pytest.raises(StepConflictError):
        await store.save_step(step_rec(1))
    await store.save_step(step_rec(2))
    assert [s.step for s in await store.load_steps("r1")] == [1, 2]


async def test_concurrent_writers_of_one_step_exactly_one_wins(store: Store) -> None:
    """Of several tasks writing the same next step, exactly one succeeds; the rest conflict."""
    await store.create_run(run_rec())
    results = await asyncio.gather(
        *(store.save_step(step_rec(1, node_id=f"w{i}")) for i in range(8)), return_exceptions=True
    )
    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, StepConflictError) for r in results if r is not None)
    [got] = await store.load_steps("r1")
    winner = results.index(None)
    assert got.node_id == f"w{winner}"


async def test_steps_of_many_runs_saved_at_once_all_commit(store: Store) -> None:
    """Steps of 200 runs saved at the same moment (one group commit on SQL backends) all read back."""
    ids = [f"g{i}" for i in range(200)]
    for run_id in ids:
        await store.create_run(run_rec(run_id))
    for step in (1, 2):
        await asyncio.gather(*(store.save_step(step_rec(step, run_id)) for run_id in ids))
    for run_id in ids:
        assert [(s.step, s.node_id) for s in await store.load_steps(run_id)] == [(1, "n1"), (2, "n2")]


async def test_steps_of_one_run_saved_at_once_keep_call_order(store: Store) -> None:
    """Several steps of one run saved at the same moment are written in call order, none refused."""
    await store.create_run(run_rec())
    await asyncio.gather(*(store.save_step(step_rec(i)) for i in range(1, 6)))
    assert [s.step for s in await store.load_steps("r1")] == [1, 2, 3, 4, 5]


async def test_refused_and_bad_steps_fail_alone_in_a_group(store: Store) -> None:
    """In steps saved at the same moment, a step that is not the next one, a step of an unknown run
    and a step number no column holds each fail with their own `StoreError`; the others commit."""
    ids = [f"g{i}" for i in range(30)]
    for run_id in ids:
        await store.create_run(run_rec(run_id))
    await store.save_step(step_rec(1, "g0"))
    bad = [step_rec(1, "g0"), step_rec(1, "nobody"), step_rec(2**40, "g1")]
    good = [step_rec(1, run_id) for run_id in ids[2:]]
    results = await asyncio.gather(*(store.save_step(r) for r in [*bad, *good]), return_exceptions=True)
    assert isinstance(results[0], StepConflictError)
    assert isinstance(results[1], StepConflictError)
    assert isinstance(results[2], StoreError)
    assert results[3:] == [None] * len(good)
    for run_id in ids:
        assert [s.step for s in await store.load_steps(run_id)] == ([] if run_id == "g1" else [1])
    assert await store.get_run("nobody") is None


async def test_runs_do_not_see_each_others_steps(store: Store) -> None:
    """Steps belong to their run only; each run counts its steps from 1."""
    await store.create_run(run_rec("a"))
    await store.create_run(run_rec("b"))
    await add_steps(store, 3, "a")
    await add_steps(store, 1, "b")
    assert [(s.run_id, s.step) for s in await store.load_steps("a")] == [("a", 1), ("a", 2), ("a", 3)]
    assert [(s.run_id, s.step) for s in await store.load_steps("b")] == [("b", 1)]


async def test_load_steps_after_and_limit(store: Store) -> None:
    """`load_steps` returns steps with step > after, in order, at most `limit`."""
    await store.create_run(run_rec())
    await add_steps(store, 5)
    steps = list(await store.load_steps("r1"))
    assert [s.step for s in steps] == [1, 2, 3, 4, 5]
    assert [s.step for s in await store.load_steps("r1", after=2)] == [3, 4, 5]
    assert [s.step for s in await store.load_steps("r1", after=2, limit=2)] == [3, 4]
    assert [s.step for s in await store.load_steps("r1", limit=1)] == [1]
    assert list(await store.load_steps("r1", limit=0)) == []
    assert list(await store.load_steps("r1", after=5)) == []
    assert list(await store.load_steps("r1", after=99)) == []
    assert list(await store.load_steps("r1", after=3)) == steps[3:]


async def test_load_steps_of_unknown_run_is_empty(store: Store) -> None:
    """An unknown run has no steps."""
    assert list(await store.load_steps("nope")) == []


# ------------------------------------------------------------------------------------ load_latest


async def test_load_latest_of_unknown_run_is_none(store: Store) -> None:
    """An unknown run gives None."""
    assert await store.load_latest("nope") is None


async def test_load_latest_without_steps_is_the_initial_state(store: Store) -> None:
    """Before any step: base is the initial state at step 0, no tail, no last step."""
    run = run_rec(initial=AWKWARD, created_at=1.0, updated_at=1.0)
    await store.create_run(run)
    latest = await store.load_latest("r1")
    assert latest is not None
    assert latest.run == run
    assert (latest.base_step, latest.base_state, latest.tail, latest.last) == (0, AWKWARD, (), None)
    assert latest.last_step == 0


async def test_load_latest_without_snapshots_folds_from_the_initial_state(store: Store) -> None:
    """With no snapshot, base is the initial state and the tail is every step in order."""
    await store.create_run(run_rec())
    await add_steps(store, 4)
    steps = tuple(await store.load_steps("r1"))
    latest = await store.load_latest("r1")
    assert latest is not None
    assert (latest.base_step, latest.base_state) == (0, b'{"n":0}')
    assert latest.tail == steps
    assert latest.last == steps[-1]
    assert latest.last_step == 4


@pytest.mark.parametrize(
    ("snapshots", "base"),
    [({1}, 1), ({3}, 3), ({6}, 6), ({2, 4}, 4), ({1, 2, 3, 4, 5, 6}, 6), ({1, 5}, 5)],
)
async def test_load_latest_starts_at_the_newest_snapshot(
    store: Store, snapshots: set[int], base: int
) -> None:
    """Base is the newest step carrying a state; the tail is the steps after it; last is step 6."""
    await store.create_run(run_rec())
    await add_steps(store, 6, snapshots=snapshots)
    steps = tuple(await store.load_steps("r1"))
    latest = await store.load_latest("r1")
    assert latest is not None
    assert (latest.base_step, latest.base_state) == (base, f"S{base}".encode())
    assert latest.tail == steps[base:]
    assert [s.step for s in latest.tail] == list(range(base + 1, 7))
    assert latest.last == steps[-1]
    assert latest.last_step == 6


async def test_load_latest_sees_steps_written_after_a_previous_load(store: Store) -> None:
    """load_latest reflects every committed step, including ones after an earlier call."""
    await store.create_run(run_rec())
    await add_steps(store, 2, snapshots={2})
    await store.load_latest("r1")
    await store.save_step(step_rec(3))
    latest = await store.load_latest("r1")
    assert latest is not None
    assert (latest.base_step, [s.step for s in latest.tail], latest.last_step) == (2, [3], 3)


# ------------------------------------------------------------------------------------ branches


def branch(n: int, step: int = 2, run_id: str = "r1", **kw: object) -> BranchRecord:
    fields: dict[str, object] = {"node_id": f"b{n}", "delta": b"\x00d%d" % n, "ts": 50.0 + n} | kw
    return BranchRecord(run_id, step, n, **fields)  # type: ignore[arg-type]


async def test_branches_round_trip_in_branch_order(store: Store) -> None:
    """Branch records come back exactly as written, ordered by branch number whatever the landing order."""
    await store.create_run(run_rec())
    b2, b0, b1 = branch(2, attempt=3), branch(0, delta=None), branch(1, delta=AWKWARD)
    await store.save_branches([b2])
    await store.save_branches([b0, b1])
    assert list(await store.load_branches("r1", 2)) == [b0, b1, b2]


async def test_branches_fill_zero_ts(store: Store) -> None:
    """A branch saved with ts=0 gets the commit time."""
    await store.create_run(run_rec())
    before = time.time()
    await store.save_branches([branch(0, ts=0.0)])
    [got] = await store.load_branches("r1", 2)
    assert before <= got.ts <= time.time()


async def test_branches_of_other_steps_and_runs_are_separate(store: Store) -> None:
    """`load_branches` returns only the fan-out at that step of that run."""
    await store.create_run(run_rec("r1"))
    await store.create_run(run_rec("r2"))
    await store.save_branches([branch(0, step=2), branch(0, step=5), branch(0, step=2, run_id="r2")])
    assert [(b.run_id, b.step) for b in await store.load_branches("r1", 2)] == [("r1", 2)]
    assert [(b.run_id, b.step) for b in await store.load_branches("r1", 5)] == [("r1", 5)]
    assert list(await store.load_branches("r1", 3)) == []


async def test_branches_of_unknown_run_are_empty(store: Store) -> None:
    """An unknown run has no branches."""
    assert list(await store.load_branches("nope", 1)) == []


async def test_saving_no_branches_is_a_no_op(store: Store) -> None:
    """An empty batch writes nothing and raises nothing."""
    await store.save_branches([])


async def test_taken_branch_conflicts_and_the_batch_writes_nothing(store: Store) -> None:
    """A batch holding an already stored (run, step, branch) raises `StepConflictError`; none of it is written."""
    await store.create_run(run_rec())
    first = branch(0)
    await store.save_branches([first])
    with pytest.raises(StepConflictError) as info:
        await store.save_branches([branch(1), branch(0, node_id="again")])
    assert (info.value.run_id, info.value.step) == ("r1", 2)
    assert list(await store.load_branches("r1", 2)) == [first]


async def test_duplicate_branch_within_a_batch_conflicts(store: Store) -> None:
    """A batch naming one branch twice raises `StepConflictError` and writes nothing."""
    await store.create_run(run_rec())
    with pytest.raises(StepConflictError):
        await store.save_branches([branch(0), branch(1), branch(0)])
    assert list(await store.load_branches("r1", 2)) == []


async def test_branches_of_unknown_run_conflict_and_write_nothing(store: Store) -> None:
    """A batch with a branch of an unknown run raises `StepConflictError` and writes none of it."""
    await store.create_run(run_rec())
    with pytest.raises(StepConflictError):
        await store.save_branches([branch(0), branch(1, run_id="ghost")])
    assert list(await store.load_branches("r1", 2)) == []
    assert await store.get_run("ghost") is None


# ------------------------------------------------------------------------------------ checkpoints


async def test_checkpoint_round_trips(store: Store) -> None:
    """A checkpoint comes back exactly as written."""
    await store.create_run(run_rec())
    cp = Checkpoint("r1", "before-judge", 3, AWKWARD, ts=77.5)
    await store.save_checkpoint(cp)
    assert await store.load_checkpoint("r1", "before-judge") == cp


async def test_checkpoint_fills_zero_ts(store: Store) -> None:
    """A checkpoint saved with ts=0 gets the save time."""
    await store.create_run(run_rec())
    before = time.time()
    await store.save_checkpoint(Checkpoint("r1", "x", 0, b"s"))
    got = await store.load_checkpoint("r1", "x")
    assert got is not None
    assert before <= got.ts <= time.time()


async def test_checkpoint_save_replaces_by_label(store: Store) -> None:
    """Saving a label again replaces it; other labels and runs are untouched."""
    await store.create_run(run_rec("r1"))
    await store.create_run(run_rec("r2"))
    await store.save_checkpoint(Checkpoint("r1", "a", 1, b"one", ts=1.0))
    await store.save_checkpoint(Checkpoint("r1", "b", 1, b"bee", ts=1.0))
    await store.save_checkpoint(Checkpoint("r2", "a", 9, b"other", ts=1.0))
    new = Checkpoint("r1", "a", 2, b"two", ts=2.0)
    await store.save_checkpoint(new)
    assert await store.load_checkpoint("r1", "a") == new
    assert await store.load_checkpoint("r1", "b") == Checkpoint("r1", "b", 1, b"bee", ts=1.0)
    assert await store.load_checkpoint("r2", "a") == Checkpoint("r2", "a", 9, b"other", ts=1.0)


async def test_unknown_checkpoint_is_none(store: Store) -> None:
    """An unknown label, or a label of an unknown run, gives None."""
    await store.create_run(run_rec())
    await store.save_checkpoint(Checkpoint("r1", "a", 1, b"s"))
    assert await store.load_checkpoint("r1", "b") is None
    assert await store.load_checkpoint("ghost", "a") is None


async def test_checkpoint_for_unknown_run_raises_conflict(store: Store) -> None:
    """A checkpoint of a run that does not exist raises `StepConflictError` and stores nothing."""
    with pytest.raises(StepConflictError) as info:
        await store.save_checkpoint(Checkpoint("ghost", "a", 1, b"s"))
    assert info.value.run_id == "ghost"
    assert await store.load_checkpoint("ghost", "a") is None
    assert await store.get_run("ghost") is None


# ------------------------------------------------------------------------------------ timers and signals


async def waiting_run(store: Store, run_id: str, wake_at: float | None, signal: str | None = None) -> None:
    """Store run `run_id` with one step, waiting after it with this timer."""
    await store.create_run(run_rec(run_id))
    await store.save_step(step_rec(1, run_id))
    assert isinstance(store, WaitStore)
    await store.put_timer(TimerRecord(run_id, 1, wake_at, signal))
    await store.set_status(run_id, RunStatus.WAITING, expect_step=1)


async def test_backend_satisfies_wait_store_protocol(store: Store) -> None:
    """Every backend keeps durable timers and signals (`WaitStore`)."""
    assert isinstance(store, WaitStore)


async def test_timer_round_trips_and_is_replaced(store: WaitStore) -> None:
    """A run has one timer: `put_timer` writes it, a second call replaces it, `get_timer` reads it back."""
    await store.create_run(run_rec("r1"))
    await store.put_timer(TimerRecord("r1", 0, 1234.5, None))
    assert await store.get_timer("r1") == TimerRecord("r1", 0, 1234.5, None)
    await store.put_timer(TimerRecord("r1", 3, None, "approved"))
    assert await store.get_timer("r1") == TimerRecord("r1", 3, None, "approved")


async def test_timer_of_unknown_run_is_not_stored(store: WaitStore) -> None:
    """A timer for a run that does not exist stores nothing."""
    await store.put_timer(TimerRecord("ghost", 1, 10.0, None))
    assert await store.get_timer("ghost") is None


async def test_due_timers_are_those_of_waiting_runs_soonest_first(store: WaitStore) -> None:
    """Only waiting runs' timers with `wake_at <= now` are due, soonest first, at most `limit`."""
    await waiting_run(store, "late", 300.0)
    await waiting_run(store, "early", 100.0)
    await waiting_run(store, "future", 10_000.0)
    await waiting_run(store, "signal-only", None, "go")
    await waiting_run(store, "moved-on", 50.0)
    await store.set_status("moved-on", RunStatus.RUNNING, expect_status=RunStatus.WAITING)
    due = await store.due_timers(500.0)
    assert [t.run_id for t in due] == ["early", "late"]
    assert due[0] == TimerRecord("early", 1, 100.0, None)
    assert [t.run_id for t in await store.due_timers(500.0, limit=1)] == ["early"]
    assert await store.next_due() == 100.0


async def test_next_due_is_none_without_waiting_timers(store: WaitStore) -> None:
    """With no waiting run that has a due time, nothing is due."""
    await waiting_run(store, "r1", None, "go")
    assert await store.next_due() is None
    assert await store.due_timers(1e12) == []


async def test_clear_timer_drops_the_due_time_of_that_step_only(store: WaitStore) -> None:
    """`clear_timer` forgets the due time of the timer set after that step, and no other."""
    await waiting_run(store, "r1", 100.0, "go")
    await store.clear_timer("r1", 7)
    assert (await store.get_timer("r1")) == TimerRecord("r1", 1, 100.0, "go")
    await store.clear_timer("r1", 1)
    assert (await store.get_timer("r1")) == TimerRecord("r1", 1, None, "go")
    assert await store.due_timers(1e12) == []


async def test_claiming_a_due_timer_is_won_once(store: WaitStore) -> None:
    """Three claims of one due timer (waiting -> running at its step) race; exactly one wins."""
    await waiting_run(store, "r1", 100.0)

    async def claim() -> bool:
        try:
            await store.set_status(
                "r1", RunStatus.RUNNING, expect_step=1, expect_status=RunStatus.WAITING
            )
        except StatusConflictError:
            return False
        return True

    won = await asyncio.gather(claim(), claim(), claim())
    assert sorted(won) == [False, False, True]
    assert await store.due_timers(1e12) == []


async def test_signal_is_stored_once_per_id(store: WaitStore) -> None:
    """A second signal with a taken id is not stored, whatever it carries."""
    await store.create_run(run_rec("r1"))
    assert await store.add_signal(SignalRecord("r1", "s-1", "approved", AWKWARD, 10.0))
    assert not await store.add_signal(SignalRecord("r1", "s-1", "other", b"2", 11.0))
    assert await store.list_signals("r1") == [SignalRecord("r1", "s-1", "approved", AWKWARD, 10.0, None)]


async def test_signal_is_stored_as_given_with_the_step_that_took_it(store: WaitStore) -> None:
    """`add_signal` keeps a given `taken_step` (an import restores what was taken), and it counts as taken."""
    await store.create_run(run_rec("r1"))
    assert await store.add_signal(SignalRecord("r1", "s-1", "go", b"1", 10.0, 3))
    assert await store.list_signals("r1") == [SignalRecord("r1", "s-1", "go", b"1", 10.0, 3)]
    assert await store.take_signal("r1", "go", 4) is None


async def test_signal_to_unknown_run_is_not_stored(store: WaitStore) -> None:
    """A signal to a run that does not exist stores nothing."""
    assert not await store.add_signal(SignalRecord("ghost", "s-1", "go", b"1"))
    assert await store.list_signals("ghost") == []


async def test_signals_list_in_arrival_order_and_fill_ts(store: WaitStore) -> None:
    """Signals come back in arrival order (time, then id); a zero time becomes now."""
    await store.create_run(run_rec("r1"))
    await store.add_signal(SignalRecord("r1", "b", "go", b"2", 20.0))
    await store.add_signal(SignalRecord("r1", "a", "go", b"1", 20.0))
    await store.add_signal(SignalRecord("r1", "z", "go", b"0", 5.0))
    before = time.time()
    await store.add_signal(SignalRecord("r1", "now", "go", b"3"))
    sigs = await store.list_signals("r1")
    assert [s.signal_id for s in sigs] == ["z", "a", "b", "now"]
    assert sigs[-1].ts >= before


async def test_take_signal_takes_the_oldest_of_that_name_once(store: WaitStore) -> None:
    """`take_signal` hands out the oldest buffered signal of the name, each to one step."""
    await store.create_run(run_rec("r1"))
    await store.add_signal(SignalRecord("r1", "x", "other", b"0", 1.0))
    await store.add_signal(SignalRecord("r1", "s2", "go", b"2", 3.0))
    await store.add_signal(SignalRecord("r1", "s1", "go", b"1", 2.0))
    first = await store.take_signal("r1", "go", 4)
    assert first == SignalRecord("r1", "s1", "go", b"1", 2.0, 4)
    second = await store.take_signal("r1", "go", 5)
    assert second is not None and second.signal_id == "s2"
    assert await store.take_signal("r1", "go", 6) is None
    assert await store.take_signal("r1", "missing", 6) is None


async def test_a_signal_taken_by_a_step_that_never_committed_is_taken_again(store: WaitStore) -> None:
    """A signal taken by step 4 can be taken again by step 4 (run again) but not by step 5."""
    await store.create_run(run_rec("r1"))
    await store.add_signal(SignalRecord("r1", "s1", "go", b"1", 2.0))
    assert await store.take_signal("r1", "go", 4) is not None
    again = await store.take_signal("r1", "go", 4)
    assert again is not None and again.taken_step == 4
    lower = await store.take_signal("r1", "go", 3)
    assert lower is not None and lower.taken_step == 3
    await store.take_signal("r1", "go", 5)
    assert await store.take_signal("r1", "go", 6) is None


async def test_release_signals_buffers_again_what_a_step_and_later_ones_took(store: WaitStore) -> None:
    """`release_signals(run, 5)` frees the signals taken by step 5 or later, counts them, and keeps older takings."""
    await store.create_run(run_rec("r1"))
    await store.create_run(run_rec("r2"))
    for sid, ts in (("s1", 1.0), ("s2", 2.0), ("s3", 3.0)):
        await store.add_signal(SignalRecord("r1", sid, "go", b"1", ts))
    await store.add_signal(SignalRecord("r2", "o1", "go", b"1", 1.0))
    await store.take_signal("r1", "go", 4)
    await store.take_signal("r1", "go", 5)
    await store.take_signal("r1", "go", 6)
    await store.take_signal("r2", "go", 7)
    assert await store.release_signals("r1", 5) == 2
    assert [(s.signal_id, s.taken_step) for s in await store.list_signals("r1")] == [
        ("s1", 4),
        ("s2", None),
        ("s3", None),
    ]
    assert [s.taken_step for s in await store.list_signals("r2")] == [7]
    again = await store.take_signal("r1", "go", 5)
    assert again is not None and again.signal_id == "s2"
    assert await store.release_signals("r1", 9) == 0
    assert await store.release_signals("ghost", 0) == 0


async def test_delete_run_takes_its_timer_and_signals(store: WaitStore) -> None:
    """Deleting a run deletes its timer and signals; a new run of the id starts with none."""
    await waiting_run(store, "r1", 100.0)
    await store.add_signal(SignalRecord("r1", "s1", "go", b"1"))
    assert await store.delete_run("r1")
    await store.create_run(run_rec("r1"))
    assert await store.get_timer("r1") is None
    assert await store.list_signals("r1") == []
