"""Knowing an API's answer when we see one, and saying so plainly when we do not.

Upstream APIs move: a provider retires an endpoint, renames a field or starts streaming typed
events. A parser that finds none of its fields in a 2xx answer must not read it as "no results":
that shows a user an empty pane and no reason. Every request a provider sends therefore names the
:class:`Shape` it reads, and the shared HTTP layer checks each 2xx answer against it:

- a JSON body is *known* when it is an object with at least one of ``Shape.keys`` at its top level
  (a list body when ``Shape.list_ok``), or its ``type`` is one of ``Shape.types``;
- an event stream is known once one of its payloads is (its ``type`` field or SSE event name in
  ``Shape.types`` or starting with one of ``Shape.type_prefixes``, or one of ``Shape.keys`` at its
  top level). The default event name ``message`` says nothing and never counts.

A shape names the keys that carry the answer (``results``, ``choices``, ``output``), never the ones
many APIs echo (``id``, ``status``, ``model``, ``query``, ``code``): a body with only those is another
API's. An ``error`` key counts only when it holds something (``"error": null`` is an echo too).

An answer that is not known ends the run as ``unrecognised_response`` (:func:`unrecognised`), with a
message naming the provider, the content type and the top-level keys or event types it got (names
only, never values: at most :data:`MAX_NAMES` of them, each cut to :data:`MAX_NAME_CHARS`) and what
to do. A known answer with zero results stays a genuine empty result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from websearch_tui.core.errors import ErrorKind, ProviderError, redact
from websearch_tui.core.specs import ProviderSpec
from websearch_tui.core.text import plain_text, truncate

MAX_NAMES = 8
"""How many distinct keys or event types a message names (the rest are counted as ``...``)."""
MAX_NAME_CHARS = 40
"""How much of one key or event type a message shows."""
_FILLED_ONLY = frozenset({"error"})
"""Keys that mark an answer only when they hold something: many APIs send ``"error": null`` in every
successful answer, so an empty one says nothing about which API answered."""
MAX_SCANNED_CHARS = 1024
"""How much of one name is read at all (a registered secret is shorter)."""
_DEFAULT_NAMES = frozenset({"message", "json"})
"""Event names every payload gets without one of its own (an unnamed SSE event, a whole JSON body):
they say nothing about which API answered."""


@dataclass(frozen=True)
class Shape:
    """What a parser reads in a 2xx answer (see the module docstring).

    Attributes:
        keys: top-level object keys, any one of which marks the answer as this API's.
        types: values of a payload's ``type`` field (or SSE event names) that do the same.
        type_prefixes: ``type`` values starting with one of these do too (``"response."``).
        list_ok: a JSON array at the top level is this API's answer (it has no envelope).
    """

    keys: frozenset[str] = frozenset()
    types: frozenset[str] = frozenset()
    type_prefixes: tuple[str, ...] = ()
    list_ok: bool = False

    @classmethod
    def of(
        cls,
        *keys: str,
        types: Iterable[str] = (),
        type_prefixes: tuple[str, ...] = (),
        list_ok: bool = False,
    ) -> Shape:
        """A shape from its top-level ``keys`` (and ``types``, ``type_prefixes``, ``list_ok``)."""
        return cls(frozenset(keys), frozenset(types), type_prefixes, list_ok)

    def knows(self, name: str, payload: Any) -> bool:
        """True when ``payload`` (parsed JSON; ``name`` its SSE event name, ``"json"`` for a whole
        body) is an answer of this API."""
        if isinstance(payload, list):
            return self.list_ok
        if not isinstance(payload, dict):
            return False
        kind = payload.get("type")
        for candidate in (kind, None if name in _DEFAULT_NAMES else name):
            if isinstance(candidate, str) and (
                candidate in self.types or bool(self.type_prefixes and candidate.startswith(self.type_prefixes))
            ):
                return True
        return any(key in payload and (key not in _FILLED_ONLY or payload[key]) for key in self.keys)


@dataclass
class ShapeSeen:
    """What a 2xx answer looked like, by name only: its content type, the distinct top-level keys of
    its JSON objects and the distinct event types (``type`` fields, else SSE event names) of its
    payloads, in the order first seen, at most :data:`MAX_NAMES` + 1 of each (bounded memory)."""

    content_type: str = ""
    keys: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    known: bool = False

    def observe(self, shape: Shape | None, name: str, payload: Any) -> None:
        """Note one payload's names, and whether ``shape`` knows it (no ``shape``: every payload is)."""
        if shape is None or shape.knows(name, payload):
            self.known = True
        if isinstance(payload, dict):
            kind = payload.get("type")
            _add(self.types, kind if isinstance(kind, str) else (name if name not in ("json", "message") else None))
            for key in payload:
                if len(self.keys) > MAX_NAMES:
                    break
                _add(self.keys, key)
        elif isinstance(payload, list):
            _add(self.keys, "[array]")

    def describe(self) -> str:
        """``"application/json; keys: id, output, usage"`` (event types first when there are any)."""
        parts = [self.content_type or "no content type"]
        if self.types:
            parts.append(f"event types: {_names(self.types)}")
        if self.keys:
            parts.append(f"keys: {_names(self.keys)}")
        return "; ".join(parts)


def _add(names: list[str], value: object) -> None:
    if not isinstance(value, str) or len(names) > MAX_NAMES:
        return
    # redacted before it is cut: a cut secret would no longer be recognised by the error's redaction
    shown = truncate(redact(plain_text(value[:MAX_SCANNED_CHARS], collapse=True) or "?"), MAX_NAME_CHARS)
    if shown not in names:
        names.append(shown)


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_NAMES])
    return shown + ", ..." if len(names) > MAX_NAMES else shown


def unrecognised(spec: ProviderSpec, seen: ShapeSeen | str, status: int | None = None) -> ProviderError:
    """The ``unrecognised_response`` error for an answer no parser of ``spec``'s provider reads:
    ``"Perplexity answered in a shape this version does not read (application/json; keys: id,
    output, usage). Its API may have changed; websearch-tui doctor perplexity checks it."``.
    ``seen`` is what came (:class:`ShapeSeen`), or a short description of our own words
    (``"MCP tool text without result blocks"``)."""
    described = seen if isinstance(seen, str) else seen.describe()
    return ProviderError(
        spec.id,
        ErrorKind.UNRECOGNISED,
        f"{spec.label} answered in a shape this version does not read ({described}). "
        f"Its API may have changed; websearch-tui doctor {spec.id} checks it.",
        status=status,
    )


def check(spec: ProviderSpec, shape: Shape | None, payload: Any, content_type: str, status: int | None = None) -> Any:
    """``payload`` (a whole parsed 2xx body) unchanged when ``shape`` knows it (or is ``None``).

    Raises:
        ProviderError: :func:`unrecognised` otherwise.
    """
    if shape is None or shape.knows("json", payload):
        return payload
    seen = ShapeSeen(content_type=content_type)
    seen.observe(shape, "json", payload)
    raise unrecognised(spec, seen, status)


def check_all(
    spec: ProviderSpec, shape: Shape, payloads: list[Any], content_type: str, status: int | None = None
) -> None:
    """Return when ``shape`` knows at least one of ``payloads`` (the messages of one reply).

    Raises:
        ProviderError: :func:`unrecognised` naming the keys of all of them otherwise.
    """
    if any(shape.knows("json", payload) for payload in payloads):
        return
    seen = ShapeSeen(content_type=content_type)
    for payload in payloads:
        seen.observe(None, "json", payload)
    raise unrecognised(spec, seen, status)
