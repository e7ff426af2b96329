"""One ranked list of every source of a search: which pages several providers agree on, which only one
found, and which answers cite them.

- :func:`~websearch_tui.core.text.canonical_url` decides when two URLs are one page;
- :class:`SourceMerger` fuses each provider's ranked sources with reciprocal rank fusion (RRF,
  ``k = 60``) plus a weight for every answer that cites the page, keeps each row's provenance, and
  folds one provider's update in without recomputing the others (panes stream; the view is live);
- :func:`merge_responses` is the batch form (the same result as folding one response at a time).

Pure functions and values over :mod:`websearch_tui.core.models`: no I/O, no UI.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import field

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import Citation, SearchResponse, Source
from websearch_tui.core.records import record
from websearch_tui.core.text import canonical_url

RRF_K = 60
"""The constant of reciprocal rank fusion: a finding at rank ``r`` scores ``1 / (RRF_K + r)``."""
DAY = 86_400
"""Seconds in a day: merged dates are compared by whole days."""
CITATION_WEIGHT = 1 / (RRF_K + 1)
"""What one answer citing a page adds to its score: as much as a first-rank finding."""


@record
class MergedSource:
    """One page of the merged list, with its provenance.

    Attributes:
        url: the canonical URL (:func:`canonical_url`), the row's identity.
        link: a URL as a provider gave it (the best-ranked finding's), to open or copy.
        title: the best-ranked finding's title that is not just its URL.
        snippet: the best-ranked finding's snippet, if any has one.
        published_date / age_seconds / published_text: the earliest known date (the largest age, in
            whole days; the best-ranked finding's on a tie): ISO 8601 UTC, its age, and the
            provider's text of it (see :class:`Source`).
        ranks: provider id -> the 1-based rank at which it found the page, in finding order.
        cited_by: provider id -> the answer's citation numbers (1-based) that point at the page.
        score: RRF over ``ranks`` plus :data:`CITATION_WEIGHT` per citing answer.
    """

    url: str
    link: str
    title: str
    snippet: str | None = None
    published_date: str | None = None
    age_seconds: int | None = None
    published_text: str | None = None
    ranks: dict[str, int] = field(default_factory=dict)
    cited_by: dict[str, list[int]] = field(default_factory=dict)
    score: float = 0.0

    @property
    def date_text(self) -> str | None:
        """The date as a reader is shown it when there is no age (see :attr:`Source.date_text`)."""
        return self.published_text or self.published_date

    @property
    def providers(self) -> list[str]:
        """The ids of the providers that found the page, in finding order."""
        return list(self.ranks)

    @property
    def indexes(self) -> int:
        """How many distinct search indexes the providers that found the page draw on
        (:func:`index_count`); at most ``len(ranks)``."""
        return index_count(self.ranks)

    @property
    def shared_indexes(self) -> str:
        """``"2 indexes"`` (``"1 index"``) when some of the providers that found the page share a
        search index (four finds from two indexes are weaker agreement than four from four), else
        ``""``."""
        indexes = self.indexes
        if indexes == len(self.ranks):
            return ""
        return f"{indexes} {'index' if indexes == 1 else 'indexes'}"

    @property
    def found_by(self) -> str:
        """``"found by 4"``, or ``"found by 4 (2 indexes)"`` (:attr:`shared_indexes`); ``""`` when
        only answers cite the page."""
        if not self.ranks:
            return ""
        shared = self.shared_indexes
        return f"found by {len(self.ranks)}" + (f" ({shared})" if shared else "")

    @property
    def best_rank(self) -> int | None:
        """The best (lowest) rank any provider gave the page; ``None`` when only answers cite it."""
        return min(self.ranks.values(), default=None)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``url`` (canonical), ``link``, ``title``, ``snippet``, ``published_date``
        (ISO 8601 UTC), ``published_text``, ``providers``, ``indexes`` (:attr:`indexes`), ``ranks``,
        ``cited_by``, ``score`` (rounded to 6 places)."""
        return {
            "url": self.url,
            "link": self.link,
            "title": self.title,
            "snippet": self.snippet,
            "published_date": self.published_date,
            "published_text": self.published_text,
            "providers": self.providers,
            "indexes": self.indexes,
            "ranks": dict(self.ranks),
            "cited_by": {pid: list(numbers) for pid, numbers in self.cited_by.items()},
            "score": round(self.score, 6),
        }


@record(frozen=True)
class _Finding:
    """What one provider contributes to one row: the rank at which it found the page and the source
    it gave (``None`` for both when only its answer cites the page), its citation numbers, and the
    first citation pointing at the page (link and title for a page no provider listed)."""

    rank: int | None
    source: Source | None
    citations: tuple[int, ...] = ()
    citation: Citation | None = None


class SourceMerger:
    """The merged source list of one search, kept up to date one provider update at a time.

    :meth:`update` replaces what one provider contributes (its sources in rank order and the URLs its
    answer cites) and re-derives only the rows it touches; :attr:`rows` is the list in rank order
    (score, then the number of providers, then the best rank, then the URL). Folding the same
    responses in any order gives the same rows.
    """

    def __init__(self) -> None:
        self._findings: dict[str, dict[str, _Finding]] = {}  # provider -> canonical url -> finding
        self._by_url: dict[str, dict[str, _Finding]] = {}  # canonical url -> provider -> finding
        self._rows: dict[str, MergedSource] = {}
        self._dirty: set[str] = set()  # rows to rebuild on the next read
        self._order: list[MergedSource] | None = []

    def update(self, response: SearchResponse) -> None:
        """Fold in ``response`` (a provider's whole response so far), replacing its earlier state.

        Work is proportional to this provider's sources and citations, plus re-sorting the rows.
        """
        provider = response.provider
        new = _findings(response.sources, response.citations)
        old = self._findings.get(provider, {})
        if new == old:
            return
        self._findings[provider] = new
        for key in old.keys() | new.keys():
            finding = new.get(key)
            if old.get(key) != finding:
                self._set(key, provider, finding)
        self._order = None

    def remove(self, provider: str) -> None:
        """Forget everything ``provider`` contributed."""
        for key in self._findings.pop(provider, {}):
            self._set(key, provider, None)
        self._order = None

    @property
    def rows(self) -> list[MergedSource]:
        """Every page, best first. Rows changed since the last read are rebuilt and the list sorted
        here, once, however many updates came in between."""
        self._rebuild()
        if self._order is None:
            self._order = sorted(self._rows.values(), key=_sort_key)
        return self._order

    def row(self, url: str) -> MergedSource | None:
        """The row of ``url`` (any form of it: it is canonicalised), if some provider has it."""
        self._rebuild()
        return self._rows.get(canonical_url(url))

    def _rebuild(self) -> None:
        """Rebuild the rows changed since the last read (drop those no provider has any more)."""
        for key in self._dirty:
            findings = self._by_url.get(key)
            if findings:
                self._rows[key] = _row(key, findings)
            else:
                self._rows.pop(key, None)
        self._dirty.clear()

    def _set(self, key: str, provider: str, finding: _Finding | None) -> None:
        """Record ``provider``'s finding of ``key`` (``None``: it no longer has the page); the row is
        rebuilt on the next read."""
        findings = self._by_url.setdefault(key, {})
        if finding is None:
            findings.pop(provider, None)
            if not findings:
                del self._by_url[key]
        else:
            findings[provider] = finding
        self._dirty.add(key)


def index_count(provider_ids: Iterable[str]) -> int:
    """How many distinct search indexes ``provider_ids`` draw on: providers whose
    :attr:`~websearch_tui.core.specs.ProviderSpec.index` is the same count once (an unknown index,
    or an id the catalogue does not know, counts as its own)."""
    return len({SPECS[pid].index_key if pid in SPECS else f"id:{pid}" for pid in provider_ids})


def merge_responses(responses: Iterable[SearchResponse]) -> list[MergedSource]:
    """The merged rows of ``responses`` (one per provider), best first."""
    merger = SourceMerger()
    for response in responses:
        merger.update(response)
    return merger.rows


def _findings(sources: Iterable[Source], citations: Iterable[Citation]) -> dict[str, _Finding]:
    """Canonical URL -> this provider's finding: the first rank of each page, and the citation
    numbers (1-based positions in the answer's citation list) that point at it."""
    ranked: dict[str, tuple[int, Source]] = {}
    for rank, source in enumerate(sources, 1):
        ranked.setdefault(canonical_url(source.url), (rank, source))
    cited: dict[str, list[tuple[int, Citation]]] = {}
    for number, citation in enumerate(citations, 1):
        if citation.url:
            cited.setdefault(canonical_url(citation.url), []).append((number, citation))
    found: dict[str, _Finding] = {}
    for key in ranked.keys() | cited.keys():
        entry = ranked.get(key)
        numbers = cited.get(key, [])
        found[key] = _Finding(
            entry[0] if entry else None,
            entry[1] if entry else None,
            tuple(n for n, _ in numbers),
            numbers[0][1] if numbers else None,
        )
    return found


def _row(key: str, findings: Mapping[str, _Finding]) -> MergedSource:
    """The row of one page from every provider's finding of it (provider order does not matter)."""
    ranked = sorted(
        ((f.rank, pid, f.source) for pid, f in findings.items() if f.rank is not None and f.source is not None),
        key=lambda item: (item[0], item[1]),
    )
    sources = [source for _, _, source in ranked]
    citation = next((f.citation for _, f in sorted(findings.items()) if f.citation is not None), None)
    link = sources[0].url if sources else citation.url if citation is not None else key
    titles = [s.title for s in sources if s.title and s.title != s.url]
    if citation is not None and citation.title and citation.title != citation.url:
        titles.append(citation.title)
    # by whole days, the best-ranked finding first on a tie: ages counted at parse time ("3 days ago",
    # or a date's age a few seconds later) must not decide between two readings of one date
    dated = max(
        (s for s in sources if s.age_seconds is not None), key=lambda s: (s.age_seconds or 0) // DAY, default=None
    )
    dated = dated or next((s for s in sources if s.published_text or s.published_date), None)
    ranks = {pid: rank for rank, pid, _ in ranked}
    cited_by = {pid: list(f.citations) for pid, f in sorted(findings.items()) if f.citations}
    return MergedSource(
        url=key,
        link=link,
        title=titles[0] if titles else link,
        snippet=next((s.snippet for s in sources if s.snippet), None),
        published_date=dated.published_date if dated is not None else None,
        age_seconds=dated.age_seconds if dated is not None else None,
        published_text=dated.published_text if dated is not None else None,
        ranks=ranks,
        cited_by=cited_by,
        score=sum(1 / (RRF_K + rank) for rank in ranks.values()) + CITATION_WEIGHT * len(cited_by),
    )


def _sort_key(row: MergedSource) -> tuple[float, int, int, str]:
    """Best first: higher score, more providers, better rank; the URL makes the order total."""
    best = row.best_rank if row.best_rank is not None else 1_000_000
    return (-row.score, -len(row.ranks), best, row.url)
