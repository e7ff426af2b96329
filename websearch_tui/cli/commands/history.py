"""``websearch-tui history list|show|search|delete|clear``: the searches kept in the history file
(:mod:`websearch_tui.history`, read through :class:`~websearch_tui.session.HistoryAccess`), listed,
printed again as ``search`` printed them, found by full-text search, or deleted. Reading never
creates the file."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from websearch_tui.cli.common import UsageError, load_config, print_table, warn
from websearch_tui.cli.output import check_merged, document, emit, output_path
from websearch_tui.core.text import single_line

if TYPE_CHECKING:
    from websearch_tui.history import HistoryEntry
    from websearch_tui.session import HistoryAccess


def run(args: argparse.Namespace) -> int:
    """``history list|show|search|delete|clear``: 0 when done, 1 when ``clear`` was declined.

    Raises:
        UsageError: an unknown id, an unusable history or config file, nothing to search for.
    """
    from websearch_tui.history import HistoryError, history_path
    from websearch_tui.session import HistoryAccess

    config = load_config(args)
    history = HistoryAccess(history_path(config.history.path))  # readable also while recording is off
    commands = {
        "list": _history_list,
        "show": _history_show,
        "search": _history_search,
        "delete": _history_delete,
        "clear": _history_clear,
    }
    try:
        history.open()  # a damaged file is moved aside now, and said before any output
        _say_notice(history)
        return commands[args.history_command](args, history)
    except HistoryError as exc:
        raise UsageError(str(exc)) from None
    finally:
        _say_notice(history)  # what the command had to repair, also when it failed
        history.close()


def _say_notice(history: HistoryAccess) -> None:
    """Warn on stderr about what the history had to repair or set aside since the last call (a
    rebuilt full-text index, a damaged file moved aside); nothing when there was nothing."""
    warn([notice] if (notice := history.take_notice()) else [])


def _history_list(args: argparse.Namespace, history: HistoryAccess) -> int:
    """``history list``: the newest ``--limit`` searches."""
    entries = history.entries(limit=args.limit)
    _say_notice(history)
    return _print_entries(entries, args.format, history.path)


def _history_search(args: argparse.Namespace, history: HistoryAccess) -> int:
    """``history search``: the best ``--limit`` matches of the words (only the queries without FTS5)."""
    from websearch_tui.history.index import MAX_TERMS, terms_left_out

    text = " ".join(args.text)
    entries = history.search(text, limit=args.limit)
    _say_notice(history)
    if left_out := terms_left_out(text):
        warn([f"only the first {MAX_TERMS} words were searched; {left_out} more were left out"])
    if not history.full_text:
        warn(["this SQLite has no full-text search (FTS5): only the queries were searched"])
    return _print_entries(entries, args.format, history.path)


def _print_entries(entries: Sequence[HistoryEntry], output_format: str, path: Path) -> int:
    """``history list`` / ``search`` output: a JSON list of :meth:`HistoryEntry.to_dict`, or a table."""
    if output_format == "json":
        print(json.dumps([entry.to_dict() for entry in entries], ensure_ascii=False, indent=2))
        return 0
    if not entries:
        print(single_line(f"No searches found in the history ({path})."), file=sys.stderr)
        return 0
    rows = [["ID", "WHEN", "QUERY", "PROVIDERS", "OUTCOMES"]]
    rows += [_entry_row(entry) for entry in entries]
    print_table(rows)
    return 0


HISTORY_PROVIDER_CELLS = 34
"""The width of ``history list``'s PROVIDERS column, as on the TUI's History screen: the ids that
fit, then ``+N`` for the rest (:func:`~websearch_tui.core.columns.fit_labels`)."""


def _entry_row(entry: HistoryEntry) -> list[str]:
    """A table row: id, local start time, the query on one line (at most 60 characters), the provider
    ids that fit :data:`HISTORY_PROVIDER_CELLS` cells (then ``+N``) and the non-zero status counts."""
    from websearch_tui.core.columns import fit_labels
    from websearch_tui.core.text import truncate

    counts = ", ".join(f"{count} {status.value}" for status, count in entry.counts().items() if count)
    return [
        str(entry.id),
        entry.created_at.astimezone().strftime("%Y-%m-%d %H:%M"),
        truncate(" ".join(entry.query.split()), 60),
        fit_labels(entry.providers, HISTORY_PROVIDER_CELLS),
        counts,
    ]


def _history_show(args: argparse.Namespace, history: HistoryAccess) -> int:
    """``history show ID``: the search as ``search --format`` printed it, on stdout or to ``-o``."""
    check_merged(args)
    output = output_path(args.output)
    stored = history.get(args.id)
    _say_notice(history)
    emit(document(stored.result, args.format, merged=args.merged) + "\n", output)
    if output is not None:
        print(single_line(f"Wrote search {args.id} to {output}."), file=sys.stderr)
    return 0


def _history_delete(args: argparse.Namespace, history: HistoryAccess) -> int:
    """``history delete ID``."""
    history.delete(args.id)
    print(f"Deleted search {args.id}.")
    return 0


def _history_clear(args: argparse.Namespace, history: HistoryAccess) -> int:
    """``history clear``: every search, after a yes on stdin unless ``--yes``; 1 when declined."""
    path, count = history.path, history.count()
    if not count:
        print(single_line(f"The history is already empty ({path})."))
        return 0
    if not args.yes:
        print(single_line(f"Delete all {count} searches in {path}? [y/N] "), end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline() if sys.stdin is not None else ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was deleted.", file=sys.stderr)
            return 1
    print(f"Deleted {history.clear()} searches.")
    return 0
