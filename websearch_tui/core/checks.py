"""What checking a citation found: does the cited page say what the answer claims?

:class:`CitationCheck` is the result for one citation, :class:`Verdict` its four outcomes. The
checking itself is in :mod:`websearch_tui.verify`; this module holds only the data, so every layer
(history, front ends, formats) can read a check without importing the checker. No I/O.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from websearch_tui.core.records import record


class Verdict(str, Enum):
    """How a cited page bears on the claim the answer makes with the citation.

    ``QUOTED``: the claim's text is on the page, word for word once whitespace, case, quotes,
    dashes and Markdown are normalised. ``SUPPORTED``: a passage of the page states it: its content
    words match and every number, date and proper name of the claim is in that passage.
    ``NOT_SUPPORTED``: no passage does (the check's ``reason`` says why, naming the number, date or
    name that differs when that is the cause). ``UNREADABLE``: the page could not be read.
    """

    QUOTED = "quoted"
    SUPPORTED = "supported"
    NOT_SUPPORTED = "not_supported"
    UNREADABLE = "unreadable"


CHECKED_OUT = frozenset({Verdict.QUOTED, Verdict.SUPPORTED})
"""The verdicts under which a citation "checks out"."""

CHECK_MARKS = {
    Verdict.QUOTED: "✓ quoted",
    Verdict.SUPPORTED: "✓ supported",
    Verdict.NOT_SUPPORTED: "✗ not supported",
    Verdict.UNREADABLE: "? unreadable",
}
"""How every front end and format marks a verdict beside its citation."""


@record(frozen=True)
class CitationCheck:
    """The check of one citation against the page it links to.

    Attributes:
        verdict: see :class:`Verdict`.
        passage: the page text that quotes, supports or comes closest to the claim (Markdown
            stripped, whitespace collapsed); ``None`` when the page was unreadable or no passage
            shares the claim's words.
        reason: why the verdict is not ``quoted`` or ``supported`` (``"page says 3,000 to 6,000,
            claim says 30,000 to 60,000"``, or the read failure); ``None`` otherwise.
        final_url: the URL the page was read from after redirects; ``None`` when unreadable.
        retrieved_at: when it was read, ISO 8601 UTC (``"2026-03-01T12:00:00Z"``); ``None`` when unreadable.
        content_sha256: hex SHA-256 of the page content that was checked; ``None`` when unreadable.
    """

    verdict: Verdict
    passage: str | None = None
    reason: str | None = None
    final_url: str | None = None
    retrieved_at: str | None = None
    content_sha256: str | None = None

    def summary(self) -> str:
        """The mark and, when there is one, the reason: ``"✗ not supported: page says 3,000 to
        6,000, claim says 30,000 to 60,000"``."""
        mark = CHECK_MARKS[self.verdict]
        return f"{mark}: {self.reason}" if self.reason else mark

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with exactly the keys ``verdict`` (the enum's string value),
        ``passage``, ``reason``, ``final_url``, ``retrieved_at`` and ``content_sha256``."""
        return {
            "verdict": self.verdict.value,
            "passage": self.passage,
            "reason": self.reason,
            "final_url": self.final_url,
            "retrieved_at": self.retrieved_at,
            "content_sha256": self.content_sha256,
        }
