"""The one date parser every provider's dates go through (core/text.py ``parse_date``, used by
``providers/_parse.make_source``): ISO and RFC forms, English month names, year-first numeric dates,
CJK and Korean dates, relative ages in English, Chinese, Japanese and Korean, and hostile input."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from websearch_tui.core.text import MAX_DATE_CHARS, age_seconds, iso_utc, parse_date
from websearch_tui.providers.helpers.parse import make_source

NOW = datetime(2026, 12, 2, 12, 0, 0, tzinfo=timezone.utc)
UTC = timezone.utc


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # CJK: year 年 month 月 day 日 (naive: UTC, as every naive date), with a time, zero-padded or not
        ("2024年12月5日", datetime(2024, 12, 5, tzinfo=UTC)),
        ("2024年12月05日", datetime(2024, 12, 5, tzinfo=UTC)),
        ("2024年12月5日 10:30", datetime(2024, 12, 5, 10, 30, tzinfo=UTC)),
        ("2024年12月5日10:30:15", datetime(2024, 12, 5, 10, 30, 15, tzinfo=UTC)),
        ("2024 年 12 月 5 日", datetime(2024, 12, 5, tzinfo=UTC)),
        ("2024年3月5号", datetime(2024, 3, 5, tzinfo=UTC)),
        ("２０２４年１２月５日", datetime(2024, 12, 5, tzinfo=UTC)),  # full-width digits
        # Korean
        ("2024년 12월 5일", datetime(2024, 12, 5, tzinfo=UTC)),
        ("2024년12월5일 09:05", datetime(2024, 12, 5, 9, 5, tzinfo=UTC)),
        ("2024. 12. 5.", datetime(2024, 12, 5, tzinfo=UTC)),
        # year-first numeric
        ("2024/12/05", datetime(2024, 12, 5, tzinfo=UTC)),
        ("2024/12/5 08:00", datetime(2024, 12, 5, 8, tzinfo=UTC)),
        ("2024.12.05", datetime(2024, 12, 5, tzinfo=UTC)),
        ("2024-12-5", datetime(2024, 12, 5, tzinfo=UTC)),
        # English month names
        ("5 Dec 2024", datetime(2024, 12, 5, tzinfo=UTC)),
        ("05 December 2024", datetime(2024, 12, 5, tzinfo=UTC)),
        ("Dec 5, 2024", datetime(2024, 12, 5, tzinfo=UTC)),
        ("May 6, 2026", datetime(2026, 5, 6, tzinfo=UTC)),
        ("September 6, 2019", datetime(2019, 9, 6, tzinfo=UTC)),
        ("Sept. 6th, 2019", datetime(2019, 9, 6, tzinfo=UTC)),
        ("dec 5 2024", datetime(2024, 12, 5, tzinfo=UTC)),
        # what was read before stays read
        ("2024-12-05T10:30:00Z", datetime(2024, 12, 5, 10, 30, tzinfo=UTC)),
        ("2024-12-05T10:30:00+08:00", datetime(2024, 12, 5, 2, 30, tzinfo=UTC)),
        ("Thu, 05 Dec 2024 10:30:00 GMT", datetime(2024, 12, 5, 10, 30, tzinfo=UTC)),
        ("12/05/2024", datetime(2024, 12, 5, tzinfo=UTC)),  # M/D/YYYY, as before
    ],
)
def test_absolute_forms(text: str, expected: datetime) -> None:
    assert parse_date(text, now=NOW) == expected


@pytest.mark.parametrize(
    ("text", "back"),
    [
        ("3 days ago", timedelta(days=3)),
        ("3 weeks ago", timedelta(weeks=3)),
        ("1 month ago", timedelta(days=30)),
        ("2 years ago", timedelta(days=730)),
        ("35 minutes ago", timedelta(minutes=35)),
        ("an hour ago", timedelta(hours=1)),
        ("a day ago", timedelta(days=1)),
        ("yesterday", timedelta(days=1)),
        ("Just now", timedelta(0)),
        ("3天前", timedelta(days=3)),
        ("3 天前", timedelta(days=3)),
        ("3天以前", timedelta(days=3)),
        ("2小时前", timedelta(hours=2)),
        ("2個小時前", timedelta(hours=2)),
        ("5分钟前", timedelta(minutes=5)),
        ("30秒前", timedelta(seconds=30)),
        ("2周前", timedelta(weeks=2)),
        ("2个月前", timedelta(days=60)),
        ("1年前", timedelta(days=365)),
        ("昨天", timedelta(days=1)),
        ("前天", timedelta(days=2)),
        ("刚刚", timedelta(0)),
        ("3日前", timedelta(days=3)),  # Japanese
        ("2時間前", timedelta(hours=2)),
        ("2か月前", timedelta(days=60)),
        ("3일 전", timedelta(days=3)),  # Korean
        ("2시간 전", timedelta(hours=2)),
        ("어제", timedelta(days=1)),
    ],
)
def test_relative_forms_count_back_from_the_injected_now(text: str, back: timedelta) -> None:
    assert parse_date(text, now=NOW) == NOW - back
    assert age_seconds(text, now=NOW) == int(back.total_seconds())


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "N/A",
        "garbage",
        "last Tuesday",
        "2024年2月30日",  # no such day
        "2024年13月1日",
        "2024/12-05",  # mixed separators
        "Mon 5, 2024",  # not a month
        "Ma 5, 2024",
        "5 Decembers 2024",
        "am ago",
        "3 fortnights ago",
        "3天后",  # in three days: not an age
        "99999999999 years ago",  # beyond datetime's range
        "2024年12月5日 and more words",
        "12/05",
    ],
)
def test_garbage_is_no_date(text: str) -> None:
    assert parse_date(text, now=NOW) is None
    assert iso_utc(text, now=NOW) is None and age_seconds(text, now=NOW) is None


def test_a_source_keeps_the_providers_own_text_and_gains_the_moment() -> None:
    source = make_source("https://example.cn/a", "t", None, "2024年12月5日 10:30", now=NOW)
    assert source is not None
    assert source.published_text == "2024年12月5日 10:30"
    assert source.published_date == "2024-12-05T10:30:00Z"
    assert source.age_seconds == int((NOW - datetime(2024, 12, 5, 10, 30, tzinfo=UTC)).total_seconds())
    relative = make_source("https://example.cn/b", "t", None, "3天前", now=NOW)
    assert relative is not None and relative.published_date == "2026-11-29T12:00:00Z"
    garbage = make_source("https://example.cn/c", "t", None, "发布于某天", now=NOW)
    assert garbage is not None
    assert garbage.published_text == "发布于某天" and garbage.published_date is None and garbage.age_seconds is None


@pytest.mark.parametrize(
    "text",
    [
        "1" * 100_000,
        "2024年" * 20_000,
        "2024/" * 20_000,
        "a " * 50_000 + "ago",
        "Dec " * 25_000 + "5, 2024",
        "9" * 50_000 + "天前",
        " " * 100_000,
        "\u3000" * 100_000,
    ],
)
def test_hostile_text_returns_and_is_no_date(text: str) -> None:
    """A 100 kB string returns (the parser bounds its input and every pattern is linear); it is not
    read as a date, and a source keeps it as text. Nothing is timed here (benchmarks/ measures)."""
    assert parse_date(text, now=NOW) is None
    source = make_source("https://example.com/", "t", None, text, now=NOW)
    assert source is not None and source.published_date is None


@pytest.mark.parametrize(
    "text",
    [
        "2024" + " " * (MAX_DATE_CHARS - 6) + "年x",
        "1" + " " * (MAX_DATE_CHARS - 3) + "ag",
        "Dec" + " " * (MAX_DATE_CHARS - 8) + "5, 2x",
        "2024/12/05" + " " * (MAX_DATE_CHARS - 12) + "1:",
        "1" * 12 + "\t" * (MAX_DATE_CHARS - 13) + "s",
    ],
)
def test_near_misses_at_the_length_bound_return(text: str) -> None:
    assert len(text) <= MAX_DATE_CHARS
    assert parse_date(text, now=NOW) is None
