"""Translate a problem in the shared JSON format into a propositional PDDL domain and problem.

Encoding (for classical planners such as Fast Downward and pyperplan):

* Every ``key=value`` pair becomes one 0-ary predicate. Only pairs that some precondition or the
  goal asks for are emitted: a pair nothing ever tests cannot change which actions apply, so
  leaving it out is the projection of the task onto the facts that matter and keeps optimal plans
  optimal. For the IPC tasks (one boolean per ground atom, only ``true`` tested) this gives back the
  original STRIPS task instead of doubling every atom with its ``false`` twin.
* A key holds exactly one value, so an action that sets ``k`` to ``v`` adds ``(k=v)`` and deletes
  the old value: the one its precondition requires when it constrains ``k``, else every other
  emitted value of ``k`` that could hold (the initial value or one some effect sets).
  Preconditions are positive, so STRIPS is enough.
* Fast Downward turns a delete that the precondition does not establish into a conditional effect
  when it finds the fact mutually exclusive with others, and ``astar(lmcut())`` rejects those. So
  an action that sets an unconstrained key with two or more deletable values is split into one
  copy per current value of that key (precondition ``k=u``); such keys emit all their values so the
  copies cover every state. The copies map back to the one JSON action.
* With ``action_costs=True`` (Fast Downward) costs go to ``(total-cost)``. PDDL costs are
  integers, so all costs are multiplied by the smallest power of ten (at most ``10**6``) that makes
  them whole; costs that no such factor makes whole are rounded at ``10**6`` and
  :attr:`PddlTask.exact_costs` is ``False``. Plans are always priced again with the JSON costs.
* With ``action_costs=False`` (pyperplan, which has no action costs) the domain is plain
  ``:strips`` and planners optimise plan length; the benchmark judges their plans by our costs.

Names are ``f<i>_<hint>`` and ``a<i>_<hint>`` (copies ``a<i>_v<j>_<hint>``): the index makes them unique and maps them back, the
hint (the sanitised JSON name) only helps a human reading the files.

The numeric extension cannot be expressed in STRIPS (its state space is unbounded): such problems
raise :class:`NumericProblemError` and are reported as "n/a: numeric".
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bench.validate import JsonProblem, is_numeric

MAX_COST_SCALE = 10**6
"""Largest factor used to turn fractional costs into integers (keeps Fast Downward's ints small)."""

_HINT_CHARS = re.compile(r"[^a-z0-9]+")
_ACTION_INDEX = re.compile(r"^\(?\s*a(\d+)_", re.IGNORECASE)

Fact = tuple[str, str, str]
"""(key, JSON type name, value spelled as in JSON)."""


class NumericProblemError(ValueError):
    """The problem uses the numeric extension, which STRIPS/PDDL without fluents cannot express."""


@dataclass(frozen=True, slots=True)
class PddlTask:
    """A problem translated to PDDL, with what is needed to read a plan back."""

    domain: str
    """Text of the domain file."""
    problem: str
    """Text of the problem file."""
    action_names: tuple[str, ...]
    """JSON action name of PDDL action ``a<i>_...`` at index ``i``."""
    cost_scale: int
    """PDDL cost = round(JSON cost x cost_scale); 1 when costs are not emitted."""
    exact_costs: bool
    """Whether every scaled cost was a whole number (so PDDL optima are JSON optima)."""

    def plan_names(self, lines: Iterable[str]) -> list[str]:
        """Map plan lines such as ``(a12_pickup_a)`` back to JSON action names.

        Blank lines and ``;`` comments (Fast Downward's cost line) are skipped.

        Raises:
            ValueError: a line names no action of this task.
        """
        names: list[str] = []
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith(";"):
                continue
            match = _ACTION_INDEX.match(line)
            if match is None or int(match.group(1)) >= len(self.action_names):
                raise ValueError(f"plan line {line!r} names no action of this task")
            names.append(self.action_names[int(match.group(1))])
        return names


def _hint(text: str) -> str:
    """A PDDL-safe, lower-case fragment of ``text`` (for readability only)."""
    return _HINT_CHARS.sub("_", text.lower()).strip("_")[:40] or "x"


def _value_text(value: Any) -> str:
    # JSON spelling, so True and "True" give different hints.
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# Canonical spelling only (single spaces), so two different keys never parse to the same atom.
_ATOM_KEY = re.compile(r"\(([^()\s]+)((?: [^()\s]+)*)\)")


class _Naming:
    """Gives each emitted fact a distinct ground PDDL atom.

    Fast Downward's invariant synthesis works per predicate: hundreds of 0-ary predicates (one per
    fact) cost it tens of seconds, so facts are grouped into few predicates over constants:

    * a boolean key spelled as a ground atom, ``"(on a b)"`` (the IPC tasks), becomes that atom
      again, ``(p2_on o_a o_b)``, and its ``false`` value ``(n2_on o_a o_b)``: the original lifted
      predicates, so the translator finds the domain's mutexes as it would on the IPC files;
    * any other key ``k`` becomes a unary predicate over value constants, ``(k3_on_a v1_table)``.

    Every name carries a counter, so predicates of one name but different arities stay apart and
    distinct facts never share an atom even when their hints collide.
    """

    def __init__(self) -> None:
        self.predicates: dict[str, int] = {}
        """PDDL predicate name -> arity, in order of first use."""
        self.objects: dict[tuple[str, str], str] = {}
        """(kind, JSON spelling) -> PDDL constant, in order of first use."""
        self._lifted: dict[tuple[str, int, bool], str] = {}
        self._per_key: dict[str, str] = {}

    def _object(self, kind: str, text: str) -> str:
        if (kind, text) not in self.objects:
            self.objects[kind, text] = f"{kind}{len(self.objects)}_{_hint(text)}"
        return self.objects[kind, text]

    def atom(self, f: Fact) -> str:
        """The ground atom (without parentheses) standing for fact ``f``."""
        key, type_name, text = f
        match = _ATOM_KEY.fullmatch(key)
        if type_name == "bool" and match is not None:
            args = match.group(2).split()
            signature = (match.group(1), len(args), text == "true")
            if signature not in self._lifted:
                prefix = "p" if signature[2] else "n"
                name = f"{prefix}{len(self._lifted)}_{_hint(signature[0])}"
                self._lifted[signature] = name
                self.predicates[name] = len(args)
            return " ".join([self._lifted[signature], *(self._object("o", a) for a in args)])
        if key not in self._per_key:
            name = f"k{len(self._per_key)}_{_hint(key)}"
            self._per_key[key] = name
            self.predicates[name] = 1
        return f"{self._per_key[key]} {self._object('v', type_name + ':' + text)}"


def cost_scale(costs: Sequence[float]) -> tuple[int, bool]:
    """The factor that makes every cost an integer, and whether it does so exactly.

    Returns the smallest power of ten up to :data:`MAX_COST_SCALE` under which every cost is
    within 1e-9 of an integer, else ``(MAX_COST_SCALE, False)``.
    """
    scale = 1
    while scale <= MAX_COST_SCALE:
        if all(math.isclose(c * scale, round(c * scale), rel_tol=0.0, abs_tol=1e-9) for c in costs):
            return scale, True
        scale *= 10
    return MAX_COST_SCALE, False


def to_pddl(problem: JsonProblem, *, action_costs: bool = True) -> PddlTask:
    """Translate ``problem`` to PDDL (see the module docstring for the encoding).

    Raises:
        NumericProblemError: the problem uses the numeric extension.
    """
    if is_numeric(problem):
        raise NumericProblemError(
            f"{problem.get('name', '?')}: numeric conditions/effects have no STRIPS form"
        )
    initial: dict[str, Any] = problem["initial"]
    goal: dict[str, Any] = problem["goal"]
    actions: list[dict[str, Any]] = problem["actions"]

    # Facts are compared with type-tagged values: JSON keeps one type per key, but True == 1 in
    # Python.
    def fact(key: str, value: Any) -> Fact:
        return (key, type(value).__name__, _value_text(value))

    # Values each key can take at run time: the initial value and every value an effect sets.
    can_hold: dict[str, list[Fact]] = {}
    for key, value in initial.items():
        can_hold.setdefault(key, []).append(fact(key, value))
    for action in actions:
        for key, value in action["effects"].items():
            if fact(key, value) not in can_hold.setdefault(key, []):
                can_hold[key].append(fact(key, value))

    # Facts worth a predicate: tested by some precondition or by the goal.
    emitted: list[Fact] = []
    for conditions in [*(a["preconditions"] for a in actions), goal]:
        for key, value in conditions.items():
            if fact(key, value) not in emitted:
                emitted.append(fact(key, value))

    def deletable(key: str, new: Fact, where: Collection[Fact]) -> list[Fact]:
        return [f for f in can_hold.get(key, []) if f != new and f in where]

    # Fast Downward groups mutually exclusive facts into one variable; deleting a fact that the
    # precondition does not establish is then a conditional effect, which astar(lmcut()) rejects.
    # An action that sets an unconstrained key holding several deletable values is therefore
    # split into one copy per current value (precondition ``k=u``), and such keys emit all their
    # values so the copies cover every state.
    emitted_set = set(emitted)
    split_keys: set[str] = set()
    for action in actions:
        for key, value in action["effects"].items():
            if key not in action["preconditions"] and len(deletable(key, fact(key, value), emitted_set)) >= 2:
                split_keys.add(key)
    for key in sorted(split_keys):
        emitted.extend(f for f in can_hold[key] if f not in emitted_set)
        emitted_set.update(can_hold[key])
    naming = _Naming()
    predicate = {f: naming.atom(f) for f in emitted}

    if action_costs:
        scale, exact = cost_scale([float(a.get("cost", 1)) for a in actions])
    else:
        scale, exact = 1, True

    out: list[str] = []
    requirements = ":strips :action-costs" if action_costs else ":strips"
    out.append(f"(define (domain d-{_hint(problem.get('name', 'task'))})")
    out.append(f"  (:requirements {requirements})")
    if naming.objects:
        out.append(f"  (:constants {' '.join(naming.objects.values())})")
    out.append("  (:predicates")
    out.extend(
        f"    ({name}{''.join(f' ?x{i}' for i in range(arity))})" for name, arity in naming.predicates.items()
    )
    out.append("  )")
    if action_costs:
        out.append("  (:functions (total-cost) - number)")
    for i, action in enumerate(actions):
        effects: dict[str, Any] = action["effects"]
        split = [k for k in effects if k in split_keys and k not in action["preconditions"]]
        # One copy per combination of current values of the split keys (usually none or one).
        for j, current in enumerate(itertools.product(*(can_hold[k] for k in split))):
            pre_facts = [fact(k, v) for k, v in action["preconditions"].items()]
            pre_facts.extend(current)
            pinned = {f[0]: f for f in pre_facts}
            eff: list[str] = []
            for key, value in effects.items():
                new = fact(key, value)
                # A key fixed by the precondition holds exactly that value; else any value may.
                old = [pinned[key]] if key in pinned else deletable(key, new, emitted_set)
                eff.extend(f"(not ({predicate[f]}))" for f in old if f != new and f in predicate)
                if new in predicate and (key not in pinned or pinned[key] != new):
                    eff.append(f"({predicate[new]})")
            if action_costs:
                eff.append(f"(increase (total-cost) {round(float(action.get('cost', 1)) * scale)})")
            copy = f"_v{j}" if split else ""
            out.append(f"  (:action a{i}{copy}_{_hint(action['name'])}")
            out.append("    :parameters ()")
            # Always present, even empty: pyperplan's parser requires the keyword.
            out.append(f"    :precondition (and {' '.join(f'({predicate[f]})' for f in pre_facts)})")
            out.append(f"    :effect (and {' '.join(eff)}))")
    out.append(")")
    domain_text = "\n".join(out) + "\n"

    init = [f"({predicate[fact(k, v)]})" for k, v in initial.items() if fact(k, v) in predicate]
    if action_costs:
        init.append("(= (total-cost) 0)")
    goals = [f"({predicate[fact(k, v)]})" for k, v in goal.items()]
    prob: list[str] = [
        f"(define (problem p-{_hint(problem.get('name', 'task'))})",
        f"  (:domain d-{_hint(problem.get('name', 'task'))})",
        "  (:init",
        *(f"    {atom}" for atom in init),
        "  )",
        f"  (:goal (and {' '.join(goals)}))",
    ]
    if action_costs:
        prob.append("  (:metric minimize (total-cost))")
    prob.append(")")
    return PddlTask(
        domain=domain_text,
        problem="\n".join(prob) + "\n",
        action_names=tuple(a["name"] for a in actions),
        cost_scale=scale,
        exact_costs=exact,
    )
