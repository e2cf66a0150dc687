"""What a step stores, encoded and checked: states, events, tool calls, routes."""

from __future__ import annotations

import json
import math
import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel
from pydantic_core import from_json, to_json

from graphengine.emit import Event, EventKind

from ._exact import plain_depth
from ._jsonvalue import RECORD_MAX_DEPTH, bad_key, not_json
from ._readback import ReadBackPlan, changed_by_plan, plan_for
from .context import Context
from .errors import (
    EncodeError,
    NodeReturnTypeError,
)
from .route_codec import RouteCodec
from .routing import Branch, Next, NextKind

if TYPE_CHECKING:
    from ._runtime import Runtime

__all__ = [
    "ERROR_TEXT_MAX",
    "FAN_OUT_NODE",
    "INPUT_NODE",
    "RECORD_MAX_DEPTH",
    "RESERVED_NODES",
    "ROUTE_MAX_DEPTH",
    "UPDATE_NODE",
    "check_finite",
    "check_read_back",
    "check_size",
    "decode_events",
    "encode_events",
    "error_text",
    "event_doc",
    "fan_out_checked",
    "isolated",
    "isolated_bytes",
    "json_checked",
    "json_depth",
    "may_hide",
    "no_constant",
    "non_finite",
    "plan_for",
    "read_back_change",
    "not_json",
    "record_calls",
    "route_checked",
    "route_checked_full",
    "snapshot_of",
    "storable_text",
    "unstorable",
]

S = TypeVar("S")

_FAN_OUT = NextKind.FAN_OUT

FAN_OUT_NODE = "__fan_out__"
"""Node id of the step record that commits a fan-out's merged branches."""

INPUT_NODE = "__input__"
"""Node id of the step record that begins a turn: the input of `Engine.continue_run`, merged."""

UPDATE_NODE = "__update__"
"""Node id of the step record of an `Engine.update_state` edit (the node it acts as is in `calls`)."""

RESERVED_NODES = frozenset({FAN_OUT_NODE, INPUT_NODE, UPDATE_NODE})
"""Node ids of step records that no node of the graph wrote; no node may be added under them."""


def record_calls(
    ctx: Context,
    resumed: bool,
    run_id: str = "",
    step: int = 0,
    node_id: str = "",
    events: Sequence[Event] = (),
) -> bytes | None:
    """The JSON a step stores of its outside inputs: the resume input and the tool calls.

    A fan-out branch's events ride along (`events`), as branch records have no field of their own.
    Raises `EncodeError` when the document cannot be written as JSON that reads back, or when
    `ctx.call` refused a tool's result (even if the node caught that error).
    """
    if ctx.refused is not None:
        raise ctx.refused
    if not resumed and not ctx.calls and not events:
        return None
    doc: dict[str, Any] = {}
    if resumed:
        doc["input"] = ctx.resume_input
    if ctx.calls:
        doc["calls"] = ctx.calls
    if events:
        doc["events"] = [event_doc(ev, run_id, step, node_id) for ev in events]
    return json_checked(doc, run_id, step, node_id, "calls")


def storable_text(text: str) -> str:
    """`text` as every store can hold it: lone surrogates escaped, NUL (refused by PostgreSQL) escaped."""
    if "\x00" in text:
        text = text.replace("\x00", "\\x00")
    try:
        text.encode()
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode()
    return text


ERROR_TEXT_MAX = 65_536
"""Most characters of an error message a run or step records (the text is cut after that, with a
marker): a message of any length must be recordable on every store (MySQL's MEDIUMTEXT takes
16 MB), or a failed run would stay `running`. The caller's exception keeps the whole message."""


def error_text(exc: BaseException) -> str:
    """What a run records of `exc`: `Type: message`, storable (`storable_text`), cut at `ERROR_TEXT_MAX`.

    An exception whose `str()` raises is recorded by its type and that failure, never left unrecorded.
    """
    try:
        text = f"{type(exc).__name__}: {exc}"
    except Exception as why:
        text = f"{type(exc).__name__}: <str() raised {type(why).__name__}>"
    text = storable_text(text)
    if len(text) > ERROR_TEXT_MAX:
        cut = len(text) - ERROR_TEXT_MAX
        text = f"{text[:ERROR_TEXT_MAX]}... [truncated: {cut:,} more characters]"
    return text


def json_checked(doc: Any, run_id: str, step: int, node_id: str, what: str) -> bytes:
    """`doc` as JSON (anything unknown as its str), read back once so that nothing unreadable is stored."""
    try:
        data = to_json(doc, fallback=str)
        from_json(data)
    except Exception as exc:
        raise unstorable(exc, doc, run_id, step, node_id, what) from exc
    return data


def event_doc(ev: Any, run_id: str, step: int, node_id: str) -> dict[str, Any]:
    if not isinstance(ev, Event):
        raise NodeReturnTypeError(
            f"node {node_id!r} returned an event of type {type(ev).__name__} at step {step} of run "
            f"{run_id!r}; NodeResult.events holds emit.Event values",
            run_id=run_id,
            step=step,
            node_id=node_id,
        )
    # A record `decode_events` cannot read back would make `history()` fail for ever: refuse it here,
    # at the step, with the field named (ints and floats only, as JSON keeps them exactly).
    for name, value, ok in (
        ("step", ev.step, type(ev.step) is int),
        ("ts", ev.ts, type(ev.ts) in (int, float) and math.isfinite(ev.ts)),
        ("run_id", ev.run_id, isinstance(ev.run_id, str)),
        ("node_id", ev.node_id, isinstance(ev.node_id, str)),
        ("msg", ev.msg, isinstance(ev.msg, str)),
        ("kind", ev.kind, isinstance(ev.kind, str)),
        ("meta", ev.meta, isinstance(ev.meta, Mapping)),
    ):
        if not ok:
            raise NodeReturnTypeError(
                f"node {node_id!r} returned an event whose {name} is {value!r:.80} of type "
                f"{type(value).__name__} at step {step} of run {run_id!r}; Event.{name} is "
                + (
                    "a finite float"
                    if name == "ts"
                    else "an int"
                    if name == "step"
                    else "a mapping"
                    if name == "meta"
                    else "a str"
                ),
                run_id=run_id,
                step=step,
                node_id=node_id,
            )
    where = not_json(dict(ev.meta), "meta")
    if where is not None:
        raise EncodeError(
            f"node {node_id!r} at step {step} of run {run_id!r}: an event it returned cannot be stored "
            f"so that it reads back, at {where}; event meta holds JSON values (None, bool, int, finite "
            "float, str, list, dict with str keys): convert it, e.g. to a str or a list",
            run_id=run_id,
            step=step,
            node_id=node_id,
            field="events",
        )
    return ev.to_dict()


def encode_events(events: Sequence[Event], run_id: str, step: int, node_id: str) -> bytes | None:
    """The JSON a step stores of the events its node returned (`NodeResult.events`), or None."""
    if isinstance(events, (str, bytes)) or not isinstance(events, Sequence):
        raise NodeReturnTypeError(
            f"node {node_id!r} returned events of type {type(events).__name__} at step {step} of run "
            f"{run_id!r}; NodeResult.events is a sequence of emit.Event",
            run_id=run_id,
            step=step,
            node_id=node_id,
        )
    if not events:
        return None
    return json_checked(
        [event_doc(ev, run_id, step, node_id) for ev in events], run_id, step, node_id, "events"
    )


def decode_events(data: bytes | None) -> tuple[Event, ...]:
    """The events `encode_events` stored (meta values as JSON gave them back); `ValueError` if malformed."""
    if not data:
        return ()
    docs = json.loads(data)
    if not isinstance(docs, list):
        raise ValueError("stored events are not a JSON list")
    out = []
    for d in docs:
        if not isinstance(d, dict):
            raise ValueError(f"stored event is not a JSON object: {d!r:.80}")
        out.append(
            Event(
                str(d.get("run_id", "")),
                int(d.get("step", 0)),
                str(d.get("node_id", "")),
                str(d.get("msg", "")),
                dict(d.get("meta") or {}),
                kind=str(d.get("kind", EventKind.CUSTOM)),
                ts=float(d.get("ts", 0.0)),
            )
        )
    return tuple(out)


def unstorable(
    exc: BaseException, value: Any, run_id: str, step: int, node_id: str, what: str
) -> EncodeError:
    """The `EncodeError` for a value whose encoding failed or did not read back."""
    why = str(exc).splitlines()
    return EncodeError(
        f"node {node_id!r} at step {step} of run {run_id!r}: its {what} cannot be stored so that it "
        f"reads back ({type(exc).__name__}: {' '.join(why[:3])[:300]}); value of type {type(value).__name__}",
        run_id=run_id,
        step=step,
        node_id=node_id,
        field=what,
    )


_SUSPECT = (b"null", b"None", b"nan", b"NaN", b"inf", b"Inf", "\ufffd".encode())
"""What JSON writes in place of a value it cannot keep: NaN and infinity as `null` (or `NaN`), a
NaN or infinite dict key as `"None"`/`"nan"`/`"inf"`, a lone surrogate in a key as U+FFFD. Only an
encoding that holds one of these is walked (`non_finite`), so the common case costs a few scans."""


_SUSPECT_BYTES = re.compile(b"|".join(re.escape(s) for s in _SUSPECT))
_SUSPECT_TEXT = re.compile("|".join(re.escape(s.decode()) for s in _SUSPECT))
# One scan of the encoding instead of seven `in` tests: it runs on every step's delta
# (1.3 -> 0.25 µs on a small delta here).


def may_hide(data: bytes | str) -> bool:
    """True when encoded `data` could stand for a value that does not read back (see `_SUSPECT`)."""
    if isinstance(data, str):
        return _SUSPECT_TEXT.search(data) is not None
    return _SUSPECT_BYTES.search(data) is not None


def non_finite(value: Any, path: str, depth: int = 0) -> str | None:
    """The path of the first value inside `value` that JSON cannot keep, or None.

    That is a NaN or infinite float (a value, an item of any list, tuple, set or deque), or a dict
    key that does not read back as itself (a NaN or infinite float, a str with a lone surrogate);
    a key's path ends in `[key ...]` with the key's repr.
    """
    if type(value) is float:
        return None if math.isfinite(value) else path
    if depth > 300 or isinstance(value, (str, bytes, int, bool)) or value is None:
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    items: Any
    if isinstance(value, BaseModel):
        items = value.__dict__.items()
        extra = value.__pydantic_extra__
        if extra:
            items = [*items, *extra.items()]
    elif isinstance(value, Mapping):
        for k in value:
            if bad_key(k):
                return f"{path}[key {k!r}]"
        items = value.items()
    elif isinstance(value, (list, tuple, set, frozenset, deque)):
        items = enumerate(value)
    elif hasattr(value, "__dataclass_fields__"):
        items = ((k, getattr(value, k, None)) for k in value.__dataclass_fields__)
    else:
        return None
    for k, v in items:
        found = non_finite(v, f"{path}.{k}" if path else str(k), depth + 1)
        if found is not None:
            return found
    return None


def check_finite(value: Any, run_id: str, step: int, node_id: str, what: str) -> None:
    """Raise `EncodeError` if `value` holds what JSON cannot keep (NaN, infinity, a bad key)."""
    where = non_finite(value, "")
    if where is not None:
        raise EncodeError(
            f"node {node_id!r} at step {step} of run {run_id!r}: its {what} holds a non-finite float or a "
            f"key that does not read back at {where or 'the top'}; JSON has no NaN or infinity (a value "
            "is stored as null, a key as a string) and UTF-8 no lone surrogate: store it as None or a "
            "string",
            run_id=run_id,
            step=step,
            node_id=node_id,
            field=what,
        )


def check_read_back(
    plan: ReadBackPlan, sent: Any, back: Any, run_id: str, step: int, node_id: str, what: str
) -> None:
    """Raise `EncodeError` if `back`, decoded from what was written of `sent`, is not `sent` again
    in the fields `plan` names (those whose type does not fix the value; see `_readback`): the
    fields a delta set, or every one of a whole state (`what` "state")."""
    where = changed_by_plan(plan, sent, back, what == "state")
    if where is not None:
        raise EncodeError(
            f"node {node_id!r} at step {step} of run {run_id!r}: its {what} would not read back as "
            f"itself, at {where}; a field typed Any (or a bare container) takes back what JSON holds",
            run_id=run_id,
            step=step,
            node_id=node_id,
            field=what,
        )


def read_back_change(tp: Any, sent: Any, back: Any, full: bool = False) -> str | None:
    """Where `back` (decoded from the encoding of `sent`, a delta of state type `tp`, or a whole
    state: `full`) is not `sent` again in a field whose type does not fix it, as "path: why"; None
    if nowhere."""
    plan = plan_for(tp)
    return None if plan is None else changed_by_plan(plan, sent, back, full)


def check_size(limit: int | None, run_id: str, step: int, node_id: str, **fields: bytes | str | None) -> None:
    """Raise `EncodeError` if the encoded `fields` of one record (delta, state, route, ...) add
    up to more than `limit` bytes, the most the store takes in one record (`max_value_bytes`).

    Checked before the write so that a record the backend can never take fails the run with an
    error naming the field, not as a dropped connection that looks like the store being down.
    """
    if limit is None:
        return
    # A str holds at most 4 UTF-8 bytes a character: encode only when that bound is over.
    if sum(len(v) * 4 if type(v) is str else len(v) for v in fields.values() if v is not None) <= limit:
        return
    sizes = {
        k: len(v.encode("utf-8", "surrogatepass") if isinstance(v, str) else v)
        for k, v in fields.items()
        if v is not None
    }
    total = sum(sizes.values())
    if total <= limit:
        return
    what, biggest = max(sizes.items(), key=lambda kv: kv[1])
    raise EncodeError(
        f"node {node_id!r} at step {step} of run {run_id!r}: its {what} is {biggest:,} bytes encoded "
        f"({total:,} bytes for the whole step record), over the store's limit of {limit:,} bytes "
        "(max_value_bytes): keep large values outside the state and store a reference to them",
        run_id=run_id,
        step=step,
        node_id=node_id,
        field=what,
    )


def snapshot_of(eng: Runtime[S], state: S, run_id: str, step: int, node_id: str) -> tuple[bytes, S]:
    """Encode a state to store, and the state decoded from those very bytes (what a resume sees).

    Raises `EncodeError` when they do not read back.
    """
    try:
        data = eng.codec.encode(state)
        back = eng.codec.decode(data)
    except Exception as exc:
        raise unstorable(exc, state, run_id, step, node_id, "state") from exc
    if eng.check_nulls and may_hide(data):
        check_finite(state, run_id, step, node_id, "state")
    plan = plan_for(eng.state_type)
    if plan is not None:
        check_read_back(plan, state, back, run_id, step, node_id, "state")
    return data, back


def isolated(eng: Runtime[S], state: S, data: bytes | None) -> S:
    """A copy of `state` that shares no object with it (decoded from its encoding `data`, if given)."""
    if data is None:
        data = eng.codec.encode(state)
    return eng.codec.decode(data)


ROUTE_MAX_DEPTH = 31
"""Deepest nesting of a stored route's JSON (payload, branch inputs): MariaDB's JSON_VALID limit,
so that a route every backend stores is refused the same way on all of them."""


def json_depth(doc: Any, limit: int) -> int:
    """Nesting depth of parsed JSON, counting stops once past `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, list):
            continue
        if d > deepest:
            deepest = d
            if d > limit:
                break
        stack.extend((c, d + 1) for c in v if isinstance(c, (dict, list)))
    return deepest


def no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def route_checked(rc: RouteCodec[S], route: Next, run_id: str, step: int, node_id: str) -> tuple[Next, str]:
    """Encode a route that carries values, and decode it back: (the decoded route, its JSON text).

    Raises `EncodeError` (field "route") when the route cannot be stored so that it reads back.
    A map fan-out whose inputs pydantic writes is checked branch by branch (`fan_out_checked`);
    anything else by parsing the whole text (`route_checked_full`).
    """
    if route.kind is _FAN_OUT and rc.pydantic_json:
        return fan_out_checked(rc, route, run_id, step, node_id)
    return route_checked_full(rc, route, run_id, step, node_id)


def route_checked_full(
    rc: RouteCodec[S], route: Next, run_id: str, step: int, node_id: str
) -> tuple[Next, str]:
    """`route_checked` by a full round trip: encode, parse the text, decode it as a resume would."""
    try:
        text = rc.encode(route)
        text.encode()  # lone surrogates cannot be stored as UTF-8
        doc = json.loads(text, parse_constant=no_constant)  # NaN/Infinity are not JSON (stores refuse them)
        if text.count("[") + text.count("{") > ROUTE_MAX_DEPTH:
            depth = json_depth(doc, ROUTE_MAX_DEPTH)
            if depth > ROUTE_MAX_DEPTH:
                raise ValueError(_too_deep())
        back = rc.decode(text)
        plan = plan_for(getattr(rc.codec, "type", None))
        if plan is not None:
            for i, (b, c) in enumerate(zip(route.branches, back.branches, strict=False)):
                where = None if b.input is None else changed_by_plan(plan, b.input, c.input)
                if where is not None:
                    raise ValueError(f"the input of branch {i} would not read back as itself, at {where}")
        if route.kind is NextKind.INTERRUPT and route.payload is not None:
            # The payload is stored as JSON and read back by whoever answers: refuse what JSON
            # would turn into another value (once stored as its str()), naming where.
            where = not_json(route.payload, "payload")
            if where is not None:
                raise ValueError(f"the interrupt payload is not JSON that reads back, at {where}")
    except Exception as exc:
        raise unstorable(exc, route, run_id, step, node_id, "route") from exc
    if may_hide(text):
        check_finite([route.payload, *(b.input for b in route.branches)], run_id, step, node_id, "route")
    return back, text


_INPUT_DEPTH = ROUTE_MAX_DEPTH - 3
"""Deepest a branch input may nest: the route wraps it in three levels ({"fan_out": [{"input": .}]})."""


def _too_deep() -> str:
    return f"the route's JSON nests more than {ROUTE_MAX_DEPTH} levels"


def fan_out_checked(rc: RouteCodec[S], route: Next, run_id: str, step: int, node_id: str) -> tuple[Next, str]:
    """`route_checked` of a fan-out whose branch inputs pydantic writes, one input at a time.

    Each input is encoded once and decoded once from those very bytes: the decoded copy is the
    branch's own input and the proof that it reads back. The text around the inputs is the route
    codec's own JSON, so it is not parsed again. An input is parsed by the standard library only
    when its bytes could hold what the full check refuses (a bracket count over the depth limit,
    NaN or Infinity written as constants), and not even then for a plain model (`_exact`), whose
    depth is bounded by its type and which writes no constants. A resume decodes the same values
    from the same text (`tests/engine/test_fan_out_checks.py` holds the checks to each other).
    """
    codec: Any = rc.codec
    depth = plain_depth(codec.type)
    try:
        parse = depth is None or depth > _INPUT_DEPTH
        inputs, branches = _encoded_inputs(route, codec.encode, codec.decode, parse, plan_for(codec.type))
        text = rc.fan_out_text(route, inputs)
        text.encode()  # stored as UTF-8 (cheap next to the inputs)
    except Exception as exc:
        raise unstorable(exc, route, run_id, step, node_id, "route") from exc
    if may_hide(text):
        check_finite([b.input for b in route.branches], run_id, step, node_id, "route")
    return Next(_FAN_OUT, route.target, tuple(branches)), text


def _encoded_inputs(
    route: Next,
    enc: Callable[[Any], bytes],
    dec: Callable[[bytes], Any],
    parse: bool,
    plan: ReadBackPlan | None = None,
) -> tuple[list[bytes | None], list[Branch[Any]]]:
    """Each branch input encoded, and decoded once from those bytes (the branch's own copy).

    `parse`: an input whose bytes could nest too deep or hold NaN/Infinity constants is parsed
    and its depth counted (not needed for a plain model, see `fan_out_checked`). `plan`: the
    fields of the state type to compare with the copy (`_readback`); a change is a `ValueError`.
    """
    inputs: list[bytes | None] = []
    branches: list[Branch[Any]] = []
    for b in route.branches:
        value = b.input
        if value is None:
            inputs.append(None)
            branches.append(b)
            continue
        data = enc(value)
        copy = dec(data)
        if plan is not None:
            where = changed_by_plan(plan, value, copy)
            if where is not None:
                raise ValueError(
                    f"the input of branch {len(branches)} would not read back as itself, at {where}"
                )
        if parse and (
            data.count(b"[") + data.count(b"{") > _INPUT_DEPTH or b"NaN" in data or b"Infinity" in data
        ):
            doc = json.loads(data, parse_constant=no_constant)
            if json_depth(doc, _INPUT_DEPTH) > _INPUT_DEPTH:
                raise ValueError(_too_deep())
        inputs.append(data)
        branches.append(Branch(b.node, copy))
    return inputs, branches


def isolated_bytes(eng: Runtime[Any], state: Any, run_id: str, step: int) -> bytes:
    """The encoded state a fan-out's branches start from (each decodes its own copy)."""
    try:
        return eng.codec.encode(state)
    except Exception as exc:
        raise unstorable(exc, state, run_id, step, FAN_OUT_NODE, "state") from exc
