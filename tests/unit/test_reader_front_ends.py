"""Reading a page from the front ends, against pages served on loopback: ``websearch-tui fetch``
(Markdown, text, JSON, ``-o FILE``, the reason on stderr and exit 1), the Python API
(``websearch_tui.fetch`` / ``afetch``), the MCP tool ``fetch_page`` (in parts, read once, errors),
the ``[reader]`` table of ``config.toml``, and the page formats (escaping, markup dropped, secrets
redacted)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

import websearch_tui
from tests.page_server import PageServer, Reply, html_reply
from websearch_tui.cli.main import main
from websearch_tui.core import errors
from websearch_tui.core.pages import DEFAULT_MAX_BYTES, Page, PageError, PageReason, ReaderSettings
from websearch_tui.formats.page import markdown_to_text, page_json, page_markdown, page_text
from websearch_tui.settings.config import ConfigError, parse_config

ARTICLE = (
    "<html><head><title>Tide tables</title><meta name='author' content='Ann Sea'>"
    "<meta property='og:site_name' content='Coast News'></head><body><article><h1>Tide tables</h1>"
    + "<p>High water comes twice a day on most coasts, and <b>tables</b> say when, for every harbour.</p>" * 4
    + "<ul><li>Spring tides</li><li>Neap tides</li></ul>"
    + "<p>Read the <a href='/almanac'>almanac</a> for the year.</p></article></body></html>"
)


@pytest.fixture
def server() -> Iterator[PageServer]:
    with PageServer() as page_server:
        page_server.route("/tides", html_reply(ARTICLE))
        yield page_server


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A config file whose ``[reader]`` allows loopback."""
    path = tmp_path / "config.toml"
    path.write_text('[reader]\nallow_private = ["127.0.0.1"]\ntimeout = 10\n', encoding="utf-8")
    return path


# --- the CLI ----------------------------------------------------------------------------------------


def test_fetch_prints_markdown_by_default(server: PageServer, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fetch", server.url("/tides"), "--config", str(config)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[:5] == ["# Tide tables", "", "Coast News · Ann Sea", "", f"<{server.url('/tides')}>"]
    assert "- Spring tides" in out and f"[almanac]({server.url('/almanac')})" in out


def test_fetch_text_has_no_markup(server: PageServer, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--config", str(config), "fetch", server.url("/tides"), "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Tide tables\nCoast News · Ann Sea\n{server.url('/tides')}\n\n")
    assert "Spring tides" in out and "almanac for the year" in out
    assert not any(mark in out for mark in ("# ", "](", "**", "- Spring"))


def test_fetch_json_to_a_file(server: PageServer, config: Path, tmp_path: Path, capsys) -> None:
    output = tmp_path / "page.json"
    assert main(["fetch", server.url("/tides"), "--format", "json", "-o", str(output), "--config", str(config)]) == 0
    assert capsys.readouterr().out == ""
    document = json.loads(output.read_text(encoding="utf-8"))
    assert {"url", "final_url", "status", "title", "site", "author", "published_date", "text", "word_count"} <= set(
        document
    )
    assert {"truncated", "retrieved_at", "content_sha256"} <= set(document)
    assert (document["title"], document["status"], document["truncated"]) == ("Tide tables", 200, False)
    assert document["retrieved_at"].endswith("Z")


def test_fetch_blocked_exits_1_with_the_reason(server: PageServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fetch", server.url("/tides")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and server.hits == []
    assert captured.err == (
        "websearch-tui: error: blocked: 127.0.0.1 is a loopback address; add it to [reader] allow_private to read it\n"
    )


def test_fetch_failures_name_their_reason(server: PageServer, config: Path, capsys) -> None:
    server.route("/gone", Reply(status=410))
    assert main(["fetch", server.url("/gone"), "--config", str(config)]) == 1
    assert capsys.readouterr().err.startswith("websearch-tui: error: http_status: 127.0.0.1 answered HTTP 410: ")
    assert main(["fetch", "ftp://example.com/", "--config", str(config)]) == 1
    assert "error: bad_url: only http and https" in capsys.readouterr().err


def test_fetch_bad_arguments_exit_2(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fetch", "https://example.com/", "--format", "llm"]) == 2
    assert "invalid choice: 'llm'" in capsys.readouterr().err
    bad = config.with_name("bad.toml")
    bad.write_text("[reader]\nmax_bytes = 10\n", encoding="utf-8")
    assert main(["fetch", "https://example.com/", "--config", str(bad)]) == 2
    assert "[reader] max_bytes must be a whole number of bytes" in capsys.readouterr().err


# --- the Python API -----------------------------------------------------------------------------------


def test_api_fetch_reads_with_the_configs_reader_table(server: PageServer, config: Path) -> None:
    page = websearch_tui.fetch(server.url("/tides"), config=config)
    assert isinstance(page, websearch_tui.Page) and page.title == "Tide tables"
    with pytest.raises(websearch_tui.PageError) as caught:
        websearch_tui.fetch(server.url("/tides"))  # the default config allows no private host
    assert caught.value.reason is PageReason.BLOCKED


async def test_api_afetch_and_fetch_inside_a_loop(server: PageServer, config: Path) -> None:
    page = await websearch_tui.afetch(
        server.url("/tides"), config=parse_config({"reader": {"allow_private": ["127.0.0.1"]}})
    )
    assert page.author == "Ann Sea"
    with pytest.raises(RuntimeError, match="await websearch_tui.afetch"):
        websearch_tui.fetch(server.url("/tides"), config=config)


# --- [reader] in config.toml --------------------------------------------------------------------------


def test_reader_table_defaults_and_values() -> None:
    assert parse_config({}).reader == ReaderSettings((), DEFAULT_MAX_BYTES, 30.0, 86400.0)
    table = {"allow_private": ["127.0.0.1", "intranet.example", "10.0.0.0/8", "[::1]"], "max_bytes": 1_048_576}
    settings = parse_config({"reader": {**table, "timeout": 5, "max_age": 0}}).reader
    assert settings == ReaderSettings(("127.0.0.1", "intranet.example", "10.0.0.0/8", "[::1]"), 1_048_576, 5.0, 0.0)


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({"allow_private": "127.0.0.1"}, "[reader] allow_private must be a list of hosts"),
        ({"allow_private": ["http://intranet/"]}, "'http://intranet/' is not a host name, an IP address or a network"),
        ({"max_bytes": 5.5}, "[reader] max_bytes must be a whole number of bytes from 65,536 to 104,857,600"),
        ({"timeout": 0}, "[reader] timeout must be a number of seconds from 1 to 600"),
        ({"max_age": -1}, "[reader] max_age must be a number of seconds from 0 to 31,536,000"),
        ({"max_agee": 1}, "unknown key 'max_agee' in [reader] (did you mean 'max_age'?)"),
    ],
)
def test_reader_table_errors_name_the_key_and_what_to_do(table: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"reader": table})
    assert words in str(caught.value)


def test_config_show_includes_the_reader_table(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "show", "--format", "json", "--config", str(config)]) == 0
    reader = json.loads(capsys.readouterr().out)["reader"]
    assert reader == {
        "allow_private": ["127.0.0.1"],
        "max_bytes": DEFAULT_MAX_BYTES,
        "timeout": 10.0,
        "max_age": 86400.0,
    }


def test_config_example_documents_the_reader_table() -> None:
    import tomllib

    example = Path(__file__).resolve().parents[2] / "config.example.toml"
    assert parse_config(tomllib.loads(example.read_text(encoding="utf-8"))).reader == ReaderSettings()


# --- the formats ----------------------------------------------------------------------------------------


def a_page(**fields: object) -> Page:
    values: dict[str, object] = {
        "url": "https://example.com/a",
        "final_url": "https://example.com/a",
        "status": 200,
        "title": "Title",
        "site": "Site",
        "author": None,
        "published_date": "2024-05-01",
        "text": "Body",
        "word_count": 1,
        "truncated": False,
        "retrieved_at": datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=timezone.utc),
        "content_sha256": "0" * 64,
        "content_type": "text/html",
    }
    return Page(**{**values, **fields})  # type: ignore[arg-type]


def test_page_fields_cannot_act_as_markdown() -> None:
    page = a_page(title="# [click](javascript:x) <b>", site="*Site*")
    out = page_markdown(page)
    assert out.startswith("# \\# \\[click\\](javascript:x) \\<b>\n\n\\*Site\\* · 2024-05-01\n")


def test_secrets_are_redacted_in_every_format() -> None:
    errors.register_secret("sk-live-secret-value")  # the conftest forgets it after the test
    page = a_page(text="the key sk-live-secret-value leaked", title="sk-live-secret-value")
    for rendered in (page_markdown(page), page_text(page), page_json(page)):
        assert "sk-live-secret-value" not in rendered and "***" in rendered


def test_to_dict_retrieved_at_is_utc_with_z() -> None:
    assert a_page().to_dict()["retrieved_at"] == "2026-01-02T03:04:05Z"


def test_markdown_to_text() -> None:
    markdown = "# Head\n\nA **bold** [link](https://x.org) and `code`.\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- item"
    assert markdown_to_text(markdown) == "Head\n\nA bold link and code.\n\na  b\n1  2\n\nitem"


def test_page_error_line_starts_with_its_reason() -> None:
    assert PageError("timeout", "x did not answer").line == "timeout: x did not answer"
    assert PageError("blocked", "blocked: 10.0.0.5 is private").line == "blocked: 10.0.0.5 is private"
    assert PageError("network", "\x1b[31mred\x1b[0m" + "x" * 5000).message.startswith("redx")
    assert len(PageError("network", "x" * 5000).message) == 1000


# --- the MCP tool ---------------------------------------------------------------------------------------


def mcp_tools(allow: tuple[str, ...] = ("127.0.0.1",), max_age: float = 86400.0) -> Any:
    """The MCP server's tools over a session whose ``[reader]`` allows ``allow``."""
    from websearch_tui.engine.engine import Engine
    from websearch_tui.mcp.tools import SearchTools
    from websearch_tui.session import Session

    config = parse_config({"reader": {"allow_private": list(allow), "max_age": max_age}})
    return SearchTools(Session(config, Engine()))


async def no_progress(done: float, total: float | None, message: str | None) -> None:
    """Progress goes nowhere."""


LONG = (
    "<html><head><title>Long read</title></head><body><article><h1>Long read</h1>"
    + "".join(
        f"<p>Paragraph {n} of a long article, with words enough to make it worth reading in parts.</p>"
        for n in range(300)
    )
    + "</article></body></html>"
)


async def test_fetch_page_pages_through_a_long_page_reading_it_once(server: PageServer) -> None:
    server.route("/long", html_reply(LONG))
    tools = mcp_tools()
    try:
        parts, start = [], 0
        while start is not None:
            result = await tools.call(
                "fetch_page", {"url": server.url("/long"), "start": start, "max_chars": 5000}, no_progress
            )
            assert not result.is_error, result.content[0].text
            document = result.structured_content
            parts.append(document["text"])
            assert document["start"] == start and len(document["text"]) <= 5000
            start = document["next_start"]
    finally:
        await tools.aclose()
    whole = "".join(parts)
    assert whole.startswith("# Long read") and whole.endswith("worth reading in parts.")
    assert len(whole) == document["total_chars"] and len(parts) >= 5
    assert all(part.endswith(("\n", " ")) for part in parts[:-1])  # cut between paragraphs or words
    assert server.hits == ["/long"]
    text = result.content[0].text
    assert text.startswith("# Long read\n\n") and f"<{server.url('/long')}>" in text
    assert text.endswith(f"of {len(whole):,}; the end.")
    assert {"title", "final_url", "word_count", "retrieved_at", "content_sha256"} <= set(document)


async def test_fetch_page_short_page_and_errors(server: PageServer) -> None:
    tools = mcp_tools()
    try:
        whole = await tools.call("fetch_page", {"url": server.url("/tides")}, no_progress)
        assert whole.structured_content["next_start"] is None and whole.structured_content["start"] == 0
        assert whole.content[0].text.endswith(
            f"The whole text: {whole.structured_content['total_chars']:,} characters."
        )
        past = await tools.call("fetch_page", {"url": server.url("/tides"), "start": 10**6}, no_progress)
        assert past.is_error and "is past the end of the text" in past.content[0].text
        for arguments, words in (
            ({}, "url is required"),
            ({"url": "x", "page": 2}, "fetch_page takes url, start and max_chars (got 'page')"),
            ({"url": "x", "start": -1}, "start must be 0 or more"),
            ({"url": "x", "max_chars": 10}, "max_chars from 500 to 100,000"),
            ({"url": "x", "start": "2"}, "start must be a whole number"),
            ({"url": "ftp://x/"}, "bad_url: only http and https"),
        ):
            result = await tools.call("fetch_page", arguments, no_progress)
            assert result.is_error and words in result.content[0].text, (arguments, result.content[0].text)
    finally:
        await tools.aclose()
    blocked_tools = mcp_tools(allow=())
    try:
        result = await blocked_tools.call("fetch_page", {"url": server.url("/tides")}, no_progress)
    finally:
        await blocked_tools.aclose()
    assert result.is_error and result.content[0].text.startswith("blocked: 127.0.0.1 is a loopback address")


async def test_fetch_page_reads_again_when_its_copy_is_stale(server: PageServer) -> None:
    tools = mcp_tools(max_age=0)
    try:
        for _ in range(2):
            result = await tools.call("fetch_page", {"url": server.url("/tides")}, no_progress)
            assert not result.is_error
    finally:
        await tools.aclose()
    assert server.hits == ["/tides", "/tides"]
