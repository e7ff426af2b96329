"""Where a pane rests once its run ends, and the keys that move every pane (issue 29, items 1 and 4).

A finished streamed answer used to stop short of its end: following ran at each tick of an active
pane only, so the last text, the layout it waited for and the sections filled in at the end were
laid out after the last follow, below the view. Now an ended pane rests at its end through those
layouts. ``t`` puts every pane at its top and back; Home and End jump instead of animating.
"""

from __future__ import annotations

import asyncio

import pytest
from textual.widget import Widget

from tests.fake_providers import FAKE_KEYS
from tests.tui.conftest import submit, until, wait_for_search
from websearch_tui.core.models import AnswerDelta, Citation, CitationsFound, Metadata, Source, SourcesFound, Usage
from websearch_tui.tui.app import binding_table
from websearch_tui.tui.bindings import binding_ids
from websearch_tui.tui.search.provider_pane import ProviderPane

MODELS = ("perplexity", "openai", "anthropic", "gemini", "grok", "deepseek")
"""Six model panes, as in the issue (200x50 with the provider list shown: a grid of 3 x 2)."""
PARAGRAPHS = 15
"""One-line paragraphs streamed before the end: more than a pane at 200x50 shows."""


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model providers need a key to run (their streams are fakes: nothing is sent)."""
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)


def last_sentence(provider_id: str) -> str:
    return f"The last sentence of {provider_id}."


def model_stream(end: asyncio.Event, *, sources: int = 1):
    """A model's stream: :data:`PARAGRAPHS` paragraphs, then (once ``end`` is set) its last paragraphs
    and sentence, sources, a citation and the model line, all at once, as a stream's end arrives."""

    async def stream(request, ctx):
        pid = ctx.spec.id
        for i in range(PARAGRAPHS):
            yield AnswerDelta(f"Paragraph {i} of {pid}.\n\n")
        await end.wait()
        for i in range(PARAGRAPHS, PARAGRAPHS + 3):
            yield AnswerDelta(f"Paragraph {i} of {pid}.\n\n")
        yield AnswerDelta(last_sentence(pid))
        yield SourcesFound(
            tuple(Source(f"https://s{i}.example/{pid}", f"Source {i}", "words " * 4) for i in range(sources))
        )
        yield CitationsFound((Citation(f"https://s0.example/{pid}", "Source 0"),))
        yield Metadata(model=f"{pid}-model", usage=Usage(input_tokens=10, output_tokens=20))

    return stream


def view(p: ProviderPane) -> tuple[int, int]:
    """The lines of the pane's body in view: ``(first, end)``."""
    top = round(p.body.scroll_y)
    return top, top + p.body.scrollable_content_region.height


def in_view(p: ProviderPane, widget: Widget) -> bool:
    """True when all of ``widget`` (a section of the pane) is in the pane's view."""
    first, end = view(p)
    region = widget.virtual_region
    return bool(widget.display) and first <= region.y and region.bottom <= end


def sentence_line(p: ProviderPane, text: str) -> int | None:
    """The body line on which the answer shows ``text``, if it does."""
    answer = p.answer
    for y in range(answer.size.height):
        if text in answer.render_line(y).text:
            return answer.virtual_region.y + y
    return None


def sentence_in_view(p: ProviderPane) -> bool:
    line = sentence_line(p, last_sentence(p.provider_id))
    first, end = view(p)
    return line is not None and first <= line < end


def at_true_end(p: ProviderPane) -> bool:
    return p.body.max_scroll_y > 0 and round(p.body.scroll_y) == p.body.max_scroll_y


async def stream_then_end(pilot, end: asyncio.Event) -> list[ProviderPane]:
    """Search, wait until every pane follows its answer (it outgrew the pane), end the streams, and
    wait until the search is over."""
    app = pilot.app
    await submit(pilot, "asyncio")
    panes = list(app.screen.pane_area.panes)
    await until(
        pilot,
        lambda: all(p.status == "streaming" and p.body.scroll_y > 0 for p in panes),
        "every pane streams and has scrolled to follow its answer",
        detail=lambda: [(p.provider_id, p.status, p.body.scroll_y) for p in panes],
    )
    end.set()
    await wait_for_search(app)
    return panes


async def test_finished_panes_show_their_true_end(make_app, fake_streams):
    end = asyncio.Event()
    for pid in MODELS:
        fake_streams[pid] = model_stream(end)
    app = make_app(MODELS)
    async with app.run_test(size=(200, 50)) as pilot:
        panes = await stream_then_end(pilot, end)
        assert app.screen.pane_area.mode == "grid"
        await until(
            pilot,
            lambda: all(at_true_end(p) and sentence_in_view(p) for p in panes),
            "every pane rests at its true end with the answer's last sentence in view",
            detail=lambda: [(p.provider_id, p.body.scroll_y, p.body.max_scroll_y) for p in panes],
        )
        for p in panes:
            where = (p.provider_id, p.body.scroll_y, p.body.max_scroll_y, view(p))
            assert p.status == "done", where
            assert at_true_end(p), where  # the very end of the pane...
            assert sentence_in_view(p), where  # ...with the answer's last sentence
            for section in (".sources-title", ".sources", ".citations-title", ".citations", ".meta"):
                assert in_view(p, p.query_one(section)), (section, *where)


async def test_sections_taller_than_the_pane_rest_at_the_true_end(make_app, fake_streams):
    """Issue 29 #1: the true end, the last source and the model line in view, also when the sections
    that follow the answer are taller than the pane."""
    end = asyncio.Event()
    fake_streams["perplexity"] = model_stream(end, sources=10)
    app = make_app(("perplexity",))
    async with app.run_test(size=(120, 30)) as pilot:
        (p,) = await stream_then_end(pilot, end)
        await until(
            pilot,
            lambda: at_true_end(p),
            "the pane rests at its true end",
            detail=lambda: (p.body.scroll_y, p.body.max_scroll_y, view(p)),
        )


async def test_a_background_tab_shows_its_end_when_it_is_shown(make_app, fake_streams):
    end = asyncio.Event()
    for pid in ("perplexity", "openai"):
        fake_streams[pid] = model_stream(end)
    app = make_app(("perplexity", "openai"))
    async with app.run_test(size=(70, 24)) as pilot:
        await submit(pilot, "asyncio")
        area = app.screen.pane_area
        assert area.mode == "tabs"
        end.set()
        await wait_for_search(app)
        hidden = area.pane("openai")
        assert hidden is not None and not hidden.display
        area.activate("openai")
        await until(
            pilot,
            lambda: at_true_end(hidden) and sentence_in_view(hidden),
            "the hidden pane rests at its true end with the answer's last sentence in view",
            detail=lambda: (
                hidden.body.scroll_y,
                hidden.body.max_scroll_y,
            ),
        )


async def test_t_puts_every_pane_at_its_top_and_back_at_its_end(make_app, fake_streams):
    end = asyncio.Event()
    for pid in MODELS:
        fake_streams[pid] = model_stream(end)
    app = make_app(MODELS)
    async with app.run_test(size=(200, 50)) as pilot:
        panes = await stream_then_end(pilot, end)
        await until(
            pilot,
            lambda: all(at_true_end(p) for p in panes),
            "every pane rests at its true end",
            detail=lambda: [(p.provider_id, p.body.scroll_y, p.body.max_scroll_y) for p in panes],
        )
        query = app.screen.query_input
        await pilot.press("t")  # in the query box a letter is text
        assert query.value.endswith("t") and all(at_true_end(p) for p in panes)
        panes[0].body.focus()
        await pilot.press("t")
        assert all(p.body.scroll_y == 0 for p in panes)
        assert all(sentence_line(p, f"Paragraph 0 of {p.provider_id}.") == 0 for p in panes)
        await pilot.pause()
        assert all(p.body.scroll_y == 0 for p in panes)  # they stay there
        await pilot.press("t")
        assert all(at_true_end(p) and sentence_in_view(p) for p in panes)
        assert "panes-tops-ends" in binding_ids(binding_table())


async def test_t_stops_and_resumes_following_a_streaming_answer(make_app, fake_streams):
    end = asyncio.Event()
    fake_streams["openai"] = model_stream(end)
    app = make_app(("openai",))
    async with app.run_test(size=(120, 30)) as pilot:
        await submit(pilot, "asyncio")
        p = app.screen.pane_area.panes[0]
        await until(
            pilot,
            lambda: p.status == "streaming" and p.body.scroll_y > 0,
            "the pane streams and has scrolled to follow its answer",
            detail=lambda: (p.status, p.body.scroll_y),
        )
        p.body.focus()
        await pilot.press("t")
        assert p.body.scroll_y == 0
        await pilot.press("t")
        assert p.body.scroll_y > 0  # following the answer again
        end.set()
        await wait_for_search(app)
        await until(
            pilot,
            lambda: at_true_end(p) and sentence_in_view(p),
            "the pane rests at its true end with the answer's last sentence in view",
            detail=lambda: (p.body.scroll_y, p.body.max_scroll_y, view(p)),
        )


async def test_home_and_end_jump(make_app, fake_streams):
    end = asyncio.Event()
    fake_streams["openai"] = model_stream(end, sources=10)
    app = make_app(("openai",))
    async with app.run_test(size=(120, 30)) as pilot:
        (p,) = await stream_then_end(pilot, end)
        body = p.body
        body.focus()
        await pilot.press("home")
        assert body.scroll_y == 0 and not app.animator.is_being_animated(body, "scroll_y")
        await pilot.press("end")
        assert body.scroll_y == body.max_scroll_y > 0 and not app.animator.is_being_animated(body, "scroll_y")
        await pilot.press("home")  # a pane the user moved stays where it was put
        await pilot.pause()
        assert body.scroll_y == 0


async def test_the_palette_offers_tops_and_ends(make_app, fake_streams):
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 30)):
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Tops / Ends" in titles
