"""Checks every HTTP provider must pass in the same way, parametrised over provider ids.

- without its API key a provider fails with the seed ``config`` message and sends nothing;
- against the fake server, an injected 401 is ``auth`` (the seed message, or the provider's own
  documented wording) and an HTML page with HTTP 200 is ``protocol``.

Provider-specific behaviour stays in ``tests/test_provider_<id>.py``.
"""

from __future__ import annotations

import httpx
import pytest

from tests.fake_providers import FakeServer
from tests.fake_providers.routes import plugins, search_route
from tests.helpers import Recorder, auth_failed, collect, fake_ctx, make_ctx, missing_key_message, no_wait
from websearch_tui.core.catalogue import get_spec
from websearch_tui.core.errors import ErrorKind, ProviderError
from websearch_tui.core.models import SearchRequest
from websearch_tui.core.specs import ProviderSettings
from websearch_tui.core.version import __version__
from websearch_tui.providers.kimi import KEY_HINT
from websearch_tui.providers.transport.http import build_client

FAKE_PLUGINS = tuple(plugins())
"""Providers with a plugin fake in ``tests/fake_providers/fake_<id>.py`` (the ones this suite covers)."""

KEYED = ("brave", "tavily", *(pid for pid in FAKE_PLUGINS if get_spec(pid).key_need == "required"))
"""Providers that cannot run without an API key (not those whose key is optional, such as OpenAlex's)."""

AUTH_401 = {
    **{pid: auth_failed(pid) for pid in FAKE_PLUGINS},
    "kimi": f"{auth_failed('kimi')} {KEY_HINT}",
    "kagi": f"{auth_failed('kagi')} Kagi's v1 API needs a v1 key; a legacy v0 (Bot) key is rejected.",
    "zai": "Z.AI API error (401): Unauthorized",
    "codex": f"{auth_failed('codex')} Your ChatGPT login may have expired: run any `codex` command (or `codex login`) to refresh it.",
}
"""What a 401 from the fake says, per provider (Z.AI shows its own message, PROVIDERS.md §2.16)."""


@pytest.mark.parametrize("provider_id", KEYED)
async def test_missing_key_is_a_config_error_and_sends_nothing(provider_id: str) -> None:
    rec = Recorder()
    settings = ProviderSettings(base_url="https://search.example") if provider_id == "codex_alpha" else None
    with pytest.raises(ProviderError) as info:
        await collect(provider_id, SearchRequest("q"), make_ctx(provider_id, rec, settings=settings, sleep=no_wait))
    assert info.value.kind is ErrorKind.CONFIG
    assert info.value.message == missing_key_message(provider_id)
    assert rec.requests == []


@pytest.mark.parametrize("provider_id", [pid for pid in KEYED if get_spec(pid).credentials[0].name == "api_key"])
async def test_a_non_ascii_key_is_a_config_error_and_sends_nothing(provider_id: str) -> None:
    rec = Recorder()
    settings = ProviderSettings(base_url="https://search.example") if provider_id == "codex_alpha" else None
    ctx = make_ctx(provider_id, rec, settings=settings, credentials={"api_key": "sk-\u00a0pasted"}, sleep=no_wait)
    with pytest.raises(ProviderError) as info:
        await collect(provider_id, SearchRequest("q"), ctx)
    assert info.value.kind is ErrorKind.CONFIG
    assert "not plain ASCII" in info.value.message and "sk-" not in info.value.message
    assert rec.requests == []


def login_env(provider_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """For a login-based provider (Codex) the fake's FAKE_KEYS are environment settings (CODEX_HOME)."""
    if not get_spec(provider_id).credentials:
        for name, value in plugins()[provider_id].FAKE_KEYS.items():
            monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def srv() -> FakeServer:
    with FakeServer() as server:
        yield server


@pytest.mark.parametrize("provider_id", FAKE_PLUGINS)
async def test_fake_401_is_an_auth_error(srv: FakeServer, provider_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    login_env(provider_id, monkeypatch)
    srv.reset()
    srv.fail(provider_id, 401)
    async with httpx.AsyncClient() as client:
        with pytest.raises(ProviderError) as info:
            await collect(provider_id, SearchRequest("q"), fake_ctx(provider_id, srv, client, sleep=no_wait))
    assert info.value.kind is ErrorKind.AUTH and info.value.status == 401
    assert info.value.message == AUTH_401[provider_id]


@pytest.mark.parametrize("provider_id", FAKE_PLUGINS)
async def test_fake_html_page_with_200_is_a_protocol_error(
    srv: FakeServer, provider_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    login_env(provider_id, monkeypatch)
    srv.reset()
    srv.html_page(provider_id)
    async with httpx.AsyncClient() as client:
        with pytest.raises(ProviderError) as info:
            await collect(provider_id, SearchRequest("q"), fake_ctx(provider_id, srv, client, sleep=no_wait))
    assert info.value.kind is ErrorKind.PROTOCOL


@pytest.mark.parametrize("provider_id", FAKE_PLUGINS)
async def test_the_search_call_names_the_app_in_its_user_agent(
    srv: FakeServer, provider_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every search call says which program sends it: the shared client's ``websearch-tui/<version>``
    (a provider may extend it: Codex with the platform, Wikipedia with a configured contact)."""
    login_env(provider_id, monkeypatch)
    srv.reset()
    async with build_client() as client:
        await collect(provider_id, SearchRequest("q"), fake_ctx(provider_id, srv, client, sleep=no_wait))
    agent = srv.last_request(search_route(provider_id)[1]).header("user-agent") or ""
    assert agent.startswith(f"websearch-tui/{__version__}"), agent
