"""`from_langgraph(state_graph)`: a LangGraph `StateGraph` as an `Engine` (see `graphengine.adapters.langgraph`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, cast

from langgraph._internal._runnable import RunnableCallable
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send

from graphengine.engine import Engine
from graphengine.errors import GraphError, UnknownNodeError, UnsupportedFeature
from graphengine.result import NodeResult
from graphengine.routing import Branch, Next, fan_out, goto, stop

__all__ = ["from_langgraph"]


def _unsupported(msg: str, feature: str, node_id: str | None = None) -> UnsupportedFeature:
    return UnsupportedFeature(msg, feature=feature, node_id=node_id)


def _plain_function(nid: str, runnable: Any) -> Callable[[Any], Any]:
    func = getattr(runnable, "afunc", None) if getattr(runnable, "func", None) is None else runnable.func
    if not isinstance(runnable, RunnableCallable) or func is None:
        raise _unsupported(
            f"node {nid!r} is a {type(runnable).__name__}, not a plain function of the state; "
            "wrap it in a function",
            "node kind",
            nid,
        )
    sig = inspect.signature(func)
    params = [
        p
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty
    ]
    if len(params) != 1 or params[0].kind is params[0].KEYWORD_ONLY:
        raise _unsupported(
            f"node {nid!r} takes {list(sig.parameters)}; only functions of the state alone can be carried "
            "(config, runtime, store and writer parameters are LangGraph's)",
            "node signature",
            nid,
        )
    return cast(Callable[[Any], Any], func)


def _path_function(src: str, runnable: Any) -> Callable[[Any], Any]:
    func = getattr(runnable, "func", None) or getattr(runnable, "afunc", None)
    if func is None or inspect.iscoroutinefunction(func):
        raise _unsupported(
            f"the conditional edge from {src!r} is not a plain sync function of the state",
            "conditional edge",
            src,
        )
    return cast(Callable[[Any], Any], func)


def from_langgraph(state_graph: Any, **engine_kw: Any) -> Engine[Any]:
    """Build an `Engine` from a LangGraph `StateGraph` (the builder, not the compiled graph).

    Nodes must be plain functions of the state (sync or async) returning a partial update
    (a dict) or None, or a `Command(update=..., goto=...)` to one node; edges may be static,
    conditional (a sync path function, with or without a path map, choosing one destination or
    `Send`s to one node whose only edge leads on), or parallel edges from one node that all
    meet in one join (`add_edge([b, c], d)`). The state type keeps its LangGraph reducers
    (`Annotated[list, operator.add]` merges the same way). `engine_kw` goes to `Engine(...)`
    (store, options, ...). Raises `UnsupportedFeature` naming the node for anything else.
    """
    if not isinstance(state_graph, StateGraph):
        raise _unsupported(
            f"from_langgraph takes a StateGraph builder, got {type(state_graph).__name__} "
            "(pass the builder, before .compile())",
            "graph kind",
        )
    sg = state_graph
    tp = sg.state_schema
    try:
        eng: Engine[Any] = Engine(tp, **engine_kw)
    except GraphError as exc:
        raise _unsupported(
            f"state type {getattr(tp, '__name__', tp)!r} has no default reducer in graphengine "
            "(use a TypedDict or a pydantic model)",
            "state type",
        ) from exc
    to_delta = _delta_maker(tp)
    out_static: dict[str, list[str]] = {}
    for src, dst in sorted(sg.edges):
        out_static.setdefault(src, []).append(dst)
    joins: dict[frozenset[str], str] = {}
    for starts, end in sg.waiting_edges:
        joins[frozenset(starts)] = end
    join_members = {s for starts in joins for s in starts}

    for nid, spec in sg.nodes.items():
        for attr, feature in (
            ("retry_policy", "retry_policy"),
            ("cache_policy", "cache_policy"),
            ("timeout", "timeout"),
            ("error_handler_node", "error_handler"),
        ):
            if getattr(spec, attr, None):
                raise _unsupported(
                    f"node {nid!r} has a {feature}; graphengine expresses it differently "
                    "(Engine.add(retries=, timeout=), on_error): remove it and set it on the engine",
                    feature,
                    nid,
                )
        if getattr(spec, "defer", False) or getattr(spec, "is_error_handler", False):
            raise _unsupported(f"node {nid!r} is deferred or an error handler", "deferred node", nid)
        if spec.input_schema is not tp:
            raise _unsupported(
                f"node {nid!r} reads a private input schema {spec.input_schema!r}", "input schema", nid
            )
        if len(sg.branches.get(nid, {})) > 1 or (sg.branches.get(nid) and out_static.get(nid)):
            raise _unsupported(
                f"node {nid!r} has several outgoing edge groups that LangGraph runs in parallel; "
                "give it one conditional edge or static edges to one node",
                "parallel edges",
                nid,
            )
    if sg.branches.get(START):
        raise _unsupported(
            "the graph has a conditional entry point; add a start node that routes instead",
            "conditional entry",
            START,
        )
    entry = out_static.get(START, [])
    if len(entry) != 1:
        raise _unsupported(
            f"the graph needs exactly one entry edge from START, has {entry}", "entry point", START
        )

    for nid, spec in sg.nodes.items():
        fn = _plain_function(nid, spec.runnable)
        branch_specs = list(sg.branches.get(nid, {}).values())
        path = (_path_function(nid, branch_specs[0].path), branch_specs[0].ends) if branch_specs else None
        eng.add(nid, _make_node(eng, nid, fn, to_delta, path, out_static, sg))
    eng.start_at(entry[0])
    for src, dsts in out_static.items():
        if src == START:
            continue
        targets = [d for d in dsts if d != END]
        if not targets:
            continue
        if src in join_members and len(targets) == 0:
            continue
        if len(targets) == 1:
            eng.connect(src, targets[0])
            continue
        join = joins.get(frozenset(targets))
        if join is None:
            raise _unsupported(
                f"node {src!r} has edges to {targets}, which LangGraph runs in parallel; "
                f"join them with add_edge({targets!r}, 'next') (graphengine runs a fan-out with an explicit join)",
                "parallel edges",
                src,
            )
        for t in targets:
            if out_static.get(t) or sg.branches.get(t):
                raise _unsupported(
                    f"fan-out branch {t!r} (from {src!r}) has edges of its own; only the join may follow it",
                    "parallel edges",
                    t,
                )
        eng.connect(src, targets, join=join)
    for starts_, end in sg.waiting_edges:
        members = frozenset(starts_)
        if not any(frozenset(d for d in dsts if d != END) == members for dsts in out_static.values()):
            raise _unsupported(
                f"join {sorted(members)} -> {end!r} is not reached by parallel edges from one node",
                "join",
                end,
            )
    eng.validate()
    return eng


def _delta_maker(tp: Any) -> Callable[[Any], Any]:
    from pydantic import BaseModel

    if isinstance(tp, type) and issubclass(tp, BaseModel):
        model = tp
        return lambda upd: model.model_construct(_fields_set=set(upd), **upd)
    return dict


def _make_node(
    eng: Engine[Any],
    nid: str,
    fn: Callable[[Any], Any],
    to_delta: Callable[[Any], Any],
    path: tuple[Callable[[Any], Any], Mapping[Hashable, str] | None] | None,
    out_static: Mapping[str, Sequence[str]],
    sg: Any,
) -> Callable[..., Any]:
    """An engine node running LangGraph node function `fn` and its conditional edge, if any."""

    def finish(s: Any, out: Any) -> NodeResult[Any]:
        route: Next | None = None
        if isinstance(out, Command):
            if out.graph is not None or out.resume is not None:
                raise _unsupported(f"node {nid!r} returned a Command with graph= or resume=", "command", nid)
            goto_ = out.goto
            upd = out.update
            if isinstance(goto_, str) and goto_:
                route = stop() if goto_ == END else goto(goto_)
            elif goto_:
                raise _unsupported(
                    f"node {nid!r} returned Command(goto={goto_!r}); only one destination is carried",
                    "command",
                    nid,
                )
            out = upd
        if out is None:
            delta = None
        elif isinstance(out, Mapping):
            delta = to_delta(dict(out)) if out else None
        else:
            raise _unsupported(
                f"node {nid!r} returned {type(out).__name__}; only partial updates (dicts) are carried",
                "node return",
                nid,
            )
        if route is None and path is not None:
            merged = eng.reducer(s, delta) if delta is not None else s
            route = _route_of(nid, path, merged, out_static, sg)
        return NodeResult(delta=delta, route=route)

    if inspect.iscoroutinefunction(fn):

        async def anode(ctx: Any, s: Any) -> NodeResult[Any]:
            return finish(s, await fn(s))

        anode.__qualname__ = getattr(fn, "__qualname__", nid)
        anode.__module__ = getattr(fn, "__module__", __name__)
        return anode

    def snode(ctx: Any, s: Any) -> NodeResult[Any]:
        return finish(s, fn(s))

    snode.__qualname__ = getattr(fn, "__qualname__", nid)
    snode.__module__ = getattr(fn, "__module__", __name__)
    return snode


def _route_of(
    nid: str,
    path: tuple[Callable[[Any], Any], Mapping[Hashable, str] | None],
    state: Any,
    out_static: Mapping[str, Sequence[str]],
    sg: Any,
) -> Next:
    fn, ends = path
    res = fn(state)
    items: list[Any] = list(res) if isinstance(res, list | tuple) else [res]
    if items and all(isinstance(x, Send) for x in items):
        nodes = {x.node for x in items}
        if len(nodes) != 1:
            raise _unsupported(
                f"the conditional edge from {nid!r} sent to several nodes {sorted(nodes)}", "send", nid
            )
        (target,) = nodes
        after = [d for d in out_static.get(target, []) if d != END]
        if len(after) != 1 or sg.branches.get(target):
            raise _unsupported(
                f"Send from {nid!r} to {target!r}: {target!r} needs exactly one static edge to a join",
                "send",
                target,
            )
        return fan_out([Branch(target, input=x.arg) for x in items], join=after[0])
    if len(items) != 1 or isinstance(items[0], Send):
        raise _unsupported(
            f"the conditional edge from {nid!r} chose {items!r}; only one destination (or Sends to one node) is carried",
            "parallel edges",
            nid,
        )
    dest = items[0]
    if ends is not None:
        if dest not in ends:
            raise UnknownNodeError(
                f"the conditional edge from {nid!r} returned {dest!r}, not in its path map {list(ends)}",
                node_id=nid,
            )
        dest = ends[dest]
    return stop() if dest == END else goto(str(dest))
