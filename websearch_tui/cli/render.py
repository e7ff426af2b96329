"""The text format on a terminal: its own labels coloured (provider names, status, ``[n]`` numbers,
URLs; never provider text) and, after an answer streamed as it arrived, the rest of the block
without that answer. Stripped of its escape sequences, what is printed is the text format."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from websearch_tui.core.errors import safe_text
from websearch_tui.core.text import pattern

if TYPE_CHECKING:
    from websearch_tui.core.models import Source
    from websearch_tui.core.results import ProviderOutcome, SearchResult

_STYLES = {
    "label": "1",
    "id": "2",
    "heading": "1",
    "number": "36",
    "url": "2",
    "done": "32",
    "empty": "33",
    "cancelled": "33",
    "failed": "31",
}
"""SGR parameters of what the text format colours: our own labels only, never provider text."""
_SGR = r"\x1b\[[0-9;]*m"


def use_color(choice: str, stream: TextIO | None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the text format is coloured: ``never`` and ``always`` as said (``always`` wins over
    ``NO_COLOR``, as https://no-color.org asks of an explicit option); ``auto`` only when ``stream``
    is a terminal, ``NO_COLOR`` is unset or empty and ``TERM`` is not ``dumb`` (a pipe or a file
    never gets an escape sequence)."""
    if choice != "auto":
        return choice == "always"
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR", "") or env.get("TERM") == "dumb":
        return False
    return stream is not None and stream.isatty()


def terminal_text(result: SearchResult, plain: str, *, color: bool, streamed: str | None = None) -> str:
    """The text format ``plain`` of ``result`` for a terminal: with ``color``, the status line's
    provider label, id and status, the ``## Sources`` heading, the sources' ``[n]`` and their URLs
    styled (found by the layout of each provider's block, never by reading provider text); after
    ``streamed`` (the answer already printed), a blank line and the block without that answer (the
    whole block when the final answer differs). Stripped of its escape sequences the result is
    ``plain`` (or, after ``streamed``, what follows the answer); when a block is not laid out as
    expected it is left plain."""
    from websearch_tui.formats.common import cost_total_line
    from websearch_tui.formats.text import to_text

    blocks = [(outcome, to_text(dataclasses.replace(result, outcomes=[outcome]))) for outcome in result.outcomes]
    total = safe_text(cost_total_line(result))  # the search's cost closes the text of several providers
    lead = "" if streamed is None else "\n" if streamed.endswith("\n") else "\n\n"
    if "\n\n".join([*(block for _, block in blocks), *([total] if total else [])]) != plain:
        return lead + plain
    painted = []
    for outcome, block in blocks:
        layout = _block_layout(outcome, block)
        if layout is None:
            painted.append(_paint_header(block, result, outcome) if color else block)
            continue
        head, answer, tail = layout
        if color:
            head, tail = _paint_header(head, result, outcome), _paint_sources(tail, outcome.response.sources)
        if streamed is not None and len(blocks) == 1 and safe_text(streamed.strip()) == answer:
            answer, tail = "", tail[1:]  # shown already: the status line, then a blank line and the rest
        painted.append((head + answer + tail).rstrip("\n"))
    text = "\n\n".join([*painted, total] if total else painted)
    if streamed is None and pattern(_SGR).sub("", text) != plain:  # styling never changes the text: if it would, none
        return plain
    return lead + text


def _block_layout(outcome: ProviderOutcome, block: str) -> tuple[str, str, str] | None:
    """``(head, answer, tail)`` of one provider's text block, ``head + answer + tail == block``:
    the status line and notes, the answer, then the sources and the rest; ``None`` for a failed
    provider (its status line holds the error message) or a block laid out otherwise."""
    from websearch_tui.formats.common import dropped_sources_text

    if outcome.error is not None:
        return None
    response = outcome.response
    head = block.split("\n", 1)[0]
    if response.dropped_sources:
        head += f"\nNote: {dropped_sources_text(response.dropped_sources)}"
    head = safe_text(head + "\n" + "".join(f"Note: {note}\n" for note in response.notes))
    answer = safe_text((response.answer or "").strip())
    if not block.startswith(head + answer):
        return None
    return head, answer, block[len(head) + len(answer) :]


def _paint(text: str, style: str) -> str:
    """``text`` in the SGR style :data:`_STYLES` names ``style`` (unstyled for a style not named there)."""
    code = _STYLES.get(style)
    return f"\x1b[{code}m{text}\x1b[0m" if code else text


def _paint_header(text: str, result: SearchResult, outcome: ProviderOutcome) -> str:
    """``text``, which opens with a block's status line, with its label, id and status styled."""
    label, provider, status = safe_text(result.label(outcome.provider)), outcome.provider, outcome.status.value
    lead = f"== {label} ({provider}): {status}"
    if not text.startswith(lead):
        return text
    styled = f"== {_paint(label, 'label')} {_paint(f'({provider})', 'id')}: {_paint(status, status)}"
    return styled + text[len(lead) :]


def _paint_sources(tail: str, sources: Sequence[Source]) -> str:
    """The part of a block after its answer with the ``## Sources`` heading, each source's ``[n]`` and
    its URL line styled; a source is styled only where its ``[n] <title>`` line and ``    <url>``
    line are found in order (the lines between two sources are the first one's indented snippet)."""
    lines = tail.split("\n")
    index = 0
    if lines[:3] == ["", "", "## Sources"]:
        lines[2] = _paint("## Sources", "heading")
        index = 4  # after the count line
    for number, source in enumerate(sources, 1):
        while number > 1 and index < len(lines) and (not lines[index] or lines[index].startswith("    ")):
            index += 1
        mark, url = f"[{number}]", safe_text(source.url)
        if index + 1 >= len(lines) or lines[index + 1] != f"    {url}":
            break
        if not lines[index].startswith(f"{mark} {safe_text(source.title)}"):
            break
        lines[index] = _paint(mark, "number") + lines[index][len(mark) :]
        lines[index + 1] = "    " + _paint(url, "url")
        index += 2
    return "\n".join(lines)
