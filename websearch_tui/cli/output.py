"""Where and how a search is printed, shared by ``search`` and ``history show``: the ``-o FILE``
checked before anything runs, a document in one of the ``--format`` choices, and stdout or one
atomic write of the file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from websearch_tui.cli.common import UsageError

if TYPE_CHECKING:
    from websearch_tui.core.results import SearchResult


def check_merged(args: argparse.Namespace) -> None:
    """Refuse ``--merged`` without ``--format llm``.

    Raises:
        UsageError: ``args.merged`` is set and ``args.format`` is not ``llm``.
    """
    if args.merged and args.format != "llm":
        raise UsageError("--merged goes with --format llm (json and markdown always include the merged sources)")


def output_path(value: str | None) -> Path | None:
    """The file ``-o`` names, checked before the search runs (``None``: stdout; ``-`` means stdout
    too), as :func:`~websearch_tui.core.files.output_target` gives it: a FIFO or a character device
    (``/dev/stdout``, ``/dev/null``) as named, to be written in place; otherwise with its symbolic
    links followed, so their target is what gets replaced.

    Raises:
        UsageError: the path is a directory, a block device or a socket, its directory does not
            exist, or it cannot be written there.
    """
    from websearch_tui.core.files import WRITABLE_SPECIAL, output_target, special_file

    if value is None or value == "-":
        return None
    path = output_target(Path(value))
    kind = special_file(path)
    if kind is not None and kind not in WRITABLE_SPECIAL:
        raise UsageError(f"--output {value}: that is a {kind}; name a file, a FIFO or a terminal")
    if path.is_dir():
        raise UsageError(f"--output {value}: that is a directory; name a file")
    if kind is None and not path.parent.is_dir():
        raise UsageError(f"--output {value}: the directory {path.parent} does not exist; create it or name another")
    if (kind is None and not os.access(path.parent, os.W_OK | os.X_OK)) or (
        path.exists() and not os.access(path, os.W_OK)
    ):
        raise UsageError(f"--output {value}: no permission to write {path}")
    return path


def emit(text: str, output: Path | None) -> None:
    """``text`` on stdout, or as the whole new content of ``output`` (UTF-8,
    :func:`~websearch_tui.core.files.write_output`: a file replaced atomically, a FIFO or a device
    written in place).

    Raises:
        OSError: the file could not be written (``main`` reports it; a regular file is unchanged).
    """
    if output is None:
        sys.stdout.write(text)
        return
    from websearch_tui.core.files import special_file, write_output

    try:
        write_output(output, text.encode("utf-8"))
    except OSError as exc:
        unchanged = "" if special_file(output) else "; nothing was written"
        raise OSError(exc.errno, f"{output}: {exc.strerror or exc}{unchanged}") from None


def document(result: SearchResult, output_format: str, *, merged: bool = False) -> str:
    """What ``search --format output_format`` prints on stdout for ``result`` (``history show`` too);
    ``output_format`` is one of :data:`~websearch_tui.cli.parser.FORMATS`, ``merged`` is ``--merged``."""
    if output_format == "json":  # each format's module imported alone (json needs none of the others)
        from websearch_tui.formats import json_document

        return json_document.to_json(result)
    if output_format == "llm":
        from websearch_tui.formats import llm

        blocks = llm.to_llm_merged(result) if merged else llm.to_llm_document(result)
        return blocks or f"Error: {result.summary().error}"
    if output_format == "markdown":
        from websearch_tui.formats import markdown

        return markdown.to_markdown(result)
    from websearch_tui.formats import text

    return text.to_text(result)
