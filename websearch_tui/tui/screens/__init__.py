"""Screens of the websearch-tui application."""
