"""What compilation produces and search reads: :class:`Task` (variables, operators, goal and its
relaxed reachability) and :class:`CompiledOp` (one grounded operator, see :mod:`goap.planning._compile`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple, TypeAlias

from goap.planning._actions import ActionSpec, CostFunction
from goap.planning._conditions import holds
from goap.planning._errors import ModelError

__all__ = ["CompiledOp", "State", "Task"]

State: TypeAlias = Any
"""A search state: an ``int`` (finite facts only) or ``(int, tuple_of_numbers)``."""


class CompiledOp:
    """One grounded operator (an action, or one split of it) over the packed encoding.

    Immutable, compared by identity. A plain slotted class rather than a dataclass: the planning
    path builds no dataclass it can do without (each costs a share of ``python -m goap plan``'s
    start-up), and the C grounding fills these slots directly."""

    __slots__ = (  # noqa: RUF023 (the constructor's argument order)
        "index",
        "action",
        "pre",
        "eff",
        "pre_mask",
        "pre_val",
        "keep",
        "eff_val",
        "cost",
        "cost_fn",
        "residual",
        "residual_facts",
        "num_pre",
        "num_eff",
    )

    index: int
    """Position in ``Task.ops`` (also the deterministic tie-break order)."""
    action: ActionSpec
    """The user's action this operator came from."""
    pre: tuple[int, ...]
    """Fact ids of the equality preconditions (finite facts)."""
    eff: tuple[int, ...]
    """Fact ids of the assigned values (finite facts)."""
    pre_mask: int
    """Bits of the precondition facts."""
    pre_val: int
    """Required value of those bits."""
    keep: int
    """Mask that clears the effect facts' bits (``~eff_mask``)."""
    eff_val: int
    """Value bits of the effects."""
    cost: float
    """Static cost, or the ``min_cost`` lower bound when ``cost_fn`` is set."""
    cost_fn: CostFunction | None
    """State-dependent cost, evaluated on the decoded state."""
    residual: tuple[tuple[int, int, frozenset[int]], ...]
    """Set conditions kept for run time: (shift, mask, allowed value indices)."""
    residual_facts: tuple[tuple[int, ...], ...]
    """The same sets as fact ids (relevance and explanations use them)."""
    num_pre: tuple[tuple[int, object], ...]
    """Numeric conditions: (numeric slot, condition)."""
    num_eff: tuple[tuple[int, bool, float], ...]
    """Numeric effects: (numeric slot, is_add, amount or value)."""

    def __init__(
        self,
        index: int,
        action: ActionSpec,
        pre: tuple[int, ...],
        eff: tuple[int, ...],
        pre_mask: int,
        pre_val: int,
        keep: int,
        eff_val: int,
        cost: float,
        cost_fn: CostFunction | None,
        residual: tuple[tuple[int, int, frozenset[int]], ...],
        residual_facts: tuple[tuple[int, ...], ...],
        num_pre: tuple[tuple[int, object], ...],
        num_eff: tuple[tuple[int, bool, float], ...],
    ) -> None:
        values = (
            index,
            action,
            pre,
            eff,
            pre_mask,
            pre_val,
            keep,
            eff_val,
            cost,
            cost_fn,
            residual,
            residual_facts,
            num_pre,
            num_eff,
        )
        for name, value in zip(CompiledOp.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"CompiledOp is immutable: cannot assign {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"CompiledOp is immutable: cannot delete {name!r}")

    def __repr__(self) -> str:
        return f"CompiledOp(index={self.index!r}, action={self.action.name!r}, cost={self.cost!r})"

    @property
    def simple(self) -> bool:
        """Whether the operator is pure mask arithmetic (no run-time checks)."""
        return not (
            self.residual or self.num_pre or self.num_eff or self.cost_fn is not None or self.action.effect_fn
        )


class _Var(NamedTuple):
    # a NamedTuple: built from the grounding's tuples without a Python-level __init__ per variable
    name: str
    domain: tuple[Any, ...]
    shift: int
    mask: int
    base: int


class Task:
    """A compiled planning task: packed states, operators, goal test and successor generator.

    Built by :func:`compile_task`; read-only afterwards, so one Task can serve concurrent searches.
    """

    def __init__(
        self,
        variables: Sequence[_Var],
        num_names: Sequence[str],
        ops: Sequence[CompiledOp],
        init_packed: int,
        init_nums: tuple[float, ...],
        goal_sets: Sequence[tuple[int, frozenset[int]]],
        num_goal: Sequence[tuple[int, object]],
        pruned: int,
        dropped_keys: Mapping[str, Any],
        impossible: bool = False,
        relaxed_reachable: bool = False,
        buckets: Sequence[int] | None = None,
        plain: bool = False,
    ) -> None:
        self.variables: tuple[_Var, ...] = tuple(variables)
        """The kept finite facts, sorted by key."""
        self.num_names: tuple[str, ...] = tuple(num_names)
        """The kept numeric facts, sorted by key."""
        self.ops: tuple[CompiledOp, ...] = tuple(ops)
        """Operators that survived pruning, in action order."""
        self.pruned_ops = pruned
        """How many operators pruning removed."""
        self.dropped_keys: Mapping[str, Any] = MappingProxyType(dict(dropped_keys))
        """Initial values of the facts projected away (never tested by a relevant operator)."""
        self.nfacts = sum(len(v.domain) for v in self.variables)
        """Number of (finite fact, value) pairs; fact ids are ``var.base + value_index``."""
        self.impossible = impossible
        """Whether some goal fact has no value that satisfies it (the goal can never hold)."""
        self.relaxed_reachable = relaxed_reachable
        """Whether compilation proved every goal condition reachable in the delete relaxation, for a
        task without numeric facts: then :func:`goap.planning._explain.explain_unreachable` finds nothing."""
        self._num_slot = {n: i for i, n in enumerate(self.num_names)}
        self.numeric = bool(self.num_names)
        """Whether states carry numeric facts (then a state is ``(packed, nums)``)."""
        self.has_cost_functions = not plain and any(op.cost_fn is not None for op in self.ops)
        """Whether some operator has a state-dependent cost."""
        self.initial: State = (init_packed, init_nums) if self.numeric else init_packed
        """The initial search state."""
        # goal: single-value sets become one mask test, the rest stay set checks
        gmask = gval = 0
        gsets: list[tuple[int, int, frozenset[int]]] = []
        self.goal_facts: tuple[tuple[int, ...], ...] = ()
        facts: list[tuple[int, ...]] = []
        for vi, allowed in goal_sets:
            var = self.variables[vi]
            facts.append(tuple(var.base + x for x in sorted(allowed)))
            if len(allowed) == 1:
                (x,) = allowed
                gmask |= var.mask << var.shift
                gval |= x << var.shift
            else:
                gsets.append((var.shift, var.mask, allowed))
        self.goal_facts = tuple(facts)
        """For each finite goal fact, the fact ids that satisfy it (a disjunction)."""
        self._gmask = gmask
        self._gval = gval
        self._gsets = tuple(gsets)
        self._num_goal = tuple(num_goal)
        self.numeric_goal: tuple[tuple[int, object], ...] = self._num_goal
        """Goal conditions on numeric facts: (numeric slot, condition)."""
        self.fact_var: tuple[int, ...] = tuple(vi for vi, v in enumerate(self.variables) for _ in v.domain)
        """Variable index of each fact id."""
        self._varinfo = tuple((v.base, v.shift, v.mask) for v in self.variables)
        if buckets is None:
            buckets = self._choose_buckets()
        self.bucket_facts: Sequence[int] = buckets
        """The successor-index fact of each operator (-1: none), in operator order."""
        fast = plain or not (self.numeric or not all(op.simple for op in self.ops))
        self.expand: Callable[[State], list[tuple[CompiledOp, State, float]]] = (
            self._expand_fast if fast else self._expand_general
        )
        """``expand(state)`` -> ``[(op, child, cost), ...]`` in operator order within buckets."""
        self.mask_only = fast and not gsets and not impossible and self.variables != ()
        """Whether every operator is pure mask arithmetic on the packed int and the goal one mask
        test (no set condition, numbers or cost functions): then the search may run in C."""

    # ------------------------------------------------------------------ encoding helpers
    def packed(self, state: State) -> int:
        """The packed finite part of a state."""
        return state[0] if self.numeric else state  # type: ignore[no-any-return]

    def facts(self, state: State) -> list[int]:
        """Fact ids true in ``state`` (one per finite variable)."""
        p = state[0] if self.numeric else state
        return [base + ((p >> shift) & mask) for base, shift, mask in self._varinfo]

    def fact_name(self, fact: int) -> tuple[str, Any]:
        """``(key, value)`` of a fact id."""
        var = self.variables[self.fact_var[fact]]
        return var.name, var.domain[fact - var.base]

    def decode(self, state: State) -> dict[str, Any]:
        """The world-state dict of a search state (projected-away facts keep their initial value)."""
        p = state[0] if self.numeric else state
        out: dict[str, Any] = dict(self.dropped_keys)
        for var in self.variables:
            out[var.name] = var.domain[(p >> var.shift) & var.mask]
        if self.numeric:
            out.update(zip(self.num_names, state[1], strict=True))
        return {k: v for k, v in out.items() if v is not None}

    def encode(self, values: Mapping[str, Any]) -> State:
        """The search state of a world-state dict (raises KeyError for a value outside a domain)."""
        p = 0
        for var in self.variables:
            p |= var.domain.index(values.get(var.name)) << var.shift
        if self.numeric:
            return (p, tuple(values[n] for n in self.num_names))
        return p

    def is_goal(self, state: State) -> bool:
        """Whether ``state`` satisfies the goal."""
        if self.impossible:
            return False
        if self.numeric:
            p, nums = state
            if any(not holds(c, nums[i]) for i, c in self._num_goal):
                return False
        else:
            p = state
        if p & self._gmask != self._gval:
            return False
        return all(((p >> sh) & m) in allowed for sh, m, allowed in self._gsets)

    # ------------------------------------------------------------------ successors
    def _choose_buckets(self) -> list[int]:
        # Each operator goes in the bucket of its most selective precondition fact (the one the
        # fewest operators share, ties to the smaller id), so a state only looks at operators whose
        # bucket fact holds. The C grounding hands over the same choice.
        count: dict[int, int] = {}
        for op in self.ops:
            for f in op.pre:
                count[f] = count.get(f, 0) + 1
        return [min(op.pre, key=lambda x: (count[x], x)) if op.pre else -1 for op in self.ops]

    @cached_property
    def _index(
        self,
    ) -> tuple[tuple[tuple[int, int, tuple[tuple[CompiledOp, ...], ...]], ...], tuple[CompiledOp, ...]]:
        """The successor index: ((shift, mask, operators by value) per bucketed variable, operators
        without a bucket). Built on first use: the C search builds its own from ``bucket_facts``."""
        tables: dict[int, list[list[CompiledOp]]] = {}
        free: list[CompiledOp] = []
        fact_var = self.fact_var
        for op, f in zip(self.ops, self.bucket_facts, strict=True):
            if f < 0:
                free.append(op)
                continue
            vi = fact_var[f]
            var = self.variables[vi]
            table = tables.setdefault(vi, [[] for _ in var.domain])
            table[f - var.base].append(op)
        buckets = tuple(
            (self.variables[vi].shift, self.variables[vi].mask, tuple(tuple(b) for b in tables[vi]))
            for vi in sorted(tables)
        )
        return buckets, tuple(free)

    def _expand_fast(self, s: int) -> list[tuple[CompiledOp, State, float]]:
        out: list[tuple[CompiledOp, State, float]] = []
        append = out.append
        buckets, free = self._index
        for shift, mask, table in buckets:
            for op in table[(s >> shift) & mask]:
                if s & op.pre_mask == op.pre_val:
                    append((op, (s & op.keep) | op.eff_val, op.cost))
        for op in free:
            append((op, (s & op.keep) | op.eff_val, op.cost))
        return out

    def applicable_ops(self, state: State) -> Iterable[CompiledOp]:
        """Operators applicable in ``state`` (full checks, any encoding)."""
        p, nums = state if self.numeric else (state, ())
        buckets, free = self._index
        for op in itertools.chain((op for _, _, t in buckets for b in t for op in b), free):
            if p & op.pre_mask != op.pre_val:
                continue
            if any(((p >> sh) & m) not in allowed for sh, m, allowed in op.residual):
                continue
            if any(not holds(c, nums[i]) for i, c in op.num_pre):
                continue
            yield op

    def _expand_general(self, state: State) -> list[tuple[CompiledOp, State, float]]:
        out: list[tuple[CompiledOp, State, float]] = []
        p, nums = state if self.numeric else (state, ())
        decoded: dict[str, Any] | None = None
        buckets, free = self._index
        for shift, mask, table in buckets:
            for op in table[(p >> shift) & mask]:
                if p & op.pre_mask == op.pre_val:
                    decoded = self._general_one(op, state, p, nums, out, decoded)
        for op in free:
            decoded = self._general_one(op, state, p, nums, out, decoded)
        return out

    def _general_one(
        self,
        op: CompiledOp,
        state: State,
        p: int,
        nums: tuple[float, ...],
        out: list[tuple[CompiledOp, State, float]],
        decoded: dict[str, Any] | None,
    ) -> dict[str, Any] | None:
        for sh, m, allowed in op.residual:
            if ((p >> sh) & m) not in allowed:
                return decoded
        for i, c in op.num_pre:
            if not holds(c, nums[i]):
                return decoded
        child_p = (p & op.keep) | op.eff_val
        if self.numeric:
            if op.num_eff:
                new = list(nums)
                for i, is_add, amount in op.num_eff:
                    new[i] = new[i] + amount if is_add else amount
                child: State = (child_p, tuple(new))
            else:
                child = (child_p, nums)
        else:
            child = child_p
        cost = op.cost
        if op.cost_fn is not None:
            if decoded is None:
                decoded = self.decode(state)
            cost = op.action.cost_in(decoded)
        if op.action.effect_fn is not None:  # written keys are open facts: numeric slots
            if decoded is None:
                decoded = self.decode(state)
            slots = list(child[1])
            for k, v in op.action.dynamic_effects(decoded).items():
                slots[self._num_slot[k]] = v
            child = (child[0], tuple(slots))
        out.append((op, child, cost))
        return decoded

    def apply(self, op: CompiledOp, state: State) -> tuple[State, float]:
        """Child state and step cost of applying an applicable ``op`` in ``state``."""
        out: list[tuple[CompiledOp, State, float]] = []
        p, nums = state if self.numeric else (state, ())
        self._general_one(op, state, p, nums, out, None)
        if not out:
            raise ModelError(f"action {op.action.name!r} is not applicable")
        return out[0][1], out[0][2]
