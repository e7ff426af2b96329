"""Saving the app's own files safely: ``config.toml`` (settings) and ``keys.toml`` (the opt-in key file).

- :func:`locked` holds an exclusive, cross-process lock (``filelock``) for one file, so two app
  instances saving at the same instant take turns instead of one silently losing its edit;
- :func:`write_atomically` replaces a file in one step through a temporary file that is never left
  behind: it has a fixed name beside the target, is created fresh (never through a link) with the
  final permission bits before any byte is written, and a leftover of a killed save is removed by
  :func:`remove_leftovers` and by the next save. So a key file's plaintext copy cannot linger.

Blocking; call from a thread in the TUI.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_TIMEOUT = 5.0
"""Seconds to wait for another instance's save before giving up."""


class FileBusy(OSError):
    """Another process held the file's lock for longer than :data:`LOCK_TIMEOUT` seconds."""


@contextmanager
def locked(path: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the exclusive lock of ``path`` (the lock file ``.<name>.lock`` beside it) while the block runs.

    Raises:
        FileBusy: the lock could not be taken within ``timeout`` seconds.
        OSError: the lock file cannot be created (e.g. the directory is not writable).
    """
    from filelock import FileLock, Timeout  # only saves need it: reading a file stays light

    lock = FileLock(str(path.with_name(f".{path.name}.lock")), timeout=timeout)
    try:
        with lock:
            yield
    except Timeout:
        raise FileBusy(f"{path} is being saved by another process; try again") from None


def temp_path(path: Path) -> Path:
    """The one temporary file a save of ``path`` writes before renaming it into place."""
    return path.with_name(f".{path.name}.tmp")


def write_atomically(path: Path, data: bytes, *, mode: int | None = 0o600, locked: bool = True) -> None:
    """Replace ``path`` with ``data`` in one step: write a temporary file beside it (created anew, not
    through a link, with its final permission bits from the first byte), flush it to disk, rename
    it over ``path``. On any failure the temporary file is removed and ``path`` is untouched.

    Args:
        path: the file to create or replace; its directory must exist.
        data: the whole new content.
        mode: the permission bits (``0o600`` for a secret); ``None`` keeps those of the file it
            replaces, and gives a new file the usual ``0o666`` less the process umask.
        locked: the caller holds :func:`locked` for ``path``, so the temporary file is the fixed
            :func:`temp_path` (a killed save's leftover is found and removed); without the lock
            (an output file, ``search -o``) it gets a random name of its own.

    Raises:
        OSError: the directory or the file cannot be written (``path`` is unchanged).
    """
    if mode is None:
        mode = _current_mode(path)
    temp = temp_path(path) if locked else path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    temp.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, 0o600 if mode is not None else 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)  # the umask may have narrowed it
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _current_mode(path: Path) -> int | None:
    """The permission bits of the existing ``path`` (``None`` when there is none yet)."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return None


def remove_leftovers(path: Path) -> None:
    """Delete what a save of ``path`` killed midway left behind: :func:`temp_path` and the randomly
    named ``.<name>.*.tmp`` files earlier versions wrote. Never raises."""
    for leftover in [temp_path(path), *path.parent.glob(f".{path.name}.*.tmp")]:
        try:
            leftover.unlink(missing_ok=True)
        except OSError:
            pass
