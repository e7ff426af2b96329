"""``[cache]``, ``[budget]`` and a provider's ``price`` / ``cache_ttl``: parsing, refusals, ``config
validate`` and ``config show``, and the settings editor's check of the new tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from websearch_tui.__main__ import main
from websearch_tui.core.costs import Price
from websearch_tui.settings.config import MAX_CACHE_TTL, ConfigError, load_config
from websearch_tui.settings.edit import ConfigEditor


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_the_tables(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""))
    assert config.cache.ttl == 3600.0
    assert (config.budget.daily, config.budget.monthly) == (None, None)
    assert (config.settings_for("brave").price, config.settings_for("brave").cache_ttl) == (None, None)


def test_the_tables_and_provider_keys_are_read(tmp_path: Path) -> None:
    text = (
        "[cache]\nttl = 0\n"
        "[budget]\ndaily = 2\nmonthly = 30.5\n"
        "[providers.brave]\ncache_ttl = 600\nprice = { per_request = 0.004, per_1k_results = 0 }\n"
        "[providers.openai.price]\nper_million_input_tokens = 2\nper_search_call = 0.025\n"
    )
    config = load_config(write(tmp_path, text))
    assert config.cache.ttl == 0.0
    assert (config.budget.daily, config.budget.monthly) == (2.0, 30.5)
    brave = config.settings_for("brave")
    assert brave.cache_ttl == 600.0
    assert brave.price == Price(per_request=0.004)
    assert config.settings_for("openai").price == Price(per_million_input_tokens=2.0, per_search_call=0.025)


def test_a_free_provider_is_priced_at_zero_and_an_empty_price_is_refused(tmp_path: Path) -> None:
    free = load_config(write(tmp_path, "[providers.jina]\nprice = { per_request = 0 }\n"))
    assert free.settings_for("jina").price == Price()
    with pytest.raises(ConfigError, match=r"\[providers.jina\] price is empty: .*per_request = 0"):
        load_config(write(tmp_path, "[providers.jina]\nprice = {}\n"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[cache]\nttl = -1\n", "[cache] ttl must be a number of seconds from 0 (no reuse) to 2,592,000 (30 days)"),
        (f"[cache]\nttl = {MAX_CACHE_TTL + 1}\n", "[cache] ttl must be a number of seconds"),
        (
            "[cache]\nttl = '1h'\n",
            "[cache] ttl must be a number of seconds from 0 (no reuse) to 2,592,000 (30 days), got '1h'",
        ),
        ("[cache]\nttl = true\n", "[cache] ttl must be a number of seconds"),
        ("[cache]\nttls = 5\n", "unknown key 'ttls' in [cache] (did you mean 'ttl'?)"),
        ("cache = 5\n", "[cache] must be a table"),
        ("[budget]\ndaily = 0\n", "[budget] daily must be a number of US dollars above 0 (e.g. 2.00), got 0"),
        ("[budget]\nmonthly = -3\n", "[budget] monthly must be a number of US dollars above 0"),
        ("[budget]\ndaily = inf\n", "[budget] daily must be a number of US dollars above 0"),
        ("[budget]\ndaily = '2'\n", "[budget] daily must be a number of US dollars above 0 (e.g. 2.00), got '2'"),
        ("[budget]\nweekly = 5\n", "unknown key 'weekly' in [budget]"),
        ("[providers.brave]\ncache_ttl = -5\n", "[providers.brave] cache_ttl must be a number of seconds from 0"),
        ("[providers.brave]\ncache_ttl = 'x'\n", "[providers.brave] cache_ttl must be a number, got 'x'"),
        (
            "[providers.brave]\nprice = 0.005\n",
            "[providers.brave] price must be a table such as { per_request = 0.005 }",
        ),
        (
            "[providers.brave]\nprice = { per_requests = 0.005 }\n",
            "[providers.brave] price: unknown unit 'per_requests' (did you mean 'per_request'?); the units are "
            "per_request, per_1k_results, per_million_input_tokens, per_million_output_tokens, per_search_call",
        ),
        ("[providers.brave]\nprice = { read_on = '2026-01-01' }\n", "[providers.brave] price: unknown unit 'read_on'"),
        (
            "[providers.brave]\nprice = { per_request = -0.1 }\n",
            "[providers.brave] price per_request must be a number of US dollars from 0 to 1,000, got -0.1",
        ),
        ("[providers.brave]\nprice = { per_request = nan }\n", "[providers.brave] price per_request must be a number"),
        (
            "[providers.brave]\nprice = { per_request = '0.1' }\n",
            "[providers.brave] price per_request must be a number",
        ),
        (
            "[providers.brave]\nprice = { per_request = false }\n",
            "[providers.brave] price per_request must be a number",
        ),
    ],
)
def test_bad_values_are_refused_naming_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_config_validate_accepts_and_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path, "[cache]\nttl = 120\n[budget]\ndaily = 1.5\n[providers.kagi]\nprice = { per_request = 0.02 }\n"
    )
    assert main(["config", "validate", "--config", str(path)]) == 0
    assert capsys.readouterr().out == f"OK: {path}\n"
    path.write_text("[providers.kagi]\nprice = { per_query = 0.02 }\n", encoding="utf-8")
    assert main(["config", "validate", "--config", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "unknown unit 'per_query'" in captured.err


def test_config_show_prints_cache_budget_and_prices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        "[budget]\nmonthly = 20\n[providers.kagi]\nprice = { per_request = 0.02 }\ncache_ttl = 60\n"
        "[providers.anthropic]\nmodel = 'claude-opus-5'\n",
    )
    assert main(["config", "show", "--format", "json", "--config", str(path)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["cache"] == {"ttl": 3600.0}
    assert shown["budget"] == {"monthly": 20.0}
    assert shown["providers"]["kagi"]["price"] == {"per_request": 0.02}
    assert shown["providers"]["kagi"]["cache_ttl"] == 60.0
    assert shown["providers"]["brave"]["price"] == {"per_request": 0.005}  # the public price list
    assert shown["providers"]["semantic_scholar"]["price"] == {}  # free
    assert "price" not in shown["providers"]["jina"]  # no public price known
    assert "price" not in shown["providers"]["anthropic"]  # another model than the one priced
    assert main(["config", "show", "--config", str(path)]) == 0  # and it is valid TOML too
    assert "[budget]\nmonthly = 20.0" in capsys.readouterr().out


def test_the_settings_editor_checks_the_new_tables(tmp_path: Path) -> None:
    editor = ConfigEditor.load(write(tmp_path, ""))
    assert editor.check("cache", "ttl", 600) is None
    assert editor.check("budget", "daily", 2.5) is None
    assert editor.check("providers.brave", "price", {"per_request": 0.01}) is None
    assert "[budget] daily must be a number of US dollars above 0" in (editor.check("budget", "daily", 0) or "")
    assert "unknown unit 'per_page'" in (editor.check("providers.brave", "price", {"per_page": 1}) or "")
    editor.set("budget", "monthly", 40)
    assert load_config(write(tmp_path, editor.text())).budget.monthly == 40.0
