"""CLI conventions: --help (examples, environment, exit codes), shell completion, the query from
stdin, ``-o FILE``, the stderr progress line, ``--format`` everywhere, and what a cancelled provider
prints. No network: providers are faked in process."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import signal
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.helpers import three_cli_providers
from websearch_tui import cli
from websearch_tui.cli import main
from websearch_tui.core.models import SearchRequest, Source, SourcesFound
from websearch_tui.providers import SPECS
from websearch_tui.providers.base import ProviderContext
from websearch_tui.search import engine as engine_module

SUBCOMMANDS = ("search", "providers", "tui", "keys", "config", "mcp", "completion")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """brave answers (a two-line snippet), tavily fails, exa is empty; the queries brave received."""
    return three_cli_providers(monkeypatch, Source("https://a.example/x", "Alpha", snippet="first\nsecond"))


class Terminal(io.StringIO):
    """A captured stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


# --- --help ---------------------------------------------------------------------------------


def help_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


def test_help_shows_examples_environment_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text([], capsys)
    for section in ("examples:", "environment:", "exit codes:"):
        assert f"\n{section}\n" in text
    for name, _ in cli.ENVIRONMENT:
        assert f"\n  {name} " in text
    for spec in SPECS.values():
        for credential in spec.credentials:
            assert all(name in text for name in credential.env_vars)
    assert "\n  130  interrupted" in text and "\n  2    bad arguments" in text
    search = help_text(["search"], capsys)
    assert "examples:" in search and "formats:" in search and "exit codes:" in search
    assert "a lone - reads it from stdin" in search
    assert ", ".join(SPECS) in " ".join(search.split())  # -p lists every provider id


def test_the_environment_section_names_the_variables_the_code_reads() -> None:
    from websearch_tui import config, credentials, logs, mcp_server

    names = [name for name, _ in cli.ENVIRONMENT]
    assert {config.CONFIG_ENV, credentials.KEY_FILE_ENV, logs.LOG_ENV, mcp_server.TOKEN_ENV} <= set(names)
    assert set(config._ENDPOINT_ENV.values()) <= set(names)


def test_providers_help_explains_the_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text(["providers"], capsys)
    assert "\n  web    search engine" in text and "\n  agent  search API" in text and "\n  model  model-native" in text


# --- completion -----------------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_know_the_subcommands_and_provider_ids(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    assert all(command in script for command in SUBCOMMANDS)
    assert all(provider_id in script for provider_id in SPECS)
    assert "--format" in script and "--output" in script


def test_bash_completion_completes_provider_ids_and_subcommands(tmp_path: Path, capsys) -> None:
    assert main(["completion", "bash"]) == 0
    script = tmp_path / "completion.bash"
    script.write_text(capsys.readouterr().out)

    def complete(*words: str) -> list[str]:
        line = " ".join(["websearch-tui", *words])
        command = (
            f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words)}; COMP_LINE='{line}'; "
            f"COMP_POINT=${{#COMP_LINE}}; _shtab_websearch_tui; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        )
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("search", "-p", "perp") == ["perplexity", "perplexity_search"]
    assert complete("keys", "set", "zhipu") == ["zhipu_web_search", "zhipu_chat_search"]
    assert "completion" in complete("c") and "config" in complete("c")
    assert complete("providers", "--format", "") == ["text", "json"]


def test_completion_rejects_an_unknown_shell(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "csh"]) == 2
    assert "invalid choice: 'csh'" in capsys.readouterr().err


# --- the query from stdin -------------------------------------------------------------------


def test_a_lone_dash_reads_the_query_from_stdin(
    calls: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("rust 1.80\nrelease notes\n"))
    assert main(["search", "-", "-p", "brave", "--format", "json"]) == 0
    assert calls == ["rust 1.80\nrelease notes"]
    assert json.loads(capsys.readouterr().out)["query"] == "rust 1.80\nrelease notes"


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (io.StringIO("   \n"), "the query on stdin is empty; pipe the question in, or give it as an argument"),
        (io.TextIOWrapper(io.BytesIO(b"caf\xff"), encoding="utf-8"), "the query on stdin is not valid text"),
        (io.StringIO("x" * 16_001), "the query on stdin is longer than 4000 characters"),
        (io.StringIO(" " * 100 + "x" * 4001), "query is 4001 characters; the limit is 4000"),
    ],
)
def test_a_bad_query_on_stdin_is_a_usage_error(
    calls: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin, message: str
) -> None:
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["search", "-", "-p", "brave"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert calls == []


def test_a_dash_among_words_is_a_word(calls: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "c", "-", "d", "-p", "brave", "--format", "json"]) == 0
    assert calls == ["c - d"]


# --- -o FILE --------------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["text", "json", "markdown", "llm"])
def test_output_file_gets_exactly_what_stdout_would(
    calls: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], output_format: str
) -> None:
    argv = ["search", "hello", "-p", "brave", "--format", output_format]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "out.txt"
    assert main([*argv, "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    written = target.read_text(encoding="utf-8")
    if output_format == "json":  # elapsed times may differ between the two runs
        assert (
            json.loads(written)["results"][0]["response"]["sources"]
            == json.loads(printed)["results"][0]["response"]["sources"]
        )
    else:
        untimed = re.compile(r"\d+\\?\.\ds")  # "0.1s", in Markdown "0\.1s"
        assert untimed.sub("Ns", written) == untimed.sub("Ns", printed)
    assert os.listdir(tmp_path / "out") == ["out.txt"]  # no temp file left


def test_output_replaces_a_file_whole_and_keeps_its_mode(calls: list[str], tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.write_text("old report\n" * 1000)
    os.chmod(target, 0o640)
    link = tmp_path / "latest.md"
    link.symlink_to(target)
    assert main(["search", "hello", "-p", "brave", "--format", "markdown", "-o", str(link)]) == 0
    assert link.is_symlink() and target.read_text().startswith("# hello\n") and "old report" not in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_output_is_left_alone_when_there_is_nothing_to_write(
    calls: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "report.txt"
    target.write_text("the last good report\n")
    assert main(["search", "hello", "-p", "tavily", "-o", str(target)]) == 1
    assert target.read_text() == "the last good report\n"
    assert "Tavily API error (429): slow down" in capsys.readouterr().err


def test_a_failed_write_changes_nothing(
    calls: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "report.txt"
    target.write_text("before\n")

    def full_disk(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    assert main(["search", "hello", "-p", "brave", "-o", str(target)]) == 1
    assert target.read_text() == "before\n"
    assert [name for name in os.listdir(tmp_path) if "report" in name] == ["report.txt"]  # no temp file left
    assert capsys.readouterr().err == (
        f"websearch-tui: error: cannot write the output: {target}: No space left on device; nothing was written\n"
    )


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("missing/out.txt", "the directory {tmp}/missing does not exist; create it or name another"),
        (".", "that is a directory; name a file"),
    ],
)
def test_a_bad_output_path_is_refused_before_searching(
    calls: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, message: str
) -> None:
    assert main(["search", "hello", "-p", "brave", "-o", str(tmp_path / where)]) == 2
    assert message.format(tmp=tmp_path) in capsys.readouterr().err
    assert calls == []  # nothing ran


# --- the progress line ----------------------------------------------------------------------


def test_progress_line_on_a_terminal_counts_finished_providers_and_is_cleared(
    calls: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["search", "hello", "-p", "brave", "-p", "exa", "--format", "json"]) == 0
    written = terminal.getvalue()
    frames = written.split("\r")
    assert "0/2 done · waiting for Brave Search, Exa" in frames
    assert any(frame.startswith("1/2 done · waiting for ") for frame in frames)
    assert "2/2 done" in [frame.rstrip() for frame in frames]
    assert frames[-1] == "" and frames[-2].strip() == ""  # cleared: blanks, then back to the start
    assert json.loads(capsys.readouterr().out)["query"] == "hello"  # stdout untouched


def test_no_progress_line_when_stderr_is_not_a_terminal(
    calls: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "hello", "-p", "brave", "--format", "json"]) == 0
    assert capsys.readouterr().err == ""


def test_progress_line_fits_the_terminal_width() -> None:
    from websearch_tui.core.results import SearchResult

    providers = tuple(SPECS)
    result = SearchResult(
        SearchRequest("q"), "compare", providers=providers, labels={pid: SPECS[pid].label for pid in providers}
    )
    progress = cli.Progress(result, Terminal(), width=40)
    assert progress.text() == "0/24 done · waiting for DuckDuckGo, Ex…"
    assert len(progress.text()) == 39


# --- --format everywhere --------------------------------------------------------------------


def test_providers_takes_format_and_keeps_json_as_an_alias(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["providers", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert main(["providers", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == rows
    assert {row["kind"] for row in rows} == {"web", "agent", "model"}
    assert main(["providers", "--format", "text"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[1].split()[:3] == ["ddgs", "DuckDuckGo", "web"]


def test_keys_list_and_config_show_take_format_json(
    memory_keyring, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    memory_keyring.set_password("websearch-tui", "tavily:api_key", "tavily-secret-value-2")
    assert main(["keys", "list", "--format", "json"]) == 0
    out = capsys.readouterr().out
    document = json.loads(out)
    assert "secret-value" not in out
    rows = {(row["provider"], row["credential"]): row["stored"] for row in document["credentials"]}
    assert rows[("tavily", "api_key")] == "keyring" and rows[("brave", "api_key")] == "not set"
    assert set(document) == {"credentials", "keyring", "key_file"}
    assert main(["config", "show", "--format", "json"]) == 0
    settings = json.loads(capsys.readouterr().out)
    assert settings["search"]["providers"] == ["ddgs", "exa", "parallel"]
    assert set(settings["providers"]) == set(SPECS)
    assert main(["config", "show", "--format", "toml"]) == 0
    assert "[search]" in capsys.readouterr().out


# --- a cancelled provider -------------------------------------------------------------------


def test_ctrl_c_prints_cancelled_providers_as_such_in_the_llm_format(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    brave_done = asyncio.Event()

    async def brave(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield SourcesFound((Source("https://a.example/x", "Alpha"),))
        brave_done.set()

    async def tavily(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        await brave_done.wait()
        for _ in range(50):  # let the engine record brave's outcome
            await asyncio.sleep(0)
        signal.raise_signal(signal.SIGINT)  # Ctrl+C: asyncio.run cancels the search
        await asyncio.Event().wait()
        yield  # pragma: no cover

    fakes = {"brave": brave, "tavily": tavily}
    monkeypatch.setattr(engine_module, "load_stream", lambda pid: fakes[pid])
    assert main(["search", "hello", "-p", "brave", "-p", "tavily", "--format", "llm"]) == 130
    out = capsys.readouterr().out
    assert out.startswith("# Brave Search (brave)\n[1] Alpha\n    https://a.example/x\n\n")
    assert out.endswith("# Tavily (tavily)\nNote: Cancelled before it finished.\n")


# --- outputs through the CLI ----------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["text", "llm"])
def test_a_multi_line_snippet_stays_indented(
    calls: list[str], capsys: pytest.CaptureFixture[str], output_format: str
) -> None:
    assert main(["search", "hello", "-p", "brave", "--format", output_format]) == 0
    assert "[1] Alpha\n    https://a.example/x\n    first\n    second\n" in capsys.readouterr().out
