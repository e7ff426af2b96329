"""The Python API: :func:`search`, :func:`asearch`, :func:`list_providers`, :func:`fetch` and
:func:`afetch`, also reached as ``websearch_tui.search(...)``, ``websearch_tui.fetch(url)``, ...

The same session, engine, providers and normalised result as the TUI and the CLI. Each search
opens its own :class:`~websearch_tui.session.Session` and closes its connections when it ends; keys
come from the environment, the OS keyring or the key file, as for the CLI, and the search is recorded
in the history unless ``record=False``. A provider that answered the same question recently is not
asked again: its result is reused from the history (``outcome.cached``; ``fresh=True`` asks every
provider again), and a search that would pass a configured ``[budget]`` raises
:class:`~websearch_tui.session.budget.OverBudget` before anything is sent (``over_budget=True`` runs
it). ``result.to_dict()`` is exactly the CLI's ``--format json`` document. :func:`fetch` reads one
page as the CLI's ``fetch`` does (the SSRF guard and the ``[reader]`` limits of the config) and
returns its :class:`~websearch_tui.core.pages.Page`. Importing this module is cheap: the engine, the
reader (and httpx) are imported when a search or a read runs.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from websearch_tui.core.pages import Page
    from websearch_tui.core.results import SearchResult
    from websearch_tui.core.specs import ProviderSpec
    from websearch_tui.settings.config import Config


def search(
    query: str,
    *,
    providers: Sequence[str] | None = None,
    mode: str = "compare",
    max_results: int | None = None,
    recency: str | None = None,
    config: str | os.PathLike[str] | Config | None = None,
    record: bool = True,
    fresh: bool = False,
    over_budget: bool = False,
) -> SearchResult:
    """Search ``query`` and return every provider's outcome (blocking; see :func:`asearch`).

    Raises:
        RuntimeError: when called from a running event loop (``await asearch(...)`` there).
        websearch_tui.core.models.RequestError, websearch_tui.settings.config.ConfigError,
            websearch_tui.session.budget.OverBudget: as :func:`asearch`.
    """
    _no_running_loop("search", "asearch")
    return asyncio.run(
        asearch(
            query,
            providers=providers,
            mode=mode,
            max_results=max_results,
            recency=recency,
            config=config,
            record=record,
            fresh=fresh,
            over_budget=over_budget,
        )
    )


async def asearch(
    query: str,
    *,
    providers: Sequence[str] | None = None,
    mode: str = "compare",
    max_results: int | None = None,
    recency: str | None = None,
    config: str | os.PathLike[str] | Config | None = None,
    record: bool = True,
    fresh: bool = False,
    over_budget: bool = False,
) -> SearchResult:
    """Search ``query`` with ``providers`` (ids; ``None``: the config's default selection) in ``mode``
    (``"compare"``: all at once; ``"auto"``: one at a time until one answers) and return the result.

    ``max_results`` (sources per provider, 1-20) and ``recency`` (``"day"``, ``"week"``, ``"month"``,
    ``"year"``) default to the config's. ``config`` is a path to a ``config.toml``, a loaded
    :class:`~websearch_tui.settings.config.Config`, or ``None`` for the file the CLI would use.
    ``record=False`` keeps this one search out of the history (as ``search --no-history``).
    ``fresh=True`` sends every provider's request, reusing no result from the history (as ``search
    --fresh``); otherwise a provider that answered the same question with the same controls within
    ``[cache] ttl`` is not asked again (its outcome's ``cached`` says where the result came from, its
    ``cost`` is $0). With a ``[budget]`` configured, a search that would pass it by estimate raises
    :class:`~websearch_tui.session.budget.OverBudget` (nothing sent) unless ``over_budget=True``.

    ``result.outcomes`` holds one :class:`~websearch_tui.core.results.ProviderOutcome` per provider:
    ``.provider``, ``.status`` (``RunStatus.DONE``, ``EMPTY``, ``FAILED``, ...), ``.response``
    (``answer``, ``sources`` with ``.url`` / ``.title`` / ``.snippet``, ``citations``, ...) and
    ``.error`` (a :class:`~websearch_tui.core.errors.ProviderError` or ``None``). A provider's failure
    never raises; ``result.ok`` tells whether any returned content, ``result.summary().error`` why not.

    Raises:
        websearch_tui.core.models.RequestError: an unknown provider (with a did-you-mean), an empty or
            too long query (1-4000 characters), a mode, recency or max_results out of range.
        websearch_tui.settings.config.ConfigError: the config file cannot be used.
        websearch_tui.session.budget.OverBudget: the search would pass a budget (``.overrun`` says
            which, what was spent and the estimate); nothing was sent.
        asyncio.CancelledError: when the calling task is cancelled (every provider run is cancelled
            and its connections closed first).
    """
    from websearch_tui.engine.requests import build_request
    from websearch_tui.session import OverBudget, Session

    loaded = _config(config)
    request = build_request(loaded, query, providers=providers, mode=mode, max_results=max_results, recency=recency)
    session = Session.from_config(loaded)
    try:
        overrun = None if over_budget else await session.budget_check(request, fresh=fresh)
        if overrun is not None:
            raise OverBudget(overrun, "over_budget=True")
        return await session.search(request, record=record, remember=False, fresh=fresh)
    finally:
        await session.aclose()


def fetch(url: str, *, config: str | os.PathLike[str] | Config | None = None) -> Page:
    """Read the page at ``url`` (blocking; see :func:`afetch`).

    Raises:
        RuntimeError: when called from a running event loop (``await afetch(...)`` there).
        websearch_tui.core.pages.PageError, websearch_tui.settings.config.ConfigError: as :func:`afetch`.
    """
    _no_running_loop("fetch", "afetch")
    return asyncio.run(afetch(url, config=config))


async def afetch(url: str, *, config: str | os.PathLike[str] | Config | None = None) -> Page:
    """Read the page at ``url`` and return its :class:`~websearch_tui.core.pages.Page`: ``.text``
    (the main content as Markdown), ``.title``, ``.site``, ``.author``, ``.published_date``,
    ``.final_url``, ``.word_count``, ``.truncated``, ... (``page.to_dict()`` is the CLI's
    ``fetch --format json``). ``config`` as for :func:`asearch`: its ``[reader]`` table gives the hosts
    allowed past the SSRF guard, the body cap and the timeout.

    Raises:
        websearch_tui.core.pages.PageError: the page could not be read; ``.reason`` says why
            (``blocked``, ``http_status``, ``too_large``, ``no_main_text``, ``timeout``, ``network``,
            ``unsupported``, ``bad_url``, ``too_many_redirects``), the message what to do.
        websearch_tui.settings.config.ConfigError: the config file cannot be used.
    """
    from websearch_tui.reader import Reader

    async with Reader(_config(config).reader) as reader:
        return await reader.read(url)


def list_providers() -> list[ProviderSpec]:
    """Every registered provider's :class:`~websearch_tui.core.specs.ProviderSpec` (``.id``, ``.label``,
    ``.kind``, ``.capabilities``, ``.key_env_vars``, ...), in registry order. Imports no provider code."""
    from websearch_tui.core.catalogue import SPECS

    return list(SPECS.values())


def _no_running_loop(name: str, async_name: str) -> None:
    """Refuse to block inside a running event loop.

    Raises:
        RuntimeError: naming ``websearch_tui.<name>()`` and the ``await websearch_tui.<async_name>()`` to use.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(f"websearch_tui.{name}() cannot run inside an event loop; await websearch_tui.{async_name}()")


def _config(config: str | os.PathLike[str] | Config | None) -> Config:
    """``config`` itself when loaded, else the file at that path (or the CLI's default file)."""
    from websearch_tui.settings.config import Config, load_config

    return config if isinstance(config, Config) else load_config(config)
