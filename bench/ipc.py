"""Ground an IPC PDDL task into the shared JSON format, the way ``tests/data/problems/ipc/`` was made.

pyperplan parses and grounds the task (static facts removed, operators irrelevant to the goal
dropped); every remaining ground atom becomes one boolean key spelled as the atom, ``"(on a b)"``,
every operator one action of cost 1 whose preconditions ask the atoms to be ``true`` and whose
effects set deleted atoms ``false`` and added atoms ``true`` (an atom both deleted and added ends
``true``, as in STRIPS). Keys, goals and actions are sorted, so the output depends only on the files.

``optimal_cost`` is left ``null``: this module proves nothing; the coverage benchmark compares our
cost with Fast Downward's instead.

    python -m bench.ipc DOMAIN.pddl TASK.pddl NAME FAMILY > NAME.json
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

from bench.validate import JsonProblem


def ground(domain: Path, task: Path, name: str, family: str) -> JsonProblem:
    """The JSON problem of the PDDL ``task`` of ``domain`` (see the module docstring)."""
    from pyperplan import planner

    # pyperplan logs every grounding step at INFO; the benchmark's output is not the place.
    logging.getLogger().setLevel(logging.WARNING)
    grounded: Any = planner._ground(planner._parse(str(domain), str(task)))
    facts = sorted(grounded.facts)
    actions: list[dict[str, Any]] = []
    for op in sorted(grounded.operators, key=lambda o: str(o.name)):
        effects: dict[str, bool] = {f: False for f in sorted(op.del_effects)}
        effects.update({f: True for f in sorted(op.add_effects)})
        actions.append(
            {
                "name": op.name,
                "preconditions": {f: True for f in sorted(op.preconditions)},
                "effects": effects,
                "cost": 1,
            }
        )
    return {
        "name": name,
        "family": family,
        "description": f"IPC benchmark {task.parent.name}/{task.name} grounded by pyperplan; unit costs",
        "initial": {f: f in grounded.initial_state for f in facts},
        "goal": {g: True for g in sorted(grounded.goals)},
        "actions": actions,
        "optimal_cost": None,
        "expect": "plan",
    }


def main(argv: list[str]) -> int:
    """Print the JSON problem of ``DOMAIN TASK NAME FAMILY``."""
    if len(argv) != 4:
        print("usage: python -m bench.ipc DOMAIN.pddl TASK.pddl NAME FAMILY", file=sys.stderr)
        return 2
    domain, task, name, family = argv
    print(json.dumps(ground(Path(domain), Path(task), name, family)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
