"""The search screen: query, provider panes, merged view, export."""
