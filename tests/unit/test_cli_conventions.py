"""CLI conventions: --help (examples, environment, exit codes), shell completion, the query from
stdin, ``-o FILE``, the stderr progress line, ``--format`` everywhere, and what a cancelled provider
prints. No network: providers are faked in process."""

from __future__ import annotations

import argparse
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
from websearch_tui.cli.commands.history import HISTORY_PROVIDER_CELLS
from websearch_tui.cli.commands.search import Progress, streams_answer
from websearch_tui.cli.main import implied_search, main
from websearch_tui.cli.parser import COMMANDS, ENVIRONMENT, build_parser, command_named
from websearch_tui.cli.render import use_color
from websearch_tui.core.catalogue import DEFAULT_PROVIDERS, SPECS
from websearch_tui.core.models import AnswerDelta, SearchRequest, Source, SourcesFound
from websearch_tui.engine import engine as engine_module
from websearch_tui.providers.base import ProviderContext
from websearch_tui.session import LiveSearch

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
    for name, _ in ENVIRONMENT:
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
    from websearch_tui.core import logs
    from websearch_tui.mcp import server as mcp_server
    from websearch_tui.secrets import credentials
    from websearch_tui.settings import config

    names = [name for name, _ in ENVIRONMENT]
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
    assert main([*argv, "--fresh", "-o", str(target)]) == 0  # fresh: not the first run's result reused
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


def read_all(fd: int) -> bytes:
    """Everything left to read from the pipe or FIFO ``fd`` (its writers closed), closing it."""
    os.set_blocking(fd, True)
    with open(fd, "rb") as reader:
        return reader.read()


def test_output_to_a_fifo_writes_into_it(calls: list[str], tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader is there before the search ends
    assert main(["search", "hello", "-p", "brave", "--format", "markdown", "-o", str(fifo)]) == 0
    assert read_all(reader).startswith(b"# hello\n")
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # still the FIFO, not a file put in its place


def test_output_to_dev_stdout_writes_into_the_pipe_it_is(calls: list[str]) -> None:
    read_end, write_end = os.pipe()
    saved = os.dup(1)
    os.dup2(write_end, 1)
    os.close(write_end)
    try:
        code = main(["search", "hello", "-p", "brave", "--format", "markdown", "-o", "/dev/stdout"])
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    assert code == 0 and read_all(read_end).startswith(b"# hello\n")


def test_output_to_a_socket_is_refused_before_searching(
    calls: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        assert main(["search", "hello", "-p", "brave", "-o", str(path)]) == 2
    assert "that is a socket; name a file, a FIFO or a terminal" in capsys.readouterr().err
    assert calls == []  # nothing ran


ESCAPED = "\x1b]0;title\x07\x1b[31mred\x9b1m\nwebsearch-tui: error: forged"
"""A path part with an OSC title, a colour, a C1 CSI and a line break that would forge a second line."""


@pytest.mark.parametrize(
    "argv",
    [
        ["config", "validate", "--config", f"/nonexistent/{ESCAPED}.toml"],
        ["search", "hello", "-p", "brave", "-o", f"/nonexistent/{ESCAPED}/out.md"],
        ["fetch", "https://a.example/", "-o", f"/nonexistent/{ESCAPED}/out.md"],
    ],
    ids=["config", "search -o", "fetch -o"],
)
def test_a_path_in_an_error_line_is_plain_text(
    calls: list[str], argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("websearch-tui: error: ")
    assert "/nonexistent/red websearch-tui: error: forged" in err
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", err)


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
    progress = Progress(LiveSearch(result), Terminal(), width=40)
    assert progress.text() == f"0/{len(providers)} done · waiting for DuckDuckGo, Ex…"
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
    assert settings["search"]["providers"] == list(DEFAULT_PROVIDERS)
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
    assert out.startswith("# Brave Search (brave) · ≈ $0.005\n[1] Alpha\n    https://a.example/x\n\n")
    assert out.endswith("# Tavily (tavily)\nNote: Cancelled before it finished.\n\nCost: ≈ $0.005\n")


# --- outputs through the CLI ----------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["text", "llm"])
def test_a_multi_line_snippet_stays_indented(
    calls: list[str], capsys: pytest.CaptureFixture[str], output_format: str
) -> None:
    assert main(["search", "hello", "-p", "brave", "--format", output_format]) == 0
    assert "[1] Alpha\n    https://a.example/x\n    first\n    second\n" in capsys.readouterr().out


# --- conventions of gh, llm and ddgr users (issue 29, item 11) --------------------------------


@pytest.fixture
def requests_seen(monkeypatch: pytest.MonkeyPatch) -> list[SearchRequest]:
    """brave streams a three-piece answer (one piece with an escape sequence) and one source, exa and
    tavily each one source; the requests each provider received, in order."""
    seen: list[SearchRequest] = []

    def fake(pid: str):
        async def stream(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
            seen.append(request)
            if pid == "brave":
                for piece in ("\n Rust 1.80 ", "\x1b[31mstabilised\x1b[0m ", "LazyLock [1]."):
                    yield AnswerDelta(piece)
            yield SourcesFound((Source(f"https://{pid}.example/x", f"{pid.title()} page", snippet="a snippet"),))

        return stream

    monkeypatch.setattr(engine_module, "load_stream", fake)
    return seen


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def providers_of(out: str) -> list[str]:
    return [row["provider"] for row in json.loads(out)["results"]]


def test_search_takes_json_like_providers(requests_seen, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "search", "hello", "-p", "exa", "--json")
    assert code == 0 and providers_of(out) == ["exa"] and json.loads(out)["query"] == "hello"
    assert "--json" in help_text(["search"], capsys)


def test_provider_ids_may_be_separated_by_commas_and_repeated(requests_seen, capsys) -> None:
    code, out, _ = run_main(capsys, "search", "hello", "-p", "brave,tavily", "-p", " exa , brave", "--json")
    assert code == 0 and providers_of(out) == ["brave", "tavily", "exa"]
    code, _, err = run_main(capsys, "search", "hello", "-p", "brave,bravo")
    assert code == 2 and err == "websearch-tui: error: unknown provider 'bravo' (did you mean 'brave'?)\n"
    code, _, err = run_main(capsys, "search", "hello", "-p", ",")
    assert code == 2 and "-p ',' names no provider" in err
    assert requests_seen and all(r.query == "hello" for r in requests_seen)


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_preset_selects_its_providers_and_adds_to_p(requests_seen, tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path, '[presets]\nquick = ["exa", "brave"]\ndeep = ["tavily"]\n')
    code, out, _ = run_main(capsys, "search", "hello", "--preset", "quick", "--json", "--config", str(config))
    assert code == 0 and providers_of(out) == ["exa", "brave"]
    code, out, _ = run_main(
        capsys, "search", "hello", "--preset", "quick", "-p", "tavily,exa", "--json", "--config", str(config)
    )
    assert code == 0 and providers_of(out) == ["exa", "brave", "tavily"]  # the union, the preset first
    requests_seen.clear()
    code, _, err = run_main(capsys, "search", "hello", "--preset", "quik", "--config", str(config))
    assert code == 2 and err == (
        "websearch-tui: error: unknown preset 'quik' (did you mean 'quick'?); the presets: "
        f"quick, deep (in {config}); scholar, community (built in)\n"
    )
    code, _, err = run_main(capsys, "search", "hello", "--preset", "quick")  # the default config: built-ins only
    assert code == 2 and err.count("\n") == 1
    assert err.endswith("unknown preset 'quick'; the presets: scholar, community (built in)\n")
    assert requests_seen == []  # nothing ran


def test_a_preset_leaves_out_the_providers_the_config_switches_off(requests_seen, tmp_path: Path, capsys) -> None:
    text = '[providers.brave]\nenabled = false\n\n[presets]\nquick = ["exa", "brave"]\n'
    config = write_config(tmp_path, text)
    code, out, _ = run_main(capsys, "search", "hello", "--preset", "quick", "--json", "--config", str(config))
    assert code == 0 and providers_of(out) == ["exa"]  # as the TUI's preset selects


def test_n_is_the_result_count(requests_seen, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(capsys, "search", "hello", "-p", "exa", "-n", "3", "--json")[0] == 0
    assert run_main(capsys, "search", "hello", "-p", "exa", "-n7", "--json")[0] == 0
    assert [r.max_results for r in requests_seen] == [3, 7]
    code, _, err = run_main(capsys, "search", "hello", "-n", "21")
    assert code == 2 and "must be from 1 to 20, not 21" in err


def test_a_bare_query_is_a_search(requests_seen, tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path, '[search]\nproviders = ["exa"]\n')
    code, out, _ = run_main(capsys, "how does asyncio work", "--json", "--config", str(config))
    assert code == 0 and json.loads(out)["query"] == "how does asyncio work" and providers_of(out) == ["exa"]
    code, out, _ = run_main(capsys, "--config", str(config), "-p", "brave", "-n", "2", "rust", "1.80", "--json")
    assert code == 0 and json.loads(out)["query"] == "rust 1.80" and providers_of(out) == ["brave"]
    assert [r.max_results for r in requests_seen] == [10, 2]
    main_help = help_text([], capsys)
    assert "the same: a first word that is no command is a query" in main_help
    assert "A first argument that is not a command is a query" in main_help


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], []),
        (["providers"], ["providers"]),
        (["search", "q"], ["search", "q"]),
        (["--version"], ["--version"]),
        (["-h"], ["-h"]),
        (["--config", "c.toml"], ["--config", "c.toml"]),
        (["--config", "c.toml", "tui"], ["--config", "c.toml", "tui"]),
        (["history"], ["history"]),  # a query equal to a command name needs `search`
        (["--bogus"], ["--bogus"]),
        (["q"], ["search", "q"]),
        (["-"], ["search", "-"]),
        (["--config=c.toml", "q", "w"], ["--config=c.toml", "search", "q", "w"]),
        (["--config", "c.toml", "--format=json", "q"], ["--config", "c.toml", "search", "--format=json", "q"]),
        (["-pbrave", "q"], ["search", "-pbrave", "q"]),
    ],
)
def test_implied_search_is_only_for_what_is_not_a_command(argv: list[str], expected: list[str]) -> None:
    assert implied_search(argv, build_parser()) == expected


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "q", "w", "-p", "brave,tavily", "--fresh", "--format", "json", "-o", "out.json"],
        ["--config", "c.toml", "search", "-", "--preset", "scholar", "--merged", "--color", "never"],
        ["--config=c.toml", "history", "show", "3", "--format", "llm"],
        ["providers", "--json"],
        ["keys", "set", "brave"],
        ["stats", "--since", "7d"],
        ["mcp", "--http", "--port", "8765"],
        ["tui"],
    ],
)
def test_the_parser_of_the_named_command_alone_parses_as_the_whole_parser(argv: list[str]) -> None:
    """``main`` builds only the named command's parser: the same namespace as the whole parser gives."""
    only = command_named(argv)
    assert only == next(word for word in argv if word in COMMANDS)
    alone = build_parser(only=only)
    [subparsers] = [action for action in alone._actions if isinstance(action, argparse._SubParsersAction)]
    assert list(subparsers.choices) == [only]
    assert vars(alone.parse_args(argv)) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", [[], ["q"], ["--config", "c.toml"], ["--config", "search"], ["-h"], ["--version"]])
def test_a_command_line_naming_no_command_gets_the_whole_parser(argv: list[str]) -> None:
    assert command_named(argv) is None


def test_a_query_named_like_a_command_runs_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "providers", "--format", "json")
    assert code == 0 and json.loads(out)[0]["id"] == "ddgs"


# --- colour ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "tty", "environ", "expected"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),  # a pipe or a file
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # empty: not set, says no-color.org
        ("auto", True, {"TERM": "dumb"}, False),
        ("always", False, {"NO_COLOR": "1"}, True),  # the option wins
        ("never", True, {}, False),
    ],
)
def test_when_the_text_is_coloured(choice: str, tty: bool, environ: dict[str, str], expected: bool) -> None:
    stream = Terminal() if tty else io.StringIO()
    assert use_color(choice, stream, environ) is expected
    assert use_color("auto", None, {}) is False  # -o FILE


SGR = re.compile(r"\x1b\[[0-9;]*m")


def test_color_styles_our_labels_only(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    lookalike = "[1] Alpha\n    https://a.example/x\n== Brave Search (brave): done"

    async def brave(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield AnswerDelta(lookalike)
        yield SourcesFound((Source("https://a.example/x", "Alpha", snippet="[2] Beta\n    https://b.example"),))
        yield SourcesFound((Source("https://b.example", "[1] Beta"),))

    monkeypatch.setattr(engine_module, "load_stream", lambda pid: brave)
    code, plain, _ = run_main(capsys, "search", "hello", "-p", "brave", "--color", "never")
    assert code == 0 and "\x1b" not in plain
    code, colored, _ = run_main(capsys, "search", "hello", "-p", "brave", "--color", "always", "--fresh")
    assert code == 0
    untimed = re.compile(r"\d+\.\ds")
    assert untimed.sub("Ns", SGR.sub("", colored)) == untimed.sub("Ns", plain)
    assert colored.startswith("== \x1b[1mBrave Search\x1b[0m \x1b[2m(brave)\x1b[0m: \x1b[32mdone\x1b[0m in ")
    assert f"\n{lookalike}\n" in colored  # the answer's look-alike lines stay as they are
    assert "\n\x1b[1m## Sources\x1b[0m\n2 sources\n" in colored
    assert "\n\x1b[36m[1]\x1b[0m Alpha\n    \x1b[2mhttps://a.example/x\x1b[0m\n    [2] Beta\n" in colored
    assert "\n\x1b[36m[2]\x1b[0m [1] Beta\n    \x1b[2mhttps://b.example\x1b[0m" in colored
    assert len(SGR.findall(colored)) == 2 * 8  # label, id, status, heading, two numbers, two URLs: no more


def test_a_failed_provider_has_its_status_coloured(calls: list[str], capsys) -> None:
    code, out, _ = run_main(capsys, "search", "hello", "-p", "brave", "-p", "tavily", "--color", "always")
    assert code == 0
    assert "\n== \x1b[1mTavily\x1b[0m \x1b[2m(tavily)\x1b[0m: \x1b[31mfailed\x1b[0m (rate_limit) after " in out


def test_auto_colour_never_reaches_a_pipe_a_file_or_no_color(
    requests_seen, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    assert "\x1b" not in run_main(capsys, "search", "hello", "-p", "exa")[1]  # captured: not a terminal
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    target = tmp_path / "out.txt"
    assert main(["search", "hello", "-p", "exa", "-o", str(target)]) == 0
    assert "\x1b" not in target.read_text() and terminal.getvalue() == ""
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["search", "hello", "-p", "exa"]) == 0
    assert "\x1b" not in terminal.getvalue() and terminal.getvalue().startswith("== Exa (exa): done")
    monkeypatch.delenv("NO_COLOR")
    assert main(["search", "hello", "-p", "exa", "--format", "json"]) == 0  # only text is coloured
    assert "\x1b" not in terminal.getvalue()
    assert main(["search", "hello", "-p", "exa"]) == 0
    assert "== \x1b[1mExa\x1b[0m" in terminal.getvalue()


def test_bash_completion_knows_color(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "bash"]) == 0
    script = tmp_path / "completion.bash"
    script.write_text(capsys.readouterr().out)
    line = "websearch-tui search --color "
    command = (
        f"source {script}; COMP_WORDS=(websearch-tui search --color ''); COMP_CWORD=3; COMP_LINE='{line}'; "
        "COMP_POINT=${#COMP_LINE}; _shtab_websearch_tui; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["auto", "always", "never"]


# --- the answer streamed on a terminal ------------------------------------------------------


def test_when_the_answer_streams(tmp_path: Path) -> None:
    from websearch_tui.core.results import SearchResult

    one = SearchResult(SearchRequest("q"), "compare", providers=("brave",))
    two = SearchResult(SearchRequest("q"), "compare", providers=("brave", "exa"))
    assert streams_answer("text", one, None, Terminal())
    assert not streams_answer("text", one, None, io.StringIO())  # a pipe: the final text, at once
    assert not streams_answer("text", one, tmp_path / "f", Terminal())  # -o FILE
    assert not streams_answer("text", two, None, Terminal())
    assert not streams_answer("llm", one, None, Terminal())


def test_one_provider_streams_its_answer_to_a_terminal(requests_seen, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    code, piped, _ = run_main(capsys, "search", "hello", "-p", "brave")
    assert code == 0 and piped.startswith("== Brave Search (brave): done in ")
    assert "\nRust 1.80 stabilised LazyLock [1].\n\n## Sources\n" in piped and "\x1b" not in piped

    class Recording(Terminal):
        def __init__(self) -> None:
            super().__init__()
            self.writes: list[str] = []

        def write(self, text: str) -> int:
            self.writes.append(text)
            return super().write(text)

    terminal = Recording()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["search", "hello", "-p", "brave", "--color", "never", "--fresh"]) == 0
    shown = terminal.getvalue()
    assert terminal.writes[:3] == ["Rust 1.80 ", "stabilised ", "LazyLock [1]."]  # piece by piece, sanitized
    header, _, rest = piped.partition("\n")
    answer, _, after = rest.partition("\n\n")
    assert answer == "Rust 1.80 stabilised LazyLock [1]."
    untimed = re.compile(r"\d+\.\ds")
    assert untimed.sub("Ns", shown) == untimed.sub("Ns", f"{answer}\n\n{header}\n\n{after}")  # nothing twice


def test_the_stream_clears_the_progress_line_first(requests_seen, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setattr(sys, "stderr", terminal)  # one terminal, as in a shell
    assert main(["search", "hello", "-p", "brave", "--color", "never"]) == 0
    written = terminal.getvalue()
    assert written.startswith("\r0/1 done · waiting for Brave Search")
    cleared = "\r" + " " * len("0/1 done · waiting for Brave Search") + "\r"
    assert written.index(cleared) < written.index("Rust 1.80")


def run_in_pty(argv: list[str], env: dict[str, str], timeout: float = 60) -> str:
    """Run ``python -m websearch_tui *argv`` with stdout and stderr on a pseudo-terminal; what it wrote."""
    import pty
    import select
    import time

    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "websearch_tui", *argv],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        env=env,
        close_fds=True,
    )
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.5)
            if ready:
                try:
                    data = os.read(controller, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif process.poll() is not None:
                break
        assert process.wait(timeout=10) == 0
    finally:
        process.kill()
        os.close(controller)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def test_a_real_terminal_gets_the_stream_and_colour_a_pipe_neither(tmp_path: Path) -> None:
    from tests.fake_providers import FAKE_KEYS, FakeServer
    from tests.helpers import CHILD_PATH

    with FakeServer() as server:
        server.token_delay = 0.02
        config = server.write_config(tmp_path / "config.toml")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "TERM": "xterm",
            "WEBSEARCH_TUI_CONFIG": str(config),
            "WEBSEARCH_TUI_LOG": str(tmp_path / "log.txt"),
            "WEBSEARCH_TUI_HISTORY": str(tmp_path / "history.sqlite3"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
            **CHILD_PATH,
            **FAKE_KEYS,
        }
        argv = ["python asyncio tutorial", "-p", "perplexity"]
        shown = run_in_pty(argv, env)
        piped = subprocess.run(  # fresh: not the terminal run's result reused from the history
            [sys.executable, "-m", "websearch_tui", *argv, "--fresh"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith("== Perplexity (perplexity): done in ") and "\x1b" not in piped.stdout
    plain = SGR.sub("", shown).split("\r")[-1]  # after the progress line, cleared
    answer = piped.stdout.split("\n", 1)[1].split("\n\n## Sources")[0]
    assert plain.startswith(answer + "\n\n== Perplexity (perplexity): done in ")  # streamed first, then the rest
    assert "== \x1b[1mPerplexity\x1b[0m \x1b[2m(perplexity)\x1b[0m: \x1b[32mdone\x1b[0m" in shown
    assert "\x1b[36m[1]\x1b[0m " in shown


# --- history list ---------------------------------------------------------------------------


def test_history_list_shortens_a_long_provider_list_as_the_tui_does(capsys: pytest.CaptureFixture[str]) -> None:
    import dataclasses

    from tests.helpers import sample_result
    from websearch_tui.core.columns import fit_labels
    from websearch_tui.history import HistoryStore
    from websearch_tui.tui.history import rows as history_rows

    providers = tuple(SPECS)[:9]
    store = HistoryStore(Path(os.environ["WEBSEARCH_TUI_HISTORY"]))
    store.add(dataclasses.replace(sample_result("many"), providers=providers))
    store.close()
    code, out, _ = run_main(capsys, "history", "list")
    shown = fit_labels(providers, HISTORY_PROVIDER_CELLS)
    assert code == 0 and shown.endswith(" +5") and f"  {shown}  " in out.splitlines()[1]
    assert history_rows.fit_labels is fit_labels  # one function for both front ends
    assert HISTORY_PROVIDER_CELLS == history_rows.PROVIDERS_CELLS


@pytest.mark.parametrize("word", ["configure", "docker", "frobnicate"])
def test_one_word_not_close_to_a_command_is_a_query(word: str) -> None:
    assert implied_search([word], build_parser()) == ["search", word]
    assert implied_search(["serch", "engines"], build_parser()) == ["search", "serch", "engines"]
