"""The interface of a model-based judge, for the claims word matching cannot settle. Not implemented.

The lexical checker (:mod:`.match`) is exact about numbers, dates and names but reads words as a
bag: it cannot see a negation ("is not" for "is"), a reversed direction ("fell" for "rose") or a
paraphrase that shares few words with the page. A :class:`Judge` would be asked about those
borderline passages only, never about the rest:

- a claim judged ``supported`` whose passage has a negation or a contrast word the claim lacks (or
  the reverse): the judge may turn it to ``not_supported``;
- a claim judged ``not_supported`` with no differing fact, whose closest passage has at least
  :data:`.match.RELATED` of its words but less than :data:`.match.SUPPORT`: the judge may turn it
  to ``supported``.

A judge never overrules a differing number, date or name, and never makes a claim ``quoted``. It
would run after :func:`.check.check_page` (in the event loop, as it does I/O), on its candidates.
"""

from __future__ import annotations

from typing import Protocol

from websearch_tui.core.checks import Verdict


class Judge(Protocol):
    """Decides whether ``passage`` (plain text, a few sentences of the page) states ``claim``
    (plain text, one sentence or a quoted span).

    Returns ``Verdict.SUPPORTED`` or ``Verdict.NOT_SUPPORTED``, or ``None`` when it cannot tell
    (the lexical verdict then stands). Must not raise for a model's refusal or a malformed answer
    (return ``None``); may raise ``asyncio.CancelledError``.
    """

    async def __call__(self, claim: str, passage: str) -> Verdict | None: ...
