"""``websearch-tui providers``: every provider with its id, label, kind, the search index its results
come from, key need, status, where its key comes from (never the value) and whether it is in the
default selection; a table, or JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from websearch_tui.cli.common import load_config, print_table, warn
from websearch_tui.core.catalogue import SPECS
from websearch_tui.core.specs import KIND_LABELS

if TYPE_CHECKING:
    from websearch_tui.core.specs import ProviderSpec
    from websearch_tui.secrets.credentials import CredentialSource


def run(args: argparse.Namespace) -> int:
    """``providers``: the table (or with ``--format json`` a list of ``{"id", "label", "kind", "index",
    "key", "status", "key_source", "key_env_vars", "default"}``); always 0.

    Raises:
        UsageError: an unusable config file.
    """
    from websearch_tui.secrets import credentials

    config = load_config(args)
    key_store = credentials.KeyStore()
    rows: list[dict[str, object]] = []
    for spec in SPECS.values():
        values, sources = key_store.lookup(spec)
        settings = config.settings_for(spec.id)
        rows.append(
            {
                "id": spec.id,
                "label": spec.label,
                "kind": KIND_LABELS[spec.kind],
                "index": spec.index,
                "key": spec.key_need,
                "status": credentials.provider_status(spec, settings, values),
                "key_source": _key_source(spec, sources),
                "key_env_vars": list(spec.key_env_vars),
                "default": spec.id in config.search.providers,
            }
        )
    warn([key_store.keyring_problem] if key_store.keyring_problem else [])
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    header = ["PROVIDER", "LABEL", "KIND", "INDEX", "KEY", "STATUS", "KEY FROM", "DEFAULT"]
    columns = ("id", "label", "kind", "index", "key", "status", "key_source")
    print_table([header] + [[str(r[c]) for c in columns] + ["yes" if r["default"] else ""] for r in rows])
    return 0


def _key_source(spec: ProviderSpec, sources: Sequence[CredentialSource]) -> str:
    """Where a provider's credentials come from, for the ``providers`` table (never a value)."""
    if spec.key_need == "login":
        from websearch_tui.secrets import credentials

        return "login file" if credentials.login_state(spec).ready else "no login"
    return ", ".join(s.describe() for s in sources if s.where) or ("-" if spec.keyless else "not set")
