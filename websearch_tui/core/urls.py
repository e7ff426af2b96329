"""URLs read the way a browser reads them (the WHATWG URL Standard), so the host the app shows, merges
on and opens is the host a browser would go to.

Python's ``urllib.parse`` and ``yarl`` follow RFC 3986, and the two readings disagree on some
authorities: in ``https://evil.example\\@bank.example/login`` RFC 3986 sees the user ``evil.example\\``
at ``bank.example``, while a browser takes the backslash for a ``/`` (for the special schemes,
http and https among them) and goes to ``evil.example``. Percent-encoded hosts (``evil%2Eexample``),
ideographic full stops (``bank。example``) and numeric IPv4 forms (``0x7f.1``) disagree the same way.
:func:`browser_url` parses with ``ada-url`` (a WHATWG-conformant parser) and gives such a URL in its
WHATWG serialisation, in which both readings find the same host.

Hosts are shown with :func:`display_host`: an internationalised host in Unicode only when its letters
are of one script (or one of the mixes the CJK languages write), else in its ASCII (punycode) form, so a
homograph such as Cyrillic ``аррӏе.com`` reads ``xn--80ak6aa92e.com`` rather than passing for
``apple.com``.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import NamedTuple
from urllib.parse import urlsplit

WEB_SCHEMES = ("http:", "https:")
_PARTS = ("href", "hostname", "protocol")
"""The parts :func:`browser_url` reads (ada's ``parse_url`` fetches only these: a third of the time of a
``URL`` object read attribute by attribute)."""
_SINGLE_SCRIPT_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
)
"""Sets of scripts one language writes together in a host name (Japanese, Korean, Chinese with
Bopomofo; Latin for the top-level domain and ASCII words): a host whose scripts fit one of them (or
that uses one script) is shown in Unicode, as browsers do."""
_SCRIPT_OF_NAME = {"CJK": "HAN", "IDEOGRAPHIC": "HAN", "KATAKANA-HIRAGANA": "KATAKANA", "HALFWIDTH": "KATAKANA"}
"""First words of Unicode character names that are not the name of the script they belong to."""


class WebURL(NamedTuple):
    """An absolute http(s) URL as a browser reads it (:func:`browser_url`)."""

    href: str
    """The URL to show, store and open: the string given, or its WHATWG serialisation."""
    host: str
    """The host a browser goes to, in ASCII (lower case, IDNA/punycode; an IPv6 literal in brackets)."""


def browser_url(url: str) -> WebURL | None:
    """``url`` (an absolute http or https URL) as a browser reads it, or ``None`` when it is not one
    (another scheme, no host, a host the WHATWG host parser rejects).

    The string comes back as ``href`` unchanged when it holds no backslash (which WHATWG reads as ``/``
    and RFC 3986 as data), ``urllib.parse`` (RFC 3986) finds the same host in it as the WHATWG parser
    and that host is ASCII or shown in Unicode (:func:`display_host`); otherwise it comes back in its
    WHATWG serialisation (``https://evil.example\\@bank.example/login`` becomes
    ``https://evil.example/@bank.example/login``; a mixed-script host becomes punycode). Linear in
    the length of ``url``.
    """
    import ada_url  # a C++ parser behind cffi: loaded when the first URL is checked, not at start-up

    try:
        parsed = ada_url.parse_url(url, attributes=_PARTS)
    except ValueError:
        return None
    host, href = str(parsed["hostname"]), str(parsed["href"])
    if parsed["protocol"] not in WEB_SCHEMES or not host:
        return None
    try:
        naive = "" if "\\" in url else urlsplit(url).hostname or ""
    except ValueError:
        naive = ""
    if naive.isascii():
        agrees = naive == host or f"[{naive}]" == host
    else:
        agrees = _to_ascii(naive) == host and display_host(host) != host
    return WebURL(url if agrees else href, host)


def _to_ascii(host: str) -> str:
    """``host`` in its ASCII (IDNA, punycode) form as WHATWG maps it; ``""`` when it has none."""
    import ada_url

    return ada_url.idna_to_ascii(host).decode("ascii", "replace")


@functools.lru_cache(maxsize=4096)
def display_host(host: str) -> str:
    """``host`` (an ASCII host, as :func:`browser_url` and WHATWG serialise it) as it is shown: each
    ``xn--`` label decoded to Unicode when the letters of the whole host are of one script, or of one
    of the mixes the CJK languages write with Latin (``münchen.de``, ``пример.рф``, ``日本語.jp``),
    else unchanged (``xn--80ak6aa92e.com``, Cyrillic letters under a Latin top-level domain, stays
    punycode). A label that does not decode stays as it is. The last 4,096 answers are cached."""
    if "xn--" not in host.lower():
        return host
    import ada_url

    unicode = ada_url.idna_to_unicode(host)
    if not unicode or unicode == host:
        return host
    scripts = {_script(char) for char in unicode if unicodedata.category(char).startswith("L")}
    if len(scripts) <= 1 or any(scripts <= mix for mix in _SINGLE_SCRIPT_MIXES):
        return unicode
    return host


def _script(char: str) -> str:
    """The script of the letter ``char``, from the first word of its Unicode name (``CYRILLIC SMALL
    LETTER A`` -> ``CYRILLIC``; CJK ideographs -> ``HAN``); ``UNKNOWN`` for an unnamed one."""
    word = unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]
    return _SCRIPT_OF_NAME.get(word, word)
