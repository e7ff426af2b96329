"""The statistics' text and JSON formats (formats/stats.py) on reports built here, and ``--since``."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone

import pytest

from websearch_tui.core.costs import format_usd
from websearch_tui.core.errors import register_secret
from websearch_tui.formats.stats import (
    NONE,
    PeriodError,
    duration,
    filled_days,
    parse_since,
    percent,
    period_text,
    provider_cells,
    to_stats_dict,
    to_stats_json,
    to_stats_text,
)
from websearch_tui.history.stats import DayStats, ProviderStats, StatsReport

SINCE = datetime(2026, 11, 3, tzinfo=timezone.utc).astimezone()  # printed in local time: a local midnight


def provider(pid: str = "exa", label: str = "Exa", **figures: object) -> ProviderStats:
    values: dict[str, object] = {
        "searches": 120,
        "done": 110,
        "empty": 4,
        "failed": 5,
        "cancelled": 1,
        "cached": 10,
        "latency_p50_ms": 850,
        "latency_p95_ms": 2300,
        "ttft_p50_ms": None,
        "sources_per_search": 8.25,
        "unique_share": 0.41,
        "cited_by_others": 12,
        "cited_share": 0.05,
        "spend_usd": 1.234,
    }
    values.update(figures)
    return ProviderStats(pid, label, **values)  # type: ignore[arg-type]


def report(*providers: ProviderStats, since: datetime | None = SINCE, days=()) -> StatsReport:
    return StatsReport(
        since=since,
        provider=None,
        searches=sum(p.searches for p in providers),
        spend_usd=sum(p.spend_usd for p in providers),
        providers=providers,
        days=tuple(days),
    )


TWO = report(
    provider(),
    provider(
        "perplexity",
        "Perplexity",
        searches=80,
        done=60,
        empty=0,
        failed=20,
        cancelled=0,
        cached=0,
        latency_p50_ms=4200,
        latency_p95_ms=12400,
        ttft_p50_ms=900,
        sources_per_search=6.0,
        unique_share=0.2,
        cited_by_others=3,
        cited_share=0.01,
        spend_usd=0.0042,
    ),
    days=[DayStats("2026-11-03", 5, 0.02, {"exa": 800}), DayStats("2026-11-05", 195, 1.2182)],
)


def test_the_text_table_aligns_every_figure_under_its_header() -> None:
    lines = to_stats_text(TWO).split("\n")
    assert lines[0] == "200 searches since 2026-11-03 · $1.24 spent"
    header, exa, perplexity = lines[2:5]
    assert header.split("  ")[0] == "PROVIDER" and header.endswith("SPEND")
    # rates over the 110 runs sent (10 of the 120 were reused): 100 done, 4 empty, 5 failed, 1 cancelled
    assert exa.split() == ["Exa", "exa", "120", "91%", "4%", "5%", "1%", "8%", "850", "ms", "2.3", "s", NONE, "8.2"] + [
        "41%",
        "12",
        "(5%)",
        "$1.23",
    ]
    assert perplexity.split()[:4] == ["Perplexity", "perplexity", "80", "75%"]
    assert "12 s" in perplexity and "900 ms" in perplexity and perplexity.endswith("$0.0042")
    # numbers right-aligned: each row ends where the header does, and SEARCHES ends in one column
    assert len(exa) == len(perplexity) == len(header)
    assert exa.index("120") + 3 == perplexity.index("80") + 2 == header.index("SEARCHES") + len("SEARCHES")
    day_header, first, second = lines[7:10]
    assert lines[6] == "Per day:" and day_header.split() == ["DAY", "SEARCHES", "SPEND"]
    assert first.split() == ["2026-11-03", "5", format_usd(0.02)] and second.split() == ["2026-11-05", "195", "$1.22"]
    assert len(first) == len(second) == len(day_header) and first.index("5") == second.index("195") + 2


def test_a_label_with_escapes_or_wide_characters_is_one_plain_aligned_cell() -> None:
    text = to_stats_text(report(provider(label="Evil\x1b[31m\x07 label\nsecond"), provider("kimi", "月之暗面")))
    assert "\x1b" not in text and "\x07" not in text
    rows = text.split("\n")[2:5]
    assert rows[1].startswith("Evil label second  exa")
    # the CJK label takes 8 cells for its 4 characters: its id starts in the header's ID cell
    assert rows[2].index("kimi") + 4 == rows[0].index(" ID ") + 1


def test_a_secret_in_a_label_never_reaches_the_text_or_the_json() -> None:
    secret = "sk-stats-3f9a8b7c6d5e4f3a2b1c"
    register_secret(secret)
    leaky = report(provider(label=f"Proxy {secret}"))
    assert secret not in to_stats_text(leaky)
    assert secret not in to_stats_json(leaky)


def test_the_json_is_the_reports_dictionary() -> None:
    document = json.loads(to_stats_json(TWO))
    assert document == to_stats_dict(TWO) == json.loads(json.dumps(TWO.to_dict()))
    assert document["since"] == "2026-11-03T00:00:00.000Z" and document["searches"] == 200
    exa = document["providers"][0]
    assert exa["rates"]["done"] == round(100 / 110, 4) and exa["latency_p95_ms"] == 2300
    assert document["days"][0] == {
        "day": "2026-11-03",
        "searches": 5,
        "spend_usd": 0.02,
        "latency_p50_ms": {"exa": 800},
    }


def test_an_empty_report_says_so_in_one_line() -> None:
    assert to_stats_text(report(since=None)) == "No searches recorded yet."
    assert to_stats_text(report()) == "No searches recorded since 2026-11-03."
    one = StatsReport(since=None, provider="exa", searches=0, spend_usd=0.0, providers=(), days=())
    assert to_stats_text(one) == "No searches that ran exa recorded yet."


def test_figures_without_runs_read_as_a_dash() -> None:
    idle = provider(
        searches=3,
        done=0,
        empty=0,
        failed=0,
        cancelled=3,
        cached=0,
        latency_p50_ms=None,
        latency_p95_ms=None,
        sources_per_search=None,
        unique_share=None,
        cited_by_others=0,
        cited_share=None,
        spend_usd=0.0,
    )
    cells = provider_cells(idle)
    assert cells == ["Exa", "3", "0%", "0%", "0%", "100%", "0%", NONE, NONE, NONE, NONE, NONE, NONE, "$0.00"]


@pytest.mark.parametrize(
    ("share", "text"), [(None, NONE), (0.0, "0%"), (0.001, "<1%"), (0.5, "50%"), (0.999, ">99%"), (1.0, "100%")]
)
def test_percentages(share: float | None, text: str) -> None:
    assert percent(share) == text


@pytest.mark.parametrize(
    ("ms", "text"), [(None, NONE), (0, "0 ms"), (999, "999 ms"), (1234, "1.2 s"), (12_400, "12 s")]
)
def test_durations(ms: int | None, text: str) -> None:
    assert duration(ms) == text


NOW = datetime(2026, 12, 3, 15, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("text", "back"),
    [
        ("12h", timedelta(hours=12)),
        ("30d", timedelta(days=30)),
        ("2w", timedelta(weeks=2)),
        (" 7D ", timedelta(days=7)),
    ],
)
def test_since_durations_count_back_from_now(text: str, back: timedelta) -> None:
    assert parse_since(text, NOW) == NOW - back


def test_since_a_date_is_its_local_midnight_and_all_is_the_whole_history() -> None:
    start = parse_since("2026-11-01", NOW)
    assert start is not None and start.tzinfo is not None
    local = start.astimezone()
    assert (local.date(), local.hour, local.minute) == (date(2026, 11, 1), 0, 0)
    assert parse_since("all", NOW) is None and parse_since("", NOW) is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("30", "12h, 30d or 2w"),
        ("3 days", "12h, 30d or 2w"),
        ("1m", "12h, 30d or 2w"),
        ("2026-13-01", "2026-11-01"),
        ("0d", "empty period"),
        ("2027-01-01", "in the future"),
        ("x\x1b[2Jy", "'xy'"),
        ("\u0663d", "12h, 30d or 2w"),  # an Arabic-Indic three is no number of days here
    ],
)
def test_a_bad_since_says_what_is_accepted(text: str, says: str) -> None:
    with pytest.raises(PeriodError) as raised:
        parse_since(text, NOW)
    assert says in str(raised.value) and "\x1b" not in str(raised.value)


def test_a_long_stored_label_is_cut_in_the_table() -> None:
    long = report(provider("exa", "E" * 10_000))
    rows = to_stats_text(long).split("\n")
    assert max(len(line) for line in rows) < 200
    assert ("E" * 31 + "…") in rows[3]


def test_a_period_reaching_before_the_year_1_is_the_whole_history() -> None:
    assert parse_since("0001-01-01", NOW) is None  # its local midnight cannot be held: no traceback
    start = parse_since("99999w", NOW)
    assert start is not None and start.year == 110
    assert period_text(StatsReport(start, None, 0, 0.0, (), ())).startswith("since 0110-")


def test_days_without_searches_are_filled_with_zeros_up_to_today() -> None:
    days = filled_days(TWO, date(2026, 11, 6))
    assert [(d.day, d.searches) for d in days] == [
        ("2026-11-03", 5),
        ("2026-11-04", 0),
        ("2026-11-05", 195),
        ("2026-11-06", 0),
    ]
    whole = report(provider(), since=None, days=[DayStats("2026-11-05", 1, 0.0)])
    assert [d.day for d in filled_days(whole, date(2026, 11, 6))] == ["2026-11-05", "2026-11-06"]
    assert filled_days(report(since=None), date(2026, 11, 6)) == []
