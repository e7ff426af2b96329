"""The search controls the TUI remembers across restarts: provider selection, mode, recency, count.

They are kept as JSON in ``state.json`` in the platformdirs user state dir
(``~/.local/state/websearch-tui/`` on Linux); ``$WEBSEARCH_TUI_STATE`` names another file. A missing
or unreadable file means "nothing remembered" (the config's defaults apply); a failed save is
logged and forgotten. Nothing here is a secret or a search: only which controls were set.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from websearch_tui.core.models import MAX_RESULTS_LIMIT, MODES, RECENCIES
from websearch_tui.files import write_atomically

log = logging.getLogger(__name__)

STATE_ENV = "WEBSEARCH_TUI_STATE"


@dataclass(frozen=True)
class Controls:
    """The search controls: selected provider ids (in the order shown), mode, recency (``None``: any
    time) and sources per provider (1-20)."""

    providers: tuple[str, ...]
    mode: str
    recency: str | None
    max_results: int


def state_path() -> Path:
    """``$WEBSEARCH_TUI_STATE``, else ``state.json`` in the user state directory."""
    env = os.environ.get(STATE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_state_dir("websearch-tui", appauthor=False)) / "state.json"


def load_controls(path: Path | None = None) -> Controls | None:
    """The remembered controls, or ``None`` when there are none (no file, or a file that is not what
    :func:`save_controls` writes: logged and ignored)."""
    file = path or state_path()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("ignoring the remembered search controls in %s: %s", file, exc)
        return None
    controls = _parse(data)
    if controls is None:
        log.warning("ignoring the remembered search controls in %s: not a controls object", file)
    return controls


def _parse(data: Any) -> Controls | None:
    if not isinstance(data, dict):
        return None
    providers, mode, recency, count = (data.get(k) for k in ("providers", "mode", "recency", "max_results"))
    if not isinstance(providers, list) or not all(isinstance(p, str) for p in providers):
        return None
    if not isinstance(mode, str) or mode not in MODES or (recency is not None and recency not in RECENCIES):
        return None
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_RESULTS_LIMIT:
        return None
    return Controls(tuple(providers), mode, recency, count)


def save_controls(controls: Controls, path: Path | None = None) -> None:
    """Remember ``controls`` (atomically; blocking: call from a thread). Never raises: a failure is logged."""
    file = path or state_path()
    data = {**asdict(controls), "providers": list(controls.providers)}
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(file, (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=None, locked=False)
    except OSError as exc:
        log.warning("could not remember the search controls in %s: %s", file, exc)
