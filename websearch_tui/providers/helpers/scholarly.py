"""What the keyless scholarly and community providers (OpenAlex, arXiv, Semantic Scholar, Wikipedia,
Hacker News) share: the User-Agent that names a contact where an API asks for one, author lists, and
the notes line that goes before a work's abstract in its snippet.

A :class:`~websearch_tui.core.models.Source` has no field for a venue, a citation count or a DOI, so
they travel as the first line of the snippet (``"Nature · 2019 · cited by 1,204 · doi:10.1038/x ·
open access"``): every front end and format already shows a snippet, and the merged view keeps the
best-ranked one.
"""

from __future__ import annotations

from collections.abc import Iterable

from websearch_tui.core.text import plain_text
from websearch_tui.core.version import __version__
from websearch_tui.providers.base import ProviderContext

CONTACT_OPTION = "contact"
"""The provider option (``[providers.<id>] contact``, else ``[search] contact``) naming how an API's
operators reach the user: an e-mail address or a URL (Wikimedia's User-Agent policy, OpenAlex's
``mailto``, arXiv's terms of use)."""
MAX_AUTHORS = 3
"""Authors named before ``et al.``."""


def contact(ctx: ProviderContext) -> str | None:
    """The configured contact (see :data:`CONTACT_OPTION`), stripped, or ``None``."""
    value = ctx.option(CONTACT_OPTION)
    return value.strip() or None if isinstance(value, str) else None


def user_agent(ctx: ProviderContext) -> str:
    """``websearch-tui/<version> (<contact>)`` when a contact is configured, else
    ``websearch-tui/<version>``: the descriptive User-Agent Wikimedia and arXiv ask for. The contact
    went through config validation (printable, one line), so it is safe in a header."""
    found = contact(ctx)
    return f"websearch-tui/{__version__}" + (f" ({found})" if found else "")


def author_list(names: Iterable[object], limit: int = MAX_AUTHORS) -> str | None:
    """The first ``limit`` clean author names joined with ``", "``, plus ``et al.`` when there are
    more; ``None`` when there is none. Linear in the names read (at most ``limit + 1``)."""
    shown: list[str] = []
    more = False
    for name in names:
        text = plain_text(name, collapse=True)
        if not text:
            continue
        if len(shown) == limit:
            more = True
            break
        shown.append(text)
    if not shown:
        return None
    return ", ".join(shown) + (" et al." if more else "")


def notes_line(*parts: object) -> str | None:
    """The parts that are non-blank strings, cleaned to one line each and joined with ``" · "``;
    ``None`` when none is left."""
    cleaned = [text for part in parts if (text := plain_text(part, collapse=True))]
    return " · ".join(cleaned) or None


def cited_by(count: object) -> str | None:
    """``"cited by 1,204"`` for a non-negative whole number, else ``None``."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        return None
    return f"cited by {count:,}"


def year_text(year: object) -> str | None:
    """A publication year (a whole number, not a boolean) as text, else ``None``."""
    return str(year) if isinstance(year, int) and not isinstance(year, bool) else None


def doi_url(doi: object) -> str | None:
    """``https://doi.org/<doi>`` (lower case: DOIs are case-insensitive, and one spelling lets the
    merged view see one work found by several graphs) from a bare DOI (``10.1093/mind/lix.236.433``)
    or a DOI URL; ``None`` for anything else."""
    text = plain_text(doi, collapse=True)
    if not text:
        return None
    bare = text.lower().removeprefix("https://doi.org/").removeprefix("http://doi.org/").removeprefix("doi:")
    return f"https://doi.org/{bare}" if bare.startswith("10.") and "/" in bare else None


def with_notes(notes: str | None, text: object) -> str | None:
    """The snippet: the notes line, a blank line, then the text (either may be missing)."""
    body = plain_text(text)
    if notes and body:
        return f"{notes}\n\n{body}"
    return notes or body
