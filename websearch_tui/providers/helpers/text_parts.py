"""The streamed answer text of a typed-event API (the Responses family, Perplexity's Agent API).

Both stream an answer as ``response.output_text.delta`` events ``{item_id, output_index,
content_index, delta}``, close each text part with ``response.output_text.done`` ``{text}`` and
repeat the whole text in the final ``message`` item. What they share:

- :class:`Part`: one text part, its pieces joined only when read (appending costs the delta, not
  the text so far) and how many of its annotations were taken;
- :func:`part_key` / :func:`message_key`: the key a part's deltas are filed under (its item id,
  else its output position) from a delta event or from the final item;
- :func:`add_delta` / :func:`reconcile`: the pieces of answer text one delta, or a part's final
  text, adds: a new part after earlier text starts with :data:`MESSAGE_SEPARATOR`, and a final text
  adds only what its deltas did not already bring (never the answer twice).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from websearch_tui.core.records import record
from websearch_tui.providers.helpers import parse

MESSAGE_SEPARATOR = "\n\n"
"""Put between two text parts (two messages of one answer)."""

PartKey = tuple[str, int]
"""``(item id, else "#<output index>", content index)``."""


@record
class Part:
    """One ``output_text`` part: its raw text so far and how many annotations were taken from it."""

    pieces: list[str] = field(default_factory=list)
    annotations: int = 0

    @property
    def text(self) -> str:
        """The part's text so far (its pieces joined once, then kept joined)."""
        if len(self.pieces) > 1:
            self.pieces[:] = ["".join(self.pieces)]
        return self.pieces[0] if self.pieces else ""

    @text.setter
    def text(self, value: str) -> None:
        self.pieces[:] = [value]

    def add(self, delta: str) -> None:
        """Append one streamed piece."""
        self.pieces.append(delta)


def part_key(payload: Mapping[str, Any]) -> PartKey:
    """The key of the part a delta (or ``output_text.done``) event belongs to."""
    item_id = payload.get("item_id")
    key = str(item_id) if item_id else f"#{payload.get('output_index')}"
    return key, parse.int_field(payload, "content_index", minimum=0) or 0


def message_key(item_id: object, output_index: object, index: int, parts: Mapping[PartKey, Any]) -> PartKey:
    """The key content ``index`` of a final ``message`` item was streamed under: its item id, else its
    output position (whichever already holds deltas; the item id when neither does)."""
    by_id = (str(item_id) if item_id else f"#{output_index}", index)
    by_position = (f"#{output_index}", index)
    return by_position if by_id not in parts and by_position in parts else by_id


def add_delta(parts: dict[PartKey, Part], key: PartKey, delta: object, *, after_text: bool) -> list[str]:
    """The answer text one streamed ``delta`` of part ``key`` adds (``[]`` for an empty or non-text
    delta): :data:`MESSAGE_SEPARATOR` first when it opens a new part and the answer already has text
    (``after_text``), then the delta. The delta is filed under ``key`` in ``parts``."""
    if not isinstance(delta, str) or not delta:
        return []
    pieces: list[str] = []
    part = parts.get(key)
    if part is None:
        part = parts[key] = Part()
        if after_text:
            pieces.append(MESSAGE_SEPARATOR)
    part.add(delta)
    pieces.append(delta)
    return pieces


def reconcile(parts: dict[PartKey, Part], key: PartKey, full: object, *, after_text: bool) -> list[str]:
    """The answer text a part's final text ``full`` adds to its streamed deltas: all of it when none
    came, the rest when the deltas are its beginning, else nothing (see :func:`add_delta`)."""
    if not isinstance(full, str) or not full:
        return []
    part = parts.get(key)
    if part is None:
        return add_delta(parts, key, full, after_text=after_text)
    streamed = part.text
    if full.startswith(streamed) and len(full) > len(streamed):
        return add_delta(parts, key, full[len(streamed) :], after_text=after_text)
    return []
