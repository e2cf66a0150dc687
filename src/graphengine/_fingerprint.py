"""What identifies a graph: its description, the fingerprint runs record, and whether a stored run's names this graph.

A description holds what defines the graph: node ids and the code each runs, the start node,
the static edges with their predicates, the error routes and the `interrupt_before` marks. Code
(a node's function or class, an edge's predicate) is named by its qualified name alone
(`work`, `Planner.run`, `build.<locals>.step`), never with the module it was imported under:
that module depends on how the program was started, not on the graph. `python app.py` imports
the script as `__main__`, `graphengine resume app:ENGINE` imports it as `app`, `python -m
pkg.app` as `pkg.app`; a fingerprint with the module would refuse a run started one way and
resumed another, although every node runs the same code. What is lost: swapping a node's
function for one of the same qualified name from another module goes unnoticed, as an edit of
the function's body always has (the identity names code, it does not hash it).

Runs recorded before this rule named code as `module.qualname` (their description has no
`"names"` key). They stay resumable without a migration: such a run matches when its stored
fingerprint is this graph's old-style one (resumed under the same module names), or when its
stored description, with each `module.qualname` whose qualified name is the one this graph has
at that place read as the qualified name, hashes to this graph's fingerprint (a script's
`__main__.work` resumed as `app.work`). Stored records are never rewritten. One case stays
refused: an older run of a graph with a subgraph, resumed under other module names than it was
recorded with (the run recorded only the subgraph's old fingerprint, which hashed the child's
module names); resume it as it was started, or with `allow_graph_change=True`.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from .exports import defined_in

if TYPE_CHECKING:
    from .graph import Wiring

__all__ = ["changes", "describe", "fingerprint_of", "same_graph"]

NAMES = "qualname"
"""How a description names code; recorded in it as `"names"` (absent: the old `module.qualname`)."""


def _qualname(target: Any) -> str:
    return str(getattr(target, "__qualname__", type(target).__qualname__))


def _name(fn: Any, with_module: bool, no_module: str = "") -> str:
    """How a description names a function or class (`with_module`: the old way, `no_module`
    standing in for a missing `__module__` exactly as it did)."""
    if fn is None:
        return ""
    q = _qualname(fn)
    if not with_module:
        return q
    # the module it was written in, as before `graphengine.exports.publish` renamed public ones
    return f"{defined_in(fn) if hasattr(fn, '__module__') else no_module}.{q}"


def _code_identity(obj: Any, with_module: bool) -> str:
    """Which code implements a node: its function's or class's qualified name.

    Editing a node's body keeps the identity (a bug fix must not strand runs); swapping in
    another function or class changes it. A subgraph is identified by its own fingerprint.
    """
    from .subgraph import Subgraph

    if isinstance(obj, Subgraph):
        child = obj.engine.runtime().graph
        return f"subgraph:{child.legacy_fingerprint if with_module else child.fingerprint}"
    target = obj if callable(obj) and not hasattr(obj, "run") else type(obj)
    if hasattr(obj, "fn") and callable(obj.fn):  # NodeFunc
        target = obj.fn
    return _name(target, with_module, "?")


def describe(wiring: Wiring[Any], *, with_module: bool = False) -> dict[str, Any]:
    """The graph's shape as JSON-ready data: what the fingerprint hashes and runs record.

    `with_module`: the description recorded before code was named without its module.
    """
    desc: dict[str, Any] = {
        "nodes": {k: _code_identity(v.obj, with_module) for k, v in sorted(wiring.nodes.items())},
        "start": wiring.start,
        "edges": [[e.src, e.dst, _name(e.when, with_module), list(e.branches)] for e in wiring.edges],
        "errors": sorted([k or "*", v] for k, v in wiring.error_routes.items()),
        "before": sorted(k for k, v in wiring.nodes.items() if v.interrupt_before),
    }
    if not with_module:
        desc["names"] = NAMES
    return desc


def fingerprint_of(desc: dict[str, Any]) -> str:
    """A stable hash of a graph description."""
    raw = json.dumps(desc, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def same_graph(
    stored: str, stored_desc: Any, fingerprint: str, desc: dict[str, Any], legacy: dict[str, Any]
) -> bool:
    """Whether a run recorded with fingerprint `stored` (and description `stored_desc`) was
    started by the graph with this `fingerprint`, description `desc` and old-style description
    `legacy` (see the module docstring for runs recorded before code lost its module)."""
    if stored == fingerprint:
        return True
    if not isinstance(stored_desc, dict) or "names" in stored_desc:
        return False
    return (
        stored == fingerprint_of(legacy) or fingerprint_of(upgraded(stored_desc, desc, legacy)) == fingerprint
    )


def upgraded(old: dict[str, Any], desc: dict[str, Any], legacy: dict[str, Any]) -> dict[str, Any]:
    """An old-style description (`module.qualname`) read in today's naming, guided by this graph.

    Each code name becomes this graph's name at the same place when it is this graph's
    old-style name there, or names the same qualified name under another module; any other
    name stays as it was, so the difference still shows.
    """
    out = {k: v for k, v in old.items()}
    out["names"] = NAMES
    nodes, new_nodes, old_style = old.get("nodes"), desc["nodes"], legacy["nodes"]
    if isinstance(nodes, dict):
        out["nodes"] = {k: _read(v, new_nodes.get(k), old_style.get(k)) for k, v in nodes.items()}
    edges = old.get("edges")
    if isinstance(edges, list):
        out["edges"] = [_edge(e, i, desc["edges"], legacy["edges"]) for i, e in enumerate(edges)]
    return out


def _edge(e: Any, i: int, new: list[Any], old_style: list[Any]) -> Any:
    if not (isinstance(e, list) and len(e) == 4 and i < len(new)):
        return e
    return [e[0], e[1], _read(e[2], new[i][2], old_style[i][2]), e[3]]


def _read(name: Any, new: str | None, old_style: str | None) -> Any:
    """One stored code name in today's naming (`new`), if it names the same code."""
    if new is None or not isinstance(name, str):
        return name
    if name == old_style or (new and not new.startswith("subgraph:") and name.endswith("." + new)):
        return new
    return name


def changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Human-readable differences between two graph descriptions."""
    out: list[str] = []
    on, nn = old.get("nodes", {}), new.get("nodes", {})
    out += [f"node {k!r} removed" for k in on if k not in nn]
    out += [f"node {k!r} added" for k in nn if k not in on]
    out += [f"node {k!r} now runs {nn[k]} (was {on[k]})" for k in on if k in nn and on[k] != nn[k]]
    if old.get("start") != new.get("start"):
        out.append(f"start changed from {old.get('start')!r} to {new.get('start')!r}")
    oe = [tuple(map(str, e)) for e in old.get("edges", [])]
    ne = [tuple(map(str, e)) for e in new.get("edges", [])]
    out += [f"edge {e[0]!r} -> {e[1]!r} removed" for e in oe if e not in ne]
    out += [f"edge {e[0]!r} -> {e[1]!r} added" for e in ne if e not in oe]
    if old.get("errors") != new.get("errors"):
        out.append(f"error routes changed from {old.get('errors')} to {new.get('errors')}")
    if old.get("before") != new.get("before"):
        out.append(f"interrupt_before nodes changed from {old.get('before')} to {new.get('before')}")
    return out or ["the graph description differs"]
