"""Which ``charset`` labels name a character encoding: the one rule for every body the app decodes
(provider replies in :mod:`websearch_tui.providers.transport.http`, pages in
:mod:`websearch_tui.reader.charset`).

A label comes from a server (``Content-Type: ...; charset=<label>``, a page's ``<meta charset>``) and
is looked up in Python's codec registry, which also holds codecs that are no character encoding:
bytes-to-bytes transforms (``zlib``, ``bz2``, ``base64``, ``hex``, ``uu``, ``quopri``), a
str-to-str one (``rot13``), and text codecs that turn bytes into text by other rules (``idna``,
``punycode``, ``unicode_escape``, ``raw_unicode_escape``, ``charmap``, ``undefined``). Decoding a body
with one of those fails, or worse (a ``bz2`` body inflated without bound). :func:`text_codec`
accepts character encodings only; callers fall back to their default charset for anything else.
"""

from __future__ import annotations

import codecs

_NOT_CHARSETS = frozenset({"idna", "punycode", "unicode-escape", "raw-unicode-escape", "charmap", "undefined"})
"""Python text codecs (by ``CodecInfo.name``) that are not character encodings."""


def text_codec(label: str | None) -> str | None:
    """The name of Python's codec for the character encoding ``label`` names (``"UTF-8"`` ->
    ``"utf-8"``, ``"latin1"`` -> ``"iso8859-1"``; surrounding spaces and quotes ignored), or ``None``:
    no label, an unknown one, or a codec that is no character encoding (``zlib``, ``rot13``, ``idna``,
    ...; see the module's docstring). Never raises; linear in the label's length."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
        if name in _NOT_CHARSETS:
            return None
        b"a".decode(name, "replace")  # LookupError: no text encoding (zlib, rot13; b"" is not checked)
    except (LookupError, ValueError):  # ValueError: a NUL in the label, a codec refusing "replace"
        return None
    return name
