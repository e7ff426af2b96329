"""``o`` with a browser that runs in the terminal (issue 29, item 8): ``BROWSER=w3m`` (as ddgr users set
it), or any ``BROWSER`` command without a display, runs with the app suspended, the URL one argument
and no shell; a graphical browser is still Python's ``webbrowser``'s."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from textual.drivers.headless_driver import HeadlessDriver

from tests.tui.conftest import submit, until, wait_for_search
from tests.tui.test_search_screen import pane
from websearch_tui.core.models import AnswerDelta, Source, SourcesFound
from websearch_tui.tui.common import links
from websearch_tui.tui.common.link_dialog import LinkDialog
from websearch_tui.tui.common.links import console_browser, has_display, sigint_left_to_child

URL = "https://example.com/a?q=1&x=$(touch${IFS}pwned);b|c"
"""A URL with shell metacharacters: it must reach the browser as one argument, never through a shell."""


def recorder(folder: Path, name: str) -> tuple[Path, Path]:
    """A script called ``name`` that writes its argv (as JSON) to a file; returns (script, record file)."""
    record = folder / f"{name}.json"
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\nimport json, sys\nopen({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, record


@pytest.fixture
def suspensions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Let the headless driver suspend (as a terminal's does) and record each suspend and resume."""
    events: list[str] = []
    monkeypatch.setattr(HeadlessDriver, "can_suspend", property(lambda self: True))
    monkeypatch.setattr(HeadlessDriver, "suspend_application_mode", lambda self: events.append("suspend"))
    monkeypatch.setattr(HeadlessDriver, "resume_application_mode", lambda self: events.append("resume"))
    return events


async def one_source(request, ctx):
    yield SourcesFound((Source(URL, "Alpha", "first", None, None),))


def fake_which(*installed: str):
    """``shutil.which`` on a machine where only ``installed`` exist."""
    return lambda name: f"/usr/bin/{Path(name).name}" if Path(name).name in installed else None


def test_console_browsers_are_recognised_by_name_or_by_the_lack_of_a_display():
    which = fake_which("w3m", "firefox", "lynx", "mybrowser")
    assert console_browser(URL, {"BROWSER": "w3m"}, display=True, which=which) == ["w3m", URL]
    assert console_browser(URL, {"BROWSER": "/usr/bin/lynx -accept_all_cookies"}, display=True, which=which) == [
        "/usr/bin/lynx",
        "-accept_all_cookies",
        URL,
    ]
    assert console_browser(URL, {"BROWSER": "w3m -o x=%s"}, display=True, which=which) == ["w3m", "-o", f"x={URL}"]
    assert console_browser(URL, {"BROWSER": "firefox"}, display=True, which=which) is None  # graphical: webbrowser
    assert console_browser(URL, {"BROWSER": "mybrowser"}, display=False, which=which) == ["mybrowser", URL]
    assert console_browser(URL, {"BROWSER": "elinks:w3m"}, display=True, which=which) == ["w3m", URL]  # not installed
    assert console_browser(URL, {}, display=True, which=which) is None
    assert console_browser(URL, {}, display=False, which=which) == ["lynx", URL]  # what webbrowser would start
    assert console_browser(URL, {}, display=False, which=fake_which()) is None
    assert console_browser(URL, {"BROWSER": "w3m 'unclosed"}, display=True, which=which) is None


def test_a_display_is_x_or_wayland_outside_macos_and_windows():
    assert has_display({"DISPLAY": ":0"}, "linux")
    assert has_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not has_display({}, "linux")
    assert has_display({}, "darwin") and has_display({}, "win32")


@pytest.mark.parametrize("named_w3m", [True, False])
async def test_o_runs_a_console_browser_with_the_app_suspended(
    make_app, fake_streams, suspensions, monkeypatch, tmp_path, named_w3m
):
    script, record = recorder(tmp_path, "w3m" if named_w3m else "mybrowser")
    monkeypatch.setenv("BROWSER", str(script))
    monkeypatch.chdir(tmp_path)  # where a shell would have run the URL's "touch pwned"
    if named_w3m:
        monkeypatch.setenv("DISPLAY", ":0")  # a display, but w3m is a console browser all the same
    else:
        monkeypatch.delenv("DISPLAY", raising=False)  # no display: any BROWSER command is a console one
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("webbrowser.open", lambda *a, **kw: pytest.fail("not a graphical browser"))
    fake_streams["ddgs"] = one_source
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "open it")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.press("o")
        await until(pilot, lambda: record.exists(), "the browser's record file exists")
        assert json.loads(record.read_text(encoding="utf-8")) == [URL]  # one argument, as it was
        assert suspensions == ["suspend", "resume"]
        assert not (tmp_path / "pwned").exists()
        await until(
            pilot,
            lambda: any("Back from" in n.message for n in app._notifications),
            'a "Back from" notice is shown',
            detail=lambda: [n.message for n in app._notifications],
        )


async def test_a_graphical_browser_is_left_to_webbrowser(make_app, fake_streams, suspensions, monkeypatch, tmp_path):
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("BROWSER", raising=False)
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url, *a, **kw: opened.append(url) or True)
    fake_streams["ddgs"] = one_source
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "open it")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.press("o")
        await until(pilot, lambda: opened == [URL], "the URL was opened", detail=lambda: opened)
        assert suspensions == []


async def test_where_the_app_cannot_suspend_the_link_is_shown_to_select(make_app, fake_streams, monkeypatch, tmp_path):
    script, record = recorder(tmp_path, "w3m")
    monkeypatch.setenv("BROWSER", str(script))
    fake_streams["ddgs"] = one_source
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:  # the headless driver cannot suspend
        await submit(pilot, "open it")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        await pilot.press("o")
        await until(
            pilot, lambda: isinstance(app.screen, LinkDialog), "the link dialog is open", detail=lambda: app.screen
        )
        assert not record.exists()


def interrupting_browser(folder: Path, name: str = "w3m") -> tuple[Path, Path]:
    """A console browser that, like Ctrl+C typed in it, sends SIGINT to the process that started it
    (its parent, in the terminal's foreground process group), then records whether SIGINT was left
    at its default for it (not inherited as ignored) and quits normally."""
    record = folder / f"{name}.json"
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, signal, sys, time\n"
        "os.kill(os.getppid(), signal.SIGINT)\n"
        "time.sleep(0.2)  # the parent takes the signal while it waits for us\n"
        "default = signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
        f"open({str(record)!r}, 'w').write(json.dumps({{'argv': sys.argv[1:], 'sigint_default': default}}))\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, record


async def test_ctrl_c_in_the_console_browser_does_not_end_the_app(
    make_app, fake_streams, suspensions, monkeypatch, tmp_path
):
    """The SIGINT of a Ctrl+C typed in the browser reaches this process too; the handler in place (as
    ``asyncio.run``'s, which would cancel the app's task) must not see it, and is put back after.

    The test's own handler stands in for asyncio's, so a regression fails here instead of
    interrupting the whole test run."""
    script, record = interrupting_browser(tmp_path)
    monkeypatch.setenv("BROWSER", str(script))
    fake_streams["ddgs"] = one_source
    app = make_app(("ddgs",))
    interrupts: list[int] = []

    def asyncio_like(signum, frame):
        interrupts.append(signum)

    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "open it")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        previous = signal.signal(signal.SIGINT, asyncio_like)
        try:
            await pilot.press("o")
            await until(pilot, lambda: record.exists(), "the browser's record file exists")
            assert json.loads(record.read_text(encoding="utf-8")) == {"argv": [URL], "sigint_default": True}
            await until(
                pilot,
                lambda: any("Back from" in n.message for n in app._notifications),
                'a "Back from" notice is shown',
                detail=lambda: [n.message for n in app._notifications],
            )
            assert interrupts == []  # the app's handler never saw the browser's Ctrl+C
            assert signal.getsignal(signal.SIGINT) is asyncio_like  # put back as it was
        finally:
            signal.signal(signal.SIGINT, previous)
        assert suspensions == ["suspend", "resume"]
        assert app.is_running
        record.unlink()
        await pilot.press("o")  # still answers keys: the browser once more
        await until(pilot, lambda: record.exists(), "the browser's record file exists")
        await until(
            pilot,
            lambda: suspensions == ["suspend", "resume"] * 2,
            "the app was suspended and resumed twice",
            detail=lambda: suspensions,
        )


async def test_whatever_the_browser_run_raises_the_app_resumes_and_says_so(
    make_app, fake_streams, suspensions, monkeypatch, tmp_path
):
    script, record = recorder(tmp_path, "w3m")
    monkeypatch.setenv("BROWSER", str(script))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("websearch_tui.tui.common.links.subprocess.run", interrupted)
    fake_streams["ddgs"] = one_source
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "open it")
        await wait_for_search(app)
        pane(app, "ddgs").focus_target()
        before = signal.getsignal(signal.SIGINT)
        await pilot.press("o")
        await until(
            pilot, lambda: isinstance(app.screen, LinkDialog), "the link dialog is open", detail=lambda: app.screen
        )
        assert suspensions == ["suspend", "resume"]
        assert signal.getsignal(signal.SIGINT) is before
        assert any("w3m ended abnormally: KeyboardInterrupt" in n.message for n in app._notifications)
        assert app.is_running


def interrupted_by_a_child() -> None:
    """Run a child that sends SIGINT to this process, with SIGINT left to it."""
    with sigint_left_to_child():
        subprocess.run([sys.executable, "-c", "import os, signal; os.kill(os.getppid(), signal.SIGINT)"], check=True)


def test_sigint_is_given_back_to_the_loop_that_handles_it():
    """A loop SIGINT handler (``loop.add_signal_handler``) is not run for a Ctrl+C meant for the browser,
    and still handles SIGINT after."""
    import asyncio

    async def scenario() -> list[str]:
        loop = asyncio.get_running_loop()
        calls: list[str] = []
        loop.add_signal_handler(signal.SIGINT, calls.append, "loop")
        try:
            interrupted_by_a_child()  # on the loop's thread, blocking it, as the app does
            await asyncio.sleep(0.05)  # the loop wakes up: nothing pending for its handler
            assert calls == []
            os.kill(os.getpid(), signal.SIGINT)  # after: the loop's handler has SIGINT again
            for _ in range(100):
                if calls:
                    break
                await asyncio.sleep(0.01)
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        return calls

    before = signal.getsignal(signal.SIGINT)
    assert asyncio.run(scenario()) == ["loop"]
    assert signal.getsignal(signal.SIGINT) is before


async def test_no_console_browser_while_a_search_is_running(make_app, fake_streams, suspensions, monkeypatch, tmp_path):
    """The browser would hold the event loop and stall the search: the link is shown instead, and the
    browser opens once the search has ended."""
    script, record = recorder(tmp_path, "w3m")
    monkeypatch.setenv("BROWSER", str(script))
    release = asyncio.Event()

    async def held(request, ctx):
        yield SourcesFound((Source(URL, "Alpha", "first", None, None),))
        await release.wait()  # held in flight until the test lets it go
        yield AnswerDelta("done")

    fake_streams["ddgs"] = held
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "open it")
        await until(
            pilot,
            lambda: pane(app, "ddgs")._selected_url() == URL,
            "the DuckDuckGo pane's selected row is the URL",
            detail=lambda: pane(app, "ddgs")._selected_url(),
        )
        pane(app, "ddgs").focus_target()
        await pilot.press("o")
        await until(
            pilot, lambda: isinstance(app.screen, LinkDialog), "the link dialog is open", detail=lambda: app.screen
        )
        assert "only when no search is running" in app.screen.reason
        assert app.screen.url == URL
        assert suspensions == [] and not record.exists()
        await pilot.press("escape")
        release.set()
        await wait_for_search(app)
        assert pane(app, "ddgs").status == "done"  # not timed out or cancelled
        pane(app, "ddgs").focus_target()
        await pilot.press("o")
        await until(pilot, lambda: record.exists(), "the browser's record file exists")
        assert suspensions == ["suspend", "resume"]


async def test_links_that_could_not_be_opened_at_once_show_one_dialog(make_app, fake_streams, monkeypatch):
    """Several presses of ``o`` whose browsers all failed before the first dialog was up pushed a
    second dialog with the same id: Textual ended the app (DuplicateIds)."""
    monkeypatch.setattr("webbrowser.open", lambda url, *a, **kw: False)
    fake_streams["ddgs"] = one_source
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "open it")
        await wait_for_search(app)
        for _ in range(3):  # reported together, as worker threads that failed before the dialog was up
            links._report_open(app, URL, False)
        await until(
            pilot, lambda: isinstance(app.screen, LinkDialog), "the link dialog is open", detail=lambda: app.screen
        )
        await pilot.pause()
        assert sum(isinstance(screen, LinkDialog) for screen in app.screen_stack) == 1
        assert app.is_running
