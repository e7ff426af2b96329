"""Every use of a private internal of Textual, Rich or asyncio, one module per patch, each naming the
upstream issue or behaviour it works around and checking what it relies on before relying on it
(the library's own behaviour and one warning otherwise, see :mod:`websearch_tui.core.internals`).
httpx's and httpcore's are in :mod:`websearch_tui.providers.transport.pool_repair`;
``tests/unit/test_private_internals.py`` keeps them out of every other module."""
