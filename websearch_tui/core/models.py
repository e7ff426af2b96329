"""Normalised search types, the provider event stream and the one reducer.

Every provider, whatever its wire format, yields the events defined here; :class:`ResponseBuilder`
folds them into a :class:`SearchResponse`. The engine applies the reducer once per event and every
front end reads the result, so no two of them can disagree about what a provider returned. The
reducer is also where provider text enters core: every string an event carries is sanitized there
(:func:`~websearch_tui.core.text.sanitize`), once.

Nothing in this module does I/O or imports Textual or httpx.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import field, fields, is_dataclass, replace
from typing import Any, TypeVar

from websearch_tui.core.checks import CHECKED_OUT, CitationCheck
from websearch_tui.core.errors import redact, redact_stream
from websearch_tui.core.records import record
from websearch_tui.core.text import canonical_url, sanitize

_T = TypeVar("_T")

RECENCIES: tuple[str, ...] = ("day", "week", "month", "year")
MODES: tuple[str, ...] = ("compare", "auto")
MAX_QUERY_CHARS = 4000
MAX_RESULTS_LIMIT = 20


class RequestError(ValueError):
    """A :class:`SearchRequest` field is out of range; the message names the field."""


@record(frozen=True)
class SearchRequest:
    """One search as the user asked for it.

    Attributes:
        query: sent verbatim to every provider, 1-4000 characters after stripping.
        providers: provider ids to run; empty means "the configured default selection".
        mode: ``"compare"`` (all concurrently) or ``"auto"`` (fallback chain).
        max_results: how many sources to keep per provider (1-20); also the upstream count
            where a provider takes one and ``num_search_results`` is unset.
        recency: ``"day" | "week" | "month" | "year"`` or ``None`` for no time filter.
        max_tokens: answer length cap for model-native providers (tokens, >= 1) or ``None``.
        temperature: sampling temperature for model-native providers (0-2) or ``None``.
        num_search_results: upstream retrieval breadth (1-50) where a provider takes one.

    Raises:
        RequestError: from ``__post_init__`` when a field is out of range.
    """

    query: str
    providers: tuple[str, ...] = ()
    mode: str = "compare"
    max_results: int = 10
    recency: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    num_search_results: int | None = None

    def __post_init__(self) -> None:
        query = self.query.strip() if isinstance(self.query, str) else ""
        if not query:
            raise RequestError("query must not be empty")
        if len(query) > MAX_QUERY_CHARS:
            raise RequestError(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
        object.__setattr__(self, "query", query)
        object.__setattr__(self, "providers", tuple(self.providers))
        if self.mode not in MODES:
            raise RequestError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        _check_int("max_results", self.max_results, 1, MAX_RESULTS_LIMIT)
        if self.recency is not None and self.recency not in RECENCIES:
            raise RequestError(f"recency must be one of {', '.join(RECENCIES)}, not {self.recency!r}")
        if self.max_tokens is not None:
            _check_int("max_tokens", self.max_tokens, 1, 1_000_000)
        if self.num_search_results is not None:
            _check_int("num_search_results", self.num_search_results, 1, 50)
        if self.temperature is not None and (
            isinstance(self.temperature, bool)
            or not isinstance(self.temperature, (int, float))
            or not 0 <= self.temperature <= 2
        ):
            raise RequestError("temperature must be a number from 0 to 2")

    @property
    def upstream_count(self) -> int:
        """How many results to ask a provider for: ``num_search_results`` or ``max_results``."""
        return self.num_search_results or self.max_results


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RequestError(f"{name} must be a whole number from {low} to {high}, not {value!r}")


@record(frozen=True)
class Source:
    """A retrieved or grounding document.

    ``url`` is an absolute http(s) URL; ``title`` is never empty (falls back to the URL);
    ``snippet`` is plain text. The date comes three ways, all from the provider's one date at parse
    time (:func:`~websearch_tui.providers.helpers.parse.make_source`): ``published_text`` is its text as
    sent (``"Thu, 25 Jul 2024 00:00:00 GMT"``, ``"3 days ago"``, ``"last Tuesday"``), what a reader
    is shown when there is no age; ``published_date`` is that moment in ISO 8601 UTC
    (``"2024-07-25T00:00:00Z"``; a date alone is midnight UTC; ``None`` when the text cannot be
    read as a date), what the JSON carries; ``age_seconds`` is its age (>= 0, ``None`` if unparsable).
    """

    url: str
    title: str
    snippet: str | None = None
    published_date: str | None = None
    age_seconds: int | None = None
    author: str | None = None
    published_text: str | None = None

    @property
    def date_text(self) -> str | None:
        """The date as a reader is shown it when there is no age: the provider's text, else the ISO date."""
        return self.published_text or self.published_date


@record(frozen=True)
class Citation:
    """A link from the answer to a source; ``cited_text`` is the supported span, if known; ``check``
    what checking it against the page found (:class:`~websearch_tui.core.checks.CitationCheck`;
    ``None`` until the citations are checked)."""

    url: str
    title: str
    cited_text: str | None = None
    check: CitationCheck | None = None


@record(frozen=True)
class Usage:
    """Token and search counts reported by a provider, and the cost it reported for the request
    (``cost_usd``, US dollars, as the provider bills it: Perplexity's ``usage.cost.total_cost``);
    every field is optional."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    search_requests: int | None = None
    cost_usd: float | None = None


# --- events -------------------------------------------------------------------------------


@record(frozen=True)
class AnswerDelta:
    """A piece of the answer text (markdown), appended to what came before."""

    text: str


@record(frozen=True)
class SourcesFound:
    """Sources; merged into the list (de-duplicated by URL), or replacing it when ``replace``.

    ``dropped`` counts the provider's result rows left out for lack of a usable URL; it is added to
    the response's count, or replaces it when ``replace``. When not given it is read from
    ``sources`` itself if that carries a ``dropped`` count (as the lists and tuples of the shared
    parsers ``helpers.parse.sources_from`` / ``helpers.parse.limit_sources`` do), so a provider that passes its
    parsed sources along reports its drops with no code of its own. ``sources`` is kept as a tuple.
    """

    sources: tuple[Source, ...]
    replace: bool = False
    dropped: int = 0

    def __post_init__(self) -> None:
        if not self.dropped:
            object.__setattr__(self, "dropped", getattr(self.sources, "dropped", 0))
        object.__setattr__(self, "sources", tuple(self.sources))


@record(frozen=True)
class CitationsFound:
    """Citations; appended in order, or replacing the list when ``replace`` (snapshots)."""

    citations: tuple[Citation, ...]
    replace: bool = False


@record(frozen=True)
class RelatedQuestions:
    """Follow-up questions the provider suggests; replaces any earlier list."""

    questions: tuple[str, ...]


@record(frozen=True)
class SearchQueries:
    """Queries the provider ran; merged (de-duplicated, order kept)."""

    queries: tuple[str, ...]


@record(frozen=True)
class Metadata:
    """Facts about the run; a ``None`` field leaves the earlier value untouched."""

    model: str | None = None
    request_id: str | None = None
    usage: Usage | None = None
    auth_mode: str | None = None


@record(frozen=True)
class Note:
    """A user-visible remark about the run (a widened filter, an ignored option, a warning)."""

    text: str


SearchEvent = AnswerDelta | SourcesFound | CitationsFound | RelatedQuestions | SearchQueries | Metadata | Note


@record
class SearchResponse:
    """Everything one provider returned for one request, normalised.

    ``elapsed_ms`` is the wall time of the run and ``first_event_ms`` the time until the first
    event (both milliseconds, filled in by the engine). ``notes`` are user-visible remarks.
    ``dropped_sources`` counts result rows the provider sent without a usable URL (left out).
    """

    provider: str
    answer: str | None = None
    sources: list[Source] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    related_questions: list[str] = field(default_factory=list)
    search_queries: list[str] = field(default_factory=list)
    usage: Usage | None = None
    model: str | None = None
    request_id: str | None = None
    auth_mode: str | None = None
    notes: list[str] = field(default_factory=list)
    elapsed_ms: int | None = None
    first_event_ms: int | None = None
    dropped_sources: int = 0

    def is_renderable(self) -> bool:
        """True when there is an answer, a source, a citation with a URL, a related question or a query."""
        return bool(
            (self.answer or "").strip()
            or self.sources
            or any(citation.url for citation in self.citations)
            or any(q.strip() for q in self.related_questions)
            or any(q.strip() for q in self.search_queries)
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the field names of this class (what ``dataclasses.asdict`` gives)."""
        plain: dict[str, Any] = as_plain(self)
        return plain

    def check_tally(self) -> tuple[int, int] | None:
        """``(checked out, checked)``: how many of the checked citations are quoted or supported
        (:data:`~websearch_tui.core.checks.CHECKED_OUT`), of how many were checked; ``None`` when
        none was ("4 of 5 citations check out")."""
        checks = [citation.check for citation in self.citations if citation.check is not None]
        if not checks:
            return None
        return sum(check.verdict in CHECKED_OUT for check in checks), len(checks)


_ATOMS = (str, int, float, type(None))
"""Values that cannot change (``bool`` is an ``int``; a ``str`` enum a ``str``): kept, not copied."""


def as_plain(value: Any) -> Any:
    """``dataclasses.asdict`` of a dataclass instance ``value`` (the same dicts, lists and tuples, its
    other values deep-copied), without deep-copying each string and number, which asdict does one
    by one (most of its time for a response with many sources). Linear in its size."""
    if isinstance(value, _ATOMS):
        return value
    names = _field_names(type(value))
    if names is not None:
        return {name: as_plain(getattr(value, name)) for name in names}
    if type(value) in (list, tuple):
        return type(value)(as_plain(item) for item in value)
    if type(value) is dict:
        return {as_plain(key): as_plain(item) for key, item in value.items()}
    return copy.deepcopy(value)


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(kind: type) -> tuple[str, ...] | None:
    """The field names of dataclass ``kind`` in order, ``None`` for any other type (kept per type)."""
    if kind not in _FIELD_NAMES:
        _FIELD_NAMES[kind] = tuple(item.name for item in fields(kind)) if is_dataclass(kind) else None
    return _FIELD_NAMES[kind]


LIMITS: dict[str, int] = {"sources": 100, "citations": 200, "related questions": 20, "search queries": 50}
"""The most of each list one response keeps; what a provider sends beyond is dropped and counted in a note."""
MAX_NOTES = 20
"""The most notes one response keeps."""


class LiveResponse(SearchResponse):
    """The :class:`SearchResponse` a run builds while it streams: the same fields, but the answer is
    kept as the list of pieces streamed so far and joined only when ``answer`` is read (once per
    change), so reporting a growing response after every token costs nothing per token.
    It compares equal to a plain :class:`SearchResponse` with the same values."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._pieces: list[str] = []
        super().__init__(*args, **kwargs)

    @property
    def answer(self) -> str | None:
        """The answer so far (``None`` before the first piece)."""
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else None

    @answer.setter
    def answer(self, value: str | None) -> None:
        self._pieces = [value] if value is not None else []

    def __eq__(self, other: object) -> bool:
        """Equal to any :class:`SearchResponse` with the same field values (live or not)."""
        if not isinstance(other, SearchResponse):
            return NotImplemented
        return all(getattr(self, item.name) == getattr(other, item.name) for item in fields(SearchResponse))

    __hash__ = None  # type: ignore[assignment]  # mutable, as SearchResponse

    def extend_answer(self, piece: str) -> None:
        """Add ``piece`` (already sanitized and redacted) to the end of the answer; O(1)."""
        if piece:
            self._pieces.append(piece)


class ResponseBuilder:
    """The reducer: folds :data:`SearchEvent` values into one :class:`SearchResponse`.

    Every string enters sanitized and redacted (:func:`clean`), once. A streamed answer piece is
    returned redacted, holding back a tail that could be the start of a key split across tokens until
    the next piece (or :meth:`finish`) settles it; the answer is the returned pieces, so the text held
    back is not in it either. Work per event is proportional to the event, not to the response so far,
    whatever secrets are registered: the answer is joined only when it is read
    (:class:`LiveResponse`), sources and search queries are de-duplicated through indexes, and each
    list stops at its :data:`LIMITS` entry with a note counting what was dropped. ``response`` is
    always the current state.
    """

    def __init__(self, provider: str) -> None:
        self._response = LiveResponse(provider=provider)
        self._held = ""
        self._source_index: dict[str, int] = {}
        self._queries: set[str] = set()
        self._over: dict[str, int] = {}
        self._over_notes: dict[str, str] = {}

    @property
    def response(self) -> SearchResponse:
        """The response so far: the engine's live object (its answer joined when read, not per token)."""
        return self._response

    def apply(self, event: SearchEvent) -> SearchEvent:
        """Fold one event into the response; returns the event as folded: its text sanitized and
        redacted, its lists cut to what was kept (front ends that show a streamed piece show the
        returned one)."""
        if isinstance(event, AnswerDelta):
            ready, self._held = redact_stream(self._held + sanitize(event.text))
            self._response.extend_answer(ready)
            return AnswerDelta(ready)
        if isinstance(event, SourcesFound):
            return self._sources(event)
        if isinstance(event, CitationsFound):
            return self._citations(event)
        if isinstance(event, RelatedQuestions):
            questions = _unique(clean(q) for q in self._kept("related questions", event.questions, 0, reset=True))
            self._response.related_questions = questions
            return RelatedQuestions(tuple(questions))
        if isinstance(event, SearchQueries):
            return self._search_queries(event)
        if isinstance(event, Metadata):
            return self._metadata(event)
        return self._note(Note(clean(event.text)))

    def finish(self) -> AnswerDelta | None:
        """The answer text still held back because it could have been the start of a secret (see
        :func:`~websearch_tui.core.errors.redact_stream`), redacted; call once the stream has ended,
        so a front end that shows the returned deltas shows the whole answer. ``None`` if nothing is held."""
        held, self._held = self._held, ""
        if not held:
            return None
        piece = redact(held)
        self._response.extend_answer(piece)
        return AnswerDelta(piece)

    def _kept(self, kind: str, items: Sequence[_T], held: int, *, reset: bool = False) -> Sequence[_T]:
        """The first of ``items`` that fit beside the ``held`` already kept; the rest are counted
        (``reset``: this list replaces the earlier one, so earlier drops no longer count)."""
        room = max(0, LIMITS[kind] - held)
        dropped = max(0, len(items) - room)
        if reset:
            self._over[kind] = 0
        if dropped:
            self._over[kind] = self._over.get(kind, 0) + dropped
        if reset or dropped:
            self._note_overflow(kind)
        return items[:room] if dropped else items

    def _note_overflow(self, kind: str) -> None:
        """Keep the response's one note on ``kind`` dropped over its limit up to date."""
        notes = self._response.notes
        count = self._over.get(kind, 0)
        text = f"{count} more {kind} than the {LIMITS[kind]} kept were dropped." if count else None
        old = self._over_notes.pop(kind, None)
        if old in notes:
            notes.remove(old)
        if text is not None:
            notes.append(text)
            self._over_notes[kind] = text

    def _sources(self, event: SourcesFound) -> SourcesFound:
        r = self._response
        if event.replace:
            r.sources = []
            r.dropped_sources = 0
            self._source_index = {}
            self._over["sources"] = 0
            self._note_overflow("sources")
        r.dropped_sources += event.dropped
        kept: list[Source] = []
        for position, source in enumerate(event.sources):
            if len(r.sources) >= LIMITS["sources"]:
                self._kept("sources", event.sources[position:], LIMITS["sources"])
                break
            cleaned = _clean_source(source)
            self._merge_source(cleaned)
            kept.append(cleaned)
        return SourcesFound(tuple(kept), replace=event.replace, dropped=event.dropped)

    def _citations(self, event: CitationsFound) -> CitationsFound:
        r = self._response
        held = 0 if event.replace else len(r.citations)
        fitting = self._kept("citations", event.citations, held, reset=event.replace)
        citations = [Citation(clean(c.url), clean(c.title), _clean_optional(c.cited_text)) for c in fitting]
        if event.replace:
            r.citations = citations
        else:
            r.citations.extend(citations)
        return CitationsFound(tuple(citations), replace=event.replace)

    def _search_queries(self, event: SearchQueries) -> SearchQueries:
        added = []
        for query in event.queries:
            text = clean(query).strip()
            if not text or text in self._queries:
                continue
            if len(self._queries) >= LIMITS["search queries"]:
                self._kept("search queries", [text], LIMITS["search queries"])
                continue
            self._queries.add(text)
            added.append(text)
        self._response.search_queries.extend(added)
        return SearchQueries(tuple(added))

    def _metadata(self, event: Metadata) -> Metadata:
        cleaned = replace(event, model=_clean_optional(event.model), request_id=_clean_optional(event.request_id))
        for name in ("model", "request_id", "usage", "auth_mode"):
            value = getattr(cleaned, name)
            if value is not None:
                setattr(self._response, name, value)
        return cleaned

    def _note(self, note: Note) -> Note:
        notes = self._response.notes
        if note.text not in notes and len(notes) < MAX_NOTES:
            notes.append(note.text)
        return note

    def _merge_source(self, source: Source) -> None:
        key = canonical_url(source.url)
        index = self._source_index.get(key)
        if index is None:
            self._source_index[key] = len(self._response.sources)
            self._response.sources.append(source)
            return
        kept = self._response.sources[index]
        filled = replace(
            kept,
            title=kept.title if kept.title != kept.url else source.title,
            snippet=kept.snippet or source.snippet,
            published_date=kept.published_date or source.published_date,
            age_seconds=kept.age_seconds if kept.age_seconds is not None else source.age_seconds,
            author=kept.author or source.author,
            published_text=kept.published_text or source.published_text,
        )
        self._response.sources[index] = filled


def _unique(items: Iterable[object]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        text = item.strip() if isinstance(item, str) else ""
        if text and text not in seen:
            seen[text] = None
    return list(seen)


def clean(text: object) -> str:
    """Provider text as it may enter core: sanitized (escape sequences, control and bidi characters
    removed; see :func:`~websearch_tui.core.text.sanitize`) and redacted (every configured secret
    replaced, see :func:`~websearch_tui.core.errors.redact`); a non-string gives ``""``. Linear."""
    return redact(sanitize(text))


def _clean_source(source: Source) -> Source:
    return replace(
        source,
        url=clean(source.url),
        title=clean(source.title),
        snippet=_clean_optional(source.snippet),
        published_date=_clean_optional(source.published_date),
        author=_clean_optional(source.author),
        published_text=_clean_optional(source.published_text),
    )


def _clean_optional(text: str | None) -> str | None:
    return None if text is None else clean(text)
