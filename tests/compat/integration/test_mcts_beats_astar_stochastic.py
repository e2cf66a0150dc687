# Ported from langgoap 0.1.2, tests/integration/test_mcts_beats_astar_stochastic.py: MIT licence, Copyright (c) 2024 Integrallis
# Software (tests/compat/LICENSE-langgoap). Only the imports (and mock.patch targets) are rewritten: langgoap -> goap.compat.
"""Library-level integration test: MCTS decisively beats A* on a
stochastic gridworld when equipped with the chance-node expansion
layer introduced by the 2026-04-21 stochastic-MCTS-expansion commit.

**FrozenLake-4x4, slip_p=0.2, 30 paired seeds.**  With the
chance-node layer engaged, MCTS reaches the goal at a rate that
strictly dominates A* by at least 15pp, is at least 5x A*'s goal
rate, and clears a one-sided Welch significance bar at p < 0.05.

Motivated by the null verdict on Pac-Man ``slippery-classic``
(research/experiments/results/2026-04-21-stochastic-mcts-expansion.md)
where domain-specific interactions with the ghost controller masked
the library-level advantage of stochastic-aware tree expansion.
FrozenLake exposes the advantage cleanly because (a) holes are
terminal so risk cannot be replanned away, and (b) the slipped
move that walks *into* a hole is reached during rollouts, giving
the chance node a backed-up negative return.

Deterministic no-regression parity is already covered by
``tests/test_mcts_chance_nodes.py::test_deterministic_model_skips_chance_layer``.
"""

from __future__ import annotations

import statistics
from statistics import NormalDist

from tests.compat.benchmarks.stochastic_gridworld_bench import run_cell
from tests.compat.fixtures.stochastic_gridworld import frozen_lake_4x4

SEEDS = list(range(42, 72))  # paired with the Apr-20 bench protocol
SLIP_PROB = 0.2


def _goal_rate(episodes: list) -> float:
    return sum(1 for e in episodes if e.reached_goal) / len(episodes)


def _welch_p_one_sided(treatment: list[float], baseline: list[float]) -> float:
    mt, mb = statistics.mean(treatment), statistics.mean(baseline)
    vt = statistics.variance(treatment) if len(treatment) > 1 else 0.0
    vb = statistics.variance(baseline) if len(baseline) > 1 else 0.0
    nt, nb = len(treatment), len(baseline)
    se = (vt / nt + vb / nb) ** 0.5
    if se == 0.0:
        return 0.5
    t = (mt - mb) / se
    return 1.0 - NormalDist().cdf(t)


def test_mcts_chance_nodes_beats_astar_on_frozen_lake() -> None:
    """Primary contract: MCTS > A* on FrozenLake under slip_p=0.2.

    ``mcts_wall_clock_ms=0.0`` disables the bench's 200 ms wall-clock
    cap so MCTS always runs the full ``MCTS_ITERATIONS`` budget.  The
    cap is appropriate for online deployment but introduces
    platform-dependent variance under CI (slow runners complete fewer
    iterations within 200 ms, producing weaker plans and an
    artificially narrow goal-rate delta).  The iteration budget alone
    is sufficient to bound runtime here \u2014 a 4x4 frozen-lake search at
    200 iterations completes well under the wall-clock cap on every
    supported runner.
    """
    astar_eps = run_cell(
        topology=frozen_lake_4x4(),
        strategy_name="astar",
        seeds=SEEDS,
        slip_prob=SLIP_PROB,
    )
    mcts_eps = run_cell(
        topology=frozen_lake_4x4(),
        strategy_name="mcts",
        seeds=SEEDS,
        slip_prob=SLIP_PROB,
        mcts_wall_clock_ms=0.0,
    )

    astar_goal = _goal_rate(astar_eps)
    mcts_goal = _goal_rate(mcts_eps)

    astar_returns = [e.total_return for e in astar_eps]
    mcts_returns = [e.total_return for e in mcts_eps]
    p = _welch_p_one_sided(mcts_returns, astar_returns)

    assert mcts_goal >= astar_goal + 0.15, (
        f"MCTS chance-node advantage should be >=15pp, got "
        f"mcts={mcts_goal:.2%} vs astar={astar_goal:.2%}"
    )
    assert mcts_goal >= 5 * max(astar_goal, 1e-6), (
        f"MCTS goal rate should be at least 5x A*'s, got "
        f"mcts={mcts_goal:.2%} astar={astar_goal:.2%}"
    )
    assert p < 0.05, f"one-sided Welch p={p:.4f} should be < 0.05"
