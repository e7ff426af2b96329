"""What opens the reader view: a :class:`ReadRequest`, posted as :class:`ReadRequested` by a pane
or the merged view and handled by the search screen. Cheap to import (no screen is imported)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from websearch_tui.core.models import Citation


@dataclass(frozen=True)
class ReadRequest:
    """A page to read in the reader view.

    Attributes:
        url: the page's URL, as the provider gave it (the reader refuses what is not http(s)).
        title: what the provider called it (provider text), shown until the page has a title.
        citation: the citation that opened it, if one did: its check's passage is highlighted and
            scrolled into view, its verdict and claim shown above the page.
    """

    url: str
    title: str = ""
    citation: Citation | None = None


class ReadRequested(Message):
    """Open the reader view on ``request`` (bubbles up to the screen)."""

    def __init__(self, request: ReadRequest) -> None:
        super().__init__()
        self.request = request
