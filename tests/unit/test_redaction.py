"""Secret redaction: the forms a key comes back in, a key split across streamed pieces, and the cost
of registering a long key (memory linear in its length)."""

from __future__ import annotations

import base64
import json
import secrets
import tracemalloc
from dataclasses import asdict
from urllib.parse import quote

import pytest

from websearch_tui.core import errors
from websearch_tui.core.errors import redact, redact_document, redact_stream, register_secret, safe_document
from websearch_tui.core.models import AnswerDelta, LiveResponse, ResponseBuilder, SearchResponse

KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


def every_char_escaped(value: str) -> str:
    """``value`` as a serializer that escapes every character writes it (``\\u0073\\u006B...``)."""
    return "".join(f"\\u{ord(char):04X}" for char in value)


FORMS = {
    "plain": KEY,
    "upper-case": KEY.upper(),
    "lower-case": KEY.lower(),
    "zero-width joined": "\u200b".join(KEY),
    "word-joiner and soft-hyphen joined": "\u2060\u00ad".join(KEY),
    "unicode-escaped (upper hex)": every_char_escaped(KEY),
    "unicode-escaped (lower hex)": every_char_escaped(KEY).lower(),
    "hex": KEY.encode().hex(),
    "hex upper-case": KEY.encode().hex().upper(),
    "percent-encoded, lower-case escapes": quote(KEY + "/x", safe="").lower(),
    "base64": base64.b64encode(KEY.encode()).decode(),
    "json-escaped": json.dumps(KEY)[1:-1],
}


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_a_key_comes_back_masked_in_every_form(form: str) -> None:
    register_secret(KEY)
    text = f"Invalid key: {form} (see docs)"
    for shown in (redact(text), safe_document({"error": text})["error"]):
        assert shown.startswith("Invalid key: ***") and shown.endswith(" (see docs)"), shown
        assert KEY.lower() not in shown.lower()


def test_the_whole_key_is_masked_not_only_its_quoted_start() -> None:
    register_secret(KEY)  # its first 8 characters are a form of their own, the start of the key itself
    register_secret(KEY[:30] + "different-end")  # another key sharing the first 30 characters
    assert redact(f"a {KEY} b {KEY[:8]}... c {KEY[:30]}different-end d") == "a *** b ***... c *** d"


def test_ordinary_text_is_left_alone() -> None:
    register_secret(KEY)
    text = "Skip the proj: ab3d is fine, 6f6f is hex, \\u0073 alone is one letter."
    assert redact(text) == text


def test_a_key_split_across_pieces_is_held_whatever_its_case() -> None:
    register_secret(KEY)
    upper = KEY.upper()
    ready, held = redact_stream("key " + upper[:12])
    assert ready == "key " and held == upper[:12]  # could be the start of the key: not shown yet
    ready, held = redact_stream(held + upper[12:] + " end")
    assert ready == "*** end" and held == ""


def test_the_answer_mid_stream_never_holds_the_start_of_a_key() -> None:
    register_secret(KEY)
    builder = ResponseBuilder("p")
    shown = [builder.apply(AnswerDelta(piece)).text for piece in ("the key is ", KEY[:20])]
    assert builder.response.answer == "the key is "  # the held start is in neither the pieces nor the answer
    shown.append(builder.apply(AnswerDelta(KEY[20:] + ".")).text)
    assert builder.response.answer == "the key is ***." == "".join(shown)


def test_a_live_response_reads_as_a_plain_one() -> None:
    builder = ResponseBuilder("p")
    for piece in ("one ", "two ", "three"):
        builder.apply(AnswerDelta(piece))
    live = builder.response
    assert isinstance(live, LiveResponse)
    plain = SearchResponse(provider="p", answer="one two three")
    assert live == plain and plain == live and asdict(live) == asdict(plain)
    live.answer = None
    assert live.answer is None and live != plain


def forms_peak_bytes(length: int) -> int:
    """Peak traced memory while a ``length``-character key is registered and first used."""
    key = secrets.token_urlsafe(length)[:length]
    tracemalloc.start()
    try:
        register_secret(key)
        redact_stream("text ending in the key's start " + key[: length // 2])
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_forms_of_a_key_take_memory_linear_in_its_length() -> None:
    small, large = forms_peak_bytes(300), forms_peak_bytes(1200)
    # 4 times the key: about 4 times the memory when linear, 16 times when every prefix of every
    # form is kept (a 20,000-character key once took 789 MB)
    assert large < 8 * small, (small, large)


def _document(text: str) -> dict[str, object]:
    """A document of many strings with ``text`` deep in it, and as a key."""
    rows = [{"title": f"row {n}", "url": f"https://example.org/{n}", "tags": ("a", "b")} for n in range(40)]
    rows[17]["snippet"] = text
    return {"results": rows, "notes": ("plain", text), text: 1}


@pytest.mark.parametrize("form", [KEY, "\u200b".join(KEY), f"İ {KEY.upper()}", "\u00e9" + KEY.lower()])
def test_a_document_is_masked_wherever_the_key_is(form: str) -> None:
    register_secret(KEY)
    text = f"key {form} end"
    masked = redact(text)
    assert KEY.lower() not in masked.lower()
    for document, keys in ((safe_document(_document(text)), True), (redact_document(_document(text)), False)):
        assert document["results"][17]["snippet"] == masked
        assert document["notes"] == ["plain", masked]  # tuples are walked too
        assert document["results"][3] == {"title": "row 3", "url": "https://example.org/3", "tags": ["a", "b"]}
        assert (masked in document) is keys and (text in document) is not keys


def test_a_document_without_a_key_is_searched_once_not_string_by_string(monkeypatch: pytest.MonkeyPatch) -> None:
    register_secret(KEY)
    calls: list[str] = []
    monkeypatch.setattr(errors, "redact", lambda text: calls.append(text) or text)
    clean = _document("nothing secret here")
    assert safe_document(clean) == redact_document(clean) == json.loads(json.dumps(clean))  # tuples as lists
    assert calls == []


def test_a_key_across_two_strings_is_not_joined_into_one() -> None:
    register_secret(KEY)
    halves = [KEY[:5], KEY[5:]]  # neither holds the key or its 8-character start
    assert safe_document(halves) == halves == redact_document(halves)
