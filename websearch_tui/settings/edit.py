"""Editing ``config.toml`` in place: the user's comments, order and formatting survive every save.

:class:`ConfigEditor` holds the file as a tomlkit document. :meth:`ConfigEditor.set` validates one
value with the same rules as loading (:func:`websearch_tui.settings.config.parse_config`) and changes only
that key; :meth:`ConfigEditor.save` writes the whole document atomically (temp file + rename) after
checking that nobody changed the file since it was read. When somebody did, nothing is written
and :meth:`ConfigEditor.rebase` reloads the file and replays this session's edits on top of it,
so neither the external edit nor the user's changes are lost. Keys never go in this file.

Tables are named ``"search"``, ``"ui"``, ``"verify"``, ``"cache"``, ``"budget"`` or
``"providers.<id>"``. All methods that touch the file block on disk I/O; the TUI calls them from a
thread.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from websearch_tui.core import files
from websearch_tui.settings.config import Config, ConfigError, parse_config

_TABLES = ("search", "ui", "verify", "cache", "budget")


class ConfigChangedOnDisk(ConfigError):
    """The config file changed on disk since it was loaded; nothing was written."""


class ConfigEditor:
    """A loaded ``config.toml`` that can be changed key by key and saved without losing comments.

    Create it with :meth:`load`. ``path`` is the file; ``dirty`` is True while there are unsaved
    edits. Edits are kept as the net new value of each key and applied to the loaded text only
    when the document is rendered, so erasing a value and typing it again changes that key's value
    in place (its comment and position stay), and setting a key back to its loaded value is no edit.
    """

    def __init__(self, path: Path, text: str, fingerprint: str | None) -> None:
        self.path = path
        self._base = _parse(path, text)
        self._fingerprint = fingerprint
        self._pending: dict[tuple[str, str], Any] = {}

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ConfigEditor:
        """Read ``path`` (a missing file is an empty document).

        Raises:
            ConfigError: the file cannot be read or is not valid TOML.
        """
        file = Path(path)
        data = _read(file)
        return cls(file, data.decode("utf-8") if data is not None else "", _fingerprint(data))

    @property
    def dirty(self) -> bool:
        """True when there are edits that have not been saved."""
        return bool(self._pending)

    def text(self) -> str:
        """The document as it would be written now: the loaded text with every pending edit applied."""
        document = _parse(self.path, self._base.as_string())
        for (table, key), value in self._pending.items():
            _apply(document, table, key, value)
        return tomlkit.dumps(document)

    def get(self, table: str, key: str) -> Any:
        """The plain value of ``key`` in ``table`` (``"search"``, ``"ui"``, ``"providers.<id>"``), or ``None``."""
        if (table, key) in self._pending:
            return self._pending[(table, key)]
        return _lookup(self._base, table, key)

    def check(self, table: str, key: str, value: Any) -> str | None:
        """The one-line reason ``value`` is refused for ``table.key``, or ``None`` when it is valid.

        ``None`` and ``""`` are always valid: they remove the key (its default applies).
        """
        if _is_unset(value):
            return None
        section, _, provider_id = table.partition(".")
        if section == "providers" and provider_id:
            trial: dict[str, Any] = {"providers": {provider_id: {key: value}}}
        elif table in _TABLES:
            trial = {table: {key: value}}
        else:
            return f"unknown settings table {table!r}"
        try:
            parse_config(trial)
        except ConfigError as exc:
            return str(exc).removeprefix("config: ")
        return None

    def set(self, table: str, key: str, value: Any) -> None:
        """Set ``table.key`` to ``value``; ``None`` or ``""`` removes the key. Only this key's text changes.

        Raises:
            ConfigError: the value is refused (the message is the reason); nothing changed.
        """
        reason = self.check(table, key, value)
        if reason is not None:
            raise ConfigError(reason)
        value = None if _is_unset(value) else value
        if _lookup(self._base, table, key) == value:
            self._pending.pop((table, key), None)
        else:
            self._pending[(table, key)] = value

    def changed_on_disk(self) -> bool:
        """True when the file on disk differs from what was loaded (or last saved). Blocks on disk I/O."""
        try:
            return _fingerprint(_read(self.path)) != self._fingerprint
        except ConfigError:
            return True

    def save(self, *, overwrite: bool = False) -> Config:
        """Validate the document and write it atomically; returns the new :class:`Config`.

        The check for a change on disk and the write happen under the file's lock, so of two app
        instances saving at once the second is told the file changed (no edit is silently lost).
        An existing file keeps its permission bits; a read-only one is refused; a new one is created
        readable only by the user (0600), and its directory is created when missing. A symlinked
        file is written through the link, not over it.

        Raises:
            ConfigChangedOnDisk: the file changed since it was loaded and ``overwrite`` is False.
            ConfigError: the document is not valid (e.g. an invalid value typed in the file), the
                file is read-only, a symbolic link loop, locked by another save for too long, or
                cannot be written (the message names the path and what to do; nothing is changed).
        """
        text = self.text()
        config = parse_config(tomlkit.parse(text).unwrap(), self.path)
        data = text.encode("utf-8")
        target = _target(self.path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with files.locked(target):
                if not overwrite and self.changed_on_disk():
                    raise ConfigChangedOnDisk(
                        f"{self.path}: the file changed on disk since it was opened; nothing was written. "
                        "Reload to keep both your changes and the file's, or overwrite the file."
                    )
                files.write_atomically(target, data, mode=_mode_to_keep(target))
        except OSError as exc:
            raise ConfigError(f"{target}: cannot write the file ({exc.strerror or exc}); nothing was changed") from None
        self._base, self._fingerprint, self._pending = _parse(self.path, text), _fingerprint(data), {}
        return config

    def rebase(self) -> list[str]:
        """Reload the file from disk and keep this session's unsaved edits on top of it.

        Returns the reasons of edits that no longer apply (normally none); the others stay
        pending, so a following :meth:`save` keeps the external change and the user's changes.

        Raises:
            ConfigError: the file on disk can no longer be read or parsed (the edits are kept).
        """
        fresh = ConfigEditor.load(self.path)
        pending, refused = self._pending, []
        self._base, self._fingerprint, self._pending = fresh._base, fresh._fingerprint, {}
        for (table, key), value in pending.items():
            try:
                self.set(table, key, value)
            except ConfigError as exc:
                refused.append(f"{table}.{key}: {exc}")
        return refused


def _parse(path: Path, text: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _lookup(document: Any, table: str, key: str) -> Any:
    container = document
    for part in table.split("."):
        if not hasattr(container, "get") or part not in container:
            return None
        container = container[part]
    if not hasattr(container, "get") or key not in container:
        return None
    value = container[key]
    return value.unwrap() if hasattr(value, "unwrap") else value


def _apply(document: Any, table: str, key: str, value: Any) -> None:
    """Set (or, for ``None``, remove) ``table.key`` in a tomlkit ``document``, creating tables as needed.

    A table left with nothing in it (no key, no comment) by a removal is removed too.
    """
    parts = table.split(".")
    parents = [document]
    for depth, part in enumerate(parts):
        if part not in parents[-1]:
            if value is None:
                return
            parents[-1][part] = tomlkit.table(is_super_table=depth < len(parts) - 1)
        parents.append(parents[-1][part])
    container = parents[-1]
    if value is not None:
        container[key] = value
    elif key in container:
        del container[key]
        if not container.as_string().strip():
            del parents[-2][parts[-1]]


def _is_unset(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the file ({exc.strerror or exc})") from None


def _fingerprint(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _target(path: Path) -> Path:
    """The file a save of ``path`` writes: ``path`` itself, or what its symbolic link points to.

    Raises:
        ConfigError: the link is a loop.
    """
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:  # RuntimeError: a symlink loop (Python < 3.13)
        raise ConfigError(f"{path}: cannot follow the path ({exc}); point it at a real file") from None


def _mode_to_keep(path: Path) -> int:
    """The permission bits the saved file gets: an existing file's own, a new file 0600.

    Raises:
        ConfigError: the existing file is read-only (its owner may not write it).
    """
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        return 0o600
    if not mode & stat.S_IWUSR:
        raise ConfigError(
            f"{path}: the file is read-only (mode {mode:04o}); nothing was written. "
            f"Make it writable (chmod u+w {path}) to save from Settings."
        )
    return mode
