"""CRDT values for state fields that fan-out branches update concurrently.

Each type is an immutable pydantic model, stored as plain JSON through the engine's codec, with
a `merge` that is commutative, associative and idempotent (a join of a semilattice). Declare a
field with the `converge` reducer and its branch deltas merge in any order, and a delta merged
twice changes nothing:

    >>> from typing import Annotated
    >>> from pydantic import BaseModel
    >>> class S(BaseModel):
    ...     hits: Annotated[GCounter, converge] = GCounter()
    >>> a = GCounter().increment("b0", 2)
    >>> b = GCounter().increment("b1", 3)
    >>> converge(converge(GCounter(), a), b) == converge(converge(converge(GCounter(), b), a), a)
    True
    >>> converge(a, b).value
    5

Deltas are states, not operations: a branch returns the whole value it updated from its own
copy of the state (`s.hits.increment(replica_id(ctx))`), and merging keeps, per replica, the
most it has seen. So a retried branch, a resumed one or a result delivered twice counts once,
as long as no two writers share a replica id (`replica_id(ctx)` is one per node execution:
node id, fan-out branch and step). Every value is kept in a canonical order, so equal values
encode to equal bytes whatever order they were merged in.

Kinds: `GCounter` (grow-only), `PNCounter` (up and down), `ORSet` (observed-remove set:
an add concurrent with a remove wins), `LWWRegister` and `LWWMap` (last writer wins, by a
`(ts, replica)` stamp the writer supplies: `ctx.step` is a deterministic clock). For a plain
number, `maximum` and `minimum` (or the builtins `max` and `min`) are commutative and
idempotent field reducers.
Removed set tags and map keys are kept as tombstones; these values grow with every removal.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, field_validator
from pydantic_core import to_json

from .commute import commutative
from .context import Context

__all__ = [
    "CRDT",
    "GCounter",
    "LWWMap",
    "LWWRegister",
    "ORSet",
    "PNCounter",
    "converge",
    "maximum",
    "minimum",
    "replica_id",
]

T = TypeVar("T")
"""Element or value type of a generic CRDT."""
V = TypeVar("V")
"""Value type of an `LWWMap`."""
C = TypeVar("C", bound="CRDT")
"""A CRDT type."""

_FROZEN = ConfigDict(frozen=True)


class CRDT(Protocol):
    """A value with a `merge` that is commutative, associative and idempotent."""

    def merge(self: C, other: C, /) -> C:
        """The least value that includes both `self` and `other`; neither is changed."""
        ...


@commutative(idempotent=True)
def converge(prev: C, delta: C) -> C:
    """Field reducer for CRDT fields: `prev.merge(delta)`.

    Declared commutative and idempotent, so fan-outs whose branches write only such fields
    merge in completion order. It trusts `merge` to be a semilattice join; check a CRDT of your
    own with `graphengine.testing.assert_commutes(converge, samples)`. Raises `TypeError` naming
    both types when the delta is not of the previous value's type.
    """
    if type(delta) is not type(prev) and not isinstance(delta, type(prev)):
        raise TypeError(f"converge: cannot merge a {type(delta).__name__} into a {type(prev).__name__}")
    return prev.merge(delta)


converge.pure = True  # type: ignore[attr-defined]  # it builds a new value, never changes its inputs


class _Ordered(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


Ord = TypeVar("Ord", bound=_Ordered)
"""A totally ordered value type."""


@commutative(idempotent=True)
def maximum(prev: Ord, delta: Ord) -> Ord:
    """Field reducer: the larger of the two (a max register); `prev` when they are equal.

    The same as the builtin `max` (which the engine also knows commutes), as a plain function
    other libraries can inspect (LangGraph reads a reducer's signature). Values must be totally
    ordered: a NaN makes the result depend on the order.
    """
    return delta if prev < delta else prev


@commutative(idempotent=True)
def minimum(prev: Ord, delta: Ord) -> Ord:
    """Field reducer: the smaller of the two (a min register); `prev` when they are equal."""
    return delta if delta < prev else prev


maximum.pure = True  # type: ignore[attr-defined]
minimum.pure = True  # type: ignore[attr-defined]


def replica_id(ctx: Context) -> str:
    """A replica id for the node execution `ctx`: node id, fan-out branch if any, and step.

    Distinct for every branch of every fan-out (even a map fan-out running one node many times,
    whose branches start from their own inputs rather than the run's state, so they cannot see
    what an earlier step counted) and the same for every attempt, retry or resume of one branch,
    so its result counts once. Counters keep an entry per replica: one per writing step.
    """
    if ctx.branch is None:
        return f"{ctx.node_id}@{ctx.step}"
    return f"{ctx.node_id}[{ctx.branch}]@{ctx.step}"


def _key(value: Any) -> bytes:
    """A total order over values pydantic can encode: their JSON bytes."""
    return to_json(value)


# ------------------------------------------------------------------------------------ counters


class GCounter(BaseModel):
    """A grow-only counter: each replica counts its own increments; the value is their sum."""

    model_config = _FROZEN

    counts: dict[str, NonNegativeInt] = Field(default_factory=dict)
    """Replica id -> how much that replica has added (sorted by replica id)."""

    @field_validator("counts")
    @classmethod
    def _sorted(cls, counts: dict[str, int]) -> dict[str, int]:
        return dict(sorted(counts.items()))

    @property
    def value(self) -> int:
        """The counter's value: what all replicas added."""
        return sum(self.counts.values())

    def increment(self, replica: str, by: int = 1) -> GCounter:
        """A copy with `by` (>= 0) more counted for `replica`; `ValueError` for a negative `by`."""
        if by < 0:
            raise ValueError(f"GCounter.increment: by must be >= 0, got {by} (use a PNCounter to count down)")
        return GCounter(counts={**self.counts, replica: self.counts.get(replica, 0) + by})

    @commutative(idempotent=True)
    def merge(self, other: GCounter) -> GCounter:
        """Per replica, the larger count."""
        mine = self.counts
        if len(other.counts) > len(mine):
            mine, theirs = other.counts, self.counts
        else:
            theirs = other.counts
        counts: dict[str, int] | None = None
        added = False
        for replica, n in theirs.items():
            have = mine.get(replica)
            if have is None or n > have:
                if counts is None:
                    counts = dict(mine)
                counts[replica] = n
                added = added or have is None
        if counts is None:  # nothing new: the larger side already includes the other
            return self if mine is self.counts else other
        if added:
            counts = dict(sorted(counts.items()))
        # Both sides were validated; what is built from them needs no second validation.
        return GCounter.model_construct(counts=counts)


class PNCounter(BaseModel):
    """A counter that goes up and down: two grow-only counters, of increments and decrements."""

    model_config = _FROZEN

    p: GCounter = GCounter()
    """What was added."""
    n: GCounter = GCounter()
    """What was taken away."""

    @property
    def value(self) -> int:
        """Increments minus decrements."""
        return self.p.value - self.n.value

    def add(self, replica: str, amount: int) -> PNCounter:
        """A copy with `amount` (of either sign) added for `replica`."""
        if amount >= 0:
            return PNCounter(p=self.p.increment(replica, amount), n=self.n)
        return PNCounter(p=self.p, n=self.n.increment(replica, -amount))

    @commutative(idempotent=True)
    def merge(self, other: PNCounter) -> PNCounter:
        """Both counters merged."""
        return PNCounter.model_construct(p=self.p.merge(other.p), n=self.n.merge(other.n))


# ------------------------------------------------------------------------------------ sets


class ORSet(BaseModel, Generic[T]):
    """An observed-remove set: a remove takes out the adds it has seen; a concurrent add wins.

    Every add is tagged `replica#k` (the replica's k-th add), so the same branch adding again
    after a retry makes the same tag. Elements must be values pydantic encodes to JSON; two
    elements are the same when they encode the same.
    """

    model_config = _FROZEN

    added: tuple[tuple[T, str], ...] = ()
    """(element, tag) of every add seen, sorted by tag."""
    removed: tuple[str, ...] = ()
    """Tags of the adds removed (tombstones), sorted."""

    @field_validator("added")
    @classmethod
    def _sorted_adds(cls, added: tuple[tuple[T, str], ...]) -> tuple[tuple[T, str], ...]:
        return _canonical_adds(added)

    @field_validator("removed")
    @classmethod
    def _sorted_tags(cls, removed: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(set(removed)))

    def _live(self) -> dict[bytes, T]:
        dead = set(self.removed)
        live = {_key(elem): elem for elem, tag in self.added if tag not in dead}
        return {k: live[k] for k in sorted(live)}

    @property
    def elements(self) -> tuple[T, ...]:
        """The elements in the set, ordered by their JSON encoding."""
        return tuple(self._live().values())

    def __contains__(self, element: object) -> bool:
        return _key(element) in self._live()

    def __len__(self) -> int:
        return len(self._live())

    def add(self, element: T, replica: str) -> ORSet[T]:
        """A copy with `element` added by `replica`."""
        prefix = f"{replica}#"
        n = len(prefix)
        used = [tag[n:] for _, tag in self.added if tag.startswith(prefix)]
        k = 1 + max((int(u) for u in used if u.isdigit()), default=0)
        return type(self)(added=(*self.added, (element, f"{prefix}{k}")), removed=self.removed)

    def remove(self, element: T) -> ORSet[T]:
        """A copy without `element`: every add of it seen here is removed (a no-op if absent)."""
        key = _key(element)
        tags = [tag for elem, tag in self.added if _key(elem) == key]
        return type(self)(added=self.added, removed=(*self.removed, *tags))

    @commutative(idempotent=True)
    def merge(self, other: ORSet[T]) -> ORSet[T]:
        """Every add and every remove of both."""
        # Both sides hold validated elements: only the canonical order is rebuilt.
        return type(self).model_construct(
            added=_canonical_adds((*self.added, *other.added)),
            removed=tuple(sorted({*self.removed, *other.removed})),
        )


def _canonical_adds(added: tuple[tuple[T, str], ...]) -> tuple[tuple[T, str], ...]:
    """`added` without duplicates, sorted by tag (then element), so equal sets encode alike."""
    unique = {(tag, _key(elem)): (elem, tag) for elem, tag in added}
    return tuple(unique[k] for k in sorted(unique))


# ------------------------------------------------------------------------------------ last writer wins


class LWWRegister(BaseModel, Generic[T]):
    """One value; of two writes the one with the later `(ts, replica)` stamp wins.

    Writers supply the stamp: `ts` is any clock all replicas share (`ctx.step` is deterministic,
    so replays agree), `replica` breaks ties between writes of one instant. Equal stamps with
    different values (one writer contradicting itself) are ordered by the values' JSON.
    """

    model_config = _FROZEN

    value: T | None = None
    """The value, or None before any write (or after a removal, in an `LWWMap`)."""
    ts: float = Field(default=0.0, allow_inf_nan=False)
    """When the value was written (finite)."""
    replica: str = ""
    """Who wrote it."""

    def _stamp(self) -> tuple[float, str, bytes]:
        return (self.ts, self.replica, _key(self.value))

    def assign(self, value: T | None, *, ts: float, replica: str) -> LWWRegister[T]:
        """The register after a write of `value` at `(ts, replica)`: unchanged if that is older."""
        return self.merge(type(self)(value=value, ts=ts, replica=replica))

    @commutative(idempotent=True)
    def merge(self, other: LWWRegister[T]) -> LWWRegister[T]:
        """The register with the later stamp."""
        return other if other._stamp() > self._stamp() else self


class LWWMap(BaseModel, Generic[V]):
    """A map of string keys, each an `LWWRegister`; a removal is a write of None that is kept.

    So a key removed by a later write stays removed when an older put arrives; None is not a
    value a key can hold.
    """

    model_config = _FROZEN

    entries: dict[str, LWWRegister[V]] = Field(default_factory=dict)
    """Key -> its register (removed keys hold None), sorted by key."""

    @field_validator("entries")
    @classmethod
    def _sorted(cls, entries: dict[str, LWWRegister[V]]) -> dict[str, LWWRegister[V]]:
        return dict(sorted(entries.items()))

    def get(self, key: str, default: V | None = None) -> V | None:
        """The value at `key`, or `default` when absent or removed."""
        reg = self.entries.get(key)
        return default if reg is None or reg.value is None else reg.value

    def items(self) -> tuple[tuple[str, V], ...]:
        """The (key, value) pairs present, sorted by key."""
        return tuple((k, r.value) for k, r in self.entries.items() if r.value is not None)

    def __contains__(self, key: object) -> bool:
        reg = self.entries.get(key) if isinstance(key, str) else None
        return reg is not None and reg.value is not None

    def __len__(self) -> int:
        return len(self.items())

    def put(self, key: str, value: V, *, ts: float, replica: str) -> LWWMap[V]:
        """A copy with `key` set to `value` at `(ts, replica)` (unchanged if a later write is known)."""
        return self._write(key, value, ts, replica)

    def remove(self, key: str, *, ts: float, replica: str) -> LWWMap[V]:
        """A copy with `key` removed at `(ts, replica)` (unchanged if a later write is known)."""
        return self._write(key, None, ts, replica)

    def _write(self, key: str, value: V | None, ts: float, replica: str) -> LWWMap[V]:
        # Validated into this map's own register type (`LWWRegister[V]`), then merged as any write.
        write = {"value": value, "ts": ts, "replica": replica}
        return self.merge(type(self).model_validate({"entries": {key: write}}))

    @commutative(idempotent=True)
    def merge(self, other: LWWMap[V]) -> LWWMap[V]:
        """Key by key, the later write."""
        entries = dict(self.entries)
        for key, reg in other.entries.items():
            mine = entries.get(key)
            entries[key] = reg if mine is None else mine.merge(reg)
        # Registers of both sides were validated; only the key order is rebuilt.
        return type(self).model_construct(entries=dict(sorted(entries.items())))
