"""The MCP front end: the tools agents call, over stdio or Streamable HTTP."""
