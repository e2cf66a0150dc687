"""Planner benchmark: ``python -m bench planner [options]``.

Runs every problem of the repository's problem set (``tests/data/problems/*.json`` and ``ipc/*.json``, relative to
the repository root) with each peer of :data:`bench.peers.PEERS`: this project's A*, langgoap's A*,
pyperplan (astar + lmcut, gbf + hff) and Fast Downward (astar(lmcut())) on the PDDL translation;
``ours-cli`` is this project's command line (``python -m goap plan``) run and timed as a process,
the counterpart of Fast Downward's driver (translate + search), which is timed the same way.

Each run is a fresh worker process (see :mod:`bench.peers.worker`) killed at ``--timeout`` plus a
start-up allowance; a peer that times out on a problem is not run on it again. The runs of one
problem are interleaved (each repeat runs every peer once, in turn), so a busy machine slows every
peer alike, and times are medians over ``--repeat`` runs. Every plan is replayed by :mod:`bench.validate` and priced with the JSON
costs, whatever the planner optimised. Output: one markdown table, then a summary against
the planner's targets.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

from bench.peers import ALIASES, PEERS, Outcome
from bench.validate import OPTIMAL_TOLERANCE, check, is_optimal, load

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The repository root: workers run from here so ``bench`` and ``goap`` import as in a checkout."""
DEFAULT_PROBLEMS = REPO_ROOT / "tests" / "data" / "problems"
DEFAULT_PEERS = tuple(name for name in PEERS if name != "ours-nosym")
"""Peers run when ``--planners`` is not given (``ours-nosym`` only on request)."""
"""The repository's own copy of the problem sets (generated families, IPC tasks, the plan checker)."""


@dataclass(slots=True)
class Row:
    """One planner on one problem: the runs' outcomes, judged by our validator."""

    problem: str
    family: str
    peer: str
    expect: str
    optimal_cost: float | None
    status: str = "error"
    """found | no_plan | timeout | error | n/a, after judging (see :func:`judge`)."""
    times: list[float] = field(default_factory=list)
    """Measured seconds of every completed run."""
    search_times: list[float] = field(default_factory=list)
    """Search-only seconds, for peers that report them."""
    nodes: int | None = None
    cost: float | None = None
    """Plan cost under the JSON costs (first run's plan)."""
    length: int | None = None
    valid: bool | None = None
    """Every returned plan replayed to the goal (None: no plan returned)."""
    optimal: bool | None = None
    """Cost equals the proved optimum within 1e-6 (None: no plan or no optimum known)."""
    correct: bool = False
    """The answer is right: a valid plan when one exists, "no plan" when none does."""
    exact_costs: bool = True
    """False when the planner optimised rounded costs (Fast Downward on fractional costs)."""
    fd_cost: float | None = None
    """Fast Downward's optimal cost (A* + LM-cut) on the same problem, on our row when both found
    a valid plan (see :func:`compare_with_fd`)."""
    matches_fd: bool | None = None
    """Our cost equals Fast Downward's optimal cost (None: not compared)."""
    note: str = ""

    @property
    def seconds(self) -> float | None:
        """Median measured time, if any run completed."""
        return statistics.median(self.times) if self.times else None

    @property
    def search_seconds(self) -> float | None:
        """Median search-only time, if reported."""
        return statistics.median(self.search_times) if self.search_times else None


@dataclass(frozen=True, slots=True)
class Settings:
    """How each worker is run."""

    timeout: float
    """Seconds a run may take (measured time) before it counts as a timeout."""
    repeat: int
    """Runs per (problem, peer); a timeout, error or n/a stops the repeats."""
    startup: float
    """Extra seconds a worker gets to start (interpreter, imports) before it is killed."""
    memory_mb: int
    """Address-space limit per worker in MiB (0: none), so a blow-up fails instead of swapping."""


def checkout_path() -> str:
    """``PYTHONPATH`` for a worker: this checkout's ``src`` first, so the goap measured (in-process
    or as ``python -m goap``) is the one beside this benchmark, not another installed copy."""
    rest = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join(p for p in (str(REPO_ROOT / "src"), rest) if p)


def discover(problems_dir: Path, only: str | None = None) -> list[Path]:
    """Problem files of the set: ``*.json`` in ``problems_dir`` then in its ``ipc/`` folder.

    Raises:
        FileNotFoundError: the folder does not exist.
    """
    if not problems_dir.is_dir():
        raise FileNotFoundError(f"problems folder {problems_dir} does not exist; pass --problems DIR")
    files = sorted(problems_dir.glob("*.json")) + sorted((problems_dir / "ipc").glob("*.json"))
    return [f for f in files if only is None or only in f.stem]


def select_peers(spec: str) -> list[str]:
    """Peer names from a comma list such as ``ours,fd,pyperplan``, in table order.

    Raises:
        ValueError: a name is neither a peer nor an alias.
    """
    wanted: set[str] = set()
    for raw in spec.split(","):
        name = raw.strip()
        if not name:
            continue
        if name in ALIASES:
            wanted.update(ALIASES[name])
        elif name in PEERS:
            wanted.add(name)
        else:
            known = ", ".join([*PEERS, *ALIASES])
            raise ValueError(f"unknown planner {name!r}; choose from {known}")
    return [name for name in PEERS if name in wanted]


def _limit_memory(megabytes: int) -> None:
    import resource

    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_once(peer: str, problem: Path, settings: Settings) -> Outcome:
    """One worker run of ``peer`` on ``problem``, killed (with its children) at the limit."""
    with tempfile.TemporaryDirectory(prefix="bench-planner-") as workdir:
        command = [sys.executable, "-m", "bench.peers.worker", peer, str(problem), workdir]
        memory = settings.memory_mb
        proc = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # Own process group: Fast Downward's translator and search are grandchildren, and a
            # timeout must kill them too.
            start_new_session=True,
            preexec_fn=(lambda: _limit_memory(memory)) if memory > 0 else None,
            # pyperplan iterates over sets of strings: a fixed hash seed makes its plans (and
            # everyone's timings) repeatable from run to run.
            env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": checkout_path()},
        )
        try:
            out, err = proc.communicate(timeout=settings.timeout + settings.startup)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return Outcome("timeout", note=f"> {settings.timeout:g} s (killed)")
    lines = out.strip().splitlines()
    if not lines:
        tail = " | ".join(err.strip().splitlines()[-2:])
        return Outcome("error", note=f"worker exit {proc.returncode}: {tail}"[:300])
    outcome = Outcome.from_json(json.loads(lines[-1]))
    if outcome.seconds is not None and outcome.seconds > settings.timeout:
        return Outcome("timeout", note=f"> {settings.timeout:g} s (took {outcome.seconds:.1f} s)")
    return outcome


def judge(row: Row, problem: dict[str, Any], outcomes: Sequence[Outcome]) -> None:
    """Fill ``row`` from the runs' outcomes, replaying every returned plan with our validator."""
    completed = [o for o in outcomes if o.status in ("found", "no_plan")]
    row.times = [o.seconds for o in completed if o.seconds is not None]
    row.search_times = [o.search_seconds for o in completed if o.search_seconds is not None]
    last = outcomes[-1]
    first = completed[0] if completed else last
    row.nodes = first.nodes
    row.exact_costs = bool(first.extra.get("exact_costs", True))
    notes = [o.note for o in outcomes if o.note]
    if last.status in ("timeout", "error", "n/a"):
        row.status = last.status
    else:
        row.status = first.status
    plans = [o.plan for o in completed if o.status == "found" and o.plan is not None]
    if plans:
        results = [check(problem, p) for p in plans]
        row.valid = all(r.valid for r in results)
        row.cost = results[0].cost
        row.length = len(plans[0])
        row.optimal = is_optimal(row.cost, row.optimal_cost) if row.valid else False
        notes.extend(r.message for r in results if not r.valid)
        if any(p != plans[0] for p in plans):
            notes.append("plans differ between runs")
    statuses = {o.status for o in completed}
    if len(statuses) > 1:
        notes.append("answers differ between runs")
    if row.status == "found":
        row.correct = bool(row.valid)
    elif row.status == "no_plan":
        row.correct = row.expect == "no_plan"
        if not row.correct:
            notes.append("WRONG: says no plan")
    row.note = "; ".join(dict.fromkeys(notes))


def compare_with_fd(rows: Sequence[Row]) -> None:
    """Check our cost on one problem against Fast Downward's: its A* + LM-cut is optimal, so any
    difference means one of the two optimal planners is wrong. Sets ``fd_cost`` and ``matches_fd``
    on our row (when both found a valid plan) and notes a difference. When Fast Downward optimised
    costs rounded to integers at its scale, each action may differ from the JSON cost by half a unit
    of the scale, so the tolerance grows with its plan's length."""
    ours = next((r for r in rows if r.peer == "ours"), None)
    fd = next((r for r in rows if r.peer == "fd"), None)
    if ours is None or fd is None or not ours.valid or not fd.valid or ours.cost is None or fd.cost is None:
        return
    tolerance = OPTIMAL_TOLERANCE if fd.exact_costs else OPTIMAL_TOLERANCE * max(1, fd.length or 0)
    ours.fd_cost = fd.cost
    ours.matches_fd = math.isclose(ours.cost, fd.cost, rel_tol=0.0, abs_tol=tolerance)
    if not ours.matches_fd:
        ours.note = "; ".join(
            x for x in (ours.note, f"COST DIFFERS FROM FAST DOWNWARD'S OPTIMUM {fd.cost:.6g}") if x
        )


def _row(peer: str, problem: dict[str, Any]) -> Row:
    return Row(
        problem=problem["name"],
        family=problem["family"],
        peer=peer,
        expect=problem["expect"],
        optimal_cost=problem["optimal_cost"],
    )


def run_problem(peers: Sequence[str], path: Path, problem: dict[str, Any], settings: Settings) -> list[Row]:
    """Run every peer up to ``settings.repeat`` times on one problem, interleaved, and judge them.

    Repeat ``i`` runs each peer once, in order, before repeat ``i + 1`` starts: a peer compared
    with another (``ours-cli`` with ``fd``) meets the same machine load. A peer whose run times
    out (or cannot run) is not run again.
    """
    outcomes: dict[str, list[Outcome]] = {peer: [] for peer in peers}
    for _ in range(settings.repeat):
        for peer in peers:
            done = outcomes[peer]
            if done and done[-1].status not in ("found", "no_plan"):
                continue
            done.append(run_once(peer, path, settings))
    rows = []
    for peer in peers:
        row = _row(peer, problem)
        judge(row, problem, outcomes[peer])
        rows.append(row)
    return rows


def compile_bytecode() -> None:
    """Write goap's bytecode caches, as an installed package has them.

    With ``PYTHONDONTWRITEBYTECODE`` set (or a read-only checkout) every ``python -m goap`` run
    would otherwise compile its modules from source, which an end-to-end time must not include.
    """
    import compileall

    compileall.compile_dir(str(REPO_ROOT / "src" / "goap"), quiet=1)


def run_peer(peer: str, path: Path, problem: dict[str, Any], settings: Settings) -> Row:
    """Run ``peer`` up to ``settings.repeat`` times on one problem and judge the result."""
    return run_problem([peer], path, problem, settings)[0]


# --- report -----------------------------------------------------------------------------------


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return ""
    ms = seconds * 1000
    if ms < 10:
        return f"{ms:.2f}"
    if ms < 100:
        return f"{ms:.1f}"
    return f"{ms:.0f}"


def _flag(value: bool | None) -> str:
    return "" if value is None else ("yes" if value else "NO")


def _cost(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def table(rows: Iterable[Row]) -> str:
    """The markdown table, one line per (problem, peer)."""
    lines = [
        "| problem | planner | status | time ms (median) | search ms | cost | optimum | len | valid | optimal"
        " | = FD | expanded | note |",
        "|---|---|---|--:|--:|--:|--:|--:|---|---|---|--:|---|",
    ]
    for r in rows:
        status = r.status if r.status != "found" else "plan"
        if r.status == "no_plan" and r.correct:
            status = "no plan (right)"
        lines.append(
            f"| {r.problem} | {r.peer} | {status} | {_ms(r.seconds)} | {_ms(r.search_seconds)} | {_cost(r.cost)}"
            f" | {_cost(r.optimal_cost)} | {'' if r.length is None else r.length} | {_flag(r.valid)}"
            f" | {_flag(r.optimal)} | {_flag(r.matches_fd)} | {'' if r.nodes is None else r.nodes}"
            f" | {r.note.replace('|', '/')} |"
        )
    return "\n".join(lines)


def _solved(row: Row | None) -> bool:
    return row is not None and row.correct and row.seconds is not None


def summarise(rows: Sequence[Row]) -> dict[str, Any]:
    """The summary numbers against the planner's targets (see :func:`summary_text`)."""
    by: dict[tuple[str, str], Row] = {(r.problem, r.peer): r for r in rows}
    problems = list(dict.fromkeys(r.problem for r in rows))
    family = {r.problem: r.family for r in rows}
    summary: dict[str, Any] = {}

    ratios = []
    for p in problems:
        ours, peer = by.get((p, "ours")), by.get((p, "langgoap"))
        if _solved(ours) and _solved(peer) and ours is not None and peer is not None:
            ratios.append((peer.seconds or 0.0) / max(ours.seconds or 0.0, 1e-9))
    summary["langgoap_over_ours_median"] = statistics.median(ratios) if ratios else None
    summary["langgoap_over_ours_count"] = len(ratios)

    for group, members in (
        ("generated", [p for p in problems if not family[p].startswith("ipc-")]),
        ("ipc", [p for p in problems if family[p].startswith("ipc-")]),
    ):
        compared = beaten = 0
        for p in members:
            ours, fd = by.get((p, "ours")), by.get((p, "fd"))
            if fd is None or ours is None or fd.status == "n/a":
                continue
            compared += 1
            if _solved(ours) and (not _solved(fd) or (ours.seconds or 0) < (fd.seconds or 0)):
                beaten += 1
        if compared:
            summary[f"beats_fd_{group}"] = (beaten, compared)

    ratios = []
    half = compared = 0
    for p in problems:
        cli, fd = by.get((p, "ours-cli")), by.get((p, "fd"))
        if cli is None or fd is None or fd.status == "n/a" or not _solved(fd):
            continue
        compared += 1
        if _solved(cli) and cli.optimal is not False:
            ratio = (cli.seconds or 0.0) / max(fd.seconds or 0.0, 1e-9)
            ratios.append(ratio)
            half += ratio <= 0.5
    if compared:
        summary["cli_over_fd_median"] = statistics.median(ratios) if ratios else None
        summary["cli_over_fd_max"] = max(ratios) if ratios else None
        summary["cli_half_of_fd"] = (half, compared)

    ours_rows = [r for r in rows if r.peer == "ours"]
    if ours_rows:
        planful = [r for r in ours_rows if r.expect == "plan"]
        summary["ours_optimal"] = (sum(1 for r in planful if r.correct and r.optimal), len(planful))
        unsolvable = [r for r in ours_rows if r.expect == "no_plan"]
        summary["ours_no_plan_right"] = (sum(1 for r in unsolvable if r.correct), len(unsolvable))
        summary["ours_under_1s"] = (
            sum(1 for r in ours_rows if _solved(r) and (r.seconds or 0) < 1.0),
            len(ours_rows),
        )
        compared_fd = [r for r in ours_rows if r.matches_fd is not None]
        if compared_fd:
            summary["ours_matches_fd"] = (sum(1 for r in compared_fd if r.matches_fd), len(compared_fd))
            summary["ours_differs_from_fd"] = [r.problem for r in compared_fd if not r.matches_fd]
        summary["ours_slowest"] = max(
            ((r.seconds, r.problem) for r in ours_rows if r.seconds is not None), default=None
        )
    for name in dict.fromkeys(r.peer for r in rows):
        mine = [r for r in rows if r.peer == name and r.status != "n/a"]
        summary[f"solved_{name}"] = (sum(1 for r in mine if r.correct), len(mine))
        summary[f"optimal_{name}"] = sum(1 for r in mine if r.optimal)
    return summary


def summary_text(summary: dict[str, Any]) -> str:
    """The summary as markdown bullets."""
    out = ["", "## Summary", ""]
    ratio = summary.get("langgoap_over_ours_median")
    if ratio is not None:
        out.append(
            f"- langgoap A* time / our time, median over the {summary['langgoap_over_ours_count']} problems both"
            f" answer correctly: **{ratio:.1f}x** (target >= 30x)"
        )
    if "cli_half_of_fd" in summary:
        half, compared = summary["cli_half_of_fd"]
        med, worst = summary["cli_over_fd_median"], summary["cli_over_fd_max"]
        out.append(
            f"- process vs process, `python -m goap plan` / Fast Downward's driver: at most half on **{half}/{compared}**"
            " problems both answer (target: every one, optimal cost)"
            + (f"; median ratio {med:.2f}, worst {worst:.2f}" if med is not None else "")
        )
    for group, target in (("generated", "every one"), ("ipc", "within its time")):
        if f"beats_fd_{group}" in summary:
            beaten, compared = summary[f"beats_fd_{group}"]
            out.append(
                f"- faster than Fast Downward end to end on {group} problems: **{beaten}/{compared}** (target: {target})"
            )
    if "ours_optimal" in summary:
        good, total = summary["ours_optimal"]
        verdict = "all optimal" if good == total else "NOT all optimal"
        out.append(f"- ours optimal on problems with a plan: **{good}/{total}** ({verdict})")
        if "ours_matches_fd" in summary:
            good, total = summary["ours_matches_fd"]
            differ = summary["ours_differs_from_fd"]
            tail = "" if not differ else " — DIFFERS on " + ", ".join(differ)
            out.append(f"- ours cost equals Fast Downward's optimal cost: **{good}/{total}**{tail}")
        good, total = summary["ours_no_plan_right"]
        out.append(f"- ours answers 'no plan' on unsolvable problems: **{good}/{total}**")
        good, total = summary["ours_under_1s"]
        out.append(f"- ours answered correctly in < 1 s (plan() call): **{good}/{total}**")
        if summary["ours_slowest"] is not None:
            seconds, name = summary["ours_slowest"]
            out.append(f"- ours slowest: {name} at {seconds * 1000:.1f} ms")
    solved = [k for k in summary if k.startswith("solved_")]
    if solved:
        parts = []
        for key in solved:
            peer = key.removeprefix("solved_")
            good, total = summary[key]
            parts.append(f"{peer} {good}/{total} ({summary[f'optimal_{peer}']} optimal)")
        out.append("- correctly answered (valid plan or right 'no plan'), excluding n/a: " + ", ".join(parts))
    return "\n".join(out)


def process_table(rows: Iterable[Row]) -> str:
    """Process against process: ``python -m goap plan`` beside Fast Downward's driver, per problem,
    with each one's search/plan() time (medians of the interleaved runs)."""
    by: dict[tuple[str, str], Row] = {(r.problem, r.peer): r for r in rows}
    lines = [
        "| problem | ours process ms | fd process ms | ours / fd | ours plan() ms | fd search ms | ours optimal |",
        "|---|--:|--:|--:|--:|--:|---|",
    ]
    for p in dict.fromkeys(r.problem for r in rows):
        cli, fd = by.get((p, "ours-cli")), by.get((p, "fd"))
        if cli is None or fd is None or fd.status == "n/a":
            continue
        ratio = ""
        if _solved(cli) and _solved(fd):
            ratio = f"{(cli.seconds or 0.0) / max(fd.seconds or 0.0, 1e-9):.2f}"
        lines.append(
            f"| {p} | {_ms(cli.seconds)} | {_ms(fd.seconds)} | {ratio} | {_ms(cli.search_seconds)}"
            f" | {_ms(fd.search_seconds)} | {_flag(cli.optimal)} |"
        )
    return "\n".join(lines)


def legend(peers: Sequence[str], settings: Settings) -> str:
    """What each planner column means and how it was measured."""
    out = [
        "# Planner benchmark",
        "",
        f"Median of {settings.repeat} runs (a peer that times out is not re-run); timeout {settings.timeout:g} s per run;"
        " every plan replayed by bench/validate.py and priced with the JSON costs.",
        "",
    ]
    out.extend(f"- `{name}`: {PEERS[name].label}" for name in peers)
    out.append(
        "- PDDL peers get the STRIPS translation of bench/pddl.py; numeric problems are n/a for them;"
        " Fast Downward costs are scaled to integers (rounded at x1e6 on cost-trap, noted per row)."
    )
    return "\n".join(out) + "\n"


def add_run_options(parser: argparse.ArgumentParser, *, unit: str, repeat: int) -> None:
    """The options every benchmark runner shares: limits of one run, repetitions, report files."""
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per run (default 30)")
    parser.add_argument(
        "--repeat", type=int, default=repeat, help=f"runs per {unit} and planner (default {repeat})"
    )
    parser.add_argument(
        "--startup", type=float, default=20.0, help="extra seconds for a worker to start (default 20)"
    )
    parser.add_argument(
        "--memory-mb", type=int, default=8192, help="address-space limit per worker, 0 = none"
    )
    parser.add_argument("--json", type=Path, help="also write the rows and summary as JSON here")
    parser.add_argument("--markdown", type=Path, help="also write the markdown report here")


def parse_run_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse `argv`, refusing a `--repeat` below 1."""
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def run_settings(args: argparse.Namespace) -> Settings:
    """The `Settings` the shared options give."""
    return Settings(args.timeout, args.repeat, args.startup, args.memory_mb)


T = TypeVar("T")


def discovered(
    find: Callable[[Path, str | None], list[T]], folder: Path, only: str | None, what: str
) -> list[T] | None:
    """`find(folder, only)`, or None after saying on stderr why there is nothing to run."""
    try:
        found = find(folder, only)
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return None
    if not found:
        print(f"no {what} in {folder} matches {only!r}", file=sys.stderr)
        return None
    return found


def publish(args: argparse.Namespace, report: str, payload: dict[str, Any]) -> None:
    """Print the markdown report; write it to `--markdown` and `payload` as JSON to `--json` when given."""
    print(report)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(report, encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(prog="python -m bench planner", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--problems", type=Path, default=DEFAULT_PROBLEMS, help="problem folder (default tests/data/problems)"
    )
    parser.add_argument("--only", help="run only problems whose name contains this")
    parser.add_argument(
        "--planners", default=",".join(DEFAULT_PEERS), help=f"comma list of {', '.join([*PEERS, *ALIASES])}"
    )
    add_run_options(parser, unit="problem", repeat=3)
    args = parse_run_options(parser, argv)
    try:
        args.peers = select_peers(args.planners)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def main(argv: Sequence[str], progress: TextIO = sys.stderr) -> int:
    """Run the benchmark; the report goes to stdout, progress lines to ``progress``."""
    args = parse_args(argv)
    settings = run_settings(args)
    files = discovered(discover, args.problems, args.only, "problem")
    if files is None:
        return 2
    rows: list[Row] = []
    started = time.perf_counter()
    if "ours-cli" in args.peers:
        compile_bytecode()
    for path in files:
        problem = load(path)
        mine = run_problem(args.peers, path, problem, settings)
        for row in mine:
            rows.append(row)
            peer = row.peer
            print(
                f"[{time.perf_counter() - started:7.1f} s] {row.problem:32} {peer:16} {row.status:8}"
                f" {_ms(row.seconds):>8} ms  {row.note[:60]}",
                file=progress,
                flush=True,
            )
        compare_with_fd(mine)
    summary = summarise(rows)
    report = legend(args.peers, settings) + "\n" + table(rows) + "\n"
    if "ours-cli" in args.peers and "fd" in args.peers:
        report += "\n" + process_table(rows) + "\n"
    report += summary_text(summary) + "\n"
    payload = {
        "settings": asdict(settings),
        "rows": [{**asdict(r), "seconds": r.seconds, "search_seconds": r.search_seconds} for r in rows],
        "summary": summary,
    }
    publish(args, report, payload)
    return 0
