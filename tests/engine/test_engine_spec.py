"""`Engine.spec()`: the graph as a read-only description; `Engine.runtime()`: what a run works with;
and no module outside `engine.py` reads a private name of `Engine`."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from engine_fixtures import S, is_big

from graphengine import Context, DeltaTypeError, EdgeSpec, Engine, GraphSpec, NodeError, NodeInfo, NodeResult
from graphengine.store import MemoryStore


def wired() -> Engine[S]:
    """A conditional edge, a lambda edge, a fan-out with a join, error routes and a pause."""
    g = Engine(S)
    for n in ("start", "big", "small", "a", "b", "join", "fix"):
        g.add(n, lambda ctx, s: NodeResult(), interrupt_before=(n == "fix"))
    g.start_at("start")
    g.connect("start", "big", when=is_big).connect("start", "small", when=lambda s: True)
    g.connect("small", ["a", "b"], join="join")
    g.on_error("big", "fix").on_error(None, "fix")
    return g


def test_spec_describes_nodes_edges_routes_and_fingerprint() -> None:
    """Nodes in order with their pauses, edges with predicate names, error routes, start, fingerprint."""
    g = wired()
    spec = g.spec()
    assert isinstance(spec, GraphSpec)
    assert spec.state_type is S and spec.type_name == "S" and spec.start == "start"
    assert spec.node_ids == ("start", "big", "small", "a", "b", "join", "fix")
    assert spec.nodes[-1] == NodeInfo("fix", True)
    assert spec.edges == (
        EdgeSpec("start", "big", "is_big"),
        EdgeSpec("start", "small", "when"),
        EdgeSpec("small", "join", None, ("a", "b")),
    )
    assert spec.handler_of("big") == "fix" and spec.handler_of("a") == "fix"
    assert spec.fingerprint == g.fingerprint


def test_spec_is_read_only_and_does_not_follow_later_wiring() -> None:
    """The spec is frozen; wiring the engine afterwards does not change a spec already taken."""
    g = wired()
    spec = g.spec()
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.start = "big"  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.error_routes["a"] = "b"  # type: ignore[index]
    g.add("late", lambda ctx, s: NodeResult()).on_error("a", "late")
    assert "late" not in spec.node_ids and spec.handler_of("a") == "fix"


def test_spec_of_an_unfinished_graph_has_no_fingerprint() -> None:
    """A graph that does not validate yet is described, without a fingerprint."""
    g = Engine(S).add("a", lambda ctx, s: NodeResult())
    spec = g.spec()
    assert spec.start is None and spec.node_ids == ("a",) and spec.fingerprint is None


async def test_runtime_follows_the_engines_store_and_compiles_once() -> None:
    """A runtime is built from the engine's current store; the compiled graph is shared."""
    g = wired()
    rt = g.runtime()
    assert rt.store is g.store and rt.codec is g.codec and rt.options is g.options
    other = MemoryStore()
    g.store = other
    rt2 = g.runtime()
    assert rt2.store is other and rt2.graph is rt.graph


async def test_runtime_runs_one_node_as_a_run_does_and_checks_deltas() -> None:
    """`Runtime.run_node` gives a node its retries (the attempts it took are those a run records)
    and stores nothing; `checked_delta` refuses a delta of another type with `DeltaTypeError`."""
    failures = {"n": 0}

    def flaky(ctx: Context, s: S) -> NodeResult[S]:
        if failures["n"] < 2:
            failures["n"] += 1
            raise ConnectionError("down")
        return NodeResult(delta=S(n=s.n + ctx.attempt))

    g = Engine(S).add("f", flaky, retries=3, backoff=0.0).start_at("f")
    await g.run("r", S())
    recorded = [(rec.node_id, rec.attempt) for rec in await g.store.load_steps("r")]
    failures["n"] = 0
    rt = g.runtime()
    res, attempts, ctx = await rt.run_node(rt.graph.nodes["f"], "other", 0, S(n=1))
    assert recorded == [("f", attempts)] and attempts == 3 == ctx.attempt
    assert res.delta == S(n=4)
    assert await g.store.get_run("other") is None
    assert rt.checked_delta(S(n=2), "r", 0, "f") == S(n=2)
    with pytest.raises(DeltaTypeError, match="node 'f' returned a delta of type dict, expected S"):
        rt.checked_delta({"n": 2}, "r", 0, "f")
    failures["n"] = -10  # more failures than attempts
    with pytest.raises(NodeError, match="down"):
        await rt.run_node(rt.graph.nodes["f"], "other", 0, S())
    assert failures["n"] == -6  # the first attempt and its three retries


def test_no_module_outside_engine_reads_an_engine_private() -> None:
    """Other modules use `Engine.runtime()` and `Engine.spec()`, never the engine's private attributes."""
    src = Path(__file__).resolve().parents[2] / "src"
    private = re.compile(r"\b(?:eng|engine|self\.engine|self\._engine)\._(?!_)[a-z]\w*")
    found = [
        f"{path.relative_to(src)}:{i}: {line.strip()}"
        for path in sorted(src.rglob("*.py"))
        if path.name != "engine.py" and "store" not in path.parts
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if private.search(line)
    ]
    assert not found, "\n".join(found)
