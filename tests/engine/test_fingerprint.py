"""The graph fingerprint names code by qualified name, not by the module it was imported under.

`python app.py` imports the script as `__main__`; `graphengine resume app:ENGINE` imports it as
`app`. The same source is loaded here under both names (as those two programs do) and the
fingerprints compared. Runs recorded by the previous release, which named code `module.qualname`,
are rebuilt from the literal records that release wrote (the fingerprints and descriptions below
were printed by it for this very graph), and must stay resumable.
"""

from __future__ import annotations

import json
import time
import types

import pytest
from pydantic import BaseModel

from graphengine import Engine, GraphChangedError, NodeResult, Subgraph
from graphengine.store import MemoryStore, RunRecord, RunStatus, Store


class Tally(BaseModel):
    """A counter."""

    n: int = 0


APP = """
def work(ctx, s):
    return NodeResult(delta=Tally(n=s.n + 1))

def enough(s):
    return s.n >= 2

def plenty(s):
    return s.n >= 2

class Finish:
    def run(self, ctx, s):
        return NodeResult()
"""

# Written by the previous release for `build(load("app"))` and `build(load("__main__"))`.
OLD_APP_FINGERPRINT = "13fd5f3e66f1d8d6"
OLD_APP_GRAPH = json.loads(
    '{"before": [], "edges": [["work", "finish", "app.enough", []], ["work", "work", "", []]], "errors": [],'
    ' "nodes": {"finish": "app.Finish", "work": "app.work"}, "start": "work"}'
)
OLD_MAIN_FINGERPRINT = "6d1e48e1b530ae22"
OLD_MAIN_GRAPH = json.loads(
    '{"before": [], "edges": [["work", "finish", "__main__.enough", []], ["work", "work", "", []]],'
    ' "errors": [], "nodes": {"finish": "__main__.Finish", "work": "__main__.work"}, "start": "work"}'
)
# Written by the previous release for `nested(load("app"))`: `sub` is a subgraph running `inner`.
OLD_NESTED_FINGERPRINT = "1f5e7407344f2dc8"
OLD_NESTED_GRAPH = json.loads(
    '{"before": [], "edges": [["outer", "sub", "", []]], "errors": [],'
    ' "nodes": {"outer": "app.work", "sub": "subgraph:bd1d001cfc12c6bb"}, "start": "outer"}'
)


def load(module_name: str) -> types.ModuleType:
    """The app's source executed as a module of that name (its functions' `__module__`)."""
    m = types.ModuleType(module_name)
    m.__dict__.update(NodeResult=NodeResult, Tally=Tally)
    exec(APP, m.__dict__)  # a literal of this test, standing in for a script file
    return m


def build(m: types.ModuleType, store: Store | None = None, *, when: str = "enough") -> Engine[Tally]:
    """work loops until `when` holds, then finish."""
    g = Engine(Tally, store=store)
    g.add("work", m.work).add("finish", m.Finish())
    return g.start_at("work").connect("work", "finish", when=getattr(m, when)).connect("work", "work")


def nested(m: types.ModuleType, store: Store | None = None) -> Engine[Tally]:
    """outer (work), then sub: a subgraph whose one node `inner` runs work too."""
    child = Engine(Tally, store=store).add("inner", m.work).start_at("inner")
    g = Engine(Tally, store=store).add("outer", m.work).add("sub", Subgraph(child))
    return g.start_at("outer").connect("outer", "sub")


async def recorded_before(store: Store, run_id: str, fingerprint: str, graph: dict[str, object]) -> None:
    """Store a run as the previous release stored it when it started (no step yet)."""
    now = time.time()
    meta = json.dumps({"graph": graph}, separators=(",", ":"), sort_keys=True).encode()
    rec = RunRecord(run_id, RunStatus.RUNNING, b'{"n":0}', fingerprint, 1, now, now, meta=meta)
    await store.create_run(rec)


def test_the_module_a_function_was_imported_under_does_not_change_the_fingerprint() -> None:
    """The graph of a script run as `__main__` has the fingerprint of the same file imported as `app`."""
    assert build(load("__main__")).fingerprint == build(load("app")).fingerprint
    assert build(load("pkg.app")).fingerprint == build(load("app")).fingerprint


def test_another_predicate_still_changes_the_fingerprint() -> None:
    """Routing by another function (another qualified name) is another graph."""
    assert build(load("app"), when="plenty").fingerprint != build(load("app")).fingerprint


def test_the_old_style_fingerprint_is_the_previous_releases() -> None:
    """The fingerprint kept for older runs is exactly what the previous release recorded."""
    assert build(load("app")).runtime().graph.legacy_fingerprint == OLD_APP_FINGERPRINT
    assert build(load("__main__")).runtime().graph.legacy_fingerprint == OLD_MAIN_FINGERPRINT


async def test_a_run_started_as_main_resumes_when_imported_as_app() -> None:
    """A run recorded by `python app.py` (today's naming) resumes with the engine imported as `app`."""
    store = MemoryStore()
    assert await build(load("__main__"), store).run("r1", Tally()) == Tally(n=2)
    again = build(load("app"), store)
    assert await again.resume("r1") == Tally(n=2)
    assert (await again.replay("r1")).ok


@pytest.mark.parametrize(
    ("fingerprint", "graph"),
    [(OLD_APP_FINGERPRINT, OLD_APP_GRAPH), (OLD_MAIN_FINGERPRINT, OLD_MAIN_GRAPH)],
    ids=["recorded-as-app", "recorded-as-main"],
)
@pytest.mark.parametrize("module_name", ["app", "__main__"])
async def test_a_run_recorded_by_the_previous_release_resumes(
    fingerprint: str, graph: dict[str, object], module_name: str
) -> None:
    """An older run resumes whatever module names it was recorded and is resumed under."""
    store = MemoryStore()
    await recorded_before(store, "old", fingerprint, graph)
    g = build(load(module_name), store)
    assert await g.resume("old") == Tally(n=2)
    assert (await g.replay("old")).ok
    assert g.runtime().same_graph(await g.get_run("old"))


async def test_an_older_run_of_another_graph_is_still_refused_and_says_what_changed() -> None:
    """An older run whose predicate was another function is refused, naming the edge and the overrides."""
    store = MemoryStore()
    await recorded_before(store, "old", OLD_MAIN_FINGERPRINT, OLD_MAIN_GRAPH)
    g = build(load("app"), store, when="plenty")
    with pytest.raises(GraphChangedError) as ei:
        await g.resume("old")
    text = str(ei.value)
    assert "edge 'work' -> 'finish' removed" in text and "edge 'work' -> 'finish' added" in text
    assert "node" not in text.split("(")[1].split(")")[0]  # the nodes match: only the edge differs
    assert "--allow-graph-change" in text and "allow_graph_change=true" in text
    assert await g.resume("old", allow_graph_change=True) == Tally(n=2)


async def test_an_older_run_with_a_subgraph_resumes_under_its_module_names() -> None:
    """An older run whose graph has a subgraph resumes when its code is imported as it was recorded."""
    store = MemoryStore()
    await recorded_before(store, "old", OLD_NESTED_FINGERPRINT, OLD_NESTED_GRAPH)
    g = nested(load("app"), store)
    assert g.runtime().graph.legacy_fingerprint == OLD_NESTED_FINGERPRINT
    assert await g.resume("old") == Tally(n=2)


def test_a_subgraph_imported_under_another_module_keeps_the_parents_fingerprint() -> None:
    """The subgraph's own code is named without its module too, so the parent's fingerprint holds."""
    assert nested(load("__main__")).fingerprint == nested(load("app")).fingerprint
