"""Loopback fake of the web search provider APIs, for tests and manual runs.

    from tests.fake_providers import FakeServer

    with FakeServer() as srv:
        brave_base_url = srv.url("brave")          # http://127.0.0.1:PORT/brave
        srv.fail("brave", 429, retry_after=2)      # fault injection
        ...
        srv.last_request("/brave/res/v1/web/search").query["q"]

Standalone: ``python -m tests.fake_providers --help``.
"""

from .fake_perplexity import perplexity_answer, perplexity_chunks, perplexity_completion
from .routes import (
    FAKE_KEYS,
    OPTIONAL_FAKE_KEYS,
    PROVIDERS,
    VARIANTS,
    ParallelMcp,
    config_toml,
    data_json,
    data_text,
    error_response,
    rpc_error,
)
from .server import (
    FakeRequest,
    FakeResponse,
    FakeServer,
    html_error_page,
    split_at,
    split_every,
    sse,
    sse_event_bounds,
    sse_frames,
    sse_response,
    utf8_split_offsets,
)

__all__ = [
    "FAKE_KEYS",
    "OPTIONAL_FAKE_KEYS",
    "PROVIDERS",
    "VARIANTS",
    "FakeRequest",
    "FakeResponse",
    "FakeServer",
    "ParallelMcp",
    "config_toml",
    "data_json",
    "data_text",
    "error_response",
    "html_error_page",
    "perplexity_answer",
    "perplexity_chunks",
    "perplexity_completion",
    "rpc_error",
    "split_at",
    "split_every",
    "sse",
    "sse_event_bounds",
    "sse_frames",
    "sse_response",
    "utf8_split_offsets",
]
