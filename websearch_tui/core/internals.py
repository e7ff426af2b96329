"""What a patch of a library's private internals does when a release has changed them.

Every use of a private part of Textual, Rich, httpx, httpcore or asyncio lives in one module of
``websearch_tui/tui/patches/`` or in ``websearch_tui/providers/transport/pool_repair.py``. Such a
module checks the attributes and signatures it relies on before it relies on them
(:func:`missing_attributes`); when one is gone it leaves the library's own behaviour in place and
says so once (:func:`fall_back`), so a new release can make the app slower or less tidy, never
stop it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

_reported: set[tuple[str, str]] = set()
"""``(logger name, patch)`` pairs already reported by :func:`fall_back` in this process."""


def missing_attributes(owner: object, names: Iterable[str]) -> list[str]:
    """The entries of ``names`` that ``owner`` (an object or a class) has no attribute for, in order."""
    return [name for name in names if not hasattr(owner, name)]


def fall_back(logger: logging.Logger, patch: str, reason: str) -> None:
    """Log on ``logger``, once per process for each ``patch``, a warning that ``patch`` is off because
    of ``reason`` (what is missing) and the library's own behaviour is used instead."""
    key = (logger.name, patch)
    if key in _reported:
        return
    _reported.add(key)
    logger.warning("%s is off (%s); the library's own behaviour is used instead", patch, reason)
