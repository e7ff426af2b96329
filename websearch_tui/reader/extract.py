"""Extracting a page's main content as Markdown, and its title, site, author and date.

- HTML: parsed once with lxml, then trafilatura (Markdown with headings, lists, tables and links;
  its metadata for title, site name, author and date). When trafilatura finds no main text,
  readability-lxml picks the main block and trafilatura turns that into Markdown (its plain text if
  even that fails).
- PDF: pypdf's text of each page (at most :data:`MAX_PDF_PAGES`), and the document's title,
  author and creation date.
- Plain text: as it is.

Every field is sanitised (:func:`~websearch_tui.core.text.sanitize`: no terminal escapes, control or
bidirectional characters) and Unicode-normalised (NFC). This module is blocking and CPU-bound: the
reader runs :func:`extract` in a worker thread, under a time limit
(:data:`~websearch_tui.reader.EXTRACT_TIMEOUT`).

Work is bounded: the body is at most ``[reader] max_bytes`` (5 MiB by default); the HTML parser is
lxml's default one, which stops nesting at 256 levels (a page 100,000 tags deep is cut there, so no
recursion in the extractors can run away); a page of more than :data:`MAX_ELEMENTS` elements is
refused (``too_large``) before extraction, whose cost grows with the element count (about 0.1 ms
per element here: 60,000 elements take some 6 s).
"""

from __future__ import annotations

import io
import itertools
import logging
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from websearch_tui.core.pages import PageError, PageReason
from websearch_tui.core.text import host_of, sanitize, truncate
from websearch_tui.reader.charset import decode
from websearch_tui.reader.fetch import BodyKind, Fetched

if TYPE_CHECKING:
    from lxml.html import HtmlElement

log = logging.getLogger(__name__)

MAX_ELEMENTS = 60_000
"""The most HTML elements a page may have to be extracted (a long encyclopaedia article has some
30,000); more is refused as ``too_large``."""
MAX_PDF_PAGES = 1_000
"""The most PDF pages whose text is extracted; the rest are left out and the page marked truncated."""
MAX_FIELD_CHARS = 300
"""The longest title, site or author kept (longer ones are cut with an ellipsis)."""
_SPACES = re.compile(r"\s+")
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class Extracted:
    """What :func:`extract` found: the main text as Markdown and the page's facts, each sanitised.

    Attributes:
        text: the main content (Markdown for HTML; the text itself for PDF and plain text).
        title: the title, or ``None``.
        site: the site's name as the page gives it, else the host without ``www.``.
        author: the author(s), or ``None``.
        published_date: an ISO date (``"2024-05-01"``), or ``None``.
        truncated: True when part of the content was left out (PDF pages past :data:`MAX_PDF_PAGES`).
    """

    text: str
    title: str | None = None
    site: str | None = None
    author: str | None = None
    published_date: str | None = None
    truncated: bool = False


def extract(fetched: Fetched) -> Extracted:
    """The main content and facts of ``fetched`` (blocking, CPU-bound: run it in a worker thread).

    Raises:
        PageError: ``no_main_text`` (nothing readable found; a PDF that cannot be parsed),
            ``too_large`` (more than :data:`MAX_ELEMENTS` HTML elements), ``unsupported`` (an
            encrypted PDF).
    """
    if fetched.kind is BodyKind.PDF:
        found = _pdf(fetched)
    elif fetched.kind is BodyKind.HTML:
        found = _html(decode(fetched.body, fetched.charset), fetched.final_url)
    else:
        found = Extracted(text=decode(fetched.body, fetched.charset))
    cleaned = Extracted(
        text=_clean_text(found.text),
        title=_field(found.title),
        site=_field(found.site) or host_of(fetched.final_url) or None,
        author=_field(found.author),
        published_date=found.published_date,
        truncated=found.truncated,
    )
    if not cleaned.text:
        cut = " (only its first part was read: it is longer than [reader] max_bytes)" if fetched.truncated else ""
        raise PageError(
            PageReason.NO_MAIN_TEXT,
            f"no main text found at {fetched.final_url}{cut}; the page may be built by scripts, need a login, "
            "or hold only navigation or images",
            url=fetched.url,
            status=fetched.status,
        )
    return cleaned


def _clean_text(text: str) -> str:
    """``text`` sanitised, NFC-normalised, without trailing spaces on lines or runs of blank lines."""
    text = unicodedata.normalize("NFC", sanitize(text))
    lines = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", lines).strip()


def _field(value: object) -> str | None:
    """A metadata value as one sanitised line of at most :data:`MAX_FIELD_CHARS` characters, or ``None``."""
    if not isinstance(value, str):
        return None
    text = _SPACES.sub(" ", unicodedata.normalize("NFC", sanitize(value))).strip()
    return truncate(text, MAX_FIELD_CHARS) if text else None


def _html(markup: str, url: str) -> Extracted:
    """Main text and metadata of an HTML page (see the module's docstring)."""
    import trafilatura

    tree = _parse(markup, url)
    if tree is None:
        return Extracted(text="")
    try:
        metadata = trafilatura.extract_metadata(tree, default_url=url, extensive=False)
        text = trafilatura.extract(tree, url=url, **_MARKDOWN) or _readability(markup, url)
    except RecursionError:
        raise PageError(PageReason.NO_MAIN_TEXT, f"the page at {url} is nested too deeply to read", url=url) from None
    return Extracted(
        text=text,
        title=metadata.title,
        site=metadata.sitename,
        author=metadata.author,
        published_date=_iso_date(metadata.date),
    )


_MARKDOWN: dict[str, Any] = {
    "output_format": "markdown",
    "fast": True,  # no comparison with other extractors: readability is our own fallback
    "include_links": True,
    "include_tables": True,
    "include_formatting": True,
    "include_comments": False,
}
"""trafilatura's options: the main text as Markdown, links and tables kept, readers' comments left out."""
_FALLBACK: dict[str, Any] = {**_MARKDOWN, "fast": False, "favor_recall": True}
"""trafilatura's options over the block readability picked: all of its own cascade, keeping what it can."""


def _parse(markup: str, url: str) -> HtmlElement | None:
    """``markup`` parsed by lxml's HTML parser (its default limits: nesting stops at 256 levels);
    ``None`` for a document without any element (empty, or only spaces).

    Raises:
        PageError: ``too_large`` for more than :data:`MAX_ELEMENTS` elements.
    """
    from lxml import etree
    from lxml.html import HTMLParser, document_fromstring

    parser = HTMLParser(encoding="utf-8", huge_tree=False)
    try:
        tree = document_fromstring(markup.encode("utf-8", errors="replace"), parser=parser)
    except etree.ParserError:  # "Document is empty"
        return None
    if sum(1 for _ in itertools.islice(tree.iter(), MAX_ELEMENTS + 1)) > MAX_ELEMENTS:
        raise PageError(
            PageReason.TOO_LARGE,
            f"the page at {url} has more than {MAX_ELEMENTS:,} HTML elements, more than the reader extracts; "
            "open it in a browser",
            url=url,
        )
    return tree


def _readability(markup: str, url: str) -> str:
    """The main block readability-lxml finds, as Markdown (trafilatura over that block, favouring
    recall), else as its plain text; ``""`` when it finds nothing."""
    import trafilatura
    from lxml.html import fragment_fromstring
    from readability import Document

    try:
        summary = Document(markup, url=url).summary(html_partial=True)
    except Exception as exc:  # readability raises its own Unparseable and lxml's errors on hostile input
        log.debug("readability found nothing in %s: %s", url, exc)
        return ""
    markdown = trafilatura.extract(f"<html><body>{summary}</body></html>", url=url, **_FALLBACK)
    if markdown:
        return str(markdown)
    text = fragment_fromstring(summary, create_parent="div").text_content() if summary.strip() else ""
    return str(text)


def _iso_date(value: object) -> str | None:
    """``value`` as an ISO date (``"2024-05-01"``) when it starts with one, else ``None``."""
    if isinstance(value, datetime | date):
        return value.strftime("%Y-%m-%d")
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value.strip()[:10]).isoformat()
    except ValueError:
        return None


def _pdf(fetched: Fetched) -> Extracted:
    """Text and metadata of a PDF (see the module's docstring).

    Raises:
        PageError: ``unsupported`` for a PDF that needs a password, ``no_main_text`` for one that
            cannot be parsed.
    """
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    url = fetched.final_url
    try:
        reader = PdfReader(io.BytesIO(fetched.body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileNotDecryptedError("a password is needed")
        count = len(reader.pages)
        texts = [reader.pages[index].extract_text() for index in range(min(count, MAX_PDF_PAGES))]
        info = reader.metadata
    except (FileNotDecryptedError, DependencyError):
        raise PageError(
            PageReason.UNSUPPORTED, f"the PDF at {url} is encrypted; open it with its password", url=fetched.url
        ) from None
    except Exception as exc:  # pypdf raises many kinds (struct, index, key errors ...) on a damaged file
        raise PageError(
            PageReason.NO_MAIN_TEXT, f"the PDF at {url} could not be read ({type(exc).__name__})", url=fetched.url
        ) from None
    return Extracted(
        text="\n\n".join(text.strip() for text in texts if text and text.strip()),
        title=info.title if info else None,
        author=info.author if info else None,
        published_date=_iso_date(_creation_date(info)),
        truncated=count > MAX_PDF_PAGES,
    )


def _creation_date(info: Any) -> datetime | None:
    """The PDF's creation date, ``None`` when absent or not a valid date."""
    try:
        moment = info.creation_date if info else None
    except (ValueError, TypeError):  # pypdf parses the date string when it is read
        return None
    return moment if isinstance(moment, datetime) else None
