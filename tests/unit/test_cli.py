"""CLI: argument errors, exit codes, formats, provider listing and lazy imports (no network)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import CHILD_PATH, three_cli_providers
from websearch_tui.__main__ import main  # the launcher: what `websearch-tui` runs
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import Source


@pytest.fixture
def fake_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    """brave answers (a title with markup), tavily fails with a rate limit, exa is empty."""
    three_cli_providers(monkeypatch, Source("https://a.example/x", "Alpha [b]x[/b]", snippet="snip"))


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
        (["--bogus", "q"], "invalid choice: 'q'"),  # an unknown option first: no search
        (["serch"], "unknown command 'serch' (did you mean 'search'?); to search for it: websearch-tui search serch"),
        (["histroy"], "unknown command 'histroy' (did you mean 'history'?)"),
        (["search", "q", "--merged"], "--merged goes with --format llm"),
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
    assert captured.err.splitlines() == [  # each reason once, then a last line that names without repeating
        "websearch-tui: tavily: Tavily API error (429): slow down",
        "websearch-tui: exa: Exa returned no renderable search content.",
        "websearch-tui: error: All web search providers failed (tavily, exa).",
    ]


def test_one_failure_is_one_line(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "-p", "tavily"]) == 1
    assert capsys.readouterr().err == "websearch-tui: error: Tavily API error (429): slow down\n"


def test_all_failed_json_is_an_error_object(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "-p", "tavily", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["error"] == {"message": "Tavily API error (429): slow down"}


def test_llm_and_markdown_formats(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "-p", "brave", "--format", "llm"]) == 0
    assert capsys.readouterr().out == (
        "# Brave Search (brave) · ≈ $0.005\n[1] Alpha [b]x[/b]\n    https://a.example/x\n    snip\n"
    )
    assert main(["search", "hello", "-p", "brave", "--format", "markdown"]) == 0
    assert "1. [Alpha \\[b\\]x\\[/b\\]](<https://a.example/x>) — a.example" in capsys.readouterr().out


def test_llm_merged_prints_one_source_list(fake_providers: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "-p", "brave", "-p", "tavily", "--format", "llm", "--merged"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Tavily (tavily)\nError: Tavily API error (429): slow down\n\n# Merged sources\n")
    assert (
        "1 source from 1 provider\n[1] Alpha [b]x[/b]\n    https://a.example/x\n    snip\n    found by brave #1" in out
    )


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
    assert rows["perplexity"]["status"] == "needs key"
    assert rows["ddgs"]["status"] == "keyless" and rows["ddgs"]["default"] is True
    assert (rows["ddgs"]["key"], rows["exa"]["key"], rows["brave"]["key"]) == ("none", "optional", "required")
    assert (rows["ddgs"]["index"], rows["brave"]["index"], rows["gemini"]["index"]) == (
        "Bing-derived",
        "Brave's own index",
        "Google",
    )
    assert main(["providers"]) == 0
    table = capsys.readouterr().out
    header = ["PROVIDER", "LABEL", "KIND", "INDEX", "KEY", "STATUS", "KEY", "FROM", "DEFAULT"]
    assert table.splitlines()[0].split() == header
    assert "Brave's own index" in next(line for line in table.splitlines() if line.startswith("brave "))
    assert len(rows) == 34
    new = {pid: (rows[pid]["status"], rows[pid]["index"]) for pid in ("openalex", "arxiv", "wikipedia", "hackernews")}
    assert new == {
        "openalex": ("keyless", "OpenAlex scholarly graph"),
        "arxiv": ("keyless", "arXiv"),
        "wikipedia": ("keyless", "Wikipedia encyclopedia"),
        "hackernews": ("keyless", "Hacker News community"),
    }
    assert (rows["semantic_scholar"]["key"], rows["semantic_scholar"]["key_env_vars"]) == (
        "optional",
        ["SEMANTIC_SCHOLAR_API_KEY", "S2_API_KEY"],
    )
    assert "secret-value" not in table


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("websearch-tui 0.")


def child_env(tmp_path) -> dict[str, str]:
    """A clean environment for a child Python: no keys, a temporary home, config and log; this
    checkout first on the import path."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "WEBSEARCH_TUI_LOG": str(tmp_path / "log.txt"),
        "WEBSEARCH_TUI_CONFIG": str(tmp_path / "none.toml"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        **CHILD_PATH,
    }


def test_search_imports_only_the_chosen_provider_and_never_textual(tmp_path) -> None:
    """Nor the libraries only a save needs (tomlkit edits, filelock): reading needs neither."""
    script = (
        "import sys\n"
        "from websearch_tui.__main__ import main\n"
        "code = main(['search', 'q', '-p', 'brave'])\n"
        "mods = sorted(m for m in sys.modules if m.startswith('websearch_tui.providers.') and m.count('.') == 2 and not hasattr(sys.modules[m], '__path__'))\n"
        "print(code, mods, any(m == 'textual' or m.startswith('textual.') for m in sys.modules), 'shtab' in sys.modules,"
        " 'tomlkit' in sys.modules, 'filelock' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=child_env(tmp_path), timeout=60
    )
    assert out.stdout.strip() == (
        "1 ['websearch_tui.providers.base', 'websearch_tui.providers.brave'] False False False False"
    ), out.stderr
    assert "Brave Search: no API key. Set BRAVE_API_KEY or add the key in Settings." in out.stderr


@pytest.mark.parametrize("provider_id", sorted(SPECS))
def test_every_provider_is_reachable_and_loads_alone(provider_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    from websearch_tui.cli.common import check_providers
    from websearch_tui.cli.parser import build_parser

    args = build_parser().parse_args(["search", "q", "-p", provider_id.upper()])
    assert check_providers(args.providers) == (provider_id,)  # the CLI accepts it (case-insensitively)
    script = (
        "import sys\n"
        "from websearch_tui.providers import load_stream\n"
        f"load_stream({provider_id!r})\n"
        "mods = sorted(m for m in sys.modules if m.startswith('websearch_tui.providers.') and m.count('.') == 2 and not hasattr(sys.modules[m], '__path__'))\n"
        "print(mods, any(m == 'textual' or m.startswith('textual.') for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    expected = sorted(["websearch_tui.providers.base", f"websearch_tui.providers.{provider_id}"])
    assert out.stdout.strip() == f"{expected} False", out.stderr


# --- keys -------------------------------------------------------------------------------------


@pytest.fixture
def key_file(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """The unencrypted key file path for this test."""
    path = tmp_path / "keys.toml"
    monkeypatch.setenv("WEBSEARCH_TUI_KEY_FILE", str(path))
    return path


def stdin_lines(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """Make stdin a pipe (not a TTY) that holds ``text``."""
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_keys_set_reads_one_line_from_stdin_into_the_keyring(
    monkeypatch: pytest.MonkeyPatch, memory_keyring, key_file, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin_lines(monkeypatch, "  brave-cli-secret-1  \nsecond line is not read\n")
    assert main(["keys", "set", "BRAVE"]) == 0
    assert memory_keyring.entries == {("websearch-tui", "brave:api_key"): "brave-cli-secret-1"}
    captured = capsys.readouterr()
    assert captured.out == "Stored brave api_key in the OS keyring (conftest MemoryKeyring).\n"
    assert captured.err == ""
    assert not key_file.exists()


def test_keys_set_prompts_without_echo_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, memory_keyring, capsys: pytest.CaptureFixture[str]
) -> None:
    import getpass

    class Terminal:
        def isatty(self) -> bool:
            return True

        def readline(self) -> str:  # pragma: no cover - must not be used on a terminal
            raise AssertionError("read the key with echo")

    prompts: list[str] = []
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr(getpass, "getpass", lambda prompt: prompts.append(prompt) or "searx-token-2")
    assert main(["keys", "set", "searxng", "--credential", "token"]) == 0
    assert prompts == ["SearXNG token: "]
    assert memory_keyring.entries == {("websearch-tui", "searxng:token"): "searx-token-2"}
    assert "searx-token-2" not in capsys.readouterr().out


def test_keys_set_warns_that_the_env_var_wins(
    monkeypatch: pytest.MonkeyPatch, memory_keyring, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "from-env-3")
    stdin_lines(monkeypatch, "brave-cli-secret-3\n")
    assert main(["keys", "set", "brave"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "websearch-tui: warning: BRAVE_SEARCH_API_KEY is set in the environment and is used instead of the stored key.\n"
    )


@pytest.mark.parametrize("text", ["", "\n", "   \n"], ids=["eof", "empty-line", "blank"])
def test_keys_set_refuses_an_empty_key(
    text: str, monkeypatch: pytest.MonkeyPatch, memory_keyring, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin_lines(monkeypatch, text)
    assert main(["keys", "set", "brave"]) == 2
    assert capsys.readouterr().err == "websearch-tui: error: no api_key given for brave; nothing was stored\n"
    assert memory_keyring.entries == {}


def test_keys_set_without_a_keyring_explains_and_needs_file_to_confirm(
    monkeypatch: pytest.MonkeyPatch, key_file, capsys: pytest.CaptureFixture[str]
) -> None:
    import keyring.backends.fail

    keyring.set_keyring(keyring.backends.fail.Keyring())
    stdin_lines(monkeypatch, "tavily-cli-secret-4\n")
    assert main(["keys", "set", "tavily"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("websearch-tui: error: No usable OS keyring was found (backend: fail Keyring)")
    assert "export TAVILY_API_KEY" in captured.err and "run the command again with --file" in captured.err
    assert captured.err.count("\n") == 1
    assert sys.stdin.read() == "tavily-cli-secret-4\n"  # refused before the key was even read
    assert not key_file.exists()

    stdin_lines(monkeypatch, "tavily-cli-secret-4\n")
    assert main(["keys", "set", "tavily", "--file"]) == 0
    assert capsys.readouterr().out == (
        f"Stored tavily api_key in the key file {key_file} (NOT ENCRYPTED; readable only by you).\n"
    )
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    assert 'api_key = "tavily-cli-secret-4"' in key_file.read_text()


def test_keys_set_control_characters_exit_1(
    monkeypatch: pytest.MonkeyPatch, memory_keyring, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin_lines(monkeypatch, "abc\x1b[2Jdef\n")
    assert main(["keys", "set", "brave"]) == 1
    assert "contains control characters" in capsys.readouterr().err
    assert memory_keyring.entries == {}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["keys", "set", "bravee"], "unknown provider 'bravee' (did you mean 'brave'?)"),
        (
            ["keys", "delete", "searxng", "--credential", "pasword"],
            "searxng has no credential 'pasword' (did you mean 'password'?); its credentials: token, username, password",
        ),
        (["keys", "set", "ddgs"], "ddgs needs no key"),
        (["keys", "set", "codex"], "codex uses your existing Codex login, not a stored key"),
        (["keys"], "the following arguments are required: {set,delete,list}"),
        (["config"], "the following arguments are required: {path,show,validate}"),
    ],
)
def test_keys_and_config_argument_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err == f"websearch-tui: error: {message}\n"


def test_keys_delete_removes_from_keyring_and_file(
    monkeypatch: pytest.MonkeyPatch, memory_keyring, key_file, capsys: pytest.CaptureFixture[str]
) -> None:
    memory_keyring.set_password("websearch-tui", "brave:api_key", "brave-cli-secret-5")
    key_file.write_text('[brave]\napi_key = "brave-old-secret-5"\n')
    key_file.chmod(0o600)
    monkeypatch.setenv("BRAVE_API_KEY", "from-env-5")
    assert main(["keys", "delete", "brave"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "Deleted brave api_key from the OS keyring and the key file.\n"
    assert "BRAVE_API_KEY is still set in the environment, so the provider keeps using it" in captured.err
    assert memory_keyring.entries == {} and not key_file.exists()
    assert main(["keys", "delete", "brave"]) == 0
    assert capsys.readouterr().out == "No stored api_key for brave; nothing was deleted.\n"


def test_keys_delete_on_a_locked_keyring_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    import keyring
    from keyring.backend import KeyringBackend
    from keyring.errors import KeyringLocked

    class Locked(KeyringBackend):
        priority = 5  # type: ignore[assignment]

        def get_password(self, service: str, username: str) -> str | None:
            raise KeyringLocked("locked")

        def set_password(self, service: str, username: str, password: str) -> None:
            raise KeyringLocked("locked")

        def delete_password(self, service: str, username: str) -> None:
            raise KeyringLocked("locked")

    keyring.set_keyring(Locked())
    assert main(["keys", "delete", "brave"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("websearch-tui: error: Brave Search: could not read the key because the OS keyring is locked")
    assert err.count("\n") == 1


def test_keys_list_shows_where_never_the_value(
    monkeypatch: pytest.MonkeyPatch, memory_keyring, key_file, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PPLX_API_KEY", "pplx-cli-secret-6")
    memory_keyring.set_password("websearch-tui", "tavily:api_key", "tavily-cli-secret-6")
    key_file.write_text('[searxng]\npassword = "searx-cli-secret-6"\n')
    key_file.chmod(0o600)
    assert main(["keys", "list"]) == 0
    out = capsys.readouterr().out
    assert "secret-6" not in out
    lines = out.splitlines()
    assert lines[0].split() == ["PROVIDER", "CREDENTIAL", "STORED"]
    rows = {tuple(line.split(None, 2)[:2]): line.split(None, 2)[2] for line in lines[1:] if line and ":" not in line}
    assert rows[("perplexity", "api_key")] == rows[("perplexity_search", "api_key")] == "env PPLX_API_KEY"
    assert rows[("tavily", "api_key")] == "keyring"
    assert rows[("searxng", "password")] == "key file (not encrypted)"
    assert rows[("searxng", "username")] == rows[("brave", "api_key")] == "not set"
    assert ("ddgs", "api_key") not in rows and not any(provider == "codex" for provider, _ in rows)
    assert lines[-2:] == ["Keyring: conftest MemoryKeyring", f"Key file: {key_file} (NOT ENCRYPTED)"]


def test_keys_list_without_a_keyring_says_why(key_file, capsys: pytest.CaptureFixture[str]) -> None:
    import keyring.backends.fail

    keyring.set_keyring(keyring.backends.fail.Keyring())
    key_file.write_text('[brave]\napi_key = "brave-cli-secret-7"\n')
    key_file.chmod(0o644)
    assert main(["keys", "list"]) == 0
    out = capsys.readouterr().out
    assert "Keyring: not usable. No usable OS keyring was found (backend: fail Keyring)" in out
    assert "`websearch-tui keys set PROVIDER --file` confirms the key file" in out
    assert f"Key file: The key file {key_file} is accessible to other users (mode 0644)" in out
    assert "brave-cli-secret-7" not in out


# --- config -----------------------------------------------------------------------------------


def test_config_path_reports_the_file_and_whether_it_exists(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    default = os.environ["WEBSEARCH_TUI_CONFIG"]
    assert main(["config", "path"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{default}\n"
    assert captured.err == "does not exist; the defaults apply (set by $WEBSEARCH_TUI_CONFIG)\n"
    path = tmp_path / "mine.toml"
    path.write_text("")
    assert main(["config", "path", "--config", str(path)]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (f"{path}\n", "exists (set by --config)\n")


def test_config_show_prints_effective_settings_without_secrets(
    tmp_path, monkeypatch: pytest.MonkeyPatch, memory_keyring, capsys: pytest.CaptureFixture[str]
) -> None:
    import tomlkit

    from websearch_tui.core.catalogue import SPECS

    path = tmp_path / "config.toml"
    path.write_text(
        '[search]\nmode = "auto"\nrecency = "week"\n\n'
        '[providers.brave]\nenabled = false\ncountry = "DE"\n\n'
        '[providers.searxng]\nbase_url = "https://bob:hunter2-cli-8@searx.example/?token=tok-cli-8&lang=en"\n'
    )
    monkeypatch.setenv("BRAVE_API_KEY", "brave-cli-secret-8")
    memory_keyring.set_password("websearch-tui", "tavily:api_key", "tavily-cli-secret-8")
    assert main(["config", "show", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    for secret in ("brave-cli-secret-8", "tavily-cli-secret-8", "hunter2-cli-8", "tok-cli-8"):
        assert secret not in out
    document = tomlkit.parse(out).unwrap()
    assert document["search"] == {
        "providers": ["ddgs", "exa", "parallel", "wikipedia", "openalex", "arxiv"],
        "mode": "auto",
        "max_results": 10,
        "recency": "week",
        "timeout": 60.0,
        "max_body_mib": 8.0,
        "contact": "",
    }
    assert document["ui"] == {"theme": ""}
    assert set(document["providers"]) == set(SPECS)
    assert document["providers"]["brave"] == {
        "enabled": False,
        "base_url": "https://api.search.brave.com",
        "min_interval": 1.0,
        "price": {"per_request": 0.005},
        "country": "DE",
    }
    assert document["providers"]["searxng"]["base_url"] == "https://bob:***@searx.example/?token=***&lang=en"
    path.write_text('[providers.jina]\nbase_url = "https://tok-cli-9@proxy.example/jina"\n')
    assert main(["config", "show", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "tok-cli-9" not in out
        and tomlkit.parse(out)["providers"]["jina"]["base_url"] == "https://***@proxy.example/jina"
    )
    assert document["providers"]["openai"]["model"] == "gpt-6.1-terra"
    assert document["providers"]["exa"]["mcp_url"] == "https://mcp.exa.ai/mcp"


def test_config_show_lists_the_presets(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    import tomlkit

    path = tmp_path / "config.toml"
    path.write_text('[presets]\nquick = ["brave", "tavily", "exa"]\n')
    assert main(["config", "show", "--config", str(path)]) == 0
    assert tomlkit.parse(capsys.readouterr().out).unwrap()["presets"] == {"quick": ["brave", "tavily", "exa"]}
    assert main(["config", "show", "--format", "json", "--config", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["presets"] == {"quick": ["brave", "tavily", "exa"]}


def test_config_validate(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[search]\nmode = "auto"\n')
    assert main(["config", "validate", "--config", str(path)]) == 0
    assert capsys.readouterr().out == f"OK: {path}\n"
    path.write_text("[search]\nprovders = []\n")
    assert main(["config", "validate", "--config", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"websearch-tui: error: {path}: unknown key 'provders' in [search] (did you mean 'providers'?)\n"
    )
    assert main(["config", "validate", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "missing.toml: file not found" in capsys.readouterr().err


def test_config_validate_checks_keymap_ids_and_show_prints_the_keymap(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    import tomlkit

    path = tmp_path / "config.toml"
    path.write_text('[keymap]\nsettings = "f6, ctrl+o"\n')
    assert main(["config", "validate", "--config", str(path)]) == 0
    assert capsys.readouterr().out == f"OK: {path}\n"
    assert main(["config", "show", "--config", str(path)]) == 0
    assert tomlkit.parse(capsys.readouterr().out).unwrap()["keymap"] == {"settings": "f6,ctrl+o"}
    assert main(["config", "show", "--format", "json", "--config", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["keymap"] == {"settings": "f6,ctrl+o"}
    path.write_text('[keymap]\nsetings = "f6"\n')
    assert main(["config", "validate", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"websearch-tui: error: {path}: [keymap] 'setings' is not a binding id (did you mean 'settings'?); the ids are: "
    )
    assert "open-history" in err and "settings-save" in err


def test_config_validate_without_a_file_uses_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    import os

    assert main(["config", "validate"]) == 0
    assert capsys.readouterr().out == f"OK: {os.environ['WEBSEARCH_TUI_CONFIG']} (does not exist; the defaults apply)\n"


def test_keys_and_config_never_import_textual(tmp_path) -> None:
    script = (
        "import sys\n"
        "from websearch_tui.__main__ import main\n"
        "codes = [main(['keys', 'list']), main(['config', 'show']), main(['config', 'validate'])]\n"
        "print(codes, any(m == 'textual' or m.startswith('textual.') for m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=child_env(tmp_path), timeout=60
    )
    assert out.stdout.strip().splitlines()[-1] == "[0, 0, 0] False", out.stderr


def test_the_tui_without_a_terminal_exits_at_once_pointing_at_search(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "websearch_tui"], stdin=subprocess.DEVNULL, capture_output=True, timeout=60
    )
    assert done.returncode == 2 and done.stdout == b""  # no escape codes written, no hang
    assert b'websearch-tui search "your question"' in done.stderr


def test_a_query_that_is_not_valid_utf8_is_a_usage_error(tmp_path) -> None:
    bad = b"caf\xff".decode("utf-8", "surrogateescape")  # what Python makes of undecodable argv bytes
    done = subprocess.run(
        [sys.executable, "-m", "websearch_tui", "search", bad, "-p", "ddgs"], capture_output=True, timeout=60
    )
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert done.stderr.decode().strip() == (
        "websearch-tui: error: the query is not valid text in this terminal's encoding (UTF-8 expected)"
    )


def test_output_the_terminal_cannot_encode_is_replaced_not_a_traceback(fake_providers: None) -> None:
    import io

    raw = io.BytesIO()
    strict = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    real = sys.stdout
    sys.stdout = strict
    try:
        assert main(["search", "hello", "-p", "brave", "--format", "llm"]) == 0
        strict.flush()
    finally:
        sys.stdout = real
    assert b"Alpha" in raw.getvalue()


def test_the_program_exits_at_once_with_its_code_and_everything_flushed(tmp_path) -> None:
    """``python -m websearch_tui`` skips interpreter teardown: the exit code and the whole (block-buffered,
    piped) output survive."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "WEBSEARCH_TUI_LOG": str(tmp_path / "log.txt"),
        "WEBSEARCH_TUI_CONFIG": str(tmp_path / "none.toml"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    argv = [sys.executable, "-m", "websearch_tui", "search", "q", "-p", "brave", "--format", "json"]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 1, out.stderr
    document = json.loads(out.stdout)
    assert document["results"][0]["error"]["kind"] == "config"


def test_search_verify_marks_every_citation(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--verify`` reads each cited page (here a stand-in for the reader) and every format shows the
    verdicts; json puts them in each citation's ``check``."""
    from collections.abc import AsyncIterator

    from websearch_tui.core.models import AnswerDelta, Citation, CitationsFound
    from websearch_tui.core.pages import PageError, PageReason
    from websearch_tui.engine import engine as engine_module
    from websearch_tui.session import Session

    async def cited(request: object, ctx: object) -> AsyncIterator[object]:
        yield AnswerDelta("The town had 30,000 people in 2019 [1]. See the archive [2].")
        yield CitationsFound((Citation("https://a.example/town", "Town"), Citation("https://a.example/gone", "Gone")))

    class Page:
        text = "The town had 3,000 people in 2019."
        final_url = "https://a.example/town"
        retrieved_at = "2026-12-02T10:00:00Z"
        content_sha256 = "ab" * 32

    async def read(self: Session, url: str) -> Page:
        if url.endswith("gone"):
            raise PageError(PageReason.HTTP_STATUS, f"{url} answered 404 Not Found", url=url, status=404)
        return Page()

    monkeypatch.setattr(engine_module, "load_stream", lambda pid: cited)
    monkeypatch.setattr(Session, "read_page", read)
    assert main(["search", "--verify", "--no-history", "-p", "perplexity", "--json", "town"]) == 0
    citations = json.loads(capsys.readouterr().out)["results"][0]["response"]["citations"]
    assert [c["check"]["verdict"] for c in citations] == ["not_supported", "unreadable"]
    assert "3,000" in citations[0]["check"]["reason"] and "30,000" in citations[0]["check"]["reason"]
    assert main(["search", "--verify", "--no-history", "-p", "perplexity", "town"]) == 0
    out = capsys.readouterr().out
    assert "Citations checked: 0 of 2 check out" in out and "? unreadable" in out
