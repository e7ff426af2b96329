"""The pure pieces around the history: the full-text index text and queries, the session trail, the
remembered controls and the export file names."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.helpers import sample_result
from websearch_tui.history import history_path
from websearch_tui.history.index import index_body, index_form, match_expression
from websearch_tui.session.trail import SessionTrail, Shown
from websearch_tui.tui.common.remembered import Controls, load_controls, save_controls, state_path
from websearch_tui.tui.search.export import default_export_path, export_text

WHEN = datetime(2026, 5, 1, 14, 3, 5, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("typed", "expression"),
    [
        ("asyncio tutorial", '"asyncio"* "tutorial"*'),
        ("a be", '"a" "be"'),  # one or two letters: whole words (short prefixes match most of the index)
        ('C++ "NEAR" OR (x) -y', '"C" "NEAR"* "OR" "x" "y"'),
        ("异步编程", '"异 步 编 程"'),
        ("Python异步 3.12", '"Python"* "异 步" "3" "12"'),
        ("asyncio asyncio", '"asyncio"*'),
        ("  --  ", None),
        ("", None),
    ],
)
def test_typed_text_becomes_a_safe_match_expression(typed: str, expression: str | None) -> None:
    assert match_expression(typed) == expression


def test_cjk_characters_are_indexed_one_by_one() -> None:
    assert index_form("学习Python异步 ok") == " 学 习 Python 异 步  ok"
    assert index_form("plain text") == "plain text"


def test_the_indexed_body_holds_each_answer_title_snippet_and_url_once() -> None:
    records = [
        {"response": {"answer": "An answer", "sources": [{"title": "T", "snippet": "S", "url": "https://u/"}]}},
        {"response": {"answer": " ", "sources": [{"title": "T", "snippet": None, "url": "https://u/"}]}},
        {"response": None},
    ]
    assert index_body(records) == "An answer\nT\nS\nhttps://u/"


def test_history_path_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("WEBSEARCH_TUI_HISTORY", str(tmp_path / "env.sqlite3"))
    assert history_path("~/configured.sqlite3") == tmp_path / "env.sqlite3"
    monkeypatch.delenv("WEBSEARCH_TUI_HISTORY")
    assert history_path("~/configured.sqlite3") == Path.home() / "configured.sqlite3"
    assert history_path(None).name == "history.sqlite3"


def shown(query: str) -> Shown:
    return Shown(sample_result(query), WHEN)


def test_the_trail_goes_back_and_forward_like_a_browser() -> None:
    trail = SessionTrail(limit=3)
    assert trail.current is None and trail.back() is None
    for query in ("one", "two", "three"):
        trail.push(shown(query))
    assert trail.position == (3, 3) and trail.forward() is None
    assert trail.back().result.request.query == "two"
    assert trail.back().result.request.query == "one"
    assert trail.back() is None and trail.position == (1, 3)
    trail.push(shown("branch"))  # a new search after going back drops what was ahead
    assert [trail.back().result.request.query, trail.forward().result.request.query] == ["one", "branch"]
    for query in ("x", "y"):
        trail.push(shown(query))
    assert trail.position == (3, 3)  # the limit: the oldest were dropped
    assert trail.back().result.request.query == "x" and trail.back().result.request.query == "branch"


def test_remembered_controls_round_trip_and_bad_files_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "state.json"
    assert load_controls(path) is None
    controls = Controls(("ddgs", "brave"), "auto", "week", 7)
    save_controls(controls, path)
    assert load_controls(path) == controls
    for bad in ("not json", "[]", json.dumps({"providers": "ddgs", "mode": "auto", "recency": None, "max_results": 3})):
        path.write_text(bad)
        assert load_controls(path) is None
    path.write_text(json.dumps({"providers": [], "mode": "auto", "recency": None, "max_results": 99}))
    assert load_controls(path) is None
    assert state_path().name == "state.json"


def test_a_failed_save_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    save_controls(Controls((), "compare", None, 10), blocker / "state.json")  # logged, not raised


def test_export_file_names_and_text() -> None:
    folder = Path("/tmp/exports")
    local = WHEN.astimezone().strftime("%Y%m%d-%H%M%S")
    assert (
        default_export_path("Rust 1.80: what's new?", WHEN, "markdown", folder)
        == folder / f"rust-1-80-what-s-new-{local}.md"
    )
    assert default_export_path("异步编程", WHEN, "json", folder) == folder / f"异步编程-{local}.json"
    assert default_export_path("???", WHEN, "json", folder).name == f"search-{local}.json"
    result = sample_result()
    assert export_text(result, "json").endswith("}\n") and json.loads(export_text(result, "json"))["query"]
    assert export_text(result, "markdown").startswith("# python asyncio tutorial\n")


def test_provider_labels_are_fitted_to_their_column() -> None:
    from websearch_tui.tui.history.rows import fit_labels

    labels = ["DuckDuckGo", "Exa", "Brave Search", "Perplexity"]
    assert fit_labels(labels, 60) == "DuckDuckGo, Exa, Brave Search, Perplexity"
    assert fit_labels(labels, 20) == "DuckDuckGo, Exa +2"
    assert fit_labels(labels, 8) == "4 providers"
