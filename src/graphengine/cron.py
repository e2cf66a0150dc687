"""Five-field cron expressions: parse once, then ask for the next fire time after any instant.

    expr = CronExpr.parse("0 3 * * mon-fri")
    expr.next_after(datetime(2026, 11, 27, 12, 0, tzinfo=UTC))   # 2026-11-30 03:00 UTC (Monday)

Fields, in order: minute (0-59), hour (0-23), day of month (1-31), month (1-12 or `jan`-`dec`),
day of week (0-7 or `sun`-`sat`; 0 and 7 are both Sunday). Each field is `*`, a value, a range
`a-b`, a step `*/s`, `a-b/s` or `a/s` (from `a` to the field's end), or a comma list of those.
Names are case-insensitive. `@yearly` (`@annually`), `@monthly`, `@weekly`, `@daily`
(`@midnight`) and `@hourly` stand for their usual expressions.

Day of month and day of week follow the classic cron rule: when both are restricted (neither
starts with `*`), a day matches if it matches EITHER; when one starts with `*`, only the other
restricts. So `0 0 13 * fri` fires on every 13th and every Friday, `0 0 */2 * fri` on Fridays only.

Time zones (`tz`): the expression is read on the wall clock of the zone. A wall time the clock
skips (the hour lost when daylight saving time starts) fires at the instant it maps to with the
offset in force before the jump (02:30 becomes 03:30 summer time); a wall time that happens twice
(the hour repeated when it ends) fires once, at its first occurrence.

An expression that can never fire (`0 0 30 2 *`, February 30th) is refused when parsed, with
`CronError` naming the field, as is any malformed field.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Final

__all__ = ["CronError", "CronExpr"]


class CronError(ValueError):
    """A cron expression that does not parse or can never fire; `field` names the culprit."""

    def __init__(self, msg: str, *, expr: str, field: str = "") -> None:
        super().__init__(msg)
        self.expr = expr
        """The expression as given."""
        self.field = field
        """The field that is wrong ("minute", "hour", "day of month", "month", "day of week"), if one is."""


_FIELDS: Final = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
)
_MONTHS: Final = {
    name: i
    for i, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1
    )
}
_DAYS: Final = {name: i for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_MACROS: Final = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
# Longest wait between two fires of a valid expression: February 29th alone can be 8 years away
# (no leap day from 2096 to 2104). Searching past it means a bug, not a rare expression.
_HORIZON_YEARS: Final = 9


def _value(text: str, name: str, lo: int, hi: int, expr: str) -> int:
    names = _MONTHS if name == "month" else _DAYS if name == "day of week" else None
    low = text.lower()
    if names is not None and low in names:
        return names[low]
    if not text.isdigit():  # isdigit: no sign, no spaces; names were handled above
        raise CronError(f"cron {expr!r}: {name} {text!r} is not a number or name", expr=expr, field=name)
    value = int(text)
    if not lo <= value <= hi:
        raise CronError(f"cron {expr!r}: {name} {value} is outside {lo}-{hi}", expr=expr, field=name)
    return value


def _part(part: str, name: str, lo: int, hi: int, expr: str) -> range:
    """One comma-separated item of a field, as the range of values it allows."""
    base, slash, step_text = part.partition("/")
    step = 1
    if slash:
        if not step_text.isdigit() or int(step_text) == 0:
            raise CronError(
                f"cron {expr!r}: {name} step {step_text!r} must be a whole number > 0", expr=expr, field=name
            )
        step = int(step_text)
    # 7 is only another name for Sunday: open-ended day-of-week steps stop at Saturday (6).
    top = 6 if name == "day of week" else hi
    if base == "*":
        return range(lo, top + 1, step)
    first, dash, last = base.partition("-")
    start = _value(first, name, lo, hi, expr)
    if dash:
        end = _value(last, name, lo, hi, expr)
        if end < start:
            raise CronError(f"cron {expr!r}: {name} range {base!r} runs backwards", expr=expr, field=name)
    else:
        end = top if slash else start  # `a/s` means from a to the field's end, every s
    return range(start, end + 1, step)


def _field(text: str, name: str, lo: int, hi: int, expr: str) -> frozenset[int]:
    if not text:
        raise CronError(f"cron {expr!r}: {name} is empty", expr=expr, field=name)
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            raise CronError(f"cron {expr!r}: {name} {text!r} has an empty list item", expr=expr, field=name)
        values.update(_part(part, name, lo, hi, expr))
    return frozenset(values)


@dataclass(frozen=True, slots=True)
class CronExpr:
    """A parsed five-field cron expression (see the module docstring); build it with `parse`."""

    text: str
    """The expression as given (a macro stays a macro)."""
    minutes: frozenset[int]
    """Minutes it fires at (0-59)."""
    hours: frozenset[int]
    """Hours it fires at (0-23)."""
    days: frozenset[int]
    """Days of the month (1-31)."""
    months: frozenset[int]
    """Months (1-12)."""
    weekdays: frozenset[int]
    """Days of the week, 0 = Sunday ... 6 = Saturday (a 7 in the text is folded into 0)."""
    days_star: bool
    """The day-of-month field starts with `*` (it then does not restrict; see the OR rule)."""
    weekdays_star: bool
    """The day-of-week field starts with `*`."""

    @classmethod
    def parse(cls, text: str) -> CronExpr:
        """Parse `text`; `CronError` naming the field for a malformed or never-firing expression."""
        if not isinstance(text, str):
            raise CronError(f"a cron expression is text, not {type(text).__name__}", expr=repr(text))
        spec = _MACROS.get(text.strip().lower(), text)
        fields = spec.split()
        if len(fields) != 5:
            raise CronError(
                f"cron {text!r} has {len(fields)} fields; it needs 5: minute hour day-of-month month day-of-week",
                expr=text,
            )
        sets = [_field(f, name, lo, hi, text) for f, (name, lo, hi) in zip(fields, _FIELDS, strict=True)]
        weekdays = frozenset(d % 7 for d in sets[4])
        expr = cls(
            text,
            sets[0],
            sets[1],
            sets[2],
            sets[3],
            weekdays,
            fields[2].startswith("*"),
            fields[4].startswith("*"),
        )
        expr._check_fires()
        return expr

    def _check_fires(self) -> None:
        """Refuse day-of-month sets no chosen month has (Feb 30th), when the weekday cannot rescue them."""
        if not self.days_star and self.weekdays_star:
            longest = max(calendar.monthrange(2000, m)[1] for m in self.months)  # 2000: a leap year
            if min(self.days) > longest:
                raise CronError(
                    f"cron {self.text!r} never fires: no month it names has day {min(self.days)}",
                    expr=self.text,
                    field="day of month",
                )

    def _day_matches(self, day: datetime) -> bool:
        in_month = day.day in self.days
        weekday = (day.weekday() + 1) % 7  # Python: Monday 0; cron: Sunday 0
        in_week = weekday in self.weekdays
        if self.days_star or self.weekdays_star:
            return in_month and in_week
        return in_month or in_week

    def next_wall(self, after: datetime) -> datetime:
        """The first naive wall-clock minute strictly after naive `after` that the expression matches."""
        t = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = after.year + _HORIZON_YEARS
        while t.year <= limit:
            if t.month not in self.months:
                t = (t.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
            elif not self._day_matches(t):
                t = t.replace(hour=0, minute=0) + timedelta(days=1)
            elif t.hour not in self.hours:
                t = t.replace(minute=0) + timedelta(hours=1)
            elif t.minute not in self.minutes:
                later = [m for m in self.minutes if m > t.minute]
                t = t.replace(minute=min(later)) if later else t.replace(minute=0) + timedelta(hours=1)
            else:
                return t
        raise CronError(
            f"cron {self.text!r} does not fire within {_HORIZON_YEARS} years of {after}", expr=self.text
        )

    def next_after(self, after: datetime, tz: tzinfo | None = None) -> datetime:
        """The first fire time strictly after the aware instant `after`, read on `tz`'s clock (default UTC).

        Returns an aware datetime in `tz`. Raises `ValueError` for a naive `after`.
        """
        if after.tzinfo is None:
            raise ValueError("next_after needs an aware datetime (with tzinfo), not a naive one")
        zone = tz or UTC
        wall = after.astimezone(zone).replace(tzinfo=None)
        while True:
            wall = self.next_wall(wall)
            # fold=0: a repeated wall time means its first occurrence; a skipped one maps with the
            # offset before the jump, i.e. later on the clock after it (see the module docstring).
            fire = wall.replace(tzinfo=zone, fold=0)
            if fire.astimezone(UTC) > after.astimezone(UTC):
                return fire.astimezone(zone)
