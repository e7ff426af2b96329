"""What the screen shows must be what is there (issue 27), in the running app: the host a source row and
shows is the host ``o`` opens, and answer text carries no invisible or width-disagreeing
character, whether sent raw or as a character reference the Markdown parser decodes."""

from __future__ import annotations

from tests.tui.conftest import submit, wait_for_search, workers_done
from websearch_tui.core.models import AnswerDelta, Source, SourcesFound
from websearch_tui.tui.search.provider_pane import ProviderPane
from websearch_tui.tui.search.source_list import SourceList

SPOOF = "https://evil.example\\@bank.example/login"
HIDDEN = ("\u3164", "\u115f", "\uffa0", "\ufe0f", "\u200b", "\u00ad", "\U000e0049", "\u0378")


def pane(app, provider_id: str) -> ProviderPane:
    return app.screen.query_one(f"#pane-{provider_id}", ProviderPane)


async def test_the_host_shown_is_the_host_opened(make_app, fake_streams, monkeypatch):
    async def sources(request, ctx):
        yield SourcesFound((Source(SPOOF, "Bank login"),))

    fake_streams["ddgs"] = sources
    app = make_app(("ddgs",))
    opened: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        monkeypatch.setattr("webbrowser.open", lambda url, *a, **kw: opened.append(url) or True)
        await submit(pilot, "bank")
        await wait_for_search(app)
        source_list = pane(app, "ddgs").query_one(SourceList)
        shown = " ".join(row.plain for row in source_list.rows)
        assert "evil.example" in shown and "bank.example" not in shown.replace("@bank.example", ""), shown
        source_list.focus()
        await pilot.press("o")
        await workers_done(app)
        assert opened == ["https://evil.example/@bank.example/login"]


async def test_answers_show_no_invisible_or_width_disagreeing_characters(make_app, fake_streams):
    raw = "Fillers " + "".join(HIDDEN) + " heart \u2764\ufe0f end"
    references = "Refs &#x3164;&#x115F;&#xFFA0;&#xFE0F;&#x200B;&shy;&#xE0049;&#x378; end"

    async def answer(request, ctx):
        yield AnswerDelta(f"{raw}\n\n{references}\n")

    fake_streams["ddgs"] = answer
    app = make_app(("ddgs",))
    async with app.run_test(size=(120, 36)) as pilot:
        await submit(pilot, "fillers")
        await wait_for_search(app)
        view = pane(app, "ddgs").answer
        lines = [view.render_line(y).text for y in range(view.size.height)]
        text = "\n".join(lines)
        assert "Fillers \ufffd heart \u2764 end" in text and "Refs \ufffd end" in text, text
        assert not any(char in text for char in HIDDEN), ascii(text)
        assert all(view.render_line(y).cell_length == view.size.width for y in range(view.size.height))
