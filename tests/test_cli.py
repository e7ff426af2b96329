"""CLI: argument errors, exit codes, formats, provider listing and lazy imports (no network)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from websearch_tui.cli import main
from websearch_tui.core import engine as engine_module
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import AnswerDelta, SearchRequest, Source, SourcesFound
from websearch_tui.providers.base import ProviderContext


@pytest.fixture
def fake_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    """brave answers, tavily fails with a rate limit, exa is empty."""

    async def brave(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        yield SourcesFound((Source("https://a.example/x", "Alpha [b]x[/b]", snippet="snip"),))

    async def tavily(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        raise ProviderError("tavily", ErrorKind.RATE_LIMIT, "Tavily API error (429): slow down", status=429)
        yield  # pragma: no cover

    async def exa(request: SearchRequest, ctx: ProviderContext) -> AsyncIterator[object]:
        if False:  # pragma: no cover
            yield AnswerDelta("")

    fakes = {"brave": brave, "tavily": tavily, "exa": exa}
    monkeypatch.setattr(engine_module, "load_stream", lambda pid: fakes[pid])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["search", "q", "-p", "bravo"], "unknown provider 'bravo' (did you mean 'brave'?)"),
        (["search", "q", "--max-results", "0"], "must be from 1 to 20, not 0"),
        (["search", "q", "--max-results", "many"], "must be a whole number from 1 to 20"),
        (["search", "   "], "query must not be empty"),
        (["search", "x" * 4001], "query is 4001 characters; the limit is 4000"),
        (["search", "q", "--recency", "hour"], "invalid choice: 'hour'"),
        (["search"], "the following arguments are required: query"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("websearch-tui: error: ")
    assert message in err


def test_bad_config_exits_2_naming_the_file(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[search]\nmax_results = 99\n")
    assert main(["search", "q", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: [search] max_results must be a whole number from 1 to 20, got 99" in err
    assert "Traceback" not in err


def test_json_output_and_exit_0_when_any_succeeds(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "-p", "brave", "-p", "tavily", "-p", "exa", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["query"] == "hello"
    statuses = {r["provider"]: r["status"] for r in document["results"]}
    assert statuses == {"brave": "done", "tavily": "failed", "exa": "empty"}
    brave = document["results"][0]
    assert brave["response"]["sources"][0]["title"] == "Alpha [b]x[/b]"
    assert isinstance(brave["elapsed_ms"], int)
    assert document["results"][1]["error"] == {
        "kind": "rate_limit",
        "message": "Tavily API error (429): slow down",
        "status": 429,
    }


def test_all_failed_exit_1_errors_on_stderr(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "-p", "tavily", "-p", "exa"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("slow down") == 1  # a single failure is not repeated above the summary
    assert (
        "All web search providers failed: tavily: Tavily API error (429): slow down; exa: Exa returned no"
        in captured.err
    )


def test_all_failed_json_is_an_error_object(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "-p", "tavily", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["error"] == {"message": "Tavily API error (429): slow down"}


def test_llm_and_markdown_formats(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "-p", "brave", "--format", "llm"]) == 0
    assert capsys.readouterr().out == "# Brave Search (brave)\n[1] Alpha [b]x[/b]\n    https://a.example/x\n    snip\n"
    assert main(["search", "hello", "-p", "brave", "--format", "markdown"]) == 0
    assert "1. [Alpha \\[b\\]x\\[/b\\]](<https://a.example/x>) — a.example" in capsys.readouterr().out


def test_auto_mode_shows_the_winner_only(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["search", "hello", "--mode", "auto", "-p", "tavily", "-p", "brave", "-p", "exa", "--format", "json"]) == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert document["winner"] == "brave"
    assert [r["provider"] for r in document["results"]] == ["tavily", "brave"]


def test_providers_lists_status_and_key_source_never_the_key(
    monkeypatch: pytest.MonkeyPatch, memory_keyring, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-secret-value-1")
    memory_keyring.set_password("websearch-tui", "tavily:api_key", "tavily-secret-value-2")
    assert main(["providers", "--json"]) == 0
    out = capsys.readouterr().out
    assert "secret-value" not in out
    rows = {row["id"]: row for row in json.loads(out)}
    assert rows["brave"]["status"] == "ready" and rows["brave"]["key_source"] == "env BRAVE_API_KEY"
    assert rows["tavily"]["status"] == "ready" and rows["tavily"]["key_source"] == "keyring"
    assert rows["perplexity"]["status"] == "missing key"
    assert rows["ddgs"]["status"] == "keyless" and rows["ddgs"]["default"] is True
    assert (rows["ddgs"]["key"], rows["exa"]["key"], rows["brave"]["key"]) == ("none", "optional", "required")
    assert main(["providers"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split() == ["PROVIDER", "LABEL", "KIND", "KEY", "STATUS", "KEY", "FROM", "DEFAULT"]
    assert "secret-value" not in table


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("websearch-tui 0.")


def test_search_imports_only_the_chosen_provider_and_never_textual(tmp_path) -> None:
    script = (
        "import sys\n"
        "from websearch_tui.cli import main\n"
        "code = main(['search', 'q', '-p', 'brave'])\n"
        "mods = sorted(m for m in sys.modules if m.startswith('websearch_tui.providers.') and not m.split('.')[-1].startswith('_'))\n"
        "print(code, mods, any(m == 'textual' or m.startswith('textual.') for m in sys.modules))\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "WEBSEARCH_TUI_LOG": str(tmp_path / "log.txt"),
        "WEBSEARCH_TUI_CONFIG": str(tmp_path / "none.toml"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "1 ['websearch_tui.providers.base', 'websearch_tui.providers.brave'] False", out.stderr
    assert (
        "Brave Search: no API key. Set BRAVE_API_KEY or add the key in Settings."
        in out.stderr
    )


@pytest.mark.parametrize("provider_id", sorted(__import__("websearch_tui.providers", fromlist=["SPECS"]).SPECS))
def test_every_provider_is_reachable_and_loads_alone(provider_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    from websearch_tui.cli import _check_providers, build_parser

    args = build_parser().parse_args(["search", "q", "-p", provider_id.upper()])
    assert _check_providers(args.providers) == (provider_id,)  # the CLI accepts it (case-insensitively)
    script = (
        "import sys\n"
        "from websearch_tui.providers import load_stream\n"
        f"load_stream({provider_id!r})\n"
        "mods = sorted(m for m in sys.modules if m.startswith('websearch_tui.providers.') and not m.rsplit('.', 1)[1].startswith('_'))\n"
        "print(mods, any(m == 'textual' or m.startswith('textual.') for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    expected = sorted(["websearch_tui.providers.base", f"websearch_tui.providers.{provider_id}"])
    assert out.stdout.strip() == f"{expected} False", out.stderr
