"""Symmetry reduction: interchangeable objects are folded into one search state.

Objects are found by name. Every fact key and string value is split into alphanumeric tokens
(``at_b3`` -> ``at``, ``b3``; ``(carry ball1 left)`` -> ``carry``, ``ball1``, ``left``). Swapping
two tokens everywhere is a *candidate* symmetry; it is accepted only after checking, on the
compiled task, that it maps every fact to a fact, the initial state to itself, the goal to itself
and the set of operators (preconditions, effects, cost) to itself. Tokens that can be swapped
pairwise with one representative form a class, and every permutation of a class is then a
symmetry of the task (transpositions generate the symmetric group). Naming is only a way to
guess; soundness comes from the check.

Search runs on representatives: each generated state is mapped by a permutation to a canonical
form (objects sorted by what is true of them), and the permutation is stored with the parent link.
Symmetric states have the same optimal cost to the goal, so A* on representatives keeps the
optimal cost. The plan found on representatives is turned back into a plan for the real states
by composing the inverse permutations along the path and renaming each operator.

Used only for tasks without numeric facts, run-time set conditions or state-dependent costs (a
cost function may tell objects apart); otherwise no symmetry is used. Folding costs time on
every state, so it is used only when some class has at least three objects (`_MIN_LARGE`);
pairs are looked for only once such a class exists (gripper's two grippers), and the search
asks for detection only after `SYMMETRY_AFTER` expansions (short searches never pay for it).
Before any swap is checked, tokens are told apart by what the initial state and the goal say of
them (`_colours`): when that already rules out a class of three, detection ends without checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from goap.planning._task import CompiledOp, State, Task
from goap.planning.heuristics.lmcut import _core as _native

__all__ = ["Symmetry", "find_symmetry"]

_TOKEN = re.compile(r"[A-Za-z0-9]+")
_MAX_OPS = 20_000
"""Larger tasks skip symmetry detection (its cost grows with operators x candidate tokens)."""

_MIN_OPS = 16
"""Smaller tasks skip symmetry detection: their whole search costs less than the detection."""

_MAX_CHECKS = 2_000
"""Most candidate swaps verified per task."""

_MAX_MISSES = 8
"""Tokens in a row that join no class before the rest of their group is given up (only fewer
symmetries are found: soundness never depends on it)."""

_MIN_LARGE = 3
"""Symmetry is used only when some class has at least this many objects. Classes of two objects at
most halve the search, which never paid for detection and per-state canonicalization on the shared
problems (logistics, miconic: as many expansions or a few fewer, twice the time); token groups of two
are then checked only once a large class was found (gripper's left/right hands)."""

Perm = tuple[tuple[int, ...], ...]
"""One permutation per class: ``perm[c][i]`` is the new position of object ``i`` of class ``c``."""


_SPLIT = re.compile(r"([A-Za-z0-9]+)")
"""Splits a string into separators (even positions) and tokens (odd positions)."""


def _template(s: str, token: str) -> str:
    """``s`` with ``token`` replaced by a placeholder (what the objects' facts have in common)."""
    return _TOKEN.sub(lambda m: "\0" if m.group() == token else m.group(), s)


class _Checker:
    """Verifies candidate token permutations against the compiled task."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.init = frozenset(task.facts(task.initial))
        self.goal = frozenset(frozenset(d) for d in task.goal_facts)
        self.goal_facts = frozenset(f for d in task.goal_facts for f in d)
        self.goal_of: dict[int, list[frozenset[int]]] = {}
        """Goal fact -> the goal disjunctions that hold it."""
        for d in self.goal:
            for f in d:
                self.goal_of.setdefault(f, []).append(d)
        self.facts_of: dict[str, set[int]] = {}
        """Token -> facts whose key or value mention it."""
        f = 0
        facts_of = self.facts_of
        for var in task.variables:
            key_toks = set(_TOKEN.findall(var.name))
            for x in var.domain:
                toks = key_toks | set(_TOKEN.findall(x)) if isinstance(x, str) else key_toks
                for t in toks:
                    fs = facts_of.get(t)
                    if fs is None:
                        facts_of[t] = {f}
                    else:
                        fs.add(f)
                f += 1
        self._parts: dict[int, tuple[list[str], list[str] | None, Any]] = {}
        """Fact -> (key split into separators and tokens, the same for a string value, the value)."""
        fact_ops: list[list[int]] = [[] for _ in range(task.nfacts)]
        for o, op in enumerate(task.ops):
            for g in op.pre:
                fact_ops[g].append(o)
            for g in op.eff:
                if g not in op.pre:
                    fact_ops[g].append(o)
        self.fact_ops = fact_ops
        """Fact -> operators that mention it (precondition or effect)."""

    # built on the first swap check (most tasks have no token group worth checking)
    @cached_property
    def names(self) -> list[tuple[str, Any]]:
        """Fact -> (key, value)."""
        return [(v.name, x) for v in self.task.variables for x in v.domain]

    @cached_property
    def index(self) -> dict[tuple[str, Any], int]:
        """(key, value) -> fact (a bool value as ``("bool", v)``, apart from 0 and 1)."""
        return {(k, v if not isinstance(v, bool) else ("bool", v)): f for f, (k, v) in enumerate(self.names)}

    @cached_property
    def sigs(self) -> list[tuple[frozenset[int], frozenset[int], float]]:
        """Operator -> (preconditions, effects, cost)."""
        return [(frozenset(op.pre), frozenset(op.eff), op.cost) for op in self.task.ops]

    @cached_property
    def sig_set(self) -> set[tuple[frozenset[int], frozenset[int], float]]:
        """Every operator's signature."""
        return set(self.sigs)

    def ops_of(self, token: str) -> set[int]:
        """Operators with a fact that mentions ``token``."""
        fact_ops = self.fact_ops
        out: set[int] = set()
        for f in self.facts_of.get(token, ()):
            out.update(fact_ops[f])
        return out

    def op_weight(self, token: str) -> int:
        """Sum over the facts that mention ``token`` of the operators that mention each (a cheap
        invariant of the token under every symmetry of the task)."""
        fact_ops = self.fact_ops
        return sum([len(fact_ops[f]) for f in self.facts_of.get(token, ())])

    def fact(self, f: int, mapping: dict[str, str]) -> int:
        parts = self._parts.get(f)
        if parts is None:
            k, v = self.names[f]
            parts = self._parts[f] = (
                _SPLIT.split(k),
                _SPLIT.split(v) if isinstance(v, str) else None,
                ("bool", v) if isinstance(v, bool) else v,
            )
        kp, vp, plain = parts
        get = mapping.get
        key = "".join([get(x, x) for x in kp])
        val = plain if vp is None else "".join([get(x, x) for x in vp])
        return self.index.get((key, val), -1)

    def swap_holds(self, a: str, b: str) -> bool:
        """Whether swapping tokens ``a`` and ``b`` everywhere is a symmetry of the task.

        Only facts and operators that mention ``a`` or ``b`` can change, so only they are checked.
        """
        mapping = {a: b, b: a}
        touched = self.facts_of.get(a, set()) | self.facts_of.get(b, set())
        fact = self.fact
        moved: dict[int, int] = {}
        # fail fast on what usually tells objects apart: a moved goal or initial fact must land
        # on a goal or initial fact (necessary for the full check below)
        goal_facts = self.goal_facts
        for f in touched & goal_facts:
            g = moved[f] = fact(f, mapping)
            if g not in goal_facts:
                return False
        # the swap is an involution, so it maps the moved facts onto themselves one to one: the
        # initial state is invariant iff every moved initial fact lands on an initial fact
        init = self.init
        for f in touched & init:
            g = moved.get(f, -1)
            if g < 0:
                g = moved[f] = fact(f, mapping)
            if g not in init:
                return False
        for f in touched:
            if f not in moved:
                g = moved[f] = fact(f, mapping)
                if g < 0:
                    return False
        get = moved.get
        # the swap maps goal disjunctions one to one (an involution), so the goal is invariant iff
        # every disjunction with a moved fact lands on a goal disjunction
        goal = self.goal
        goal_of = self.goal_of
        for f in touched & goal_facts:
            for d in goal_of[f]:
                if frozenset([get(x, x) for x in d]) not in goal:
                    return False
        # every operator that mentions a moved fact must land on an operator (in no set order:
        # the answer is the same, only how soon a failure is seen differs)
        sigs = self.sigs
        sig_set = self.sig_set
        fact_ops = self.fact_ops
        seen: set[int] = set()
        for f in touched:
            for o in fact_ops[f]:
                if o in seen:
                    continue
                seen.add(o)
                pre, eff, cost = sigs[o]
                if (
                    frozenset([get(x, x) for x in pre]),
                    frozenset([get(x, x) for x in eff]),
                    cost,
                ) not in sig_set:
                    return False
        return True


def _colours(
    checker: _Checker, stats: dict[str, tuple[int, ...]], groups: dict[tuple[int, ...], list[str]]
) -> tuple[dict[str, Any], bool]:
    """Colours that tell apart tokens of one group which can never be swapped, and whether a
    class of `_MIN_LARGE` tokens is still possible.

    A token's colour is its group key and what the initial state and the goal say of it: its
    initial facts and its goal facts, each written with every token of a group of two or more
    replaced by its group (initial facts with value False are left out, cheaply: most are the
    negations of boolean facts). A swap that passes `_Checker.swap_holds` maps the initial and goal
    facts that mention one token one to one onto those that mention the other, keeps values that
    are not strings, and maps every token to one of its group, so two tokens with different colours
    can never be swapped, and a class holds tokens of one colour only.

    Tokens are coloured group by group, in the order they are checked, only until some colour is
    held by `_MIN_LARGE` tokens (then a large class is possible and more colours only cost time);
    tokens without a colour are not told apart.
    """
    goal_facts = checker.goal_facts
    names = checker.names
    split = _SPLIT.split
    gid = {st: f"#{i}" for i, st in enumerate(groups) if len(groups[st]) > 1}
    get = {t: gid[st] for t, st in stats.items() if st in gid}.get
    desc: dict[int, int] = {}
    ids: dict[tuple[Any, ...], int] = {}
    key_desc: dict[str, tuple[str, ...]] = {}

    def describe(f: int) -> int:
        """An id of fact ``f`` as written for colours (ids, not values, are sorted: values of
        facts need not be ordered)."""
        d = desc.get(f)
        if d is None:
            k, v = names[f]
            kd = key_desc.get(k)
            if kd is None:
                kd = key_desc[k] = tuple([get(x, x) for x in split(k)])
            written = (
                kd,
                tuple([get(x, x) for x in split(v)]) if isinstance(v, str) else (type(v), v),
            )
            d = desc[f] = ids.setdefault(written, len(ids))
        return d

    colour: dict[str, Any] = {}
    sizes: dict[Any, int] = {}
    init = checker.init
    facts_of = checker.facts_of
    large = False
    for st, toks in sorted(groups.items()):
        if len(toks) < _MIN_LARGE:
            continue
        for t in sorted(toks, key=lambda t: (len(t), t)):
            fs = facts_of.get(t, set())
            c = colour[t] = (
                st,
                tuple(sorted([describe(f) for f in fs & init if names[f][1] is not False])),
                tuple(sorted([describe(f) for f in fs & goal_facts])),
            )
            n = sizes[c] = sizes.get(c, 0) + 1
            if n >= _MIN_LARGE:
                large = True  # a large class is possible: describing more only costs time
                break
        if large:
            break
    return colour, large


class _Class:
    """Canonicalization data of one class of interchangeable objects."""

    def __init__(self, task: Task, tokens: Sequence[str]) -> None:
        self.tokens = tuple(tokens)
        pos = {t: i for i, t in enumerate(tokens)}
        nv = len(task.variables)
        self.own = [-1] * nv
        self.ktid = [-1] * nv
        templates: dict[str, int] = {}
        vtemplates: dict[str, int] = {}
        self.tv: dict[tuple[int, int], int] = {}
        # ref[v][x] = (object, value-template id) when value x of var v names an object of the class
        self.ref: list[list[tuple[int, int] | None]] = []
        self.vmap: dict[tuple[int, int, int], int] = {}
        for vi, var in enumerate(task.variables):
            toks = [t for t in _TOKEN.findall(var.name) if t in pos]
            if len(toks) > 1:
                raise ValueError("a key names two objects of one class")
            if toks:
                obj = pos[toks[0]]
                tmpl = _template(var.name, toks[0])
                tid = templates.setdefault(tmpl, len(templates))
                self.own[vi] = obj
                self.ktid[vi] = tid
                self.tv[(tid, obj)] = vi
            refs: list[tuple[int, int] | None] = []
            for x, val in enumerate(var.domain):
                vt = [t for t in _TOKEN.findall(val)] if isinstance(val, str) else []
                vt = [t for t in vt if t in pos]
                if len(vt) > 1:
                    raise ValueError("a value names two objects of one class")
                if vt:
                    vtmpl = _template(val, vt[0])
                    vtid = vtemplates.setdefault(vtmpl, len(vtemplates))
                    refs.append((pos[vt[0]], vtid))
                    self.vmap[(vi, vtid, pos[vt[0]])] = x
                else:
                    refs.append(None)
            self.ref.append(refs)
        n = len(tokens)
        self.owned: list[list[int]] = [[] for _ in range(n)]
        for vi in range(nv):
            if self.own[vi] >= 0:
                self.owned[self.own[vi]].append(vi)
        shapes = {tuple(self.ktid[v] for v in sorted(lst, key=lambda v: self.ktid[v])) for lst in self.owned}
        if len(shapes) != 1:
            raise ValueError("objects of the class own different facts")
        for lst in self.owned:
            lst.sort(key=lambda v: self.ktid[v])
        # referring vars are identified by template when owned by a class object (object-free code)
        self.wcode = [(-1 - self.ktid[v]) if self.own[v] >= 0 else v for v in range(nv)]
        self.n = n
        self.identity = tuple(range(n))
        self.refvars = tuple(w for w in range(nv) if any(r is not None for r in self.ref[w]))
        """Variables with some value that names an object of the class."""
        self.sig_parts = tuple(
            tuple((v, tuple(x if r is None else -1 - r[1] for x, r in enumerate(self.ref[v]))) for v in lst)
            for lst in self.owned
        )
        """Per object: (owned var, value -> signature entry) in template order."""
        self.single = (
            tuple(parts[0] for parts in self.sig_parts) if all(len(p) == 1 for p in self.sig_parts) else None
        )
        """``sig_parts`` flattened when every object owns exactly one variable (the common case)."""
        self.touch = tuple(
            v for v in range(nv) if self.own[v] >= 0 or any(r is not None for r in self.ref[v])
        )
        """Variables a permutation of the class can change (owned by or naming one of its objects)."""

    def tables(self) -> dict[str, Any]:
        """This class's tables as ``goap.planning._lmcut.Canon`` reads them (see ``goap/_canon.c``)."""
        return {
            "n": self.n,
            "own": self.own,
            "ktid": self.ktid,
            "wcode": self.wcode,
            "ref": self.ref,
            "owned": self.owned,
            "tv": [(tid, obj, v) for (tid, obj), v in self.tv.items()],
            "vmap": [(v, vtid, obj, x) for (v, vtid, obj), x in self.vmap.items()],
            "refvars": self.refvars,
            "touch": self.touch,
        }

    def canon(self, vals: list[int]) -> tuple[list[int], tuple[int, ...]]:
        n = self.n
        ref = self.ref
        single = self.single
        if single is not None:
            sigs: list[list[Any]] = [[code[vals[v]]] for v, code in single]
        else:
            sigs = [[code[vals[v]] for v, code in parts] for parts in self.sig_parts]
        wcode = self.wcode
        for w in self.refvars:
            r = ref[w][vals[w]]
            if r is not None:
                sigs[r[0]].append((wcode[w], r[1]))
        for i in range(1, n):
            if sigs[i] < sigs[i - 1]:
                break
        else:
            return vals, self.identity  # already in canonical order (a stable sort keeps it)
        order = sorted(range(n), key=sigs.__getitem__)
        newidx = [0] * n
        for k, i in enumerate(order):
            newidx[i] = k
        perm = tuple(newidx)
        out = list(vals)
        own = self.own
        ktid = self.ktid
        tv = self.tv
        vmap = self.vmap
        for v in self.touch:
            x = vals[v]
            o = own[v]
            tgt = v if o < 0 else tv[(ktid[v], newidx[o])]
            r = ref[v][x]
            out[tgt] = x if r is None else vmap[(tgt, r[1], newidx[r[0]])]
        return out, perm


class Symmetry:
    """Verified classes of interchangeable objects of one compiled task (see the module docstring)."""

    def __init__(self, task: Task, checker: _Checker, classes: Sequence[_Class]) -> None:
        self._task = task
        self._checker = checker
        self._classes = tuple(classes)
        self.classes: tuple[tuple[str, ...], ...] = tuple(c.tokens for c in classes)
        """The object names of each class."""
        self._varinfo = tuple((v.shift, v.mask) for v in task.variables)
        self._by_sig: dict[tuple[frozenset[int], frozenset[int], float], CompiledOp] = {}
        for op, sig in zip(task.ops, checker.sigs, strict=True):
            self._by_sig.setdefault(sig, op)
        touched = sorted({v for c in classes for v in c.touch})
        self._repack = tuple(
            (v, task.variables[v].shift, ~(task.variables[v].mask << task.variables[v].shift))
            for v in touched
        )
        """(variable, shift, mask clearing its bits) of every variable a class can change."""
        self._memo: dict[int, tuple[int, Perm | None]] = {}
        """Canonical forms already computed (one search generates most states many times)."""
        self.canon: Callable[[State], tuple[State, Any]] = self._canon
        """``canon(state) -> (representative, permutation)``: the C port of :meth:`_canon`
        (``goap.planning._lmcut.Canon``, which the C search calls without Python ints) when it is built."""
        if _native is not None:
            self.canon = _native.Canon(
                varinfo=[(v.shift, v.mask.bit_length()) for v in task.variables],
                classes=[c.tables() for c in self._classes],
            )

    def _canon(self, state: int) -> tuple[int, Perm | None]:
        hit = self._memo.get(state)
        if hit is not None:
            return hit
        res = self._memo[state] = self._canon_new(state)
        return res

    def _canon_new(self, state: int) -> tuple[int, Perm | None]:
        vals = [(state >> sh) & m for sh, m in self._varinfo]
        perms = []
        changed = False
        for c in self._classes:
            vals2, perm = c.canon(vals)
            if vals2 is not vals:
                changed = True
                vals = vals2
            perms.append(perm)
        if not changed:
            return state, None
        p = state
        for v, sh, clear in self._repack:
            p = (p & clear) | (vals[v] << sh)
        if p == state:
            # sorting one class can unsort another and the permutations can compose to one that
            # fixes the state: nothing to fold, and None keeps the parent link a plain one
            return state, None
        return p, tuple(perms)

    def realize(self, path: Sequence[tuple[CompiledOp, Any]]) -> list[CompiledOp]:
        """The operators of the real plan for a path found on representatives.

        ``sigma`` maps an object of the representative space to the real object; after a step whose
        child was mapped by ``pi``, ``sigma`` becomes ``sigma o pi^-1``.
        """
        sigma = [list(c.identity) for c in self._classes]
        out: list[CompiledOp] = []
        for op, perm in path:
            mapping: dict[str, str] = {}
            for c, s in zip(self._classes, sigma, strict=True):
                for k, real in enumerate(s):
                    if k != real:
                        mapping[c.tokens[k]] = c.tokens[real]
            if mapping:
                ck = self._checker
                pre, eff, cost = ck.sigs[op.index]
                sig = (
                    frozenset(ck.fact(f, mapping) for f in pre),
                    frozenset(ck.fact(f, mapping) for f in eff),
                    cost,
                )
                out.append(self._by_sig[sig])
            else:
                out.append(op)
            if perm is not None:
                new_sigma = []
                for s, pc in zip(sigma, perm, strict=True):
                    inv = [0] * len(pc)
                    for i, k in enumerate(pc):
                        inv[k] = i
                    new_sigma.append([s[inv[k]] for k in range(len(pc))])
                sigma = new_sigma
        return out


def find_symmetry(task: Task) -> Symmetry | None:
    """Verified classes of interchangeable objects of ``task``, or None when there are none."""
    if task.numeric or task.has_cost_functions or not _MIN_OPS <= len(task.ops) <= _MAX_OPS:
        return None
    if any(op.residual for op in task.ops) or not task.variables:
        return None
    checker = _Checker(task)
    # candidate tokens: those in fact keys, grouped by a cheap invariant of how they are used
    key_tokens = {t for v in task.variables for t in _TOKEN.findall(v.name)}
    goal_facts = checker.goal_facts
    stats: dict[str, tuple[int, ...]] = {}
    for t in key_tokens:
        fs = checker.facts_of.get(t, set())
        stats[t] = (
            len(fs),
            checker.op_weight(t),
            len(fs & checker.init),
            len(fs & goal_facts),
        )
    groups: dict[tuple[int, ...], list[str]] = {}
    for t, st in stats.items():
        groups.setdefault(st, []).append(t)
    if all(len(toks) < _MIN_LARGE for toks in groups.values()):
        return None
    colour, large = _colours(checker, stats, groups)
    if not large:
        return None  # a class holds tokens of one colour: none can have _MIN_LARGE objects

    def may_swap(a: str, b: str) -> bool:
        """False when tokens ``a`` and ``b`` both have colours and they differ: their swap would
        fail its check, so it is not made (it still counts against the budget, and the classes
        found are those the checks alone would find)."""
        ca = colour.get(a)
        cb = colour.get(b)
        return ca is None or cb is None or ca == cb

    budget = _MAX_CHECKS
    found: list[tuple[tuple[int, ...], int, _Class]] = []
    ordered = sorted(groups.items())
    # groups that can hold a large class first; the rest only when one was found
    for key, toks_ in [g for g in ordered if len(g[1]) >= _MIN_LARGE] + [
        g for g in ordered if len(g[1]) == 2
    ]:
        if len(toks_) < _MIN_LARGE and not any(c.n >= _MIN_LARGE for _, _, c in found):
            break
        toks_.sort(key=lambda t: (len(t), t))
        built: list[list[str]] = []
        misses = 0
        for t in toks_:
            if misses >= _MAX_MISSES:
                break  # a group of unrelated tokens (a chain's steps): stop paying for checks
            # only the last few classes are tried, so a group of unrelated tokens costs linear,
            # not quadratic, work
            for cls in built[-3:]:
                if budget <= 0:
                    break
                budget -= 1
                if may_swap(cls[0], t) and checker.swap_holds(cls[0], t):
                    cls.append(t)
                    misses = 0
                    break
            else:
                built.append([t])
                misses += 1
        for i, cls in enumerate(built):
            if len(cls) < 2:
                continue
            try:
                found.append((key, i, _Class(task, cls)))
            except ValueError:
                continue
    if not any(c.n >= _MIN_LARGE for _, _, c in found):
        return None
    found.sort(key=lambda kc: (kc[0], kc[1]))  # the order of the groups, as checked before
    return Symmetry(task, checker, [c for _, _, c in found])
