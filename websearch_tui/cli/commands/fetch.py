"""``websearch-tui fetch URL [--format markdown|text|json] [-o FILE]``: read one page
(:mod:`websearch_tui.reader`: the SSRF guard, ``[reader]`` limits, main-text extraction) and print it
(:mod:`websearch_tui.formats.page`). A page that cannot be read exits 1 with its reason on stderr:
``websearch-tui: error: blocked: 10.0.0.5 is a private address; add it to [reader] allow_private to
read it``."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from websearch_tui.cli.common import fail, load_config
from websearch_tui.cli.output import emit, output_path

if TYPE_CHECKING:
    from websearch_tui.core.pages import Page, ReaderSettings


def run(args: argparse.Namespace) -> int:
    """``fetch URL``: 0 when the page was read and printed, 1 when it could not be read (the reason
    on stderr).

    Raises:
        UsageError: an unusable config file or ``-o`` path.
    """
    from websearch_tui.core.pages import PageError
    from websearch_tui.formats.page import page_json, page_markdown, page_text

    output = output_path(args.output)
    settings = load_config(args).reader
    try:
        page = asyncio.run(_read(settings, args.url))
    except PageError as exc:
        return fail(exc.line, 1)
    render = {"markdown": page_markdown, "text": page_text, "json": page_json}[args.format]
    emit(render(page), output)
    return 0


async def _read(settings: ReaderSettings, url: str) -> Page:
    """``url`` read by a reader with ``settings`` (closed before returning).

    Raises:
        PageError: the page could not be read.
    """
    from websearch_tui.reader import Reader

    async with Reader(settings) as reader:
        return await reader.read(url)
