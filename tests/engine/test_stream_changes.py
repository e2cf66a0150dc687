"""The stream's step events show what a delta changed, the fields it set, as the server's JSON does."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel, ConfigDict

from graphengine import Context, Engine, NodeResult, append, delta_fields, goto, stop
from graphengine._stream import STEP
from graphengine.emit import EventKind
from graphengine.store import MemoryStore


class Acc(BaseModel):
    """A counter, a log and a label."""

    n: int = 0
    log: Annotated[list[str], append] = []
    label: str = "start"


def _engine() -> Engine[Acc]:
    g = Engine(Acc, store=MemoryStore())

    def inc(ctx: Context, s: Acc) -> NodeResult[Acc]:
        return NodeResult(delta=Acc(n=s.n + 1))  # log and label keep their values

    def note(ctx: Context, s: Acc) -> NodeResult[Acc]:
        return NodeResult(delta=Acc(log=[f"n={s.n}"]), route=stop() if s.n >= 2 else goto("inc"))

    return g.add("inc", inc).add("note", note).start_at("inc").connect("inc", "note")


async def test_step_events_show_only_the_fields_the_delta_set() -> None:
    """A delta setting `n` shows `{"n": ...}`, never the defaults of `log` and `label`."""
    events = await _engine().stream("r", Acc(log=["kept"], label="mine")).collect()
    steps = [(e.node_id, e.meta["changes"]) for e in events if e.kind == STEP]
    assert steps == [
        ("inc", {"n": 1}),
        ("note", {"log": ["n=1"]}),
        ("inc", {"n": 2}),
        ("note", {"log": ["n=2"]}),
    ]
    ends = [e.meta["changes"] for e in events if e.kind == EventKind.NODE_END]
    assert ends == [c for _, c in steps]
    first_step = next(e for e in events if e.kind == STEP)
    assert next(iter(first_step.meta)) == "changes"  # printed first


async def test_the_python_stream_and_the_server_json_agree() -> None:
    """For every step, the server's JSON delta is the stream's `changes`, as JSON (one definition)."""
    forms = pytest.importorskip("graphengine.server.forms", reason="the server extra is not installed")
    events = await _engine().stream("r", Acc()).collect()
    for e in events:
        if e.kind == STEP:
            doc = forms.event_doc(e, 0)
            assert doc["meta"]["delta"] == forms.jsonable(e.meta["changes"])
            assert "changes" not in doc["meta"]


class Extra(BaseModel):
    """A state that allows extra fields."""

    model_config = ConfigDict(extra="allow")
    a: int = 0


class TD(TypedDict, total=False):
    """A TypedDict state."""

    a: int
    b: str


@pytest.mark.parametrize(
    ("delta", "fields"),
    [
        (Acc(n=3), {"n": 3}),
        (Acc(label="x", n=1), {"n": 1, "label": "x"}),  # declaration order
        (Acc(), {}),
        (Extra(zz=1, a=2), {"a": 2, "zz": 1}),
        (TD(b="x"), {"b": "x"}),
        (None, {}),
        (5, None),
    ],
)
def test_delta_fields_is_what_the_reducer_merges(delta: Any, fields: dict[str, Any] | None) -> None:
    """`delta_fields`: set fields in declaration order, extras after, a mapping's items; None for
    a value that is not made of fields."""
    assert delta_fields(delta) == fields
