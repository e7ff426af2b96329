"""``websearch-tui config path|show|validate``: the config file in use, its effective settings
(defaults filled in, as TOML or JSON, never a key), or a check of it (OK, or the first problem)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from websearch_tui.cli.common import config_errors_as_usage, load_config, warn
from websearch_tui.cli.front_ends import CheckKeymap
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.text import single_line

if TYPE_CHECKING:
    from websearch_tui.core.specs import ProviderSettings, ProviderSpec
    from websearch_tui.settings.config import Config


def run(args: argparse.Namespace, check_keymap: CheckKeymap | None) -> int:
    """``config path|show|validate``; always 0 (``path`` says on stderr whether the file exists).
    ``validate`` checks the ``[keymap]`` ids with ``check_keymap`` (the terminal UI's; ``None``: not
    checked) and warns on stderr of keys that do not act in a text field (a letter for Quit).

    Raises:
        UsageError: an unusable config file, a ``[keymap]`` id no binding has.
    """
    from websearch_tui.settings.config import CONFIG_ENV, config_path

    if args.config_command == "path":
        path = config_path(args.config)
        origin = "--config" if args.config else f"${CONFIG_ENV}" if os.environ.get(CONFIG_ENV, "").strip() else None
        state = "exists" if path.exists() else "does not exist; the defaults apply"
        print(path)
        print(f"{state}{f' (set by {origin})' if origin else ''}", file=sys.stderr)
        return 0
    config = load_config(args)
    if args.config_command == "show":
        if args.format == "json":
            print(json.dumps(_effective_settings(config), indent=2))
        else:
            print(_effective_toml(config), end="")
        return 0
    if check_keymap is not None:
        with config_errors_as_usage():
            warn(check_keymap(config))
    exists = config.path is not None and config.path.exists()
    print(single_line(f"OK: {config.path}" + ("" if exists else " (does not exist; the defaults apply)")))
    return 0


def _effective_toml(config: Config) -> str:
    """The effective settings as TOML: every ``[search]``, ``[ui]``, ``[history]``, ``[reader]`` and
    ``[cache]`` key, the ``[budget]`` limits set, the ``[keymap]`` and, per provider, its enabled
    state, endpoints, model, pacing and price with defaults filled in, plus the options set in the file.

    Keys never live in the config; URL passwords and secret-looking query values are masked anyway.
    """
    import tomlkit

    settings = _effective_settings(config)
    document = tomlkit.document()
    document.add(tomlkit.comment(f"effective settings from {config.path} (defaults filled in; keys are never shown)"))
    document["search"] = settings["search"]
    document["ui"] = settings["ui"]
    document["history"] = settings["history"]
    document["reader"] = settings["reader"]
    document["cache"] = settings["cache"]
    document["budget"] = settings["budget"]
    document["presets"] = settings["presets"]
    document["keymap"] = settings["keymap"]
    providers = tomlkit.table(is_super_table=True)
    for provider_id, table in settings["providers"].items():
        providers[provider_id] = table
    document["providers"] = providers
    return tomlkit.dumps(document)


def _effective_settings(config: Config) -> dict[str, Any]:
    """The effective settings as plain data, ``{"search": {...}, "ui": {...}, "history": {...}, "presets": {name:
    [ids]}, "keymap": {id: keys}, "providers": {id: table}}`` (what ``config show`` prints as TOML or JSON; see
    :func:`_effective_toml`)."""
    search = config.search
    return {
        "search": {
            "providers": list(search.providers),
            "mode": search.mode,
            "max_results": search.max_results,
            "recency": search.recency or "",
            "timeout": search.timeout,
            "max_body_mib": search.max_body_mib,
            "contact": search.contact or "",
        },
        "ui": {"theme": config.ui.theme or ""},
        "history": _history_settings(config),
        "reader": _reader_settings(config),
        "cache": {"ttl": config.cache.ttl},
        "budget": {key: value for key, value in dataclasses.asdict(config.budget).items() if value is not None},
        "presets": {name: list(ids) for name, ids in config.presets.items()},
        "keymap": dict(config.keymap),
        "providers": {spec.id: _provider_table(spec, config.settings_for(spec.id)) for spec in SPECS.values()},
    }


def _reader_settings(config: Config) -> dict[str, object]:
    """The effective ``[reader]`` table."""
    reader = config.reader
    return {
        "allow_private": list(reader.allow_private),
        "max_bytes": reader.max_bytes,
        "timeout": reader.timeout,
        "max_age": reader.max_age,
    }


def _history_settings(config: Config) -> dict[str, object]:
    """The effective ``[history]`` table, with the file the history is kept in."""
    from websearch_tui.history import history_path

    history = config.history
    return {"enabled": history.enabled, "max_entries": history.max_entries, "path": str(history_path(history.path))}


def _provider_table(spec: ProviderSpec, settings: ProviderSettings) -> dict[str, object]:
    """One provider's effective ``[providers.<id>]`` table (``None`` values left out): ``price`` is the
    file's or the public price list's, as its non-zero units (``{}``: free; left out: unknown)."""
    from websearch_tui.core.prices import price_for
    from websearch_tui.core.specs import asked_model

    model = asked_model(spec, settings)
    price = price_for(spec, settings)
    table = {
        "enabled": settings.enabled is not False,
        "base_url": _mask_url(settings.base_url or spec.default_base_url),
        "mcp_url": _mask_url(settings.mcp_url or spec.default_mcp_url),
        "model": model,
        "models": list(settings.models) or None,
        "min_interval": settings.min_interval if settings.min_interval is not None else spec.default_min_interval,
        "cache_ttl": settings.cache_ttl,
        "price": {unit: getattr(price, unit) for unit in price.UNITS if getattr(price, unit)} if price else None,
        **settings.options,
    }
    return {key: value for key, value in table.items() if value is not None}


_SECRET_PARAM = ("key", "token", "secret", "password", "auth", "signature")


def _mask_url(url: str | None) -> str | None:
    """``url`` with a user-info password (or a lone user-info token) and secret-looking query values
    replaced by ``***``."""
    if not url:
        return None
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password:
        parts = parts._replace(netloc=f"{parts.username}:***@{parts.netloc.rpartition('@')[2]}")
    elif "@" in parts.netloc:  # https://TOKEN@host: a user name alone is often a token
        parts = parts._replace(netloc=f"***@{parts.netloc.rpartition('@')[2]}")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if any(word in name.lower() for name, _ in pairs for word in _SECRET_PARAM):
        masked = [(k, "***" if any(word in k.lower() for word in _SECRET_PARAM) else v) for k, v in pairs]
        parts = parts._replace(query=urlencode(masked, safe="*"))
    return urlunsplit(parts)
