"""``websearch-tui history list|show|search|delete|clear``: the searches kept in the history file
(:mod:`websearch_tui.history`), listed, printed again as ``search`` printed them, found by full-text
search, or deleted. Reading never creates the file."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from websearch_tui.cli.common import UsageError, load_config, print_table, warn
from websearch_tui.cli.output import check_merged, document, emit, output_path

if TYPE_CHECKING:
    from websearch_tui.history import HistoryEntry, HistoryStore


def run(args: argparse.Namespace) -> int:
    """``history list|show|search|delete|clear``: 0 when done, 1 when ``clear`` was declined.

    Raises:
        UsageError: an unknown id, an unusable history or config file, nothing to search for.
    """
    from websearch_tui.history import HistoryError, history_path

    config = load_config(args)
    path = history_path(config.history.path)
    commands = {
        "list": _history_list,
        "show": _history_show,
        "search": _history_search,
        "delete": _history_delete,
        "clear": _history_clear,
    }
    try:
        return commands[args.history_command](args, path)
    except HistoryError as exc:
        raise UsageError(str(exc)) from None


def _history_store(path: Path) -> HistoryStore | None:
    """The history file, or ``None`` when it does not exist yet (nothing is created by reading)."""
    from websearch_tui.history import HistoryStore

    if not path.exists():
        return None
    store = HistoryStore(path)
    warn([notice] if (notice := store.take_notice()) else [])
    return store


def _history_list(args: argparse.Namespace, path: Path) -> int:
    """``history list``: the newest ``--limit`` searches."""
    store = _history_store(path)
    return _print_entries(store.entries(limit=args.limit) if store else [], args.format, path)


def _history_search(args: argparse.Namespace, path: Path) -> int:
    """``history search``: the best ``--limit`` matches of the words (only the queries without FTS5)."""
    from websearch_tui.history import HistoryError
    from websearch_tui.history.index import match_expression

    text = " ".join(args.text)
    if match_expression(text) is None:
        raise HistoryError(f"nothing to search for in {text!r}: give at least one word or number")
    store = _history_store(path)
    if store is not None and not store.full_text:
        warn(["this SQLite has no full-text search (FTS5): only the queries were searched"])
    return _print_entries(store.search(text, limit=args.limit) if store else [], args.format, path)


def _print_entries(entries: Sequence[HistoryEntry], output_format: str, path: Path) -> int:
    """``history list`` / ``search`` output: a JSON list of :meth:`HistoryEntry.to_dict`, or a table."""
    if output_format == "json":
        print(json.dumps([entry.to_dict() for entry in entries], ensure_ascii=False, indent=2))
        return 0
    if not entries:
        print(f"No searches found in the history ({path}).", file=sys.stderr)
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


def _history_show(args: argparse.Namespace, path: Path) -> int:
    """``history show ID``: the search as ``search --format`` printed it, on stdout or to ``-o``."""
    from websearch_tui.history import UnknownEntry

    check_merged(args)
    output = output_path(args.output)
    store = _history_store(path)
    if store is None:
        raise UnknownEntry(f"no search with id {args.id}: the history file {path} does not exist yet")
    emit(document(store.get(args.id).result, args.format, merged=args.merged) + "\n", output)
    if output is not None:
        print(f"Wrote search {args.id} to {output}.", file=sys.stderr)
    return 0


def _history_delete(args: argparse.Namespace, path: Path) -> int:
    """``history delete ID``."""
    from websearch_tui.history import UnknownEntry

    store = _history_store(path)
    if store is None:
        raise UnknownEntry(f"no search with id {args.id}: the history file {path} does not exist yet")
    store.delete(args.id)
    print(f"Deleted search {args.id}.")
    return 0


def _history_clear(args: argparse.Namespace, path: Path) -> int:
    """``history clear``: every search, after a yes on stdin unless ``--yes``; 1 when declined."""
    store = _history_store(path)
    count = store.count() if store else 0
    if store is None or not count:
        print(f"The history is already empty ({path}).")
        return 0
    if not args.yes:
        print(f"Delete all {count} searches in {path}? [y/N] ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline() if sys.stdin is not None else ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was deleted.", file=sys.stderr)
            return 1
    print(f"Deleted {store.clear()} searches.")
    return 0
