"""Unit tests: one module of the package at a time, no Textual app, no child process."""
