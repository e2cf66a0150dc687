"""How an engine's state lives in the channels of its LangGraph graph (`to_langgraph`).

Two layouts, chosen from the engine's reducer:

- `FieldLayout`: one LangGraph channel per field, for states merged field by field (the
  default reducer of a pydantic model or TypedDict, with its per-field `Annotated` reducers).
  A field with a reducer is LangGraph's `BinaryOperatorAggregate` over that reducer, any other
  field a `LastValue`, so the graph reads and writes ordinary keys and composes with LangGraph
  apps exactly as a graph written in LangGraph would.
- `SingleChannelLayout`: one channel, `"state"`, holding the whole state and merging deltas
  with the engine's own reducer (`EngineStateChannel`), for a custom whole-state reducer (which
  per-field channels cannot express) and for states whose fields are not known in advance.

Both turn a node's delta into channel writes and read the state a node runs on; a fan-out's
branch deltas are merged by the private fan-in node through `merge_many`, in branch order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, TypedDict, get_type_hints

from langgraph._internal._typing import MISSING as _MISSING
from langgraph.channels.base import BaseChannel
from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.channels.last_value import LastValue
from langgraph.channels.topic import Topic
from langgraph.errors import EmptyChannelError
from langgraph.types import Overwrite
from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from graphengine.errors import GraphError, StateValidationError
from graphengine.reducer import field_reducers
from graphengine.store import JsonCodec, adaptable_type

if TYPE_CHECKING:
    from graphengine import Runtime

__all__ = [
    "BRANCH_KEY",
    "CTL_KEY",
    "STATE_KEY",
    "EngineStateChannel",
    "FieldLayout",
    "SingleChannelLayout",
    "StateLayout",
    "layout_for",
]

STATE_KEY = "state"
"""The single channel of a state merged by a custom reducer: `invoke({"state": s}) -> {"state": final}`."""
CTL_KEY = "ge_ctl"
"""Private channel: the pause a node asked for, until it is resumed."""
BRANCH_KEY = "ge_branches"
"""Private channel: the results of one fan-out's branches, read by the fan-in node."""
_MERGE = b"+"
_REPLACE = b"="

Writes = list[tuple[str, Any]]
"""Channel writes of one LangGraph task, in order."""


class EngineStateChannel(BaseChannel[Any, Any, bytes]):
    """The LangGraph channel holding an engine's whole state, merged with the engine's reducer.

    Updates are the engine codec's bytes: `b"+" + delta` (merged, in the order written) or
    `b"=" + state` (replaces: a subgraph's final state); input values (a state or a mapping)
    are validated as `Engine.run` validates its input. The checkpoint is the codec's encoding
    of the state, so checkpointers never store pickled or class-importing values.
    """

    __slots__ = ("rt", "value")

    def __init__(self, rt: Runtime[Any], typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.rt = rt
        """The engine's runtime: its codec and reducer."""
        self.value: Any = _MISSING

    @property
    def ValueType(self) -> Any:
        """The engine's state type."""
        return self.rt.state_type

    @property
    def UpdateType(self) -> Any:
        """Encoded deltas (bytes) or an initial state."""
        return Any

    def copy(self) -> EngineStateChannel:
        """A channel sharing the (immutable) state."""
        new = EngineStateChannel(self.rt, self.typ, self.key)
        new.value = self.value
        return new

    def checkpoint(self) -> Any:
        """The state encoded by the engine's codec."""
        if self.value is _MISSING:
            return _MISSING
        return self.rt.codec.encode(self.value)

    def from_checkpoint(self, checkpoint: Any) -> EngineStateChannel:
        """A channel holding the state decoded from `checkpoint` (empty when missing)."""
        new = EngineStateChannel(self.rt, self.typ, self.key)
        if isinstance(checkpoint, bytes | bytearray):
            new.value = self.rt.codec.decode(bytes(checkpoint))
        return new

    def get(self) -> Any:
        """The current state; `EmptyChannelError` before the input."""
        if self.value is _MISSING:
            raise EmptyChannelError()
        return self.value

    def is_available(self) -> bool:
        """Whether the channel holds a state."""
        return self.value is not _MISSING

    def update(self, values: Sequence[Any]) -> bool:
        """Apply the updates of one LangGraph step in order (see the class docstring)."""
        if not values:
            return False
        rt = self.rt
        state = self.value
        for v in values:
            if isinstance(v, bytes):
                tag, body = v[:1], v[1:]
                if tag == _MERGE:
                    state = rt.reducer(state, rt.decode_delta(body))
                elif tag == _REPLACE:
                    state = rt.codec.decode(body)
                else:
                    raise GraphError(f"state channel: unknown update tag {tag!r}")
            else:
                state, _ = rt.validated(v, "langgraph")
        self.value = state
        return True


class StateLayout:
    """Where an adapted graph keeps the engine's state; see the module docstring."""

    keys: tuple[str, ...]
    """The public channels: the graph's input, output and streamed keys."""

    def __init__(self, rt: Runtime[Any]) -> None:
        self.rt = rt
        """The engine's runtime."""

    def channels(self) -> dict[str, Any]:
        """The annotations of the public channels (`Annotated[type, channel]`)."""
        raise NotImplementedError

    def io_schemas(self, name: str) -> tuple[Any, Any]:
        """The graph's input and output schemas."""
        io = TypedDict(f"{name}IO", self.channels())  # type: ignore[misc]
        return io, io

    def state_schema(self, name: str) -> Any:
        """The graph's full state: the public channels and the private control channels."""
        private: dict[str, Any] = {
            CTL_KEY: NotRequired[Annotated[Any, LastValue(Any)]],
            BRANCH_KEY: NotRequired[Annotated[Any, Topic(Any, accumulate=False)]],
        }
        return TypedDict(f"{name}", {**self.channels(), **private})  # type: ignore[operator]

    def read(self, inp: Mapping[str, Any], node_id: str) -> Any:
        """The state a node runs on, from its LangGraph input."""
        raise NotImplementedError

    def merge(self, writes: Writes, delta: Any) -> None:
        """Add the writes merging `delta` into the state."""
        self.merge_many(writes, [delta])

    def merge_many(self, writes: Writes, deltas: Sequence[Any]) -> None:
        """Add the writes merging `deltas` in order, as consecutive merges would."""
        raise NotImplementedError

    def replace(self, writes: Writes, state: Any) -> None:
        """Add the writes replacing the whole state (a subgraph node's final state)."""
        raise NotImplementedError


class SingleChannelLayout(StateLayout):
    """The whole state in one `EngineStateChannel` under `"state"`."""

    keys = (STATE_KEY,)

    def __init__(self, rt: Runtime[Any]) -> None:
        super().__init__(rt)
        self.channel = EngineStateChannel(rt)
        """The state channel (LangGraph copies it per run)."""

    def channels(self) -> dict[str, Any]:
        """`{"state": Annotated[Any, EngineStateChannel]}`."""
        return {STATE_KEY: Annotated[Any, self.channel]}

    def read(self, inp: Mapping[str, Any], node_id: str) -> Any:
        """The channel's state (already validated)."""
        return inp[STATE_KEY]

    def merge_many(self, writes: Writes, deltas: Sequence[Any]) -> None:
        """One encoded delta per merge; the channel applies them in order."""
        enc = self.rt.codec.encode_delta
        writes.extend((STATE_KEY, _MERGE + enc(d)) for d in deltas)

    def replace(self, writes: Writes, state: Any) -> None:
        """The encoded state, replacing the channel's value."""
        writes.append((STATE_KEY, _REPLACE + self.rt.codec.encode(state)))


class FieldLayout(StateLayout):
    """One channel per field: `BinaryOperatorAggregate` for a field with a reducer, else `LastValue`."""

    def __init__(self, rt: Runtime[Any], reducers: Mapping[str, Any], types: Mapping[str, Any]) -> None:
        super().__init__(rt)
        self.reducers = dict(reducers)
        """The fields with a reducer of their own."""
        self.types = dict(types)
        """Every field's type, in declaration order."""
        self.keys = tuple(types)
        tp = rt.state_type
        self.model: type[BaseModel] | None = (
            tp if isinstance(tp, type) and issubclass(tp, BaseModel) else None
        )
        """The state's pydantic model (None for a TypedDict state)."""
        # A TypedDict state whose engine has a codec of its own may hold values pydantic cannot
        # describe (the codec is what knows them): its fields reach nodes as LangGraph gives
        # them, unvalidated, as in a LangGraph graph with that TypedDict schema.
        own_codec = self.model is None and not isinstance(rt.codec, JsonCodec)
        self.adapter: TypeAdapter[Any] | None = None if own_codec else TypeAdapter(adaptable_type(tp))
        """Validates the fields into the state type (None: a TypedDict with the engine's own codec)."""

    def channels(self) -> dict[str, Any]:
        """Each field's type annotated with its LangGraph channel."""
        out: dict[str, Any] = {}
        for k, typ in self.types.items():
            r = self.reducers.get(k)
            ch = BinaryOperatorAggregate(typ, r) if r is not None else LastValue(typ)
            out[k] = Annotated[typ, ch]
        return out

    def io_schemas(self, name: str) -> tuple[Any, Any]:
        """The state type itself (LangGraph tooling then shows its fields, defaults and docs)."""
        tp = self.rt.state_type
        return tp, tp

    def read(self, inp: Mapping[str, Any], node_id: str) -> Any:
        """The fields written so far validated into the state type (defaults fill the others).

        Channels hold what LangGraph was given (an input dict's raw values, say), so the state is
        validated as a LangGraph node with this state schema would validate it.
        """
        data = {k: inp[k] for k in self.keys if k in inp}
        if self.adapter is None:
            return data
        try:
            return self.adapter.validate_python(data)
        except ValidationError as exc:
            msg = f"state given to node {node_id!r} does not validate as {self.rt.type_name}: {exc}"
            raise StateValidationError(msg, node_id=node_id) from exc

    def _items(self, delta: Any) -> list[tuple[str, Any]]:
        if self.model is not None:
            d = delta.__dict__
            return [(k, d[k]) for k in self.keys if k in delta.__pydantic_fields_set__]
        return [(k, v) for k, v in delta.items()]

    def merge_many(self, writes: Writes, deltas: Sequence[Any]) -> None:
        """Every reducer field's values in order; a plain field's last value only.

        A `LastValue` channel takes one write per step, and the last delta setting a plain field
        is the one the engine's reducer keeps.
        """
        last: dict[str, Any] = {}
        for delta in deltas:
            for k, v in self._items(delta):
                if k in self.reducers:
                    writes.append((k, v))
                else:
                    last[k] = v
        writes.extend(last.items())

    def replace(self, writes: Writes, state: Any) -> None:
        """Every field set to the state's value (`Overwrite` past a reducer)."""
        items = [(k, getattr(state, k)) for k in self.keys] if self.model is not None else list(state.items())
        for k, v in items:
            writes.append((k, Overwrite(v) if k in self.reducers else v))


def layout_for(rt: Runtime[Any]) -> StateLayout:
    """Per-field channels when the engine merges field by field, else the single state channel."""
    reducers = field_reducers(rt.reducer)
    tp = rt.state_type
    if reducers is not None:
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            types = {k: f.annotation for k, f in tp.model_fields.items()}
            return FieldLayout(rt, reducers, types)
        if is_typeddict(tp):
            return FieldLayout(rt, reducers, get_type_hints(tp))
    return SingleChannelLayout(rt)
