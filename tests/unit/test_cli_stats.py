"""``websearch-tui stats``: the figures of a history built here through the real store (text and JSON),
--since and --provider, bad input, and no history file."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from websearch_tui.cli.main import main
from websearch_tui.core.costs import Cost, format_usd
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import Citation, SearchRequest, SearchResponse, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.history import HistoryStore

NOW = datetime.now(timezone.utc)
SHARED = "https://shared.example/page"


@pytest.fixture
def history() -> Path:
    """The history file the tests use ($WEBSEARCH_TUI_HISTORY, see tests/conftest.py)."""
    return Path(os.environ["WEBSEARCH_TUI_HISTORY"])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def search(days_ago: float, *, brave_fails: bool = False) -> SearchResult:
    """A search of Exa and Brave: Exa finds the shared page and one of its own in 800 ms for $0.005 and
    cites Brave's; Brave finds the shared page (1,200 ms, $0.004) or fails after 300 ms."""
    exa = SearchResponse(
        provider="exa",
        answer="An answer [1].",
        sources=[Source(SHARED, "Shared"), Source(f"https://exa.example/{days_ago}", "Exa only")],
        citations=[Citation(SHARED, "Shared")],
    )
    outcomes = [ProviderOutcome("exa", RunStatus.DONE, exa, None, 800, 200, cost=Cost(0.005, "reported"))]
    if brave_fails:
        error = ProviderError("brave", ErrorKind.RATE_LIMIT, "Brave Search API error (429)", status=429)
        brave = SearchResponse(provider="brave")
        outcomes.append(
            ProviderOutcome("brave", RunStatus.FAILED, brave, error, 300, None, cost=Cost(0.0, "estimated"))
        )
    else:
        brave = SearchResponse(provider="brave", sources=[Source(SHARED, "Shared")])
        outcomes.append(
            ProviderOutcome("brave", RunStatus.DONE, brave, None, 1200, 1100, cost=Cost(0.004, "estimated"))
        )
    when = NOW - timedelta(days=days_ago)
    return SearchResult(
        request=SearchRequest(query=f"query {days_ago}", providers=("exa", "brave")),
        mode="compare",
        search_id=1,
        providers=("exa", "brave"),
        labels={"exa": "Exa", "brave": "Brave Search"},
        outcomes=outcomes,
        created_at=when,
    )


@pytest.fixture
def recorded(history: Path) -> Path:
    """Three searches: 10 days ago (Brave failed), 1 day ago and just now (both done)."""
    store = HistoryStore(history)
    for days_ago, fails in ((10, True), (1, False), (0.001, False)):
        result = search(days_ago, brave_fails=fails)
        store.add(result, created_at=result.created_at)
    store.close()
    return history


def test_json_holds_every_figure_of_the_history(recorded: Path, capsys) -> None:
    code, out, err = run(capsys, "stats", "--format", "json")
    assert code == 0 and err == ""
    document = json.loads(out)
    assert set(document) == {"since", "provider", "searches", "spend_usd", "providers", "days"}
    assert document["since"] is None and document["provider"] is None
    assert document["searches"] == 3 and document["spend_usd"] == pytest.approx(3 * 0.005 + 2 * 0.004)
    exa, brave = (next(p for p in document["providers"] if p["provider"] == pid) for pid in ("exa", "brave"))
    assert (exa["label"], exa["searches"], exa["done"], exa["failed"]) == ("Exa", 3, 3, 0)
    assert exa["latency_p50_ms"] == 800 and exa["sources_per_search"] == 2.0
    assert exa["unique_share"] == pytest.approx(round(4 / 6, 4))  # its own page each time; the shared one twice not
    assert (brave["done"], brave["failed"], brave["rates"]["failed"]) == (2, 1, round(1 / 3, 4))
    assert brave["cited_by_others"] == 2 and brave["unique_share"] == 0.0  # Exa's answers cite its only page
    assert brave["spend_usd"] == pytest.approx(0.008)
    assert sum(day["searches"] for day in document["days"]) == 3 and len(document["days"]) in (2, 3)


def test_the_text_table_has_a_row_per_provider_and_the_days(recorded: Path, capsys) -> None:
    code, out, _ = run(capsys, "stats")
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"3 searches in the whole history · {format_usd(0.023)} spent"
    rows = {line.split()[0]: line for line in lines[2:5]}
    assert rows["PROVIDER"].split()[:3] == ["PROVIDER", "ID", "SEARCHES"]
    assert rows["Exa"].split()[1:4] == ["exa", "3", "100%"] and "800 ms" in rows["Exa"]
    assert rows["Brave"].split()[2:6] == ["brave", "3", "67%", "0%"] and "33%" in rows["Brave"]
    assert "Per day:" in lines


def test_since_and_provider_narrow_the_report(recorded: Path, capsys) -> None:
    asked = datetime.now(timezone.utc)
    code, out, _ = run(capsys, "stats", "--since", "2d", "--provider", "Brave", "--format", "json")
    answered = datetime.now(timezone.utc)
    document = json.loads(out)
    assert code == 0 and document["provider"] == "brave" and document["searches"] == 2
    assert [p["provider"] for p in document["providers"]] == ["brave"]
    assert document["providers"][0]["failed"] == 0  # the failure was 10 days ago
    since = datetime.fromisoformat(document["since"].replace("Z", "+00:00"))
    # two days before the command ran (NOW is when the module was imported: a busy run is minutes later)
    assert asked - timedelta(days=2, seconds=1) <= since <= answered - timedelta(days=2) + timedelta(seconds=1)
    _, text, _ = run(capsys, "stats", "--since", (NOW + timedelta(days=1) - timedelta(days=40)).date().isoformat())
    assert text.startswith("3 searches since ")


def test_a_period_without_searches_says_so(recorded: Path, capsys) -> None:
    code, out, err = run(capsys, "stats", "--since", "1h", "--provider", "ddgs")
    assert code == 0 and err == "" and out.startswith("No searches that ran ddgs recorded since ")
    assert out.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--since", "yesterday"], "--since must be a duration such as 12h, 30d or 2w, a date such as 2026-11-01"),
        (["--since", "0h"], "empty period"),
        (["--since", "2999-01-01"], "in the future"),
        (["--provider", "bravo"], "unknown provider 'bravo' (did you mean 'brave'?); known ids: ddgs, exa,"),
        (["--provider", "nothing-like-it"], "unknown provider 'nothing-like-it'; known ids: ddgs, exa,"),
        (["--format", "markdown"], "invalid choice: 'markdown'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, recorded: Path, capsys) -> None:
    code, out, err = run(capsys, "stats", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("websearch-tui: error: ") and message in err


def test_without_a_history_file_it_says_so_and_creates_none(history: Path, capsys) -> None:
    code, out, err = run(capsys, "stats")
    assert code == 0 and out == ""
    assert err == f"No history yet: {history} does not exist (every search you run is recorded there).\n"
    code, out, _ = run(capsys, "stats", "--format", "json", "--since", "7d")
    document = json.loads(out)
    assert code == 0 and (document["searches"], document["providers"], document["days"]) == (0, [], [])
    assert document["since"] is not None
    assert not history.exists()


def test_an_unreadable_history_file_is_exit_2(history: Path, capsys) -> None:
    history.mkdir()
    code, _, err = run(capsys, "stats")
    assert code == 2 and err.count("\n") == 1 and f"cannot open the history file {history}" in err


def test_stats_has_help_and_completion(capsys) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["stats", "--help"])
    out = capsys.readouterr().out
    assert ended.value.code == 0 and "--since PERIOD" in out and "unique share" in out and "exit codes:" in out
    code, out, _ = run(capsys, "completion", "bash")
    assert code == 0 and "stats" in out and "--since" in out
