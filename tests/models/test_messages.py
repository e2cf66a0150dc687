"""`add_messages` and `MessagesState`: LangGraph's own `add_messages` as the oracle on the same
operations, property tests of what the reducer promises, and a conversation in a graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphengine import Context, Engine, NodeResult
from graphengine.models import REMOVE_ALL, Message, MessagesState, add_messages
from graphengine.reducer import default_reducer, is_pure
from graphengine.store import MemoryStore
from graphengine.testing import assert_replays

lc = pytest.importorskip("langchain_core.messages", reason="langchain-core is not installed")
lg_message = pytest.importorskip("langgraph.graph.message", reason="langgraph is not installed")

ROLES = ("user", "assistant", "system")
_TO_LC = {"user": "HumanMessage", "assistant": "AIMessage", "system": "SystemMessage"}
_FROM_LC = {"human": "user", "ai": "assistant", "system": "system"}
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def to_lc(m: Message) -> Any:
    """The LangChain message LangGraph's reducer gets for one of ours."""
    if m.role == "remove":
        return lc.RemoveMessage(id=lg_message.REMOVE_ALL_MESSAGES if m.id == REMOVE_ALL else m.id)
    return getattr(lc, _TO_LC[m.role])(content=m.content, id=m.id)


def shape(msgs: Sequence[Any]) -> list[tuple[str, str, str]]:
    """(role, content, id) of each message; generated ids (ours or LangGraph's uuids) read ``*``."""
    out = []
    for m in msgs:
        role = m.role if isinstance(m, Message) else _FROM_LC[m.type]
        mid = m.id if m.id and m.id.startswith("x") else "*"
        out.append((role, str(m.content), mid))
    return out


@st.composite
def scripts(draw: st.DrawFn) -> list[list[Message]]:
    """Deltas of appends (with or without ids), replacements, removals and removals of all.

    Ids are drawn from those the conversation holds at that point (LangGraph's result is the
    reference). After a remove-all only appends with fresh ids follow in that delta: there
    LangGraph keeps the rest of the delta unmerged (removal markers and duplicate ids
    included), where ours merges it into an empty conversation.
    """
    fresh = iter(range(10**6))
    state: list[Any] = []
    deltas = []
    for _ in range(draw(st.integers(1, 5))):
        ids = [m.id for m in state if m.id.startswith("x")]
        delta: list[Message] = []
        after_remove_all = False
        for _ in range(draw(st.integers(0, 5))):
            kinds = ["add", "add_noid"]
            if not after_remove_all:
                kinds += ["remove_all"] + (["replace", "remove"] if ids else [])
            kind = draw(st.sampled_from(kinds))
            role = draw(st.sampled_from(ROLES))
            text = draw(st.sampled_from(["hi", "yes", "no", ""]))
            if kind == "add":
                mid = f"x{next(fresh)}"
                delta.append(Message(role=role, content=text, id=mid))
                if not after_remove_all:
                    ids.append(mid)
            elif kind == "add_noid" and not after_remove_all:
                delta.append(Message(role=role, content=text))
            elif kind == "add_noid":
                delta.append(Message(role=role, content=text, id=f"x{next(fresh)}"))
            elif kind == "replace":
                delta.append(Message(role=role, content=text + "!", id=draw(st.sampled_from(ids))))
            elif kind == "remove":
                delta.append(Message.remove(draw(st.sampled_from(ids))))
            else:
                delta.append(Message.remove_all())
                after_remove_all = True
        state = lg_message.add_messages(state, [to_lc(m) for m in delta])
        deltas.append(delta)
    return deltas


@SETTINGS
@given(scripts())
def test_same_conversation_as_langgraphs_add_messages(deltas: list[list[Message]]) -> None:
    """Every sequence of appends, replacements and removals gives LangGraph's messages, in its order."""
    ours: list[Message] = []
    theirs: list[Any] = []
    for delta in deltas:
        ours = add_messages(ours, delta)
        theirs = lg_message.add_messages(theirs, [to_lc(m) for m in delta])
        assert shape(ours) == shape(theirs)


def test_removing_an_unknown_id_is_refused_as_by_langgraph() -> None:
    """Removing an id the conversation does not hold raises ValueError, as LangGraph's does."""
    with pytest.raises(ValueError, match="'nope'"):
        add_messages([Message.user("hi")], [Message.remove("nope")])
    with pytest.raises(ValueError):
        lg_message.add_messages([lc.HumanMessage("hi")], [lc.RemoveMessage(id="nope")])


messages = st.builds(
    Message,
    role=st.sampled_from(ROLES),
    content=st.text(max_size=8),
    id=st.none() | st.sampled_from(["a", "b", "c"]),
)
conversations = st.lists(messages, max_size=6).map(lambda ms: add_messages([], ms))


@SETTINGS
@given(conversations, st.lists(st.sampled_from(ROLES), max_size=5))
def test_messages_with_fresh_ids_are_appended(prev: list[Message], roles: list[str]) -> None:
    """A delta of messages whose ids are new is appended, unchanged, in order."""
    delta = [Message(role=r, content=str(i), id=f"fresh{i}") for i, r in enumerate(roles)]
    assert add_messages(prev, delta) == [*prev, *delta]


@SETTINGS
@given(conversations.filter(bool), st.data())
def test_a_replacement_keeps_its_place(prev: list[Message], data: st.DataObject) -> None:
    """A message with an id already held replaces that message where it stands."""
    i = data.draw(st.integers(0, len(prev) - 1))
    new = Message.assistant("replaced").model_copy(update={"id": prev[i].id})
    assert add_messages(prev, [new]) == [*prev[:i], new, *prev[i + 1 :]]


@SETTINGS
@given(conversations, st.lists(messages, max_size=5))
def test_remove_all_then_add_is_the_added(prev: list[Message], added: list[Message]) -> None:
    """Removing all and adding messages in the same delta leaves what adding them to nothing gives."""
    assert add_messages(prev, [Message.remove_all(), *added]) == add_messages([], added)


@SETTINGS
@given(conversations, st.lists(messages, max_size=5))
def test_ids_are_deterministic_unique_and_inputs_untouched(prev: list[Message], delta: list[Message]) -> None:
    """Merging twice gives equal lists; every merged message has an id, no two the same; inputs unchanged."""
    before = (list(prev), list(delta))
    out = add_messages(prev, delta)
    assert out == add_messages(prev, delta)
    ids = [m.id for m in out]
    assert None not in ids and len(set(ids)) == len(ids)
    assert (prev, delta) == before


@SETTINGS
@given(conversations.filter(bool), st.data())
def test_removal_drops_exactly_that_message(prev: list[Message], data: st.DataObject) -> None:
    """Removing an id keeps every other message, in order."""
    gone = data.draw(st.sampled_from(prev)).id
    assert gone is not None
    assert add_messages(prev, [Message.remove(gone)]) == [m for m in prev if m.id != gone]


def test_mappings_are_validated_into_messages() -> None:
    """JSON-shaped items (a dict state, LangGraph channels) merge as the messages they describe."""
    prev: Any = [{"role": "user", "content": "a", "id": "1"}]
    delta: Any = [{"role": "assistant", "id": "1"}]
    assert add_messages(prev, delta) == [Message(role="assistant", id="1")]


async def test_a_messages_state_under_to_langgraph_merges_json_input() -> None:
    """Adapted to LangGraph, a `MessagesState` graph takes messages as dicts, as LangGraph users send them."""
    from graphengine.adapters.langgraph import to_langgraph

    lg = to_langgraph(_chat_engine())
    out = await lg.ainvoke({"messages": [{"role": "user", "content": " hi ", "id": "q"}]})
    assert [(m.role, m.content, m.id) for m in out["messages"]][:1] == [("user", "hi", "q")]
    assert out["messages"][1].content == "you said hi" and out["turns"] == 1


def test_a_messages_state_reducer_is_known_pure() -> None:
    """The engine knows `add_messages` never changes its inputs, so it copies no state before merging."""
    assert is_pure(default_reducer(MessagesState) or add_messages)


def test_a_single_message_is_a_delta_of_one() -> None:
    """A message given alone (a dict state's value) merges as a list of one."""
    assert add_messages([], Message.user("hi")) == add_messages([], [Message.user("hi")])


class Chat(MessagesState):
    """A conversation and a turn counter."""

    turns: int = 0


def _chat_engine() -> Engine[Chat]:
    async def reply(ctx: Context, s: Chat) -> NodeResult[Chat]:
        last = s.messages[-1]
        fixed = last.model_copy(update={"content": last.content.strip()})
        return NodeResult(
            delta=Chat(messages=[fixed, Message.assistant(f"you said {fixed.content}")], turns=s.turns + 1)
        )

    eng = Engine(Chat, store=MemoryStore())
    eng.add("reply", reply).start_at("reply")
    return eng


async def test_messages_state_merges_in_a_graph_and_replays() -> None:
    """Nodes add to a `MessagesState` through the reducer; generated ids survive replay without divergence."""
    eng = _chat_engine()
    first = [Message.system("be kind"), Message.user("  hello ", id="q1")]
    final = await eng.run("c", Chat(messages=first))
    assert [(m.role, m.content) for m in final.messages] == [
        ("system", "be kind"),
        ("user", "hello"),
        ("assistant", "you said hello"),
    ]
    assert final.turns == 1
    assert final.messages[0].id is not None and final.messages[1].id == "q1"
    await assert_replays(eng, "c")
    assert (await eng.get_state("c")) == final


async def test_a_trimming_chat_graph_ends_with_langgraphs_messages() -> None:
    """A graph that answers, edits the message before the answer in place and trims its history
    to three messages ends with the messages LangGraph's `MessagesState` graph of the same shape
    ends with, run natively."""
    graph_mod = pytest.importorskip("langgraph.graph")

    def lg_bot(s: Any) -> dict[str, Any]:
        last = s["messages"][-1]
        return {"messages": [lc.AIMessage(f"echo {last.content}")]}

    def lg_edit(s: Any) -> dict[str, Any]:
        first = s["messages"][-2]
        return {"messages": [type(first)(first.content.upper(), id=first.id)]}

    def lg_trim(s: Any) -> dict[str, Any]:
        return {"messages": [lc.RemoveMessage(id=m.id) for m in s["messages"][:-3]]}

    def lg_again(s: Any) -> str:
        return "bot" if len([m for m in s["messages"] if m.type == "ai"]) < 3 else graph_mod.END

    b = graph_mod.StateGraph(graph_mod.MessagesState)
    b.add_node("bot", lg_bot).add_node("edit", lg_edit).add_node("trim", lg_trim)
    b.add_edge(graph_mod.START, "bot")
    b.add_edge("bot", "edit")
    b.add_edge("edit", "trim")
    b.add_conditional_edges("trim", lg_again)
    theirs = b.compile().invoke({"messages": [lc.HumanMessage("hi"), lc.HumanMessage("there")]})

    eng = Engine(MessagesState, store=MemoryStore())

    def bot(ctx: Context, s: MessagesState) -> NodeResult[MessagesState]:
        return NodeResult(delta=MessagesState(messages=[Message.assistant(f"echo {s.messages[-1].content}")]))

    def edit(ctx: Context, s: MessagesState) -> NodeResult[MessagesState]:
        first = s.messages[-2]
        return NodeResult(
            delta=MessagesState(messages=[first.model_copy(update={"content": first.content.upper()})])
        )

    def trim(ctx: Context, s: MessagesState) -> NodeResult[MessagesState]:
        return NodeResult(delta=MessagesState(messages=[Message.remove(m.id or "") for m in s.messages[:-3]]))

    eng.add("bot", bot).add("edit", edit).add("trim", trim).start_at("bot")
    eng.connect("bot", "edit").connect("edit", "trim")
    eng.connect("trim", "bot", when=lambda s: len([m for m in s.messages if m.role == "assistant"]) < 3)
    first = [Message.user("hi", id="h1"), Message.user("there", id="h2")]
    ours = await eng.run("trim", MessagesState(messages=first))
    assert shape(ours.messages) == shape(theirs["messages"])
    await assert_replays(eng, "trim")
