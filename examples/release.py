"""The main demo: a GOAP agent ships a release on the embedded SQLite store.

The agent must fetch, test, build, sign, publish and notify. Signing through the hardware
security module (the cheap way) fails, seeded so every run tells the same story: the run shows
a failure, a replan with its reason, the action blacklisted, and success through the slower
local signing key. Publishing is guarded (a release-window guard that warns) and needs a
person's approval: the run pauses before it with an engine interrupt, and this demo answers the
form itself through `resume(run_id, input=...)` (saying so) so `make demo` runs unattended.
Every step is committed to SQLite, so the run can be resumed, inspected and replayed afterwards;
the closing lines say how, and the plan history shows every plan with why it was made.

    python -m examples.release [--db PATH] [--run-id ID] [--seed N] [--fail-rate P]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from random import Random
from typing import Any

from goap import (
    ActionOutcome,
    ActionSpec,
    Approval,
    FunctionalGuard,
    GoalSpec,
    GoapGraph,
    GoapState,
    GuardResult,
)
from graphengine.store import SQLiteStore

WORLD: dict[str, bool] = {
    "source": False,
    "tested": False,
    "built": False,
    "signed": False,
    "published": False,
    "notified": False,
}
GOAL = GoalSpec({"published": True, "notified": True}, name="ship release")


class Hsm:
    """A flaky hardware security module: each call fails with probability `fail_rate` (seeded)."""

    def __init__(self, seed: int, fail_rate: float) -> None:
        self.rng = Random(seed)
        self.fail_rate = fail_rate

    def sign(self, world: Mapping[str, Any]) -> dict[str, Any]:
        """Sign the build, or raise like a real HSM timing out."""
        if self.rng.random() < self.fail_rate:
            raise TimeoutError("HSM did not answer within 2s")
        return {"signed": True, "signature": "hsm:3f9a"}


class PublishApproval(Approval):
    """The form a release manager fills in before publishing."""

    channel: str = "stable"
    """Where to publish (the approver may change it)."""


def release_window(action: ActionSpec, world: Mapping[str, Any]) -> GuardResult:
    """Warn (not block) when publishing during the Friday change freeze; the demo is always in it."""
    return GuardResult(False, "publishing during the Friday change freeze", "warn")


def publish(world: Mapping[str, Any], channel: str = "stable") -> dict[str, Any]:
    """Publish to the approved channel."""
    return {"published": True, "channel": channel}


def actions(seed: int = 7, fail_rate: float = 0.6) -> list[ActionSpec]:
    """The release actions; `sign_hsm` is cheap but flaky, `sign_local` slower and reliable."""
    hsm = Hsm(seed, fail_rate)
    window = FunctionalGuard("release_window", release_window)
    return [
        ActionSpec("fetch", {}, {"source": True}, execute=lambda w: {"source": True, "commit": "a1b2c3d"}),
        ActionSpec("test", {"source": True}, {"tested": True}, cost=3),
        ActionSpec("build", {"source": True, "tested": True}, {"built": True}, cost=2),
        ActionSpec("sign_hsm", {"built": True}, {"signed": True}, cost=1, execute=hsm.sign),
        ActionSpec("sign_local", {"built": True}, {"signed": True}, cost=4),
        ActionSpec(
            "publish",
            {"signed": True},
            {"published": True},
            cost=1,
            execute=publish,
            guards=(window,),
            approval=PublishApproval,
        ),
        ActionSpec("notify", {"published": True}, {"notified": True}, cost=1),
    ]


class Printer:
    """A PlanningTracer printing a readable trace as the run goes."""

    def __init__(self, out: Any = None) -> None:
        self.out = out or sys.stdout
        self.t0 = time.perf_counter()

    def _p(self, text: str) -> None:
        print(f"  [{time.perf_counter() - self.t0:6.3f}s] {text}", file=self.out)

    def on_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """Print the new plan."""
        self._p(f"plan ({duration_ms:.1f} ms, cost {plan.cost:g}): {' -> '.join(plan.names)}")

    def on_plan_failed(self, reason: str, duration_ms: float) -> None:
        """Print that no plan exists."""
        self._p(f"no plan: {reason}")

    def on_action_complete(self, result: ActionOutcome) -> None:
        """Print an action's outcome."""
        mark = "ok  " if result.success else "FAIL"
        self._p(f"{mark} {result.action}" + (f": {result.error}" if result.error else ""))
        for warning in result.warnings:
            self._p(f"guard warned: {warning}")

    def on_replan(self, reason: str, new_plan: Any) -> None:
        """Print why the agent replanned."""
        self._p(f"replanned because: {reason}")

    def on_goal_achieved(self, final_state: Any) -> None:
        """Print success."""
        self._p("goal achieved")


def build(store: SQLiteStore, *, seed: int = 7, fail_rate: float = 0.6, out: Any = None) -> GoapGraph:
    """The release agent on `store`."""
    return GoapGraph(
        actions(seed, fail_rate), store=store, max_replans=3, blacklist_after=2, tracer=Printer(out)
    )


def summary(final: GoapState) -> list[str]:
    """Lines describing how the run ended."""
    lines = [f"status: {final.status}   replans: {final.replan_count} (last reason: {final.replan_reason})"]
    if final.blacklisted_actions:
        lines.append(f"blacklisted: {', '.join(final.blacklisted_actions)}")
    lines += [f"reflection: {note}" for note in final.reflection_context]
    return lines


async def main(argv: list[str] | None = None) -> GoapState:
    """Run (or resume) the release agent and print its trace and how to inspect it."""
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--db", default=".demo/release.db", help="SQLite file (created if missing)")
    p.add_argument("--run-id", default=f"release-{int(time.time())}")
    p.add_argument("--seed", type=int, default=7, help="seed of the flaky HSM")
    p.add_argument("--fail-rate", type=float, default=0.6, help="probability that the HSM fails a call")
    args = p.parse_args(argv)
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    async with SQLiteStore(args.db) as store:
        graph = build(store, seed=args.seed, fail_rate=args.fail_rate)
        known = await store.get_run(args.run_id)
        print(f"{'resuming' if known else 'starting'} run {args.run_id!r} on {args.db}: goal {GOAL.label}")
        if known:
            final = await graph.resume(args.run_id)
        else:
            final = await graph.run(args.run_id, WORLD, GOAL)
        while (ask := await graph.pending_approval(args.run_id)) is not None:
            # A person would answer here (e.g. from a web form); the demo approves by itself.
            answer = {"approved": True, "reason": "demo auto-approval", "channel": "stable"}
            print(f"paused for approval of {ask['action']!r} ({ask['form']}); auto-approving: {answer}")
            final = await graph.resume(args.run_id, input=answer)
        for line in summary(final):
            print(line)
        print("plan history:")
        for v in await graph.plan_history(args.run_id):
            change = f", change {v.cost_change:+g}" if v.cost_change is not None else ""
            print(
                f"  v{v.version} step {v.step} [{v.trigger}] {' -> '.join(v.plan)} (cost {v.cost:g}{change})"
                + (
                    f"; removed {v.removed}, added {v.added}"
                    if v.version > 1 and (v.removed or v.added)
                    else ""
                )
            )
        report = await graph.replay(args.run_id)
        print(f"replay: {report}")
        print("\nthis run is stored; next:")
        print(f"  resume:  python -m examples.release --db {args.db} --run-id {args.run_id}")
        print(f"  inspect: graphengine show {args.run_id} --store sqlite:///{args.db}")
        print(
            f"  replay:  graphengine replay examples.release:ENGINE {args.run_id} --store sqlite:///{args.db}"
        )
        return final


ENGINE = GoapGraph(actions()).engine
"""The demo's engine, for the `graphengine` CLI (`MODULE:ENGINE`); its store comes from `--store`."""

if __name__ == "__main__":
    asyncio.run(main())
