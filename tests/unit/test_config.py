"""Config location, defaults, validation messages; credential lookup and provider status."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring

from websearch_tui.__main__ import main
from websearch_tui.core.catalogue import DEFAULT_PROVIDERS, get_spec
from websearch_tui.core.errors import redact
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.engine.engine import Engine
from websearch_tui.secrets import credentials
from websearch_tui.settings.config import ConfigError, check_keymap_ids, config_path, load_config

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_default_file_gives_defaults() -> None:
    config = load_config()
    assert config.search.providers == DEFAULT_PROVIDERS
    assert (config.search.mode, config.search.max_results, config.search.recency, config.search.timeout) == (
        "compare",
        10,
        None,
        60.0,
    )


def test_location_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBSEARCH_TUI_CONFIG", str(tmp_path / "env.toml"))
    assert config_path() == tmp_path / "env.toml"
    assert config_path(tmp_path / "flag.toml") == tmp_path / "flag.toml"
    monkeypatch.delenv("WEBSEARCH_TUI_CONFIG")
    assert config_path().name == "config.toml" and "websearch-tui" in str(config_path())


def test_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.toml")


def test_full_file_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
# my settings
[search]
providers = ["brave", "perplexity"]
mode = "auto"
max_results = 5
recency = "week"
timeout = 12.5

[providers.brave]
enabled = false
base_url = "http://127.0.0.1:9/brave"
country = "DE"

[providers.perplexity]
models = ["sonar", "sonar-pro"]
""",
    )
    config = load_config(path)
    assert config.search.providers == ("brave", "perplexity")
    assert (config.search.mode, config.search.max_results, config.search.recency, config.search.timeout) == (
        "auto",
        5,
        "week",
        12.5,
    )
    brave = config.settings_for("brave")
    assert (
        brave.enabled is False and brave.base_url == "http://127.0.0.1:9/brave" and brave.options == {"country": "DE"}
    )
    assert config.settings_for("perplexity").models == ("sonar", "sonar-pro")
    assert not config.is_enabled("brave") and config.is_enabled("tavily")
    engine = Engine.from_config(config)
    assert engine.default_providers == ("perplexity",)  # disabled providers leave the default selection
    assert engine.timeout == 12.5
    assert engine.max_body_bytes == 8 * 1024 * 1024  # [search] max_body_mib default


DEEP = 100_000
"""Nesting far deeper than a TOML parser's recursion can follow."""


@pytest.mark.parametrize(
    "value", ["[" * DEEP + "]" * DEEP, "{a = " * DEEP + "1" + "}" * DEEP], ids=["arrays", "inline tables"]
)
def test_a_config_nested_too_deeply_is_a_config_error(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, f"[search]\nproviders = {value}\n")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(path)
    assert main(["config", "validate", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("websearch-tui: error: ") and "nested too deeply" in err and "Traceback" not in err


def test_max_body_mib_reaches_the_engine(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[search]\nmax_body_mib = 1.5\n"))
    assert config.search.max_body_mib == 1.5
    assert Engine.from_config(config).max_body_bytes == 1536 * 1024


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[search\n", "not valid TOML"),
        ("[serch]\n", "unknown key 'serch' at the top level (did you mean 'search'?)"),
        ("[search]\nprovders = []\n", "unknown key 'provders' in [search] (did you mean 'providers'?)"),
        ("[search]\nproviders = ['bravo']\n", "[search] providers: unknown provider 'bravo' (did you mean 'brave'?)"),
        ("[search]\nmax_results = 50\n", "[search] max_results must be a whole number from 1 to 20, got 50"),
        ("[search]\nmode = 'fast'\n", "[search] mode must be one of compare, auto, got 'fast'"),
        ("[search]\nrecency = 'hour'\n", "[search] recency must be"),
        ("[search]\ntimeout = 0\n", "[search] timeout must be a number of seconds from 1 to 600, got 0"),
        ("[search]\nmax_body_mib = 0.5\n", "[search] max_body_mib must be a number of MiB from 1 to 1024, got 0.5"),
        ("[search]\nmax_body_mib = 2048\n", "[search] max_body_mib must be a number of MiB from 1 to 1024, got 2048"),
        ("[search]\nmax_body_mib = '8'\n", "[search] max_body_mib must be a number of MiB from 1 to 1024, got '8'"),
        ("[providers.bravee]\n", "[providers.bravee] is not a known provider (did you mean 'brave'?)"),
        ("[providers.brave]\nenabled = 'yes'\n", "[providers.brave] enabled must be true or false, got 'yes'"),
        ("[providers.brave]\nbase_url = 'ftp://x'\n", "[providers.brave] base_url must be an http(s) URL"),
        ("[providers.brave]\nmodel_name = 'x'\n", "unknown key 'model_name' in [providers.brave]"),
        ("[providers.searxng]\nsafesearch = true\n", "[providers.searxng] safesearch must be a whole number"),
        ("search = 3\n", "[search] must be a table"),
        (
            "[providers.brave]\napi_key = 'k-123'\n",
            "[providers.brave] api_key: keys never go in config.toml; store it with `websearch-tui keys set brave` "
            "or the settings screen (F3) or export BRAVE_API_KEY",
        ),
        ("[ui]\ntheme = 3\n", "[ui] theme must be a theme name (a string), got 3"),
        ("[providers.grok]\nsearch_mode = 'all'\n", "[providers.grok] search_mode must be one of web, x, both"),
        ("[history]\nenable = false\n", "unknown key 'enable' in [history] (did you mean 'enabled'?)"),
        ("[history]\nenabled = 'no'\n", "[history] enabled must be true or false, got 'no'"),
        ("[history]\nmax_entries = 0\n", "[history] max_entries must be a whole number from 1 to 1,000,000, got 0"),
        ("[history]\nmax_entries = true\n", "[history] max_entries must be a whole number"),
        ("[history]\npath = 3\n", "[history] path must be a file path (a string), got 3"),
        ("[history]\npath = 'notes/h.sqlite3'\n", "[history] path must be absolute or start with ~"),
        (
            "[presets]\nquick = ['brave', 'tavly']\n",
            "[presets] quick: unknown provider 'tavly' (did you mean 'tavily'?)",
        ),
        ("[presets]\nquick = []\n", "[presets] quick must be a non-empty list of provider ids, got []"),
        ("[presets]\nquick = 'brave'\n", "[presets] quick must be a non-empty list of provider ids, got 'brave'"),
        ("[presets]\n'' = ['brave']\n", "[presets] a preset needs a name"),
        ("presets = 3\n", "[presets] must be a table"),
        ("[keymap]\nsettings = 6\n", '[keymap] settings must be a string of key names such as "f2" or "ctrl+q"'),
        ("[keymap]\nsettings = ''\n", "[keymap] settings must be a string of key names"),
        ("[keymap]\nquit = 'Ctrl+Q'\n", "[keymap] quit must be a string of key names"),
        ("[keymap]\nquit = 'ctrl+q,,f10'\n", "[keymap] quit must be a string of key names"),
        ("keymap = 'f2'\n", "[keymap] must be a table"),
    ],
)
def test_bad_files_name_file_key_and_problem(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(str(path) + ": ")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_history_table(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[history]\nenabled = false\nmax_entries = 50\npath = '~/r/h.sqlite3'\n"))
    assert (config.history.enabled, config.history.max_entries, config.history.path) == (False, 50, "~/r/h.sqlite3")
    defaults = load_config(write(tmp_path, "")).history
    assert (defaults.enabled, defaults.max_entries, defaults.path) == (True, 10_000, None)


def test_verify_table(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "[verify]\nauto = true\n")).verify.auto is True
    assert load_config(write(tmp_path, "")).verify.auto is False
    for text, message in (
        ("[verify]\nauto = 'yes'\n", "[verify] auto must be true or false, got 'yes'"),
        ("[verify]\nato = true\n", "unknown key 'ato' in [verify] (did you mean 'auto'?)"),
        ("verify = 1\n", "[verify] must be a table"),
    ):
        with pytest.raises(ConfigError) as info:
            load_config(write(tmp_path, text))
        assert message in str(info.value)


def test_presets_keep_their_order_and_drop_repeats(tmp_path: Path) -> None:
    config = load_config(
        write(tmp_path, "[presets]\nquick = ['brave', 'tavily', 'exa', 'brave']\nmodels = ['openai']\n")
    )
    assert config.presets == {"quick": ("brave", "tavily", "exa"), "models": ("openai",)}
    assert list(config.presets) == ["quick", "models"]
    assert load_config(write(tmp_path, "")).presets == {}


def test_keymap_table(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[keymap]\nquit = 'ctrl+q'\nsettings = 'f6, ctrl+o'\nhelp = '?'\n"))
    assert config.keymap == {"quit": "ctrl+q", "settings": "f6,ctrl+o", "help": "?"}
    assert load_config(write(tmp_path, "")).keymap == {}


def test_keymap_ids_are_checked_against_the_ids_given(tmp_path: Path) -> None:
    """config.py knows no binding (it imports no Textual): the TUI passes its ids in."""
    config = load_config(write(tmp_path, "[keymap]\nopen_setings = 'f6'\n"))
    with pytest.raises(ConfigError) as info:
        check_keymap_ids(config, ["quit", "open_settings"])
    assert str(info.value) == (
        f"{config.path}: [keymap] 'open_setings' is not a binding id (did you mean 'open_settings'?); "
        "the ids are: open_settings, quit"
    )
    check_keymap_ids(load_config(write(tmp_path, "[keymap]\nquit = 'f10'\n")), ["quit"])


def test_example_config_is_valid_and_lists_every_provider() -> None:
    from websearch_tui.core.catalogue import SPECS

    config = load_config(EXAMPLE)
    assert set(config.providers) == set(SPECS)


def test_searxng_endpoint_env_seeds_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARXNG_ENDPOINT", "http://localhost:8888")
    assert load_config().settings_for("searxng").base_url == "http://localhost:8888"


def test_credentials_env_first_then_keyring(monkeypatch: pytest.MonkeyPatch, memory_keyring) -> None:
    spec = get_spec("brave")
    memory_keyring.set_password("websearch-tui", "brave:api_key", "from-keyring-123")
    key_store = credentials.KeyStore()
    values, sources = key_store.lookup(spec)
    assert values == {"api_key": "from-keyring-123"} and sources[0].describe() == "keyring"
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "from-env-second-456")
    values, sources = key_store.lookup(spec)
    assert values == {"api_key": "from-env-second-456"} and sources[0].describe() == "env BRAVE_SEARCH_API_KEY"
    monkeypatch.setenv("BRAVE_API_KEY", "from-env-first-789")
    assert key_store.lookup(spec)[0] == {"api_key": "from-env-first-789"}
    assert redact("x from-env-first-789 from-keyring-123") == "x *** ***"


def test_missing_keyring_backend_is_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    keyring.set_keyring(FailKeyring())
    key_store = credentials.KeyStore()
    assert key_store.lookup(get_spec("tavily"))[0] == {}
    assert key_store.status(get_spec("tavily"), ProviderSettings()) == "needs key"


@pytest.mark.parametrize(
    ("provider", "settings", "values", "status"),
    [
        ("brave", ProviderSettings(), {}, "needs key"),
        ("brave", ProviderSettings(), {"api_key": "k"}, "ready"),
        ("brave", ProviderSettings(enabled=False), {"api_key": "k"}, "disabled"),
        ("exa", ProviderSettings(), {}, "keyless"),
        ("exa", ProviderSettings(), {"api_key": "k"}, "ready"),
        ("ddgs", ProviderSettings(), {}, "keyless"),
        ("searxng", ProviderSettings(), {}, "needs URL"),
        ("searxng", ProviderSettings(base_url="http://localhost:8888"), {}, "keyless"),
        ("searxng", ProviderSettings(base_url="http://localhost:8888"), {"token": "t"}, "ready"),
    ],
)
def test_provider_status(provider: str, settings: ProviderSettings, values: dict, status: str) -> None:
    assert credentials.provider_status(get_spec(provider), settings, values) == status


def test_min_interval_is_validated(tmp_path: Path) -> None:
    assert (
        load_config(write(tmp_path, "[providers.brave]\nmin_interval = 1\n")).settings_for("brave").min_interval == 1.0
    )
    assert load_config(write(tmp_path, "[providers.exa]\nmin_interval = 0.5\n")).settings_for("exa").min_interval == 0.5
    with pytest.raises(ConfigError, match="min_interval must be a number"):
        load_config(write(tmp_path, "[providers.brave]\nmin_interval = 'fast'\n"))
    with pytest.raises(ConfigError, match="min_interval must be from 0 to 3600 seconds"):
        load_config(write(tmp_path, "[providers.brave]\nmin_interval = -1\n"))


def test_codex_readiness_follows_the_existing_login(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = get_spec("codex")
    assert credentials.provider_status(spec, ProviderSettings(), {}) == "no login"
    home = Path(__file__).resolve().parents[1] / "fake_providers" / "data" / "codex_home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert credentials.provider_status(spec, ProviderSettings(), {}) == "ready"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[search]\ncontact = 'me at example.org'\n", "[search] contact must be an e-mail address or an http(s) URL"),
        ("[search]\ncontact = 'me@example.org\\r\\nX-Evil: 1'\n", "[search] contact must be an e-mail address"),
        ("[search]\ncontact = 'mé@exemple.fr'\n", "[search] contact must be an e-mail address"),
        ("[search]\ncontact = 3\n", "[search] contact must be an e-mail address or an http(s) URL"),
        ("[providers.wikipedia]\ncontact = 'ftp://x'\n", "[providers.wikipedia] contact must be an e-mail address"),
        ("[providers.brave]\ncontact = 'me@example.org'\n", "unknown key 'contact' in [providers.brave]"),
    ],
)
def test_a_contact_is_an_address_or_a_url_on_one_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_the_search_contact_reaches_only_the_providers_that_ask_for_one(tmp_path: Path) -> None:
    text = "[search]\ncontact = ' me@example.org '\n[providers.arxiv]\ncontact = 'https://lab.example/me'\n"
    config = load_config(write(tmp_path, text))
    assert config.search.contact == "me@example.org"
    assert config.settings_for("openalex").options["contact"] == "me@example.org"
    assert config.settings_for("wikipedia").options["contact"] == "me@example.org"
    assert config.settings_for("arxiv").options["contact"] == "https://lab.example/me"  # its own wins
    assert "contact" not in config.settings_for("brave").options
    assert "contact" not in config.settings_for("semantic_scholar").options
    assert load_config(write(tmp_path, "")).settings_for("openalex").options == {}


def test_built_in_presets_sit_beside_the_user_s_and_a_user_preset_of_the_same_name_wins(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[presets]\nquick = ['brave']\ncommunity = ['hackernews', 'grok']\n"))
    presets = config.enabled_presets()
    assert presets["scholar"] == ("openalex", "arxiv", "semantic_scholar", "wikipedia")
    assert presets["community"] == ("hackernews", "grok")
    assert presets["quick"] == ("brave",)
    assert load_config(write(tmp_path, "[providers.arxiv]\nenabled = false\n")).enabled_presets()["scholar"] == (
        "openalex",
        "semantic_scholar",
        "wikipedia",
    )


def test_the_keyless_default_is_a_research_bench() -> None:
    from websearch_tui.core.catalogue import SPECS

    assert DEFAULT_PROVIDERS == ("ddgs", "exa", "parallel", "wikipedia", "openalex", "arxiv")
    assert all(SPECS[pid].keyless for pid in DEFAULT_PROVIDERS)
