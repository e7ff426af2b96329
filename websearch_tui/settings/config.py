"""Settings from ``config.toml``: location, defaults, validation with clear errors.

Location, first match wins: ``--config PATH``, ``$WEBSEARCH_TUI_CONFIG``, then
``config.toml`` in the platformdirs user config dir (``~/.config/websearch-tui/`` on Linux).
A missing file means defaults. A file that cannot be used raises :class:`ConfigError` whose
message names the file, the key and what is wrong; keys are never stored in this file.
Reading uses the standard library's ``tomllib``; edits keep the file's comments and layout through
tomlkit, in :mod:`websearch_tui.settings.edit`.

Schema (see ``config.example.toml``)::

    [search]  providers, mode, max_results, recency, timeout, max_body_mib, contact
    [ui]  theme
    [history]  enabled, max_entries, path
    [reader]  allow_private, max_bytes, timeout, max_age  (reading pages: websearch_tui.reader)
    [verify]  auto  (check every citation against its page after each search in the TUI)
    [cache]  ttl  (seconds a provider's finished result is reused for the same search; 0: never)
    [budget]  daily, monthly  (the most US dollars to spend; a search that would pass one asks first)
    [presets]  <name> = [provider ids]  (named selections, chosen in the TUI; beside the built-in
               scholar and community, which a preset of the same name replaces)
    [keymap]  <binding id> = "<keys>" (the TUI's keys; ids are checked by the TUI, see check_keymap_ids)
    [providers.<id>]  enabled, base_url, mcp_url, model, models, min_interval, cache_ttl,
                      price = { per_request = 0.005, ... } (the units of core.costs.Price.UNITS),
                      <provider options>
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from websearch_tui.core.catalogue import BUILTIN_PRESETS, DEFAULT_PROVIDERS, SPECS
from websearch_tui.core.costs import MAX_PRICE_USD, Price, plausible_usd
from websearch_tui.core.models import MAX_RESULTS_LIMIT, MODES, RECENCIES
from websearch_tui.core.pages import MAX_AGE_RANGE, MAX_BYTES_RANGE, TIMEOUT_RANGE, ReaderSettings, allowed_host
from websearch_tui.core.records import record
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.core.text import pattern

APP_NAME = "websearch-tui"
CONFIG_ENV = "WEBSEARCH_TUI_CONFIG"
_COMMON_PROVIDER_KEYS = {
    "enabled": bool,
    "base_url": str,
    "mcp_url": str,
    "model": str,
    "models": list,
    "min_interval": float,
    "cache_ttl": float,
    "price": dict,
}
_SEARCH_KEYS = ("providers", "mode", "max_results", "recency", "timeout", "max_body_mib", "contact")
CONTACT_OPTION = "contact"
"""The provider option an API's operators reach the user through (Wikipedia, OpenAlex, arXiv);
``[search] contact`` is its default."""
MAX_CONTACT_CHARS = 200
_CONTACT = r"[^\s@<>]{1,64}@[^\s@<>]{1,190}|https?://[^\s<>]{1,190}"
"""An e-mail address or an http(s) URL, without spaces or angle brackets (it goes in a header); compiled
by ``pattern()`` where a ``contact`` is checked."""
_HISTORY_KEYS = ("enabled", "max_entries", "path")
_READER_KEYS = ("allow_private", "max_bytes", "timeout", "max_age")
_VERIFY_KEYS = ("auto",)
_CACHE_KEYS = ("ttl",)
_BUDGET_KEYS = ("daily", "monthly")
MAX_CACHE_TTL = 30 * 86400
"""The longest a result may be reused: 30 days, in seconds (``[cache] ttl``, ``cache_ttl``)."""
MAX_HISTORY_ENTRIES = 1_000_000
_ENDPOINT_ENV = {"searxng": "SEARXNG_ENDPOINT"}
_KEY_NAME = r"[a-z0-9_]+(\+[a-z0-9_]+)*|[^\s,]"
"""One key as Textual names it: ``f2``, ``ctrl+q``, ``question_mark``, or one printable character."""


class ConfigError(Exception):
    """The config file cannot be used; ``str(error)`` is one line naming file, key and problem."""


@record(frozen=True)
class SearchSettings:
    """The ``[search]`` table: default selection, mode, result count, recency, per-provider timeout (s),
    and ``max_body_mib``: the largest response body or event stream read from a provider (MiB, 1-1024)."""

    providers: tuple[str, ...] = DEFAULT_PROVIDERS
    mode: str = "compare"
    max_results: int = 10
    recency: str | None = None
    timeout: float = 60.0
    max_body_mib: float = 8.0
    contact: str | None = None
    """How the operators of the APIs that ask for it reach the user (an e-mail address or a URL): sent
    to Wikipedia and arXiv in the User-Agent and to OpenAlex as ``mailto``, to no other provider."""


@record(frozen=True)
class UiSettings:
    """The ``[ui]`` table: ``theme`` is a Textual theme name (``None``: Textual's default)."""

    theme: str | None = None


@record(frozen=True)
class HistorySettings:
    """The ``[history]`` table: whether searches are recorded, how many are kept (1-1,000,000; the
    oldest are deleted), and ``path``: the history file (absolute or ``~/...``; ``None``: the default
    in the user data dir; ``$WEBSEARCH_TUI_HISTORY`` wins over both)."""

    enabled: bool = True
    max_entries: int = 10_000
    path: str | None = None


@record(frozen=True)
class VerifySettings:
    """The ``[verify]`` table: with ``auto`` the TUI checks every citation of a search against the
    page it cites once the search ends (as ``C`` does; the search is recorded with its checks)."""

    auto: bool = False


@record(frozen=True)
class CacheSettings:
    """The ``[cache]`` table: ``ttl`` is how long (seconds) a provider's finished result is reused for
    the same question with the same controls (0 turns reuse off; ``[providers.X] cache_ttl`` wins)."""

    ttl: float = 3600.0


@record(frozen=True)
class BudgetSettings:
    """The ``[budget]`` table: the most US dollars to spend per calendar day and per calendar month
    (local time); ``None``: no limit."""

    daily: float | None = None
    monthly: float | None = None


@record(frozen=True)
class Config:
    """Validated settings; ``path`` is the file they came from (which may not exist)."""

    path: Path | None = None
    search: SearchSettings = SearchSettings()
    ui: UiSettings = UiSettings()
    history: HistorySettings = HistorySettings()
    reader: ReaderSettings = ReaderSettings()
    verify: VerifySettings = VerifySettings()
    cache: CacheSettings = CacheSettings()
    budget: BudgetSettings = BudgetSettings()
    providers: Mapping[str, ProviderSettings] = field(default_factory=dict)
    presets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """``[presets]``: name -> provider ids in order (``quick = ["brave", "tavily", "exa"]``), in file order."""
    keymap: Mapping[str, str] = field(default_factory=dict)
    """The ``[keymap]`` table: binding id -> keys (``"f2"``, ``"ctrl+q,f10"``), for ``App.set_keymap``."""

    def settings_for(self, provider_id: str) -> ProviderSettings:
        """The provider's table, with endpoint env vars (``SEARXNG_ENDPOINT``) as defaults and, for a
        provider that takes a ``contact`` option its table does not set, ``[search] contact``."""
        settings = self.providers.get(provider_id, ProviderSettings())
        env = _ENDPOINT_ENV.get(provider_id)
        if env and not settings.base_url and os.environ.get(env, "").strip():
            settings = dataclasses.replace(settings, base_url=os.environ[env].strip())
        spec = SPECS.get(provider_id)
        if self.search.contact and spec and CONTACT_OPTION in spec.options and CONTACT_OPTION not in settings.options:
            settings = dataclasses.replace(settings, options={**settings.options, CONTACT_OPTION: self.search.contact})
        return settings

    def is_enabled(self, provider_id: str) -> bool:
        """False only when the file says ``enabled = false`` for the provider."""
        return self.settings_for(provider_id).enabled is not False

    def enabled_presets(self) -> dict[str, tuple[str, ...]]:
        """``[presets]`` in file order, then the built-in presets it does not replace
        (:data:`~websearch_tui.core.catalogue.BUILTIN_PRESETS`), without the providers the file
        switches off (``enabled = false``): what a preset selects in the TUI (``p`` steps through them
        in this order) and runs on the CLI (``search --preset``)."""
        presets = {**self.presets, **{name: ids for name, ids in BUILTIN_PRESETS.items() if name not in self.presets}}
        return {name: tuple(pid for pid in ids if self.is_enabled(pid)) for name, ids in presets.items()}

    def default_selection(self) -> list[str]:
        """The providers a search runs when none are named (and the TUI selects at start while it
        remembers nothing for this config file, :mod:`websearch_tui.tui.common.remembered`): ``[search]
        providers`` in order, minus providers switched off with ``enabled = false``."""
        return [pid for pid in self.search.providers if pid in SPECS and self.is_enabled(pid)]


def default_config_path() -> Path:
    """``config.toml`` in the platformdirs user config directory."""
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


def config_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the config location: ``explicit``, else ``$WEBSEARCH_TUI_CONFIG``, else the default."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(CONFIG_ENV, "").strip()
    return Path(env).expanduser() if env else default_config_path()


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read and validate the config file (defaults when it does not exist).

    Raises:
        ConfigError: unreadable file, TOML syntax error, nesting too deep for the parser, unknown key
            or provider, wrong type or range.
    """
    file = config_path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        if path:
            raise ConfigError(f"{file}: file not found") from None
        return Config(path=file)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read the file ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    except RecursionError:
        raise nested_too_deeply(file) from None
    return parse_config(data, file)


def nested_too_deeply(file: Path) -> ConfigError:
    """The error for a TOML file whose arrays or inline tables nest deeper than the parser can follow
    (it runs out of stack, ``RecursionError``, long before a config's few levels would)."""
    return ConfigError(
        f"{file}: not valid as a config: its arrays or inline tables are nested too deeply "
        "(a config needs at most a few levels); fix the file or start from config.example.toml"
    )


def parse_config(data: Mapping[str, Any], file: Path | None = None) -> Config:
    """Validate an already-parsed TOML document into a :class:`Config`.

    Raises:
        ConfigError: as :func:`load_config`.
    """
    where = str(file) if file else "config"
    _reject_unknown(
        where,
        "",
        data,
        ("search", "ui", "history", "reader", "verify", "cache", "budget", "keymap", "providers", "presets"),
    )
    search_table = _table(where, "search", data.get("search", {}))
    providers_table = _table(where, "providers", data.get("providers", {}))
    search = _parse_search(where, search_table)
    ui = _parse_ui(where, _table(where, "ui", data.get("ui", {})))
    history = _parse_history(where, _table(where, "history", data.get("history", {})))
    reader = _parse_reader(where, _table(where, "reader", data.get("reader", {})))
    verify = _parse_verify(where, _table(where, "verify", data.get("verify", {})))
    cache = _parse_cache(where, _table(where, "cache", data.get("cache", {})))
    budget = _parse_budget(where, _table(where, "budget", data.get("budget", {})))
    presets = _parse_presets(where, _table(where, "presets", data.get("presets", {})))
    keymap = _parse_keymap(where, _table(where, "keymap", data.get("keymap", {})))
    providers: dict[str, ProviderSettings] = {}
    for provider_id, table in providers_table.items():
        if provider_id not in SPECS:
            raise ConfigError(
                f"{where}: [providers.{provider_id}] is not a known provider{_suggest(provider_id, SPECS)}"
            )
        providers[provider_id] = _parse_provider(where, provider_id, _table(where, f"providers.{provider_id}", table))
    return Config(
        path=file,
        search=search,
        ui=ui,
        history=history,
        reader=reader,
        verify=verify,
        cache=cache,
        budget=budget,
        providers=providers,
        presets=presets,
        keymap=keymap,
    )


def _parse_search(where: str, table: Mapping[str, Any]) -> SearchSettings:
    _reject_unknown(where, "search", table, _SEARCH_KEYS)
    defaults = SearchSettings()
    providers = table.get("providers", list(defaults.providers))
    if not isinstance(providers, list) or not all(isinstance(p, str) for p in providers):
        raise ConfigError(f"{where}: [search] providers must be a list of provider ids, got {providers!r}")
    for provider_id in providers:
        if provider_id not in SPECS:
            raise ConfigError(
                f"{where}: [search] providers: unknown provider {provider_id!r}{_suggest(provider_id, SPECS)}"
            )
    mode = table.get("mode", defaults.mode)
    if mode not in MODES:
        raise ConfigError(f"{where}: [search] mode must be one of {', '.join(MODES)}, got {mode!r}")
    max_results = table.get("max_results", defaults.max_results)
    if isinstance(max_results, bool) or not isinstance(max_results, int) or not 1 <= max_results <= MAX_RESULTS_LIMIT:
        raise ConfigError(
            f"{where}: [search] max_results must be a whole number from 1 to {MAX_RESULTS_LIMIT}, got {max_results!r}"
        )
    recency = table.get("recency", "")
    if recency not in ("", *RECENCIES):
        raise ConfigError(f'{where}: [search] recency must be "" or one of {", ".join(RECENCIES)}, got {recency!r}')
    timeout = table.get("timeout", defaults.timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 1 <= timeout <= 600:
        raise ConfigError(f"{where}: [search] timeout must be a number of seconds from 1 to 600, got {timeout!r}")
    max_body = table.get("max_body_mib", defaults.max_body_mib)
    if isinstance(max_body, bool) or not isinstance(max_body, (int, float)) or not 1 <= max_body <= 1024:
        raise ConfigError(f"{where}: [search] max_body_mib must be a number of MiB from 1 to 1024, got {max_body!r}")
    contact = check_contact(where, "[search]", table.get("contact"))
    return SearchSettings(
        tuple(dict.fromkeys(providers)), mode, max_results, recency or None, float(timeout), float(max_body), contact
    )


def check_contact(where: str, section: str, value: Any) -> str | None:
    """A ``contact`` value stripped (``None`` for a missing or blank one).

    Raises:
        ConfigError: naming ``section`` when it is not an e-mail address or an http(s) URL of at most
            :data:`MAX_CONTACT_CHARS` characters on one line.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = value.strip() if isinstance(value, str) else ""
    if (
        len(text) > MAX_CONTACT_CHARS
        or not text.isascii()
        or not text.isprintable()
        or not pattern(_CONTACT).fullmatch(text)
    ):
        raise ConfigError(
            f"{where}: {section} contact must be an e-mail address or an http(s) URL (at most "
            f'{MAX_CONTACT_CHARS} characters, no spaces), such as "you@example.org"; got {value!r}'
        )
    return text


def _parse_presets(where: str, table: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """``[presets]``: every value a non-empty list of known provider ids (duplicates kept once)."""
    presets = {}
    for name, ids in table.items():
        if not name.strip():
            raise ConfigError(f"{where}: [presets] a preset needs a name, got {name!r}")
        if not isinstance(ids, list) or not ids or not all(isinstance(pid, str) for pid in ids):
            raise ConfigError(f"{where}: [presets] {name} must be a non-empty list of provider ids, got {ids!r}")
        for provider_id in ids:
            if provider_id not in SPECS:
                raise ConfigError(
                    f"{where}: [presets] {name}: unknown provider {provider_id!r}{_suggest(provider_id, SPECS)}"
                )
        presets[name] = tuple(dict.fromkeys(ids))
    return presets


def _parse_ui(where: str, table: Mapping[str, Any]) -> UiSettings:
    _reject_unknown(where, "ui", table, ("theme",))
    theme = table.get("theme", "")
    if not isinstance(theme, str):
        raise ConfigError(f"{where}: [ui] theme must be a theme name (a string), got {theme!r}")
    return UiSettings(theme=theme.strip() or None)


def _parse_history(where: str, table: Mapping[str, Any]) -> HistorySettings:
    _reject_unknown(where, "history", table, _HISTORY_KEYS)
    defaults = HistorySettings()
    enabled = table.get("enabled", defaults.enabled)
    if not isinstance(enabled, bool):
        raise ConfigError(f"{where}: [history] enabled must be true or false, got {enabled!r}")
    max_entries = table.get("max_entries", defaults.max_entries)
    if isinstance(max_entries, bool) or not isinstance(max_entries, int) or not 1 <= max_entries <= MAX_HISTORY_ENTRIES:
        raise ConfigError(
            f"{where}: [history] max_entries must be a whole number from 1 to {MAX_HISTORY_ENTRIES:,}, "
            f"got {max_entries!r}"
        )
    path = table.get("path", "")
    if not isinstance(path, str):
        raise ConfigError(f"{where}: [history] path must be a file path (a string), got {path!r}")
    path = path.strip()
    if path and not Path(path).expanduser().is_absolute():
        raise ConfigError(
            f'{where}: [history] path must be absolute or start with ~ (e.g. "~/research/history.sqlite3"), '
            f"got {path!r}"
        )
    return HistorySettings(enabled, max_entries, path or None)


def _parse_reader(where: str, table: Mapping[str, Any]) -> ReaderSettings:
    """``[reader]``: ``allow_private`` a list of host names, IP addresses or networks; ``max_bytes``
    a whole number of bytes; ``timeout`` and ``max_age`` numbers of seconds; each within its range
    (:mod:`websearch_tui.core.pages`)."""
    _reject_unknown(where, "reader", table, _READER_KEYS)
    defaults = ReaderSettings()
    allow = table.get("allow_private", [])
    if not isinstance(allow, list) or not all(isinstance(entry, str) for entry in allow):
        raise ConfigError(
            f'{where}: [reader] allow_private must be a list of hosts, e.g. ["127.0.0.1", "intranet.example"], '
            f"got {allow!r}"
        )
    for entry in allow:
        try:
            allowed_host(entry)
        except ValueError as exc:
            raise ConfigError(f"{where}: [reader] allow_private: {exc}") from None
    max_bytes = table.get("max_bytes", defaults.max_bytes)
    low, high = MAX_BYTES_RANGE
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or not low <= max_bytes <= high:
        raise ConfigError(
            f"{where}: [reader] max_bytes must be a whole number of bytes from {low:,} to {high:,} "
            f"(5 MiB is 5242880), got {max_bytes!r}"
        )
    timeout = _seconds(where, "timeout", table.get("timeout", defaults.timeout), TIMEOUT_RANGE)
    max_age = _seconds(where, "max_age", table.get("max_age", defaults.max_age), MAX_AGE_RANGE)
    return ReaderSettings(tuple(dict.fromkeys(entry.strip() for entry in allow)), max_bytes, timeout, max_age)


def _parse_verify(where: str, table: Mapping[str, Any]) -> VerifySettings:
    """``[verify]``: ``auto`` true or false."""
    _reject_unknown(where, "verify", table, _VERIFY_KEYS)
    auto = table.get("auto", VerifySettings.auto)
    if not isinstance(auto, bool):
        raise ConfigError(f"{where}: [verify] auto must be true or false, got {auto!r}")
    return VerifySettings(auto)


def _parse_cache(where: str, table: Mapping[str, Any]) -> CacheSettings:
    """``[cache]``: ``ttl`` a number of seconds from 0 (no reuse) to :data:`MAX_CACHE_TTL`."""
    _reject_unknown(where, "cache", table, _CACHE_KEYS)
    return CacheSettings(_cache_ttl(where, "[cache] ttl", table.get("ttl", CacheSettings.ttl)))


def _cache_ttl(where: str, name: str, value: Any) -> float:
    """``value`` as seconds a result may be reused, 0 (never) to :data:`MAX_CACHE_TTL`.

    Raises:
        ConfigError: naming ``name`` when it is not such a number.
    """
    if not _is_number(value) or not 0 <= value <= MAX_CACHE_TTL:
        raise ConfigError(
            f"{where}: {name} must be a number of seconds from 0 (no reuse) to {MAX_CACHE_TTL:,} (30 days), "
            f"got {value!r}"
        )
    return float(value)


def _parse_budget(where: str, table: Mapping[str, Any]) -> BudgetSettings:
    """``[budget]``: ``daily`` and ``monthly``, each a number of US dollars above 0 (absent: no limit)."""
    _reject_unknown(where, "budget", table, _BUDGET_KEYS)
    limits: dict[str, float | None] = {}
    for key in _BUDGET_KEYS:
        value = table.get(key)
        if value is not None and (not _is_number(value) or not 0 < value < math.inf):
            raise ConfigError(
                f"{where}: [budget] {key} must be a number of US dollars above 0 (e.g. 2.00), got {value!r}"
            )
        limits[key] = float(value) if value is not None else None
    return BudgetSettings(**limits)


def _parse_price(where: str, section: str, value: Mapping[str, Any]) -> Price:
    """``price = { per_request = 0.005, ... }``: each key one of :attr:`Price.UNITS`, each value a
    number of US dollars from 0 up; units left out cost 0.

    Raises:
        ConfigError: naming the unknown key (and the units there are) or the bad value.
    """
    for unit, amount in value.items():
        if unit not in Price.UNITS:
            raise ConfigError(
                f"{where}: {section} price: unknown unit {unit!r}{_suggest(unit, Price.UNITS)}; "
                f"the units are {', '.join(Price.UNITS)}"
            )
        if not _is_number(amount) or not plausible_usd(amount, MAX_PRICE_USD):
            raise ConfigError(
                f"{where}: {section} price {unit} must be a number of US dollars from 0 to "
                f"{MAX_PRICE_USD:,.0f}, got {amount!r}"
            )
    if not value:
        raise ConfigError(
            f"{where}: {section} price is empty: give at least one of {', '.join(Price.UNITS)} "
            "(per_request = 0 for a provider you do not pay for; leave price out for the public price list)"
        )
    dollars = {unit: float(value.get(unit, 0.0)) for unit in Price.UNITS}
    return Price(
        per_request=dollars["per_request"],
        per_1k_results=dollars["per_1k_results"],
        per_million_input_tokens=dollars["per_million_input_tokens"],
        per_million_output_tokens=dollars["per_million_output_tokens"],
        per_search_call=dollars["per_search_call"],
    )


def _is_number(value: Any) -> bool:
    """True for an int or a float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _seconds(where: str, key: str, value: Any, bounds: tuple[float, float]) -> float:
    """``[reader] key`` as a number of seconds within ``bounds``.

    Raises:
        ConfigError: not a number, or out of range (the message names both ends).
    """
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ConfigError(
            f"{where}: [reader] {key} must be a number of seconds from {low:,.0f} to {high:,.0f}, got {value!r}"
        )
    return float(value)


def _parse_keymap(where: str, table: Mapping[str, Any]) -> dict[str, str]:
    """Binding id -> keys, each value one or more key names separated by commas (ids: see
    :func:`check_keymap_ids`)."""
    keymap = {}
    for binding_id, keys in table.items():
        names = keys.split(",") if isinstance(keys, str) else []
        if not names or not all(pattern(_KEY_NAME).fullmatch(name.strip()) for name in names):
            raise ConfigError(
                f'{where}: [keymap] {binding_id} must be a string of key names such as "f2" or "ctrl+q" '
                f'(several separated by commas: "ctrl+q,f10"), got {keys!r}'
            )
        keymap[binding_id] = ",".join(name.strip() for name in names)
    return keymap


def check_keymap_ids(config: Config, known_ids: Collection[str]) -> None:
    """Refuse a ``[keymap]`` binding id that is not one of ``known_ids`` (the TUI's, which this module
    does not import: the TUI passes them in when it starts).

    Raises:
        ConfigError: naming the file, the id, the closest known id and every known one.
    """
    where = str(config.path) if config.path else "config"
    for binding_id in config.keymap:
        if binding_id not in known_ids:
            raise ConfigError(
                f"{where}: [keymap] {binding_id!r} is not a binding id{_suggest(binding_id, known_ids)}; "
                f"the ids are: {', '.join(sorted(known_ids))}"
            )


def _parse_provider(where: str, provider_id: str, table: Mapping[str, Any]) -> ProviderSettings:
    spec = SPECS[provider_id]
    allowed: dict[str, type] = {**_COMMON_PROVIDER_KEYS, **spec.options}
    section = f"[providers.{provider_id}]"
    for credential in spec.credentials:
        if credential.name in table:
            env = f" or export {credential.env_vars[0]}" if credential.env_vars else ""
            raise ConfigError(
                f"{where}: {section} {credential.name}: keys never go in config.toml; store it with "
                f"`websearch-tui keys set {provider_id}` or the settings screen (F3){env}"
            )
    _reject_unknown(where, f"providers.{provider_id}", table, tuple(allowed))
    for key, value in table.items():
        expected = allowed[key]
        accepted = (int, float) if expected is float else expected
        ok = isinstance(value, accepted) and not (expected in (int, float) and isinstance(value, bool))
        if not ok:
            raise ConfigError(f"{where}: {section} {key} must be {_type_name(expected)}, got {value!r}")
        if expected is list and key in spec.options and not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{where}: {section} {key} must be a list of strings, got {value!r}")
    for key, choices in spec.option_choices.items():
        value = table.get(key)
        if isinstance(value, str) and value.strip().lower() not in choices:
            raise ConfigError(f"{where}: {section} {key} must be one of {', '.join(choices)}, got {value!r}")
    for key in ("base_url", "mcp_url"):
        if key in table and not _is_http_url(table[key]):
            raise ConfigError(
                f"{where}: {section} {key} must be an http(s) URL such as https://host, got {table[key]!r}"
            )
    if CONTACT_OPTION in spec.options:
        check_contact(where, section, table.get(CONTACT_OPTION))
    min_interval = table.get("min_interval")
    if min_interval is not None and not 0 <= min_interval <= 3600:
        raise ConfigError(f"{where}: {section} min_interval must be from 0 to 3600 seconds, got {min_interval!r}")
    models = table.get("models", [])
    if not all(isinstance(m, str) and m.strip() for m in models):
        raise ConfigError(f"{where}: {section} models must be a list of model names, got {models!r}")
    cache_ttl = table.get("cache_ttl")
    if cache_ttl is not None:
        cache_ttl = _cache_ttl(where, f"{section} cache_ttl", cache_ttl)
    price = _parse_price(where, section, table["price"]) if "price" in table else None
    return ProviderSettings(
        enabled=table.get("enabled"),
        base_url=table.get("base_url") or None,
        mcp_url=table.get("mcp_url") or None,
        model=table.get("model") or None,
        models=tuple(models),
        options={k: v for k, v in table.items() if k in spec.options},
        min_interval=float(min_interval) if min_interval is not None else None,
        price=price,
        cache_ttl=cache_ttl,
    )


def _table(where: str, name: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: [{name}] must be a table, got {value!r}")
    return value


def _reject_unknown(where: str, section: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for key in table:
        if key not in allowed:
            place = f"in [{section}]" if section else "at the top level"
            raise ConfigError(f"{where}: unknown key {key!r} {place}{_suggest(key, allowed)}")


def _suggest(word: str, choices: Any) -> str:
    import difflib  # only to name the closest match of a mistake

    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _type_name(expected: type) -> str:
    names = {
        bool: "true or false",
        str: "a string",
        int: "a whole number",
        float: "a number",
        list: "a list",
        dict: "a table such as { per_request = 0.005 }",
    }
    return names.get(expected, expected.__name__)


def _is_http_url(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)
