"""Every fault and edge variant of the per-provider fakes, run through the real provider over HTTP.

Each variant must end either with a response (possibly empty) or with a :class:`ProviderError`
whose message names the provider; the fake itself must never fail, and no key may leak.
"""

from __future__ import annotations

import time

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.routes import plugins
from tests.helpers import collect, no_wait
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ProviderError
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.providers.base import ProviderContext

CASES = [(pid, variant) for pid, module in plugins().items() for variant in getattr(module, "VARIANTS", ("default",))]
LABEL_WORDS = {"zai": "Z.AI", "you": "You.com", "codex_alpha": "Codex", "ark": "ARK"}


@pytest.mark.parametrize(("provider", "variant"), CASES)
async def test_variant_through_the_provider(provider: str, variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module = plugins()[provider]
    spec = get_spec(provider)
    key = next(iter(module.FAKE_KEYS.values()), None)  # None: a keyless provider's fake needs no key
    if not spec.credentials:  # a login-based provider (Codex): its FAKE_KEYS are environment settings
        for name, value in module.FAKE_KEYS.items():
            monkeypatch.setenv(name, value)
    with FakeServer() as server:
        server.use(provider, variant)
        table = dict(module.config(server.base_url))
        endpoints = {name: table.pop(name) for name in ("base_url", "mcp_url") if name in table}
        async with httpx.AsyncClient() as client:
            ctx = ProviderContext(
                spec=spec,
                client=client,
                settings=ProviderSettings(**endpoints, options=table),
                credentials={spec.credentials[0].name: key} if spec.credentials and key else {},
                deadline=time.monotonic() + 20,
                sleep=no_wait,
            )
            try:
                _, response = await collect(provider, SearchRequest("python asyncio", max_results=5), ctx)
            except ProviderError as error:
                word = LABEL_WORDS.get(provider, spec.label.split()[0])
                assert word.lower() in error.message.lower(), error.message
                assert key is None or key not in error.message
            else:
                assert len(response.sources) <= 5
                if variant == "default":
                    assert response.sources and all(s.url.startswith("http") for s in response.sources)
        assert not server.errors, server.errors
