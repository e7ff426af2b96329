"""Reading pages served on loopback: the Markdown and facts of an article, charsets (header, the
page's own declaration, undeclared), redirects (5 followed, a 6th refused, loops), PDFs, error
statuses and types that are not pages, and hostile pages (a gzip bomb, an endless body, one 5 MB
line, 100,000-deep nesting, too many elements, escapes and bidi controls), each ending with a
clear reason, its memory bounded and nothing raw in what comes out."""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from tests.helpers import closed_port_url
from tests.page_server import PageServer, Reply, endless, gzip_reply, html_reply, redirect_reply
from websearch_tui.core.pages import MIB, Page, PageError, PageReason, ReaderSettings
from websearch_tui.core.text import has_control_chars
from websearch_tui.reader import Reader

LOOPBACK = ("127.0.0.1",)
PARAGRAPH = (
    "<p>Reading a page means fetching it safely and keeping only its main text, "
    "which the reader returns as Markdown for people and agents alike, paragraph {n}.</p>"
)
ARTICLE = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Moon landing, fifty years on</title>
<meta name="author" content="Jane Doe"><meta property="og:site_name" content="Example Times">
<meta property="article:published_time" content="2019-07-20T10:00:00Z"></head>
<body><nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li></ul></nav>
<main><article><h1>Moon landing, fifty years on</h1>
{"".join(PARAGRAPH.format(n=n) for n in range(3))}
<h2>What was carried</h2>
<ul><li>A seismometer for moonquakes</li><li>A laser reflector still in use</li></ul>
<table><tr><th>Mission</th><th>Year</th></tr><tr><td>Apollo 11</td><td>1969</td></tr>
<tr><td>Apollo 12</td><td>1969</td></tr></table>
<p>See the <a href="/archive/apollo">full archive</a> for the mission logs and photographs.</p>
{"".join(PARAGRAPH.format(n=n) for n in range(3, 6))}
</article></main><footer><p>Copyright Example Times</p></footer></body></html>"""
RUSSIAN = "Москва - столица России, крупнейший по численности населения город страны. " * 12
JAPANESE = "東京は日本の首都であり、世界で最も人口の多い都市圏の一つです。" * 12


def page_html(text: str, head: str = "", title: str = "A page") -> str:
    """A simple article page whose paragraphs are ``text``."""
    return (
        f"<html><head>{head}<title>{title}</title></head><body><article><h1>{title}</h1>"
        f"<p>{text}</p><p>{text}</p></article></body></html>"
    )


@pytest.fixture
def server() -> Iterator[PageServer]:
    with PageServer() as page_server:
        yield page_server


async def read(url: str, **settings: object) -> Page:
    """Read ``url`` with a reader allowing loopback (``settings``: other ``ReaderSettings`` fields)."""
    async with Reader(ReaderSettings(allow_private=LOOPBACK, **settings)) as reader:  # type: ignore[arg-type]
        return await reader.read(url)


async def failure(url: str, **settings: object) -> PageError:
    """The :class:`PageError` reading ``url`` raises (the test fails when it reads)."""
    with pytest.raises(PageError) as caught:
        await read(url, **settings)
    return caught.value


def make_pdf(pages: list[str], title: str = "Test PDF", author: str = "Ann Author") -> bytes:
    """A PDF with one line of Helvetica text per page, a title, an author and a creation date."""
    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1"))
        page.replace_contents(stream)
    writer.add_metadata({"/Title": title, "/Author": author, "/CreationDate": "D:20240501120000Z"})
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()


# --- an article --------------------------------------------------------------------------------------


async def test_an_article_becomes_markdown_with_its_facts(server: PageServer) -> None:
    url = server.route("/news/moon", html_reply(ARTICLE))
    before = datetime.now(timezone.utc)
    page = await read(url)
    assert page.title == "Moon landing, fifty years on"
    assert (page.site, page.author, page.published_date) == ("Example Times", "Jane Doe", "2019-07-20")
    assert (page.url, page.final_url, page.status, page.content_type) == (url, url, 200, "text/html")
    text = page.text
    assert "## What was carried" in text
    assert "- A seismometer for moonquakes" in text
    assert "| Mission | Year |" in text and "| Apollo 11 | 1969 |" in text
    assert f"[full archive]({server.url('/archive/apollo')})" in text  # the link kept, made absolute
    assert "Home" not in text and "Copyright" not in text  # navigation and footer left out
    assert page.word_count == len(text.split()) and page.word_count > 100
    assert page.content_sha256 == hashlib.sha256(ARTICLE.encode()).hexdigest()
    assert not page.truncated and before - timedelta(seconds=1) <= page.retrieved_at <= datetime.now(timezone.utc)


async def test_to_dict_is_json_ready(server: PageServer) -> None:
    page = await read(server.route("/a", html_reply(ARTICLE)))
    document = page.to_dict()
    assert list(document) == [
        "url",
        "final_url",
        "status",
        "title",
        "site",
        "author",
        "published_date",
        "text",
        "word_count",
        "truncated",
        "retrieved_at",
        "content_sha256",
        "content_type",
    ]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", document["retrieved_at"])


async def test_readability_takes_over_when_trafilatura_finds_nothing(server: PageServer) -> None:
    """All the text is in a page footer, which trafilatura leaves out as boilerplate."""
    markup = (
        "<html><head><title>Footer only</title></head><body><footer><h2>Notes</h2>"
        + "".join(PARAGRAPH.format(n=n) for n in range(4))
        + "</footer></body></html>"
    )
    page = await read(server.route("/footer", html_reply(markup)))
    assert "## Notes" in page.text and "paragraph 3." in page.text
    assert page.title == "Footer only" and page.site == server.url("")[7:]  # trafilatura names the host and port


async def test_a_page_without_main_text_says_so(server: PageServer) -> None:
    error = await failure(server.route("/empty", html_reply("<html><body><script>app()</script></body></html>")))
    assert error.reason is PageReason.NO_MAIN_TEXT
    assert "no main text found" in error.message and "built by scripts" in error.message


async def test_plain_text_is_read_as_it_is(server: PageServer) -> None:
    body = "Plain notes.\n\nSecond paragraph with *stars* kept.\n"
    page = await read(server.route("/notes.txt", html_reply(body, content_type="text/plain")))
    assert page.text == "Plain notes.\n\nSecond paragraph with *stars* kept."
    assert page.content_type == "text/plain" and page.site == "127.0.0.1"


# --- charsets ------------------------------------------------------------------------------------------


async def test_charset_from_the_header(server: PageServer) -> None:
    page = await read(server.route("/ru", html_reply(page_html(RUSSIAN, title="Москва"), charset="windows-1251")))
    assert "Москва - столица России" in page.text and page.title == "Москва"


@pytest.mark.parametrize(
    ("text", "encoding", "declaration"),
    [
        (RUSSIAN, "windows-1251", '<meta charset="windows-1251">'),
        (RUSSIAN, "koi8-r", '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=koi8-r">'),
        (JAPANESE, "shift_jis", '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'),
        (JAPANESE, "euc-jp", "<meta charset='EUC-JP'>"),
    ],
    ids=["windows-1251", "koi8-r http-equiv", "shift_jis http-equiv", "euc-jp"],
)
async def test_an_old_page_that_declares_its_charset_only_in_a_meta_tag(
    server: PageServer, text: str, encoding: str, declaration: str
) -> None:
    body = page_html(text, head=declaration).encode(encoding)
    page = await read(server.route("/old", html_reply(body, charset=None)))
    assert text.strip()[:20] in page.text


async def test_the_header_wins_over_the_meta_tag(server: PageServer) -> None:
    body = page_html(RUSSIAN, head='<meta charset="iso-8859-1">').encode("windows-1251")
    page = await read(server.route("/both", html_reply(body, charset="windows-1251")))
    assert RUSSIAN[:20] in page.text


@pytest.mark.parametrize(
    ("text", "encoding"),
    [(RUSSIAN, "windows-1251"), (JAPANESE, "shift_jis"), (RUSSIAN, "utf-8")],
    ids=["windows-1251", "shift_jis", "utf-8"],
)
async def test_an_undeclared_charset_is_detected(server: PageServer, text: str, encoding: str) -> None:
    body = page_html(text).encode(encoding)
    page = await read(server.route("/undeclared", html_reply(body, charset=None)))
    assert text.strip()[:20] in page.text


async def test_latin1_is_read_as_windows_1252_as_browsers_do(server: PageServer) -> None:
    text = "Curly \u201cquotes\u201d and an en dash \u2013 in an old page. " * 8
    body = page_html(text).encode("cp1252")
    page = await read(server.route("/latin", html_reply(body, charset="iso-8859-1")))
    assert "\u201cquotes\u201d" in page.text and "\u2013" in page.text


NOT_CHARSETS = ["zlib", "bz2", "rot13", "base64", "hex", "uu", "quopri", "idna", "punycode", "unicode_escape"]
"""Python codec names that are no character encoding: a page labelled with one is read as if unlabelled."""


@pytest.mark.parametrize("label", NOT_CHARSETS)
async def test_a_header_charset_that_is_no_text_encoding_is_ignored(server: PageServer, label: str) -> None:
    body = page_html(RUSSIAN).encode("utf-8")
    page = await read(server.route("/codec", html_reply(body, charset=label)))
    assert RUSSIAN[:20] in page.text


@pytest.mark.parametrize("label", NOT_CHARSETS)
async def test_a_meta_charset_that_is_no_text_encoding_is_ignored(server: PageServer, label: str) -> None:
    body = page_html(RUSSIAN, head=f'<meta charset="{label}">').encode("windows-1251")
    page = await read(server.route("/codec", html_reply(body, charset=None)))
    assert RUSSIAN[:20] in page.text


@pytest.mark.parametrize(
    ("label", "encoding"), [("utf-16", "utf-16-le"), ("UTF-16LE", "utf-16-le"), ("utf-16be", "utf-16-be")]
)
async def test_a_utf16_page_without_a_byte_order_mark_is_read_as_the_header_says(
    server: PageServer, label: str, encoding: str
) -> None:
    body = page_html(RUSSIAN, title="Москва").encode(encoding)
    page = await read(server.route("/utf16", html_reply(body, charset=label)))
    assert RUSSIAN[:20] in page.text and page.title == "Москва"


# --- redirects ----------------------------------------------------------------------------------------


def chain(server: PageServer, hops: int) -> str:
    """``/hop0`` redirects to ``/hop1`` ... to ``/hop<hops>``, the article (relative targets)."""
    for hop in range(hops):
        server.route(f"/hop{hop}", redirect_reply(f"/hop{hop + 1}", status=(301, 302, 303, 307, 308)[hop % 5]))
    server.route(f"/hop{hops}", html_reply(ARTICLE))
    return server.url("/hop0")


async def test_five_redirects_are_followed(server: PageServer) -> None:
    page = await read(chain(server, 5))
    assert page.final_url == server.url("/hop5") and page.url == server.url("/hop0")
    assert len(server.hits) == 6


async def test_a_sixth_redirect_is_refused(server: PageServer) -> None:
    error = await failure(chain(server, 6))
    assert error.reason is PageReason.TOO_MANY_REDIRECTS and "more than 5 times" in error.message
    assert len(server.hits) == 6


async def test_a_redirect_loop_is_refused(server: PageServer) -> None:
    server.route("/a", redirect_reply("/b"))
    server.route("/b", redirect_reply(server.url("/a")))
    error = await failure(server.url("/a"))
    assert error.reason is PageReason.TOO_MANY_REDIRECTS and "loop" in error.message
    assert server.hits == ["/a", "/b"]


async def test_a_redirect_without_a_target_or_to_another_scheme(server: PageServer) -> None:
    server.route("/nowhere", Reply(status=302))
    assert (await failure(server.url("/nowhere"))).reason is PageReason.HTTP_STATUS
    server.route("/ftp", redirect_reply("ftp://example.com/file"))
    assert (await failure(server.url("/ftp"))).reason is PageReason.BAD_URL


# --- statuses and types -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (404, "does not exist"),
        (403, "refuses access"),
        (410, "removed"),
        (429, "try again later"),
        (503, "server error"),
    ],
)
async def test_error_statuses_say_what_they_mean(server: PageServer, status: int, words: str) -> None:
    server.route("/status", Reply(status=status, body=b"<h1>\x1b[31merror page</h1>"))
    error = await failure(server.url("/status"))
    assert error.reason is PageReason.HTTP_STATUS and error.status == status
    assert error.message.startswith(f"127.0.0.1 answered HTTP {status}: ") and words in error.message


@pytest.mark.parametrize("content_type", ["image/png", "video/mp4", "application/zip", "application/json"])
async def test_types_that_are_not_pages_are_unsupported(server: PageServer, content_type: str) -> None:
    server.route("/file", Reply(headers=[("Content-Type", content_type)], body=endless(b"\x89PNG" * 4096)))
    error = await failure(server.url("/file"))
    assert error.reason is PageReason.UNSUPPORTED and content_type in error.message


async def test_an_untyped_binary_body_is_unsupported_and_an_untyped_page_is_sniffed(server: PageServer) -> None:
    server.route("/blob", Reply(body=bytes(range(256)) * 64))
    assert (await failure(server.url("/blob"))).reason is PageReason.UNSUPPORTED
    server.route("/untyped", Reply(headers=[("Content-Type", "application/octet-stream")], body=ARTICLE.encode()))
    page = await read(server.url("/untyped"))
    assert page.content_type == "text/html" and "## What was carried" in page.text


# --- PDFs ---------------------------------------------------------------------------------------------


async def test_a_pdf_is_read_with_its_metadata(server: PageServer) -> None:
    pdf = make_pdf(["Hello PDF world, page one.", "Second page (with parens) text."])
    page = await read(server.route("/paper.pdf", Reply(headers=[("Content-Type", "application/pdf")], body=pdf)))
    assert page.text == "Hello PDF world, page one.\n\nSecond page (with parens) text."
    assert (page.title, page.author, page.published_date) == ("Test PDF", "Ann Author", "2024-05-01")
    assert page.content_type == "application/pdf" and page.content_sha256 == hashlib.sha256(pdf).hexdigest()


async def test_a_pdf_without_a_content_type_is_recognised(server: PageServer) -> None:
    page = await read(server.route("/download", Reply(body=make_pdf(["Sniffed by its signature."]))))
    assert page.text == "Sniffed by its signature." and page.content_type == "application/pdf"


async def test_a_pdf_larger_than_the_cap_is_too_large(server: PageServer) -> None:
    pdf = make_pdf(["Big."]) + b"%" * (200 * 1024)
    server.route("/big.pdf", Reply(headers=[("Content-Type", "application/pdf")], body=pdf))
    error = await failure(server.url("/big.pdf"), max_bytes=64 * 1024)
    assert error.reason is PageReason.TOO_LARGE and "raise [reader] max_bytes" in error.message
    assert "larger than 0.0625 MiB" in error.message
    server.route("/streamed.pdf", Reply(headers=[("Content-Type", "application/pdf")], body=endless(b"%PDF-1.7\n")))
    assert (await failure(server.url("/streamed.pdf"), max_bytes=64 * 1024)).reason is PageReason.TOO_LARGE


async def test_a_damaged_pdf_has_no_main_text(server: PageServer) -> None:
    server.route("/bad.pdf", Reply(headers=[("Content-Type", "application/pdf")], body=b"%PDF-1.7\n\x00garbage"))
    error = await failure(server.url("/bad.pdf"))
    assert error.reason is PageReason.NO_MAIN_TEXT and "could not be read" in error.message


# --- failures on the way ---------------------------------------------------------------------------------


async def test_a_refused_connection_is_a_network_error() -> None:
    error = await failure(closed_port_url() + "/page")
    assert error.reason is PageReason.NETWORK and "could not connect to 127.0.0.1" in error.message


async def test_a_name_that_does_not_resolve_is_a_network_error() -> None:
    async def no_such_name(host: str, port: int) -> list[str]:
        raise OSError(-2, "Name or service not known")

    async with Reader(resolver=no_such_name) as reader:
        with pytest.raises(PageError) as caught:
            await reader.read("https://no-such-host.test/")
    assert caught.value.reason is PageReason.NETWORK
    assert caught.value.message == "could not resolve no-such-host.test; check the URL"


async def test_a_server_that_never_finishes_times_out(server: PageServer) -> None:
    def drip() -> Iterator[bytes]:
        yield b"<html><body><p>start"
        while True:
            time.sleep(0.05)
            yield b" ."

    server.route("/slow", Reply(headers=[("Content-Type", "text/html")], body=drip))
    started = time.monotonic()
    error = await failure(server.url("/slow"), timeout=1.0)
    assert error.reason is PageReason.TIMEOUT and "did not arrive within 1 s" in error.message
    assert time.monotonic() - started < 5


# --- hostile pages ----------------------------------------------------------------------------------------


def gzip_bomb(size: int, piece: bytes) -> bytes:
    """``piece`` repeated to ``size`` bytes, gzip-compressed (about a thousand times smaller)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = piece * (MIB // len(piece))
    return b"".join(compressor.compress(block) for _ in range(size // MIB)) + compressor.flush()


async def test_a_gzip_bomb_stops_at_the_cap_with_memory_bounded(server: PageServer) -> None:
    bomb = gzip_bomb(256 * MIB, b" " * 64)  # a quarter of a GiB of spaces in about a quarter of a MiB
    server.route("/bomb", Reply(headers=[("Content-Type", "text/html"), ("Content-Encoding", "gzip")], body=bomb))
    tracemalloc.start()
    try:
        error = await failure(server.url("/bomb"), max_bytes=MIB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error.reason is PageReason.NO_MAIN_TEXT and "only its first part was read" in error.message
    assert peak < 48 * MIB


async def test_a_gzip_bomb_of_words_is_a_truncated_page(server: PageServer) -> None:
    body = b"<html><body><article><p>" + b"many words in one endless paragraph " * 100 + b"</p>"
    bomb = gzip_reply(body + b"<p>more of the same words, again and again</p>" * (8 * MIB // 46))
    page = await read(server.route("/words", bomb), max_bytes=MIB)
    assert page.truncated and "many words in one endless paragraph" in page.text


async def test_an_endless_body_is_read_up_to_the_cap(server: PageServer) -> None:
    piece = b"<p>An endless page keeps sending this paragraph, over and over, without an end.</p>\n"
    server.route("/endless", Reply(headers=[("Content-Type", "text/html")], body=endless(piece)))
    page = await read(server.url("/endless"), max_bytes=MIB)
    assert page.truncated and "An endless page keeps sending this paragraph" in page.text
    expected = (piece * (MIB // len(piece) + 1))[:MIB]
    assert page.content_sha256 == hashlib.sha256(expected).hexdigest()


async def test_one_five_megabyte_line_ends_in_time(server: PageServer) -> None:
    line = b"<html><body><p>" + b"word " * (5 * MIB // 5 - 10) + b"</p></body></html>"
    server.route("/line", html_reply(line))
    started = time.monotonic()
    page = await read(server.url("/line"))
    assert time.monotonic() - started < 30
    assert page.word_count > 1_000_000 and not page.truncated


async def test_a_hundred_thousand_deep_nesting_ends_with_a_reason(server: PageServer) -> None:
    nested = "<html><body>" + "<div>" * 100_000 + "deep text " * 50 + "</div>" * 100_000 + "</body></html>"
    server.route("/deep", html_reply(nested))
    started = time.monotonic()
    error = await failure(server.url("/deep"))
    assert time.monotonic() - started < 15
    assert error.reason is PageReason.NO_MAIN_TEXT


async def test_too_many_elements_are_refused_before_extraction(server: PageServer) -> None:
    server.route("/many", html_reply("<html><body>" + "<p>a</p>" * 70_000 + "</body></html>"))
    error = await failure(server.url("/many"))
    assert error.reason is PageReason.TOO_LARGE and "more than 60,000 HTML elements" in error.message


async def test_an_extraction_past_its_time_limit_is_a_timeout(server: PageServer) -> None:
    server.route("/slow-extract", html_reply("<html><body>" + PARAGRAPH.format(n=1) * 20_000 + "</body></html>"))
    async with Reader(ReaderSettings(allow_private=LOOPBACK), extract_timeout=0.05) as reader:
        with pytest.raises(PageError) as caught:
            await reader.read(server.url("/slow-extract"))
    assert caught.value.reason is PageReason.TIMEOUT and "took longer than 0.05 s" in caught.value.message


HOSTILE = (
    "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x1b[31mred\x1b[0m \x9b31m c1 "
    "\u202egnirts desrever\u202c \u2066isolate\u2069 \u200fmark \x07bell \x00nul"
)


async def test_escapes_and_bidi_controls_never_come_out(server: PageServer) -> None:
    markup = (
        f"<html><head><title>Title {HOSTILE}</title><meta name='author' content='Eve {HOSTILE}'></head>"
        f"<body><article><h1>Heading {HOSTILE}</h1>" + f"<p>Paragraph text {HOSTILE} with enough words.</p>" * 5
    )
    page = await read(server.route("/hostile", html_reply(markup)))
    for value in (page.title, page.author, page.site, page.text):
        assert value
        assert not has_control_chars(value.replace("\n", "")), value
        assert not re.search("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]", value), value
    assert "red" in page.text and "gnirts desrever" in page.text


async def test_escapes_in_a_pdf_and_plain_text_never_come_out(server: PageServer) -> None:
    server.route("/hostile.txt", html_reply(f"Text {HOSTILE}\r\nnext line", content_type="text/plain"))
    page = await read(server.url("/hostile.txt"))
    assert not has_control_chars(page.text.replace("\n", "")) and "next line" in page.text
    pdf = make_pdf(["PDF text \x1b[31mred\x07 \u00a0end"], title="T\x1b[2Jitle\u202e")
    server.route("/hostile.pdf", Reply(headers=[("Content-Type", "application/pdf")], body=pdf))
    page = await read(server.url("/hostile.pdf"))
    assert page.title == "Title" and not has_control_chars(page.text)


async def test_many_concurrent_reads_of_hostile_pages_all_end(server: PageServer) -> None:
    server.route("/ok", html_reply(ARTICLE))
    server.route("/deep", html_reply("<div>" * 50_000))
    server.route("/missing", Reply(status=404))
    urls = [server.url(path) for path in ("/ok", "/deep", "/missing") * 4]
    async with Reader(ReaderSettings(allow_private=LOOPBACK)) as reader:
        outcomes = await asyncio.gather(*(reader.read(url) for url in urls), return_exceptions=True)
    kinds = [outcome.reason.value if isinstance(outcome, PageError) else "page" for outcome in outcomes]
    assert kinds == ["page", "no_main_text", "http_status"] * 4
