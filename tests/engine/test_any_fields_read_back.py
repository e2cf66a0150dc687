"""A value in a field whose type does not fix it (`Any`, a bare `dict`, `list[Any]`) is committed
only if it reads back as itself; otherwise the step is refused with `EncodeError` naming the path.

JSON gives such a field back as whatever JSON holds: a tuple as a list, an int key as a str, an
Enum as its value, a datetime, Decimal or UUID as a str, a set as a list, a model as a dict. The
engine decoded every delta from the bytes it wrote and went on with that copy, so a run changed
its values' types silently. Declared in the state type, each of these is stored exactly.
The oracle of "reads back as itself" is the standard library: `json.loads(json.dumps(v))` has
the same `repr` as `v` (it raises or differs exactly for the values JSON does not keep).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import decimal
import enum
import json
import uuid
from pathlib import Path
from typing import Any, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from graphengine import (
    Branch,
    Context,
    EncodeError,
    Engine,
    NodeResult,
    StateValidationError,
    fan_out,
    stop,
)
from graphengine.store import MemoryStore, RunStatus, SQLiteStore


class Color(enum.Enum):
    """A plain Enum."""

    RED = "red"


class Level(enum.IntEnum):
    """An IntEnum: equal to its int, yet not an int."""

    HIGH = 3


class Tag(str):
    """A str subclass: equal to its str, yet not a str."""


class Inner(BaseModel):
    """A model put in an Any field."""

    x: int = 1


@dataclasses.dataclass
class Rec:
    """A dataclass put in an Any field."""

    y: int = 2


class M(BaseModel):
    """A model state with fields whose types do not fix their values."""

    a: Any = None
    bare: dict = {}  # type: ignore[type-arg]
    items: list[Any] = []
    n: int = 0


class T(TypedDict, total=False):
    """A TypedDict state with an Any field."""

    a: Any
    n: int


@dataclasses.dataclass
class D:
    """A dataclass state with an Any field."""

    a: Any = None
    n: int = 0


CHANGED: list[tuple[str, Any, str]] = [
    ("tuple", (1, 2), "a tuple would read back as a list"),
    ("int key", {1: "a"}, "an int key would read back as a str"),
    ("enum", Color.RED, "Enum (Color) would read back as a str"),
    ("int enum", Level.HIGH, "Enum (Level) would read back as an int"),
    ("datetime", datetime.datetime(2026, 1, 2, 3, 4), "datetime.datetime would read back as a str"),
    ("date", datetime.date(2026, 1, 2), "datetime.date would read back as a str"),
    ("decimal", decimal.Decimal("1.10"), "decimal.Decimal would read back as a str"),
    ("uuid", uuid.UUID(int=7), "uuid.UUID would read back as a str"),
    ("set", {1, 2}, "a set would read back as a list"),
    ("frozenset", frozenset({1}), "a frozenset would read back as a list"),
    ("model", Inner(), "Inner would read back as a dict"),
    ("dataclass", Rec(), "Rec would read back as a dict"),
    ("bytes", b"ab", "a bytes would read back as a str"),
    ("ordered dict", collections.OrderedDict(k=1), "OrderedDict would read back as a dict"),
    ("str subclass", Tag("t"), "Tag would read back as a str"),
    ("nested tuple", [1, {"deep": (2,)}], "tuple would read back as a list"),
]
IDS = [c[0] for c in CHANGED]


def one_step(tp: Any, delta: Any) -> Engine[Any]:
    async def node(ctx: Context, s: Any) -> NodeResult[Any]:
        return NodeResult(delta=delta, route=stop())

    # a dataclass state has no default reducer: its delta replaces the state
    reducer = (lambda prev, d: d) if dataclasses.is_dataclass(tp) else None
    g: Engine[Any] = Engine(tp, store=MemoryStore(), reducer=reducer)
    g.add("n", node).start_at("n")
    return g


async def refused(g: Engine[Any], field: str) -> EncodeError:
    with pytest.raises(EncodeError) as info:
        await g.run("r", D() if g.state_type is D else {})
    assert info.value.field == field
    rec = await g.store.get_run("r")
    assert rec is not None and rec.status is RunStatus.FAILED
    assert await g.store.load_steps("r") == []
    return info.value


@pytest.mark.parametrize(("name", "value", "why"), CHANGED, ids=IDS)
async def test_a_model_delta_that_would_change_type_is_refused_by_path(
    name: str, value: Any, why: str
) -> None:
    """In a model's Any field: EncodeError (field "delta") naming the field and what it would become."""
    err = await refused(one_step(M, M(a=value)), "delta")
    assert why in str(err) and "at a" in str(err)


@pytest.mark.parametrize(("name", "value", "why"), CHANGED, ids=IDS)
async def test_a_typeddict_or_dataclass_delta_that_would_change_type_is_refused(
    name: str, value: Any, why: str
) -> None:
    """The same in a TypedDict state and in a dataclass state."""
    assert why in str(await refused(one_step(T, {"a": value}), "delta"))
    assert why in str(await refused(one_step(D, D(a=value)), "delta"))


async def test_bare_and_any_item_containers_are_compared_too() -> None:
    """A bare `dict` field and a `list[Any]` field name the path inside them."""
    err = await refused(one_step(M, M(bare={"k": (1,)})), "delta")
    assert "bare.k" in str(err)
    err = await refused(one_step(M, M(items=[0, Color.RED])), "delta")
    assert "items[1]" in str(err)


@pytest.mark.parametrize(("name", "value", "why"), CHANGED, ids=IDS)
async def test_an_initial_state_that_would_change_type_is_refused(name: str, value: Any, why: str) -> None:
    """Refused before the run is stored, as StateValidationError naming what would change."""
    g = one_step(T, None)
    with pytest.raises(StateValidationError, match="would not read back"):
        await g.run("r", {"a": value})
    assert await g.store.get_run("r") is None


class Declared(BaseModel):
    """The same values, declared: each reads back as itself."""

    t: tuple[int, ...] = ()
    keys: dict[int, str] = {}
    color: Color = Color.RED
    level: Level = Level.HIGH
    when: datetime.datetime = datetime.datetime(2000, 1, 1)
    amount: decimal.Decimal = decimal.Decimal("0")
    id: uuid.UUID = uuid.UUID(int=0)
    s: set[int] = set()
    inner: Inner = Inner()
    rec: Rec = Rec()


async def test_declared_types_are_stored_exactly_and_read_back_after_a_reopen(tmp_path: Path) -> None:
    """Declared fields commit, and a second store object on the file reads the very same values."""
    value = Declared(
        t=(1, 2),
        keys={1: "a"},
        color=Color.RED,
        level=Level.HIGH,
        when=datetime.datetime(2026, 1, 2),
        amount=decimal.Decimal("1.10"),
        id=uuid.UUID(int=7),
        s={3},
        inner=Inner(x=5),
        rec=Rec(y=6),
    )

    async def node(ctx: Context, s: Declared) -> NodeResult[Declared]:
        return NodeResult(delta=value, route=stop())

    db = tmp_path / "runs.db"
    async with SQLiteStore(db) as store:
        g: Engine[Declared] = Engine(Declared, store=store)
        g.add("n", node).start_at("n")
        assert repr(await g.run("r", {})) == repr(value)
    async with SQLiteStore(db) as store:
        g2: Engine[Declared] = Engine(Declared, store=store)
        g2.add("n", node).start_at("n")
        assert repr(await g2.get_state("r")) == repr(value)


def fan_engine(tp: Any, branch_delta: Any, branch_input: Any = None) -> Engine[Any]:
    async def split(ctx: Context, s: Any) -> NodeResult[Any]:
        return NodeResult(route=fan_out([Branch("work", branch_input)], join="join"))

    async def work(ctx: Context, s: Any) -> NodeResult[Any]:
        return NodeResult(delta=branch_delta)

    async def join(ctx: Context, s: Any) -> NodeResult[Any]:
        return NodeResult(route=stop())

    g: Engine[Any] = Engine(tp, store=MemoryStore())
    g.add("split", split).add("work", work).add("join", join).start_at("split")
    return g


async def test_a_fan_out_branch_delta_or_input_that_would_change_type_is_refused() -> None:
    """A branch's delta (field "branch 0 delta") and a branch's input (field "route") are compared too."""
    g = fan_engine(M, M(a=(1,)))
    with pytest.raises(EncodeError, match="tuple would read back as a list") as info:
        await g.run("r", {})
    assert info.value.field == "branch 0 delta"
    g = fan_engine(M, None, M(a={1: 2}))
    with pytest.raises(EncodeError, match="int key would read back as a str") as info:
        await g.run("r", {})
    assert info.value.field == "route"


async def test_a_reducer_that_makes_a_value_json_changes_is_refused_at_the_snapshot() -> None:
    """A custom reducer putting a tuple into an Any field: the state snapshot is refused (field "state")."""

    def to_tuple(prev: M, delta: M) -> M:
        return M(a=tuple(delta.a or ()), n=delta.n)

    async def node(ctx: Context, s: M) -> NodeResult[M]:
        return NodeResult(delta=M(a=[1, 2]), route=stop())

    g: Engine[M] = Engine(M, store=MemoryStore(), reducer=to_tuple)
    g.add("n", node).start_at("n")
    with pytest.raises(EncodeError, match="tuple would read back as a list") as info:
        await g.run("r", {})
    assert info.value.field == "state"


async def test_update_state_and_continue_run_refuse_values_that_would_change_type() -> None:
    """The edits of a stopped run refuse them as StateValidationError, nothing written."""
    g = one_step(T, {"n": 1})
    await g.run("r", {})
    steps = len(await g.store.load_steps("r"))
    with pytest.raises(StateValidationError, match="tuple would read back"):
        await g.update_state("r", {"a": (1, 2)})
    with pytest.raises(StateValidationError, match="Enum"):
        await g.continue_run("r", {"a": Color.RED})
    assert len(await g.store.load_steps("r")) == steps


def _json_keeps(value: Any) -> bool:
    try:
        return repr(json.loads(json.dumps(value))) == repr(value)
    except (TypeError, ValueError):
        return False


leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=5),
    st.sampled_from([Color.RED, Level.HIGH, datetime.date(2026, 1, 1), decimal.Decimal("2.5"), b"x"]),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.dictionaries(st.integers(-3, 3), inner, max_size=2),
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(value=values)
async def test_an_any_value_commits_exactly_when_json_keeps_it(value: Any) -> None:
    """Committed iff the standard library's JSON round trip keeps its repr; committed values read back equal."""
    g = one_step(T, {"a": value})
    if _json_keeps(value):
        out = await g.run("r", {})
        assert repr(out["a"]) == repr(value)
        assert repr((await g.get_state("r"))["a"]) == repr(value)
    else:
        with pytest.raises(EncodeError):
            await g.run("r", {})


def test_a_state_type_whose_fields_fix_their_values_needs_no_comparison() -> None:
    """The step loop compares nothing for the benchmark's kind of state (plain fields, nested models)."""
    from graphengine._encoding import plan_for

    class Plain(BaseModel):
        n: int = 0
        names: list[str] = []
        inner: Inner | None = None
        by_id: dict[int, Inner] = {}

    assert plan_for(Plain) is None
    plan = plan_for(M)
    assert plan is not None and set(plan.fields) == {"a", "bare", "items"}


class WithDefault(BaseModel):
    """An Any field whose default JSON would change: a tuple."""

    a: Any = (1, 2)
    n: int = 0


async def test_an_any_default_that_json_changes_is_refused_in_a_whole_state() -> None:
    """The initial state is compared on every field, defaults included (they are stored too)."""
    g = one_step(WithDefault, None)
    with pytest.raises(StateValidationError, match="tuple would read back as a list"):
        await g.run("r", WithDefault())
