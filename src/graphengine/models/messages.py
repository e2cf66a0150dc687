"""`add_messages`, the reducer of a conversation, and `MessagesState`, a state that holds one.

    class Chat(MessagesState):
        turns: int = 0

    async def answer(ctx: Context, s: Chat) -> NodeResult[Chat]:
        out = await chat(ctx, model, s.messages)
        return NodeResult(delta=Chat(messages=[out.to_message()], turns=s.turns + 1))

A node returns only the messages it adds (or replaces, or removes); the reducer merges them
into the conversation, as LangGraph's ``add_messages`` does:

- a message whose id is not in the conversation is appended;
- a message whose id is already there replaces that message, in its place;
- `Message.remove(id)` removes the message `id` (an unknown id is a `ValueError`);
- `Message.remove_all()` drops every message before it; what follows it in the delta is
  merged into an empty conversation.

A run's initial state is not merged (it is the state), so its messages keep the ids they were
given; those without one get theirs at the first merge. Give an initial message an id
(``Message.user("hi", id="q1")``) when the first node must replace or remove it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Container, Sequence
from typing import Annotated, Any

from pydantic import BaseModel

from .chat import REMOVE_ALL, Message

__all__ = ["MessagesState", "add_messages"]


def add_messages(prev: Sequence[Message], delta: Sequence[Message] | Message) -> list[Message]:
    """Field reducer of a conversation: append, replace by id, remove by id (see the module doc).

    Messages without an id, in `prev` or in `delta`, get one: ``msg-`` and a hash of the id
    of the message before it in the merged list and of the message's own content (salted
    until it is unique in the list). Never a random id: the reducer is a pure function of
    the previous list and the delta, so resume, replay and fork rebuild the same ids, and a
    replayed step cannot diverge over an id (the delta stored with a step keeps no
    generated id; only the merged state does).

    Pure: neither argument is changed (messages are frozen; ids are set on copies). Items that
    are mappings (JSON input, a dict state, LangGraph's channels under `to_langgraph`) are
    validated into `Message`s (pydantic's `ValidationError` if they are not messages).
    Within one delta, operations apply in order and the last one on an id wins (a removal
    then a message with the same id keeps the message, in the removed one's place). Raises
    `ValueError` when a removal names an id that is not in the conversation.
    """
    items = [delta] if isinstance(delta, Message) else [_message(m) for m in delta]
    for i in range(len(items) - 1, -1, -1):
        if items[i].role == "remove" and items[i].id == REMOVE_ALL:
            prev, items = [], items[i + 1 :]
            break
    merged, where = _indexed(prev)
    removed: set[str] = set()
    for m in items:
        if m.role == "remove":
            if m.id not in where:
                raise ValueError(
                    f"cannot remove message {m.id!r}: no message with that id in the conversation "
                    f"({len(merged)} messages)"
                )
            removed.add(m.id)
        else:
            removed.discard(_put(merged, where, m, replace=True))
    return [m for m in merged if m.id not in removed] if removed else merged


add_messages.pure = True  # type: ignore[attr-defined]  # never changes its inputs: no defensive copies


def _indexed(prev: Sequence[Message]) -> tuple[list[Message], dict[str, int]]:
    """A copy of `prev` in which every message has an id, and each id's position."""
    merged = list(prev)
    if all(type(m) is Message and m.id is not None for m in merged):  # the usual case: merged before
        return merged, {m.id: i for i, m in enumerate(merged)}  # type: ignore[misc]
    where: dict[str, int] = {}
    merged = []
    for m in prev:
        _put(merged, where, _message(m), replace=False)
    return merged, where


def _message(m: Message | Any) -> Message:
    return m if isinstance(m, Message) else Message.model_validate(m)


def _put(merged: list[Message], where: dict[str, int], m: Message, *, replace: bool) -> str:
    """Append `m` (with an id) or, with `replace`, put it in the place of the message with its id."""
    if m.id is None:
        m = m.model_copy(update={"id": _fresh_id(m, merged[-1].id if merged else None, where)})
    mid = m.id
    assert mid is not None  # set just above
    at = where.get(mid) if replace else None
    if at is None:
        where[mid] = len(merged)
        merged.append(m)
    else:
        merged[at] = m
    return mid


def _fresh_id(m: Message, before: str | None, taken: Container[str]) -> str:
    seed = f"{before or ''}\0{m.model_dump_json()}"
    salt = 0
    while True:
        mid = "msg-" + hashlib.blake2b(f"{seed}\0{salt}".encode(), digest_size=8).hexdigest()
        if mid not in taken:
            return mid
        salt += 1


class MessagesState(BaseModel):
    """A state holding a conversation in `messages`, merged by `add_messages`; subclass it to add fields."""

    messages: Annotated[list[Message], add_messages] = []
    """The conversation, oldest first; every message in a merged state has an id."""
