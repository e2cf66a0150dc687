"""Compilation of a planning call into a compact integer task the search loop runs on.

Decide once, run many: every condition is resolved against the finite value domain of its fact
here, so the search never compares Python values.

- **Finite facts** (every key that no ``add()`` effect touches) get a value domain: the initial
  value plus every value an effect assigns. A state stores each finite fact as a value index in a
  bit field of one Python ``int``; a precondition set is then one mask test
  ``state & pre_mask == pre_val`` and applying an action is ``(state & keep) | eff_val``.
- Non-equality conditions on finite facts (``ne``, ``lt``, ``in_``...) become the set of domain
  values they allow; an action whose condition allows several values is split into one compiled
  operator per value (bounded by ``_MAX_SPLIT``; beyond that the set is checked at run time).
  So the heuristics see a STRIPS-like task of (fact, value) pairs.
- **Numeric facts** (keys touched by ``add()``) are unbounded: they live in a tuple next to the
  packed int and their conditions are checked at run time. Heuristics ignore them (a relaxation,
  so admissibility holds).
- **Pruning**: operators whose preconditions are not reachable in the delete relaxation are
  dropped (forward), then operators that produce no fact a goal or a relevant operator needs are
  dropped (backward relevance), and facts nothing tests are projected away. With state-dependent
  costs only the forward step runs (a cost function may read any fact). Both keep every
  optimal plan, so optimality and completeness are unchanged.

The common case (plain equality conditions and values, numeric costs, no ``add()``) is compiled by
the optional C extension :mod:`goap.planning._ground` when it is built; it returns exactly what the
pure-Python code below returns (the same variables, operators, goal sets and counts). Without it,
or with ``GOAP_PURE_PYTHON=1`` in the environment, or for any other task, the Python code runs.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from goap.planning._actions import ActionSpec, check_cost_sum, check_initial
from goap.planning._conditions import Add, holds
from goap.planning._errors import ModelError
from goap.planning._task import CompiledOp, Task, _Var

__all__ = ["ACCELERATED", "compile_task"]

_ground: Any = None
if os.environ.get("GOAP_PURE_PYTHON", "") != "1":
    try:
        from goap.planning import _ground
    except ImportError:  # the extension was not built: the pure-Python grounding runs
        _ground = None
        import logging  # here only: `python -m goap plan` loads no logging otherwise

        logging.getLogger(__name__).debug(
            "goap.planning._ground is not built (no C compiler when goap was installed?): "
            "grounding runs in pure Python (same results, slower)"
        )

ACCELERATED: bool = _ground is not None
"""Whether plain tasks are grounded by the C extension (built, and ``GOAP_PURE_PYTHON`` unset)."""

_MAX_SPLIT = 64
"""Most operators one action may be split into for its non-equality conditions."""


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


_CACHE_SIZE = 32
"""Most compiled tasks kept by :func:`compile_task` (least recently used ones are dropped)."""

_cache: OrderedDict[tuple[Any, ...], tuple[tuple[ActionSpec, ...], Task]] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_key(
    initial: Mapping[str, Any], goal: Mapping[str, Any], actions: Sequence[ActionSpec], prune: bool
) -> tuple[Any, ...] | None:
    # types are part of the key: 1, 1.0 and True are equal but compile to different domains
    try:
        key = (
            prune,
            tuple(map(id, actions)),
            tuple([(k, type(v), v) for k, v in initial.items()]),
            tuple([(k, type(c), c) for k, c in goal.items()]),
        )
        hash(key)
    except TypeError:
        return None  # an unhashable value or condition: no caching
    return key


def compile_task(
    initial: Mapping[str, Any],
    goal: Mapping[str, Any],
    actions: Sequence[ActionSpec],
    *,
    prune: bool = True,
) -> Task:
    """Compile a planning call into a :class:`Task`.

    A Task is read-only, so the last :data:`_CACHE_SIZE` compilations are kept and a repeated call
    (the same ActionSpec objects, in the same order, with equal initial state and goal) returns
    the cached one: re-planning with an unchanged action set and state skips compilation. The
    cache is keyed by the actions' identity (they are frozen) and holds them, so an id is never
    reused while its entry lives; it is safe under concurrent planning (a lock guards it).

    Raises :class:`goap.ModelError` for duplicate action names or a numeric effect on a fact that
    is not a number in ``initial``.
    """
    key = _cache_key(initial, goal, actions, prune)
    if key is not None:
        with _cache_lock:
            hit = _cache.get(key)
            if hit is not None:
                _cache.move_to_end(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], actions, strict=True)):
            return hit[1]
    task = _compile(initial, goal, actions, prune)
    if key is not None:
        with _cache_lock:
            _cache[key] = (tuple(actions), task)
            _cache.move_to_end(key)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return task


def _compile(
    initial: Mapping[str, Any],
    goal: Mapping[str, Any],
    actions: Sequence[ActionSpec],
    prune: bool,
    accelerated: bool | None = None,
) -> Task:
    check_cost_sum(actions)  # every search adds costs in its heuristic; a cache hit was checked already
    check_initial(initial)  # for strategies called directly; a NaN key never hits the cache (nan != nan)
    dynamic = any(a.effect_fn is not None for a in actions)  # the C grounding does not know effect_fn
    if prune and not dynamic and (ACCELERATED if accelerated is None else accelerated):
        task = _compile_plain(initial, goal, actions)
        if task is not None:
            return task
    return _compile_python(initial, goal, actions, prune)


def _compile_plain(
    initial: Mapping[str, Any], goal: Mapping[str, Any], actions: Sequence[ActionSpec]
) -> Task | None:
    """The C grounding of a plain task, or None when it does not apply (the Python code then runs,
    raising its own errors for bad input). An exception the C code raises (from user code it ran:
    a name's ``__hash__``, a cost's ``__float__``, a mapping's ``keys()``; MemoryError; an internal
    error) propagates: the Python compiler does not run that user code a second time."""
    if _ground is None:
        raise ImportError("goap.planning._ground is not built; reinstall with: pip install -e .")
    out = _ground.compile_plain(initial, goal, actions, CompiledOp)
    if out is None:
        return None
    variables, ops, goal_sets, pruned, dropped, impossible, reachable, buckets = out
    return Task(
        [_Var._make(v) for v in variables],
        (),
        ops,
        0,
        (),
        goal_sets,
        (),
        pruned,
        dropped,
        impossible,
        reachable,
        buckets,
        plain=True,
    )


def _pack(
    facts: Mapping[str, int], vbits: Mapping[str, tuple[int, int, int]]
) -> tuple[int, int, list[tuple[str, int, int]]]:
    """Facts (key -> value index) of the kept variables as the packed state's mask and value, and
    each as (key, value index, fact id), in key order; facts of pruned variables are left out."""
    mask = value = 0
    out: list[tuple[str, int, int]] = []
    for k, x in sorted(facts.items()):
        vb = vbits.get(k)
        if vb is None:
            continue
        mask |= vb[0]
        value |= x << vb[1]
        out.append((k, x, vb[2] + x))
    return mask, value, out


def _compile_python(
    initial: Mapping[str, Any], goal: Mapping[str, Any], actions: Sequence[ActionSpec], prune: bool
) -> Task:
    seen: set[str] = set()
    for a in actions:
        if a.name in seen:
            raise ModelError(f"duplicate action name {a.name!r}")
        seen.add(a.name)
    keys: set[str] = set(initial) | set(goal)
    for a in actions:
        keys.update(a.preconditions)
        keys.update(a.effects)
    numeric_keys = {k for a in actions for k, e in a.effects.items() if isinstance(e, Add)}
    # keys an effect_fn writes are open facts: stored like numbers (any value), tested at run time
    open_keys = {k for a in actions for k in a.effect_keys}
    keys.update(open_keys)
    for k in sorted(numeric_keys):
        if not _is_number(initial.get(k)):
            raise ModelError(
                f"fact {k!r} has add() effects but its initial value {initial.get(k)!r} is not a number"
            )
        for a in actions:
            e = a.effects.get(k)
            if e is not None and not isinstance(e, Add) and not _is_number(e):
                raise ModelError(f"action {a.name!r}: numeric fact {k!r} cannot be set to {e!r}")
    numeric_keys |= open_keys
    finite_keys = sorted(keys - numeric_keys)
    num_keys = sorted(numeric_keys)
    domains: dict[str, dict[Any, int]] = {}
    for k in finite_keys:
        dom: dict[Any, int] = {initial.get(k): 0}
        domains[k] = dom
    for a in actions:
        for k, e in a.effects.items():
            if k in domains and e not in domains[k]:
                domains[k][e] = len(domains[k])
    # provisional fact ids over all finite keys (pruning re-numbers them)
    base: dict[str, int] = {}
    nf = 0
    for k in finite_keys:
        base[k] = nf
        nf += len(domains[k])
    dom_values: dict[str, list[Any]] = {k: list(d) for k, d in domains.items()}

    plain_types = (str, int, float, bool, type(None))

    def allowed(k: str, cond: object) -> list[int]:
        if type(cond) in plain_types:
            # a plain value means equality: one dict lookup instead of a scan of the domain
            i = domains[k].get(cond)
            if i is not None and dom_values[k][i] == cond:
                return [i]
        return [i for i, v in enumerate(dom_values[k]) if holds(cond, v)]

    # ---- ground every action: (action, eq pre facts, residual fact sets, num pre, eff facts, num eff)
    Raw = tuple[ActionSpec, dict[str, int], dict[str, tuple[int, ...]], list[tuple[str, object]],
                dict[str, int], list[tuple[str, bool, float]]]  # fmt: skip
    raws: list[Raw] = []
    for a in actions:
        eq_pre: dict[str, int] = {}
        multi: dict[str, tuple[int, ...]] = {}
        num_pre: list[tuple[str, object]] = []
        dead = False
        for k, cond in a.preconditions.items():
            if k in numeric_keys:
                num_pre.append((k, cond))
                continue
            if type(cond) in plain_types:
                # the common case inline: equality with a plain value is one dict lookup
                dk = domains[k]
                i = dk.get(cond)
                if i is not None and dom_values[k][i] == cond:
                    if len(dk) > 1:
                        eq_pre[k] = i
                    continue
            ok = allowed(k, cond)
            if not ok:
                dead = True
                break
            if len(ok) == len(dom_values[k]):
                continue
            if len(ok) == 1:
                eq_pre[k] = ok[0]
            else:
                multi[k] = tuple(ok)
        if dead:
            continue
        eff: dict[str, int] = {}
        num_eff: list[tuple[str, bool, float]] = []
        for k, e in a.effects.items():
            if k in numeric_keys:
                if isinstance(e, Add):
                    num_eff.append((k, True, e.amount))
                else:
                    num_eff.append((k, False, e))
            else:
                eff[k] = domains[k][e]
        if not multi:
            e2 = {k: x for k, x in eff.items() if eq_pre.get(k) != x}
            if e2 or num_eff or a.effect_fn is not None:  # otherwise a self-loop: it changes nothing
                raws.append((a, eq_pre, multi, num_pre, e2, num_eff))
            continue
        # split set conditions into equality operators when the product stays small
        split_keys = sorted(multi)
        size = 1
        for k in split_keys:
            size *= len(multi[k])
        if size <= _MAX_SPLIT:
            for combo in itertools.product(*(multi[k] for k in split_keys)):
                pre = dict(eq_pre)
                pre.update(zip(split_keys, combo, strict=True))
                e2 = {k: x for k, x in eff.items() if pre.get(k) != x}
                if not e2 and not num_eff and a.effect_fn is None:
                    continue  # a self-loop: it changes nothing
                raws.append((a, pre, {}, num_pre, e2, num_eff))
        else:
            raws.append((a, eq_pre, multi, num_pre, eff, num_eff))

    # ---- goal
    goal_allowed: dict[str, tuple[int, ...]] = {}
    num_goal: list[tuple[str, object]] = []
    for k, cond in goal.items():
        if k in numeric_keys:
            num_goal.append((k, cond))
        else:
            goal_allowed[k] = tuple(allowed(k, cond))

    # ---- forward relaxed reachability (numeric conditions count as satisfiable), linear:
    # each operator waits for a count of condition units (an equality fact, or a set condition
    # satisfied by any of its facts); reaching a fact settles its units and fires the operators
    n_raw = len(raws)
    if prune:
        reached = [False] * nf
        alive = [False] * n_raw
        waiting = [0] * n_raw
        unit_ops: list[list[int]] = []
        fact_units: dict[int, list[int]] = {}
        for i, (_a, pre, multi, _np, _eff, _ne) in enumerate(raws):
            waiting[i] = len(pre) + len(multi)
            for k, x in pre.items():
                fact_units.setdefault(base[k] + x, []).append(len(unit_ops))
                unit_ops.append([i])
            for k, xs in multi.items():
                u = len(unit_ops)
                unit_ops.append([i])
                for x in xs:
                    fact_units.setdefault(base[k] + x, []).append(u)
        unit_done = [False] * len(unit_ops)
        queue = [base[k] for k in finite_keys]  # value index 0 is the initial value
        for f in queue:
            reached[f] = True
        fire = [i for i in range(n_raw) if not waiting[i]]
        while queue or fire:
            while fire:
                i = fire.pop()
                alive[i] = True
                for k, x in raws[i][4].items():
                    f = base[k] + x
                    if not reached[f]:
                        reached[f] = True
                        queue.append(f)
            if queue:
                f = queue.pop()
                for u in fact_units.get(f, ()):
                    if unit_done[u]:
                        continue
                    unit_done[u] = True
                    for i in unit_ops[u]:
                        waiting[i] -= 1
                        if not waiting[i]:
                            fire.append(i)
        # no numeric facts: this is exactly the reachability explain_unreachable computes
        relaxed_reachable = not numeric_keys and all(
            any(reached[base[k] + x] for x in xs) for k, xs in goal_allowed.items()
        )
        # ---- backward relevance, linear: a worklist of relevant facts and numeric keys
        producers: dict[int, list[int]] = {}
        num_producers: dict[str, list[int]] = {}
        for i, (_a, _pre, _multi, _np, eff, num_eff) in enumerate(raws):
            if not alive[i]:
                continue
            for k, x in eff.items():
                producers.setdefault(base[k] + x, []).append(i)
            for k, _, _ in num_eff:
                num_producers.setdefault(k, []).append(i)
        rel_fact = [False] * nf
        rel_num: set[str] = set()
        relevant = [False] * n_raw
        fact_work: list[int] = []
        num_work: list[str] = []

        def need(k: str, x: int) -> None:
            f = base[k] + x
            if not rel_fact[f]:
                rel_fact[f] = True
                fact_work.append(f)

        def need_num(k: str) -> None:
            if k not in rel_num:
                rel_num.add(k)
                num_work.append(k)

        for k, _ in num_goal:
            need_num(k)
        for k, xs in goal_allowed.items():
            for x in xs:
                need(k, x)
        while fact_work or num_work:
            users = producers.get(fact_work.pop(), ()) if fact_work else num_producers.get(num_work.pop(), ())
            for i in users:
                if relevant[i]:
                    continue
                relevant[i] = True
                _a, pre, multi, num_pre, _eff, _ne = raws[i]
                for k, x in pre.items():
                    need(k, x)
                for k, xs in multi.items():
                    for x in xs:
                        need(k, x)
                for k, _ in num_pre:
                    need_num(k)
        # a cost function or an effect_fn may read any fact
        any_cost_fn = bool(open_keys) or any(a.has_cost_function for a in actions)
        if any_cost_fn:
            # a cost function may read any fact, so an operator can matter just by changing a
            # later cost: only forward pruning is safe
            relevant = alive
        keep = [r for i, r in enumerate(raws) if relevant[i]]
        if any_cost_fn:
            # a cost function may read any fact, so none is projected away
            kept_finite = finite_keys
            kept_num = num_keys
        else:
            kept_finite = [k for k in finite_keys if any(rel_fact[base[k] : base[k] + len(dom_values[k])])]
            kept_num = [k for k in num_keys if k in rel_num]
    else:
        keep = raws
        kept_finite = finite_keys
        kept_num = num_keys
        relaxed_reachable = False

    # ---- final encoding
    variables: list[_Var] = []
    vindex: dict[str, int] = {}
    shift = 0
    fbase = 0
    for k in kept_finite:
        values = tuple(dom_values[k])
        bits = (len(values) - 1).bit_length()
        vindex[k] = len(variables)
        variables.append(_Var(k, values, shift, (1 << bits) - 1, fbase))
        shift += bits
        fbase += len(values)
    nindex = {k: i for i, k in enumerate(kept_num)}
    # key -> (bits of the fact, shift, base fact id)
    vbits = {v.name: (v.mask << v.shift, v.shift, v.base) for v in variables}
    ops: list[CompiledOp] = []
    for a, pre, multi, num_pre, eff, num_eff in keep:
        pmask, pval, pre_fx = _pack(pre, vbits)
        emask, evalue, eff_fx = _pack(eff, vbits)
        pre_f = [f for _, _, f in pre_fx]
        eff_f = [f for k, x, f in eff_fx if pre.get(k) != x]
        residual: tuple[tuple[int, int, frozenset[int]], ...] = ()
        residual_facts: tuple[tuple[int, ...], ...] = ()
        if multi:
            rs = []
            rf = []
            for k, xs in sorted(multi.items()):
                v = variables[vindex[k]]
                rs.append((v.shift, v.mask, frozenset(xs)))
                rf.append(tuple(v.base + x for x in xs))
            residual, residual_facts = tuple(rs), tuple(rf)
        n_pre = tuple([(nindex[k], c) for k, c in num_pre if k in nindex]) if num_pre else ()
        n_eff = (
            tuple([(nindex[k], ia, float(amt)) for k, ia, amt in num_eff if k in nindex]) if num_eff else ()
        )
        acost = a.cost
        if isinstance(acost, int | float):
            cost_fn = None
            cost = float(acost)
        else:
            cost_fn = acost
            cost = float(a.min_cost)
        # positional: the fields in declaration order (keywords cost more per operator)
        fields = (len(ops), a, tuple(pre_f), tuple(eff_f), pmask, pval, ~emask, evalue, cost, cost_fn)
        ops.append(CompiledOp(*fields, residual, residual_facts, n_pre, n_eff))
    init_nums: tuple[Any, ...] = tuple(initial.get(k) for k in kept_num)  # an open fact may start absent
    goal_sets = [(vindex[k], frozenset(xs)) for k, xs in sorted(goal_allowed.items()) if k in vindex]
    impossible = any(not xs for xs in goal_allowed.values())
    num_goal_idx = [(nindex[k], c) for k, c in num_goal]
    dropped = {k: initial.get(k) for k in finite_keys if k not in vindex}
    dropped.update({k: initial[k] for k in num_keys if k not in nindex})
    return Task(
        variables,
        kept_num,
        ops,
        0,
        init_nums,
        goal_sets,
        num_goal_idx,
        len(raws) - len(ops),
        dropped,
        impossible,
        relaxed_reachable,
    )
