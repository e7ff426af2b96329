"""Text hygiene shared by every provider and front end.

- :func:`sanitize` removes terminal escape sequences, control and invisible characters from untrusted
  text and replaces unassigned code points.
- :func:`plain_text` strips HTML tags, decodes entities and sanitizes (titles, snippets).
- :func:`safe_url` keeps only absolute http(s) URLs, read as browsers read them (WHATWG, see
  :mod:`websearch_tui.core.urls`); :func:`canonical_url` is the key under which two URLs are one page
  (parsing and normalisation by ``yarl``); :func:`host_of` is the host shown for a URL.
- :func:`parse_date` reads the date shapes providers send; :func:`age_seconds` gives their age in
  seconds and :func:`iso_utc` the ISO 8601 UTC form the JSON carries.
- :func:`truncate` and :func:`format_age` are the LLM text format helpers (PROVIDERS.md §1.13).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from datetime import datetime, timedelta, timezone

from websearch_tui.core.urls import browser_url, display_host

# ESC-introduced sequences: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC (ESC ] P X ^ _ ... ST or BEL),
# and two-character escapes. Their 8-bit C1 forms are removed with the rest of C1 below.
_ESCAPE_SEQUENCE = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\|$)"  # OSC, DCS, SOS, PM, APC up to ST/BEL
    r"|\x1b[@-Z\\-_ -/]*[0-~]?"  # other ESC sequences, including a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x90\x9d\x98\x9e\x9f][^\x07\x9c\x1b]*(?:\x07|\x9c|\x1b\\|$)"  # 8-bit OSC, DCS, ...
)
_ESCAPE_STARTS = "\x1b\x9b\x90\x9d\x98\x9e\x9f"
"""The characters every :data:`_ESCAPE_SEQUENCE` starts with: text without them has none, found by
C-speed ``in`` scans (the regular expression scans about 50 times slower)."""
# Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties.txt): characters a renderer draws as
# nothing, so a reader never sees them while a program (or an agent) reads them. Among them: the soft
# hyphen, the bidirectional marks, overrides and isolates that make text display in another order than it
# reads (U+061C, U+200E/F, U+202A-E, U+2066-9), zero-width spaces and joiners (U+200B-D, U+2060, U+FEFF),
# the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0: Rich draws U+3164 0 cells wide, terminals 2),
# variation selectors (VS16 makes a 1-cell character 2 cells wide in some terminals only) and the tag
# characters (U+E0000-E007F: an invisible ASCII copy of any instruction). U+FFF9-FFFB (interlinear
# annotation controls) are format controls that are not to be interchanged either.
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
# C0 (but tab/newline), DEL, C1, and surrogate code points (JSON "\ud800" escapes decode to them; they
# cannot be encoded, so printing them crashes); with the invisible characters above, for text that is
# not all ASCII. These patterns and the two below are compiled by pattern() at their first use: the TUI's
# first frame sanitizes nothing (about 8 M instructions at import, the invisible set's ranges most).
_CONTROL = r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]"
_CONTROL_OR_INVISIBLE = rf"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_INVISIBLE}]"
_SHOWN_SPACES = "\t\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
"""Tab and the Unicode spaces (general category Zs) but U+0020: shown, yet not "printable" to Python."""
_ANY_CONTROL = r"[\x00-\x1f\x7f-\x9f]"
_INVISIBLE_ONLY = f"[{_INVISIBLE}]"
# Known HTML tags only (<b>, </strong>, <a href="...">, <br/>), so "Vec<T>" and "a < b > c" survive. The
# attribute part cannot cross a "<", so each tag attempt scans only up to the next one: linear time.
# Comments are cut by _strip_comments (a regex alternative for them was quadratic on unclosed "<!--").
_HTML_TAGS = (
    "a|abbr|b|big|blockquote|br|cite|code|del|div|em|font|h[1-6]|hr|i|img|ins|kbd|li|mark|ol|p|pre|q|s|small|"
    "span|strike|strong|sub|sup|table|tbody|td|th|thead|tr|tt|u|ul|wbr"
)
_TAG = rf"(?i)</?(?:{_HTML_TAGS})(?:\s[^<>]{{0,2000}})?/?>"  # pattern(): compiled at the first HTML text
_SPACES = r"\s+"
MAX_URL_CHARS = 2048


@functools.cache
def pattern(source: str) -> re.Pattern[str]:
    """``source`` compiled at its first use and kept for the process: a pattern only some runs need
    (Markdown output, a date that is not ISO 8601, an error body) costs nothing at start-up, and once
    compiled it stays (``re``'s own cache is bounded and shared with every library, so a pattern used
    per field could be evicted and compiled again). ``source`` is one of this package's constants,
    never provider text (flags inline, e.g. ``(?i)``)."""
    return re.compile(source)


# The Markdown and date patterns below are compiled by pattern() at their first use: a search whose
# output is not Markdown and whose dates are ISO 8601 compiles none of them (about 2.8 ms at import).
_MARKDOWN_PUNCTUATION = r"[!-/:-@\[-`{-~]"  # all ASCII punctuation, what CommonMark lets a backslash escape


def markdown_escape(text: str) -> str:
    """``text`` with a backslash before every ASCII punctuation character (CommonMark's escapable
    set), so no character of it is read as Markdown syntax. Linear. (The reports use the lighter
    :func:`markdown_literal`; this full form is one of the forms a key is redacted in.)"""
    return pattern(_MARKDOWN_PUNCTUATION).sub(r"\\\g<0>", text)


_MARKDOWN_INLINE = (
    r"[\\`<\[\]]"  # escapes, code spans, HTML and autolinks, links and images (no "[": no "![" either)
    r"|&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)"  # an entity reference
    r"|\*+|_+|~+"  # emphasis and strikethrough delimiter runs (kept when they cannot open or close)
    r"|(?i:(?<=https)|(?<=http)|(?<=ftp)):(?=//)"  # GFM's extended autolinks: http://, https://, ftp://
    r"|(?i:(?<=www))\."  # ... www.
    r"|(?<=\w)@(?=\w)"  # ... and e-mail addresses
    r"|\$"  # GitHub's math ($...$)
)
_MARKDOWN_BLOCK_START = (
    r"#{1,6}(?=\s|$)"  # an ATX heading
    r"|>"  # a block quote
    r"|[-+](?=\s|$)"  # a bullet list item
    r"|[-=][-=\s]*$"  # a setext underline or a thematic break
)
_MARKDOWN_ORDERED_ITEM = r"[0-9]{1,9}(?=[.)](?:\s|$))"
_MARKDOWN_CLOSING_HASHES = r"(?:^|(?<=\s))#+$"
_MARKDOWN_DELIMITER_ROW = r"[\s:\-]*\|[\s|:\-]*"
"""A table delimiter row (``| --- | :-: |``); the first part cannot take a ``|``, so a long run of them
fails in linear time (``[\\s|:\\-]*\\|`` backtracked quadratically)."""


def markdown_literal(text: str, *, line_start: bool = False, table_cell: bool = False) -> str:
    """``text`` (one line) as Markdown that renders as exactly that text, with as few backslashes as
    CommonMark (and GitHub's tables and strikethrough) need: ``docs.python.org``, ``0.2s, 2 sources``
    and ``snake_case`` stay as they are.

    Always escaped: ``\\``, backticks, ``<`` (HTML, autolinks), ``[`` and ``]`` (links, images,
    reference definitions), ``&`` that starts an entity reference, what would make GitHub's
    extended autolinks (the ``:`` of ``http://``, ``https://`` and ``ftp://``, the ``.`` of ``www.``,
    an ``@`` between word characters) or math (``$``), a ``#`` run closing the text
    (an ATX heading's closing sequence), and a run of ``*``, ``_`` or ``~`` that could open or close
    emphasis (one not between two spaces, or an ``_`` run inside a word). With ``line_start`` (the text
    begins a line or a list item) also what would start a block there: a heading, quote, list item,
    setext underline, thematic break or table delimiter row. With ``table_cell`` every ``|``. Linear.
    """
    out = pattern(_MARKDOWN_INLINE).sub(_escape_inline, text)
    out = pattern(_MARKDOWN_CLOSING_HASHES).sub(lambda m: "\\" + m.group(), out)
    if table_cell or (line_start and pattern(_MARKDOWN_DELIMITER_ROW).fullmatch(text)):
        out = out.replace("|", "\\|")
    if line_start:
        if pattern(_MARKDOWN_BLOCK_START).match(out):
            out = "\\" + out
        else:
            number = pattern(_MARKDOWN_ORDERED_ITEM).match(out)
            if number:
                out = f"{out[: number.end()]}\\{out[number.end() :]}"
    return out


def _escape_inline(match: re.Match[str]) -> str:
    """One match of :data:`_MARKDOWN_INLINE`, escaped when it could act as Markdown."""
    run = match.group()
    if run[0] in "*_~":
        text, start, end = match.string, match.start(), match.end()
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        if before.isspace() and after.isspace():  # "2 * 3", "key *** here": neither opens nor closes
            return run
        if run[0] == "_" and before.isalnum() and after.isalnum():  # snake_case: intraword "_" is text
            return run
    return "".join("\\" + char for char in run)


def sanitize(text: object) -> str:
    """Return ``text`` as it can be shown and handed on: without escape sequences, C0 controls (except
    newline and tab), DEL, C1, (lone) surrogates or invisible characters (Unicode's
    Default_Ignorable_Code_Point set: bidirectional controls, zero-width characters, the soft hyphen,
    the Hangul fillers, variation selectors, tag characters), and with every unassigned code point
    (general category ``Cn`` in this Python's Unicode database, noncharacters included) replaced by
    U+FFFD: what it looks like depends on the font and the terminal's width table.

    ``\\r\\n``, lone ``\\r``, U+2028 (line separator) and U+2029 (paragraph separator) become ``\\n``.
    Linear; safe to call on any ``str``; non-strings give ``""``.
    """
    if not isinstance(text, str):
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    if "\x1b" in text if text.isascii() else any(start in text for start in _ESCAPE_STARTS):  # C1 is not ASCII
        text = pattern(_ESCAPE_SEQUENCE).sub("", text)
    if text.isascii():
        return pattern(_CONTROL).sub("", text)
    text = pattern(_CONTROL_OR_INVISIBLE).sub("", text)
    if _printable(text.replace("\n", " ")):  # C-speed scans: the usual text stops here
        return text
    return "\n".join(line if _printable(line) else _without_unassigned(line) for line in text.split("\n"))


def _printable(text: str) -> bool:
    """True when every character of ``text`` (one line) is printable or a tab or Unicode space."""
    for space in _SHOWN_SPACES:
        if space in text:
            text = text.replace(space, " ")
    return text.isprintable()


def _without_unassigned(line: str) -> str:
    """``line`` with every unassigned code point replaced by U+FFFD."""
    return "".join("\ufffd" if unicodedata.category(char) == "Cn" else char for char in line)


def single_line(text: str) -> str:
    """``text`` as one line of plain characters for a message or an input field: sanitized (a path,
    URL or paste may hold escape sequences: :func:`sanitize`), its tabs and line breaks made spaces.
    Linear."""
    return sanitize(text).replace("\n", " ").replace("\t", " ")


def strip_invisible(text: str) -> str:
    """``text`` without invisible characters (zero-width spaces and joiners, soft hyphen, tags, ...;
    and nothing else); linear. Secret redaction matches keys after this (a key joined by zero-width
    spaces reads as the key)."""
    return pattern(_INVISIBLE_ONLY).sub("", text)


def has_control_chars(text: str) -> bool:
    """True when ``text`` contains any C0 control (tab and newline included), DEL or C1 character."""
    return bool(pattern(_ANY_CONTROL).search(text))


def plain_text(value: object, *, collapse: bool = False) -> str | None:
    """Strip HTML tags, decode entities and sanitize; ``None`` for empty, non-string or ``N/A``.

    With ``collapse`` every run of whitespace becomes one space (for titles).
    """
    if not isinstance(value, str):
        return None
    import html  # at the first provider text read (its entity table): not for the TUI's first frame

    text = sanitize(html.unescape(pattern(_TAG).sub("", strip_comments(value))))
    text = pattern(_SPACES).sub(" ", text).strip() if collapse else text.strip()
    return text if text and text.upper() != "N/A" else None


def strip_comments(text: str) -> str:
    """``text`` without HTML comments (``<!-- ... -->``); an unclosed comment runs to the end, as in a
    browser. One pass with ``str.find``: linear time, whatever the input."""
    if "<!--" not in text:
        return text
    parts: list[str] = []
    position = 0
    while True:
        start = text.find("<!--", position)
        if start < 0:
            parts.append(text[position:])
            break
        parts.append(text[position:start])
        end = text.find("-->", start + 4)
        if end < 0:
            break
        position = end + 3
    return "".join(parts)


def safe_url(value: object) -> str | None:
    """Return ``value`` as an absolute http(s) URL (raw spaces percent-encoded), else ``None``.

    The URL is read as a browser reads it (:func:`~websearch_tui.core.urls.browser_url`): one whose
    host RFC 3986 and the WHATWG URL Standard read differently (``https://evil.example\\@bank.example/``),
    or whose host mixes scripts, comes back in its WHATWG serialisation, so the host shown, merged
    and opened is the one a browser goes to."""
    if not isinstance(value, str):
        return None
    url = sanitize(value).strip()
    if not url or len(url) > MAX_URL_CHARS or any(ch in url for ch in "\n\t"):
        return None
    web = browser_url(url.replace(" ", "%20"))
    return web.href if web is not None else None


TRACKING_PARAMETERS = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "twclid",
        "ttclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "ref_src",
        "ref_url",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "__hssc",
        "__hstc",
        "__hsfp",
        "hsctatracking",
        "mkt_tok",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "vero_conv",
        "wickedid",
        "rb_clickid",
        "s_cid",
        "srsltid",
        "si",
    }
)
"""Query parameters that only track a click (ClearURLs' global rules and Firefox's query stripping
list, less the names that also select content on some sites: ``ref``, ``source``, ``id``, ``uid``)."""
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "itm_", "oly_", "stm_")
"""Query parameter name prefixes that only track a click (``utm_source``, ``pk_campaign``, ...)."""


@functools.lru_cache(maxsize=8192)
def canonical_url(url: str) -> str:
    """The key under which ``url`` is one page: lower-case scheme and host (IDNs as punycode, no
    trailing dot), no default port, no user info, no fragment, no trailing ``/`` on the path,
    percent-encoding in one case, tracking parameters (:data:`TRACKING_PARAMETERS`,
    :data:`TRACKING_PREFIXES`) dropped and the rest sorted. Parameters that select content
    (``?thread=2``, ``?v=``, ``?id=``) are kept; ``http`` and ``https`` stay apart (a site may serve
    different pages on them). A string that is not an absolute URL is returned unchanged.

    Linear in the length of ``url``; the last 8,192 answers are cached (streaming providers resend
    their sources with every update).
    """
    import yarl  # first used when sources arrive, not while a search starts

    web = browser_url(url)
    try:
        parsed = yarl.URL(web.href if web is not None else url)
        host = parsed.raw_host
    except (ValueError, TypeError):
        return url
    if not parsed.absolute or not host:
        return url
    port = "" if parsed.explicit_port is None or parsed.is_default_port() else f":{parsed.explicit_port}"
    host = host.rstrip(".")
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    path = parsed.raw_path.rstrip("/")
    kept = sorted((k, v) for k, v in parsed.query.items() if not _is_tracking(k))
    query = f"?{yarl.URL.build(query=kept).raw_query_string}" if kept else ""
    return f"{parsed.scheme.lower()}://{host}{port}{path}{query}"


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_PARAMETERS or lowered.startswith(TRACKING_PREFIXES)


@functools.lru_cache(maxsize=8192)
def host_of(url: str) -> str:
    """The host a browser opening ``url`` goes to (:func:`~websearch_tui.core.urls.browser_url`), as it
    is shown (:func:`~websearch_tui.core.urls.display_host`: Unicode only where the script is
    consistent, else punycode), without a leading ``www.``; ``""`` for anything but an absolute http(s)
    URL. The last 8,192 answers are cached (lists are drawn again as they scroll)."""
    web = browser_url(url)
    host = display_host(web.host) if web is not None else ""
    return host[4:] if host.startswith("www.") else host


def truncate(text: str, limit: int) -> str:
    """Keep the first ``limit - 1`` characters plus ``…`` when ``text`` is longer than ``limit``."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def format_age(seconds: int | None) -> str:
    """Human age as in the seed LLM format: ``"3mo ago"``, ``"2w ago"``, ... ``"just now"``; from two
    years on in years (``"11y ago"``, not ``"141mo ago"``).

    ``None`` and ``0`` give ``""``.
    """
    if not seconds:
        return ""
    days = seconds // 86400
    for amount, unit in (
        (days // 365 if days >= 2 * 365 else 0, "y"),
        (days // 30, "mo"),
        (days // 7, "w"),
        (days, "d"),
        (seconds // 3600, "h"),
        (seconds // 60, "m"),
    ):
        if amount > 0:
            return f"{amount}{unit} ago"
    return "just now"


MAX_DATE_CHARS = 100
"""Longest text read as a date (longer text is kept as text only): real dates are far shorter, and
the bound keeps every date pattern cheap on hostile input."""
_RELATIVE = (
    r"(?i)(?:(\d{1,12})\s*|an?\s+)"  # a count, or "a"/"an" (one)
    r"(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|mo|mos|months?|y|yrs?|years?)\s+ago"
)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "mo": 2592000, "y": 31536000}
_CJK_RELATIVE = (
    r"(\d{1,12})\s*"
    r"(秒|分钟|分鐘|分|小时|小時|時間|个小时|個小時|天|日|周|週|星期|週間|个月|個月|か月|ヶ月|月|年)\s*以?前"
)
_CJK_UNITS = {
    **dict.fromkeys(("秒",), 1),
    **dict.fromkeys(("分钟", "分鐘", "分"), 60),
    **dict.fromkeys(("小时", "小時", "時間", "个小时", "個小時"), 3600),
    **dict.fromkeys(("天", "日"), 86400),
    **dict.fromkeys(("周", "週", "星期", "週間"), 604800),
    **dict.fromkeys(("个月", "個月", "か月", "ヶ月", "月"), 2592000),
    **dict.fromkeys(("年",), 31536000),
}
"""Chinese and Japanese ``N<unit>前`` units in seconds (``3天前``, ``2小时前``, ``5分前``, ``2か月前``)."""
_KOREAN_RELATIVE = r"(\d{1,12})\s*(초|분|시간|일|주|개월|달|년)\s*전"
_KOREAN_UNITS = {
    "초": 1,
    "분": 60,
    "시간": 3600,
    "일": 86400,
    "주": 604800,
    "개월": 2592000,
    "달": 2592000,
    "년": 31536000,
}
"""Korean ``N<unit> 전`` units in seconds (``3일 전``, ``2시간 전``)."""
_DAY_WORDS = {
    **dict.fromkeys(("just now", "today", "刚刚", "剛剛", "刚才", "今天", "今日", "方才", "방금", "오늘"), 0),
    **dict.fromkeys(("yesterday", "昨天", "昨日", "어제"), 1),
    **dict.fromkeys(("前天", "一昨日", "그저께"), 2),
}
"""Relative day words -> days back from now (a calendar day read as that many 24 hours)."""
_TIME = r"(?:[ T\u3000]*(?P<H>\d{1,2})[:：](?P<M>\d{2})(?:[:：](?P<S>\d{2}))?)?"
_CJK_DATE = r"(?P<y>\d{4})\s*[年년]\s*(?P<m>\d{1,2})\s*[月월]\s*(?P<d>\d{1,2})\s*[日号號일]" + _TIME
"""``2024年12月5日``, ``2024年12月05日 10:30``, Korean ``2024년 12월 5일`` (an optional time after)."""
_NUMERIC_DATE = r"(?P<y>\d{4})(?P<sep>[/.\-])\s?(?P<m>\d{1,2})(?P=sep)\s?(?P<d>\d{1,2})\.?" + _TIME
"""Year-first dates with ``/``, ``.`` or ``-``: ``2024/12/05``, ``2024.12.05``, ``2024-12-5``, Korean
``2024. 12. 5.`` (an optional time after)."""
_DAY_MONTH_YEAR = r"(?i)(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})"
_MONTH_DAY_YEAR = r"(?i)([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})"
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_DATE_FORMATS = ("%m/%d/%Y",)


def parse_date(value: object, now: datetime | None = None) -> datetime | None:
    """The moment a provider date names, as an aware UTC datetime; ``None`` if unparsable.

    Accepts (naive values are UTC; a date alone is midnight UTC):

    - ISO 8601, read by :meth:`datetime.fromisoformat` as Python 3.11 reads it (``Z``, any
      fraction, basic format), the oldest Python this package declares;
    - RFC 1123 / RFC 2822 (``Thu, 25 Jul 2024 00:00:00 GMT``);
    - English month names: ``May 6, 2026``, ``Dec 5, 2024``, ``Sept. 6th, 2019``, ``5 Dec 2024``,
      ``25 July 2024``;
    - year-first numeric dates: ``2024/12/05``, ``2024.12.05``, ``2024-12-5``, ``2024. 12. 5.``,
      and ``M/D/YYYY``;
    - CJK dates: ``2024年12月5日``, ``2024年12月05日 10:30``, Korean ``2024년 12월 5일``;
    - relative ages, counted back from ``now`` (default the current time; a month is 30 days, a year
      365): ``3 days ago``, ``an hour ago``, ``yesterday``, ``just now``, Chinese and Japanese
      ``3天前``, ``2小时前``, ``5分钟前``, ``2か月前``, ``昨天``, ``刚刚``, Korean ``3일 전``, ``어제``.

    Empty strings, ``N/A``, anything else and text longer than :data:`MAX_DATE_CHARS` give ``None``.
    Every pattern is anchored and free of nested repeats, so the cost is linear in the (bounded) text.
    """
    if not isinstance(value, str) or len(value) > MAX_DATE_CHARS * 4:
        return None
    text = value.strip()
    if not text or len(text) > MAX_DATE_CHARS or text.upper() == "N/A":
        return None
    now = now or datetime.now(timezone.utc)
    seconds = _relative_seconds(text)
    if seconds is not None:
        try:
            return now - timedelta(seconds=seconds)
        except OverflowError:  # "99999999 years ago"
            return None
    moment = _parse_date(text)
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:  # year 1 with a positive offset, year 9999 with a negative one
        return None


def _relative_seconds(text: str) -> int | None:
    """Seconds back from now that a relative age names (``3 days ago``, ``3天前``, ``昨天``), else ``None``."""
    days = _DAY_WORDS.get(text.lower())
    if days is not None:
        return days * 86400
    match = pattern(_RELATIVE).fullmatch(text)
    if match:
        count, unit = match.group(1), match.group(2).lower()  # no count: "a day ago", "an hour ago"
        return int(count or 1) * _UNIT_SECONDS["mo" if unit.startswith("mo") else unit[0]]
    match = pattern(_CJK_RELATIVE).fullmatch(text)
    if match:
        return int(match.group(1)) * _CJK_UNITS[match.group(2)]
    match = pattern(_KOREAN_RELATIVE).fullmatch(text)
    if match:
        return int(match.group(1)) * _KOREAN_UNITS[match.group(2)]
    return None


def age_seconds(value: object, now: datetime | None = None) -> int | None:
    """Age in whole seconds of a provider date (:func:`parse_date`), clamped to >= 0; ``None`` if
    unparsable."""
    now = now or datetime.now(timezone.utc)
    moment = parse_date(value, now)
    return None if moment is None else max(0, int((now - moment).total_seconds()))


def iso_utc(value: object, now: datetime | None = None) -> str | None:
    """A provider date (:func:`parse_date`) as ISO 8601 in UTC to the second,
    ``"2024-07-25T00:00:00Z"``; ``None`` if unparsable."""
    moment = parse_date(value, now)
    return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_date(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    found = _pattern_date(text)
    if found is not None:
        return found
    from email.utils import parsedate_to_datetime

    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):  # OverflowError: a year or offset out of range
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def _pattern_date(text: str) -> datetime | None:
    """A CJK, year-first numeric or English month-name date (naive), else ``None``."""
    match = pattern(_CJK_DATE).fullmatch(text) or pattern(_NUMERIC_DATE).fullmatch(text)
    if match:
        return _moment(*match.group("y", "m", "d", "H", "M", "S"))
    match = pattern(_MONTH_DAY_YEAR).fullmatch(text)
    if match:
        return _moment(match.group(3), _month(match.group(1)), match.group(2))
    match = pattern(_DAY_MONTH_YEAR).fullmatch(text)
    if match:
        return _moment(match.group(3), _month(match.group(2)), match.group(1))
    return None


def _month(name: str) -> str | None:
    """``"12"`` for ``Dec``/``December``/``dec`` (a prefix of at least three letters; ``Sept`` too)."""
    lowered = name.lower()
    return next((str(i) for i, month in enumerate(_MONTHS, 1) if month.startswith(lowered)), None)


def _moment(
    year: str,
    month: str | None,
    day: str,
    hour: str | None = None,
    minute: str | None = None,
    second: str | None = None,
) -> datetime | None:
    """The naive datetime of these digit strings, ``None`` when it does not exist (``2024年2月30日``)."""
    if month is None:
        return None
    try:
        return datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
    except ValueError:
        return None
