"""Provider errors, their kinds, the seed's user-facing messages and secret redaction.

Every failure a provider can have becomes a :class:`ProviderError` with a :class:`ErrorKind`.
Every message that can reach a screen, a log or an export passes :func:`redact` first, which
removes every secret registered with :func:`register_secret` (the credential layer registers each
secret it resolves).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import string
import threading
from collections.abc import Callable
from enum import Enum
from typing import Any, NamedTuple
from urllib.parse import quote, quote_plus

from websearch_tui.core.text import markdown_escape, pattern, sanitize, strip_invisible, truncate

ERROR_EXCERPT_CHARS = 8 * 1024
_MIN_SECRET_CHARS = 4


class ErrorKind(str, Enum):
    """Why a provider run failed; drives the pane status and the retry policy."""

    AUTH = "auth"
    RATE_LIMIT = "rate_limit"
    QUOTA = "quota"
    BAD_REQUEST = "bad_request"
    NOT_FOUND = "not_found"
    MODEL_NOT_FOUND = "model_not_found"
    """The configured model does not exist (any more) at the provider: the config key to change is named."""
    DEPRECATED = "deprecated"
    SERVER = "server"
    TIMEOUT = "timeout"
    NETWORK = "network"
    PROTOCOL = "protocol"
    UNRECOGNISED = "unrecognised_response"
    """A 2xx answer in which the provider's parser found none of the fields it reads: its API changed."""
    EMPTY = "empty"
    CONFIG = "config"
    CANCELLED = "cancelled"


RETRYABLE_KINDS = frozenset({ErrorKind.RATE_LIMIT, ErrorKind.SERVER, ErrorKind.TIMEOUT, ErrorKind.NETWORK})


class ProviderError(Exception):
    """A provider run failed.

    Attributes:
        provider: provider id (``"brave"``) or ``"none"``.
        kind: the :class:`ErrorKind`.
        message: user-facing text, already redacted and sanitized.
        status: HTTP status when one was received, else ``None``.
        retry_after: seconds the server asked us to wait (from headers or body), else ``None``.
    """

    def __init__(
        self,
        provider: str,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.provider = provider
        self.kind = kind
        self.message = redact(sanitize(message)).strip() or f"{kind.value} error"
        self.status = status
        self.retry_after = retry_after
        super().__init__(self.message)

    @property
    def retryable(self) -> bool:
        """True for rate limits, server errors, timeouts and network errors."""
        return self.kind in RETRYABLE_KINDS

    def with_hint(self, text: str) -> ProviderError:
        """A copy of this error (same provider, kind, status and retry_after) whose message ends
        with the sentence ``text``; a message without closing punctuation gets a ``.`` first."""
        base = self.message.rstrip()
        separator = " " if base.endswith((".", "!", "?")) else ". "
        return ProviderError(
            self.provider, self.kind, f"{base}{separator}{text}", status=self.status, retry_after=self.retry_after
        )

    def to_dict(self) -> dict[str, object]:
        """JSON-ready ``{"kind", "message", "status"}``."""
        return {"kind": self.kind.value, "message": self.message, "status": self.status}


_QUOTA_TEXT = r"(?i)credits?\s*(exhausted|exceeded)|quota|insufficient|(?:not|n't)\s+enough\s+credits?|budget\s+limit"


def mentions_quota(text: str) -> bool:
    """True when ``text`` reads like an exhausted plan, credits or budget ("quota", "insufficient",
    "not enough credits", "budget limit", ...)."""
    return bool(pattern(_QUOTA_TEXT).search(text or ""))


def kind_for_status(status: int, body: str = "", *, has_retry_hint: bool = False) -> ErrorKind:
    """Classify an HTTP error status (and its body text) as an :class:`ErrorKind`.

    Quota wording wins over the status, except a 429 that carries a retry hint (a per-minute limit).
    """
    if status == 429 and has_retry_hint:
        return ErrorKind.RATE_LIMIT
    if status == 402 or status in (432, 433) or mentions_quota(body):
        return ErrorKind.QUOTA
    if status in (401, 403):
        return ErrorKind.AUTH
    if status in (408,):
        return ErrorKind.TIMEOUT
    if status == 429:
        return ErrorKind.RATE_LIMIT
    if status == 404:
        return ErrorKind.NOT_FOUND
    if status == 410:
        return ErrorKind.DEPRECATED
    if 500 <= status <= 599 or status == 529:
        return ErrorKind.SERVER
    return ErrorKind.BAD_REQUEST


def auth_failed_message(label: str, status: int) -> str:
    """The seed message for 401/403: ``"<Label> authorization failed (<status>). Check API key or base URL."``."""
    return f"{label} authorization failed ({status}). Check API key or base URL."


def missing_key_message(label: str, env_var: str) -> str:
    """The seed message ``"<Label>: no API key. Set <ENV_VAR> or add the key in Settings."``."""
    return f"{label}: no API key. Set {env_var} or add the key in Settings."


def credential_origin(where: str | None, keyring_user: str, env_var: str | None = None) -> str | None:
    """Where a credential was found, worded to complete "The key came from ...".

    ``where`` is ``"env"`` (gives ``"env BRAVE_API_KEY"``), ``"keyring"`` (``"the OS keyring (service
    websearch-tui, user brave:api_key)"``, ``keyring_user`` being ``"<provider id>:<credential>"``) or
    ``"file"`` (``"the key file"``); anything else, or ``"env"`` without ``env_var``, gives ``None``.
    """
    if where == "env":
        return f"env {env_var}" if env_var else None
    if where == "keyring":
        return f"the OS keyring (service websearch-tui, user {keyring_user})"
    if where == "file":
        return "the key file"
    return None


NO_PROVIDER_MESSAGE = "No web search provider configured."


def all_failed_message(errors: list[tuple[str, str]]) -> str:
    """``"All web search providers failed: <id>: <msg>; <id>: <msg>"`` from (id, message) pairs."""
    return "All web search providers failed: " + "; ".join(f"{pid}: {msg}" for pid, msg in errors)


def all_failed_summary(provider_ids: list[str]) -> str:
    """``"All web search providers failed (brave, exa)."``: the last line under one line per
    provider's reason (the CLI's stderr), naming them without repeating the reasons."""
    return f"All web search providers failed ({', '.join(provider_ids)})."


def empty_message(label: str) -> str:
    """The seed message for a non-renderable 200 in auto mode."""
    return f"{label} returned no renderable search content."


def nothing_found_message(label: str) -> str:
    """The note of a genuinely empty result: the answer had the provider's usual shape, and nothing in it."""
    return f"{label} answered in its usual shape with no answer and no sources for this query."


def excerpt(body: str, limit: int = ERROR_EXCERPT_CHARS) -> str:
    """A sanitized, redacted excerpt of an error body, at most ``limit`` characters.

    An HTML page (a proxy's or a server's error page) is reduced to its readable text: scripts,
    styles and tags are dropped, entities decoded and whitespace collapsed, so the page title and
    first words show instead of ``<!DOCTYPE html> <html> <head>``.
    """
    body = body or ""
    if _is_html_page(body[:_HTML_SCAN_CHARS]):
        import html  # only for an HTML error page

        page = pattern(_SCRIPT_OR_STYLE).sub(" ", body[:_HTML_SCAN_CHARS])
        body = " ".join(html.unescape(pattern(_TAG).sub(" ", page)).split())
    return truncate(redact(sanitize(body)).strip(), limit)


_HTML_START = r"(?i)<(?:!doctype\s+html|html|head|body|title)\b"


def _is_html_page(text: str) -> bool:
    """True when ``text`` starts (after whitespace and ``<!-- -->`` comments) like an HTML page; linear time."""
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if not text.startswith("<!--", position):
            return pattern(_HTML_START).match(text, position) is not None
        end = text.find("-->", position + 4)
        if end < 0:
            return False
        position = end + 3


_SCRIPT_OR_STYLE = r"(?is)<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)"
_TAG = r"<[^>]*>"
_HTML_SCAN_CHARS = 8 * 1024  # the excerpt shows a few hundred characters; scanning more only costs time


# --- redaction ----------------------------------------------------------------------------

_secrets: set[str] = set()
_registered: set[str] = set()
"""The values registered so far (each with every form of it in ``_secrets``): registering one again
costs a set lookup, not its 13 forms (an MCP call registers every key it may use)."""
_secrets_lock = threading.Lock()


class _Matcher(NamedTuple):
    """Every registered form, compiled: ``pattern`` finds any of them in ASCII-lower-cased text (the
    forms lower-cased too: matching ignores case without the regex engine's slow case-insensitive
    mode); ``starts`` maps a form's first character to the (lower-cased) forms starting with it,
    ``first`` finds where a held tail may start (:func:`_tail_starts`), ``longest`` and ``shortest``
    are the longest and the shortest form's length (see :func:`_held_tail`; a shorter text holds no
    form)."""

    pattern: re.Pattern[str]
    starts: dict[str, tuple[str, ...]]
    first: re.Pattern[str]
    longest: int
    shortest: int


_matcher: _Matcher | None = None
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _ascii_lower(text: str) -> str:
    """``text`` lower-cased with its length kept, so match positions carry over: ``str.lower`` (C
    speed), or, for the rare text it would lengthen (``İ`` becomes two characters), a table that
    lower-cases only ASCII letters (character by character, in Python)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def register_secret(value: str | None) -> None:
    """Remember ``value`` so :func:`redact` removes it everywhere, in the forms a provider may echo it
    in (:func:`secret_forms`), whatever the case of its ASCII letters; values shorter than 4
    characters are ignored. Memory and time are linear in ``len(value)``."""
    global _matcher
    if not value or len(value) < _MIN_SECRET_CHARS or value in _registered:
        return
    forms = {form for form in secret_forms(value) if len(form) >= _MIN_SECRET_CHARS}
    with _secrets_lock:
        if not forms <= _secrets:
            _secrets.update(forms)
            _matcher = None
        _registered.add(value)


PREFIX_CHARS = 8
"""A provider that quotes part of a key ("key sk-ab12cd34... is invalid") quotes its start: the first
8 characters of a key of :data:`PREFIX_MIN_CHARS` or more are redacted too."""
PREFIX_MIN_CHARS = 20
"""Keys at least this long (real API keys are 32 and more) have their prefix redacted; a shorter
value's first 8 characters are too likely to be ordinary text."""


def secret_forms(value: str) -> set[str]:
    """``value`` and the transformed forms an echo may carry: percent-encoded (with and without ``/``
    kept, ``+`` for spaces), JSON-escaped (as is, and with every character ``\\u``-escaped), base64
    (standard and URL-safe, with and without padding), hex of its UTF-8 bytes, Markdown-escaped (a
    backslash before each punctuation character), and its first :data:`PREFIX_CHARS` characters when
    it is :data:`PREFIX_MIN_CHARS` or longer. Upper- and lower-case variants need no form of their
    own: matching ignores ASCII case (``%2F`` and ``%2f``, ``SK-ABC`` and ``sk-abc``, hex either way).
    Their total length is at most about 12 times ``len(value)``."""
    encoded = value.encode("utf-8", "surrogatepass")
    b64 = base64.b64encode(encoded).decode("ascii")
    urlsafe = base64.urlsafe_b64encode(encoded).decode("ascii")
    forms = {
        value,
        quote(value, safe=""),
        quote(value, safe="/"),
        quote_plus(value),
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        _unicode_escaped(value),
        b64,
        b64.rstrip("="),
        urlsafe,
        urlsafe.rstrip("="),
        encoded.hex(),
        markdown_escape(value),
    }
    if len(value) >= PREFIX_MIN_CHARS:
        forms.add(value[:PREFIX_CHARS])
    return forms


def _unicode_escaped(value: str) -> str:
    """``value`` with every character written as a JSON ``\\uXXXX`` escape (a pair for one outside
    the Basic Multilingual Plane), as a serializer that escapes everything sends it."""
    units = value.encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def redact(text: str) -> str:
    """Replace every registered secret (in every form, :func:`secret_forms`, any ASCII case, and
    with invisible characters such as zero-width spaces removed first) in ``text`` with ``***``.
    Linear in ``len(text)``."""
    if not text or not _secrets:
        return text
    matcher = _compiled()
    if len(text) < matcher.shortest:
        return text
    text = text if text.isascii() else strip_invisible(text)
    return _masked(text, [match.span() for match in matcher.pattern.finditer(_ascii_lower(text))])


def redact_stream(text: str) -> tuple[str, str]:
    """Split a stream's text so far into ``(ready, held)``: ``ready`` is redacted and safe to show
    now; ``held`` is the (unredacted) tail that could still be the start of a secret completed by
    the next piece, to be prepended to it (at the stream's end, show ``redact(held)``). Only a tail
    that is the start of some registered form is held (usually none, or a few characters), so a
    live view does not lag. Work is linear in ``text`` plus at most the square of the longest form's
    length (never the stream so far), so a stream redacted piece by piece is linear in its length."""
    if not text or not _secrets:
        return text, ""
    matcher = _compiled()
    text = text if text.isascii() else strip_invisible(text)
    folded = _ascii_lower(text)
    cut = len(text) - _held_tail(folded, matcher)
    spans: list[tuple[int, int]] = []
    for match in matcher.pattern.finditer(folded):
        if match.start() >= cut:  # within the held tail: matched again with the next piece
            break
        spans.append(match.span())
        cut = max(cut, match.end())
    return _masked(text[:cut], spans), text[cut:]


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (``(start, end)``, in order, not overlapping) replaced by ``***``."""
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces += (text[last:start], "***")
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _held_tail(folded: str, matcher: _Matcher) -> int:
    """The length of the longest end of ``folded`` (ASCII-lower-cased text) that is the start (but
    not the whole) of some registered form; 0 if none."""
    window = folded[-(matcher.longest - 1) :] if matcher.longest > 1 else ""
    for candidate in matcher.first.finditer(window):
        tail = window[candidate.start() :]
        if any(len(form) > len(tail) and form.startswith(tail) for form in matcher.starts[tail[0]]):
            return len(tail)
    return 0


def _tail_starts(forms: list[str]) -> str:
    """A regular expression matching (without consuming) where a held tail may start: at the first two
    characters of some form, or at a form's first character that ends the text. Checking only there
    (:func:`_held_tail`), not at every first character, keeps a streamed piece's check cheap."""
    longer = [form for form in forms if len(form) > 1]  # a one-character form has no proper start
    if not longer:
        return "(?!)"
    pairs = _alternation(sorted({form[:2] for form in longer}))
    firsts = "".join(re.escape(first) for first in sorted({form[0] for form in longer}))
    return f"(?=(?:{pairs})|[{firsts}]\\Z)"


def _alternation(forms: list[str]) -> str:
    """A regular expression matching any of ``forms`` (sorted, distinct, non-empty), as a prefix tree:
    forms sharing a start share its test (``sk-(?:1-abc|2-def)``), so a position is tried against
    each distinct next character once, not against every form (the regex engine tries the branches of
    a plain alternation one by one). Where one form is the start of another, the longer is preferred."""
    branches = []
    for _, group in itertools.groupby(forms, key=lambda form: form[0]):
        members = list(group)
        if len(members) == 1:
            branches.append(re.escape(members[0]))
            continue
        shared = os.path.commonprefix(members)
        rests = [member[len(shared) :] for member in members]
        inner = _alternation([rest for rest in rests if rest])
        branches.append(f"{re.escape(shared)}(?:{inner}){'?' if '' in rests else ''}")
    return "|".join(branches)


def _compiled() -> _Matcher:
    """The :class:`_Matcher` of every registered form, rebuilt after a change (linear in their size)."""
    global _matcher
    matcher = _matcher
    if matcher is None:
        with _secrets_lock:
            folded = sorted({_ascii_lower(form) for form in _secrets}, key=len, reverse=True)
            starts: dict[str, list[str]] = {}
            for form in folded:
                starts.setdefault(form[0], []).append(form)
            matcher = _matcher = _Matcher(
                pattern=re.compile(_alternation(sorted(folded))),
                starts={first: tuple(forms) for first, forms in starts.items()},
                first=re.compile(_tail_starts(folded)),
                longest=len(folded[0]) if folded else 0,
                shortest=len(folded[-1]) if folded else 0,
            )
    return matcher


def safe_text(text: str) -> str:
    """The last step of every text format: no terminal escape or control character (but newline and
    tab) and no configured secret, whatever a parser let through (the reducer already cleans each
    field; this is the boundary's own guard). Linear; printable ASCII (most of a document) skips the
    sanitizer, which would not change it."""
    return redact(_sanitized(text))


def _sanitized(text: str) -> str:
    """``text`` sanitized (:func:`~websearch_tui.core.text.sanitize`), printable ASCII as it is."""
    return text if text.isascii() and text.isprintable() else sanitize(text)


def _visible(text: str) -> str:
    """``text`` without invisible characters, as :func:`redact` matches it (ASCII has none)."""
    return text if text.isascii() else strip_invisible(text)


def safe_document(value: Any) -> Any:
    """``value`` (a JSON document of ours: dicts, lists, strings, numbers) with :func:`safe_text`
    applied to every string in it, keys included (tuples become lists). Linear in its size: the
    strings are searched for secrets together, once (:func:`_may_hold_secret`), and one by one only
    when that finds something."""
    return _redacted_strings(value, _sanitized, keys=True)


def redact_document(value: Any) -> Any:
    """``value`` (dicts, lists, tuples, strings, numbers) with :func:`redact` applied to every string
    in it, dict keys left as they are (tuples become lists); what :func:`redact` gives each string,
    found by one search over them all (see :func:`safe_document`). Linear in its size."""
    return _redacted_strings(value, _visible, keys=False)


def _redacted_strings(value: Any, clean: Callable[[str], str], *, keys: bool) -> Any:
    """``value`` with ``clean`` applied to every string (and key, with ``keys``), then :func:`redact`
    when the cleaned strings, searched together, may hold a registered form. ``clean`` must leave
    no invisible character, so :func:`redact` changes nothing in a string without a form."""
    texts: list[str] = []

    def cleaned(text: str) -> str:
        text = clean(text)
        texts.append(text)
        return text

    document = map_strings(value, cleaned, keys=keys)
    return map_strings(document, redact, keys=keys) if _may_hold_secret(texts) else document


def _may_hold_secret(texts: list[str]) -> bool:
    """False only when none of ``texts`` (without invisible characters) holds a registered form: one
    search over them joined by NUL (a form found across two of them, or a text whose lower case is
    longer, answers True, and each is then redacted on its own)."""
    if not _secrets or not texts:
        return False
    joined = "\x00".join(texts)
    folded = joined.lower()
    return len(folded) != len(joined) or _compiled().pattern.search(folded) is not None


def map_strings(value: Any, change: Callable[[str], str], *, keys: bool = False) -> Any:
    """``value`` with ``change`` applied to every string in it (dicts, lists and tuples walked, tuples
    becoming lists; with ``keys``, to dict keys that are strings too); other values as they are."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {
            change(key) if keys and isinstance(key, str) else key: map_strings(item, change, keys=keys)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [map_strings(item, change, keys=keys) for item in value]
    return value
