"""Markdown as terminal lines: the incremental document and the block renderer behind the answer view.

:class:`MarkdownDocument` keeps an answer's source and its top-level blocks (markdown-it
:class:`~markdown_it.tree.SyntaxTreeNode` trees). Appending re-parses only from the start of the last
block (everything before it is final: a later line cannot reopen a block that a blank line or a new
block closed), so the cost of an append is the size of the last block plus the new text, not the
size of the answer.

:class:`BlockRenderer` turns one block into :class:`~textual.content.Content` lines of a given width
in the look of Textual's ``Markdown`` widget: headings, paragraphs with emphasis, inline code and
links, bullet and numbered lists (nested), block quotes, fenced code (syntax highlighted, long lines
folded), tables (Rich's table layout), rules. Provider text is never parsed as markup: it only ever
becomes the text of a ``Content``. Raw HTML is shown as text. Links become clickable (and OSC 8
hyperlinks) only when :func:`~websearch_tui.core.text.safe_url` accepts their target; other links keep
their text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.content import Content, Span
from textual.style import Style

from websearch_tui.core.errors import redact
from websearch_tui.core.text import safe_url, sanitize

if TYPE_CHECKING:  # imported when first needed: none of them is needed for the first paint
    from markdown_it import MarkdownIt
    from markdown_it.tree import SyntaxTreeNode
    from rich.console import Console
    from rich.segment import Segment
    from rich.text import Text

BULLETS = ("• ", "▪ ", "‣ ", "⭑ ", "◦ ")
"""Bullet symbols by list depth (Textual's ``Markdown.BULLETS``)."""
HIGHLIGHTED_LANGUAGES = frozenset(
    "bash c c++ cpp cs csharp css diff docker dockerfile go golang graphql h haskell html ini java javascript "
    "js json jsx kotlin lua make makefile markdown md patch perl php powershell ps1 py python python3 r rb "
    "ruby rs rust scala scss sh shell sql swift toml ts tsx typescript xml yaml yml zsh".split()
)
"""Fence languages that get syntax highlighting (common ones whose lexers stay linear); any other is
shown as plain text."""
MAX_HIGHLIGHT_CHARS = 10_000
"""A longer fenced block is shown plain: it is highlighted again at every flush while it streams."""
HEADING_MARGINS = {1: (2, 1), 2: (2, 1), 3: (1, 1), 4: (1, 1), 5: (1, 1), 6: (1, 1)}
"""Blank lines (above, below) each heading level keeps from its neighbours (Textual's CSS)."""
FENCE_PADDING = 2
"""Columns of padding either side of fenced code."""
QUOTE_BAR = "▌"
"""The left border of a block quote."""
_SPACES = re.compile(r"\s+")


class MarkdownDocument:
    """An answer's Markdown source and its top-level blocks, parsed incrementally.

    Args:
        parser: returns the markdown-it parser (shared; parsing keeps no state in it), called on
            the first append.
    """

    def __init__(self, parser: Callable[[], MarkdownIt]) -> None:
        self._parser = parser
        self.source = ""
        """The whole source so far."""
        self.blocks: list[SyntaxTreeNode] = []
        """Top-level blocks, in order; every one but the last is final."""
        self._tail = 0
        """Offset in ``source`` where the last block starts: appends re-parse from here."""

    def append(self, text: str) -> int:
        """Add ``text`` to the source; the index of the first block that changed (``len(blocks)``
        before the call at the earliest: earlier blocks never change)."""
        if not text:
            return len(self.blocks)
        from markdown_it.tree import SyntaxTreeNode

        self.source += text
        first = max(0, len(self.blocks) - 1)
        tail = self.source[self._tail :]
        nodes = SyntaxTreeNode(self._parser().parse(tail)).children
        for node in nodes:
            node.parent = None  # the parse's root goes now, not at the next garbage collection
        _release(self.blocks[first:])
        self.blocks[first:] = nodes
        if nodes and nodes[-1].map is not None:
            self._tail += _line_offset(tail, nodes[-1].map[0])
        return first

    @property
    def tail_length(self) -> int:
        """Characters in the last block (what the next :meth:`append` parses again)."""
        return len(self.source) - self._tail

    def replace(self, text: str) -> None:
        """Make ``text`` the whole source."""
        _release(self.blocks)
        self.source = ""
        self.blocks = []
        self._tail = 0
        self.append(text)


def _release(blocks: Iterable[SyntaxTreeNode]) -> None:
    """Unlink every node of ``blocks`` (no longer shown) from its parent, so the trees are freed at
    once instead of by the cyclic garbage collector: re-parsing a streaming answer's last block
    several times a second in six panes left some 8,000 objects a second in cycles, and collecting
    them took 40-90 ms (a full collection 300 ms), each a frame during which nothing answered."""
    stack = list(blocks)
    while stack:
        node = stack.pop()
        node.parent = None
        stack.extend(node.children)


def _line_offset(text: str, line: int) -> int:
    """Offset of the start of line ``line`` (0-based) in ``text``."""
    offset = 0
    for _ in range(line):
        offset = text.index("\n", offset) + 1
    return offset


@dataclass(frozen=True)
class Palette:
    """The styles a render uses, one per element (resolved from the view's component classes).

    ``headings`` holds h1 to h6. ``ansi`` and ``dark`` choose Textual's highlight theme for fenced
    code (as its Markdown widget does); ``console`` lays out tables.
    """

    headings: tuple[Style, ...]
    em: Style
    strong: Style
    strike: Style
    code_inline: Style
    link: Style
    bullet: Style
    quote: Style
    quote_bar: Style
    fence: Style
    rule: Style
    table_header: Style
    table_border: Style
    ansi: bool
    dark: bool
    console: Console


@dataclass
class RenderedBlock:
    """One block as lines, with the blank lines it keeps from its neighbours (``top``, ``bottom``)."""

    lines: list[Content]
    top: int = 0
    bottom: int = 0


@dataclass
class _Inline:
    """Text and spans of one inline run being built."""

    parts: list[str] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    length: int = 0

    def add(self, text: str, style: Style | None = None) -> None:
        """Append ``text`` under ``style``. markdown-it decodes character references (``&#x202E;``,
        ``&#x3164;``, ``&#95;``) and backslash escapes after the reducer cleaned the source, so the text
        is redacted again here, and sanitised again unless it is printable ASCII (two C-speed checks:
        the usual English text skips the second pass)."""
        if not (text.isascii() and text.isprintable()):
            text = sanitize(text)
        text = redact(text)
        if not text:
            return
        if style is not None:
            self.spans.append(Span(self.length, self.length + len(text), style))
        self.parts.append(text)
        self.length += len(text)

    def content(self) -> Content:
        return Content("".join(self.parts), spans=self.spans)


class BlockRenderer:
    """Renders top-level Markdown blocks to lines of at most a given width.

    Args:
        palette: the styles to use.
    """

    def __init__(self, palette: Palette) -> None:
        self.palette = palette
        self._blocks: dict[str, Callable[[SyntaxTreeNode, int, int], RenderedBlock]] = {
            "paragraph": self._paragraph,
            "heading": self._heading,
            "hr": self._rule,
            "bullet_list": self._list,
            "ordered_list": self._list,
            "blockquote": self._quote,
            "fence": self._code,
            "code_block": self._code,
            "table": self._table,
        }

    def render(self, node: SyntaxTreeNode, width: int) -> RenderedBlock:
        """``node`` (a top-level block) as lines of at most ``width`` cells."""
        return self._block(node, max(width, 4), 0)

    # --- blocks ------------------------------------------------------------------------

    def _block(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        """Any block; ``depth`` is 0 at the top level and grows inside lists and quotes."""
        render = self._blocks.get(node.type)
        if render is not None:
            return render(node, width, depth)
        return self._literal(node, width, depth)  # html_block and anything unknown: its text, verbatim

    def _stack(self, nodes: Iterable[SyntaxTreeNode], width: int, depth: int) -> list[Content]:
        """Blocks one under the other, with the larger of the two margins between neighbours."""
        lines: list[Content] = []
        previous: RenderedBlock | None = None
        for node in nodes:
            block = self._block(node, width, depth)
            if previous is not None:
                lines.extend([Content()] * max(previous.bottom, block.top))
            lines.extend(block.lines)
            previous = block
        return lines

    def _paragraph(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        content = self._inline_of(node)
        return RenderedBlock(content.wrap(width), bottom=0 if depth else 1)

    def _literal(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        return RenderedBlock(Content(sanitize(node.content).rstrip("\n")).wrap(width), bottom=0 if depth else 1)

    def _heading(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        level = min(max(int(node.tag[1:] or 1), 1), 6)
        content = self._inline_of(node).stylize_before(self.palette.headings[level - 1])
        lines = content.wrap(width)
        if level == 1:
            lines = [line.center(width) for line in lines]
        return RenderedBlock(lines, *HEADING_MARGINS[level])

    def _rule(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        return RenderedBlock([Content.styled("─" * width, self.palette.rule)], 1, 1)

    def _list(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        ordered = node.type == "ordered_list"
        items = [child for child in node.children if child.type == "list_item"]
        if ordered:
            start = int(str(node.attrs.get("start", 1)))
            labels = [f"{number}. " for number in range(start, start + len(items))]
            size = max((len(label) for label in labels), default=0) + 1
            labels = [label.rjust(size) for label in labels]
        else:
            nested = sum(1 for _ in _list_ancestors(node))
            labels = [BULLETS[nested % len(BULLETS)]] * len(items)
        lines: list[Content] = []
        for label, item in zip(labels, items, strict=True):
            inner = max(width - len(label) - 1, 4)  # Textual's list items keep one column on the right
            body = self._stack(item.children, inner, depth + 1) or [Content()]
            bullet = Content.styled(label, self.palette.bullet)
            indent = Content(" " * len(label))
            lines.extend((bullet if n == 0 else indent) + line for n, line in enumerate(body))
        return RenderedBlock(lines, bottom=0 if depth else 1)

    def _quote(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        inner = max(width - 3, 4)
        bar = Content.styled(QUOTE_BAR, self.palette.quote_bar)
        lines = [
            (bar + " " + line.pad_right(inner - line.cell_length) + " ").stylize_before(self.palette.quote)
            for line in self._stack(node.children, inner, depth + 1) or [Content()]
        ]
        return RenderedBlock(lines, 1, 1)

    def _code(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        from textual import highlight

        palette = self.palette
        theme = highlight.HighlightTheme
        if palette.ansi:
            theme = highlight.ANSIDarkHighlightTheme if palette.dark else highlight.ANSILightHighlightTheme
        source = node.content.rstrip("\n")
        language = _highlighted_language(node.info, source)
        code = highlight.highlight(source, language=language, theme=theme)
        inner = max(width - 2 * FENCE_PADDING, 4)
        pad = Content(" " * FENCE_PADDING)
        blank = Content(" " * (inner + 2 * FENCE_PADDING))
        lines = [blank]
        for source_line in code.split("\n", allow_blank=True):
            for piece in source_line.expand_tabs(4).fold(inner) if source_line else [Content()]:
                lines.append(pad + piece.pad_right(inner - piece.cell_length) + pad)
        lines.append(blank)
        return RenderedBlock([line.stylize_before(self.palette.fence) for line in lines], 1, 1)

    def _table(self, node: SyntaxTreeNode, width: int, depth: int) -> RenderedBlock:
        from rich import box
        from rich.table import Table
        from rich.text import Text

        palette = self.palette
        table = Table(
            box=box.SQUARE,
            show_lines=True,
            border_style=palette.table_border.rich_style,
            header_style=palette.table_header.rich_style,
            padding=(0, 1),
        )
        rows = [row for row in _descendants(node) if row.type == "tr"]
        header, body = (rows[0], rows[1:]) if rows else (None, [])
        for cell in header.children if header is not None else []:
            table.add_column(_rich_text(self._inline_of(cell)), overflow="fold")
        columns = len(table.columns)
        for row in body:
            cells = [_rich_text(self._inline_of(cell)) for cell in row.children[:columns]]
            table.add_row(*cells, *[Text()] * (columns - len(cells)))
        options = palette.console.options.update(width=width, max_width=width, height=None)
        rendered = palette.console.render_lines(table, options, pad=False, new_lines=False)
        return RenderedBlock([_content_of(line) for line in rendered], bottom=0 if depth else 1)

    # --- inline ------------------------------------------------------------------------

    def _inline_of(self, node: SyntaxTreeNode) -> Content:
        """The inline content of a paragraph, heading or table cell (empty if it has none)."""
        run = _Inline()
        for child in node.children:
            if child.type == "inline":
                self._inline(child.children, run, [])
        return run.content()

    def _inline(self, nodes: Sequence[SyntaxTreeNode], run: _Inline, styles: list[Style]) -> None:
        """Append ``nodes`` to ``run`` under ``styles`` (outermost first)."""
        palette = self.palette
        style = Style.combine(styles) if styles else None
        for node in nodes:
            kind = node.type
            if kind == "text":
                run.add(_SPACES.sub(" ", node.content), style)
            elif kind == "softbreak":
                run.add(" ", style)
            elif kind == "hardbreak":
                run.add("\n", style)
            elif kind == "code_inline":
                run.add(node.content, Style.combine([*styles, palette.code_inline]))
            elif kind == "html_inline":
                run.add(node.content, style)  # raw HTML is shown as text
            elif kind in ("em", "strong", "s"):
                emphasis = {"em": palette.em, "strong": palette.strong, "s": palette.strike}[kind]
                self._inline(node.children, run, [*styles, emphasis])
            elif kind == "link":
                self._inline(node.children, run, [*styles, *_link_styles(palette.link, node.attrs.get("href"))])
            elif kind == "image":
                alt = "".join(child.content for child in node.children) or str(node.attrs.get("alt") or "")
                link = _link_styles(palette.link, node.attrs.get("src"))
                run.add("🖼  " + (f"({alt})" if alt else ""), Style.combine([*styles, *link]))
            elif node.children:
                self._inline(node.children, run, styles)
            else:
                run.add(node.content, style)


def _highlighted_language(info: str, source: str) -> str:
    """The language a fenced block is highlighted as: its info word when it is one of
    :data:`HIGHLIGHTED_LANGUAGES` and the block is at most :data:`MAX_HIGHLIGHT_CHARS` long, else
    ``"text"`` (plain). The word comes from the answer: some Pygments lexers backtrack exponentially
    on a few dozen hostile characters, and highlighting runs on the event loop at every flush."""
    words = info.split()
    language = words[0].lower() if words else "text"
    if language not in HIGHLIGHTED_LANGUAGES or len(source) > MAX_HIGHLIGHT_CHARS:
        return "text"
    return language


def _link_styles(link: Style, href: object) -> list[Style]:
    """The styles of a link to ``href``: clickable and an OSC 8 hyperlink when it is http(s),
    else none (the text stays, unlinked)."""
    url = safe_url(href)
    if url is None or redact(url) != url:  # not http(s), or it carries a key (decoded from &#95; ...)
        return []
    return [link, Style(link=url), Style.from_meta({"@click": f"link({url!r})"})]


def _list_ancestors(node: SyntaxTreeNode) -> Iterable[SyntaxTreeNode]:
    """The bullet lists ``node`` sits in (for the bullet symbol of nested lists)."""
    parent = node.parent
    while parent is not None:
        if parent.type == "bullet_list":
            yield parent
        parent = parent.parent


def _descendants(node: SyntaxTreeNode) -> Iterable[SyntaxTreeNode]:
    """Every node below ``node``, depth first."""
    for child in node.children:
        yield child
        yield from _descendants(child)


def _rich_text(content: Content) -> Text:
    """``content`` as Rich text (for Rich's table layout)."""
    from rich.text import Span as RichSpan
    from rich.text import Text

    spans = [RichSpan(s.start, s.end, s.style.rich_style) for s in content.spans if isinstance(s.style, Style)]
    return Text(content.plain, spans=spans)


def _content_of(segments: Sequence[Segment]) -> Content:
    """One line of Rich segments as content."""
    return Content.assemble(
        *((text, Style.from_rich_style(style) if style is not None else "") for text, style, _ in segments)
    )
