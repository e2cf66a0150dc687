"""Threads that continue: `continue_run` turns, `update_state` edits and the run context, on every store."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from graphengine import (
    INPUT_NODE,
    UPDATE_NODE,
    Context,
    ContextMissingError,
    Engine,
    GraphValidationError,
    MaxStepsExceeded,
    NodeResult,
    Options,
    RunBusyError,
    RunExistsError,
    RunNotFinishedError,
    RunNotFoundError,
    StateValidationError,
    append,
)
from graphengine.store import RunStatus, Store


class Chat(BaseModel):
    """A chat's state: the messages so far and how many replies were made."""

    messages: Annotated[list[str], append] = []
    replies: int = 0


def reply(ctx: Context, s: Chat) -> NodeResult[Chat]:
    """Answers the last message."""
    return NodeResult(delta=Chat(messages=[f"re:{s.messages[-1]}"], replies=s.replies + 1))


def chat(store: Store, **opts: Any) -> Engine[Chat]:
    """One node that replies, then stops."""
    g = Engine(Chat, store=store, options=Options(**opts))
    g.add("reply", reply).start_at("reply")
    return g


def two_nodes(store: Store, *, pause_before_b: bool = False) -> Engine[Chat]:
    """a -> b, each appending its name."""
    g = Engine(Chat, store=store)
    g.add("a", lambda ctx, s: NodeResult(delta=Chat(messages=["a"])))
    g.add("b", lambda ctx, s: NodeResult(delta=Chat(messages=["b"])), interrupt_before=pause_before_b)
    return g.start_at("a").connect("a", "b")


async def test_each_turn_merges_its_input_and_runs_the_graph_from_the_start(store: Store) -> None:
    """A continued run appends the new message through the reducer and replies to it."""
    g = chat(store)
    await g.run("t", {"messages": ["hi"]})
    s = await g.continue_run("t", {"messages": ["how are you"]})
    assert s.messages == ["hi", "re:hi", "how are you", "re:how are you"]
    assert s.replies == 2
    assert (await g.get_run("t")).status is RunStatus.DONE
    assert await g.get_state("t") == s


async def test_history_is_one_with_increasing_steps_and_marks_where_each_turn_began(store: Store) -> None:
    """Every turn's steps are in one history; each turn begins with an input step."""
    g = chat(store)
    await g.run("t", Chat(messages=["m0"]))
    for i in range(1, 4):
        await g.continue_run("t", Chat(messages=[f"m{i}"]))
    h = await g.history("t")
    assert [v.step for v in h] == list(range(1, 8))
    assert [v.node_id for v in h] == ["reply", INPUT_NODE, "reply", INPUT_NODE, "reply", INPUT_NODE, "reply"]
    assert [v.turn for v in h] == [0, 1, 1, 2, 2, 3, 3]
    assert h[1].delta == Chat(messages=["m1"])
    assert h[-1].state.messages[-2:] == ["m3", "re:m3"]


async def test_replay_of_many_turns_is_clean_and_follows_the_inputs(store: Store) -> None:
    """Replay re-executes every turn's nodes against the recorded inputs."""
    g = chat(store)
    await g.run("t", Chat(messages=["a"]))
    await g.continue_run("t", Chat(messages=["b"]))
    await g.continue_run("t", Chat(messages=["c"]))
    report = await g.replay("t")
    assert report.ok, str(report)
    assert report.steps == 5


async def test_fork_at_a_turns_input_step_travels_back_to_that_turn(store: Store) -> None:
    """Forking at the input step of turn 1 reruns that turn in a new thread, which continues too."""
    g = chat(store)
    await g.run("t", Chat(messages=["a"]))
    await g.continue_run("t", Chat(messages=["b"]))
    await g.continue_run("t", Chat(messages=["c"]))
    s = await g.fork("t", "t2", at_step=2, patch=Chat(messages=["edited"]))
    assert s.messages == ["a", "re:a", "b", "edited", "re:edited"]
    s = await g.continue_run("t2", Chat(messages=["d"]))
    assert s.messages[-2:] == ["d", "re:d"]
    assert (await g.get_state("t")).messages[-1] == "re:c"  # the source thread is untouched


async def test_a_paused_run_continued_drops_its_pending_interrupt(store: Store) -> None:
    """New input on a run waiting before a node starts a new turn from the start, as LangGraph does."""
    g = two_nodes(store, pause_before_b=True)
    await g.run("t", Chat(messages=["u1"]))
    assert (await g.get_interrupt("t")) is not None
    s = await g.continue_run("t", Chat(messages=["u2"]))
    assert s.messages == ["u1", "a", "u2", "a"]
    assert (await g.get_run("t")).status is RunStatus.INTERRUPTED
    s = await g.resume("t")
    assert s.messages == ["u1", "a", "u2", "a", "b"]


async def test_a_node_interrupt_can_be_answered_in_a_later_turn(store: Store) -> None:
    """A turn that pauses inside a node is answered by resume, then the thread goes on."""
    g = Engine(Chat, store=store)
    g.add("ask", lambda ctx, s: NodeResult(delta=Chat(messages=[f"ok:{ctx.interrupt('sure?')}"])))
    g.start_at("ask")
    await g.run("t", Chat(messages=["u1"]))
    await g.resume("t", input="yes")
    await g.continue_run("t", Chat(messages=["u2"]))
    s = await g.resume("t", input="no")
    assert s.messages == ["u1", "ok:yes", "u2", "ok:no"]
    assert (await g.replay("t")).ok


async def test_continuing_an_unknown_run_is_run_not_found(store: Store) -> None:
    """There is nothing to continue under an id never run."""
    with pytest.raises(RunNotFoundError, match="'nope'"):
        await chat(store).continue_run("nope", Chat(messages=["x"]))


async def test_a_second_run_of_an_id_is_still_run_exists(store: Store) -> None:
    """`run` never continues a thread: a typo'd id must not join another conversation."""
    g = chat(store)
    await g.run("t", Chat(messages=["x"]))
    with pytest.raises(RunExistsError):
        await g.run("t", Chat(messages=["y"]))


async def test_continuing_a_running_run_names_it_and_writes_nothing(store: Store) -> None:
    """While a turn runs, continue_run and update_state are RunBusyError naming the run."""
    started, release = asyncio.Event(), asyncio.Event()

    async def slow(ctx: Context, s: Chat) -> NodeResult[Chat]:
        started.set()
        await release.wait()
        return NodeResult(delta=Chat(messages=["done"]))

    g = Engine(Chat, store=store)
    g.add("slow", slow).start_at("slow")
    task = asyncio.create_task(g.run("t", Chat()))
    await started.wait()
    with pytest.raises(RunBusyError, match="'t'"):
        await g.continue_run("t", Chat(messages=["x"]))
    with pytest.raises(RunBusyError, match="'t'"):
        await g.update_state("t", Chat(messages=["x"]))
    release.set()
    assert (await task).messages == ["done"]
    assert [v.node_id for v in await g.history("t")] == ["slow"]


async def test_a_run_left_running_is_refused_with_the_way_out(store: Store) -> None:
    """A run whose status is running (its driver died) is refused as not finished, naming resume."""
    g = chat(store)
    await g.run("t", Chat(messages=["x"]))
    await store.set_status("t", RunStatus.RUNNING)
    with pytest.raises(RunNotFinishedError, match=r"resume\('t'\)"):
        await g.continue_run("t", Chat(messages=["y"]))


async def test_two_continuations_at_once_run_one_turn_each_or_refuse(store: Store) -> None:
    """Of two concurrent continuations, each either runs its own turn or is refused; none is lost half-way."""
    g = chat(store)
    await g.run("t", Chat(messages=["x"]))
    got = await asyncio.gather(
        g.continue_run("t", Chat(messages=["p"])),
        g.continue_run("t", Chat(messages=["q"])),
        return_exceptions=True,
    )
    ok = [r for r in got if isinstance(r, Chat)]
    assert ok and all(isinstance(r, Chat | RunBusyError) for r in got)
    h = await g.history("t")
    assert [v.node_id for v in h].count(INPUT_NODE) == len(ok)
    assert (await g.get_run("t")).status is RunStatus.DONE


async def test_a_bad_input_is_refused_before_anything_is_written(store: Store) -> None:
    """An input that is not a delta of the state type names the run and field; the run is unchanged."""
    g = chat(store)
    await g.run("t", Chat(messages=["x"]))
    with pytest.raises(StateValidationError, match=r"(?s)'t'.*replies"):
        await g.continue_run("t", {"replies": "many"})
    assert len(await g.history("t")) == 1
    assert (await g.get_run("t")).status is RunStatus.DONE


async def test_max_steps_counts_per_turn(store: Store) -> None:
    """Many short turns never reach a max_steps that one turn does not."""
    g = chat(store, max_steps=2)
    await g.run("t", Chat(messages=["0"]))
    for i in range(1, 5):
        await g.continue_run("t", Chat(messages=[str(i)]))
    loop = Engine(Chat, store=store, options=Options(max_steps=3))
    loop.add("again", lambda ctx, s: NodeResult(delta=Chat(replies=s.replies + 1))).start_at("again")
    loop.connect("again", "again", when=lambda s: s.replies % 10 != 0)
    with pytest.raises(MaxStepsExceeded):
        await loop.run("l", Chat(replies=1))


# ---------------------------------------------------------------------------------- update_state


async def test_update_state_of_a_finished_run_routes_as_the_named_node(store: Store) -> None:
    """An edit as node a of a finished a->b run merges the delta and waits before b, as LangGraph does."""
    g = two_nodes(store)
    await g.run("t", Chat(messages=["u"]))
    s = await g.update_state("t", Chat(messages=["edit"]), as_node="a")
    assert s.messages == ["u", "a", "b", "edit"]
    it = await g.get_interrupt("t")
    assert it is not None and it.node_id == "b" and it.before
    s = await g.resume("t")
    assert s.messages == ["u", "a", "b", "edit", "b"]
    h = await g.history("t")
    assert [(v.node_id, v.as_node) for v in h] == [("a", None), ("b", None), (UPDATE_NODE, "a"), ("b", None)]
    assert (await g.replay("t")).ok


async def test_update_state_as_the_last_node_of_a_finished_run_stays_done(store: Store) -> None:
    """Without as_node, the edit acts as the last node; its hop is the end, so the run stays done."""
    g = two_nodes(store)
    await g.run("t", Chat(messages=["u"]))
    s = await g.update_state("t", {"replies": 7})
    assert s.replies == 7 and s.messages == ["u", "a", "b"]
    assert (await g.get_run("t")).status is RunStatus.DONE
    assert (await g.history("t"))[-1].as_node == "b"


async def test_update_state_of_a_run_paused_in_a_node_keeps_the_pause(store: Store) -> None:
    """An edit of a run waiting on a node's interrupt keeps it waiting there; the answer then sees the edit."""
    g = Engine(Chat, store=store)
    g.add("ask", lambda ctx, s: NodeResult(delta=Chat(messages=[f"{ctx.interrupt('?')}:{len(s.messages)}"])))
    g.start_at("ask")
    await g.run("t", Chat(messages=["u"]))
    await g.update_state("t", Chat(messages=["edit"]))
    it = await g.get_interrupt("t")
    assert it is not None and it.node_id == "ask" and it.payload == "?"
    s = await g.resume("t", input="yes")
    assert s.messages == ["u", "edit", "yes:2"]
    assert (await g.replay("t")).ok
    forked = await g.fork("t", "f", at_step=2)  # the edit step: the fork waits on the same interrupt
    assert forked.messages == ["u", "edit"]
    assert (await g.get_interrupt("f")) is not None


async def test_update_state_refuses_an_unknown_node_naming_the_nodes(store: Store) -> None:
    """as_node must be a node of the graph."""
    g = two_nodes(store)
    await g.run("t", Chat())
    with pytest.raises(GraphValidationError, match=r"'zz'.*\['a', 'b'\]"):
        await g.update_state("t", Chat(messages=["x"]), as_node="zz")


# ---------------------------------------------------------------------------------- run context


class Deps(BaseModel):
    """What nodes need that is not state."""

    user: str
    model: str = "small"


def greet(ctx: Context[Deps], s: Chat) -> NodeResult[Chat]:
    """Greets the run context's user."""
    return NodeResult(delta=Chat(messages=[f"hello {ctx.context.user} ({ctx.context.model})"]))


async def test_nodes_read_the_run_context_of_each_call_and_nothing_of_it_is_stored(store: Store) -> None:
    """run, continue_run and resume hand their own context to the nodes; the store never sees it."""
    g = Engine(Chat, store=store)
    g.add("greet", greet).start_at("greet")
    await g.run("t", Chat(), context=Deps(user="ann"))
    s = await g.continue_run("t", Chat(messages=["again"]), context=Deps(user="bob", model="large"))
    assert s.messages == ["hello ann (small)", "again", "hello bob (large)"]
    run = await g.get_run("t")
    assert b"ann" not in run.meta and b"bob" not in run.meta
    assert all(b"ann" not in (r.calls or b"") for r in await store.load_steps("t"))


async def test_a_node_reading_the_context_without_one_gets_none(store: Store) -> None:
    """A run given no context hands None to its nodes, as LangGraph does."""
    g = Engine(Chat, store=store)
    g.add("n", lambda ctx, s: NodeResult(delta=Chat(messages=[repr(ctx.context)]))).start_at("n")
    assert (await g.run("t", Chat())).messages == ["None"]


async def test_replay_needs_the_context_again_and_says_so(store: Store) -> None:
    """Replay without the context stops at the first node reading it, naming the way out."""
    g = Engine(Chat, store=store)
    g.add("greet", greet).start_at("greet")
    await g.run("t", Chat(), context=Deps(user="ann"))
    with pytest.raises(ContextMissingError, match=r"replay\('t', context=\.\.\.\)") as err:
        await g.replay("t")
    assert err.value.step == 1 and err.value.node_id == "greet"
    assert (await g.replay("t", context=Deps(user="ann"))).ok
    assert not (await g.replay("t", context=Deps(user="eve"))).ok


async def test_the_run_path_enters_at_the_start_once_per_turn(store: Store) -> None:
    """Drawn, a run of three turns enters the graph three times and visits only real nodes."""
    from graphengine.viz import START, run_path

    g = chat(store)
    await g.run("t", Chat(messages=["a"]))
    await g.continue_run("t", Chat(messages=["b"]))
    await g.continue_run("t", Chat(messages=["c"]))
    await g.update_state("t", Chat(replies=0))
    path = await run_path(g, "t")
    assert path.visits == {"reply": 3}
    assert path.edges[(START, "reply")] == 3


async def test_the_run_context_reaches_fan_out_branches_and_subgraphs(store: Store) -> None:
    """Branches and a subgraph's nodes read the same ctx.context as the node that started them."""
    from graphengine import fan_out

    child = Engine(Chat, store=store)
    child.add("greet", greet).start_at("greet")
    g = Engine(Chat, store=store)
    g.add("split", lambda ctx, s: NodeResult(route=fan_out(["greet", "sub"], join="end")))
    g.add("greet", greet).add("sub", child).add("end", lambda ctx, s: None).start_at("split")
    s = await g.run("t", Chat(), context=Deps(user="ann"))
    assert s.messages == ["hello ann (small)", "hello ann (small)"]
    with pytest.raises(ContextMissingError):
        await g.replay("t")


async def test_update_state_with_goto_names_the_next_node(store: Store) -> None:
    """goto= sends a finished run to a node of the caller's choice instead of as_node's edges."""
    g = two_nodes(store)
    await g.run("t", Chat(messages=["u"]))
    await g.update_state("t", Chat(messages=["again"]), as_node="b", goto="a")
    assert (await g.resume("t")).messages == ["u", "a", "b", "again", "a", "b"]
    with pytest.raises(GraphValidationError, match="goto='nope'"):
        await g.update_state("t", Chat(), goto="nope")


async def test_a_failed_turn_resumes_within_its_own_step_budget_or_is_continued(store: Store) -> None:
    """A turn that failed is retried by resume (max_steps counted from its input) or left behind by the next turn."""
    fail = {"on": False}

    def flaky(ctx: Context, s: Chat) -> NodeResult[Chat]:
        if fail["on"]:
            raise RuntimeError("model down")
        return NodeResult(delta=Chat(messages=[f"re:{s.messages[-1]}"]))

    g = Engine(Chat, store=store, options=Options(max_steps=2))
    g.add("flaky", flaky).start_at("flaky")
    await g.run("t", Chat(messages=["0"]))
    for i in range(1, 4):
        await g.continue_run("t", Chat(messages=[str(i)]))
    fail["on"] = True
    with pytest.raises(Exception, match="model down"):
        await g.continue_run("t", Chat(messages=["4"]))
    assert (await g.get_run("t")).status is RunStatus.FAILED
    fail["on"] = False
    assert (await g.resume("t")).messages[-2:] == ["4", "re:4"]  # step 10 of a 2-step-per-turn budget
    fail["on"] = True
    with pytest.raises(Exception, match="model down"):
        await g.continue_run("t", Chat(messages=["5"]))
    fail["on"] = False
    s = await g.continue_run("t", Chat(messages=["6"]))
    assert s.messages[-3:] == ["5", "6", "re:6"]
    assert (await g.get_run("t")).error is None


class Notes(TypedDict):
    """A TypedDict state: notes accumulate."""

    notes: Annotated[list[str], append]


async def test_a_typed_dict_thread_continues_with_a_partial_dict(store: Store) -> None:
    """A TypedDict state takes a turn's input as a dict of some of its keys, merged through the field's reducer."""
    g = Engine(Notes, store=store)
    g.add("echo", lambda ctx, s: NodeResult(delta={"notes": [s["notes"][-1].upper()]})).start_at("echo")
    await g.run("t", {"notes": ["a"]})
    s = await g.continue_run("t", {"notes": ["b"]})
    assert s == {"notes": ["a", "A", "b", "B"]}
    with pytest.raises(StateValidationError, match="'t'"):
        await g.continue_run("t", {"notes": "not a list"})


async def test_a_turn_streams_its_input_step_then_its_nodes_with_the_context(store: Store) -> None:
    """stream_continue yields the turn's input step, then its nodes' steps; nodes read the stream's context."""
    g = Engine(Chat, store=store)
    g.add("greet", greet).start_at("greet")
    first = [ev async for ev in g.stream("t", Chat(), context=Deps(user="ann"))]
    assert [e.node_id for e in first if e.kind == "step"] == ["greet"]
    stream = g.stream_continue("t", {"messages": ["again"]}, states=True, context=Deps(user="bob"))
    steps = [ev for ev in await stream.collect() if ev.kind == "step"]
    assert [e.node_id for e in steps] == [INPUT_NODE, "greet"]
    assert steps[-1].meta["state"].messages == ["hello ann (small)", "again", "hello bob (small)"]
    assert stream.result is not None and stream.result.messages[-1] == "hello bob (small)"


def test_the_sync_forms_continue_and_edit_a_thread_from_plain_code() -> None:
    """continue_run_sync and resume_sync work without an event loop, as run_sync does."""
    from graphengine.store import MemoryStore

    g = two_nodes(MemoryStore(), pause_before_b=True)
    g.run_sync("t", Chat(messages=["u1"]))
    assert g.continue_run_sync("t", {"messages": ["u2"]}).messages == ["u1", "a", "u2", "a"]
    assert g.resume_sync("t").messages[-1] == "b"


async def test_the_sync_forms_work_inside_a_running_loop_too() -> None:
    """continue_run_sync called from code running on an event loop (a notebook cell) continues the thread."""
    from graphengine.store import MemoryStore

    g = chat(MemoryStore())
    await g.run("t", Chat(messages=["a"]))
    assert g.continue_run_sync("t", Chat(messages=["b"])).messages[-1] == "re:b"
