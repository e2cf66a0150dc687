"""Codecs turn states into bytes and back. JSON through pydantic; never pickle."""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, TypeAdapter

__all__ = ["Codec", "JsonCodec"]

S = TypeVar("S")


class Codec(Protocol[S]):
    """Encodes values of one type to bytes and decodes them back (validating on the way in)."""

    def encode(self, value: S) -> bytes:
        """Encode a full value."""
        ...

    def encode_delta(self, value: S) -> bytes:
        """Encode a partial value (a delta): only what it set explicitly, when the type knows."""
        ...

    def decode(self, data: bytes) -> S:
        """Decode and validate; raises `ValueError` (pydantic `ValidationError`) on bad data."""
        ...


class JsonCodec(Generic[S]):
    """JSON through pydantic's `TypeAdapter(S)`, built once per type.

    Deltas of pydantic models are encoded with `exclude_unset=True`, so a decoded delta has the
    same `model_fields_set` as the one the node returned and the reducer sees the same merge.
    Output is deterministic: field order is the declaration order, dict order is insertion order.
    """

    def __init__(self, tp: type[S] | Any) -> None:
        self.type = tp
        """The type encoded."""
        self._adapter: TypeAdapter[S] = TypeAdapter(tp)
        self._is_model = isinstance(tp, type) and issubclass(tp, BaseModel)
        self._serializer: Any = getattr(tp, "__pydantic_serializer__", None) if self._is_model else None

    def encode(self, value: S) -> bytes:
        """Encode a full value."""
        if self._is_model:
            return self._serializer.to_json(value)  # type: ignore[no-any-return]
        return self._adapter.dump_json(value)

    def encode_delta(self, value: S) -> bytes:
        """Encode only the fields the delta set explicitly."""
        if self._is_model:
            # The model's serializer directly: skips model_dump_json's wrapper and a str round trip.
            return self._serializer.to_json(value, exclude_unset=True)  # type: ignore[no-any-return]
        return self._adapter.dump_json(value, exclude_unset=True)

    def decode(self, data: bytes) -> S:
        """Decode and validate."""
        return self._adapter.validate_json(data)
