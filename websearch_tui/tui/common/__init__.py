"""Widgets, screens and helpers more than one TUI feature uses."""
