"""The pacing notice (issue 26): while a provider waits for its client-side pacing slot, the progress
line every front end shows says so, in the provider's own terms (``waiting 0.8 s: Exa allows one
search per second``); the CLI's progress line and MCP's progress notifications carry it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.unit.test_cache import ask, cache_session
from tests.unit.test_engine import answering, install
from websearch_tui.cli.commands.search import Progress
from websearch_tui.core.models import Note, SearchResponse
from websearch_tui.core.results import ProviderUpdate, RunStatus
from websearch_tui.session import LiveSearch, pacing_notice
from websearch_tui.session.session import pace_text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def paced_search(tmp_path: Path, clock: Clock) -> LiveSearch:
    session = cache_session(tmp_path, providers={"brave": {"min_interval": 2.5}})
    live = session.begin(ask("exa", "brave"))
    live.clock = clock
    return live


def update(live: LiveSearch, provider: str, status: RunStatus = RunStatus.RUNNING, **kwargs: object) -> ProviderUpdate:
    return ProviderUpdate(live.search_id, provider, status, SearchResponse(provider), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("interval", "words"),
    [
        (1.0, "one search per second"),
        (0.5, "two searches per second"),
        (0.1, "10 searches per second"),
        (2.5, "one search every 2.5 s"),
        (0.3, "one search every 0.3 s"),
        (60.0, "one search per minute"),
    ],
)
def test_pace_text(interval: float, words: str) -> None:
    assert pace_text(interval) == words


def test_the_notice_wording() -> None:
    assert pacing_notice("Exa", 0.8, 1.0) == "waiting 0.8 s: Exa allows one search per second"
    assert pacing_notice("Exa", 0.01, 1.0) == "waiting 0.1 s: Exa allows one search per second"  # never 0.0
    assert pacing_notice("Exa", 0.8, 0.0) == "waiting 0.8 s: Exa is paced"


def test_the_progress_line_says_who_waits_and_counts_down(tmp_path) -> None:
    clock = Clock()
    live = paced_search(tmp_path, clock)
    assert live.intervals == {"exa": 1.0, "brave": 2.5}  # Exa's default, Brave's config
    live.note(update(live, "exa", paced=0.8, event=Note("Held back 0.8 s")))
    assert live.progress_text() == (
        "0/2 done · waiting 0.8 s: Exa allows one search per second · waiting for Exa, Brave Search"
    )
    clock.now += 0.5
    assert "waiting 0.3 s: Exa allows one search per second" in live.progress_text()
    live.note(update(live, "brave", paced=2.0))
    assert live.progress_text() == (
        "0/2 done · waiting 0.3 s: Exa allows one search per second · "
        "waiting 2.0 s: Brave Search allows one search every 2.5 s · waiting for Exa, Brave Search"
    )
    live.note(update(live, "exa", RunStatus.STREAMING))  # its next update ends the wait
    assert "Exa allows" not in live.progress_text()
    clock.now += 2.0  # and so does the time passing
    assert live.progress_text() == "0/2 done · waiting for Exa, Brave Search"
    live.note(update(live, "exa", RunStatus.DONE))
    assert live.progress_text() == "1/2 done · waiting for Brave Search"


def test_updates_of_another_search_are_ignored(tmp_path) -> None:
    live = paced_search(tmp_path, Clock())
    other = ProviderUpdate(live.search_id + 1, "exa", RunStatus.RUNNING, SearchResponse("exa"), paced=0.8)
    live.note(other)
    assert live.progress_text() == "0/2 done · waiting for Exa, Brave Search"


def test_the_cli_progress_line_shows_the_notice(tmp_path) -> None:
    live = paced_search(tmp_path, Clock())
    stream = io.StringIO()
    progress = Progress(live, stream, width=120)
    paced = update(live, "exa", paced=0.8)
    live.note(paced)  # the session counts each update before a front end sees it
    progress(paced)
    assert (
        stream.getvalue()
        == "\r0/2 done · waiting 0.8 s: Exa allows one search per second · waiting for Exa, Brave Search"
    )


async def test_a_paced_search_says_so_while_it_waits(monkeypatch, tmp_path) -> None:
    install(monkeypatch, {"tavily": answering("a")})
    session = cache_session(tmp_path, providers={"tavily": {"min_interval": 0.2}})
    lines: list[str] = []
    for query in ("first", "second"):
        live = session.begin(ask("tavily", query=query))
        await session.run(live, lambda u, live=live: lines.append(live.progress_text()))
    waiting = [line for line in lines if "allows" in line]
    assert len(waiting) == 1  # the second search only
    assert waiting[0].startswith("0/1 done · waiting 0.")
    assert waiting[0].endswith(" s: Tavily allows five searches per second · waiting for Tavily")
    await session.aclose()
