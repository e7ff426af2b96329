"""Untrusted-text helpers for the TUI: every provider string reaches the screen through here.

Provider text is sanitized with :func:`websearch_tui.core.text.sanitize` (escape sequences and
control characters removed) and wrapped in :class:`textual.content.Content`, which is never
parsed as markup. URLs are only opened or copied after :func:`websearch_tui.core.text.safe_url`
accepts them (absolute http/https), and the browser and the system clipboard are reached from
worker threads, never on the event loop.
"""

from __future__ import annotations

import functools
import re

from textual.app import App
from textual.content import Content

from websearch_tui.core.text import safe_url, sanitize, truncate

_WHITESPACE = re.compile(r"\s+")


def clean(text: object, *, one_line: bool = False, limit: int | None = None) -> str:
    """Sanitize ``text`` (non-strings give ``""``); optionally collapse whitespace and truncate."""
    value = sanitize(text) if isinstance(text, str) else ""
    if one_line:
        value = _WHITESPACE.sub(" ", value).strip()
    if limit is not None:
        value = truncate(value, limit)
    return value


def plain(text: object, style: str = "", *, one_line: bool = False, limit: int | None = None) -> Content:
    """A :class:`Content` holding sanitized ``text`` verbatim, with an optional style."""
    value = clean(text, one_line=one_line, limit=limit)
    return Content.styled(value, style) if style else Content(value)


def open_url_safely(app: App[object], url: object) -> bool:
    """Open ``url`` in the browser if it is http(s) (otherwise warn); returns True when it was handed on.

    The browser is started in a thread (``webbrowser.open`` can block for seconds while it looks
    for one); the notice says what happened: opened, or, when no browser could be started, the
    link in a dialog where it can be selected.
    """
    checked = safe_url(url)
    if checked is None:
        app.notify("Refused to open a link that is not http(s).", severity="warning", markup=False)
        return False
    app.run_worker(
        functools.partial(_open_in_browser, app, checked), thread=True, group="links", description="open a link"
    )
    return True


def open_source(app: App[object], url: str | None) -> None:
    """``o`` on a list of sources: open the selected source's ``url``, or say there is none."""
    if url is None:
        app.notify("No source to open.", severity="warning", markup=False)
    else:
        open_url_safely(app, url)


def copy_source(app: App[object], url: str | None) -> None:
    """``c`` on a list of sources: copy the selected source's ``url``, or say there is none."""
    if url is None:
        app.notify("No source to copy.", severity="warning", markup=False)
    else:
        copy_url_safely(app, url)


def copy_url_safely(app: App[object], url: object) -> bool:
    """Copy ``url`` if it is http(s) (otherwise warn); returns True when it was handed on (see
    :func:`copy_text`)."""
    checked = safe_url(url)
    if checked is None:
        app.notify("Refused to copy a link that is not http(s).", severity="warning", markup=False)
        return False
    copy_text(app, checked, truncate(checked, 80))
    return True


def copy_text(app: App[object], text: str, what: str) -> None:
    """Copy ``text`` (already plain) and say where it went, naming it ``what``.

    The terminal is asked to copy it (OSC 52, which some terminals ignore) and, in a thread, the
    system clipboard too (``pyperclip``, where one exists); the notice says which of them took it.
    """
    app.copy_to_clipboard(text)
    app.run_worker(functools.partial(_copy_to_system, app, text, what), thread=True, group="links", description="copy")


def _open_in_browser(app: App[object], url: str) -> None:
    """In a worker thread: start the browser on ``url`` and report back on the event loop."""
    import webbrowser

    try:
        opened = webbrowser.open(url)
    except Exception:  # a broken browser setting must not end the worker with a traceback
        opened = False
    app.call_from_thread(_report_open, app, url, opened)


def _report_open(app: App[object], url: str, opened: bool) -> None:
    if opened:
        app.notify(f"Opened {truncate(url, 80)} in the browser.", markup=False, timeout=3)
        return
    from websearch_tui.tui.widgets.link_dialog import LinkDialog

    app.push_screen(LinkDialog("No browser could be started here. Select the link to copy it:", url))


def _copy_to_system(app: App[object], text: str, what: str) -> None:
    """In a worker thread: put ``text`` on the system clipboard if there is one; report back."""
    try:
        import pyperclip

        pyperclip.copy(text)
        copied = True
    except Exception:  # no clipboard tool (xclip, xsel, wl-copy) or no display: OSC 52 is all we have
        copied = False
    app.call_from_thread(_report_copy, app, what, copied)


def _report_copy(app: App[object], what: str, copied: bool) -> None:
    if copied:
        app.notify(f"Copied {what} to the clipboard.", markup=False, timeout=2)
    else:
        app.notify(
            f"Asked the terminal to copy {what} (OSC 52; some terminals ignore it, and no system clipboard was found).",
            markup=False,
            timeout=5,
        )
