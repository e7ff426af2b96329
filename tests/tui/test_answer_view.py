"""The answer view: Markdown fidelity, streaming equals rendering at once, untrusted text, the reserve."""

from __future__ import annotations

import random

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.selection import Selection
from textual.strip import Strip

from benchmarks._answers import answer_markdown, tokens
from websearch_tui.tui.common.answer_view import AnswerView

WIDTH = 60


class Host(App[None]):
    """One answer view in a scrolling body, like a pane's."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield AnswerView()


def lines_of(view: AnswerView) -> list[Strip]:
    """Every line of the view as drawn."""
    return [view.render_line(y) for y in range(view.size.height)]


def text_of(view: AnswerView) -> list[str]:
    """The plain text of every line, right-trimmed."""
    return [strip.text.rstrip() for strip in lines_of(view)]


async def shown(markdown: str, *, chunks: list[str] | None = None) -> tuple[list[str], list[Strip]]:
    """Render ``markdown`` (appended in ``chunks`` and flushed after each, or at once). After each chunk
    the app handles what the flush queued and draws the frame (``pilot.pause(0)``: the same frames as
    waiting for the process to go idle, without that wait)."""
    app = Host()
    async with app.run_test(size=(WIDTH + 2, 50)) as pilot:
        view = app.query_one(AnswerView)
        await pilot.pause()
        if chunks is None:
            view.update(markdown)
        else:
            for chunk in chunks:
                view.append(chunk)
                view.flush()
                await pilot.pause(0)
        await pilot.pause()
        return text_of(view), lines_of(view)


def random_chunks(text: str, seed: int) -> list[str]:
    """``text`` cut at random places (inside words, markup and fences too)."""
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, 60)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


EDGE_CASES = [
    "Title\n===\n\nafter a setext heading\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nafter the table\n",
    "```python\ndef f():\n    return 1\n",  # a fence still open at the end
    "- one\n- two\n\n  still two\n- three\n\n1. first\n2. second\n",
    "> quoted\n> more\n\nplain\n\n---\n\nend\n",
]


@pytest.mark.parametrize("seed", [1, 2])
async def test_streaming_in_any_pieces_renders_like_the_whole_answer(seed: int) -> None:
    text = answer_markdown(600) + "".join(EDGE_CASES)
    whole, _ = await shown(text)
    streamed, _ = await shown(text, chunks=random_chunks(text, seed))
    assert streamed == whole


async def test_word_tokens_render_like_the_whole_answer() -> None:
    text = answer_markdown(400)
    whole, _ = await shown(text)
    streamed, _ = await shown(text, chunks=tokens(text))
    assert streamed == whole


def styles_at(strips: list[Strip], text: str) -> list[object]:
    """Rich styles of the segments holding ``text``."""
    return [segment.style for strip in strips for segment in strip if text in segment.text]


async def test_markdown_fidelity() -> None:
    markdown = (
        "# Big title\n\n## Section\n\nSome **bold**, *italic*, ~~gone~~ and `code`.\n\n"
        "- apple\n  - nested\n- pear\n\n3. third\n4. fourth\n\n"
        "```python\nx = 1\n```\n\n| Name | Value |\n|---|---|\n| alpha | 1 |\n\n> a quote\n\n---\n\nlast\n"
    )
    text, strips = await shown(markdown)
    joined = "\n".join(text)
    assert text[0].strip() == "Big title" and text[0].startswith(" ")  # h1 centred
    assert "Section" in joined and "Some bold, italic, gone and code." in joined
    assert "• apple" in joined and "▪ nested" in joined and "• pear" in joined
    assert " 3. third" in joined and " 4. fourth" in joined
    assert any(line.strip() == "x = 1" for line in text)
    assert "│ Name" in joined and "alpha" in joined and "┌" in joined
    assert "▌ a quote" in joined and "─" * 20 in joined
    assert all(style.bold for style in styles_at(strips, "bold"))
    assert all(style.italic for style in styles_at(strips, "italic"))
    assert all(style.strike for style in styles_at(strips, "gone"))
    code = styles_at(strips, "x = 1") or styles_at(strips, "x")
    assert code and all(style.bgcolor is not None for style in code)  # the fence's background


async def test_links_open_only_when_http_and_are_osc8_hyperlinks() -> None:
    markdown = "[good](https://example.com/a) [bad](javascript:alert(1)) [rel](/local) https://auto.example/x\n"
    text, strips = await shown(markdown)
    assert text[0] == "good [bad](javascript:alert(1)) rel https://auto.example/x"  # markdown-it refuses the link
    links = {segment.text: segment.style.link for strip in strips for segment in strip if segment.style}
    assert links["good"] == "https://example.com/a"
    assert not any(link and "javascript" in link for link in links.values()) and links.get("rel") is None
    assert links["https://auto.example/x"] == "https://auto.example/x"
    rendered = "".join(Strip.render(strip, App().console) for strip in strips)
    targets = [part.split("\x1b", 1)[0] for part in rendered.split("\x1b]8;id=")[1:]]
    assert [target.split(";", 1)[1] for target in targets] == ["https://example.com/a", "https://auto.example/x"]


async def test_provider_text_is_never_markup_and_html_is_shown_as_text() -> None:
    markdown = "A [bold]not markup[/bold] and [/] and <b>raw</b> tag.\n\n<div>block html</div>\n"
    text, _ = await shown(markdown)
    assert text[0] == "A [bold]not markup[/bold] and [/] and <b>raw</b> tag."
    assert "<div>block html</div>" in text


async def test_clicking_a_link_posts_link_clicked() -> None:
    app = Host()
    messages: list[AnswerView.LinkClicked] = []
    async with app.run_test(size=(WIDTH + 2, 20), message_hook=messages.append) as pilot:
        view = app.query_one(AnswerView)
        view.update("[docs](https://docs.python.org/3/)\n")
        await pilot.pause()
        await pilot.click(AnswerView, offset=(1, 0))
        await pilot.pause()
    clicked = {id(m): m for m in messages if isinstance(m, AnswerView.LinkClicked)}  # once per node it bubbles to
    assert [m.href for m in clicked.values()] == ["https://docs.python.org/3/"]


async def test_the_answer_grows_in_steps_while_it_streams_and_fits_exactly_after() -> None:
    app = Host()
    async with app.run_test(size=(WIDTH + 2, 40)) as pilot:
        view = app.query_one(AnswerView)
        view.streaming = True
        heights = set()
        for n in range(40):
            view.append(f"Paragraph {n} of a long answer.\n\n")
            view.flush()
            await pilot.pause()
            assert view.size.height >= view.text_height + 1  # room below the text, laid out ahead
            assert view.follow_line >= view.text_height
            heights.add(view.size.height)
        assert len(heights) < 20  # far fewer layouts than lines added (80)
        view.streaming = False
        await pilot.pause()
        assert view.size.height == view.text_height


async def test_selection_gives_the_text_as_shown() -> None:
    app = Host()
    async with app.run_test(size=(WIDTH + 2, 20)) as pilot:
        view = app.query_one(AnswerView)
        view.update("Hello **world**\n\n- item\n")
        await pilot.pause()
        selected = view.get_selection(Selection(None, None))
        assert selected is not None and selected[0] == "Hello world\n\n• item"


def test_only_known_languages_are_highlighted_and_only_short_blocks() -> None:
    """A fence's language comes from the answer; Pygments' chapel lexer (among others) backtracks
    exponentially on a quote and a run of backslashes (44 of them took longer than a minute)."""
    from websearch_tui.tui.common.markdown_lines import MAX_HIGHLIGHT_CHARS, _highlighted_language

    hostile = "'" + "\\" * 44
    assert _highlighted_language("chapel", hostile) == "text"
    assert _highlighted_language("tcsh {.x}", hostile) == "text"
    assert _highlighted_language("Python title=x", "print(1)") == "python"
    assert _highlighted_language("", "x") == "text"
    assert _highlighted_language("python", "x" * (MAX_HIGHLIGHT_CHARS + 1)) == "text"


async def test_a_hostile_fence_language_renders_at_once_as_plain_text() -> None:
    from tests.helpers import finishes_within

    markdown = "```chapel\n'" + "\\" * 44 + "\n```\n"
    text: list[str] = []

    def render() -> None:
        import asyncio

        text.extend(asyncio.run(shown(markdown))[0])

    assert finishes_within(render, seconds=60)  # a hang guard only: it takes a fraction of a second
    assert any("\\" * 40 in line for line in text)


@pytest.mark.parametrize(
    "markdown",
    [
        "a&#x202E;cba&#x2066; and &#x200F;marks&#x061C;\n",
        "| h |\n|---|\n| &#x202E;y |\n",
        "`&#x202E;` and <b>&#x202E;</b>\n",
    ],
    ids=["text", "table", "inline-code-and-html"],
)
async def test_character_references_to_bidi_controls_never_reach_the_screen(markdown: str) -> None:
    _, strips = await shown(markdown)
    drawn = "".join(segment.text for strip in strips for segment in strip)
    assert not set(drawn) & {"\u202e", "\u2066", "\u200f", "\u061c"}


async def test_a_huge_last_block_is_parsed_in_linear_total_work_and_shown_whole_at_the_end(monkeypatch) -> None:
    """A 100 KB paragraph streamed in 500-character pieces: every flush used to parse and draw the
    whole paragraph again (quadratic: 200 parses of 50 KB on average)."""
    from websearch_tui.tui.common.markdown_lines import MarkdownDocument

    parsed: list[int] = []
    append = MarkdownDocument.append

    def counting(self: MarkdownDocument, text: str) -> int:
        parsed.append(len(self.source) - self._tail + len(text))
        return append(self, text)

    monkeypatch.setattr(MarkdownDocument, "append", counting)
    words = " ".join(f"word{i}" for i in range(20_000))[:100_000]
    app = Host()
    async with app.run_test(size=(WIDTH + 2, 50)) as pilot:
        view = app.query_one(AnswerView)
        view.streaming = True
        await pilot.pause()
        for start in range(0, len(words), 500):
            view.append(words[start : start + 500])
            view.flush()
        assert sum(parsed) < 20 * len(words)  # about 100 times without the throttle
        view.streaming = False
        view.flush()
        await pilot.pause()
        assert view.source == words and view._document.source == words  # the end is shown whole


async def test_a_key_spelled_with_character_references_is_masked_where_it_is_drawn() -> None:
    from websearch_tui.core.errors import register_secret

    secret = "sk_live_0123456789abcdef"
    register_secret(secret)
    text, _ = await shown("The key is sk&#95;live&#x5F;0123456789abcdef, do not share.\n")
    assert "sk_live" not in "".join(text) and "***" in "".join(text)


async def test_a_link_whose_target_carries_a_key_is_not_linked() -> None:
    from websearch_tui.core.errors import register_secret

    register_secret("sk_live_0123456789abcdef")
    _, strips = await shown(
        "[docs](https://e.example/?k=sk&#95;live&#95;0123456789abcdef) and [ok](https://ok.example/)\n"
    )
    links = {segment.style.link for strip in strips for segment in strip if segment.style and segment.style.link}
    assert links == {"https://ok.example/"}


def test_appending_to_an_answer_leaves_no_reference_cycles_behind() -> None:
    """Each append parses the last block again; the trees it replaces must be freed at once, not left
    for the cyclic garbage collector (whose pauses are frames in which nothing answers)."""
    import gc

    from websearch_tui.tui.common.answer_view import markdown_parser
    from websearch_tui.tui.common.markdown_lines import MarkdownDocument

    text = answer_markdown(600)
    document = MarkdownDocument(markdown_parser)
    document.append(text[:16])  # the parser and its classes are made once
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for start in range(16, len(text), 16):
            document.append(text[start : start + 16])
        document.replace("a new answer")
        found = gc.collect()
    finally:
        if enabled:
            gc.enable()
    assert found < 10, found
    assert [block.type for block in document.blocks] == ["paragraph"]


class Restyled(App[None]):
    """An answer view inside a container whose class can change (as a pane's ``-active`` does)."""

    CSS = ".-marked { background: darkred; }"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="body"):
            yield AnswerView()


async def test_a_class_change_around_the_answer_draws_it_again_without_rendering_it_again(monkeypatch) -> None:
    from websearch_tui.tui.common.markdown_lines import BlockRenderer

    renders: list[int] = []
    original = BlockRenderer.render
    monkeypatch.setattr(
        BlockRenderer, "render", lambda self, node, width: renders.append(width) or original(self, node, width)
    )
    app = Restyled()
    async with app.run_test(size=(WIDTH + 2, 50)) as pilot:
        view = app.query_one(AnswerView)
        view.update("Use `asyncio.run`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" + answer_markdown(200))
        await pilot.pause()
        first = len(renders)
        assert first > 0
        before = text_of(view)
        for _ in range(3):
            app.query_one("#body").toggle_class("-marked")
            await pilot.pause()
        assert len(renders) == first  # restyled three times, rendered once
        app.query_one("#body").remove_class("-marked")
        await pilot.pause()
        assert text_of(view) == before
        dark = [strip for strip in lines_of(view) if "asyncio.run" in strip.text]
        app.theme = "textual-light"
        await pilot.pause()
        assert len(renders) > first  # the theme changed the palette: rendered again
        light = [strip for strip in lines_of(view) if "asyncio.run" in strip.text]
        assert text_of(view) == before
        assert dark != light  # inline code is drawn in the light theme's style


async def test_a_streaming_table_is_drawn_again_once_a_row_is_complete(monkeypatch) -> None:
    """A table costs as much to draw as a page of text: while it streams it is drawn again when a line
    of it ends, not at every piece; the text after it, and the end of the answer, show at once."""
    from websearch_tui.tui.common.markdown_lines import BlockRenderer

    tables: list[int] = []
    table = BlockRenderer._table

    def counting(self: BlockRenderer, *args: object, **kwargs: object) -> object:
        tables.append(1)
        return table(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(BlockRenderer, "_table", counting)
    rows = ["| name | value |\n", "|---|---|\n"] + [f"| row {n} | a longer value {n} |\n" for n in range(6)]
    pieces = [piece for row in rows for piece in (row[:5], row[5:11], row[11:])]
    app = Host()
    async with app.run_test(size=(WIDTH + 2, 50)) as pilot:
        view = app.query_one(AnswerView)
        view.streaming = True
        await pilot.pause()
        for piece in pieces:
            view.append(piece)
            view.flush()
            await pilot.pause()
        assert 0 < len(tables) <= len(rows)  # once per row at most, not once per piece (24)
        assert any("row 5" in line for line in view.plain_lines())
        view.append("| row 6 | half")
        view.flush()
        await pilot.pause()
        assert not any("row 6" in line for line in view.plain_lines())  # a row in progress waits
        view.append(" a row |\n\nAfter the table.")
        view.flush()
        await pilot.pause()
        assert any("After the table." in line for line in view.plain_lines())
        view.append(" More.")
        view.streaming = False
        view.flush()
        await pilot.pause()
        assert any("After the table. More." in line for line in view.plain_lines())


def drawn(view: AnswerView) -> list[str]:
    """The view's lines as the screen gets them: through Textual's style cache (kept across layouts)."""
    width, height = view.outer_size
    return [strip.text.rstrip() for strip in view.render_lines(Region(0, 0, width, height))]


async def test_text_that_arrives_while_the_answer_is_hidden_is_drawn_once_it_is_shown() -> None:
    """A pane behind a tab gets its text when shown; the first flush can come before its layout
    (no size yet), and the lines it drew before it was hidden must not be kept."""
    app = Host()
    async with app.run_test(size=(WIDTH + 2, 30)) as pilot:
        view = app.query_one(AnswerView)
        body = app.query_one(VerticalScroll)
        view.streaming = True
        view.append("".join(f"Paragraph {n}.\n\n" for n in range(5)) + "A last paragraph that goes on")
        view.flush()
        await pilot.pause()
        assert "A last paragraph that goes on" in drawn(view)
        body.display = False
        await pilot.pause()
        view.append(" and on while the answer was hidden.\n\nAnd one more paragraph.")
        body.display = True
        view.flush()  # before the layout that gives the view its size again
        await pilot.pause()
        await pilot.pause()
        text = list(view.plain_lines())
        assert drawn(view)[: len(text)] == text
        assert "And one more paragraph." in drawn(view)


async def test_a_paragraph_after_a_table_shows_while_it_streams() -> None:
    """The blank line that ends a table often comes as a piece of its own: the text after it is not a
    table row, and shows at once."""
    app = Host()
    async with app.run_test(size=(WIDTH + 2, 30)) as pilot:
        view = app.query_one(AnswerView)
        view.streaming = True
        for piece in ["| a | b |\n", "|---|---|\n", "| 1 | 2 |\n", "\n", "After the table ", "a paragraph"]:
            view.append(piece)
            view.flush()
            await pilot.pause(0)
        assert any("After the table a paragraph" in line for line in view.plain_lines())
