"""Building a :class:`~websearch_tui.core.models.SearchRequest` from what a front end was given: the CLI's
arguments, an MCP tool call's arguments or the Python API's keywords, with the config's defaults for
what was left out. One set of rules and messages for every front end.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import RequestError, SearchRequest

if TYPE_CHECKING:
    from websearch_tui.settings.config import Config


def check_providers(ids: Iterable[str]) -> tuple[str, ...]:
    """``ids`` stripped, lower-cased and de-duplicated (order kept), each a registered provider.

    Raises:
        RequestError: for the first unknown id, naming the closest known one
            (``unknown provider 'bravo' (did you mean 'brave'?)``) or listing them all.
    """
    checked = [provider_id.strip().lower() for provider_id in ids]
    for provider_id in checked:
        if provider_id not in SPECS:
            import difflib  # only to name the closest match of a mistake

            close = difflib.get_close_matches(provider_id, list(SPECS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; known: {', '.join(SPECS)}"
            raise RequestError(f"unknown provider {provider_id!r}{hint}")
    return tuple(dict.fromkeys(checked))


def build_request(
    config: Config,
    query: str,
    *,
    providers: Iterable[str] | None = None,
    mode: str | None = None,
    max_results: int | None = None,
    recency: str | None = None,
) -> SearchRequest:
    """The request for ``query`` (sent verbatim, 1-4000 characters once stripped); ``None`` (or no
    providers) takes the config's default: its selection, ``[search] mode``, ``max_results`` and
    ``recency``.

    Raises:
        RequestError: an unknown provider (see :func:`check_providers`), an empty or too long query,
            a mode or recency that is not one of the choices, ``max_results`` outside 1-20.
    """
    return SearchRequest(
        query=query,
        providers=check_providers(providers or ()),
        mode=mode or config.search.mode,
        max_results=config.search.max_results if max_results is None else max_results,
        recency=recency or config.search.recency,
    )
