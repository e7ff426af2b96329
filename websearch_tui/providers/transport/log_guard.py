"""Keeping a key that travels in a URL out of httpx's own log records.

Most APIs take their key in a header; a few document only a query parameter (OpenAlex's
``api_key``). httpx logs every request's full URL at ``INFO`` (``HTTP Request: GET https://...``);
this app never routes those records to a handler, but a host application or a test that captures
every record would see the key. :func:`guard_httpx_log` puts a filter on the ``httpx`` logger that
passes each record's message through :func:`~websearch_tui.core.errors.redact` first, so a
registered secret never leaves the logger, whichever handler listens.
"""

from __future__ import annotations

import logging

from websearch_tui.core.errors import redact

HTTPX_LOGGER = "httpx"


class RedactSecrets(logging.Filter):
    """A filter that replaces a record's message by its redacted form when it names a secret (the
    record then carries the finished text and no arguments); it never drops a record. Linear in the
    message's length."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact ``record`` in place; always ``True``."""
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


def guard_httpx_log() -> None:
    """Install :class:`RedactSecrets` on the ``httpx`` logger (once per process; later calls do
    nothing)."""
    logger = logging.getLogger(HTTPX_LOGGER)
    if not any(isinstance(existing, RedactSecrets) for existing in logger.filters):
        logger.addFilter(RedactSecrets())
