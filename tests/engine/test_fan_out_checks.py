"""What a fan-out commits reads back: map-branch inputs and branch deltas, on every store backend.

The fan-out checks its route's branch inputs part by part (each input encoded once, decoded once
from those bytes) instead of parsing the whole route twice; these probes hold it to the same
guarantees as a single step: a value that cannot be stored so that it reads back is an
`EncodeError` naming run, step, node and field, nothing of the failing step is committed, and the
run is left failed and readable. The oracles are the bad values of the adversarial suite, the
route a resume decodes from the stored text (`RouteCodec.decode`, the full parse), and a nesting
depth counted by a recursion written here.
"""

from __future__ import annotations

import json
import math
import uuid
from typing import Annotated, Any

import pytest
from engine_probes import BAD_DELTAS, S, assert_readable, nest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, field_validator

import graphengine._encoding as encoding_module
import graphengine._loop as loop_module
from graphengine import (
    Branch,
    Context,
    EncodeError,
    Engine,
    GraphError,
    NodeResult,
    append,
    fan_out,
    goto,
    stop,
)
from graphengine.store import JsonCodec, RunStatus, Store

ROUTE_MAX_DEPTH = 31
"""The deepest route JSON every backend stores (MariaDB's JSON_VALID limit), restated here."""


def map_engine(store: Store, inputs: list[Any], branch: Any = None) -> Engine[S]:
    """start (n=1) -> split, a map fan-out over `inputs` into `w` -> join."""

    async def start(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=1), route=goto("split"))

    async def split(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(route=fan_out([Branch("w", v) for v in inputs], join="join"))

    async def w(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(items=[s.n]))

    async def join(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(route=stop())

    g = Engine(S, store=store).add("start", start).add("split", split).add("w", branch or w).add("join", join)
    return g.start_at("start")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", sorted(BAD_DELTAS))
async def test_a_map_input_that_does_not_read_back_fails_the_split(store: Store, case: str) -> None:
    """A bad value among good branch inputs: EncodeError (field route) at the split, nothing of it committed."""
    g = map_engine(store, [S(n=5), BAD_DELTAS[case](), S(n=6)])
    with pytest.raises(EncodeError) as ei:
        await g.run("r", S())
    err = ei.value
    assert (err.run_id, err.step, err.node_id, err.field) == ("r", 2, "split", "route")
    assert (await g.get_run("r")).status is RunStatus.FAILED
    assert [s.step for s in await g.history("r")] == [1]
    await assert_readable(g, "r")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", sorted(BAD_DELTAS))
async def test_a_branch_delta_that_does_not_read_back_fails_the_fan_out(store: Store, case: str) -> None:
    """One branch of three returns a bad delta: EncodeError naming the branch's node; no fan-out step stored."""
    make = BAD_DELTAS[case]

    async def w(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=make() if s.n == 6 else S(items=[s.n]))

    g = map_engine(store, [S(n=5), S(n=6), S(n=7)], branch=w)
    with pytest.raises(EncodeError) as ei:
        await g.run("r", S())
    assert (ei.value.run_id, ei.value.step, ei.value.node_id) == ("r", 3, "w")
    assert (await g.get_run("r")).status is RunStatus.FAILED
    assert [s.step for s in await g.history("r")] == [1, 2]
    await assert_readable(g, "r")


def depth(doc: Any) -> int:
    """Nesting depth of parsed JSON (a scalar is 0, `[]` is 1)."""
    if isinstance(doc, dict):
        return 1 + max((depth(v) for v in doc.values()), default=0)
    if isinstance(doc, list):
        return 1 + max((depth(v) for v in doc), default=0)
    return 0


@pytest.mark.parametrize("extra", [-1, 0, 1])
async def test_a_map_input_is_refused_exactly_when_the_route_nests_too_deep(store: Store, extra: int) -> None:
    """The route's depth is counted over the whole stored JSON: one level past the limit is refused."""
    # The route is {"fan_out": [{"node": .., "input": {"a": nest(d)}}], ...}: 3 levels around the
    # input, whose own object is one more.
    d = ROUTE_MAX_DEPTH - 4 + extra
    inputs = [S(n=1), S(a=nest(d)), S(items=["{[" * 40])]  # brackets inside a string do not nest
    route_doc = {"fan_out": [{"node": "w", "input": json.loads(v.model_dump_json())} for v in inputs]}
    assert depth(route_doc) == ROUTE_MAX_DEPTH + extra
    g = map_engine(store, inputs)
    rid = f"r{extra}"
    if extra > 0:
        with pytest.raises(EncodeError, match="nests more than"):
            await g.run(rid, S())
        assert (await g.get_run(rid)).status is RunStatus.FAILED
    else:
        final = await g.run(rid, S())
        assert final.items == [0]  # the last branch's delta wins the merge
    await assert_readable(g, rid)


@pytest.mark.parametrize("value", [math.nan, math.inf], ids=["nan", "inf"])
def test_inputs_the_codec_writes_as_json_constants_are_refused(value: float) -> None:
    """A model whose config writes NaN as `NaN` (not JSON): the route check refuses it, not the database."""
    from pydantic import BaseModel, ConfigDict

    class C(BaseModel):
        model_config = ConfigDict(ser_json_inf_nan="constants")
        f: float = 0.0

    g = Engine(C)
    g.add("split", lambda c, s: NodeResult(route=fan_out([Branch("w", C(f=value))], join="w")))
    g.add("w", lambda c, s: NodeResult(route=stop())).start_at("split")
    with pytest.raises(EncodeError) as ei:
        g.run_sync("r", C())
    assert ei.value.field == "route" and ei.value.node_id == "split"


_inputs = st.one_of(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=4)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
        ),
        max_leaves=10,
    ),
    st.integers(min_value=24, max_value=32).map(nest),  # around the route's depth limit
)
"""Values of a map input's `a` field: JSON-like trees, NaN and infinity, nesting near the limit."""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(_inputs, min_size=1, max_size=4))
def test_the_branches_a_fan_out_starts_are_those_a_resume_decodes(values: list[Any]) -> None:
    """For random inputs, the part-by-part check accepts exactly what the full parse accepts, with equal values."""
    from graphengine._encoding import route_checked, route_checked_full
    from graphengine.route_codec import RouteCodec

    rc = RouteCodec(JsonCodec(S), ["w", "join"])
    route = fan_out([Branch("w", S(a=v)) for v in values], join="join")
    try:
        full: Any = route_checked_full(rc, route, "r", 1, "split")
    except EncodeError as exc:
        full = exc
    try:
        fast: Any = route_checked(rc, route, "r", 1, "split")
    except EncodeError as exc:
        fast = exc
    if isinstance(full, EncodeError):
        assert isinstance(fast, EncodeError), (full, fast)
        return
    assert not isinstance(fast, EncodeError), fast
    assert fast[1] == full[1]  # the same text stored
    assert fast[0] == full[0] == rc.decode(fast[1])  # the same branches as a resume decodes
    ids = {id(b.input) for b in fast[0].branches} | {id(b.input) for b in route.branches}
    assert len(ids) == 2 * len(values)  # every branch starts from a copy of its own


async def test_many_map_branches_commit_and_resume_alike(store: Store) -> None:
    """A 200-branch map fan-out stores the route a resume decodes, and merges every branch once, in order."""
    g = map_engine(store, [S(n=i) for i in range(200)])
    rid = uuid.uuid4().hex
    final = await g.run(rid, S())
    assert final.items == [199]  # merged in declared order: the last branch's delta wins
    hist = await g.history(rid)
    assert [h.node_id for h in hist][:2] == ["start", "split"]
    await assert_readable(g, rid)


class Leaf(BaseModel):
    """A nested model of plain fields."""

    x: int = 0
    tags: list[str] = []


class Plain(BaseModel):
    """A state whose deltas read back by construction: the fan-out skips their decode."""

    n: int = 0
    f: float = 0.0
    s: str = ""
    b: bool = False
    o: int | None = None
    out: Annotated[list[int], append] = []
    d: dict[str, float] = {}
    leaf: Leaf = Leaf()
    leaves: list[Leaf] = []


class Tree(BaseModel):
    """Recursive: may nest deeper than the decoder follows."""

    kids: list[Tree] = []


class Constrained(BaseModel):
    pos: Annotated[int, Field(gt=0)] = 1


class Aliased(BaseModel):
    n: int = Field(0, alias="N")


class Validated(BaseModel):
    n: int = 0

    @field_validator("n")
    @classmethod
    def small(cls, v: int) -> int:
        return v


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")
    n: int = 0


def test_only_plain_models_bound_their_depth() -> None:
    """Models with constraints, aliases, validators, extras, recursion or Any get no depth bound (their inputs are parsed)."""
    from graphengine._exact import plain_depth

    assert plain_depth(Plain) == 4  # {"leaves": [{"tags": [...]}]}
    assert plain_depth(Leaf) == 2
    for tp in (S, Tree, Constrained, Aliased, Validated, Loose, dict, Leaf | None):
        assert plain_depth(tp) is None, tp


BAD_PLAIN = {
    "str-in-int": lambda: Plain.model_construct(n="x"),
    "float-in-int": lambda: Plain.model_construct(n=1.5),
    "none-in-int": lambda: Plain.model_construct(n=None),
    "none-in-list": lambda: Plain.model_construct(out=None),
    "str-in-list": lambda: Plain.model_construct(out=["x"]),
    "deep-in-list": lambda: Plain.model_construct(out=nest(40)),
    "int-keys": lambda: Plain.model_construct(d={1: 1.0}),
    "nan": lambda: Plain(f=math.nan),
    "inf-in-dict": lambda: Plain(d={"k": math.inf}),
    "huge-int-in-float": lambda: Plain.model_construct(f=10**400),
    "dict-as-leaf": lambda: Plain.model_construct(leaf={"x": 1}),
    "bad-leaf": lambda: Plain.model_construct(leaf=Leaf.model_construct(x="y")),
    "deep-leaf": lambda: Plain.model_construct(leaves=[Leaf.model_construct(tags=nest(40))]),
    "surrogate": lambda: Plain(s="\ud800"),
    "object": lambda: Plain.model_construct(s=object()),
}
"""Plain-model inputs built without validation: what the depth bound must not let through."""

READ_BACK_COERCED = {"int-keys", "dict-as-leaf", "huge-int-in-float"}
"""The cases that read back, coerced (int keys as str, a dict as a Leaf, a huge int as a float), as on resume."""


async def plain_outcome(store: Store, make: Any, rid: str) -> tuple[Any, ...]:
    """A map fan-out over three inputs, the middle one `make()`: what it raised or returned, and stored."""

    async def split(ctx: Context, s: Plain) -> NodeResult[Plain]:
        inputs = [Plain(n=0), make(), Plain(n=2)]
        return NodeResult(route=fan_out([Branch("w", v) for v in inputs], join="join"))

    async def w(ctx: Context, s: Plain) -> NodeResult[Plain]:
        return NodeResult(delta=Plain(out=[s.n]))

    g = Engine(Plain, store=store).add("split", split).add("w", w).add("join", lambda c, s: None)
    g.start_at("split")
    try:
        outcome: Any = (await g.run(rid, Plain())).model_dump()
    except GraphError as exc:
        outcome = (type(exc), exc.step, exc.node_id, getattr(exc, "field", None))
    await assert_readable(g, rid)
    run = await g.get_run(rid)
    steps = [(h.step, h.node_id) for h in await g.history(rid)]
    return outcome, run.status, steps, (await g.get_state(rid)).model_dump()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", sorted(BAD_PLAIN))
async def test_a_plain_input_that_does_not_fit_its_type_ends_as_under_the_full_check(
    store: Store, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unvalidated plain inputs: the run raises, stores and returns what it does under the full round trip."""
    fast = await plain_outcome(store, BAD_PLAIN[case], "fast")
    monkeypatch.setattr(encoding_module, "route_checked", encoding_module.route_checked_full)
    monkeypatch.setattr(loop_module, "route_checked", encoding_module.route_checked_full)
    full = await plain_outcome(store, BAD_PLAIN[case], "full")
    assert fast == full
    if case not in READ_BACK_COERCED:
        assert fast[0][0] is EncodeError and fast[0][1:] == (1, "split", "route"), fast
