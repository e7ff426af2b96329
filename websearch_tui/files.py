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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

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
    lock = FileLock(str(path.with_name(f".{path.name}.lock")), timeout=timeout)
    try:
        with lock:
            yield
    except Timeout:
        raise FileBusy(f"{path} is being saved by another process; try again") from None


def temp_path(path: Path) -> Path:
    """The one temporary file a save of ``path`` writes before renaming it into place."""
    return path.with_name(f".{path.name}.tmp")


def write_atomically(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` in one step: write :func:`temp_path` (created anew, not through a
    link, with permission bits ``mode`` from the first byte), flush it to disk, rename it over
    ``path``. On any failure the temporary file is removed and ``path`` is untouched. Call it under
    :func:`locked` so two writers do not share the temporary file.

    Raises:
        OSError: the directory or the file cannot be written (``path`` is unchanged).
    """
    temp = temp_path(path)
    temp.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)  # the umask may have narrowed it
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def remove_leftovers(path: Path) -> None:
    """Delete what a save of ``path`` killed midway left behind: :func:`temp_path` and the randomly
    named ``.<name>.*.tmp`` files earlier versions wrote. Never raises."""
    for leftover in [temp_path(path), *path.parent.glob(f".{path.name}.*.tmp")]:
        try:
            leftover.unlink(missing_ok=True)
        except OSError:
            pass
