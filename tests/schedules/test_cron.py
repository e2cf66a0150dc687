"""The cron parser against croniter (an oracle we did not write) and a minute-by-minute brute force."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from croniter import croniter
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from graphengine.cron import CronError, CronExpr

_RANGES = {"minute": (0, 59), "hour": (0, 23), "dom": (1, 31), "month": (1, 12), "dow": (0, 7)}
_MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


@st.composite
def _item(draw: st.DrawFn, field: str, proper: bool) -> str:
    lo, hi = _RANGES[field]

    def value() -> int:
        return draw(st.integers(lo, hi if field != "dow" else 6))

    def name(v: int) -> str:
        if field == "month" and draw(st.booleans()):
            return _MONTH_NAMES[v - 1].upper() if draw(st.booleans()) else _MONTH_NAMES[v - 1]
        if field == "dow" and draw(st.booleans()):
            return _DAY_NAMES[v]
        return str(v)

    kind = draw(st.sampled_from(["value", "range", "range_step", "star_step", "start_step"]))
    step = draw(st.integers(1, max(1, (hi - lo) // 2)))
    if kind == "value":
        return name(value())
    if kind == "star_step":
        return f"*/{step}"
    a = value()
    if kind == "start_step":
        return f"{a}/{step}"
    top = hi if field != "dow" else 6
    if (
        proper and a == top
    ):  # croniter misreads a one-value range `a-a` (as `*`); we test those by brute force
        return name(a)
    b = draw(st.integers(a + 1 if proper else a, top))
    return f"{name(a)}-{name(b)}" + (f"/{step}" if kind == "range_step" else "")


@st.composite
def _field(draw: st.DrawFn, field: str, proper: bool) -> str:
    if draw(st.integers(0, 3)) == 0:
        return "*"
    return ",".join(draw(st.lists(_item(field, proper), min_size=1, max_size=3)))


@st.composite
def _expr(draw: st.DrawFn, proper: bool = False) -> str:
    return " ".join(draw(_field(f, proper)) for f in ("minute", "hour", "dom", "month", "dow"))


_START = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2090, 12, 31)).map(
    lambda d: d.replace(tzinfo=UTC)
)


def _fires(expr: str) -> bool:
    try:
        CronExpr.parse(expr)
    except CronError:
        return False
    return True


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=_expr(proper=True), start=_START)
def test_next_fire_times_equal_croniter(expr: str, start: datetime) -> None:
    """Five successive fire times after a random instant equal croniter's, for random expressions."""
    assume(_fires(expr))
    ours = CronExpr.parse(expr)
    dom, dow = expr.split()[2], expr.split()[4]
    if dom != "*" and dow != "*":
        # Both day fields restricted: classic cron ORs them unless one STARTS with `*`; croniter
        # instead ANDs whenever one covers its whole range or holds a `*` anywhere (`*/2`,
        # `1,*/1`). Those cases are checked against the brute force below, which follows classic cron.
        assume("*" not in dom and "*" not in dow)
        assume(len(ours.days) < 31 and len(ours.weekdays) < 7)
    theirs = croniter(expr, start)
    t = start
    for _ in range(5):
        t = ours.next_after(t)
        assert t == theirs.get_next(datetime), expr


def _brute_matcher(expr: str) -> Callable[[datetime], bool]:
    """Classic cron's rule, written out independently: expand each field to a set by enumeration."""
    fields = expr.split()

    def allowed(text: str, lo: int, hi: int, names: list[str], offset: int) -> set[int]:
        out: set[int] = set()
        for item in text.split(","):
            base, _, step = item.partition("/")
            s = int(step) if step else 1
            if base == "*":
                a, b = lo, hi
            else:
                ends = [
                    names.index(x.lower()) + offset if x.lower() in names else int(x) for x in base.split("-")
                ]
                a, b = (
                    ends[0],
                    ends[-1]
                    if len(ends) == 2
                    else (min(hi, 6 if names is _DAY_NAMES else hi) if step else ends[0]),
                )
            out.update(v for v in range(lo, hi + 1) if a <= v <= b and (v - a) % s == 0)
        return out

    mins = allowed(fields[0], 0, 59, [], 0)
    hours = allowed(fields[1], 0, 23, [], 0)
    doms = allowed(fields[2], 1, 31, [], 0)
    months = allowed(fields[3], 1, 12, _MONTH_NAMES, 1)
    dows = {d % 7 for d in allowed(fields[4], 0, 7, _DAY_NAMES, 0)}
    either = not (fields[2].startswith("*") or fields[4].startswith("*"))

    def matches(t: datetime) -> bool:
        dom_ok, dow_ok = t.day in doms, t.isoweekday() % 7 in dows
        day_ok = (dom_ok or dow_ok) if either else (dom_ok and dow_ok)
        return t.minute in mins and t.hour in hours and t.month in months and day_ok

    return matches


@settings(max_examples=100, deadline=None)
@given(
    expr=_expr(),
    start=st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2080, 1, 1)),
)
def test_next_fire_equals_minute_by_minute_enumeration(expr: str, start: datetime) -> None:
    """The next fire time is the first minute a brute-force scan finds matching (within 20 days)."""
    assume(_fires(expr))
    start = start.replace(tzinfo=UTC)
    got = CronExpr.parse(expr).next_after(start)
    t = start.replace(second=0, microsecond=0) + timedelta(minutes=1)
    end = start + timedelta(days=20)
    matches = _brute_matcher(expr)
    while t <= end and not matches(t):
        t += timedelta(minutes=1)
    if t <= end:
        assert got == t, expr
    else:
        assert got > end, expr


@pytest.mark.parametrize(
    ("expr", "field"),
    [
        ("0 3 * *", ""),
        ("60 * * * *", "minute"),
        ("* 24 * * *", "hour"),
        ("* * 0 * *", "day of month"),
        ("* * * 13 *", "month"),
        ("* * * * 8", "day of week"),
        ("* * * foo *", "month"),
        ("*/0 * * * *", "minute"),
        ("5-1 * * * *", "minute"),
        ("1,,2 * * * *", "minute"),
        ("-1 * * * *", "minute"),
        ("0 0 30 2 *", "day of month"),
        ("0 0 31 4,6 *", "day of month"),
    ],
)
def test_bad_expressions_are_refused_naming_the_field(expr: str, field: str) -> None:
    """A malformed or never-firing expression raises CronError naming the field at fault."""
    with pytest.raises(CronError) as info:
        CronExpr.parse(expr)
    assert info.value.field == field
    assert info.value.expr == expr


def test_feb_30_with_a_weekday_fires_on_the_weekday() -> None:
    """With both day fields restricted the OR rule applies, so `30 2 ... mon` is valid: Mondays of February."""
    got = CronExpr.parse("0 0 30 2 mon").next_after(datetime(2027, 1, 1, tzinfo=UTC))
    assert got == datetime(2027, 2, 1, tzinfo=UTC)


def test_macros_stand_for_their_expressions() -> None:
    """`@daily` fires as `0 0 * * *` does."""
    t = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
    assert CronExpr.parse("@daily").next_after(t) == CronExpr.parse("0 0 * * *").next_after(t)


def test_dst_gap_wall_time_fires_after_the_jump() -> None:
    """02:30 on the night the clocks jump from 02:00 to 03:00 fires at 03:30 summer time, once."""
    paris = ZoneInfo("Europe/Paris")
    expr = CronExpr.parse("30 2 * * *")
    got = expr.next_after(datetime(2026, 3, 28, 12, 0, tzinfo=paris), paris)
    assert got.astimezone(UTC) == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)
    assert expr.next_after(got, paris).astimezone(UTC) == datetime(2026, 3, 30, 0, 30, tzinfo=UTC)


def test_repeated_wall_time_fires_once() -> None:
    """02:30 on the night the clocks fall back from 03:00 to 02:00 fires once, at its first occurrence."""
    paris = ZoneInfo("Europe/Paris")
    expr = CronExpr.parse("30 2 * * *")
    got = expr.next_after(datetime(2026, 10, 24, 12, 0, tzinfo=paris), paris)
    assert got.astimezone(UTC) == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)
    assert expr.next_after(got, paris).astimezone(UTC) == datetime(2026, 10, 26, 1, 30, tzinfo=UTC)


def test_naive_instant_is_refused() -> None:
    """next_after refuses a naive datetime instead of guessing its zone."""
    with pytest.raises(ValueError, match="aware"):
        CronExpr.parse("* * * * *").next_after(datetime(2026, 1, 1))
