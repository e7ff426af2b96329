"""Decoding a page's bytes: which character encoding it is in, and the text.

In order (as browsers do): a byte-order mark; the ``charset`` of the ``Content-Type`` header; the
page's own declaration among its first :data:`PRESCAN_BYTES` bytes (``<meta charset="...">``,
``<meta http-equiv="Content-Type" content="...; charset=...">``, an XML declaration); valid UTF-8;
else a guess by ``charset_normalizer`` (on at most :data:`DETECT_BYTES` bytes), else windows-1252.
Labels are read as the WHATWG Encoding standard says browsers read them (``iso-8859-1`` and
``us-ascii`` mean windows-1252, ``shift_jis`` means its Microsoft superset cp932, ...); a label
that names no character encoding (``zlib``, ``rot13``, ...: :func:`~websearch_tui.core.charsets.text_codec`)
counts as none, so the next step decides. Bytes that are not valid in the chosen encoding become
U+FFFD. Linear in the body's size.
"""

from __future__ import annotations

import codecs
import re

from websearch_tui.core.charsets import text_codec

PRESCAN_BYTES = 8192
"""How much of a page is searched for its own charset declaration."""
DETECT_BYTES = 65_536
"""How much of an undeclared, non-UTF-8 page the detector reads."""
_DECLARATION = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([a-z0-9_.:-]{1,40})"""
    rb"""|<\?xml[^>]{0,200}?encoding\s*=\s*["']([a-z0-9_.:-]{1,40})""",
    re.IGNORECASE,
)
"""A charset declared in the page: ``<meta charset=...>`` or ``<meta http-equiv ... content="...;
charset=...">`` (the same pattern: ``charset=`` inside one ``<meta`` tag), or an XML declaration's
``encoding``. Bounded repeats: linear over the prescan."""
_WHATWG = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "tis-620": "cp874",
    "iso-8859-9": "cp1254",
    "iso-8859-11": "cp874",
    "x-user-defined": "cp1252",
}
"""Labels browsers read as another (wider) encoding than Python's codec of the same name."""
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def codec_for(label: str | None, *, in_page: bool = False) -> str | None:
    """The Python codec for an encoding ``label`` as a browser reads it (``"iso-8859-1"`` ->
    ``"cp1252"``), or ``None`` for an unknown label or one that names no character encoding.
    UTF-16 without a byte order is read little-endian; a UTF-16 declared ``in_page`` (which an
    ASCII-compatible declaration cannot truly be) is read as UTF-8, as browsers do."""
    if not label:
        return None
    name = label.strip().strip("\"'").lower()
    codec = text_codec(_WHATWG.get(name, name))
    if codec is None or not codec.startswith("utf-16"):
        return codec
    return "utf-8" if in_page else "utf-16-be" if codec == "utf-16-be" else "utf-16-le"


def declared_charset(body: bytes) -> str | None:
    """The codec the page declares among its first :data:`PRESCAN_BYTES` bytes, or ``None``."""
    for match in _DECLARATION.finditer(body[:PRESCAN_BYTES]):
        label = (match.group(1) or match.group(2)).decode("ascii")
        codec = codec_for(label, in_page=True)
        if codec is not None:
            return codec
    return None


def choose_encoding(body: bytes, header_charset: str | None) -> str:
    """The codec to decode ``body`` with (see the module's docstring for the order)."""
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return codec
    known = codec_for(header_charset) or declared_charset(body)
    if known is not None:
        return known
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(body) - 3:  # more than a character cut off at the end
            return _detected(body)
    return "utf-8"


def _detected(body: bytes) -> str:
    """``charset_normalizer``'s best guess for ``body``'s start, else windows-1252."""
    from charset_normalizer import from_bytes

    best = from_bytes(body[:DETECT_BYTES]).best()
    return codec_for(best.encoding if best is not None else None) or "cp1252"


def decode(body: bytes, header_charset: str | None) -> str:
    """``body`` as text (:func:`choose_encoding`); invalid bytes become U+FFFD, a BOM is dropped."""
    codec = choose_encoding(body, header_charset)
    text = body.decode(codec, errors="replace")
    return text[1:] if text.startswith("\ufeff") else text
