"""A codec that stores NaN and infinity so they read back (`keeps_non_finite`) is trusted with them.

JSON writes NaN and infinity as `null`, so the engine walks any value whose encoding holds `null`
and refuses a non-finite float in it. A codec that writes them in its own way and declares
`keeps_non_finite = True` skips that walk: its NaN reaches the next node, the history and a new
engine's `get_state` as NaN. Without the declaration the same value is refused, as for `JsonCodec`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, TypedDict

import pytest

from graphengine import Context, EncodeError, Engine, NodeResult, StateValidationError, goto, stop
from graphengine.store import SQLiteStore


class N(TypedDict, total=False):
    """A state whose encoding holds `null` (`note`) beside a float."""

    note: str | None
    x: float


class TaggingCodec:
    """JSON with NaN and infinity written as {"float": "nan"} (never as null)."""

    keeps_non_finite = True

    def encode(self, value: Any) -> bytes:
        return json.dumps({k: self._tag(v) for k, v in value.items()}, allow_nan=False).encode()

    def decode(self, data: bytes) -> Any:
        return {k: self._untag(v) for k, v in json.loads(data).items()}

    encode_delta = encode
    decode_delta = decode

    @staticmethod
    def _tag(v: Any) -> Any:
        return {"float": repr(v)} if isinstance(v, float) and not math.isfinite(v) else v

    @staticmethod
    def _untag(v: Any) -> Any:
        return float(v["float"]) if isinstance(v, dict) and "float" in v else v


class NullCodec(TaggingCodec):
    """The same codec without the declaration: the engine still looks for NaN behind a null."""

    keeps_non_finite = False


def engine(codec: Any, path: Path) -> Engine[N]:
    async def first(ctx: Context, s: N) -> NodeResult[N]:
        return NodeResult(delta={"x": -math.inf, "note": None}, route=goto("second"))

    async def second(ctx: Context, s: N) -> NodeResult[N]:
        assert s["x"] == -math.inf  # the value read back is the one written
        return NodeResult(delta={"x": math.nan}, route=stop())

    g: Engine[N] = Engine(N, codec=codec, store=SQLiteStore(path))
    g.add("first", first).add("second", second).start_at("first")
    return g


async def test_a_codec_that_keeps_non_finite_floats_stores_them(tmp_path: Path) -> None:
    """NaN and -inf go through steps, the store and a new engine's read as themselves."""
    g = engine(TaggingCodec(), tmp_path / "t.db")
    out = await g.run("r", {"note": None, "x": math.inf})
    assert math.isnan(out["x"]) and out["note"] is None
    again = engine(TaggingCodec(), tmp_path / "t.db")
    state = await again.get_state("r")
    assert math.isnan(state["x"])
    await g.store.close()
    await again.store.close()


async def test_without_the_declaration_the_engine_refuses_them(tmp_path: Path) -> None:
    """The same values through a codec that does not declare it are refused, typed."""
    g = engine(NullCodec(), tmp_path / "n.db")
    with pytest.raises(StateValidationError):
        await g.run("r", {"note": None, "x": math.inf})
    with pytest.raises(EncodeError):
        await g.run("r2", {"note": None, "x": 1.0})
    await g.store.close()
