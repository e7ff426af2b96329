"""A page the reader read (:class:`~websearch_tui.core.pages.Page`) as ``fetch --format`` prints it
and the MCP ``fetch_page`` tool shows it: Markdown, plain text and JSON. Pure, ``Page`` in, ``str``
out; every field sanitised and redacted (:func:`~websearch_tui.core.errors.safe_text`), the
page's own fields escaped where they could act as Markdown (its title, site, author).

- Markdown: ``# Title``, a line ``Site · Author · 2024-05-01``, the final URL, then the page's text
  (Markdown already);
- text: the same without markup: headings, list and quote markers, emphasis, links (their text
  kept) and table rules dropped, table cells separated by two spaces;
- JSON: :meth:`Page.to_dict() <websearch_tui.core.pages.Page.to_dict>`, indented.
"""

from __future__ import annotations

import json
import re

from websearch_tui.core.errors import safe_document, safe_text
from websearch_tui.core.pages import Page
from websearch_tui.core.text import markdown_literal
from websearch_tui.providers.helpers.parse import markdown_quote

_TABLE_RULE = re.compile(r"[\s:|-]*")
"""A Markdown table's delimiter row, ``| --- | :-: |`` (one character class: linear)."""
_BLANK_RUNS = re.compile(r"\n{3,}")


def _byline(page: Page) -> list[str]:
    """The site, author and publication date that are known, sanitised."""
    return [safe_text(part) for part in (page.site, page.author, page.published_date) if part]


def page_markdown(page: Page, text: str | None = None) -> str:
    """``page`` as a Markdown document (``text``: the part of its text to show; default all of it)."""
    title = markdown_literal(safe_text(page.title or page.final_url), line_start=True)
    lines = [f"# {title}", ""]
    byline = _byline(page)
    if byline:
        lines += [" · ".join(markdown_literal(part) for part in byline), ""]
    lines += [f"<{safe_text(page.final_url)}>", "", safe_text(page.text if text is None else text)]
    return "\n".join(lines).rstrip() + "\n"


def page_text(page: Page) -> str:
    """``page`` as plain text: its title, byline, final URL and text, without Markdown markup."""
    lines = [safe_text(page.title or page.final_url)]
    byline = _byline(page)
    if byline:
        lines.append(" · ".join(byline))
    lines += [safe_text(page.final_url), "", markdown_to_text(safe_text(page.text))]
    return "\n".join(lines).rstrip() + "\n"


def page_json(page: Page) -> str:
    """``page`` as an indented JSON document (:meth:`Page.to_dict`), non-ASCII kept as it is."""
    return json.dumps(safe_document(page.to_dict()), ensure_ascii=False, indent=2) + "\n"


def markdown_to_text(markdown: str) -> str:
    """The plain text of a Markdown document, line by line (blank lines between paragraphs kept):
    each line through :func:`~websearch_tui.providers.helpers.parse.markdown_quote`; a table row
    becomes its cells separated by two spaces, a table rule disappears. Linear in the text."""
    lines = []
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith("|") and _TABLE_RULE.fullmatch(stripped):
            continue
        if stripped.startswith("|") and stripped.endswith("|"):
            cells = (markdown_quote(cell) for cell in stripped[1:-1].split("|"))
            lines.append("  ".join(cell or "" for cell in cells))
        else:
            lines.append(markdown_quote(line) or "")
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()
