"""Models, reducer, errors and text hygiene."""

from __future__ import annotations

import base64
from datetime import datetime, timezone
from urllib.parse import quote

import pytest

from websearch_tui.core import errors
from websearch_tui.core.errors import (
    ErrorKind,
    ProviderError,
    all_failed_message,
    auth_failed_message,
    credential_origin,
    kind_for_status,
    redact,
    register_secret,
)
from websearch_tui.core.models import (
    AnswerDelta,
    Citation,
    CitationsFound,
    Metadata,
    Note,
    RelatedQuestions,
    RequestError,
    ResponseBuilder,
    SearchQueries,
    SearchRequest,
    Source,
    SourcesFound,
    Usage,
)
from websearch_tui.core.text import (
    age_seconds,
    canonical_url,
    format_age,
    iso_utc,
    plain_text,
    safe_url,
    sanitize,
    truncate,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"query": "   "}, "query"),
        ({"query": "x" * 4001}, "query"),
        ({"query": "q", "max_results": 0}, "max_results"),
        ({"query": "q", "max_results": 21}, "max_results"),
        ({"query": "q", "max_results": True}, "max_results"),
        ({"query": "q", "recency": "hour"}, "recency"),
        ({"query": "q", "mode": "race"}, "mode"),
        ({"query": "q", "temperature": 3}, "temperature"),
        ({"query": "q", "num_search_results": 51}, "num_search_results"),
    ],
)
def test_request_rejects_out_of_range(kwargs: dict, field: str) -> None:
    with pytest.raises(RequestError, match=field):
        SearchRequest(**kwargs)


def test_request_keeps_query_verbatim_but_stripped() -> None:
    request = SearchRequest(query="  CVE-2021-44228 log4j  ", max_results=20, recency="week", num_search_results=30)
    assert request.query == "CVE-2021-44228 log4j"
    assert request.upstream_count == 30
    assert SearchRequest(query="q", max_results=7).upstream_count == 7
    assert len(SearchRequest(query="x" * 4000).query) == 4000


def test_reducer_folds_every_event() -> None:
    builder = ResponseBuilder("perplexity")
    events = [
        AnswerDelta("Rust 1.80 "),
        CitationsFound((Citation("https://a.example/1", "A"),), replace=True),
        AnswerDelta("was released [1]."),
        SourcesFound((Source("https://a.example/1", "https://a.example/1"),)),
        SourcesFound((Source("https://A.example/1/", "Real title", snippet="filled later"),)),
        SourcesFound((Source("https://b.example", "B"),)),
        CitationsFound((Citation("https://a.example/1", "A"), Citation("https://b.example", "B")), replace=True),
        RelatedQuestions(("What changed?", " ", "What changed?")),
        SearchQueries(("rust 1.80",)),
        SearchQueries(("rust 1.80", "rust release date")),
        Metadata(model="sonar", usage=Usage(input_tokens=3)),
        Metadata(request_id="req-1", usage=Usage(input_tokens=3, output_tokens=9)),
        Note("recency widened"),
        Note("recency widened"),
    ]
    for event in events:
        builder.apply(event)
    r = builder.response
    assert r.answer == "Rust 1.80 was released [1]."
    assert [s.url for s in r.sources] == ["https://a.example/1", "https://b.example"]
    assert r.sources[0].title == "Real title" and r.sources[0].snippet == "filled later"
    assert [c.url for c in r.citations] == ["https://a.example/1", "https://b.example"]
    assert r.related_questions == ["What changed?"]
    assert r.search_queries == ["rust 1.80", "rust release date"]
    assert (r.model, r.request_id, r.usage.output_tokens) == ("sonar", "req-1", 9)
    assert r.notes == ["recency widened"]
    assert r.is_renderable()


def test_renderable_rules() -> None:
    builder = ResponseBuilder("x")
    assert not builder.response.is_renderable()
    builder.apply(AnswerDelta("  \n"))
    builder.apply(RelatedQuestions(("  ",)))
    assert not builder.response.is_renderable()
    builder.apply(SearchQueries(("q",)))
    assert builder.response.is_renderable()


def test_citations_without_a_url_are_not_content() -> None:
    builder = ResponseBuilder("x")
    builder.apply(CitationsFound((Citation(url="", title="[1]"),)))
    assert not builder.response.is_renderable()
    builder.apply(CitationsFound((Citation(url="https://a.example/", title="A"),)))
    assert builder.response.is_renderable()


@pytest.mark.parametrize(
    ("status", "body", "hint", "kind"),
    [
        (401, "", False, ErrorKind.AUTH),
        (403, "", False, ErrorKind.AUTH),
        (402, "", False, ErrorKind.QUOTA),
        (432, "", False, ErrorKind.QUOTA),
        (429, '{"error": {"code": "insufficient_quota"}}', False, ErrorKind.QUOTA),
        (429, "You exceeded your current quota", True, ErrorKind.RATE_LIMIT),
        (429, "", False, ErrorKind.RATE_LIMIT),
        (404, "", False, ErrorKind.NOT_FOUND),
        (410, "", False, ErrorKind.DEPRECATED),
        (422, "", False, ErrorKind.BAD_REQUEST),
        (503, "", False, ErrorKind.SERVER),
        (408, "", False, ErrorKind.TIMEOUT),
    ],
)
def test_kind_for_status(status: int, body: str, hint: bool, kind: ErrorKind) -> None:
    assert kind_for_status(status, body, has_retry_hint=hint) is kind


def test_seed_messages() -> None:
    assert (
        auth_failed_message("Brave Search", 401)
        == "Brave Search authorization failed (401). Check API key or base URL."
    )
    assert all_failed_message([("brave", "a"), ("exa", "b")]) == "All web search providers failed: brave: a; exa: b"


def test_redaction_removes_every_registered_secret() -> None:
    register_secret("tvly-SECRET-AAAA")
    register_secret("BSA-other-secret")
    register_secret("ab")  # too short to redact safely; ignored
    text = "key tvly-SECRET-AAAA and BSA-other-secret, ab"
    assert redact(text) == "key *** and ***, ab"
    error = ProviderError("tavily", ErrorKind.AUTH, "bad \x1b[31mtvly-SECRET-AAAA\x1b[0m")
    assert error.message == "bad ***"


def test_a_secret_registered_again_costs_no_new_forms_and_stays_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    real_forms = errors.secret_forms

    def forms(value: str) -> set[str]:
        made.append(value)
        return real_forms(value)

    monkeypatch.setattr(errors, "secret_forms", forms)
    secret = "sk-live-0123456789abcdefXYZ"
    for _ in range(3):
        register_secret(secret)
    assert made == [secret]
    encoded = base64.b64encode(secret.encode()).decode()
    assert redact(f"k={secret} b={encoded} q={quote(secret, safe='')}") == "k=*** b=*** q=***"


def test_sanitize_removes_escape_sequences_and_controls() -> None:
    hostile = "ti\x1b]52;c;SGVsbG8=\x07tle\x1b[2J \x9b31mred\x00\x7f\r\nnext\tcol \x1bP+q\x1b\\ end"
    assert sanitize(hostile) == "title red\nnext\tcol  end"
    assert sanitize(None) == ""  # type: ignore[arg-type]
    assert sanitize("evil\u202egpj.exe\u202c and \u2066iso\u2069") == "evilgpj.exe and iso"  # bidi overrides


def test_plain_text_strips_tags_and_entities() -> None:
    assert (
        plain_text("A &quot;Hello, World!&quot; <strong>program</strong> &#x27;x&#39;")
        == "A \"Hello, World!\" program 'x'"
    )
    assert plain_text("  many \n  spaces ", collapse=True) == "many spaces"
    assert plain_text("Use Vec<T> when a < b and c > d") == "Use Vec<T> when a < b and c > d"
    assert plain_text("<p>para</p><br/><!-- hidden -->x <a href='h'>link</a>") == "parax link"
    assert plain_text("N/A") is None and plain_text("") is None and plain_text(3) is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://example.com/a b", "https://example.com/a%20b"),
        ("http://example.com", "http://example.com"),
        ("https://müller.de/straße", "https://müller.de/straße"),
        ("javascript:alert(1)", None),
        ("file:///etc/passwd", None),
        ("//example.com/x", None),
        ("https://", None),
        ("https://example.com/" + "a" * 3000, None),
        (None, None),
    ],
)
def test_safe_url(raw: object, expected: str | None) -> None:
    assert safe_url(raw) == expected


def test_canonical_url() -> None:
    assert canonical_url("HTTPS://Example.COM/Path/#frag") == "https://example.com/Path"


@pytest.mark.parametrize(
    ("raw", "age"),
    [
        ("2026-11-29T12:00:00Z", 86400),
        ("2026-11-29T12:00:00", 86400),
        ("Sun, 29 Nov 2026 12:00:00 GMT", 86400),
        ("November 29, 2026", 86400 + 12 * 3600),
        ("3 days ago", 3 * 86400),
        ("2 weeks ago", 14 * 86400),
        ("1 month ago", 30 * 86400),
        ("2030-01-01", 0),
        ("2026-12-01T09:00:00+09:00", 0),  # a date ahead of the clock (time zones, skew) is clamped to 0
        ("Tue, 01 Dec 2026 00:00:00 GMT", 0),
        ("N/A", None),
        ("", None),
        ("someday", None),
    ],
)
def test_age_seconds(raw: str, age: int | None) -> None:
    assert age_seconds(raw, now=NOW) == age


@pytest.mark.parametrize(
    ("raw", "iso"),
    [
        ("2025-01-15T08:30:00", "2025-01-15T08:30:00Z"),  # naive: UTC
        ("Thu, 25 Jul 2024 00:00:00 GMT", "2024-07-25T00:00:00Z"),
        ("2024-07-25T10:00:00+02:00", "2024-07-25T08:00:00Z"),
        ("2024-07-25", "2024-07-25T00:00:00Z"),  # a date alone: midnight UTC
        ("July 25, 2024", "2024-07-25T00:00:00Z"),
        ("3 days ago", "2026-11-27T12:00:00Z"),  # counted back from now
        # Python 3.10's fromisoformat refused these; 3.11, the oldest Python declared, reads them
        ("2026-04-01T12:00:00.1234Z", "2026-04-01T12:00:00Z"),
        ("20240725T083000Z", "2024-07-25T08:30:00Z"),
        ("2024-07-25T08:30:00+0530", "2024-07-25T03:00:00Z"),
        ("someday", None),
        ("", None),
        ("N/A", None),
        ("99999999999 years ago", None),
    ],
)
def test_iso_utc(raw: str, iso: str | None) -> None:
    assert iso_utc(raw, now=NOW) == iso


def test_format_age_and_truncate() -> None:
    assert format_age(None) == "" and format_age(0) == ""
    assert format_age(30) == "just now"
    assert format_age(90) == "1m ago"
    assert format_age(3 * 86400) == "3d ago"
    assert format_age(14 * 86400) == "2w ago"
    assert format_age(425 * 86400) == "14mo ago"
    assert truncate("abcdef", 4) == "abc\u2026" and truncate("abc", 3) == "abc"


def test_reducer_counts_dropped_sources_and_a_snapshot_replaces_the_count() -> None:
    builder = ResponseBuilder("perplexity")
    builder.apply(SourcesFound((Source("https://a.example", "A"),), dropped=2))
    builder.apply(SourcesFound((), dropped=1))
    assert builder.response.dropped_sources == 3 and len(builder.response.sources) == 1
    builder.apply(SourcesFound((Source("https://b.example", "B"),), replace=True, dropped=1))
    assert builder.response.dropped_sources == 1 and [s.url for s in builder.response.sources] == ["https://b.example"]
    assert builder.response.to_dict()["dropped_sources"] == 1
    fresh = ResponseBuilder("x")
    fresh.apply(SourcesFound((), dropped=4))
    assert fresh.response.dropped_sources == 4 and not fresh.response.is_renderable()  # a count is not content


@pytest.mark.parametrize(
    ("where", "env_var", "origin"),
    [
        ("env", "BRAVE_API_KEY", "env BRAVE_API_KEY"),
        ("keyring", None, "the OS keyring (service websearch-tui, user brave:api_key)"),
        ("file", None, "the key file"),
        ("env", None, None),
        (None, None, None),
        ("somewhere", None, None),
    ],
)
def test_credential_origin_wording(where: str | None, env_var: str | None, origin: str | None) -> None:
    assert credential_origin(where, "brave:api_key", env_var) == origin


def test_excerpt_of_an_html_page_is_its_text_and_comment_runs_are_not_a_trap() -> None:
    from websearch_tui.core.errors import excerpt

    page = "<!-- proxy -->\n<!DOCTYPE html><html><head><title>Gateway &amp; Co</title><script>x()</script></head>"
    assert excerpt(page + "<body><p>Try later</p></body></html>", 100) == "Gateway & Co Try later"
    # runs of empty comments once made the page detector backtrack exponentially (48 of them: days)
    assert excerpt("<!---->" * 48 + "x", 20) == "<!----><!----><!---…"
    assert excerpt("<!---->" * 48 + "<html><b>done</b>", 20) == "done"


def test_the_reducer_sanitizes_every_string_an_event_carries() -> None:
    hostile = "\x1b]52;c;Y2xpcA==\x07\x1b[2J\u202e"
    builder = ResponseBuilder("p")
    folded = builder.apply(AnswerDelta(f"a{hostile}b"))
    held = builder.finish()  # a tail may be held back while secrets are registered (see redact_stream)
    assert folded.text + (held.text if held else "") == "ab"  # the front end streams the returned, clean text
    builder.apply(
        SourcesFound(
            (Source(f"https://x.test/{hostile}", f"t{hostile}", f"s{hostile}", f"d{hostile}", author=f"w{hostile}"),)
        )
    )
    builder.apply(CitationsFound((Citation("https://c.test", f"c{hostile}", f"q{hostile}"),)))
    builder.apply(RelatedQuestions((f"r{hostile}",)))
    builder.apply(SearchQueries((f"q{hostile}",)))
    builder.apply(Metadata(model=f"m{hostile}", request_id=f"i{hostile}"))
    builder.apply(Note(f"n{hostile}"))
    response = builder.response
    texts = [response.answer, response.model, response.request_id, *response.notes]
    texts += [*response.related_questions, *response.search_queries]
    source, citation = response.sources[0], response.citations[0]
    texts += [source.url, source.title, source.snippet, source.published_date, source.author]
    texts += [citation.title, citation.cited_text]
    assert all("\x1b" not in text and "\x07" not in text and "\u202e" not in text for text in texts), texts
    assert (source.title, citation.cited_text, response.notes) == ("t", "q", ["n"])


def test_each_list_stops_at_its_limit_and_a_note_counts_what_was_dropped() -> None:
    from websearch_tui.core.models import LIMITS

    builder = ResponseBuilder("p")
    flood = tuple(Citation(f"https://c{i}.example", f"c{i}") for i in range(20_000))
    folded = builder.apply(CitationsFound(flood))
    assert len(folded.citations) == LIMITS["citations"] == len(builder.response.citations)
    builder.apply(SourcesFound(tuple(Source(f"https://s{i}.example", f"s{i}") for i in range(150))))
    builder.apply(RelatedQuestions(tuple(f"q{i}?" for i in range(30))))
    for i in range(60):
        builder.apply(SearchQueries((f"query {i}", "query 0")))
    r = builder.response
    assert (len(r.sources), len(r.related_questions), len(r.search_queries)) == (100, 20, 50)
    assert set(r.notes) == {
        "19800 more citations than the 200 kept were dropped.",
        "50 more sources than the 100 kept were dropped.",
        "10 more related questions than the 20 kept were dropped.",
        "10 more search queries than the 50 kept were dropped.",
    }
    builder.apply(CitationsFound(flood[:3], replace=True))  # a snapshot replaces the list and its count
    assert len(builder.response.citations) == 3
    assert not any("citations" in note for note in builder.response.notes)


def test_the_reducer_redacts_every_string_and_a_key_split_across_tokens() -> None:
    secret = "sk-leak-0123456789abcdef"
    register_secret(secret)
    builder = ResponseBuilder("p")
    builder.apply(AnswerDelta(f"key {secret[:10]}"))
    builder.apply(AnswerDelta(f"{secret[10:]} done"))
    builder.apply(SourcesFound((Source(f"https://x.example/?k={secret}", f"t {secret}", f"s {secret}"),)))
    builder.apply(CitationsFound((Citation(f"https://c.example/{secret}", secret, secret),)))
    builder.apply(Metadata(model=secret, request_id=f"req-{secret}"))
    builder.apply(Note(f"echo {secret}"))
    builder.apply(RelatedQuestions((secret,)))
    builder.apply(SearchQueries((secret,)))
    r = builder.response
    assert r.answer == "key *** done"
    live = ResponseBuilder("p")
    shown = [live.apply(AnswerDelta(piece)).text for piece in ("again ", secret[:5], secret[5:], " end")]
    rest = live.finish()
    shown.append(rest.text if rest else "")
    assert "".join(shown) == "again *** end"  # what a live view streams never holds the key in pieces
    text = repr(r)
    assert secret not in text and secret[:10] not in text.replace("***", "")


def test_a_response_as_a_dict_is_what_asdict_gives_and_shares_nothing_changeable() -> None:
    import dataclasses

    from tests.helpers import sample_result
    from websearch_tui.core.checks import CitationCheck, Verdict
    from websearch_tui.core.models import LiveResponse

    response = sample_result().outcomes[0].response
    check = CitationCheck(Verdict.QUOTED, "use asyncio.run", None, "https://docs.python.org/", None, "ab" * 32)
    response.citations[0] = dataclasses.replace(response.citations[0], check=check)
    live = LiveResponse(provider="ddgs")
    live.answer = "streamed"
    assert type(response.to_dict()["citations"][0]["check"]) is dict
    for value in (response, live):
        plain = value.to_dict()
        assert plain == dataclasses.asdict(value)
        assert type(plain["sources"]) is list
        plain["sources"].clear()
        plain["notes"].append("changed")
        assert plain != value.to_dict()  # the dict's lists are its own
