"""The Python API: ``websearch_tui.search`` / ``asearch`` / ``list_providers`` against the loopback fake,
its errors, and what importing the package costs."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

import websearch_tui
from tests.fake_providers import FAKE_KEYS, FakeServer
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.models import RequestError
from websearch_tui.core.results import RunStatus
from websearch_tui.settings.config import ConfigError, load_config

QUERY = "python asyncio tutorial"


@pytest.fixture
def fake_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A config pointing every provider at the loopback fake, with the fake keys exported."""
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    with FakeServer() as server:
        yield server.write_config(tmp_path / "config.toml", providers=["brave", "tavily"], max_results=3)


def test_search_runs_the_configured_selection(fake_config: Path) -> None:
    result = websearch_tui.search(QUERY, config=fake_config)
    assert result.request.max_results == 3 and result.mode == "compare"
    assert [(o.provider, o.status) for o in result.outcomes] == [("brave", RunStatus.DONE), ("tavily", RunStatus.DONE)]
    brave = result.outcome("brave")
    assert brave is not None and brave.error is None
    assert len(brave.response.sources) == 3
    assert brave.response.sources[0].url == "https://docs.python.org/3/library/asyncio.html"


async def test_asearch_with_a_loaded_config_and_a_failing_provider(fake_config: Path, monkeypatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY")
    result = await websearch_tui.asearch(
        QUERY, providers=["Tavily", "perplexity"], mode="auto", max_results=2, config=load_config(fake_config)
    )
    tavily, perplexity = result.outcomes
    assert tavily.status is RunStatus.FAILED and tavily.error is not None
    assert tavily.error.message == "Tavily: no API key. Set TAVILY_API_KEY or add the key in Settings."
    assert perplexity.status is RunStatus.DONE and perplexity.response.answer
    assert result.winner == "perplexity" and result.ok


def test_record_false_keeps_one_search_out_of_the_history(fake_config: Path) -> None:
    """The history is the isolated one of this test (``WEBSEARCH_TUI_HISTORY``, tests/conftest.py)."""
    from websearch_tui.history import HistoryStore, history_path

    websearch_tui.search("kept out", config=fake_config, record=False)
    websearch_tui.search("kept", config=fake_config)
    store = HistoryStore(history_path())
    try:
        assert [entry.query for entry in store.entries()] == ["kept"]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"providers": ["bravo"]}, "unknown provider 'bravo' (did you mean 'brave'?)"),
        ({"max_results": 21}, "max_results must be a whole number from 1 to 20, not 21"),
        ({"recency": "hour"}, "recency must be one of day, week, month, year, not 'hour'"),
        ({"mode": "fast"}, "mode must be one of compare, auto, not 'fast'"),
    ],
)
def test_bad_arguments_raise_before_anything_runs(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(RequestError, match=f"^{re.escape(message)}$"):
        websearch_tui.search(QUERY, **kwargs)


def test_a_bad_config_raises(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[search]\nprovders = []\n")
    with pytest.raises(ConfigError, match="unknown key 'provders'"):
        websearch_tui.search(QUERY, config=path)


async def test_search_inside_an_event_loop_points_to_asearch() -> None:
    with pytest.raises(RuntimeError, match="await websearch_tui.asearch"):
        websearch_tui.search(QUERY)


def test_list_providers_lists_the_catalogue() -> None:
    specs = websearch_tui.list_providers()
    assert [spec.id for spec in specs] == list(SPECS)
    assert specs[0].label == "DuckDuckGo"


def test_the_package_ships_py_typed() -> None:
    assert (resources.files("websearch_tui") / "py.typed").is_file()


def run_python(script: str) -> str:
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_importing_the_package_stays_cheap() -> None:
    script = (
        "import sys\n"
        "import websearch_tui\n"
        "websearch_tui.search, websearch_tui.asearch, websearch_tui.list_providers()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'textual', 'mcp', 'rich')))\n"
    )
    assert run_python(script) == "[]"


def test_the_api_names_are_plain_functions_whatever_was_imported_first() -> None:
    """No subpackage shares an API name, so importing the engine or the providers first changes nothing,
    and ``help(websearch_tui.search)`` shows the function's own signature."""
    script = (
        "import inspect\n"
        "from websearch_tui.engine.engine import Engine\n"
        "import websearch_tui.providers.base\n"
        "import websearch_tui\n"
        "from websearch_tui import list_providers, search\n"
        "print(inspect.isfunction(search), inspect.isfunction(websearch_tui.asearch), len(list_providers()))\n"
        "print(list(inspect.signature(search).parameters)[:2], search.__module__)\n"
    )
    assert run_python(script) == f"True True {len(SPECS)}\n['query', 'providers'] websearch_tui.api"
