"""Durable plan lineage: every plan of a run with its trigger, diff and solver settings; replay with replan=True."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from goap import ActionSpec, GoalSpec, GoapGraph
from goap.runtime._lineage import PlanVersion, plan_diff
from graphengine.store import SQLiteStore, Store
from graphengine.testing import assert_replays

WORKER = Path(__file__).parents[2] / "crash" / "goap_worker.py"
W0 = {"built": False, "signed": False, "published": False}
GOAL = GoalSpec({"published": True})


def offline(world: Mapping[str, Any]) -> dict[str, Any]:
    """An HSM that is always down."""
    raise RuntimeError("HSM offline")


def actions(hsm_cost: float = 1.0, execute: Any = None) -> list[ActionSpec]:
    """build -> sign (hsm cheap, local costly) -> publish."""
    return [
        ActionSpec("build", {}, {"built": True}),
        ActionSpec("sign_hsm", {"built": True}, {"signed": True}, cost=hsm_cost, execute=execute),
        ActionSpec("sign_local", {"built": True}, {"signed": True}, cost=3),
        ActionSpec("publish", {"signed": True}, {"published": True}),
    ]


def test_plan_diff_counts_multiplicity_and_keeps_order() -> None:
    """A plan diff is a multiset difference, each side in its plan's order."""
    assert plan_diff(["a", "b", "b", "c"], ["b", "d", "a"]) == (["d"], ["b", "c"])


async def test_every_plan_is_kept_with_trigger_diff_and_solver_settings(store: Store) -> None:
    """A failure-driven replan is a second version: trigger failure, the swap as its diff, cost change, solver."""
    g = GoapGraph(actions(execute=offline), store=store, blacklist_after=1, seed=5)
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved"
    history = await g.plan_history("r")
    assert [(v.version, v.trigger, v.plan) for v in history] == [
        (1, "initial", ["build", "sign_hsm", "publish"]),
        (2, "failure", ["sign_local", "publish"]),
    ]
    v2 = history[1]
    assert (v2.added, v2.removed, v2.cost_change) == (["sign_local"], ["sign_hsm"], 2.0)
    assert v2.reason == "action_failed" and "RuntimeError: HSM offline" in v2.detail
    assert v2.solver["strategy"] == "astar(lmcut)" and v2.solver["seed"] == 5 and v2.solver["optimal"] is True
    assert v2.solver["limits"]["timeout"] == 30.0
    assert all(isinstance(v.solver["seconds"], float) for v in history)
    assert all("seconds" not in v.solver for v in final.plan_lineage)  # the stored lineage is deterministic
    await assert_replays(g.engine, "r")


async def test_no_plan_rounds_are_in_the_lineage(store: Store) -> None:
    """A round that finds no plan is recorded with its status and an empty plan."""
    g = GoapGraph(actions(), store=store)
    final = await g.run("r", W0, GoalSpec({"audited": True}))
    assert final.status == "no_plan"
    assert [(v.status, v.plan) for v in final.plan_lineage] == [("no_plan", [])]


async def test_replay_with_replan_catches_a_changed_action_cost(store: Store) -> None:
    """Replay serves the recorded plans; replan=True plans again and reports where the plan now differs, with both."""
    g = GoapGraph(actions(hsm_cost=1), store=store)
    await g.run("r", W0, GOAL)
    same = await g.replay("r", replan=True)
    assert same.ok and same.replanned == 1 and not same.plans
    changed = GoapGraph(actions(hsm_cost=5), store=store)
    report = await changed.replay("r", replan=True)
    assert not report.ok
    (d,) = report.plans
    assert (d.version, d.step) == (1, 1)
    assert d.recorded == ("build", "sign_hsm", "publish") and d.recorded_cost == 3.0
    assert d.replanned == ("build", "sign_local", "publish") and d.replanned_cost == 5.0
    assert "sign_local" in str(report)


async def test_replay_with_replan_catches_a_cost_only_change(store: Store) -> None:
    """Same actions, different cost: still a divergence (the costs differ)."""
    g = GoapGraph(actions(hsm_cost=1), store=store)
    await g.run("r", W0, GOAL)
    report = await GoapGraph(actions(hsm_cost=2), store=store).replay("r", replan=True)
    (d,) = report.plans
    assert d.recorded == d.replanned and (d.recorded_cost, d.replanned_cost) == (3.0, 4.0)


def _drive(db: Path, run_id: str) -> Any:
    spec = importlib.util.spec_from_file_location("goap_lineage_worker", WORKER)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return asyncio.run(mod.drive(str(db), run_id, None))


async def _history(db: Path, run_id: str) -> list[PlanVersion]:
    spec = importlib.util.spec_from_file_location("goap_lineage_worker2", WORKER)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    async with SQLiteStore(db) as s:
        g = mod.graph(s, None)
        await assert_replays(g.engine, run_id)
        return list(await g.plan_history(run_id))


def _strip(history: list[PlanVersion]) -> list[dict[str, Any]]:
    out = []
    for v in history:
        d = v.model_dump()
        d["solver"].pop("seconds", None)
        out.append(d)
    return out


def test_plan_lineage_survives_sigkill_and_resume(tmp_path: Path) -> None:
    """Killed while executing the third plan's first action, then resumed: the lineage equals an uninterrupted run's."""
    reference = _drive(tmp_path / "ref.db", "ref")
    assert reference.status == "achieved" and len(reference.plan_lineage) == 3
    db, log = tmp_path / "k.db", tmp_path / "k.log"
    env = {**os.environ, "GOAP_HANG_AT": "sign_local"}
    p = subprocess.Popen([sys.executable, str(WORKER), str(db), "k", str(log)], env=env)
    deadline = time.monotonic() + 60
    while not (log.exists() and "hang " in log.read_text()):
        assert p.poll() is None and time.monotonic() < deadline, "the worker never reached sign_local"
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.wait()
    killed = asyncio.run(_history(db, "k"))
    assert [v.trigger for v in killed] == ["initial", "failure", "failure"]
    final = subprocess.run([sys.executable, str(WORKER), str(db), "k", str(log)], timeout=60)
    assert final.returncode == 0
    resumed = asyncio.run(_history(db, "k"))
    ref = asyncio.run(_history(tmp_path / "ref.db", "ref"))
    assert _strip(resumed) == _strip(ref)
    assert [v.plan[0] for v in resumed] == ["fetch", "sign_hsm", "sign_local"]
