"""Planners the benchmark runs, each behind one function ``run(problem_path, workdir) -> Outcome``.

Every peer runs in its own worker process (:mod:`bench.peers.worker`), so a hang or a memory
blow-up is killed without taking the benchmark down, and no peer's imports or caches leak into
another's timings. Peers are imported by name on first use: the benchmark runs even when one of
them is not installed, and that peer reports an error naming the missing package.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

Status = Literal["found", "no_plan", "timeout", "error", "n/a"]
"""How a run ended: a plan, a proof that there is none, killed at the limit, a failure, or a
problem the planner cannot express (numeric problems for PDDL planners)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one run of one planner on one problem reported (before our own validation)."""

    status: Status
    plan: list[str] | None = None
    """JSON action names in order, when ``status == "found"``."""
    seconds: float | None = None
    """The measured time: the planning call in-process, or Fast Downward's driver end to end."""
    search_seconds: float | None = None
    """Time of the search alone, when the planner reports it (Fast Downward, pyperplan)."""
    nodes: int | None = None
    """Nodes (states) expanded, when the planner reports it."""
    note: str = ""
    """Why it is n/a or failed, or a caveat such as rounded costs."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Planner-specific details kept in the JSON output (e.g. the cost scale)."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_json` reads it back."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        """Rebuild an outcome written by :meth:`to_json`."""
        return cls(**data)


Runner = Callable[[Path, Path], Outcome]
"""``run(problem_path, workdir)``: plan once; ``workdir`` is an empty private scratch folder."""


@dataclass(frozen=True, slots=True)
class Peer:
    """A planner configuration the benchmark can run."""

    name: str
    """Column and ``--planners`` name."""
    module: str
    """Module under ``bench.peers`` holding the runner."""
    function: str
    """Runner function in that module."""
    label: str
    """What the configuration is, for the table's legend."""


PEERS: dict[str, Peer] = {
    p.name: p
    for p in [
        Peer("ours", "ours", "run", "goap.plan(), default AStar(); the plan() call timed in-process"),
        Peer(
            "ours-cli",
            "ours_cli",
            "run",
            "`python -m goap plan FILE --json` as a process, timed end to end (start-up, imports, reading,"
            " planning, printing); its plan() time beside",
        ),
        Peer(
            "ours-nosym",
            "ours",
            "run_no_symmetry",
            "goap.plan() with AStar(symmetry=False); the plan() call timed in-process",
        ),
        Peer(
            "langgoap", "langgoap_astar", "run", "langgoap 0.1.2 planner.astar.plan(); call timed in-process"
        ),
        Peer(
            "pyperplan-astar",
            "pyperplan_search",
            "run_astar_lmcut",
            "pyperplan 2.1 astar + lmcut (plan length; priced with our costs); parse+ground+search timed",
        ),
        Peer(
            "pyperplan-gbf",
            "pyperplan_search",
            "run_gbf_hff",
            "pyperplan 2.1 gbf + hff (not optimal); parse+ground+search timed",
        ),
        Peer(
            "fd",
            "fast_downward",
            "run",
            "Fast Downward astar(lmcut()) via up-fast-downward; driver+translate+search timed, search time beside",
        ),
    ]
}
"""Every peer, in table order."""

ALIASES: dict[str, tuple[str, ...]] = {"pyperplan": ("pyperplan-astar", "pyperplan-gbf")}
"""Short ``--planners`` names that stand for several peers."""


def runner(name: str) -> Runner:
    """The runner of peer ``name``, importing its module now.

    Raises:
        KeyError: no peer has that name.
    """
    peer = PEERS[name]
    module = importlib.import_module(f"bench.peers.{peer.module}")
    fn: Runner = getattr(module, peer.function)
    return fn


@contextmanager
def quiet_langgoap() -> Iterator[None]:
    """langgoap's INFO/WARNING logging off while timing it, and the logger's level put back after.

    A level left at ERROR in a test process would hide langgoap's warnings from later tests
    that compare against it.
    """
    log = logging.getLogger("langgoap")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)
