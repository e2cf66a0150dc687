"""Generated planning families with interchangeable objects (not a test module itself).

Each generator returns ``(initial state, goal conditions, actions)`` in one of two encodings:
``"atoms"`` writes one boolean fact per ground atom as the IPC tasks do (``(at ball1 rooma)``,
``(free left)``), ``"values"`` writes one multi-valued fact per object (``at_ball1 = "rooma"``).
The objects of a kind start and end alike, so the planner's symmetry detection finds them
interchangeable; the tests compare the planner's cost with oracles that do not use symmetry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from goap import ActionSpec

Encoding = Literal["atoms", "values"]
Family = tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]


class _Builder:
    """Writes facts in one encoding: ``var(obj, value)`` is either ``(pred obj value)`` true/false
    (atoms) or ``pred_obj == value`` (values)."""

    def __init__(self, encoding: Encoding) -> None:
        self.atoms = encoding == "atoms"
        self.init: dict[str, Any] = {}

    def declare(self, pred: str, obj: str, domain: list[str], value: str) -> None:
        """A fact of ``obj`` with the given domain and initial value."""
        if self.atoms:
            for d in domain:
                self.init[f"({pred} {obj} {d})"] = d == value
        else:
            self.init[f"{pred}_{obj}"] = value

    def cond(self, pred: str, obj: str, value: str) -> dict[str, Any]:
        """The condition ``pred(obj) == value``."""
        return {f"({pred} {obj} {value})": True} if self.atoms else {f"{pred}_{obj}": value}

    def move(self, pred: str, obj: str, old: str, new: str) -> dict[str, Any]:
        """The effect that changes ``pred(obj)`` from ``old`` to ``new``."""
        if self.atoms:
            return {f"({pred} {obj} {old})": False, f"({pred} {obj} {new})": True}
        return {f"{pred}_{obj}": new}

    def carry(
        self, names: tuple[str, str], vehicle: str, counter: str, p: str, x: str, before: str, after: str
    ) -> list[ActionSpec]:
        """Loading ``p`` at ``x`` into ``vehicle`` (its ``counter`` going ``before`` -> ``after``) and
        unloading it there (the counter going back), named ``names``."""
        at_x, inside = self.cond("at", vehicle, x), self.cond("at", p, vehicle)
        return [
            ActionSpec(
                names[0],
                {**self.cond("at", p, x), **at_x, **self.cond(counter, vehicle, before)},
                {**self.move("at", p, x, vehicle), **self.move(counter, vehicle, before, after)},
            ),
            ActionSpec(
                names[1],
                {**inside, **at_x, **self.cond(counter, vehicle, after)},
                {**self.move("at", p, vehicle, x), **self.move(counter, vehicle, after, before)},
            ),
        ]


def gripper(balls: int, encoding: Encoding = "atoms") -> Family:
    """Gripper: a robot with two hands carries every ball from room A to room B (cost 1 each).

    ``"atoms"`` is the IPC encoding literally (``(at ball1 rooma)``, ``(carry ball1 left)``,
    ``(free left)``, ``(at-robby rooma)``). The optimum is :func:`gripper_optimum`."""
    names = [f"ball{i}" for i in range(1, balls + 1)]
    rooms = ["rooma", "roomb"]
    hands = ["left", "right"]
    if encoding == "values":
        b = _Builder(encoding)
        for n in names:
            b.declare("at", n, [*rooms, *hands], "rooma")
        b.declare("at-robby", "robot", rooms, "rooma")
        for h in hands:
            b.declare("hand", h, ["free", *names], "free")
        init = b.init

        def at(n: str, x: str) -> dict[str, Any]:
            return b.cond("at", n, x)

        def robby(r: str) -> dict[str, Any]:
            return b.cond("at-robby", "robot", r)

        def free(h: str) -> dict[str, Any]:
            return b.cond("hand", h, "free")

        def pick(n: str, r: str, h: str) -> dict[str, Any]:
            return {**b.move("at", n, r, h), **b.move("hand", h, "free", n)}

        def drop(n: str, r: str, h: str) -> dict[str, Any]:
            return {**b.move("at", n, h, r), **b.move("hand", h, n, "free")}

        def drive(x: str, y: str) -> dict[str, Any]:
            return b.move("at-robby", "robot", x, y)
    else:
        init = {}
        for n in names:
            for r in rooms:
                init[f"(at {n} {r})"] = r == "rooma"
            for h in hands:
                init[f"(carry {n} {h})"] = False
        for r in rooms:
            init[f"(at-robby {r})"] = r == "rooma"
        for h in hands:
            init[f"(free {h})"] = True

        def at(n: str, x: str) -> dict[str, Any]:
            return {f"(carry {n} {x})" if x in hands else f"(at {n} {x})": True}

        def robby(r: str) -> dict[str, Any]:
            return {f"(at-robby {r})": True}

        def free(h: str) -> dict[str, Any]:
            return {f"(free {h})": True}

        def pick(n: str, r: str, h: str) -> dict[str, Any]:
            return {f"(carry {n} {h})": True, f"(at {n} {r})": False, f"(free {h})": False}

        def drop(n: str, r: str, h: str) -> dict[str, Any]:
            return {f"(carry {n} {h})": False, f"(at {n} {r})": True, f"(free {h})": True}

        def drive(x: str, y: str) -> dict[str, Any]:
            return {f"(at-robby {x})": False, f"(at-robby {y})": True}

    acts = [ActionSpec(f"(move {x} {y})", robby(x), drive(x, y)) for x in rooms for y in rooms if x != y]
    for n in names:
        for r in rooms:
            for h in hands:
                acts.append(
                    ActionSpec(f"(pick {n} {r} {h})", {**at(n, r), **robby(r), **free(h)}, pick(n, r, h))
                )
                acts.append(ActionSpec(f"(drop {n} {r} {h})", {**at(n, h), **robby(r)}, drop(n, r, h)))
    goal: dict[str, Any] = {}
    for n in names:
        goal.update(at(n, "roomb"))
    return init, goal, acts


def gripper_optimum(balls: int) -> int:
    """The optimal cost of :func:`gripper` (picks, drops and the trips between the rooms)."""
    return 2 * balls + 2 * ((balls + 1) // 2) - 1 if balls else 0


def logistics(packages: int, encoding: Encoding = "atoms", trucks: int = 1) -> Family:
    """Logistics: packages go from a post office in city 1 to one in city 2, by truck to the
    airport, by plane between the airports, by truck again. Loading costs 1, driving 2, flying 5."""
    b = _Builder(encoding)
    locs = ["po1", "ap1", "po2", "ap2"]
    city = {"po1": 1, "ap1": 1, "po2": 2, "ap2": 2}
    tr = [f"truck{c}{k}" for c in (1, 2) for k in range(1, trucks + 1)]
    home = {t: ("po1" if t.startswith("truck1") else "po2") for t in tr}
    vehicles = [*tr, "plane"]
    pk = [f"pkg{i}" for i in range(1, packages + 1)]
    for p in pk:
        b.declare("at", p, [*locs, *vehicles], "po1")
    for t in tr:
        b.declare("at", t, [x for x in locs if city[x] == city[home[t]]], home[t])
    b.declare("at", "plane", ["ap1", "ap2"], "ap1")
    acts: list[ActionSpec] = []
    for t in tr:
        here = [x for x in locs if city[x] == city[home[t]]]
        for x in here:
            for y in here:
                if x != y:
                    acts.append(
                        ActionSpec(f"(drive {t} {x} {y})", b.cond("at", t, x), b.move("at", t, x, y), cost=2)
                    )
    acts.append(
        ActionSpec(
            "(fly plane ap1 ap2)", b.cond("at", "plane", "ap1"), b.move("at", "plane", "ap1", "ap2"), cost=5
        )
    )
    acts.append(
        ActionSpec(
            "(fly plane ap2 ap1)", b.cond("at", "plane", "ap2"), b.move("at", "plane", "ap2", "ap1"), cost=5
        )
    )
    for p in pk:
        for v in vehicles:
            for x in ["ap1", "ap2"] if v == "plane" else [x for x in locs if city[x] == city[home[v]]]:
                acts.append(
                    ActionSpec(
                        f"(load {p} {v} {x})",
                        {**b.cond("at", p, x), **b.cond("at", v, x)},
                        b.move("at", p, x, v),
                    )
                )
                acts.append(
                    ActionSpec(
                        f"(unload {p} {v} {x})",
                        {**b.cond("at", p, v), **b.cond("at", v, x)},
                        b.move("at", p, v, x),
                    )
                )
    goal: dict[str, Any] = {}
    for p in pk:
        goal.update(b.cond("at", p, "po2"))
    return b.init, goal, acts


def transport(packages: int, encoding: Encoding = "atoms") -> Family:
    """Transport: one truck of capacity 2 on a road 1 - 2 - 3 (lengths 3 and 1, a direct road
    1 - 3 of length 5) carries every package from place 1 to place 3. Pick-up and drop cost 1."""
    b = _Builder(encoding)
    places = ["p1", "p2", "p3"]
    roads = {("p1", "p2"): 3, ("p2", "p3"): 1, ("p1", "p3"): 5}
    pk = [f"pkg{i}" for i in range(1, packages + 1)]
    for p in pk:
        b.declare("at", p, [*places, "truck"], "p1")
    b.declare("at", "truck", places, "p1")
    sizes = ["c0", "c1", "c2"]
    b.declare("capacity", "truck", sizes, "c2")
    acts: list[ActionSpec] = []
    for (x, y), length in roads.items():
        for u, v in ((x, y), (y, x)):
            acts.append(
                ActionSpec(
                    f"(drive truck {u} {v})",
                    b.cond("at", "truck", u),
                    b.move("at", "truck", u, v),
                    cost=length,
                )
            )
    for p in pk:
        for x in places:
            for k in (1, 2):
                more, less = sizes[k], sizes[k - 1]
                names = (f"(pick-up truck {x} {p} {less} {more})", f"(drop truck {x} {p} {less} {more})")
                acts += b.carry(names, "truck", "capacity", p, x, more, less)
    goal: dict[str, Any] = {}
    for p in pk:
        goal.update(b.cond("at", p, "p3"))
    return b.init, goal, acts


def elevators(passengers: int, encoding: Encoding = "atoms", floors: int = 5) -> Family:
    """Elevators: a lift for two passengers starts on the middle floor; passengers with an even
    index go from the ground floor to the top, the others from the top to floor 1. The lift moves
    one floor for cost 2, two floors for 3; boarding and leaving cost 1."""
    b = _Builder(encoding)
    fl = [f"f{i}" for i in range(floors)]
    ps = [f"pass{i}" for i in range(1, passengers + 1)]
    route = {p: (fl[0], fl[-1]) if i % 2 == 0 else (fl[-1], fl[1]) for i, p in enumerate(ps)}
    for p in ps:
        b.declare("at", p, [*fl, "lift"], route[p][0])
    b.declare("at", "lift", fl, fl[floors // 2])
    loads = ["n0", "n1", "n2"]
    b.declare("load", "lift", loads, "n0")
    acts: list[ActionSpec] = []
    for i, x in enumerate(fl):
        for j, y in enumerate(fl):
            if 0 < abs(i - j) <= 2:
                acts.append(
                    ActionSpec(
                        f"(move lift {x} {y})",
                        b.cond("at", "lift", x),
                        b.move("at", "lift", x, y),
                        cost=abs(i - j) + 1,
                    )
                )
    for p in ps:
        for x in fl:
            for k in (1, 2):
                less, more = loads[k - 1], loads[k]
                names = (f"(board {p} {x} {less} {more})", f"(leave {p} {x} {less} {more})")
                acts += b.carry(names, "lift", "load", p, x, less, more)
    goal: dict[str, Any] = {}
    for p in ps:
        goal.update(b.cond("at", p, route[p][1]))
    return b.init, goal, acts


FAMILIES: dict[str, Callable[[int, Encoding], Family]] = {
    "gripper": gripper,
    "logistics": logistics,
    "transport": transport,
    "elevators": elevators,
}
"""Family name -> generator taking (number of interchangeable objects, encoding)."""
