"""CLI ``history`` commands and ``search --no-history`` (no network: fake provider streams)."""

from __future__ import annotations

import io
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.helpers import sample_result
from websearch_tui.cli.main import main
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, SearchRequest, Source, SourcesFound
from websearch_tui.engine import engine as engine_module
from websearch_tui.history import HistoryStore
from websearch_tui.providers.base import ProviderContext


@pytest.fixture
def history() -> Path:
    """The history file the tests use ($WEBSEARCH_TUI_HISTORY, see tests/conftest.py)."""
    return Path(os.environ["WEBSEARCH_TUI_HISTORY"])


@pytest.fixture
def fake_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    """brave answers with a source and an escape sequence in its title, tavily fails."""

    async def brave(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield AnswerDelta(f"Answer about {request.query}.")
        yield SourcesFound((Source("https://a.example/x", "Alpha \x1b[31mred\x1b[0m", snippet="snip"),))

    async def tavily(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        raise ProviderError("tavily", ErrorKind.RATE_LIMIT, "Tavily API error (429): slow down", status=429)
        yield  # pragma: no cover

    fakes = {"brave": brave, "tavily": tavily}
    monkeypatch.setattr(engine_module, "load_stream", lambda pid: fakes[pid])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_search_is_recorded_and_shows_again_exactly_as_it_printed(fake_providers, history, capsys) -> None:
    printed = {}
    for output_format in ("json", "markdown", "llm", "text"):
        code, out, _ = run(capsys, "search", "asyncio tips", "-p", "brave", "-p", "tavily", "--format", output_format)
        assert code == 0
        printed[output_format] = out
    code, out, _ = run(capsys, "history", "list", "--format", "json")
    entries = json.loads(out)
    assert [e["id"] for e in entries] == [4, 3, 2, 1]
    assert entries[0]["query"] == "asyncio tips" and entries[0]["providers"] == ["brave", "tavily"]
    assert entries[0]["counts"] == {"done": 1, "empty": 0, "failed": 1, "cancelled": 0, "skipped": 0}
    assert entries[0]["created_at"].endswith("Z") and "T" in entries[0]["created_at"]
    for entry_id, output_format in enumerate(("json", "markdown", "llm", "text"), 1):
        code, shown, _ = run(capsys, "history", "show", str(entry_id), "--format", output_format)
        assert (code, shown) == (0, printed[output_format])  # byte for byte, timings included
    assert "\x1b" not in shown


def test_a_search_while_another_process_holds_the_history_says_it_was_not_recorded(
    fake_providers, history, capsys
) -> None:
    import sqlite3

    HistoryStore(history).close()
    holder = sqlite3.connect(history, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        code, out, err = run(capsys, "search", "asyncio tips", "-p", "brave", "--format", "json")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 0 and json.loads(out)["query"] == "asyncio tips"
    assert (
        f"websearch-tui: warning: A search was not recorded in the history: the history file {history} is locked" in err
    )


def test_show_writes_a_file_atomically(tmp_path: Path, history: Path, capsys) -> None:
    store = HistoryStore(history)
    entry_id = store.add(sample_result())
    store.close()
    target = tmp_path / "out" / "report.md"
    target.parent.mkdir()
    code, out, err = run(capsys, "history", "show", str(entry_id), "--format", "markdown", "-o", str(target))
    assert code == 0 and out == "" and str(target) in err
    assert (
        target.read_text(encoding="utf-8") == run(capsys, "history", "show", str(entry_id), "--format", "markdown")[1]
    )
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_paths_in_history_messages_are_plain_text(tmp_path: Path, history: Path, capsys) -> None:
    store = HistoryStore(history)
    entry_id = store.add(sample_result())
    store.close()
    target = tmp_path / "a\x1b]0;pwned\x07\nforged" / "report.md"
    target.parent.mkdir()
    code, _, err = run(capsys, "history", "show", str(entry_id), "-o", str(target))
    assert code == 0 and target.exists()
    assert err.count("\n") == 1 and "\x1b" not in err and "\x07" not in err
    assert "/a forged/report.md." in err  # the escape sequence gone, the line break a space: one plain line


def test_no_history_records_nothing(fake_providers, history, capsys) -> None:
    assert run(capsys, "search", "secret plans", "-p", "brave", "--no-history")[0] == 0
    assert not history.exists() or HistoryStore(history).count() == 0


def test_history_disabled_in_config_records_nothing(fake_providers, history, tmp_path, capsys) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[history]\nenabled = false\n")
    assert run(capsys, "search", "q", "-p", "brave", "--config", str(config))[0] == 0
    assert not history.exists()


def test_list_and_search_as_text(history: Path, capsys) -> None:
    store = HistoryStore(history)
    store.add(sample_result("python asyncio tutorial"))
    store.add(sample_result("rust\nrelease   notes", answer="LazyCell is stable."))
    store.add(sample_result("异步编程教程"))
    store.close()
    code, out, _ = run(capsys, "history", "list")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["ID", "WHEN", "QUERY", "PROVIDERS", "OUTCOMES"]
    assert lines[2].startswith("2 ") and "rust release notes" in lines[2] and "1 done, 1 failed" in lines[2]
    code, out, _ = run(capsys, "history", "search", "lazycell")
    assert code == 0 and len(out.splitlines()) == 2 and "rust release notes" in out
    code, out, _ = run(capsys, "history", "search", "编程", "--format", "json")
    assert [e["query"] for e in json.loads(out)] == ["异步编程教程"]
    assert run(capsys, "history", "list", "--limit", "1", "--format", "json")[1].count('"id"') == 1


def test_delete_and_clear(history: Path, capsys, monkeypatch) -> None:
    store = HistoryStore(history)
    first = store.add(sample_result("one"))
    store.add(sample_result("two"))
    store.close()
    assert run(capsys, "history", "delete", str(first)) == (0, f"Deleted search {first}.\n", "")
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, _, err = run(capsys, "history", "clear")
    assert code == 1 and "Delete all 1 searches" in err and "Nothing was deleted." in err
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert run(capsys, "history", "clear")[:2] == (0, "Deleted 1 searches.\n")
    assert HistoryStore(history).count() == 0
    assert run(capsys, "history", "clear", "--yes")[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["history", "show", "42"], "no search with id 42"),
        (["history", "delete", "42"], "no search with id 42"),
        (["history", "show", str(2**63)], f"no search with id {2**63}"),  # more than SQLite holds
        (["history", "delete", str(2**70)], f"no search with id {2**70}"),
        (["history", "show", "abc"], "must be a search id from `websearch-tui history list`"),
        (["history", "show", "0"], "must be a search id"),
        (["history", "search", "  "], "nothing to search for in '  ': give at least one word or number"),
        (["history", "search", '"*"'], "nothing to search for"),
        (["history", "list", "--limit", "0"], "must be a whole number of 1 or more"),
        (["history", "show", "1", "--merged"], "--merged goes with --format llm"),
        (["history"], "the following arguments are required"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, history: Path, capsys) -> None:
    HistoryStore(history).close()
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and err.startswith("websearch-tui: error: ") and message in err


def test_an_unreadable_history_file_is_exit_2(history: Path, capsys) -> None:
    history.mkdir()
    code, _, err = run(capsys, "history", "list")
    assert code == 2 and err.count("\n") == 1 and f"cannot open the history file {history}" in err


def test_a_damaged_file_is_moved_aside_with_a_warning(history: Path, capsys) -> None:
    history.write_bytes(b"garbage" * 100)
    code, out, err = run(capsys, "history", "list", "--format", "json")
    assert code == 0 and json.loads(out) == []
    assert "websearch-tui: warning: The history file" in err and ".damaged-" in err
    assert list(history.parent.glob("history.sqlite3.damaged-*"))


def test_reading_never_creates_the_file(history: Path, capsys) -> None:
    assert run(capsys, "history", "list", "--format", "json")[:2] == (0, "[]\n")
    assert run(capsys, "history", "search", "anything")[0] == 0
    assert not history.exists()


def test_config_show_includes_the_history_table(history: Path, capsys) -> None:
    code, out, _ = run(capsys, "config", "show")
    assert code == 0 and "[history]" in out and "enabled = true" in out and "max_entries = 10000" in out
    assert f'path = "{history}"' in out


def test_search_of_many_words_says_which_were_left_out(history: Path, capsys) -> None:
    store = HistoryStore(history)
    wanted = store.add(sample_result("w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 tulip"))
    store.close()
    words = [f"w{n}" for n in range(1, 13)]  # w11 and w12 are in no search: they are left out
    code, out, err = run(capsys, "history", "search", *words, "--format", "json")
    assert code == 0 and [entry["id"] for entry in json.loads(out)] == [wanted]
    assert "websearch-tui: warning: only the first 10 words were searched; 2 more were left out" in err
