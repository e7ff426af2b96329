"""``websearch-tui search`` over real HTTP (the loopback fake server) with the cache and a budget
(issue 26): a repeated search sends nothing, ``--fresh`` sends again, a search that would pass a
``[budget]`` is refused before anything is sent (exit 1) unless ``--over-budget``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e import test_e2e as e2e
from tests.e2e.test_e2e import QUERY, run_cli
from tests.fake_providers import FakeServer
from tests.fake_providers.routes import search_route

fake_server, fake_config = e2e.fake_server, e2e.fake_config  # the end-to-end tests' fixtures


def brave_searches(server: FakeServer) -> int:
    """How many search requests the fake Brave received."""
    method, path = search_route("brave")
    return len(server.requests_to(path, method))


def add_tables(config: Path, text: str) -> None:
    config.write_text(config.read_text() + "\n" + text)


def test_a_repeated_search_is_answered_from_the_history_unless_fresh(
    fake_server: FakeServer, fake_config: Path
) -> None:
    args = ["search", QUERY, "-p", "brave", "--format", "json"]
    first = run_cli(args, fake_config)
    again = run_cli(args, fake_config)
    fresh = run_cli([*args, "--fresh"], fake_config)
    assert first.returncode == again.returncode == fresh.returncode == 0, (first.stderr, again.stderr, fresh.stderr)
    assert brave_searches(fake_server) == 2  # the second search sent nothing
    sent, reused, sent_again = (json.loads(out.stdout)["results"][0] for out in (first, again, fresh))
    assert sent["cached"] is None and sent_again["cached"] is None
    assert reused["cached"]["search_id"] == 1 and reused["cached"]["age_seconds"] >= 0
    assert reused["cost"] == {"usd": 0.0, "basis": "cached"}
    assert reused["response"]["sources"] == sent["response"]["sources"]


def test_a_search_over_budget_is_refused_and_sends_nothing(fake_server: FakeServer, fake_config: Path) -> None:
    add_tables(fake_config, "[budget]\ndaily = 0.001\n")  # Brave's list price is $0.005 a request
    refused = run_cli(["search", QUERY, "-p", "brave"], fake_config)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.strip() == (
        "websearch-tui: error: This search would pass the daily budget of $0.001: $0.00 spent today, about $0.005 "
        "for this search. Run it anyway with --over-budget, or raise [budget] daily in the config file."
    )
    assert brave_searches(fake_server) == 0

    allowed = run_cli(["search", QUERY, "-p", "brave", "--over-budget"], fake_config)
    assert allowed.returncode == 0, allowed.stderr
    assert brave_searches(fake_server) == 1
    # the same question again costs nothing (the cache answers it), so it fits
    assert run_cli(["search", QUERY, "-p", "brave"], fake_config).returncode == 0
    assert brave_searches(fake_server) == 1
