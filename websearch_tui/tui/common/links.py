"""Opening and copying the links of untrusted text.

URLs are only opened or copied after :func:`websearch_tui.core.text.safe_url` accepts them
(absolute http/https), and the browser and the system clipboard are reached from
worker threads, never on the event loop. A browser that runs in the terminal (``BROWSER=w3m``, see
:func:`console_browser`) is the exception: the app suspends itself, the browser has the terminal
until it quits, and the app comes back; Ctrl+C meanwhile is the browser's (see :func:`sigint_left_to_child`),
and while a search is running the link is shown instead (the browser would stall the search).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from types import FrameType

from textual.app import App, SuspendNotSupported

from websearch_tui.core.text import safe_url, truncate
from websearch_tui.tui.common.safe import clean
from websearch_tui.tui.patches.loop_signals import loop_handles_sigint

CONSOLE_BROWSERS = frozenset({"w3m", "lynx", "links", "links2", "elinks", "browsh", "www-browser", "carbonyl"})
"""Browsers that run in the terminal they are started from (by the name of their command)."""
FALLBACK_CONSOLE_BROWSERS = ("www-browser", "links", "elinks", "lynx", "w3m")
"""Without ``BROWSER`` and without a display, Python's ``webbrowser`` would start the first of these it
finds (in this order) in the app's own terminal; they are started the console way instead."""
SEARCH_GROUP = "search"
"""The worker group of a running search (:class:`~websearch_tui.tui.search.screen.SearchScreen`)."""


def open_url_safely(app: App[object], url: object) -> bool:
    """Open ``url`` in the browser if it is http(s) (otherwise warn); returns True when it was handed on.

    The browser is started in a thread (``webbrowser.open`` can block for seconds while it looks
    for one); the notice says what happened: opened, or, when no browser could be started, the
    link in a dialog where it can be selected. A browser that runs in the terminal
    (:func:`console_browser`) gets the terminal while the app is suspended (:func:`open_in_terminal`).
    """
    checked = safe_url(url)
    if checked is None:
        app.notify("Refused to open a link that is not http(s).", severity="warning", markup=False)
        return False
    argv = console_browser(checked)
    if argv is not None:
        open_in_terminal(app, argv, checked)
        return True
    app.run_worker(
        functools.partial(_open_in_browser, app, checked), thread=True, group="links", description="open a link"
    )
    return True


def has_display(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """True where a graphical browser can open a window: macOS and Windows always, elsewhere when
    ``DISPLAY`` or ``WAYLAND_DISPLAY`` is set."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform == "darwin" or platform.startswith(("win", "cygwin")):
        return True
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def console_browser(
    url: str,
    environ: Mapping[str, str] | None = None,
    *,
    display: bool | None = None,
    which: Callable[[str], str | None] = shutil.which,
) -> list[str] | None:
    """The command line of a browser that runs in this terminal, opening ``url``; ``None`` when a
    graphical browser (Python's ``webbrowser``) should open it.

    ``BROWSER`` is read as ``webbrowser`` reads it: commands separated by ``os.pathsep``, each split
    into words as a shell would (but never run by one), ``%s`` standing for the URL (else the URL
    comes last).
    The first entry that is installed decides: a console browser (:data:`CONSOLE_BROWSERS`) is
    used; so is any command when there is no display; a graphical one is left to ``webbrowser``.
    Without ``BROWSER`` and without a display, the first console browser of
    :data:`FALLBACK_CONSOLE_BROWSERS` that is installed is used. The URL is always one argument.
    """
    environ = os.environ if environ is None else environ
    display = has_display(environ) if display is None else display
    for entry in environ.get("BROWSER", "").split(os.pathsep):
        try:
            words = shlex.split(entry)
        except ValueError:  # an unbalanced quote: not a command we can start
            continue
        if not words or which(words[0]) is None:
            continue
        if os.path.basename(words[0]) not in CONSOLE_BROWSERS and display:
            return None
        return _with_url(words, url)
    if not display and not environ.get("BROWSER", "").strip():
        for name in FALLBACK_CONSOLE_BROWSERS:
            if which(name) is not None:
                return [name, url]
    return None


def _with_url(words: list[str], url: str) -> list[str]:
    """``words`` with every ``%s`` of its arguments replaced by ``url``, or ``url`` appended when none has one."""
    if not any("%s" in word for word in words[1:]):
        return [*words, url]
    return [words[0], *(word.replace("%s", url) for word in words[1:])]


def open_in_terminal(app: App[object], argv: list[str], url: str) -> None:
    """Suspend the app, run the console browser ``argv`` (no shell) in the terminal until it quits, then
    come back; where the app cannot suspend (Textual's web driver), the browser does not start, or a
    search is running, the link is shown to select instead.

    The event loop waits while the browser runs, so a search in flight would stall (its providers
    would come back timed out): while one runs the browser is not started. Ctrl+C in the browser is
    the browser's (:func:`sigint_left_to_child`), and whatever the browser run raises, the app resumes
    and says so."""
    name = clean(os.path.basename(argv[0]))
    if search_running(app):
        _show_link(
            app,
            f"A search is running: {name} would take the terminal and stall it, so the console browser opens "
            "only when no search is running (press o again when it has ended). Select the link to copy it:",
            url,
        )
        return
    failure: BaseException | None = None
    try:
        with app.suspend():
            try:
                with sigint_left_to_child():
                    subprocess.run(argv, check=False)  # a list, no shell: the URL is one argument
            except BaseException as exc:  # raised inside: the app must still resume (Textual's suspend has no finally)
                failure = exc
    except SuspendNotSupported:
        _report_open(app, url, False)
        return
    if isinstance(failure, OSError):
        reason = clean(failure.strerror or type(failure).__name__, one_line=True)
        app.notify(f"Could not start {name}: {reason}.", severity="warning", markup=False)
        _report_open(app, url, False)
        return
    if failure is not None:
        reason = clean(str(failure) or type(failure).__name__, one_line=True, limit=80)
        app.notify(f"{name} ended abnormally: {reason}.", severity="warning", markup=False)
        _report_open(app, url, False)
        return
    app.notify(f"Back from {name} ({truncate(url, 60)}).", markup=False, timeout=3)


def search_running(app: App[object]) -> bool:
    """True while a search worker (:data:`SEARCH_GROUP`) of ``app`` is pending or running."""
    return any(worker.group == SEARCH_GROUP and not worker.is_finished for worker in app.workers)


def _ignore_sigint(signum: int, frame: FrameType | None) -> None:
    """A SIGINT handler that does nothing (a Python handler, not ``SIG_IGN``: a child started meanwhile
    gets the default disposition back at ``exec``, so Ctrl+C still works in it)."""


@contextlib.contextmanager
def sigint_left_to_child() -> Iterator[None]:
    """While a console browser has the terminal, Ctrl+C (SIGINT to the whole foreground process group,
    this process included) is the browser's: here it does nothing, and the handlers are put back after.

    Both ways asyncio takes SIGINT are covered: ``asyncio.run``'s handler (3.11+, installed with
    ``signal.signal``, it cancels the main task and so ends the app) is replaced by one that does
    nothing; a handler of the running loop (``loop.add_signal_handler``) is reached through the
    signal wakeup fd, which is turned off meanwhile so the loop does not run it when it wakes up.
    Signals can only be handled on the main thread: anywhere else this does nothing."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        yield  # not the main thread, or a handler not set from Python (that could not be put back)
        return
    wakeup = -1
    handled_by_loop = loop_handles_sigint()
    signal.signal(signal.SIGINT, _ignore_sigint)
    try:
        if handled_by_loop:
            wakeup = signal.set_wakeup_fd(-1)
        yield
    finally:
        if wakeup != -1:
            signal.set_wakeup_fd(wakeup)
        signal.signal(signal.SIGINT, previous)


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
    _show_link(app, "No browser could be started here. Select the link to copy it:", url)


def _show_link(app: App[object], reason: str, url: str) -> None:
    """Show ``url`` in a dialog, below ``reason``, where it can be selected (the dialog, with Textual's
    text area, is imported here: no start-up pays for it). While one is open nothing more is shown:
    several links that could not be opened, reported before the first dialog was up, pushed a
    second dialog with the same id and Textual ended the app (``DuplicateIds``)."""
    from websearch_tui.tui.common.link_dialog import LinkDialog

    if not any(isinstance(screen, LinkDialog) for screen in app.screen_stack):
        app.push_screen(LinkDialog(reason, url))


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
