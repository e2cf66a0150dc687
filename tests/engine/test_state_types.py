"""State types as users write them: `typing.TypedDict` (LangGraph's usual style) on every supported
Python, including 3.11 (where pydantic accepts only `typing_extensions.TypedDict`), and deltas that
leave out required keys."""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Literal, TypedDict

import pytest
from pydantic import BaseModel, Field

from graphengine import Context, Engine, NodeResult, stop
from graphengine.store import SQLiteStore, Store, adaptable_type


class Inner(TypedDict, total=False):
    x: int


class State(TypedDict):
    n: int
    mode: Literal["a", "b"]
    items: Annotated[list[str], operator.add]
    inner: Inner | None
    inners: list[Inner]


def bump(ctx: Context, s: State) -> NodeResult[State]:
    return NodeResult(delta={"n": s["n"] + 1, "items": ["x"], "inner": {"x": s["n"]}}, route=stop())


async def test_a_typing_typeddict_state_runs_and_reads_back(tmp_path: Path) -> None:
    """A run over a `typing.TypedDict` state merges with its reducers, and history and state read back."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        g = Engine(State, store=store)
        g.add("bump", bump).start_at("bump")
        initial: State = {"n": 1, "mode": "a", "items": ["i"], "inner": None, "inners": [{}]}
        final = await g.run("r1", initial)
        assert final == {"n": 2, "mode": "a", "items": ["i", "x"], "inner": {"x": 1}, "inners": [{}]}
        assert await g.get_state("r1") == final
        steps = await g.history("r1")
        assert [s.node_id for s in steps] == ["bump"]


def test_the_adaptable_type_keeps_keys_and_metadata() -> None:
    """The pydantic-ready form keeps the name, required and optional keys and Annotated reducers."""
    import typing

    tp = adaptable_type(State)
    assert tp.__name__ == "State"
    assert tp.__required_keys__ == State.__required_keys__
    assert adaptable_type(Inner).__optional_keys__ == frozenset({"x"})
    hints = typing.get_type_hints(tp, include_extras=True)
    assert "add" in str(hints["items"])
    assert adaptable_type(int) is int


class Required2(BaseModel):
    a: int
    b: str
    tags: Annotated[list[str], operator.add] = []


def set_a(ctx: Context, s: Required2) -> NodeResult[Required2]:
    return NodeResult(delta=Required2.model_construct(_fields_set={"a", "tags"}, a=s.a + 1, tags=["t"]))


async def test_partial_deltas_read_back_from_a_database(tmp_path: Path) -> None:
    """Deltas that leave out required keys (a total TypedDict, a model with required fields) are
    stored, and history and the state fold them back (they are validated as partial values)."""
    async with SQLiteStore(tmp_path / "runs.db") as store:
        g = Engine(State, store=store)
        g.add("bump", lambda ctx, s: NodeResult(delta={"n": s["n"] + 1})).start_at("bump")
        await g.run("td", {"n": 1, "mode": "b", "items": [], "inner": None, "inners": []})
        assert (await g.history("td"))[0].delta == {"n": 2}
        assert (await g.get_state("td"))["n"] == 2

        m = Engine(Required2, store=store)
        m.add("set_a", set_a).start_at("set_a")
        await m.run("model", Required2(a=1, b="x"))
        (view,) = await m.history("model")
        assert view.delta.model_fields_set == {"a", "tags"}
        assert await m.get_state("model") == Required2(a=2, b="x", tags=["t"])


def test_a_partial_delta_is_still_validated() -> None:
    """A partial delta with a wrong value is refused (partial does not mean unchecked)."""
    from graphengine.store import JsonCodec

    with pytest.raises(ValueError, match="n"):
        JsonCodec(State).decode_delta(b'{"n": "not a number"}')
    with pytest.raises(ValueError, match="a"):
        JsonCodec(Required2).decode_delta(b'{"a": "x"}')
    with pytest.raises(ValueError, match="no field"):
        JsonCodec(Required2).decode_delta(b'{"zzz": 1}')


class Aliased(BaseModel):
    """A model whose field has an alias (as APIs spell their keys): `x` is written `X`."""

    x: int = Field(0, alias="X")
    nested: Aliased | None = None


async def test_fields_with_an_alias_keep_their_values_through_the_store(store: Store) -> None:
    """A field with an alias keeps its value in the initial state, in deltas, in nested models and
    in what is read back: nothing falls back to its default."""

    def inc(ctx: Context, s: Aliased) -> NodeResult[Aliased]:
        return NodeResult(delta=Aliased(X=s.x + 1, nested=Aliased(X=s.x * 10)), route=stop())

    g = Engine(Aliased, store=store).add("inc", inc).start_at("inc")
    final = await g.run("r", Aliased(X=5))
    assert (final.x, final.nested.x if final.nested else None) == (6, 50)
    assert (await g.get_state("r")).x == 6
    assert [s.state.x for s in await g.history("r")] == [6]
    assert (await g.replay("r")).ok
