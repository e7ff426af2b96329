"""The search controls the TUI remembers across restarts: provider selection, mode, recency, count.

The rule: the TUI starts with the controls last used *with the same config file*; when nothing is
remembered for that file (or none of its remembered providers is still enabled), the config's
``[search]`` defaults apply. So a session against a test config never decides what the real one
starts with. The CLI always uses the config.

They are kept as JSON in ``state.json`` in the platformdirs user state dir
(``~/.local/state/websearch-tui/`` on Linux); ``$WEBSEARCH_TUI_STATE`` names another file. One file
holds every config file's controls, keyed by the config file's absolute path (links resolved)::

    {"version": 2, "configs": {"/home/me/.config/websearch-tui/config.toml":
        {"providers": ["ddgs", "exa"], "mode": "compare", "recency": null, "max_results": 10}}}

A file of an earlier version holds one set of controls for every config: it is read as the
controls of the config used when none is named (``$WEBSEARCH_TUI_CONFIG``, else the default file),
and the next save rewrites it in this shape. A missing or unreadable file means "nothing
remembered"; a failed save is logged and forgotten. Saves take the file's lock, so two instances
(on different configs) do not lose each other's controls. Nothing here is a secret or a search:
only which controls were set.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.files import locked, write_atomically
from websearch_tui.core.models import MAX_RESULTS_LIMIT, MODES, RECENCIES
from websearch_tui.settings.config import Config, config_path

log = logging.getLogger(__name__)

STATE_ENV = "WEBSEARCH_TUI_STATE"
STATE_VERSION = 2
"""The shape :func:`save_controls` writes: controls per config file."""
MAX_CONFIGS = 50
"""Config files remembered at most; a save beyond that forgets the ones used longest ago."""


@dataclass(frozen=True)
class Controls:
    """The search controls: selected provider ids (in the order shown), mode, recency (``None``: any
    time) and sources per provider (1-20)."""

    providers: tuple[str, ...]
    mode: str
    recency: str | None
    max_results: int


def initial_controls(config: Config, remembered: Controls | None) -> Controls:
    """The controls a search screen starts with: ``remembered`` (its providers that are still known
    and enabled in ``config``), else ``config``'s ``[search]`` defaults."""
    if remembered is not None:
        kept = tuple(pid for pid in remembered.providers if pid in SPECS and config.is_enabled(pid))
        if kept:
            return dataclasses.replace(remembered, providers=kept)
    search = config.search
    return Controls(tuple(config.default_selection()), search.mode, search.recency, search.max_results)


def state_path() -> Path:
    """``$WEBSEARCH_TUI_STATE``, else ``state.json`` in the user state directory."""
    env = os.environ.get(STATE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_state_dir("websearch-tui", appauthor=False)) / "state.json"


def config_key(config_file: Path | None = None) -> str:
    """Which entry of the state file holds the controls of ``config_file``: its absolute path, links
    resolved (``None``: the config used when none is named, :func:`~websearch_tui.settings.config.config_path`)."""
    file = (config_file if config_file is not None else config_path()).expanduser()
    try:
        return str(file.resolve())
    except (OSError, RuntimeError):  # a link loop: the absolute path will do
        return str(file.absolute())


def load_controls(path: Path | None = None, *, config_file: Path | None = None) -> Controls | None:
    """The controls remembered for ``config_file`` (``None``: the config used when none is named),
    or ``None`` when there are none: no file, no entry for this config, or a file or entry that is
    not what :func:`save_controls` writes (logged and ignored).

    Args:
        path: the state file (``None``: :func:`state_path`).
        config_file: the config file the app runs with (``Config.path``).
    """
    file = path or state_path()
    configs = _read_configs(file)
    if configs is None:
        return None
    key = config_key(config_file)
    if key not in configs:
        return None
    controls = _parse(configs[key])
    if controls is None:
        log.warning("ignoring the search controls remembered for %s in %s: not a controls object", key, file)
    return controls


def _read_configs(file: Path) -> dict[str, Any] | None:
    """The state file's entries by config key (an earlier version's single entry under the key of
    the config used when none is named); ``None`` when the file is missing or not a state file
    (logged, except a missing file)."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("ignoring the remembered search controls in %s: %s", file, exc)
        return None
    if isinstance(data, dict) and isinstance(data.get("configs"), dict):
        return {str(key): value for key, value in data["configs"].items()}
    if isinstance(data, dict) and "providers" in data:  # version 1: one set of controls for every config
        return {config_key(None): data}
    log.warning("ignoring the remembered search controls in %s: not a state file", file)
    return None


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


def save_controls(controls: Controls, path: Path | None = None, *, config_file: Path | None = None) -> None:
    """Remember ``controls`` for ``config_file`` (``None``: the config used when none is named),
    keeping the other config files' entries (at most :data:`MAX_CONFIGS`, the most recently saved).

    Atomic and under the state file's lock; blocking: call from a thread. Never raises: a failure
    is logged.

    Args:
        controls: the controls on screen.
        path: the state file (``None``: :func:`state_path`).
        config_file: the config file the app runs with (``Config.path``).
    """
    file = path or state_path()
    entry = {**asdict(controls), "providers": list(controls.providers)}
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        with locked(file):
            configs = _read_configs(file) or {}
            key = config_key(config_file)
            configs.pop(key, None)
            configs[key] = entry  # the newest last: the oldest are forgotten first
            kept = dict(list(configs.items())[-MAX_CONFIGS:])
            data = {"version": STATE_VERSION, "configs": kept}
            write_atomically(file, (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=None)
    except OSError as exc:
        log.warning("could not remember the search controls in %s: %s", file, exc)
