"""API families several adapters speak: Messages, Responses, MCP, grounding, ..."""
