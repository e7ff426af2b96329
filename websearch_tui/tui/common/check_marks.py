"""How a citation check looks on screen: its mark (``✓ quoted``, ``✗ not supported``, ...) in the
verdict's colour, its reason, and the "4 of 5 citations check out" tally.

The marks are :data:`~websearch_tui.core.checks.CHECK_MARKS`, as every front end and format shows
them; a reason is page or provider text, so it is sanitised and shown as :class:`Content` only.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content

from websearch_tui.core.checks import CHECK_MARKS, CitationCheck, Verdict
from websearch_tui.core.models import SearchResponse
from websearch_tui.tui.common.safe import plain

VERDICT_STYLES = {
    Verdict.QUOTED: "bold $text-success",
    Verdict.SUPPORTED: "bold $text-success",
    Verdict.NOT_SUPPORTED: "bold $text-error",
    Verdict.UNREADABLE: "bold $text-warning",
}
"""The style of each verdict's mark."""
REASON_CHARS = 300
"""The most characters of a reason shown on one citation's row (the reader view shows it whole)."""


def check_mark(check: CitationCheck) -> Content:
    """``✓ quoted`` and the like, in the verdict's style."""
    return Content.styled(CHECK_MARKS[check.verdict], VERDICT_STYLES[check.verdict])


def check_summary(check: CitationCheck, *, limit: int | None = REASON_CHARS) -> Content:
    """The mark and, when there is one, the reason: ``✗ not supported: page says 3,000, claim says
    30,000`` (the reason on one line, cut at ``limit`` characters; ``None``: whole)."""
    if not check.reason:
        return check_mark(check)
    return Content.assemble(check_mark(check), ": ", plain(check.reason, one_line=True, limit=limit))


def tally_words(checked_out: int, checked: int) -> str:
    """``"4 of 5 citations check out"`` (``"1 of 1 citation checks out"``)."""
    return (
        f"{checked_out} of {checked} citations check out" if checked != 1 else f"{checked_out} of 1 citation checks out"
    )


def total_tally(responses: Iterable[SearchResponse]) -> tuple[int, int] | None:
    """``(checked out, checked)`` over ``responses`` (:meth:`SearchResponse.check_tally` added up);
    ``None`` when no citation of theirs was checked."""
    good = total = 0
    for response in responses:
        tally = response.check_tally()
        if tally is not None:
            good, total = good + tally[0], total + tally[1]
    return (good, total) if total else None
