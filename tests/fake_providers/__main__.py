"""Standalone fake: ``python -m tests.fake_providers [--port N] [--delay S] [--token-delay S] [--write-config PATH]``."""

from __future__ import annotations

import argparse

from .routes import FAKE_KEYS, OPTIONAL_FAKE_KEYS
from .server import FakeServer


def main(argv: list[str] | None = None) -> None:
    """Serve every default route on 127.0.0.1 until Ctrl+C."""
    parser = argparse.ArgumentParser(prog="python -m tests.fake_providers", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a random free port)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every response")
    parser.add_argument("--token-delay", type=float, default=0.0, help="seconds between streamed SSE events")
    parser.add_argument("--write-config", metavar="PATH", help="write a websearch-tui config.toml using this server")
    parser.add_argument("--quiet", action="store_true", help="do not log requests to stderr")
    args = parser.parse_args(argv)

    server = FakeServer(port=args.port, delay=args.delay, token_delay=args.token_delay, verbose=not args.quiet)
    server.start()
    print(f"fake providers listening on {server.base_url}")
    for method, path in sorted(server.routes(), key=lambda key: (key[1], key[0])):
        print(f"  {method:6} {server.base_url}{path}")
    if args.write_config:
        path = server.write_config(args.write_config)
        print(f"\nwrote {path}; use it with:\n  export WEBSEARCH_TUI_CONFIG={path}")
    print("\nfake keys to export:")
    for name, value in FAKE_KEYS.items():
        print(f"  export {name}={value}")
    print("optional (switches exa/parallel from keyless MCP to REST):")
    for name, value in OPTIONAL_FAKE_KEYS.items():
        print(f"  # export {name}={value}")
    print("\nCtrl+C to stop.", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
