"""Widgets of the websearch-tui application, one concern per module."""
