"""Scores: total, lexicographic ordering where smaller means better, hard levels first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goap import ActionSpec, BendableScore, HardSoftScore, ModelError, Plan, SimpleScore

finite = st.floats(-1e6, 1e6, allow_nan=False)
hard = st.floats(-1e6, 0.0, allow_nan=False)
hard_soft = st.builds(HardSoftScore, hard, finite)
bendable = st.builds(
    BendableScore, st.tuples(hard, hard).map(tuple), st.tuples(finite, finite, finite).map(tuple)
)


@given(hard_soft, hard_soft)
def test_ordering_is_total_and_antisymmetric(a: HardSoftScore, b: HardSoftScore) -> None:
    """Exactly one of a < b, a == b, a > b holds."""
    assert [a < b, a == b, a > b].count(True) == 1
    assert (a <= b) == (a < b or a == b)


@given(bendable, bendable, bendable)
def test_ordering_is_transitive(a: BendableScore, b: BendableScore, c: BendableScore) -> None:
    """a <= b and b <= c imply a <= c."""
    if a <= b and b <= c:
        assert a <= c


@given(hard_soft, hard_soft)
def test_hard_level_dominates_soft(a: HardSoftScore, b: HardSoftScore) -> None:
    """A higher hard level is better whatever the soft levels."""
    if a.hard > b.hard:
        assert a < b


@given(st.lists(hard_soft, min_size=1))
def test_min_picks_the_best_feasible_score(scores: list[HardSoftScore]) -> None:
    """min() returns a feasible score with the greatest soft level when any is feasible."""
    best = min(scores)
    feasible = [s for s in scores if s.feasible]
    if feasible:
        assert best.feasible and best.soft == max(s.soft for s in feasible)


def test_equal_shapes_compare_across_classes() -> None:
    """SimpleScore(v) is HardSoftScore(0, v) is BendableScore((0,), (v,))."""
    assert SimpleScore(-3) == HardSoftScore(0, -3) == BendableScore((0.0,), (-3.0,))
    assert hash(SimpleScore(-3)) == hash(HardSoftScore(0, -3))
    assert SimpleScore(-1) < HardSoftScore(0, -2)


def test_different_shapes_do_not_compare() -> None:
    """Comparing a 1h/1s score with a 1h/2s score is a TypeError naming both shapes."""
    with pytest.raises(TypeError, match="1h/1s and 1h/2s"):
        _ = HardSoftScore(0, 1) < BendableScore((0.0,), (1.0, 2.0))


def test_hard_levels_must_not_be_positive() -> None:
    """A positive hard level is a ModelError: hard levels are penalties."""
    with pytest.raises(ModelError):
        HardSoftScore(1.0, 0.0)
    with pytest.raises(ModelError):
        BendableScore((0.0, 2.0), ())


def test_unscored_plans_score_by_cost() -> None:
    """A plan without a quality scores SimpleScore(-cost): min() picks the cheapest."""
    a = ActionSpec("a")
    cheap, dear = Plan((a,), 1.0), Plan((a, a), 2.0)
    assert min([dear, cheap], key=lambda p: p.score) is cheap
    assert dear.score == SimpleScore(-2.0)
