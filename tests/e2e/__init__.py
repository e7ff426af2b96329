"""End-to-end tests: the real app, CLI or MCP server as a child process, a real terminal or key service."""
