"""Output formats: the seed LLM text format exactly, Markdown and the JSON document."""

from __future__ import annotations

import base64
import html
import json
import re
from urllib.parse import quote

import pytest

from tests.helpers import finishes_within
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.errors import ErrorKind, ProviderError, register_secret
from websearch_tui.core.models import Citation, SearchRequest, SearchResponse, Source
from websearch_tui.core.results import ProviderOutcome, RunStatus, SearchResult
from websearch_tui.formats import llm
from websearch_tui.formats.llm import outcome_llm_text, to_llm_document, to_llm_merged, to_llm_text
from websearch_tui.formats.markdown import to_markdown
from websearch_tui.formats.text import to_text

LABELS = {pid: spec.label for pid, spec in SPECS.items()}

SEED_EXAMPLE = """Rust 1.80 was released on 25 July 2024 ...

## Sources
2 sources
[1] Announcing Rust 1.80.0 (14mo ago)
    https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html
    The Rust team is happy to announce a new version of Rust, 1.80.0\u2026
[2] Rust Changelogs
    https://releases.rs/

## Citations
2 citations
[1] Announcing Rust 1.80.0
    https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html
[2] Rust Changelogs
    https://releases.rs/

## Related
1 question
- What changed in Rust 1.81?
Search queries: 1
- rust 1.80 release date"""


def seed_response() -> SearchResponse:
    return SearchResponse(
        provider="perplexity",
        answer="Rust 1.80 was released on 25 July 2024 ...",
        sources=[
            Source(
                url="https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html",
                title="Announcing Rust 1.80.0",
                snippet="The Rust team is happy to announce a new version of Rust, 1.80.0\u2026",
                published_date="2024-07-25",
                age_seconds=425 * 86400,
            ),
            Source(url="https://releases.rs/", title="Rust Changelogs"),
        ],
        citations=[
            Citation("https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html", "Announcing Rust 1.80.0"),
            Citation("https://releases.rs/", "Rust Changelogs"),
        ],
        related_questions=["What changed in Rust 1.81?"],
        search_queries=["rust 1.80 release date"],
    )


def test_llm_text_matches_the_seed_example_exactly() -> None:
    assert to_llm_text(seed_response()) == SEED_EXAMPLE


def test_llm_text_without_answer_lists_sources_without_header() -> None:
    response = SearchResponse(
        provider="brave",
        sources=[Source("https://a.example", "A", snippet="x" * 300, published_text="last Tuesday")],
        notes=["recency 'week' widened to 'month'"],
        search_queries=["q1", "q2", "q3", "q4" * 100],
    )
    lines = to_llm_text(response).split("\n")
    assert lines[0] == "Note: recency 'week' widened to 'month'"
    assert lines[1] == "[1] A (last Tuesday)"
    assert lines[2] == "    https://a.example"
    assert lines[3] == "    " + "x" * 239 + "\u2026"
    assert lines[4:] == ["Search queries: 4", "- q1", "- q2", "- q3"]


def test_failed_outcome_is_a_single_error_line() -> None:
    outcome = ProviderOutcome(
        "brave", RunStatus.FAILED, SearchResponse("brave"), ProviderError("brave", ErrorKind.AUTH, "Denied.")
    )
    assert outcome_llm_text(outcome) == "Error: Denied."


def _result() -> SearchResult:
    request = SearchRequest(query="rust [1.80]", providers=("perplexity", "brave"))
    ok = ProviderOutcome("perplexity", RunStatus.DONE, seed_response(), None, 1200, 300)
    failed = ProviderOutcome(
        "brave",
        RunStatus.FAILED,
        SearchResponse("brave"),
        ProviderError("brave", ErrorKind.RATE_LIMIT, "Slow down.", status=429),
        80,
    )
    return SearchResult(request=request, mode="compare", labels=LABELS, outcomes=[ok, failed])


def test_json_document_shape() -> None:
    document = _result().to_dict()
    assert document["query"] == "rust [1.80]" and document["mode"] == "compare"
    perplexity, brave = document["results"]
    assert perplexity["status"] == "done" and perplexity["elapsed_ms"] == 1200 and perplexity["error"] is None
    assert perplexity["response"]["sources"][0]["title"] == "Announcing Rust 1.80.0"
    assert brave == {
        "provider": "brave",
        "status": "failed",
        "elapsed_ms": 80,
        "first_event_ms": None,
        "response": None,
        "error": {"kind": "rate_limit", "message": "Slow down.", "status": 429},
        "cost": None,
        "cached": None,
    }
    assert "error" not in document and document["cost_usd"] == 0


def rendered(markdown: str) -> str:
    """``markdown`` as a CommonMark renderer (markdown-it, GFM tables on) turns it into HTML."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_markdown_and_text_reports() -> None:
    markdown = to_markdown(_result())
    html = rendered(markdown)
    assert html.startswith("<h1>rust [1.80]</h1>\n")
    assert "<h2>Perplexity</h2>" in html and "<h2>Brave Search</h2>" in html
    assert (
        '<li><a href="https://blog.rust-lang.org/2024/07/25/Rust-1.80.0.html">Announcing Rust 1.80.0</a>'
        " — blog.rust-lang.org" in html
    )
    assert "<em>failed (rate_limit) after 0.1s: Slow down.</em>" in html  # the underscore is not emphasis
    text = to_text(_result())
    assert "== Perplexity (perplexity): done in 1.2s, 2 sources" in text
    assert "== Brave Search (brave): failed (rate_limit) after 0.1s: Slow down." in text


def test_text_and_markdown_show_auto_failures_partial_answers_and_no_raw_html() -> None:
    request = SearchRequest(query="q", providers=("brave", "perplexity"), mode="auto")
    failed = ProviderOutcome(
        "brave",
        RunStatus.FAILED,
        SearchResponse("brave", answer="half <script>x</script>"),
        ProviderError("brave", ErrorKind.NETWORK, "Brave Search network error: could not connect."),
        7000,
    )
    won = ProviderOutcome(
        "perplexity",
        RunStatus.DONE,
        SearchResponse(
            "perplexity", answer="ok", sources=[Source("https://a.example", "<b>T</b> & co", snippet="<img src=x>")]
        ),
        None,
        900,
    )
    result = SearchResult(request=request, mode="auto", labels=LABELS, outcomes=[failed, won], winner="perplexity")
    text = to_text(result)
    assert "== Brave Search (brave): failed (network) after 7.0s" in text  # the earlier failure is visible
    assert "half <script>x</script>" in text  # plain text keeps the partial answer verbatim
    markdown = to_markdown(result)
    assert "## Brave Search" in markdown and "## Perplexity" in markdown
    html = rendered(markdown)
    assert "<script>" not in html and "half &lt;script&gt;x&lt;/script&gt;" in html
    assert "<img" not in html and "<b>" not in html and "&lt;b&gt;T&lt;/b&gt; &amp; co" in html
    assert to_llm_document(result).startswith("# Perplexity (perplexity)\nok")  # the seed shows the winner only


def test_dropped_sources_are_reported_in_every_format() -> None:
    response = seed_response()
    response.dropped_sources = 2
    result = SearchResult(
        labels=LABELS,
        request=SearchRequest(query="q", providers=("perplexity",)),
        mode="compare",
        outcomes=[ProviderOutcome("perplexity", RunStatus.DONE, response, None, 10, 5)],
    )
    line = "Note: 2 results without a usable URL were dropped."
    assert to_text(result).split("\n")[1] == line
    markdown = to_markdown(result).split("\n")
    at = markdown.index(f"> {line}")
    assert markdown[at + 1] == ""  # the quote ends before the answer
    assert result.to_dict()["results"][0]["response"]["dropped_sources"] == 2
    assert to_llm_text(response) == SEED_EXAMPLE  # the seed format is left as the seed has it
    response.dropped_sources = 1
    assert "Note: 1 result without a usable URL was dropped." in to_text(result)
    response.dropped_sources = 0
    assert "usable URL" not in to_text(result) + to_markdown(result)


def _fan_out() -> SearchResult:
    """Three providers that agree on one page (spelled three ways) and an answer that cites it."""
    asyncio_page = "https://docs.python.org/3/library/asyncio.html"
    brave = SearchResponse(
        "brave",
        sources=[Source("https://a.example/x", "A | pipes [here]"), Source(asyncio_page + "#intro", "asyncio docs")],
    )
    exa = SearchResponse("exa", sources=[Source(asyncio_page + "?utm_source=exa", "asyncio — Asynchronous I/O")])
    perplexity = SearchResponse(
        "perplexity",
        answer="Use asyncio.run [1].",
        citations=[Citation(asyncio_page, "asyncio docs")],
        sources=[Source(asyncio_page, "asyncio docs")],
    )
    request = SearchRequest(query="python asyncio", providers=("brave", "exa", "perplexity"))
    outcomes = [ProviderOutcome(r.provider, RunStatus.DONE, r) for r in (brave, exa, perplexity)]
    return SearchResult(request=request, mode="compare", labels=LABELS, outcomes=outcomes)


def test_json_document_carries_the_merged_sources() -> None:
    merged = _fan_out().to_dict()["merged"]
    assert [row["url"] for row in merged] == ["https://docs.python.org/3/library/asyncio.html", "https://a.example/x"]
    top = merged[0]
    assert top["providers"] == ["exa", "perplexity", "brave"] and top["ranks"] == {
        "exa": 1,
        "perplexity": 1,
        "brave": 2,
    }
    assert top["cited_by"] == {"perplexity": [1]} and top["score"] > merged[1]["score"]
    assert set(top) == {
        "url",
        "link",
        "title",
        "snippet",
        "published_date",
        "published_text",
        "providers",
        "indexes",
        "ranks",
        "cited_by",
        "score",
    }


def test_markdown_ends_with_a_merged_sources_table_that_escapes_cells() -> None:
    markdown = to_markdown(_fan_out())
    table = markdown[markdown.index("## Merged sources") :].splitlines()
    assert table[2] == "| # | Source | Found by | Cited by |"
    assert table[4].startswith("| 1 | [asyncio — Asynchronous I/O](<https://docs.python.org/3/library/asyncio.html")
    assert "| Exa (1), Perplexity (1), Brave Search (2) | Perplexity [1] |" in table[4]
    assert table[5] == "| 2 | [A \\| pipes \\[here\\]](<https://a.example/x>) — a.example | Brave Search (1) | – |"
    cells = rendered(markdown).split("<tbody>")[1]
    assert '<td><a href="https://a.example/x">A | pipes [here]</a> — a.example</td>' in cells
    unescaped_pipes = [len(re.findall(r"(?<!\\)\|", row)) for row in table[2:6]]
    assert unescaped_pipes == [5, 5, 5, 5]  # a pipe in a title cannot add a column


def test_llm_merged_gives_the_answers_then_one_ranked_source_list() -> None:
    text = to_llm_merged(_fan_out())
    assert text.startswith(
        "# Perplexity (perplexity)\nUse asyncio.run [1].\n\n# Merged sources\n2 sources from 3 providers\n"
    )
    assert "# Brave Search" not in text and "# Exa" not in text  # no answer, no error: only their sources
    assert "[1] asyncio — Asynchronous I/O\n    https://docs.python.org/3/library/asyncio.html?utm_source=exa\n" in text
    assert "    found by exa #1, perplexity #1, brave #2 · cited by perplexity [1]" in text
    assert text.endswith("[2] A | pipes [here]\n    https://a.example/x\n    found by brave #1")


def test_every_format_says_when_the_finders_of_a_page_share_an_index() -> None:
    page = Source("https://a.example/x", "A")
    responses = [SearchResponse(pid, sources=[page]) for pid in ("perplexity", "perplexity_search", "brave")]
    request = SearchRequest(query="q", providers=tuple(r.provider for r in responses))
    outcomes = [ProviderOutcome(r.provider, RunStatus.DONE, r) for r in responses]
    result = SearchResult(request=request, mode="compare", labels=LABELS, outcomes=outcomes)
    assert "found by brave #1, perplexity #1, perplexity_search #1 (2 indexes)" in to_llm_merged(result)
    assert "Perplexity Search (1) — 2 indexes |" in to_markdown(result)
    assert result.to_dict()["merged"][0]["indexes"] == 2


HOSTILE = "\x1b]52;c;Y2xpcA==\x07\x1b]0;title\x07\x1b[2J\x9b31m\u202e"


def hostile_result(text: str) -> SearchResult:
    """A result with ``text`` in every field a format prints, built without the reducer (as a parser
    that forgot to clean would leave it): the formats must guard their own boundary."""
    response = SearchResponse(
        provider="perplexity",
        answer=f"answer {text}",
        sources=[Source(f"https://a.example/{text}", f"title {text}", f"snippet {text}", f"date {text}")],
        citations=[Citation(f"https://c.example/{text}", f"cite {text}", f"quote {text}")],
        related_questions=[f"related {text}"],
        search_queries=[f"query {text}"],
        notes=[f"note {text}"],
        model=f"model {text}",
        request_id=f"req {text}",
    )
    failed = ProviderOutcome(
        "brave", RunStatus.FAILED, SearchResponse("brave"), ProviderError("brave", ErrorKind.SERVER, "x")
    )
    failed.error.message = f"error {text}"  # an error built elsewhere, past its own cleaning
    request = SearchRequest(query="q", providers=("perplexity", "brave"))
    outcomes = [ProviderOutcome("perplexity", RunStatus.DONE, response), failed]
    return SearchResult(request=request, mode="compare", labels=LABELS, outcomes=outcomes)


def every_format(result: SearchResult) -> dict[str, str]:
    return {
        "llm": to_llm_document(result),
        "llm --merged": to_llm_merged(result),
        "text": to_text(result),
        "markdown": to_markdown(result),
        "json": json.dumps(result.to_dict(), ensure_ascii=False),
    }


def test_no_format_lets_a_terminal_escape_through_from_any_field() -> None:
    for name, output in every_format(hostile_result(HOSTILE)).items():
        bad = [ch for ch in output if ch == "\x1b" or "\x80" <= ch <= "\x9f" or ch in "\x07\u202e"]
        assert not bad, (name, bad[:5])


def test_a_key_echoed_in_any_field_is_redacted_in_every_format() -> None:
    secret = "tvly-echoed-0a1b2c3d4e5f"
    register_secret(secret)
    for name, output in every_format(hostile_result(secret)).items():
        assert secret not in output and secret[:8] not in output, name
        assert "***" in output, name


@pytest.mark.parametrize(
    "form",
    [
        lambda s: s,
        lambda s: quote(s, safe=""),
        lambda s: base64.b64encode(s.encode()).decode(),
        lambda s: json.dumps(s)[1:-1],
        lambda s: s[:8] + "…",
        lambda s: quote(s, safe="").lower(),  # lower-case percent-escapes
        lambda s: re.sub(r"[!-/:-@\[-`{-~]", lambda m: "\\" + m.group(), s),  # Markdown-escaped
    ],
)
def test_transformed_echoes_of_a_key_are_redacted(form) -> None:
    secret = "ab/cd+ef=gh12345678-long-enough"
    register_secret(secret)
    output = to_text(hostile_result(form(secret)))
    assert form(secret).rstrip("…") not in output


def test_markdown_links_and_images_in_answers_cannot_act() -> None:
    answer = (
        "Read [the docs](https://docs.python.org) or [this](javascript:alert(1)) or [that](JaVaScRiPt:x) "
        "or [file](file:///etc/passwd) or [ent](&#106;avascript:alert(1)). ![pixel](https://tracker.example/p.gif)\n\n"
        "[ref]: data:text/html;base64,PHNjcmlwdD4=\n[ok]: https://fine.example\n<a href='javascript:x'>raw</a>"
    )
    response = SearchResponse("perplexity", answer=answer)
    request = SearchRequest(query="q", providers=("perplexity",))
    result = SearchResult(
        request, "compare", labels=LABELS, outcomes=[ProviderOutcome("perplexity", RunStatus.DONE, response)]
    )
    html = rendered(to_markdown(result))
    assert re.findall(r'href="([^"]*)"', html) == ["https://docs.python.org", "https://tracker.example/p.gif"]
    assert "<img" not in html and "<a href='javascript" not in html  # the image is only a link now


def test_markdown_text_fields_are_literal_and_urls_cannot_break_out_of_their_link() -> None:
    sneaky = "https://a.example/x>) [click](https://phish.example"
    response = SearchResponse(
        "brave",
        sources=[Source(sneaky, "__init__.py *star* `code`")],
        related_questions=["# not a heading", "1. not a list"],
    )
    request = SearchRequest(query="\x1b[31mred __q__", providers=("brave",))
    result = SearchResult(
        request, "compare", labels=LABELS, outcomes=[ProviderOutcome("brave", RunStatus.DONE, response)]
    )
    html = rendered(to_markdown(result))
    assert "<h1>red __q__</h1>" in html  # the escape sequence removed; underscores not bold
    assert "__init__.py *star* `code`" in html and "<strong>" not in html and "<code>" not in html
    assert re.findall(r'href="([^"]*)"', html) == ["https://a.example/x%3E)%20%5Bclick%5D(https://phish.example"] * 2
    assert "<li># not a heading</li>" in html and "<li>1. not a list</li>" in html


@pytest.mark.parametrize(
    "flood",
    [
        "<!--" * 40_000,
        "](" * 80_000,
        "[" * 160_000,
        "](javascript:" * 15_000,
        "![" * 80_000,
        "\\" * 160_000,
        "|" * 160_000 + "a",
        " | " * 50_000,
    ],
    ids=["comments", "link-openers", "brackets", "script-links", "images", "backslashes", "pipes", "spaced-pipes"],
)
def test_every_format_is_linear_on_160_kb_of_hostile_text(flood: str) -> None:
    """Hang guard (not a speed test): each format of a 160 KB hostile field answers well inside it."""
    result = hostile_result(flood)
    assert finishes_within(lambda: every_format(result), seconds=30)


def _outcomes_result(*outcomes: ProviderOutcome) -> SearchResult:
    request = SearchRequest(query="q", providers=tuple(o.provider for o in outcomes))
    return SearchResult(request=request, mode="compare", labels=LABELS, outcomes=list(outcomes))


def test_llm_blocks_of_a_cancelled_or_empty_provider_say_so() -> None:
    cancelled = ProviderOutcome("tavily", RunStatus.CANCELLED, SearchResponse("tavily"))
    partial = ProviderOutcome("perplexity", RunStatus.CANCELLED, SearchResponse("perplexity", answer="Half an answer"))
    empty = ProviderOutcome("exa", RunStatus.EMPTY, SearchResponse("exa"))
    document = to_llm_document(_outcomes_result(cancelled, partial, empty))
    assert document == (
        "# Tavily (tavily)\nNote: Cancelled before it finished.\n\n"
        "# Perplexity (perplexity)\nNote: Cancelled before it finished; what follows is partial.\nHalf an answer\n\n"
        "# Exa (exa)\nNote: Exa returned no renderable search content."
    )
    merged = to_llm_merged(_outcomes_result(cancelled, partial))
    assert merged.startswith(
        "# Tavily (tavily)\nNote: Cancelled before it finished.\n\n"
        "# Perplexity (perplexity)\nNote: Cancelled before it finished; what follows is partial.\nHalf an answer\n\n"
    )


def test_multi_line_snippets_and_cited_texts_stay_indented() -> None:
    response = SearchResponse(
        "brave",
        sources=[Source("https://a.example", "A", snippet="first line\n  code()\n\nlast")],
        citations=[Citation("https://c.example", "C", cited_text="said\nthis")],
    )
    block = "[1] A\n    https://a.example\n    first line\n      code()\n\n    last"
    assert to_llm_text(response).startswith(block)
    assert to_llm_text(response).endswith("[1] C\n    https://c.example\n    said\n    this")
    assert (
        to_text(_outcomes_result(ProviderOutcome("brave", RunStatus.DONE, response))).count("\n    said\n    this") == 1
    )
    assert "\n    first line\n      code()\n\n    last\n    found by brave #1" in to_llm_merged(
        _outcomes_result(ProviderOutcome("brave", RunStatus.DONE, response))
    )


def test_citations_that_repeat_the_sources_are_one_line_in_text_and_markdown() -> None:
    response = seed_response()  # citation i is source i, no cited text: Perplexity's usual lists
    result = _outcomes_result(ProviderOutcome("perplexity", RunStatus.DONE, response))
    text = to_text(result)
    assert "\n## Citations\n2 citations: sources [1]-[2], in the same order\n\n## Related" in text
    assert text.count("https://releases.rs/") == 1
    assert "### Citations\n\n2 citations: sources 1-2, in the same order\n" in to_markdown(result)
    assert to_llm_text(response) == SEED_EXAMPLE  # the seed format keeps its copy


def test_citations_that_add_cited_text_or_other_numbering_are_listed() -> None:
    sources = [
        Source("https://docs.example/a", "A docs", snippet="About A."),
        Source("https://b.example/", "B", snippet="About B."),
    ]
    citations = [
        Citation("https://b.example", "B", cited_text="About B."),  # another number; its text is the snippet
        Citation("https://docs.example/a", "docs.example", cited_text="**A** is *great*."),
        Citation("https://elsewhere.example/", "Elsewhere"),
    ]
    response = SearchResponse("gemini", answer="x", sources=sources, citations=citations)
    text = to_text(_outcomes_result(ProviderOutcome("gemini", RunStatus.DONE, response)))
    assert text.endswith(
        "## Citations\n3 citations\n[1] B (source [2])\n[2] docs.example (source [1])\n    **A** is *great*.\n"
        "[3] Elsewhere\n    https://elsewhere.example/"
    )
    markdown = to_markdown(_outcomes_result(ProviderOutcome("gemini", RunStatus.DONE, response)))
    assert (
        "1. [B](<https://b.example>) — source 2\n2. [docs.example](<https://docs.example/a>) — source 1\n" in markdown
    )
    assert "   A is great.\n3. [Elsewhere](<https://elsewhere.example/>)\n" in markdown  # the quote's plain text


def test_json_dates_are_iso_8601_utc_with_the_provider_text_beside() -> None:
    from websearch_tui.providers.helpers.parse import make_source

    rows = [
        ("2025-01-15T08:30:00", "2025-01-15T08:30:00Z"),
        ("Thu, 25 Jul 2024 00:00:00 GMT", "2024-07-25T00:00:00Z"),
        ("2024-07-25T10:00:00+02:00", "2024-07-25T08:00:00Z"),
        ("July 25, 2024", "2024-07-25T00:00:00Z"),
        ("last Tuesday", None),
    ]
    sources = [make_source(f"https://{n}.example", "T", published=raw) for n, (raw, _) in enumerate(rows)]
    response = SearchResponse("tavily", sources=[s for s in sources if s is not None])
    result = _outcomes_result(ProviderOutcome("tavily", RunStatus.DONE, response))
    document = result.to_dict()
    listed = document["results"][0]["response"]["sources"]
    assert [(s["published_date"], s["published_text"]) for s in listed] == [(iso, raw) for raw, iso in rows]
    import jsonschema

    from websearch_tui.formats.json_document import JSON_DOCUMENT_SCHEMA

    jsonschema.validate(document, JSON_DOCUMENT_SCHEMA)
    assert "[5] T (last Tuesday)" in to_llm_text(response)  # a reader sees the provider's text when there is no age


def test_markdown_escapes_only_what_would_change_the_rendering() -> None:
    response = SearchResponse(
        "brave",
        sources=[
            Source("https://docs.python.org/3/", "snake_case and 2 * 3 in docs.python.org", snippet="## Setup **now**")
        ],
        notes=["recency 'week' widened to 'month', 2 sources kept"],
    )
    markdown = to_markdown(_outcomes_result(ProviderOutcome("brave", RunStatus.DONE, response, None, 200)))
    assert "*done in 0.2s, 2 sources*" not in markdown  # one source here:
    assert "\n*done in 0.2s, 1 source*\n" in markdown
    assert "[snake_case and 2 * 3 in docs.python.org](<https://docs.python.org/3/>) — docs.python.org\n" in markdown
    assert "\n   Setup now\n" in markdown  # a snippet's own Markdown reads as its text, not as \#\# ... \*\*
    assert "> Note: recency 'week' widened to 'month', 2 sources kept\n" in markdown
    assert "\\." not in markdown and "\\," not in markdown and "\\#" not in markdown


HOSTILE_LINES = [
    "# heading",
    "###### six",
    "> quote",
    "- item",
    "+ item",
    "* item",
    "1. item",
    "2) item",
    "---",
    "===",
    "***",
    "___",
    "| --- | --- |",
    "~~~ fence",
    "``` fence",
    "    four spaces",
    "<div>html</div>",
    "<https://auto.example>",
    "[ref]: https://x.example",
    "![img](https://x.example/p.gif)",
    "[link](javascript:alert(1))",
    "**bold** and *em* and _em_ and __strong__ and ~~gone~~",
    "a*b*c and x__y__z",
    "AT&amp;T &#106; &copy;",
    "C# and C#",
    "trailing ##",
    "back\\slash\\",
    "`code`",
    "see https://evil.example/x, HTTP://X.example, www.evil.example, a@b.example and $x^2$",
]


@pytest.mark.parametrize("text", HOSTILE_LINES)
def test_markdown_text_fields_render_as_exactly_their_text(text: str) -> None:
    """Each field the report writes as text (a title in a link, a related question at a list item's
    start, a snippet on its own line, a table cell, the title line) renders as the text itself."""
    response = SearchResponse(
        "brave",
        sources=[Source("https://a.example/", f"T {text}", snippet=f"{text}")],
        related_questions=[text],
        search_queries=[f"{text} end"],
    )
    result = _outcomes_result(ProviderOutcome("brave", RunStatus.DONE, response))
    result.request = SearchRequest(query=f"q {text}", providers=("brave",))
    html_out = rendered(to_markdown(result))
    literal = html.escape(" ".join(text.split()), quote=False).replace('"', "&quot;")
    assert f"<h1>q {literal}</h1>" in html_out
    assert f"<li>{literal}</li>" in html_out
    assert f'<a href="https://a.example/">T {literal}</a>' in html_out
    assert f'<td><a href="https://a.example/">T {literal}</a> — a.example</td>' in html_out
    assert html_out.count("<em>") == 1  # the status line's own; none from the text
    assert "<strong>" not in html_out and "<code>" not in html_out and "<h2>" in html_out
    assert html_out.count("<h1>") == 1 and "<h4>" not in html_out and "<hr" not in html_out and "<pre>" not in html_out
    assert "<img" not in html_out and "<del>" not in html_out and "<blockquote>" not in html_out
    assert "javascript:" not in re.sub(r"<[^>]*>", "", html_out).replace(literal, "") or "javascript:" in text
    assert re.findall(r'href="([^"]*)"', html_out) == ["https://a.example/"] * 2


def test_reports_and_json_carry_when_the_search_ran_its_mode_recency_and_publication_dates() -> None:
    from datetime import datetime, timezone

    import jsonschema

    from websearch_tui.formats.json_document import JSON_DOCUMENT_SCHEMA

    response = seed_response()
    request = SearchRequest(query="rust 1.80", providers=("perplexity",), recency="week", max_results=5)
    outcome = ProviderOutcome("perplexity", RunStatus.DONE, response, None, 1200)
    started = datetime(2026, 12, 2, 15, 25, 4, 120000, tzinfo=timezone.utc)
    result = SearchResult(request, "compare", labels=LABELS, outcomes=[outcome], created_at=started)
    markdown = to_markdown(result)
    assert markdown.startswith(
        "# rust 1.80\n\nSearched 2026-12-02T15:25:04Z · mode compare · recency week · up to 5 results per provider\n"
    )
    assert "— blog.rust-lang.org · 2024-07-25 · 14mo ago\n" in markdown
    assert "[1] Announcing Rust 1.80.0 (2024-07-25 · 14mo ago)\n" in to_text(result)
    assert to_llm_text(response) == SEED_EXAMPLE  # the seed format keeps its ages
    document = result.to_dict()
    assert (document["created_at"], document["mode"], document["recency"]) == (
        "2026-12-02T15:25:04.120Z",
        "compare",
        "week",
    )
    jsonschema.Draft202012Validator(JSON_DOCUMENT_SCHEMA).validate(document)
    by_hand = _result().to_dict()
    assert by_hand["created_at"] is None and to_markdown(_result()).startswith(
        "# rust \\[1.80\\]\n\nMode compare · recency any"
    )


def test_markdown_text_cannot_become_an_autolink_or_math_on_github() -> None:
    """GitHub's extended autolinks (``http://``, ``https://``, ``ftp://``, ``www.``, e-mail) and its
    ``$...$`` math act on provider text unless a backslash breaks them; CommonMark renders the
    backslashed text as the same characters (the test above)."""
    from websearch_tui.core.text import markdown_literal

    assert markdown_literal("see https://x.example/a and HTTP://y.example") == (
        "see https\\://x.example/a and HTTP\\://y.example"
    )
    assert markdown_literal("ftp://f.example www.w.example WWW.v.example") == (
        "ftp\\://f.example www\\.w.example WWW\\.v.example"
    )
    assert markdown_literal("mail a@b.example, not a @ b") == "mail a\\@b.example, not a @ b"
    assert markdown_literal("costs $5 and $x$") == "costs \\$5 and \\$x\\$"
    assert markdown_literal("docs.python.org and https is a word") == "docs.python.org and https is a word"


def test_the_llm_document_is_made_safe_once_and_keeps_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """An MCP call's text was searched for secrets block by block and then whole: once is enough,
    since every block is part of the whole."""
    secret = "sk-llm-secret-0123456789abcdef"
    register_secret(secret)
    answer = ProviderOutcome(
        "perplexity", RunStatus.DONE, SearchResponse("perplexity", answer=f"the key \x1b[31m{secret}\x1b[0m leaked")
    )
    failed = ProviderOutcome(
        "brave", RunStatus.FAILED, SearchResponse("brave"), ProviderError("brave", ErrorKind.SERVER, "x")
    )
    failed.error.message = f"denied for {secret}"  # an error built elsewhere, past its own cleaning
    passes: list[str] = []
    real = llm.safe_text
    monkeypatch.setattr(llm, "safe_text", lambda text: passes.append(text) or real(text))
    document = to_llm_document(_outcomes_result(answer, failed))
    assert len(passes) == 1
    assert secret not in document and "\x1b" not in document
    assert "the key *** leaked" in document and "Error: denied for ***" in document
